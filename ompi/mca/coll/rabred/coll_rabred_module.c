/*
 * coll/rabred module: per-communicator set-up and the MPI_Allreduce /
 * MPI_Reduce entry points.
 *
 * A call goes: validate -> choose (rabred_decide: forced > decision >
 * previous component) -> count it in the per-algorithm counter -> build
 * this rank's plan -> allocate the temporaries the plan names -> execute.
 * With coll_rabred_verbose >= 2 each call prints one line saying what was
 * chosen and why; fallbacks print at verbose >= 1.
 */
#include "coll_rabred.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/op/op.h"
#include "opal/util/output.h"

static void module_construct(mca_coll_rabred_module_t *m)
{
    m->previous_allreduce = NULL;
    m->previous_allreduce_module = NULL;
    m->previous_reduce = NULL;
    m->previous_reduce_module = NULL;
    rabred_plan_init(&m->plan);
    memset(m->scratch, 0, sizeof(m->scratch));
    memset(m->rules, 0, sizeof(m->rules));
    memset(&m->book, 0, sizeof(m->book));
    memset(&m->est, 0, sizeof(m->est));
    memset(&m->pick_cache, 0, sizeof(m->pick_cache));
    m->last_exit = 0;
    m->exchange_cost = 0;
    m->hint = RABRED_HINT_AUTO;
    m->hint_changes_seen = -1;
    strcpy(m->hint_text, "auto");
    m->agreement = RABRED_SETTINGS_UNCHECKED;
}

static void module_destruct(mca_coll_rabred_module_t *m)
{
    if (NULL != m->previous_allreduce_module) {
        OBJ_RELEASE(m->previous_allreduce_module);
    }
    if (NULL != m->previous_reduce_module) {
        OBJ_RELEASE(m->previous_reduce_module);
    }
    rabred_plan_free(&m->plan);
    for (int i = 0; i < 3; i++) {
        mca_coll_rabred_scratch_release(&m->scratch[i]);
    }
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        rabred_rules_free(&m->rules[coll]);
    }
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
static int module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_rabred_module_t *m = (mca_coll_rabred_module_t *)module;
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
    if (OMPI_SUCCESS != mca_coll_rabred_arrival_subscribe(comm)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    /* the rules that can match this communicator's size, once, so that a
     * call does a short lookup, not a parse */
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        if (RABRED_OK != rabred_rules_prune(&mca_coll_rabred_component.rules,
                                            (rabred_coll_t)coll, ompi_comm_size(comm),
                                            &m->rules[coll])) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    return OMPI_SUCCESS;
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
    return &m->super;
}

/* The cost model for this communicator's size, priced on first use of
 * each collective (and again if the segment size changed through MPI_T),
 * in *book.  Out of memory is the call's error (OMPI_ERR_OUT_OF_RESOURCE):
 * a rank that decided without the model would run another algorithm than
 * the others.  The book lives in the module, so there is no allocation of
 * its own to fail. */
