/*
 * coll/rabred module: per-communicator set-up and the MPI_Allreduce /
 * MPI_Reduce entry points.
 *
 * A call goes: check the count -> the ranks agree on rabred's settings
 * (one exchange at the communicator's first call, then one compare) ->
 * look the call's key up among the communicator's prepared calls
 * (select/rabred_prepared.h); on a miss, choose (select/rabred_select.h:
 * forced > rules > model > previous) and build the plan and its schedule
 * once -> count it in the per-algorithm counter -> take the temporaries the
 * plan names -> execute.  An MPI_Allreduce that the arrival estimate may
 * improve chooses again with the current estimate (the choice's expensive
 * part, simulating the arrival-aware plans, is reused for a few calls) and
 * exchanges the ranks' gaps after the call (coll_rabred_arrival.c).
 * With coll_rabred_verbose >= 2 each call prints one line saying what was
 * chosen and why; fallbacks print at verbose >= 1.
 */
#include "coll_rabred.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/group/group.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/op/op.h"
#include "opal/util/output.h"

static void module_construct(mca_coll_rabred_module_t *m)
{
    m->previous_allreduce = NULL;
    m->previous_allreduce_module = NULL;
    m->previous_reduce = NULL;
    m->previous_reduce_module = NULL;
    m->previous_iallreduce = NULL;
    m->previous_iallreduce_module = NULL;
    m->previous_ireduce = NULL;
    m->previous_ireduce_module = NULL;
    rabred_prepared_init(&m->spare);
    m->setup_busy = 0;
    m->sends_first_bytes = 0;
    memset(m->rules, 0, sizeof(m->rules));
    m->rules_file = NULL;
    memset(&m->prepared, 0, sizeof(m->prepared));
    m->generation = 0;
    memset(m->scratch, 0, sizeof(m->scratch));
    memset(&m->internal, 0, sizeof(m->internal));
    m->internal_count = -1;
    memset(&m->est, 0, sizeof(m->est));
    m->last_exit = 0;
    m->est_price = 0;
    m->exchange_cost = 0;
    m->hint = RABRED_HINT_AUTO;
    m->hint_changes_seen = -1;
    strcpy(m->hint_text, "auto");
    m->agreement = RABRED_SETTINGS_UNCHECKED;
    memset(&m->nodes, 0, sizeof(m->nodes));
    m->node_of = NULL;
    m->place_of = NULL;
    memset(&m->node_groups, 0, sizeof(m->node_groups));
}

static void module_destruct(mca_coll_rabred_module_t *m)
{
    if (NULL != m->previous_allreduce_module) {
        OBJ_RELEASE(m->previous_allreduce_module);
    }
    if (NULL != m->previous_reduce_module) {
        OBJ_RELEASE(m->previous_reduce_module);
    }
    if (NULL != m->previous_iallreduce_module) {
        OBJ_RELEASE(m->previous_iallreduce_module);
    }
    if (NULL != m->previous_ireduce_module) {
        OBJ_RELEASE(m->previous_ireduce_module);
    }
    rabred_prepared_cache_fini(&m->prepared);
    rabred_prepared_fini(&m->spare);
    rabred_ready_plan_free(&m->internal);
    free(m->node_of);
    free(m->place_of);
    rabred_node_groups_free(&m->node_groups);
    for (int i = 0; i < 3; i++) {
        mca_coll_rabred_scratch_release(&m->scratch[i]);
    }
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        rabred_rules_free(&m->rules[coll]);
    }
    free(m->rules_file);
    rabred_estimate_fini(&m->est);
}

OBJ_CLASS_INSTANCE(mca_coll_rabred_module_t, mca_coll_base_module_t, module_construct,
                   module_destruct);

int mca_coll_rabred_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void)enable_progress_threads;
    (void)enable_mpi_threads;
    return OMPI_SUCCESS;
}

/* Keep the functions of the component selected below rabred: they serve the
 * calls rabred hands on ("previous"), and are retained so they outlive any
 * reselection. */
