/*
 * coll/rabred component: MCA parameters, performance counters, the output
 * stream.  Parameter enums and help text are generated from the algorithm
 * table, so they cannot drift from what dispatch accepts.
 *
 * Bad input: an unknown algorithm name is rejected by Open MPI's enum
 * parsing (which prints the valid names) and the parameter keeps its
 * default, auto; a negative threshold prints one warning and the default is
 * used.  Nothing here can make MPI_Init fail.
 */
#include "coll_rabred.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opal/mca/base/mca_base_pvar.h"
#include "opal/runtime/opal_progress.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

const char *mca_coll_rabred_component_version_string = "Open MPI rabred collective MCA component";

/* Which ranks share a node: learned from the runtime's host names unless
 * given (coll_rabred_nodes.c). */
static void register_node_map(mca_coll_rabred_component_t *c)
{
    c->node_map = NULL;
    (void)mca_base_component_var_register(
        &c->super.collm_version, "node_map",
        "Which ranks of a communicator share a node, for the node-aware algorithms "
        "(node_lanes, node_leaders). Empty (default): from the host name Open MPI's runtime "
        "gives for every rank. For tests on one machine: block:L (L consecutive ranks per "
        "node), cyclic:N (rank r on node r mod N, as --map-by node) or list:A,B,... (a node "
        "label per rank; communicators of another size use the host names). Must be the same "
        "on every rank; an MPI_T write applies to communicators whose first call comes "
        "after it. A wrong map costs speed, never correctness",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_9,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->node_map);
}

/* What the decision minimises for MPI_Reduce (rabred_model_t's
 * reduce_completion): a string, as the node map, so that a benchmark can
 * create a communicator under either value through MPI_T. */
static void register_reduce_metric(mca_coll_rabred_component_t *c)
{
    c->reduce_metric = "average";
    (void)mca_base_component_var_register(
        &c->super.collm_version, "reduce_metric",
        "What the built-in decision minimises for MPI_Reduce: \"average\" (default), the "
        "average over ranks of each rank's own time in the call, as OSU's osu_reduce reports "
        "it (a rank whose part has left is free: trees whose leaves leave early win); or "
        "\"completion\", the time until the root holds the result (for codes that wait on "
        "the root's result; pipelined chains win on long vectors). Anything else counts as "
        "average, with a warning. Must be the same on every rank; an MPI_T write applies to "
        "communicators created after it",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->reduce_metric);
}

/* 1 when coll_rabred_reduce_metric asks for the root's completion; a value
 * that is neither name is said once and counts as the average. */
static int reduce_completion(void)
{
    static int warned = 0;
    const char *metric = mca_coll_rabred_component.reduce_metric;
    if (NULL == metric || '\0' == metric[0] || 0 == strcmp(metric, "average")) {
        return 0;
    }
    if (0 == strcmp(metric, "completion")) {
        return 1;
    }
    if (!warned) {
        warned = 1;
        opal_output(0, "coll:rabred: coll_rabred_reduce_metric = \"%s\" is neither \"average\" "
                       "nor \"completion\"; MPI_Reduce is priced by the average", metric);
    }
    return 0;
}

static int rabred_register(void);

static int rabred_open(void);
static int rabred_close(void);

/* Default priority: above coll/tuned (30) so an installed rabred takes over
 * MPI_Allreduce/MPI_Reduce; every other collective still comes from the
 * components below, since rabred provides only these two. */
#define RABRED_DEFAULT_PRIORITY 40
/* 0 (one segment per block): on the measured 100 Mbit/s TCP cluster every
 * segment size cost time (p = 4, 4 MiB: 614 ms unsegmented, 696 ms with
 * 256 KiB segments, 708 ms with 64 KiB; bench/results/full-20261121): the
 * reduction is 1000x cheaper than the link, so there is nothing to overlap,
 * and each segment adds a lock-step round.  Segments pay where reducing
 * costs about as much as sending (shared memory, fast fabrics); rabred-tune
 * searches the size there. */
#define RABRED_DEFAULT_SEGMENT_BYTES 0
/* 64 MiB: covers the sizes where malloc's page faults rival shared-memory
 * transfer time, while a communicator holds at most 192 MiB (three
 * temporaries: ACC, TMP, TMP2). */
#define RABRED_DEFAULT_CACHE_BYTES (64 << 20)
/* 32: more shapes than a solver (a few dot products and norms) or a
 * training step (its gradient buckets) uses, at a few hundred bytes each
 * plus the plans (O(lg p) rounds for most, O(p) for the rings). */
#define RABRED_DEFAULT_PREPARED_CALLS 32