static int price_book(mca_coll_rabred_module_t *m, rabred_coll_t coll, int p,
                      const rabred_pricebook_t **book)
{
    rabred_model_t model = mca_coll_rabred_model();
    int rc = rabred_pricebook_ensure(&m->book, coll, p, mca_coll_rabred_component.segment_size,
                                     &model, NULL);
    *book = RABRED_OK == rc ? &m->book : NULL;
    return RABRED_OK == rc ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

static int64_t segment_count(struct ompi_datatype_t *dtype, const rabred_choice_t *choice);

/* alg's place in coll's table (the price book's index), or -1. */
static int table_index(const rabred_alg_t *alg)
{
    return NULL != alg ? alg->id - 1 : -1;
}

static int64_t call_bytes(int count, struct ompi_datatype_t *dtype)
{
    size_t type_size = 0;
    ompi_datatype_type_size(dtype, &type_size);
    return (int64_t)count * (int64_t)type_size;
}

/* Choose for this call (an estimated MPI_Allreduce may go arrival-aware),
 * count it and say so at the verbose levels.  *estimating (MPI_Allreduce
 * only, else NULL) is cleared when the model says the gap exchange would
 * cost more than the call can spare (rabred_estimate_pays), when the
 * measured table keeps every arrival-aware plan out of the call's cell
 * (rabred_decide_arrival_possible), when the pacing skips this call
 * (rabred_estimate_due), and when a forced or
 * rule-chosen algorithm does not read the estimate.  OMPI_SUCCESS, or
 * OMPI_ERR_OUT_OF_RESOURCE when the simulator behind the cost model or the
 * arrival-aware choice ran out of memory (nothing is counted then). */
static int choose(mca_coll_rabred_module_t *m, rabred_coll_t coll, int count,
                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                  struct ompi_communicator_t *comm, int *estimating, rabred_choice_t *choice)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    int64_t bytes = call_bytes(count, dtype);
    rabred_call_t call = {ompi_comm_size(comm), count, ompi_op_is_commute(op) ? 1 : 0};
    rabred_decide_ctx_t ctx = {&m->rules[coll], c->rules_file, NULL, c->short_bytes[coll]};
    int rc = OMPI_SUCCESS;
    if (RABRED_ALG_AUTO == c->algorithm[coll] && call.p > 1 &&
        OMPI_SUCCESS != (rc = price_book(m, coll, call.p, &ctx.book))) {
        return rc;
    }
    rabred_decide(coll, &call, bytes, c->algorithm[coll], &ctx, choice);
    if (RABRED_WHY_FALLBACK == choice->why && NULL == ctx.book && call.p > 1) {
        /* a forced algorithm that cannot serve this call: the decision
         * that replaces it is auto's, cost model included */
        if (OMPI_SUCCESS != (rc = price_book(m, coll, call.p, &ctx.book))) {
            return rc;
        }
        rabred_decide(coll, &call, bytes, c->algorithm[coll], &ctx, choice);
    }
    if (NULL != estimating && *estimating && RABRED_WHY_DECISION != choice->why) {
        /* forced or by a rule: only an arrival-aware algorithm reads the
         * estimate, and it gets a fresh one every call; for the others an
         * exchange would be pure cost.  Neither counts down auto's pacing
         * (price 0: rabred_estimate_pace leaves it alone). */
        *estimating = NULL != choice->alg && choice->alg->arrival_aware;
        m->est_price = 0;
    } else if (NULL != estimating && *estimating && NULL != choice->alg) {
        int i = table_index(choice->alg);
        double price = NULL != ctx.book && i >= 0
                           ? rabred_pricebook_time(ctx.book, coll, call.commutative, i, bytes)
                           : 0;
        rabred_model_t model = mca_coll_rabred_model();
        /* a hint costs no exchange; otherwise only calls the exchange is
         * cheap enough for, where the measured table leaves some
         * arrival-aware plan, and of those the ones the pacing says are due */
        *estimating = RABRED_HINT_LATE == m->hint ||
                      (rabred_estimate_pays(call.p, &model, price) &&
                       rabred_decide_arrival_possible(call.p, bytes) &&
                       rabred_estimate_due(&m->est));
        m->est_price = price;
        if (*estimating && OMPI_SUCCESS != (rc = mca_coll_rabred_arrival_choose(
                                                m, &call, dtype, price > 0 ? price : 0,
                                                segment_count(dtype, choice), choice))) {
            return rc;
        }
    }
    c->calls[coll][table_index(choice->alg) + 1]++; /* slot 0: previous */
    if (c->verbose >= 2 || (c->verbose >= 1 && RABRED_WHY_FALLBACK == choice->why)) {
        opal_output(c->output, "coll:rabred: %s p=%d bytes=%lld alg=%s why=%s (%s)",
                    rabred_coll_name(coll), call.p, (long long)bytes,
                    choice->alg ? choice->alg->name : "previous", rabred_why_name(choice->why),
                    choice->reason);
    }
    return OMPI_SUCCESS;
}

/* The segment size in elements of dtype (at least one when segmenting):
 * a rule's segsize, else coll_rabred_segment_size. */
static int64_t segment_count(struct ompi_datatype_t *dtype, const rabred_choice_t *choice)
{
    size_t type_size = 0;
    ompi_datatype_type_size(dtype, &type_size);
    int64_t bytes = choice->seg_bytes > 0 ? choice->seg_bytes
                                          : mca_coll_rabred_component.segment_size;
    if (bytes <= 0 || 0 == type_size) {
        return 0;
    }
    return bytes >= (int64_t)type_size ? bytes / (int64_t)type_size : 1;
}