static int keep_previous(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm)
{
    m->previous_allreduce = comm->c_coll->coll_allreduce;
    m->previous_allreduce_module = comm->c_coll->coll_allreduce_module;
    m->previous_reduce = comm->c_coll->coll_reduce;
    m->previous_reduce_module = comm->c_coll->coll_reduce_module;
    if (NULL == m->previous_allreduce || NULL == m->previous_allreduce_module ||
        NULL == m->previous_reduce || NULL == m->previous_reduce_module) {
        opal_output_verbose(1, mca_coll_rabred_component.output,
                            "coll:rabred: no allreduce/reduce below rabred on %s; "
                            "add basic to the coll list (e.g. --mca coll rabred,basic,libnbc)",
                            comm->c_name);
        m->previous_allreduce_module = m->previous_reduce_module = NULL;
        return OMPI_ERROR;
    }
    OBJ_RETAIN(m->previous_allreduce_module);
    OBJ_RETAIN(m->previous_reduce_module);
    /* nonblocking: libnbc's, when listed (a call rabred hands down without
     * one fails with MPI_ERR_UNSUPPORTED_OPERATION, coll_rabred_nbc.c) */
    m->previous_iallreduce = comm->c_coll->coll_iallreduce;
    m->previous_iallreduce_module = comm->c_coll->coll_iallreduce_module;
    m->previous_ireduce = comm->c_coll->coll_ireduce;
    m->previous_ireduce_module = comm->c_coll->coll_ireduce_module;
    if (NULL == m->previous_iallreduce || NULL == m->previous_iallreduce_module) {
        m->previous_iallreduce = NULL;
        m->previous_iallreduce_module = NULL;
    } else {
        OBJ_RETAIN(m->previous_iallreduce_module);
    }
    if (NULL == m->previous_ireduce || NULL == m->previous_ireduce_module) {
        m->previous_ireduce = NULL;
        m->previous_ireduce_module = NULL;
    } else {
        OBJ_RETAIN(m->previous_ireduce_module);
    }
    return OMPI_SUCCESS;
}

/* Does comm hold a run of consecutive MPI_COMM_WORLD ranks, in order?
 * The distance term prices a partner by how far apart two ranks are in
 * the order rabred-calibrate measured, MPI_COMM_WORLD's; in a
 * communicator of every 16th rank, neighbours are 16 apart.  0 also
 * when out of memory: the term is then left out (a price, not a
 * result). */
static int world_run(struct ompi_communicator_t *comm)
{
    int p = ompi_comm_size(comm);
    int *ranks = malloc(2 * (size_t)p * sizeof(int));
    if (NULL == ranks) {
        return 0;
    }
    for (int r = 0; r < p; r++) {
        ranks[r] = r;
    }
    int run = OMPI_SUCCESS == ompi_group_translate_ranks(comm->c_local_group, p, ranks,
                                                         ompi_mpi_comm_world.comm.c_local_group,
                                                         ranks + p);
    for (int r = 1; r < p && run; r++) {
        run = MPI_UNDEFINED != ranks[p] && ranks[p + r] == ranks[p] + r;
    }
    free(ranks);
    return run;
}

/* What depends only on the communicator is prepared here, once: the
 * rules that can match its size (a call then does a short lookup, not a
 * parse), the cache of prepared calls, the arrival hint's subscription.
 * The node map needs an exchange: it is learned at the first call
 * (settings_agree). */
static int module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_rabred_module_t *m = (mca_coll_rabred_module_t *)module;
    int rc = keep_previous(m, comm);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    /* the same answer on every rank: either all share a node or some
     * peers of every rank are elsewhere */
    int link = ompi_group_have_remote_peers(comm->c_local_group) ? RABRED_LINK_INTER
                                                                   : RABRED_LINK_INTRA;
    m->model = mca_coll_rabred_model(link);
    if (rabred_model_has_distance(&m->model) && !world_run(comm)) {
        rabred_model_clear_distance(&m->model);
    }
    m->sends_first_bytes = mca_coll_rabred_component.link[link].sends_first_bytes;
    if (OMPI_SUCCESS != mca_coll_rabred_arrival_subscribe(comm) ||
        RABRED_OK != rabred_prepared_cache_init(&m->prepared,
                                                mca_coll_rabred_component.prepared_calls)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    return mca_coll_rabred_rules_for(ompi_comm_size(comm), m->rules, &m->rules_file);
}