mca_coll_rabred_component_t mca_coll_rabred_component = {
    .super = {
        .collm_version = {
            RABRED_COLL_BASE_VERSION,
            .mca_component_name = "rabred",
            MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
            .mca_open_component = rabred_open,
            .mca_close_component = rabred_close,
            .mca_register_component_params = rabred_register,
        },
        .collm_data = {
            MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .collm_init_query = mca_coll_rabred_init_query,
        .collm_comm_query = mca_coll_rabred_comm_query,
    },
    .priority = RABRED_DEFAULT_PRIORITY,
    .verbose = 0,
    .output = -1,
};

/* Help strings built from the table live for the whole run: the MCA system
 * shows them from ompi_info at any time. */
static char *algorithm_help[RABRED_NCOLLS];

/* One algorithm in the help: its name, its earlier name, and the id
 * coll/tuned gives the same algorithm (its forced-algorithm parameter and
 * rules files), "-" when tuned has none. */
static int append_algorithm(char *help, size_t len, int n, const rabred_alg_t *alg)
{
    char ids[32] = "-";
    int m = 0;
    for (int k = 0; k < 3 && 0 != alg->tuned_ids[k]; k++) {
        m += snprintf(ids + m, sizeof(ids) - (size_t)m, "%s%d", k ? "/" : "", alg->tuned_ids[k]);
    }
    return n + snprintf(help + n, len - (size_t)n, "%s %s%s%s%s [%s]", 0 == n ? "" : ",",
                        alg->name, NULL != alg->alias ? " (also " : "",
                        NULL != alg->alias ? alg->alias : "", NULL != alg->alias ? ")" : "", ids);
}

/* A short help (ompi_info prints it as one line): what auto and previous
 * mean and each algorithm with coll/tuned's id for it.  What each
 * algorithm does, its cost and its limits: rabred-plan --list, rabred(7). */
static char *build_algorithm_help(rabred_coll_t coll)
{
    size_t len = 512;
    for (int i = 0; i < rabred_table_size(coll); i++) {
        const rabred_alg_t *alg = rabred_table_at(coll, i);
        len += strlen(alg->name) + 48 + (NULL != alg->alias ? strlen(alg->alias) : 0);
    }
    char *help = malloc(len), *list = malloc(len);
    if (NULL == help || NULL == list) {
        free(help);
        free(list);
        return NULL;
    }
    int n = 0;
    for (int i = 0; i < rabred_table_size(coll) && n >= 0 && (size_t)n < len; i++) {
        n = append_algorithm(list, len, n, rabred_table_at(coll, i));
    }
    snprintf(help, len,
             "Algorithm for MPI_%s: auto (rabred decides), previous (the coll component below "
             "rabred) or one of:%s. [n]: coll/tuned's id for the same algorithm (coll_tuned_%s_"
             "algorithm, rules files), -: none. Steps, cost and limits of each: rabred-plan "
             "--list, man 7 rabred",
             RABRED_COLL_ALLREDUCE == coll ? "Allreduce" : "Reduce", list,
             rabred_coll_name(coll));
    free(list);
    return help;
}

/* Open MPI's own parser of the enum's names, kept to fall back to. */
static mca_base_var_enum_vfs_fn_t enum_names_parser[RABRED_NCOLLS];

/* An algorithm's alias (rabred_alg_t.alias, an earlier name) is accepted
 * wherever its name is: it parses to the same id.  The enum's items, which
 * ompi_info and MPI_T list, stay the canonical names. */
static int value_from_name_or_alias(rabred_coll_t coll, mca_base_var_enum_t *self,
                                    const char *string, int *value)
{
    const rabred_alg_t *alg = rabred_table_by_name(coll, string);
    if (NULL != alg) {
        *value = alg->id;
        return OPAL_SUCCESS;
    }
    return enum_names_parser[coll](self, string, value);
}

static int allreduce_value_from_string(mca_base_var_enum_t *self, const char *string, int *value)
{
    return value_from_name_or_alias(RABRED_COLL_ALLREDUCE, self, string, value);
}

static int reduce_value_from_string(mca_base_var_enum_t *self, const char *string, int *value)
{
    return value_from_name_or_alias(RABRED_COLL_REDUCE, self, string, value);
}

static int register_algorithm_param(rabred_coll_t coll)
{
    mca_base_var_enum_value_t values[RABRED_TABLE_MAX + 3];
    int n = 0;
    values[n++] = (mca_base_var_enum_value_t){RABRED_ALG_AUTO, "auto"};
    for (int i = 0; i < rabred_table_size(coll) && i < RABRED_TABLE_MAX; i++) {
        const rabred_alg_t *alg = rabred_table_at(coll, i);
        values[n++] = (mca_base_var_enum_value_t){alg->id, alg->name};
    }
    values[n++] = (mca_base_var_enum_value_t){RABRED_ALG_PREVIOUS, "previous"};
    values[n] = (mca_base_var_enum_value_t){0, NULL};

    char enum_name[64], var_name[64];
    snprintf(enum_name, sizeof(enum_name), "coll_rabred_%s_algorithms", rabred_coll_name(coll));
    snprintf(var_name, sizeof(var_name), "%s_algorithm", rabred_coll_name(coll));
    mca_base_var_enum_t *algorithms = NULL;
    int rc = mca_base_var_enum_create(enum_name, values, &algorithms);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    enum_names_parser[coll] = algorithms->value_from_string;
    algorithms->value_from_string = RABRED_COLL_ALLREDUCE == coll ? allreduce_value_from_string
                                                                  : reduce_value_from_string;
    algorithm_help[coll] = build_algorithm_help(coll);
    mca_coll_rabred_component.algorithm[coll] = RABRED_ALG_AUTO;
    /* SETTABLE + ALL_EQ: may be changed at run time through MPI_T, with the
     * same value on every rank (tests and rabred_bench switch algorithms
     * inside one run this way). */
    rc = mca_base_component_var_register(&mca_coll_rabred_component.super.collm_version, var_name,
                                         algorithm_help[coll] ? algorithm_help[coll] : "algorithm",
                                         MCA_BASE_VAR_TYPE_INT, algorithms, 0,
                                         MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_5,
                                         MCA_BASE_VAR_SCOPE_ALL_EQ,
                                         &mca_coll_rabred_component.algorithm[coll]);
    OBJ_RELEASE(algorithms);
    if (rc < 0) {
        /* Open MPI has just shown the valid names; keep rabred usable */
        mca_coll_rabred_component.algorithm[coll] = RABRED_ALG_AUTO;
        opal_output(0, "coll:rabred: invalid coll_rabred_%s; using the default, auto", var_name);
    }
    return OPAL_SUCCESS;
}

/* coll_rabred_segment_size's help, naming the table's segmented algorithms. */
static char segment_help[512];

static const char *build_segment_help(void)
{
    char names[256] = "";
    size_t n = 0;
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        for (int i = 0; i < rabred_table_size((rabred_coll_t)coll) && n < sizeof(names); i++) {
            const rabred_alg_t *alg = rabred_table_at((rabred_coll_t)coll, i);
            if (alg->segmented) {
                n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
                                      alg->name);
            }
        }
    }
    snprintf(segment_help, sizeof(segment_help),
             "Bytes per segment for the pipelined algorithms (%s); 0: no segments "
             "(node_chain then takes 8 (N-2) segments for N nodes). "
             "Default 0: on a network much slower than the reduction (measured: 100 Mbit/s "
             "TCP) segments only add rounds to the rings; where reducing costs about as much "
             "as sending, 64K-256K segments overlap the two. A forced pipeline needs "
             "segments (e.g. 65536): unsegmented it is a plain chain. Settable through MPI_T "
             "(rabred-tune searches it)",
             names);
    return segment_help;
}