static int plan_error(int rc)
{
    return RABRED_ERR_NOMEM == rc ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_BAD_PARAM;
}

/* After a failed execution a transfer the PML could not cancel may still
 * read or write the temporaries: leak them (and forget the scratch they
 * came from) rather than free or reuse memory it may touch. */
static void abandon_temporaries(mca_coll_rabred_tmpbuf_t t[3], mca_coll_rabred_scratch_t scratch[3])
{
    for (int i = 0; i < 3; i++) {
        if (NULL != t[i].buf && NULL == t[i].raw) { /* from the scratch */
            scratch[i].raw = NULL;
            scratch[i].cap = 0;
        }
        t[i].raw = t[i].buf = NULL;
    }
}

/* Build this rank's plan, allocate what it names, run it, free.  `acc` is
 * the caller's result buffer when acc_given, which may be a null pointer:
 * Open MPI's MPI_BOTTOM, with a datatype of absolute addresses. */
static int run_plan(mca_coll_rabred_module_t *m, const rabred_alg_t *alg,
                    const rabred_plan_args_t *args, char *input, char *acc, int acc_given,
                    struct ompi_datatype_t *dtype, struct ompi_op_t *op, int tag,
                    struct ompi_communicator_t *comm)
{
    int rc = rabred_plan_build(alg->build, args, &m->plan);
    if (RABRED_OK != rc) {
        return plan_error(rc);
    }
    /* ACC (when the caller gave none), TMP and TMP2, each from its own
     * scratch so they never alias */
    mca_coll_rabred_tmpbuf_t t[3] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
    const rabred_buf_t which[3] = {RABRED_BUF_ACC, RABRED_BUF_TMP, RABRED_BUF_TMP2};
    char *bufs[RABRED_NBUFS] = {input, acc, NULL, NULL};
    for (int i = 0; i < 3 && OMPI_SUCCESS == rc; i++) {
        int given = RABRED_BUF_ACC == which[i] && acc_given;
        if (!given && m->plan.uses[which[i]]) {
            rc = mca_coll_rabred_tmpbuf_alloc(&t[i], dtype, (size_t)args->count, &m->scratch[i]);
            bufs[which[i]] = t[i].buf;
        }
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_rabred_execute(&m->plan, bufs, dtype, op, tag, comm);
        if (OMPI_SUCCESS != rc) {
            abandon_temporaries(t, m->scratch);
        }
    }
    for (int i = 0; i < 3; i++) {
        mca_coll_rabred_tmpbuf_free(&t[i]);
    }
    return rc;
}

int mca_coll_rabred_allreduce_max(mca_coll_rabred_module_t *m, void *vec, void *tmp, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_communicator_t *comm)
{
    rabred_plan_args_t args = {ompi_comm_size(comm), ompi_comm_rank(comm), -1, count, 1, 0, NULL,
                               1}; /* vec is INPUT and ACC */
    int rc = rabred_plan_build(rabred_alg_allreduce_recursive_doubling.build, &args, &m->plan);
    if (RABRED_OK != rc) {
        return plan_error(rc);
    }
    char *bufs[RABRED_NBUFS] = {(char *)vec, (char *)vec, (char *)tmp, NULL};
    return mca_coll_rabred_execute(&m->plan, bufs, dtype, &ompi_mpi_op_max.op,
                                   MCA_COLL_BASE_TAG_ALLREDUCE, comm);
}

/* 1 when the ranks of comm decide alike, 0 when they do not (the call
 * then goes to the component below, counted and said as such), or an
 * error of the first call's check.  After the check, one compare. */
static int settings_agree(mca_coll_rabred_module_t *m, rabred_coll_t coll, int count,
                          struct ompi_datatype_t *dtype, struct ompi_communicator_t *comm)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    if (RABRED_SETTINGS_UNCHECKED == m->agreement) {
        int rc = mca_coll_rabred_agree(m, comm);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (RABRED_SETTINGS_AGREE == m->agreement) {
        return 1;
    }
    c->calls[coll][0]++;
    if (c->verbose >= 2) {
        opal_output(c->output, "coll:rabred: %s p=%d bytes=%lld alg=previous why=disagreement "
                    "(the ranks' rabred settings differ)", rabred_coll_name(coll),
                    ompi_comm_size(comm), (long long)call_bytes(count, dtype));
    }
    return 0;
}