mca_coll_base_module_t *mca_coll_rabred_comm_query(struct ompi_communicator_t *comm,
                                                   int *priority)
{
    *priority = mca_coll_rabred_component.priority;
    if (OMPI_COMM_IS_INTER(comm) || *priority < 0) {
        return NULL; /* rabred's plans are for intracommunicators */
    }
    mca_coll_rabred_module_t *m = OBJ_NEW(mca_coll_rabred_module_t);
    if (NULL == m) {
        return NULL;
    }
    m->super.coll_module_enable = module_enable;
    m->super.coll_allreduce = mca_coll_rabred_allreduce;
    m->super.coll_reduce = mca_coll_rabred_reduce;
    m->super.coll_iallreduce = mca_coll_rabred_iallreduce;
    m->super.coll_ireduce = mca_coll_rabred_ireduce;
#if OMPI_MAJOR_VERSION >= 5
    m->super.coll_allreduce_init = mca_coll_rabred_allreduce_init;
    m->super.coll_reduce_init = mca_coll_rabred_reduce_init;
#endif
    return &m->super;
}

typedef mca_coll_rabred_call_t call_t;

static int64_t type_size(struct ompi_datatype_t *dtype)
{
    size_t size = 0;
    ompi_datatype_type_size(dtype, &size);
    return (int64_t)size;
}

/* The key's fields that the call's arguments give (call_key builds a key
 * of them, holds_call compares one with them). */
static inline int32_t key_flags(const call_t *c)
{
    return (ompi_op_is_commute(c->op) ? RABRED_KEY_COMMUTATIVE : 0) |
           (c->in_place ? RABRED_KEY_IN_PLACE : 0);
}

static inline int64_t key_extent(const call_t *c)
{
    ptrdiff_t lb, extent;
    ompi_datatype_get_extent(c->dtype, &lb, &extent);
    return extent;
}

static inline uint64_t key_generation(const mca_coll_rabred_module_t *m)
{
    return (uint64_t)mca_coll_rabred_generation() << 32 | m->generation;
}

static rabred_call_key_t call_key(const mca_coll_rabred_module_t *m, const call_t *c)
{
    rabred_call_key_t key = {
        .coll = c->coll,
        .flags = key_flags(c),
        .root = c->root,
        .generation = key_generation(m),
        .count = c->count,
        .type_size = type_size(c->dtype),
        .extent = key_extent(c),
    };
    return key;
}

/* Does k hold this call: is it the key call_key would make?  Compared
 * field by field without building one, the cheapest first: the hot path's
 * test of the entry of the last hit. */
static inline int holds_call(const rabred_call_key_t *k, const mca_coll_rabred_module_t *m,
                             const call_t *c)
{
    return k->count == c->count && k->root == c->root && k->coll == (int32_t)c->coll &&
           k->flags == key_flags(c) && k->type_size == type_size(c->dtype) &&
           k->extent == key_extent(c) && k->generation == key_generation(m);
}

/* How key's elements move, for the executor (rabred_ready_plan_build). */
static rabred_elements_t elements_of(const mca_coll_rabred_module_t *m,
                                     const rabred_call_key_t *key)
{
    rabred_elements_t e = {key->type_size, key->extent, m->sends_first_bytes};
    return e;
}

/* The segment size in elements (at least one when segmenting): a rule's
 * segsize, else coll_rabred_segment_size. */
static int64_t segment_count(int64_t type_size, const rabred_choice_t *choice)
{
    int64_t bytes = choice->seg_bytes > 0 ? choice->seg_bytes
                                          : mca_coll_rabred_component.segment_size;
    if (bytes <= 0 || 0 == type_size) {
        return 0;
    }
    return bytes >= type_size ? bytes / type_size : 1;
}

static int plan_error(int rc)
{
    return RABRED_ERR_NOMEM == rc ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_BAD_PARAM;
}