/* A threshold in bytes: negative values are refused with one warning.
 * `flags` MCA_BASE_VAR_FLAG_SETTABLE lets MPI_T change it at run time (the
 * value is read at each call, so the change takes effect on the next one). */
static void register_threshold(const char *name, const char *help, int def, int flags,
                               int *storage)
{
    *storage = def;
    (void)mca_base_component_var_register(&mca_coll_rabred_component.super.collm_version, name,
                                          help, MCA_BASE_VAR_TYPE_INT, NULL, 0, flags,
                                          OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ, storage);
    if (*storage < 0) {
        opal_output(0, "coll:rabred: coll_rabred_%s = %d is negative; using the default %d",
                    name, *storage, def);
        *storage = def;
    }
}

/* A read-only, always-on performance variable of the component. */
static void register_pvar(const char *name, const char *help, int var_class,
                          mca_base_var_type_t type, void *storage)
{
    (void)mca_base_component_pvar_register(
        &mca_coll_rabred_component.super.collm_version, name, help, OPAL_INFO_LVL_4, var_class,
        type, NULL, MCA_BASE_VAR_BIND_NO_OBJECT,
        MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS, NULL, NULL, NULL, storage);
}

/* One counter per (collective, algorithm), blocking or nonblocking:
 * coll_rabred_<coll>_<alg>_calls and coll_rabred_i<coll>_<alg>_calls. */
static void register_counters(rabred_coll_t coll, int nonblocking)
{
    static const char *const calls[2][RABRED_NCOLLS] = {
        {"MPI_Allreduce", "MPI_Reduce"},
        {"MPI_Iallreduce calls and MPI_Allreduce_init", "MPI_Ireduce calls and MPI_Reduce_init"}};
    char name[96], help[192];
    for (int slot = 0; slot <= rabred_table_size(coll) && slot <= RABRED_TABLE_MAX; slot++) {
        const char *alg = 0 == slot ? "previous" : rabred_table_at(coll, slot - 1)->name;
        snprintf(name, sizeof(name), "%s%s_%s_calls", nonblocking ? "i" : "",
                 rabred_coll_name(coll), alg);
        snprintf(help, sizeof(help), "Number of %s %s on this process served by %s%s",
                 calls[nonblocking][coll], nonblocking ? "starts" : "calls", alg,
                 0 == slot ? " (the coll component below rabred)" : "");
        register_pvar(name, help, MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG,
                      nonblocking ? &mca_coll_rabred_component.icalls[coll][slot]
                                  : &mca_coll_rabred_component.calls[coll][slot]);
    }
}

/* A model parameter (double): negative, NaN or out of [min, max] values
 * print one warning and the default is used. */
static void register_model_param(const char *name, const char *help, double def, double min,
                                 double max, double *storage)
{
    *storage = def;
    (void)mca_base_component_var_register(&mca_coll_rabred_component.super.collm_version, name,
                                          help, MCA_BASE_VAR_TYPE_DOUBLE, NULL, 0, 0,
                                          OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ, storage);
    if (!(*storage >= min && *storage <= max)) { /* also catches NaN */
        opal_output(0, "coll:rabred: coll_rabred_%s = %g is outside [%g, %g]; using the default %g",
                    name, *storage, min, max, def);
        *storage = def;
    }
}

rabred_model_t mca_coll_rabred_model(int link)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    rabred_model_t m = rabred_model_make_copy(&c->link[link], c->reduce_mbs, c->round_sync_us,
                                              c->copy_mbs);
    rabred_model_set_far(&m, &c->far);
    m.reduce_completion = reduce_completion();
    return m;
}

/* The settable parameters a choice reads (MPI_T may write them between
 * any two calls; the verbosity decides whether a reason is kept) changed
 * since the last call (mca_coll_rabred_generation compares them): keep
 * what this call sees and count one generation more. */
uint32_t mca_coll_rabred_generation_bump(void)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    int *seen = c->seen_settings;
    seen[0] = c->algorithm[RABRED_COLL_ALLREDUCE];
    seen[1] = c->algorithm[RABRED_COLL_REDUCE];
    seen[2] = c->segment_size;
    seen[3] = c->arrival_aware;
    seen[4] = c->verbose >= 1;
    return ++c->generation;
}