int mca_coll_rabred_allreduce(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rabred_module_t *m = (mca_coll_rabred_module_t *)module;
    int agree = settings_agree(m, RABRED_COLL_ALLREDUCE, count, dtype, comm);
    if (agree <= 0) {
        return agree < 0 ? agree
                         : m->previous_allreduce(sbuf, rbuf, count, dtype, op, comm,
                                                 m->previous_allreduce_module);
    }
    int estimating = mca_coll_rabred_arrival_wanted(m, comm, call_bytes(count, dtype));
    if (estimating < 0) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    double t_in = estimating ? MPI_Wtime() : 0; /* before anything we do */
    rabred_choice_t choice;
    int rc = choose(m, RABRED_COLL_ALLREDUCE, count, dtype, op, comm, &estimating, &choice);
    if (OMPI_SUCCESS != rc) {
        return rc;
    } else if (NULL == choice.alg) {
        /* The component below serves it: no gap exchange after it, so that
         * its time (coll/tuned's in bench/) carries none of rabred's
         * overhead.  The same on every rank (choosing previous is). */
        estimating = 0;
        rc = m->previous_allreduce(sbuf, rbuf, count, dtype, op, comm,
                                   m->previous_allreduce_module);
    } else if (count <= 0) {
        return count < 0 ? OMPI_ERR_BAD_PARAM : OMPI_SUCCESS;
    } else {
        rabred_arrival_t arrival;
        rabred_plan_args_t args = {ompi_comm_size(comm), ompi_comm_rank(comm), -1, count,
                                   ompi_op_is_commute(op) ? 1 : 0, segment_count(dtype, &choice),
                                   estimating ? mca_coll_rabred_arrival_input(m, dtype, &arrival)
                                              : NULL,
                                   MPI_IN_PLACE == sbuf};
        char *input = MPI_IN_PLACE == sbuf ? (char *)rbuf : (char *)sbuf;
        rc = run_plan(m, choice.alg, &args, input, (char *)rbuf, 1, dtype, op,
                      MCA_COLL_BASE_TAG_ALLREDUCE, comm);
    }
    if (OMPI_SUCCESS == rc && estimating) {
        rc = mca_coll_rabred_arrival_end(m, comm, t_in);
    }
    return rc;
}

int mca_coll_rabred_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                           struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                           mca_coll_base_module_t *module)
{
    mca_coll_rabred_module_t *m = (mca_coll_rabred_module_t *)module;
    int agree = settings_agree(m, RABRED_COLL_REDUCE, count, dtype, comm);
    if (agree <= 0) {
        return agree < 0 ? agree
                         : m->previous_reduce(sbuf, rbuf, count, dtype, op, root, comm,
                                              m->previous_reduce_module);
    }
    rabred_choice_t choice;
    int rc = choose(m, RABRED_COLL_REDUCE, count, dtype, op, comm, NULL, &choice);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL == choice.alg) {
        return m->previous_reduce(sbuf, rbuf, count, dtype, op, root, comm,
                                  m->previous_reduce_module);
    }
    if (count <= 0) {
        return count < 0 ? OMPI_ERR_BAD_PARAM : OMPI_SUCCESS;
    }
    int rank = ompi_comm_rank(comm);
    /* MPI_IN_PLACE is only meaningful at the root; elsewhere rbuf is not ours */
    int at_root = rank == root;
    rabred_plan_args_t args = {ompi_comm_size(comm), rank, root, count,
                               ompi_op_is_commute(op) ? 1 : 0, segment_count(dtype, &choice), NULL,
                               at_root && MPI_IN_PLACE == sbuf};
    char *input = (at_root && MPI_IN_PLACE == sbuf) ? (char *)rbuf : (char *)sbuf;
    return run_plan(m, choice.alg, &args, input, at_root ? (char *)rbuf : NULL, at_root, dtype,
                    op, MCA_COLL_BASE_TAG_REDUCE, comm);
}