static rabred_plan_args_t plan_args(const mca_coll_rabred_module_t *m, const call_t *c,
                                    const rabred_call_key_t *key,
                                    const rabred_choice_t *choice,
                                    const rabred_arrival_t *arrival)
{
    rabred_plan_args_t args = {c->p, c->rank, c->root, c->count,
                               (key->flags & RABRED_KEY_COMMUTATIVE) ? 1 : 0,
                               segment_count(key->type_size, choice), arrival, c->in_place,
                               mca_coll_rabred_nodes(m)};
    return args;
}

/* May this MPI_Allreduce's choice read the arrival estimate?  What the
 * parameters and the call's size decide (the communicator's hint is
 * asked per call: mca_coll_rabred_arrival_wanted). */
static int estimable(const call_t *c, int64_t bytes)
{
    const mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    return RABRED_COLL_ALLREDUCE == c->coll && k->arrival_aware && c->p >= 2 &&
           c->p <= RABRED_ESTIMATE_MAX_P && bytes >= k->arrival_min_bytes;
}

/* The selection's inputs for this call (arrival: NULL, or the estimate's
 * part of an estimated call). */
static int select_in(mca_coll_rabred_module_t *m, const call_t *c, const rabred_call_key_t *key,
                     rabred_select_arrival_t *arrival, rabred_select_in_t *in)
{
    const mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    memset(in, 0, sizeof(*in));
    in->coll = c->coll;
    in->call = (rabred_call_t){c->p, c->count, (key->flags & RABRED_KEY_COMMUTATIVE) ? 1 : 0,
                               mca_coll_rabred_nodes(m)};
    in->root = c->root;
    in->bytes = (int64_t)c->count * key->type_size;
    in->forced = k->algorithm[c->coll];
    in->rules = &m->rules[c->coll];
    in->rules_name = m->rules_file;
    in->short_bytes = k->short_bytes[c->coll];
    in->want_reason = k->verbose >= 1;
    in->arrival = arrival;
    if (c->p < 2) {
        return OMPI_SUCCESS;
    }
    const rabred_nodes_t *nodes = mca_coll_rabred_nodes(m);
    if (!rabred_nodes_matter(nodes, c->p)) {
        return mca_coll_rabred_price_book(&m->model, c->coll, c->p, &in->book);
    }
    if (c->p <= RABRED_TWO_LEVEL_MAX_P) {
        return mca_coll_rabred_price_book_nodes(&m->model, nodes, c->coll, c->p, &in->book);
    }
    /* one link for a large communicator of several ranks per node: a
     * rank's distance is not its node's, so no distance term */
    rabred_model_t flat = m->model;
    rabred_model_clear_distance(&flat);
    return mca_coll_rabred_price_book(&flat, c->coll, c->p, &in->book);
}

/* Every candidate's price, at verbose 3, once per prepared call: what an
 * admin reads to see how far the runner-up was. */
static void __attribute__((noinline)) say_prices(const call_t *c, const char *prices)
{
    opal_output(mca_coll_rabred_component.output, "coll:rabred: %s%s p=%d bytes=%lld prices: %s",
                c->nonblocking ? "i" : "", rabred_coll_name(c->coll), c->p,
                (long long)c->count * (long long)type_size(c->dtype), prices);
}

/* A miss: choose, and build the plan unless the choice needs the arrival
 * offsets of each call (arrival-aware) or is the component below. */
static int prepare(mca_coll_rabred_module_t *m, const call_t *c, const rabred_call_key_t *key,
                   rabred_prepared_t *own, rabred_prepared_t **out)
{
    rabred_select_in_t in;
    rabred_prepared_t *e = rabred_prepared_claim(&m->prepared, key);
    if (NULL == e) { /* every entry serves a nonblocking call in flight */
        e = own;
        rabred_prepared_claim_own(e, key);
    }
    char prices[1024];
    prices[0] = '\0';
    int rc = select_in(m, c, key, NULL, &in);
    if (mca_coll_rabred_component.verbose >= 3) {
        in.prices = prices;
        in.prices_len = sizeof(prices);
    }
    if (OMPI_SUCCESS == rc && RABRED_OK != rabred_select(&in, &e->choice)) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    if ('\0' != prices[0]) {
        say_prices(c, prices);
    }
    const rabred_alg_t *alg = e->choice.alg;
    if (OMPI_SUCCESS == rc && NULL != alg && !alg->arrival_aware) {
        rabred_plan_args_t args = plan_args(m, c, key, &e->choice, NULL);
        rabred_elements_t elements = elements_of(m, key);
        int brc = rabred_ready_plan_build(&e->run, alg, &args, &elements);
        rc = RABRED_OK == brc ? OMPI_SUCCESS : plan_error(brc);
    }
    e->estimated = estimable(c, in.bytes); /* blocking calls only: nonblocking ones skip it */
    if (OMPI_SUCCESS != rc) {
        e->used = 0; /* nothing half-prepared is ever found */
        return rc;
    }
    *out = e;
    return OMPI_SUCCESS;
}