int mca_coll_rabred_price_book(const rabred_model_t *model, rabred_coll_t coll, int p,
                               const rabred_pricebook_t **book)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    OPAL_THREAD_LOCK(&c->books_lock);
    int rc = rabred_pricebooks_get(&c->books, coll, p, c->segment_size, model, book);
    OPAL_THREAD_UNLOCK(&c->books_lock);
    return RABRED_OK == rc ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

int mca_coll_rabred_price_book_nodes(const rabred_model_t *inter, const rabred_nodes_t *nodes,
                                     rabred_coll_t coll, int p, const rabred_pricebook_t **book)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    rabred_model_t intra = mca_coll_rabred_model(RABRED_LINK_INTRA);
    /* the metric as the communicator read it when it was set up, so that
     * an MPI_T write since then does not make a second book */
    intra.reduce_completion = inter->reduce_completion;
    OPAL_THREAD_LOCK(&c->books_lock);
    int rc = rabred_pricebooks_get_nodes(&c->books, coll, p, c->segment_size, inter, &intra,
                                         nodes, book);
    OPAL_THREAD_UNLOCK(&c->books_lock);
    return RABRED_OK == rc ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

/* One link's terms: coll_rabred_<kind>_<term>.  Each is a physical
 * quantity in readable units; rabred-calibrate measures them all. */
static void register_link(const char *kind, const char *where, const rabred_link_units_t *def,
                          rabred_link_units_t *link)
{
    char name[64], help[512];
#define RABRED_LINK_PARAM(term, text, lo, hi, field)                                        \
    snprintf(name, sizeof(name), "%s_%s", kind, term);                                    \
    snprintf(help, sizeof(help), "Cost model, %s: %s (default %g)", where, text, def->field); \
    register_model_param(name, help, def->field, lo, hi, &link->field)
    RABRED_LINK_PARAM("alpha_us", "latency of an 8-byte exchange with one peer, microseconds",
                      0.0, 1e6, alpha_us);
    RABRED_LINK_PARAM("mbs", "bandwidth of an exchange with one peer, each direction, MB/s "
                      "(10^6 bytes per second)", 1e-3, 1e9, mbs);
    RABRED_LINK_PARAM("oneway_alpha", "latency of a one-way message relative to an exchange "
                      "(1: full duplex)", 1e-3, 1e3, oneway_alpha);
    RABRED_LINK_PARAM("oneway_beta", "time per byte of a one-way message relative to an "
                      "exchange (1: full duplex; 0.5: an exchange with one peer moves at half "
                      "speed, as over Open MPI's TCP BTL above its eager limit)",
                      1e-3, 1e3, oneway_beta);
    RABRED_LINK_PARAM("sends_first_bytes", "not a price but how rabred posts: from this "
                      "message size (bytes) a step posts its sends before its receives, "
                      "where the transport serialises an exchange posted receive-first "
                      "(measured over Open MPI's TCP BTL: up to 2x a one-way message); 0: "
                      "receives first always (they land in place)", 0.0, 1e12,
                      sends_first_bytes);
    RABRED_LINK_PARAM("eager_bytes", "largest message sent eagerly, bytes (the transport's "
                      "eager limit); larger ones pay rndv_us; 0: no switch modelled",
                      0.0, 1e12, eager_bytes);
    RABRED_LINK_PARAM("send_buffer_bytes", "what a sender may leave behind, bytes: its send is "
                      "done once all but this many bytes have left (a TCP socket's send buffer, "
                      "an eager copy; measured: 1.27 MB over Open MPI's TCP BTL, 5-8 KB (1 us) "
                      "over vader's single copy), so a rank that leaves MPI_Reduce after a send is "
                      "free before its message is in; 0: when all have", 0.0, 1e12, send_buffer_bytes);
    RABRED_LINK_PARAM("rndv_us", "what the rendezvous handshakes add to a round that sends "
                      "and receives messages above eager_bytes (two crossing), microseconds",
                      0.0, 1e6, rndv_us);
    RABRED_LINK_PARAM("eager_mbs", "bandwidth of an exchange of messages up to eager_bytes, "
                      "MB/s (copied through the transport's buffers; 0: as mbs)", 0.0, 1e9,
                      eager_mbs);
    RABRED_LINK_PARAM("invalidate_mbs", "speed of reducing into memory that a peer has read "
                      "in the same call through a single-copy transport (the peer's cached "
                      "copies are invalidated first), MB/s; 0: no such cost", 0.0, 1e9,
                      invalidate_mbs);
    RABRED_LINK_PARAM("overwrite_mbs", "speed of overwriting such memory with a receive or a "
                      "copy (whole lines, not read first), MB/s; 0: no such cost", 0.0, 1e9,
                      overwrite_mbs);
    RABRED_LINK_PARAM("rndv_oneway_us", "what the rendezvous handshake adds to a round that "
                      "only sends or only receives a message above eager_bytes, microseconds",
                      0.0, 1e6, rndv_oneway_us);
    RABRED_LINK_PARAM("rndv_cross_us", "what a round that sends a message above eager_bytes "
                      "to one peer and receives one from another (a ring step) adds beyond "
                      "rndv_us, microseconds: the receive's handshake waits behind the rank's "
                      "own outgoing data (measured: 2.6-8.2 ms a round of 128-256 KiB over Open "
                      "MPI's TCP BTL on the emulated 100 Mbit/s cluster); in an exchange both "
                      "handshakes cross before either side's data", 0.0, 1e6, rndv_cross_us);
    RABRED_LINK_PARAM("peer_us", "what each distinct peer a rank talks to in one call adds, "
                      "microseconds (connection state, TCP's restart after idle)",
                      0.0, 1e6, peer_us);
    RABRED_LINK_PARAM("repeat", "time per byte of an exchange with one peer that follows "
                      "another round of the same call, relative to one that starts the call "
                      "(1: the same; over Open MPI's TCP BTL above its eager limit 2-3: one "
                      "direction's handshake queues behind the other's data)", 1.0, 100.0,
                      repeat);
    RABRED_LINK_PARAM("duplex", "time per byte of a message sent while the same rank "
                      "receives from another peer, relative to sending alone (1: the two "
                      "directions do not slow each other; a CPU or memory bus shared by both, "
                      "or a transport's acknowledgements, make it more)", 1.0, 100.0, duplex);
    RABRED_LINK_PARAM("aggregate_mbs", "the most all ranks together move at once, MB/s, when "
                      "that is below the sum of their links (CPUs shared by the transport's "
                      "work, a fabric's bisection, a node's memory bus); 0: no limit",
                      0.0, 1e12, aggregate_mbs);
    RABRED_LINK_PARAM("rank_mbs", "between nodes: what one rank's message alone moves, MB/s, "
                      "where a node's link is wider than one stream (a leaf switch's uplinks "
                      "shared by its hosts, several rails); 0: the link's mbs", 0.0, 1e9,
                      rank_mbs);
    RABRED_LINK_PARAM("shared_ports", "1: the messages a rank has in flight share its link, "
                      "each at 1/k of its speed while k are (TCP connections, a NIC "
                      "interleaving its queues, a flow-level network), and its sends up to "
                      "send_buffer_bytes leave it when posted; 0: they take turns, each alone "
                      "for its time. rabred-calibrate sends two messages at once and times the "
                      "first's arrival", 0.0, 1.0, shared_ports);
    RABRED_LINK_PARAM("parallel_ports", "1 (with shared_ports 0): no port at all: each "
                      "message a rank has in flight moves as if alone, so a fan-out or fan-in "
                      "of k messages costs about one (single-copy shared memory where each "
                      "receiver copies for itself, a simulator's loopback); 0: shared_ports "
                      "decides. rabred-calibrate sends two messages at once and times the "
                      "second's arrival", 0.0, 1.0, parallel_ports);
    RABRED_LINK_PARAM("wire_us", "of alpha_us, the wire latency, microseconds: the time of "
                      "flight that a rank's messages in flight pay at once; the rest is "
                      "per-message work that holds the rank's link (LogP's overhead, which "
                      "rabred-calibrate measures as what each more sender adds when several "
                      "send to one rank at once); 0: none, all of alpha is held", 0.0, 1e6,
                      wire_us);
#undef RABRED_LINK_PARAM
}