/* An estimated call keeps its prepared balanced choice (the settings have
 * not changed, or the key would have) and asks only the estimate whether
 * an arrival-aware algorithm replaces it: pricing again would cost plan
 * builds on every call. */
static int choose_with_estimate(mca_coll_rabred_module_t *m, const call_t *c,
                                rabred_prepared_t *e, int *estimating, rabred_choice_t *choice)
{
    const mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    rabred_select_arrival_t arrival = {
        .est = &m->est, .hint_late = RABRED_HINT_LATE == m->hint,
        .type_size = (size_t)e->key.type_size,
        .seg_count = segment_count(e->key.type_size, &e->choice),
        .min_gain = k->arrival_min_gain, .pick = &e->pick, .pick_at_calls = &e->pick_at_calls,
        .pick_epoch = &e->pick_epoch};
    rabred_select_in_t in;
    int rc = select_in(m, c, &e->key, &arrival, &in);
    in.prepared = &e->choice; /* the balanced choice is the prepared call's */
    if (OMPI_SUCCESS == rc && RABRED_OK != rabred_select(&in, choice)) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    *estimating = arrival.estimating;
    m->est_price = arrival.balanced_price;
    return rc;
}

/* The arrival-aware plan for choice->alg.  With offsets (an estimated
 * call): the one last built while it is recent and of the estimate's
 * epoch (the same reuse as the pick's), else built anew with the current estimate.  Without (forced or
 * by a rule on a call that is not estimated): built once, for equal
 * arrivals. */
static int arrival_plan(mca_coll_rabred_module_t *m, const call_t *c, rabred_prepared_t *e,
                        const rabred_choice_t *choice, int with_offsets,
                        const rabred_ready_plan_t **out)
{
    rabred_ready_plan_t *r = &e->arrival;
    int calls = with_offsets ? m->est.calls : -1; /* -1: built without offsets */
    int stale = r->alg != choice->alg || r->stamp != calls;
    if (with_offsets && r->alg == choice->alg && r->stamp >= 0 && calls >= r->stamp) {
        stale = calls - r->stamp >= RABRED_ARRIVAL_REUSE_CALLS || (0 == r->stamp && calls > 0) ||
                r->epoch != m->est.epoch;
    }
    if (stale) {
        rabred_arrival_t storage;
        const rabred_arrival_t *arrival =
            with_offsets ? mca_coll_rabred_arrival_input(m, c->dtype, &storage) : NULL;
        rabred_plan_args_t args = plan_args(m, c, &e->key, choice, arrival);
        rabred_elements_t elements = elements_of(m, &e->key);
        int rc = rabred_ready_plan_build(r, choice->alg, &args, &elements);
        if (RABRED_OK != rc) {
            return plan_error(rc);
        }
        r->stamp = calls;
        r->epoch = m->est.epoch;
    }
    *out = r;
    return OMPI_SUCCESS;
}

/* The call's line at verbose 2 (fallbacks from verbose 1); apart from
 * the counting, so that the count stays small enough to be inlined into
 * the hot path. */
static void __attribute__((noinline)) say_call(const call_t *c, const rabred_choice_t *choice)
{
    mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    if (k->verbose >= 2 || RABRED_WHY_FALLBACK == choice->why) {
        opal_output(k->output, "coll:rabred: %s%s p=%d bytes=%lld alg=%s why=%s (%s)",
                    c->nonblocking ? "i" : "", rabred_coll_name(c->coll), c->p,
                    (long long)c->count * (long long)type_size(c->dtype),
                    choice->alg ? choice->alg->name : "previous", rabred_why_name(choice->why),
                    choice->reason);
    }
}

/* Inline in the blocking calls' hot path (serve); the other callers take
 * mca_coll_rabred_count_call. */
static inline void count_call(const call_t *c, const rabred_choice_t *choice)
{
    mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    unsigned long long *calls = c->nonblocking ? k->icalls[c->coll] : k->calls[c->coll];
    calls[NULL != choice->alg ? choice->alg->id : 0]++; /* slot 0: previous */
    if (OPAL_UNLIKELY(k->verbose >= 1)) {
        say_call(c, choice);
    }
}

void mca_coll_rabred_count_call(const call_t *c, const rabred_choice_t *choice)
{
    count_call(c, choice);
}

void mca_coll_rabred_abandon_temporaries(mca_coll_rabred_tmpbuf_t t[3],
                                         mca_coll_rabred_scratch_t scratch[3])
{
    for (int i = 0; i < 3; i++) {
        if (NULL != t[i].base && NULL == t[i].raw) { /* from the scratch */
            scratch[i].raw = NULL;
            scratch[i].cap = 0;
        }
        t[i].raw = t[i].base = NULL;
    }
}

/* Allreduce: INPUT is the send buffer (the receive buffer in place), ACC
 * the receive buffer.  Reduce: the root's receive buffer is ACC; elsewhere
 * ACC is a temporary and the receive buffer is not ours.  The receive
 * buffer may be a null pointer: Open MPI's MPI_BOTTOM, with a datatype of
 * absolute addresses. */
static mca_coll_rabred_bufs_t given_buffers(const call_t *c)
{
    int at_root = RABRED_COLL_ALLREDUCE == c->coll || c->rank == c->root;
    char *input = c->in_place ? (char *)c->rbuf : (char *)c->sbuf;
    mca_coll_rabred_bufs_t given = {{input, at_root ? (char *)c->rbuf : NULL, NULL, NULL},
                                    {0, 0, 0, 0}};
    return given;
}

int mca_coll_rabred_take_buffers(const call_t *c, const rabred_ready_plan_t *r,
                                 mca_coll_rabred_scratch_t scratch[3],
                                 mca_coll_rabred_tmpbuf_t t[3], mca_coll_rabred_bufs_t *bufs)
{
    int rc = OMPI_SUCCESS;
    *bufs = given_buffers(c);
    memset(t, 0, 3 * sizeof(*t));
    for (int i = 0; i < 3 && OMPI_SUCCESS == rc; i++) {
        int b = RABRED_BUF_ACC + i; /* t[i] holds buffer b */
        if (r->temporaries & (1 << b)) {
            rc = mca_coll_rabred_tmpbuf_alloc(&t[i], c->dtype, (size_t)c->count, &scratch[i]);
            bufs->base[b] = t[i].base;
            bufs->shift[b] = t[i].shift;
        }
    }
    return rc;
}

int mca_coll_rabred_call_tag(const call_t *c)
{
    return RABRED_COLL_ALLREDUCE == c->coll ? MCA_COLL_BASE_TAG_ALLREDUCE
                                            : MCA_COLL_BASE_TAG_REDUCE;
}

/* run() with temporaries: apart, so that the calls without any (a small
 * reduce's leaf and root) do not set up its frame. */
static int __attribute__((noinline))
run_with_temporaries(mca_coll_rabred_module_t *m, const call_t *c, const rabred_ready_plan_t *r,
                     int tag)
{
    mca_coll_rabred_bufs_t bufs;
    mca_coll_rabred_tmpbuf_t t[3];
    int rc = mca_coll_rabred_take_buffers(c, r, m->scratch, t, &bufs);
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_rabred_execute(r, &bufs, c->dtype, c->op, tag, c->comm);
        if (OMPI_SUCCESS != rc) {
            mca_coll_rabred_abandon_temporaries(t, m->scratch);
        }
    }
    for (int i = 0; i < 3; i++) {
        mca_coll_rabred_tmpbuf_free(&t[i]);
    }
    return rc;
}