/* A list parameter of the network's bandwidth by distance: a string,
 * parsed once here (a bad list is ignored, said once). */
static void register_distance_list(const char *name, const char *help, char **text,
                                   double *mbs)
{
    *text = NULL;
    (void)mca_base_component_var_register(
        &mca_coll_rabred_component.super.collm_version, name, help, MCA_BASE_VAR_TYPE_STRING,
        NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ, text);
    if (rabred_distance_parse(*text, mbs) < 0) {
        opal_output(0, "coll:rabred: coll_rabred_%s = \"%s\" is not a list of at most %d "
                    "numbers >= 0 (one for each distance 1, 2, 4, ...); ignored",
                    name, *text, RABRED_DISTANCE_CLASSES);
    }
}

static void register_distance(mca_coll_rabred_component_t *c)
{
    rabred_link_units_t *inter = &c->link[RABRED_LINK_INTER];
    register_distance_list(
        "inter_distance_mbs",
        "Cost model, between nodes (the network), one rank per node: what each rank moves, "
        "MB/s each way, when every rank exchanges at once with the rank 1, 2, 4, ... places "
        "away (rank XOR 2^k), as a comma-separated list scaled so that distance 1 reads "
        "inter_mbs (rabred-calibrate writes it); where long routes share links (a torus, a "
        "tapered fat tree) the far entries fall below inter_mbs and the decision charges the "
        "rounds that talk that far. Empty (default), 0 or beyond the list: inter_mbs",
        &c->distance_text[0], inter->distance_mbs);
    register_distance_list(
        "inter_shift_mbs",
        "Cost model, between nodes, one rank per node: the same for shifts, every rank "
        "sending to the rank 1, 2, 4, ... places on and receiving from as far back "
        "(cyclically), scaled so that 1 place reads inter_mbs (rabred-calibrate writes it); "
        "prices messages to partners other than rank XOR 2^k (Bruck's, which wrap around the "
        "rank order). Empty (default), 0 or beyond the list: inter_distance_mbs",
        &c->distance_text[1], inter->shift_mbs);
    register_distance_list(
        "inter_distance_alpha_us",
        "Cost model, between nodes, one rank per node: the latency of an 8-byte message, "
        "microseconds, when every rank exchanges at once with the rank 1, 2, 4, ... places "
        "away (rank XOR 2^k), a comma-separated list (rabred-calibrate writes it); routes of "
        "more hops (a torus) take longer, and a round pays its slowest message's latency "
        "beyond inter_alpha_us. Empty (default), 0 or beyond the list: inter_alpha_us",
        &c->distance_text[2], inter->distance_alpha_us);
    register_distance_list(
        "inter_shift_alpha_us",
        "Cost model, between nodes, one rank per node: the same for shifts (every rank "
        "sending to the rank 1, 2, 4, ... places on), for partners other than rank XOR 2^k. "
        "Empty (default), 0 or beyond the list: inter_distance_alpha_us",
        &c->distance_text[3], inter->shift_alpha_us);
}

/* The per-core cache the system reports (the L2: the last level a core
 * has to itself), or 0 when it reports none. */
static double core_cache_bytes(void)
{
#ifdef _SC_LEVEL2_CACHE_SIZE
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? (double)l2 : 0.0;
#else
    return 0.0;
#endif
}

/* Reductions and copies beyond the cache (rabred_model_t.gamma_far): off
 * until measured, so the cache size alone changes nothing. */
static void register_far(rabred_far_units_t *far)
{
    register_model_param("reduce_far_mbs",
                         "Cost model: speed of a local reduction (as reduce_mbs) whose vectors "
                         "do not fit in core_cache_bytes: the memory's speed, MB/s of input; "
                         "0: reduce_mbs at every size (rabred-calibrate measures it)",
                         0.0, 0.0, 1e9, &far->reduce_mbs);
    register_model_param("copy_far_mbs",
                         "Cost model: speed of a local copy whose vectors do not fit in "
                         "core_cache_bytes, MB/s; 0: copy_mbs at every size",
                         0.0, 0.0, 1e9, &far->copy_mbs);
    register_model_param("core_cache_bytes",
                         "Cost model: the cache a call's vectors must fit in for reductions "
                         "and copies at reduce_mbs and copy_mbs (a call of n bytes uses about "
                         "3 n: input, result, a temporary); larger calls use reduce_far_mbs "
                         "and copy_far_mbs. Default: the per-core (L2) cache the system "
                         "reports; 0: one speed at every size",
                         core_cache_bytes(), 0.0, 1e15, &far->cache_bytes);
}

static void register_model(mca_coll_rabred_component_t *c)
{
    register_link("intra", "within a node (shared memory)", &rabred_default_intra,
                  &c->link[RABRED_LINK_INTRA]);
    register_link("inter", "between nodes (the network)", &rabred_default_inter,
                  &c->link[RABRED_LINK_INTER]);
    register_distance(c);
    register_model_param("reduce_mbs",
                         "Cost model: speed of a local reduction (MPI_Reduce_local of doubles "
                         "with MPI_SUM), MB/s of input",
                         RABRED_DEFAULT_REDUCE_MBS, 1e-3, 1e9, &c->reduce_mbs);
    register_model_param("copy_mbs",
                         "Cost model: speed of a local copy (memcpy), MB/s; 0: copies are free",
                         RABRED_DEFAULT_COPY_MBS, 0.0, 1e9, &c->copy_mbs);
    register_far(&c->far);
    register_model_param("round_sync_us",
                         "Cost model: what a lock-step round costs beyond its messages when "
                         "the ranks are not in step (more ranks than cores, a noisy system), "
                         "microseconds per round; 0 when every rank has a core",
                         RABRED_DEFAULT_ROUND_SYNC_US, 0.0, 1e6, &c->round_sync_us);
}

/* Online arrival estimation (rabred_estimate.h; docs/imbalanced-arrival.md, "The
 * estimate").  Every value must be the same on every rank: the ranks build
 * their plans from the same estimate. */
static void register_arrival(mca_coll_rabred_component_t *c)
{
    c->arrival_aware = 1;
    (void)mca_base_component_var_register(
        &c->super.collm_version, "arrival_aware",
        "Learn each rank's arrival offset online (no application change: the time between a "
        "rank's previous exit and its entry, exchanged after each call) and let auto choose "
        "sorted_linear_tree / prereduced_ring / prereduced_scatter when ranks arrive "
        "imbalanced. Their order of "
        "reduction follows the arrival order, so with floating point the bits may differ "
        "between runs (never between ranks). 0: no estimation, no overhead, reproducible bits. "
        "Settable through MPI_T (the same value on every rank)",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->arrival_aware);
    register_threshold("arrival_min_bytes",
                       "Bytes per rank from which MPI_Allreduce calls are estimated and may go "
                       "arrival-aware (below, the exchange of p doubles after the call would "
                       "cost more than imbalance-aware algorithms can save). Default 65536",
                       RABRED_DEFAULT_ARRIVAL_MIN_BYTES, 0, &c->arrival_min_bytes);
    register_model_param("arrival_weight",
                         "Weight of the newest call in the smoothed arrival offsets "
                         "(exponential smoothing; 1: only the last call counts)",
                         RABRED_DEFAULT_ARRIVAL_WEIGHT, 1e-3, 1.0, &c->arrival_weight);
    register_model_param("arrival_min_gain",
                         "An arrival-aware algorithm is chosen only when the cost model, given "
                         "the estimated offsets, predicts at least this fraction less average "
                         "elapsed time than the balanced choice, as a fraction of the call's balanced price "
                         "(default 0.10)",
                         RABRED_DEFAULT_ARRIVAL_MIN_GAIN, 0.0, 1.0, &c->arrival_min_gain);
}