/* Take the temporaries the plan names, run it, give them back. */
static int run(mca_coll_rabred_module_t *m, const call_t *c, const rabred_ready_plan_t *r)
{
    int tag = mca_coll_rabred_call_tag(c);
    if (r->only_send) { /* a leaf: no temporaries, no executor state */
        return mca_coll_rabred_send_only(r, c->in_place ? c->rbuf : c->sbuf, c->dtype, tag,
                                         c->comm);
    }
    if (0 == r->temporaries) { /* the caller's buffers only */
        mca_coll_rabred_bufs_t bufs = given_buffers(c);
        return mca_coll_rabred_execute(r, &bufs, c->dtype, c->op, tag, c->comm);
    }
    return run_with_temporaries(m, c, r, tag);
}

static int run_previous(const mca_coll_rabred_module_t *m, const call_t *c)
{
    return RABRED_COLL_ALLREDUCE == c->coll
               ? m->previous_allreduce(c->sbuf, c->rbuf, c->count, c->dtype, c->op, c->comm,
                                       m->previous_allreduce_module)
               : m->previous_reduce(c->sbuf, c->rbuf, c->count, c->dtype, c->op, c->root,
                                    c->comm, m->previous_reduce_module);
}

void mca_coll_rabred_count_disagreement(const call_t *c)
{
    mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    (c->nonblocking ? k->icalls : k->calls)[c->coll][0]++;
    if (k->verbose >= 2) {
        opal_output(k->output, "coll:rabred: %s%s p=%d bytes=%lld alg=previous why=disagreement "
                    "(the ranks' rabred settings differ)", c->nonblocking ? "i" : "",
                    rabred_coll_name(c->coll), c->p,
                    (long long)c->count * (long long)type_size(c->dtype));
    }
}

/* 1 when the ranks of comm decide alike, 0 when they do not (the call
 * then goes to the component below, counted and said as such), or an
 * error of the first call's check.  After the check, one compare. */