static void register_rules_file(mca_coll_rabred_component_t *c)
{
    c->rules_file = NULL;
    (void)mca_base_component_var_register(
        &c->super.collm_version, "rules_file",
        "Rules file choosing algorithms by collective, communicator size, message size and "
        "commutativity: coll/tuned's classic dynamic-rules format (allreduce id 2, reduce id 11, "
        "tuned's algorithm ids) or rabred's named format, e.g. 'allreduce comm_size>=16 "
        "msg_size>=64K alg=binary_blocks' (README, 'Rules files'). Must be the same on every "
        "rank (checked at a communicator's first call: where the ranks' rules differ, its calls "
        "go to the component below). Errors are reported as file:line and the built-in "
        "decision is used. Settable through MPI_T: communicators created after a change use "
        "the new file",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->rules_file);
}

static int rabred_register(void)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    c->priority = RABRED_DEFAULT_PRIORITY;
    (void)mca_base_component_var_register(
        &c->super.collm_version, "priority",
        "Priority of coll/rabred (default 40, above coll/tuned's 30, so an installed rabred "
        "serves MPI_Allreduce and MPI_Reduce; negative: never selected)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
        &c->priority);
    c->verbose = 0;
    (void)mca_base_component_var_register(
        &c->super.collm_version, "verbose",
        "Verbosity: 0 silent, 1 warnings and fallbacks, 2 one line per call (collective, p, "
        "bytes, algorithm and why: forced, decision or fallback), 3 also the arrival estimate "
        "after each estimated call and, once per call shape the model decides, every "
        "candidate's price",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_LOCAL, &c->verbose);
    register_threshold("allreduce_short_bytes",
                       "If > 0: bytes per rank up to which auto uses recursive_doubling for "
                       "MPI_Allreduce whatever the cost model says (an admin's override; "
                       "MPICH's cut-over is 2048). Default 0: the model decides at every size",
                       0, 0, &c->short_bytes[RABRED_COLL_ALLREDUCE]);
    register_threshold("reduce_short_bytes",
                       "If > 0: bytes per rank up to which auto uses binomial for MPI_Reduce "
                       "whatever the cost model says. Default 0: the model decides",
                       0, 0, &c->short_bytes[RABRED_COLL_REDUCE]);
    register_model(c);
    register_arrival(c);
    register_rules_file(c);
    register_node_map(c);
    register_reduce_metric(c);
    register_threshold("segment_size", build_segment_help(), RABRED_DEFAULT_SEGMENT_BYTES,
                       MCA_BASE_VAR_FLAG_SETTABLE, &c->segment_size);
    register_threshold("cache_bytes",
                       "Temporaries up to this many bytes are kept between calls on a "
                       "communicator (at most three per communicator) instead of being "
                       "allocated and freed each call; 0 disables the cache",
                       RABRED_DEFAULT_CACHE_BYTES, 0, &c->cache_bytes);
    register_threshold("prepared_calls",
                       "Prepared calls kept per communicator: a call whose shape (collective, "
                       "count, datatype size and extent, op commutativity, in place, root) was "
                       "seen before reuses its choice, plan and schedule; the least recently "
                       "used is forgotten first. At least 1",
                       RABRED_DEFAULT_PREPARED_CALLS, 0, &c->prepared_calls);
    if (c->prepared_calls < 1) {
        opal_output(0, "coll:rabred: coll_rabred_prepared_calls = %d is below 1; using the "
                    "default %d", c->prepared_calls, RABRED_DEFAULT_PREPARED_CALLS);
        c->prepared_calls = RABRED_DEFAULT_PREPARED_CALLS;
    }
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        int rc = register_algorithm_param((rabred_coll_t)coll);
        if (OPAL_SUCCESS != rc) {
            return rc;
        }
        register_counters((rabred_coll_t)coll, 0);
        register_counters((rabred_coll_t)coll, 1);
    }
    register_pvar("arrival_exchanges",
                  "Number of arrival-estimate gap exchanges (an allreduce of 2p doubles after an "
                  "estimated MPI_Allreduce) run on this process",
                  MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG,
                  &c->arrival_exchanges);
    /* The exchange's messages are priced at microseconds, but each rank
     * also waits in it for the last rank to finish the call: what the
     * estimate really costs a rank is this time (bench/rabred_bench
     * reports it against rabred:auto's own time). */
    register_pvar("arrival_exchange_seconds",
                  "Seconds this process spent in arrival-estimate gap exchanges, waiting for the "
                  "other ranks included",
                  MCA_BASE_PVAR_CLASS_TIMER, MCA_BASE_VAR_TYPE_DOUBLE, &c->arrival_exchange_seconds);
    return OMPI_SUCCESS;
}

/* Rules-file messages: errors and warnings on rank 0 of the job always (a
 * rejected file must not go unnoticed; every rank reads the same file, so
 * one copy is enough), on the other ranks and for notes at verbose >= 1. */
static int rules_speaker(void)
{
    return 0 == rabred_ompi_my_vpid() || mca_coll_rabred_component.verbose >= 1;
}

static void report_rules(void *ctx, rabred_rules_severity_t severity, const char *message)
{
    (void)ctx;
    if (rules_speaker() &&
        (RABRED_RULES_NOTE != severity || mca_coll_rabred_component.verbose >= 1)) {
        opal_output(0, "coll:rabred: %s%s", RABRED_RULES_ERROR == severity ? "error: " : "",
                    message);
    }
}

static const char *rules_path(const char *file)
{
    return NULL == file ? "" : file;
}