static int settings_agree(mca_coll_rabred_module_t *m, const call_t *c)
{
    while (m->setup_busy) { /* a nonblocking call runs the set-up: every rank made it */
        opal_progress();
    }
    if (RABRED_SETTINGS_UNCHECKED == m->agreement) {
        int rc = mca_coll_rabred_settings_check(m, c->comm);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (RABRED_SETTINGS_AGREE == m->agreement) {
        return 1;
    }
    mca_coll_rabred_count_disagreement(c);
    return 0;
}

/* An estimated call: choose with the estimate, time the call from before
 * anything rabred does, run, and exchange the gaps after it. */
static int serve_estimated(mca_coll_rabred_module_t *m, const call_t *c, rabred_prepared_t *e)
{
    double t_in = MPI_Wtime();
    rabred_choice_t choice;
    int estimating = 0;
    int rc = choose_with_estimate(m, c, e, &estimating, &choice);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    mca_coll_rabred_count_call(c, &choice);
    if (NULL == choice.alg) {
        /* the component below serves it: no gap exchange after it, so that
         * its time carries none of rabred's overhead (alike on every rank) */
        return run_previous(m, c);
    }
    const rabred_ready_plan_t *r = &e->run;
    if (choice.alg->arrival_aware) {
        rc = arrival_plan(m, c, e, &choice, estimating, &r);
    }
    if (OMPI_SUCCESS == rc && c->count > 0) {
        rc = run(m, c, r);
    }
    if (OMPI_SUCCESS == rc && estimating) {
        rc = mca_coll_rabred_arrival_end(m, c->comm, t_in);
    }
    return rc;
}

/* The prepared call of the last hit when it holds this call (most calls
 * of a program repeat the last one), else NULL. */
static inline rabred_prepared_t *last_prepared(mca_coll_rabred_module_t *m, const call_t *c)
{
    rabred_prepared_cache_t *cache = &m->prepared;
    rabred_prepared_t *e = &cache->entries[cache->last];
    if (OPAL_LIKELY(e->used && holds_call(&e->key, m, c))) {
        e->last_use = ++cache->clock;
        return e;
    }
    return NULL;
}

/* Any other entry that holds the call, or a new one prepared for it. */
static int __attribute__((noinline))
find_or_prepare(mca_coll_rabred_module_t *m, const call_t *c, rabred_prepared_t **out)
{
    rabred_call_key_t key = call_key(m, c);
    *out = rabred_prepared_lookup(&m->prepared, &key);
    return NULL != *out ? OMPI_SUCCESS : prepare(m, c, &key, &m->spare, out);
}

static int serve(mca_coll_rabred_module_t *m, const call_t *c)
{
    if (c->count < 0) {
        return MPI_ERR_COUNT; /* before choosing: no component below sees it */
    }
    int agree = settings_agree(m, c);
    if (agree <= 0) {
        return agree < 0 ? agree : run_previous(m, c);
    }
    rabred_prepared_t *e = last_prepared(m, c);
    if (OPAL_UNLIKELY(NULL == e)) {
        int rc = find_or_prepare(m, c, &e);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (e->estimated) {
        int wanted = mca_coll_rabred_arrival_wanted(m, c->comm);
        if (wanted < 0) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        if (wanted) {
            return serve_estimated(m, c, e);
        }
    }
    count_call(c, &e->choice);
    if (NULL == e->choice.alg) {
        return run_previous(m, c);
    }
    if (e->choice.alg->arrival_aware) { /* forced or by a rule, without the estimate */
        const rabred_ready_plan_t *r;
        int rc = arrival_plan(m, c, e, &e->choice, 0, &r);
        return OMPI_SUCCESS != rc || 0 == c->count ? rc : run(m, c, r);
    }
    return 0 == c->count ? OMPI_SUCCESS : run(m, c, &e->run);
}

int mca_coll_rabred_prepared_for(mca_coll_rabred_module_t *m, const call_t *c,
                                 rabred_prepared_t *own, rabred_prepared_t **out)
{
    rabred_call_key_t key = call_key(m, c);
    rabred_prepared_t *e = rabred_prepared_find(&m->prepared, &key);
    if (NULL == e) {
        int rc = prepare(m, c, &key, own, &e);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    mca_coll_rabred_count_call(c, &e->choice);
    *out = e;
    return OMPI_SUCCESS;
}

int mca_coll_rabred_build_for(const mca_coll_rabred_module_t *m, const call_t *c,
                              const rabred_prepared_t *e, rabred_ready_plan_t *r)
{
    rabred_plan_args_t args = plan_args(m, c, &e->key, &e->choice, NULL);
    rabred_elements_t elements = elements_of(m, &e->key);
    int rc = rabred_ready_plan_build(r, e->choice.alg, &args, &elements);
    return RABRED_OK == rc ? OMPI_SUCCESS : plan_error(rc);
}

/* What the application sees: out of memory as MPI_ERR_NO_MEM (an MPI
 * error class passes through Open MPI's error handling unchanged, where
 * OMPI_ERR_OUT_OF_RESOURCE would reach it as MPI_ERR_INTERN). */
int mca_coll_rabred_user_error(int rc)
{
    return OMPI_ERR_OUT_OF_RESOURCE == rc || OMPI_ERR_TEMP_OUT_OF_RESOURCE == rc ? MPI_ERR_NO_MEM
                                                                                 : rc;
}

int mca_coll_rabred_allreduce(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    call_t c = {RABRED_COLL_ALLREDUCE, sbuf, rbuf, count, dtype, op, -1, comm,
                ompi_comm_size(comm), ompi_comm_rank(comm), MPI_IN_PLACE == sbuf, 0};
    return mca_coll_rabred_user_error(serve((mca_coll_rabred_module_t *)module, &c));
}

int mca_coll_rabred_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                           struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                           mca_coll_base_module_t *module)
{
    int rank = ompi_comm_rank(comm);
    /* MPI_IN_PLACE is only meaningful at the root */
    call_t c = {RABRED_COLL_REDUCE, sbuf, rbuf, count, dtype, op, root, comm,
                ompi_comm_size(comm), rank, rank == root && MPI_IN_PLACE == sbuf, 0};
    return mca_coll_rabred_user_error(serve((mca_coll_rabred_module_t *)module, &c));
}