static void load_rules(mca_coll_rabred_component_t *c)
{
    c->rules.rules = NULL;
    c->rules.n = 0;
    free(c->rules_loaded);
    c->rules_loaded = strdup(rules_path(c->rules_file));
    if ('\0' == rules_path(c->rules_file)[0]) {
        return;
    }
    int rc = rabred_rules_load(c->rules_file, &c->rules, report_rules, NULL);
    if (RABRED_OK != rc) {
        /* Said on every rank that fails: when the file is missing on some
         * nodes only, the ranks' settings differ, and the communicators
         * they share go to the component below (coll_rabred_agree.c); the
         * admin must see which ranks went without it. */
        opal_output(0,
                    "coll:rabred: rank %u (%s): rules file %s rejected%s; using the built-in "
                    "decision",
                    rabred_ompi_my_vpid(),
                    NULL != opal_process_info.nodename ? opal_process_info.nodename : "?",
                    c->rules_file,
                    rules_speaker() ? "" : " (why: see rank 0, or set coll_rabred_verbose 1)");
        return;
    }
    opal_output_verbose(1, c->output, "coll:rabred: rules file %s: %d rules loaded",
                        c->rules_file, c->rules.n);
}

/* A communicator's rules: the file coll_rabred_rules_file names now (MPI_T
 * may have changed it since the last communicator was created; a tool or
 * a benchmark switches profiles that way), pruned for comm_size. */
int mca_coll_rabred_rules_for(int comm_size, rabred_rules_t out[RABRED_NCOLLS], char **name)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    int rc = RABRED_OK;
    OPAL_THREAD_LOCK(&c->books_lock);
    if (NULL == c->rules_loaded || 0 != strcmp(c->rules_loaded, rules_path(c->rules_file))) {
        rabred_rules_free(&c->rules);
        load_rules(c);
    }
    for (int coll = 0; coll < RABRED_NCOLLS && RABRED_OK == rc; coll++) {
        rc = rabred_rules_prune(&c->rules, (rabred_coll_t)coll, comm_size, &out[coll]);
    }
    *name = NULL != c->rules_loaded ? strdup(c->rules_loaded) : NULL;
    OPAL_THREAD_UNLOCK(&c->books_lock);
    return RABRED_OK == rc && NULL != *name ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

/* Is `name` one of the comma-separated items of `list`? */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; NULL != s; s = strchr(s, ',')) {
        s += ',' == *s;
        if (0 == strncmp(s, name, n) && (',' == s[n] || '\0' == s[n])) {
            return 1;
        }
    }
    return 0;
}

/* A coll list without basic or libnbc makes MPI_Init fail with "Unknown
 * error" (nobody serves the other blocking or the nonblocking
 * collectives): say which one is missing and a list that works, once, on
 * rank 0, whatever the verbosity. */
static void check_coll_list(void)
{
    const char **value = NULL;
    int index = mca_base_var_find("ompi", "coll", NULL, NULL);
    if (index < 0 || OPAL_SUCCESS != mca_base_var_get_value(index, &value, NULL, NULL) ||
        NULL == value || NULL == *value || '\0' == **value || '^' == **value ||
        0 != rabred_ompi_my_vpid()) {
        return; /* the default (every component) or an exclusion list */
    }
    const char *need[] = {"basic", "libnbc"};
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
        if (!listed(*value, need[i])) {
            opal_output(0, "coll:rabred: the coll list \"%s\" has no %s: Open MPI then has no "
                        "component for the %s collectives rabred does not serve and MPI_Init "
                        "fails (\"Unknown error\"); a list that works: --mca coll "
                        "rabred,basic,libnbc (or rabred,tuned,basic,libnbc)",
                        *value, need[i], 0 == i ? "blocking" : "nonblocking");
        }
    }
}

static int rabred_open(void)
{
    check_coll_list();
    mca_coll_rabred_component.output = opal_output_open(NULL);
    opal_output_set_verbosity(mca_coll_rabred_component.output, mca_coll_rabred_component.verbose);
    load_rules(&mca_coll_rabred_component);
    OBJ_CONSTRUCT(&mca_coll_rabred_component.books_lock, opal_mutex_t);
    OBJ_CONSTRUCT(&mca_coll_rabred_component.active, opal_list_t);
    opal_atomic_lock_init(&mca_coll_rabred_component.progress_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
    mca_coll_rabred_component.progress_registered = 0;
    OBJ_CONSTRUCT(&mca_coll_rabred_component.spare, opal_list_t);
    opal_atomic_lock_init(&mca_coll_rabred_component.spare_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
    return OMPI_SUCCESS;
}

static int rabred_close(void)
{
    if (mca_coll_rabred_component.output >= 0) {
        opal_output_close(mca_coll_rabred_component.output);
        mca_coll_rabred_component.output = -1;
    }
    rabred_rules_free(&mca_coll_rabred_component.rules);
    free(mca_coll_rabred_component.rules_loaded);
    mca_coll_rabred_component.rules_loaded = NULL;
    rabred_pricebooks_free(&mca_coll_rabred_component.books);
    OBJ_DESTRUCT(&mca_coll_rabred_component.books_lock);
    if (mca_coll_rabred_component.progress_registered) {
        opal_progress_unregister(mca_coll_rabred_progress);
        mca_coll_rabred_component.progress_registered = 0;
    }
    OBJ_DESTRUCT(&mca_coll_rabred_component.active);
    mca_coll_rabred_nbc_close();
    OBJ_DESTRUCT(&mca_coll_rabred_component.spare);
    /* algorithm_help[] stays: the MCA variable system may still show it */
    return OMPI_SUCCESS;
}
