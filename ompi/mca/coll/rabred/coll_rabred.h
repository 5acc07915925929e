/*
 * coll/rabred: Open MPI collective component for MPI_Allreduce and
 * MPI_Reduce built on Rabenseifner's reduction algorithms.
 *
 * The component owns the MCA parameters and the call counters; the module
 * (one per communicator) keeps the previous component's allreduce/reduce as
 * the fallback and runs plans with the executor.  All algorithm knowledge
 * lives in the pure files (algorithms/, plan/, select/).
 */
#ifndef MCA_COLL_RABRED_EXPORT_H
#define MCA_COLL_RABRED_EXPORT_H

#include "ompi_config.h"

#include "mpi.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/request/request.h"
#include "opal/class/opal_list.h"
#include "opal/sys/atomic.h"

#include "coll_rabred_ompi.h"

#include "algorithms/rabred_table.h"
#include "plan/rabred_nodes.h"
#include "plan/rabred_plan.h"
#include "select/rabred_estimate.h"
#include "select/rabred_model.h"
#include "select/rabred_prepared.h"
#include "select/rabred_rules.h"
#include "select/rabred_select.h"

BEGIN_C_DECLS

/* Arrival estimation defaults (rabred_estimate.h).  From 64 KiB a call
 * takes milliseconds on a cluster, so the lg p messages of the gap exchange
 * are well under a percent (measured: within the 1% noise); weight 0.5
 * learns a steady late rank in a few calls.  Gain 10%: with 5% auto
 * switched to the pre-reduced ring at p = 8, 4 MiB, one rank 50-100 ms
 * late, where the model promised 4-8% and the run lost 9%
 * (bench/results/arrival-20261121): below 10% the prediction is within
 * the network's noise. */
#define RABRED_DEFAULT_ARRIVAL_MIN_BYTES 65536
#define RABRED_DEFAULT_ARRIVAL_WEIGHT 0.5
#define RABRED_DEFAULT_ARRIVAL_MIN_GAIN 0.10

typedef struct {
    rabred_coll_base_component_t super;
    int priority;
    int verbose;
    int output; /* opal_output stream for warnings and decision lines */
    int algorithm[RABRED_NCOLLS];           /* RABRED_ALG_AUTO, _PREVIOUS or a table id */
    int short_bytes[RABRED_NCOLLS];         /* > 0: admin's short/long cut-over */
    /* the cost model's terms as given (select/rabred_model.h): within a
     * node and between nodes, the reduction, the rounds' synchronisation */
    rabred_link_units_t link[2]; /* RABRED_LINK_INTRA, RABRED_LINK_INTER */
    double reduce_mbs;
    double round_sync_us;
    double copy_mbs;                        /* coll_rabred_copy_mbs */
    char *distance_text[4]; /* coll_rabred_inter_{distance,shift}_{mbs,alpha_us} as given */
    rabred_far_units_t far;                 /* coll_rabred_{reduce,copy}_far_mbs, core_cache_bytes */
    char *rules_file;                       /* coll_rabred_rules_file */
    rabred_rules_t rules;                   /* loaded from rules_loaded; empty when none or rejected */
    char *rules_loaded;                     /* the rules_file value `rules` was loaded from */
    int segment_size; /* bytes per segment of the pipelined algorithms */
    int cache_bytes;  /* largest temporary kept between calls */
    int arrival_aware;          /* estimate arrivals; auto may go arrival-aware */
    int arrival_min_bytes;      /* from this size per rank */
    double arrival_weight;      /* smoothing weight of the newest call */
    double arrival_min_gain;    /* predicted gain needed to switch */
    /* pvar storage: slot 0 counts calls handed to the previous component,
     * slot id those served by the algorithm with that id */
    unsigned long long calls[RABRED_NCOLLS][RABRED_TABLE_MAX + 1];
    unsigned long long icalls[RABRED_NCOLLS][RABRED_TABLE_MAX + 1]; /* nonblocking calls */
    unsigned long long arrival_exchanges; /* pvar: gap exchanges run (pacing shows here) */
    double arrival_exchange_seconds;      /* pvar: time spent in them on this process */
    int prepared_calls;         /* prepared calls kept per communicator */
    char *node_map;             /* coll_rabred_node_map: "" learns it from host names */
    char *reduce_metric;        /* coll_rabred_reduce_metric: "average" or "completion" */
    /* Settings a call's choice reads that MPI_T may change at run time, as
     * the last call saw them, and the generation that counts changes
     * (mca_coll_rabred_generation). */
    int seen_settings[RABRED_NCOLLS + 3];
    uint32_t generation;
    /* The price books of every communicator size, shared (rabred_model.h);
     * the lock serialises filling them under MPI_THREAD_MULTIPLE. */
    rabred_pricebooks_t books;
    opal_mutex_t books_lock;
    /* nonblocking calls in flight on every communicator, advanced by
     * mca_coll_rabred_progress (coll_rabred_nbc.c) under progress_lock */
    opal_list_t active;
    opal_atomic_lock_t progress_lock;
    int progress_registered;
    /* released nonblocking requests kept for later calls (coll_rabred_nbc.c) */
    opal_list_t spare;
    opal_atomic_lock_t spare_lock;
} mca_coll_rabred_component_t;

RABRED_COMPONENT_DECLSPEC extern mca_coll_rabred_component_t mca_coll_rabred_component;

enum { RABRED_LINK_INTRA = 0, RABRED_LINK_INTER = 1 };

/* A temporary kept between calls on one communicator (see
 * mca_coll_rabred_tmpbuf_alloc). */
typedef struct {
    char *raw;
    size_t cap;
} mca_coll_rabred_scratch_t;

/* The MPI info key of the application's arrival hint, and the longest
 * value kept (Open MPI's MPI_MAX_INFO_VAL). */
#define RABRED_HINT_KEY "rabred_arrival"
#define RABRED_HINT_TEXT_MAX 256

/* mca_coll_rabred_module_t.agreement (coll_rabred_agree.c) */
enum { RABRED_SETTINGS_UNCHECKED = 0, RABRED_SETTINGS_AGREE = 1, RABRED_SETTINGS_DIFFER = -1 };

typedef struct {
    mca_coll_base_module_t super;
    mca_coll_base_module_allreduce_fn_t previous_allreduce;
    mca_coll_base_module_t *previous_allreduce_module;
    mca_coll_base_module_reduce_fn_t previous_reduce;
    mca_coll_base_module_t *previous_reduce_module;
    /* and its nonblocking ones (NULL when the coll list has none) */
    mca_coll_base_module_iallreduce_fn_t previous_iallreduce;
    mca_coll_base_module_t *previous_iallreduce_module;
    mca_coll_base_module_ireduce_fn_t previous_ireduce;
    mca_coll_base_module_t *previous_ireduce_module;
    rabred_rules_t rules[RABRED_NCOLLS]; /* the rules file pruned for this communicator */
    char *rules_file;                    /* its name, for reasons ("" when none) */
    rabred_prepared_cache_t prepared;    /* this communicator's prepared calls */
    rabred_prepared_t spare;  /* a blocking call's, when every cached one is in flight */
    volatile int setup_busy;  /* a nonblocking call runs the set-up exchange now */
    rabred_model_t model;     /* the links its messages cross (module_enable) */
    double sends_first_bytes; /* that link's post order (mca_coll_rabred_execute) */
    uint32_t generation;      /* bumped when the arrival hint changes (rabred_call_key_t) */
    mca_coll_rabred_scratch_t scratch[3]; /* for ACC, TMP and TMP2 */
    rabred_ready_plan_t internal; /* rabred's own small exchanges (mca_coll_rabred_allreduce_max) */
    int internal_count;       /* ... prepared for this many elements */
    rabred_estimate_t est;    /* arrival offsets learned on this communicator */
    double last_exit;         /* MPI_Wtime when the last estimated call ended */
    double est_price;         /* that call's balanced price (s; 0: unknown), for pacing */
    double exchange_cost;     /* this rank's last gap exchange / its call (s/s), sent next */
    rabred_hint_t hint;       /* the communicator's "rabred_arrival" info, parsed */
    int hint_changes_seen;    /* hints set anywhere when it was last read; -1: never */
    char hint_text[RABRED_HINT_TEXT_MAX + 1]; /* ... from this text */
    int agreement;            /* do the ranks decide alike?  RABRED_SETTINGS_* */
    rabred_nodes_t nodes;     /* which ranks share a node (coll_rabred_nodes.c) */
    int32_t *node_of;         /* its storage; NULL: unknown, every rank its own node */
    int64_t *place_of;        /* nodes.place_of's storage; NULL: sockets unknown */
    rabred_node_groups_t node_groups; /* nodes.groups' storage: grouped once per map */
} mca_coll_rabred_module_t;

OBJ_CLASS_DECLARATION(mca_coll_rabred_module_t);

/* Component entry points (coll_rabred_module.c). */
int mca_coll_rabred_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_rabred_comm_query(struct ompi_communicator_t *comm,
                                                   int *priority);

/* The node map (coll_rabred_nodes.c): whether the set-up exchange carries
 * node labels (some rank has a peer off its node; alike on every rank),
 * this rank's slots of them (RABRED_NODE_LABEL_WORDS * p words, zero but
 * its own: its node, then its socket and NUMA domain), and the map into
 * m->nodes from coll_rabred_node_map or the exchanged labels (NULL: one
 * node).  OMPI_SUCCESS or out of resource (m->node_of NULL: no map, every
 * rank its own node). */
#define RABRED_NODE_LABEL_WORDS 2
int mca_coll_rabred_node_labels_needed(struct ompi_communicator_t *comm);
void mca_coll_rabred_node_labels_fill(struct ompi_communicator_t *comm, uint64_t *labels);
int mca_coll_rabred_node_map(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                             const uint64_t *labels);

/* The node map as plans and restriction checks take it (NULL: unknown). */
static inline const rabred_nodes_t *mca_coll_rabred_nodes(const mca_coll_rabred_module_t *m)
{
    return NULL != m->node_of ? &m->nodes : NULL;
}

/* One call, as the entry points receive it. */
typedef struct {
    rabred_coll_t coll;
    const void *sbuf;
    void *rbuf;
    int count;
    struct ompi_datatype_t *dtype;
    struct ompi_op_t *op;
    int root; /* -1: allreduce */
    struct ompi_communicator_t *comm;
    int p, rank;
    int in_place;    /* MPI_IN_PLACE at this rank (reduce: only the root's counts) */
    int nonblocking; /* MPI_Iallreduce, MPI_Ireduce or their persistent forms */
} mca_coll_rabred_call_t;


int mca_coll_rabred_allreduce(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_rabred_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                           struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                           mca_coll_base_module_t *module);

/* Nonblocking and persistent calls (coll_rabred_nbc.c); the progress
 * function advances every one in flight (registered at the first). */
int mca_coll_rabred_iallreduce(const void *sbuf, void *rbuf, int count,
                               struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
int mca_coll_rabred_ireduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                            struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                            ompi_request_t **request, mca_coll_base_module_t *module);
#if OMPI_MAJOR_VERSION >= 5
int mca_coll_rabred_allreduce_init(const void *sbuf, void *rbuf, int count,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                   ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rabred_reduce_init(const void *sbuf, void *rbuf, int count,
                                struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                                struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                ompi_request_t **request, mca_coll_base_module_t *module);
#endif
int mca_coll_rabred_progress(void);
void mca_coll_rabred_nbc_close(void); /* releases the spare requests */

/* The cost model of one link (RABRED_LINK_*) from the component's
 * parameters, the generation of the settings a choice reads (bumped when
 * an MPI_T write changed one), and the shared price book for p ranks under
 * a model (coll_rabred_component.c; the book is NULL when pricing ran out
 * of memory: OMPI_ERR_OUT_OF_RESOURCE). */
rabred_model_t mca_coll_rabred_model(int link);
uint32_t mca_coll_rabred_generation_bump(void);
/* Every call compares the settings with what the last call saw, inline
 * (a few loads and compares on the hot path); a change bumps the
 * generation out of line, and every prepared call is then stale. */
static inline uint32_t mca_coll_rabred_generation(void)
{
    const mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    const int *seen = c->seen_settings;
    if (OPAL_UNLIKELY(seen[0] != c->algorithm[RABRED_COLL_ALLREDUCE] ||
                      seen[1] != c->algorithm[RABRED_COLL_REDUCE] ||
                      seen[2] != c->segment_size || seen[3] != c->arrival_aware ||
                      seen[4] != (c->verbose >= 1))) {
        return mca_coll_rabred_generation_bump();
    }
    return c->generation;
}
/* The two-level book of a communicator whose ranks share nodes: `inter`
 * between nodes, the intra-node link inside (rabred_pricebooks_get_nodes). */
int mca_coll_rabred_price_book_nodes(const rabred_model_t *inter, const rabred_nodes_t *nodes,
                                     rabred_coll_t coll, int p, const rabred_pricebook_t **book);
int mca_coll_rabred_price_book(const rabred_model_t *model, rabred_coll_t coll, int p,
                               const rabred_pricebook_t **book);

/* The rules a new communicator of comm_size ranks uses: the file
 * coll_rabred_rules_file names at this moment (reloaded when an MPI_T
 * write changed it), pruned per collective into out[], and its name (a
 * copy, "" when none; the caller frees it).  OMPI_SUCCESS or
 * OMPI_ERR_OUT_OF_RESOURCE. */
int mca_coll_rabred_rules_for(int comm_size, rabred_rules_t out[RABRED_NCOLLS], char **name);

/* Online arrival estimation (coll_rabred_arrival.c).  Subscribe to the
 * communicator's "rabred_arrival" info key (module enable), so
 * MPI_Comm_set_info and MPI_Comm_dup_with_info keep it and bad values are
 * refused with a warning.  Per estimated MPI_Allreduce: may this call be
 * estimated under the communicator's hint (1, 0; -1 out of memory; a
 * changed hint bumps m->generation), the offsets as plans take them, and
 * the gap exchange after the call. */
int mca_coll_rabred_arrival_subscribe(struct ompi_communicator_t *comm);
int mca_coll_rabred_arrival_wanted(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm);
const rabred_arrival_t *mca_coll_rabred_arrival_input(mca_coll_rabred_module_t *m,
                                                      struct ompi_datatype_t *dtype,
                                                      rabred_arrival_t *storage);
int mca_coll_rabred_arrival_end(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                                double t_in);

/* Compare the ranks' rules and parameters (coll_rabred_agree.c): this
 * rank's digests for the set-up exchange, and after it (MAX over the
 * ranks) the verdict into m->agreement, alike on every rank. */
#define RABRED_AGREE_DIGESTS 4
void mca_coll_rabred_agree_digests(const mca_coll_rabred_module_t *m,
                                   uint64_t d[RABRED_AGREE_DIGESTS]);
void mca_coll_rabred_agree_judge(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                                 const uint64_t d[RABRED_AGREE_DIGESTS]);

/* The communicator's set-up exchange (coll_rabred_setup.c): begin fills
 * `vec` (count words; tmp: as many of scratch), the caller runs an
 * allreduce with MAX over it, end reads the verdict and the node map.
 * settings_check does all three, blocking.  OMPI_SUCCESS, or the error
 * (m->agreement then stays unchecked: the next call tries again). */
typedef struct {
    uint64_t *vec, *tmp;
    int count;
} mca_coll_rabred_setup_t;
int mca_coll_rabred_setup_begin(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                                mca_coll_rabred_setup_t *s);
int mca_coll_rabred_setup_end(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                              mca_coll_rabred_setup_t *s);
void mca_coll_rabred_setup_free(mca_coll_rabred_setup_t *s);
int mca_coll_rabred_settings_check(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm);

/* rabred's own small exchanges (the arrival estimate's gaps, the settings
 * check's digests; coll_rabred_exec.c, below both): an allreduce with MAX
 * of `count` elements of dtype, an 8-byte predefined type (uint64_t or
 * double; else OMPI_ERR_BAD_PARAM), in place in `vec` (`tmp`: scratch of
 * as many), by recursive doubling through the executor, with the module's
 * internal plan. */
int mca_coll_rabred_allreduce_max(mca_coll_rabred_module_t *m, void *vec, void *tmp, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_communicator_t *comm);
/* Its ready plan for `count` elements (kept for the last count) and its
 * buffers: vec is INPUT and ACC, tmp TMP. */
int mca_coll_rabred_internal_plan(mca_coll_rabred_module_t *m, int count,
                                  struct ompi_communicator_t *comm,
                                  const rabred_ready_plan_t **out);

/* The buffers a plan names (INPUT, ACC, TMP, TMP2): element i of buffer
 * b is at base[b] + (i * extent + shift[b]), summed as integers
 * (coll_rabred_exec.c).  A user's buffer is its element 0 (shift 0); a
 * temporary's base is where its allocation starts and its shift minus the
 * type's true lower bound, so no pointer below the allocation is formed,
 * whatever the lower bound. */
typedef struct {
    char *base[RABRED_NBUFS];
    ptrdiff_t shift[RABRED_NBUFS];
} mca_coll_rabred_bufs_t;

/* One execution of a ready plan: what every posting and local step needs,
 * and where a nonblocking one stands (coll_rabred_exec.c). */
typedef struct {
    const rabred_plan_t *plan;
    const rabred_schedule_t *sched;
    mca_coll_rabred_bufs_t bufs;
    ptrdiff_t extent;
    size_t plain; /* a predefined type's size in bytes (copies are memcpy); 0: other types */
    struct ompi_datatype_t *dtype;
    struct ompi_op_t *op;
    int tag;
    struct ompi_communicator_t *comm;
    struct ompi_request_t **reqs[2]; /* step k waits in reqs[k & 1] while step k+1 is posted */
    int n[2];                        /* requests posted in each */
    int64_t sends_first_len;         /* sends this long go before receives; 0: none */
    const rabred_step_t *held;       /* a step whose early receives wait for its sends */
    int blocking;                    /* run by the blocking walk (may block in a post) */
    rabred_schedule_cursor_t cursor; /* a nonblocking run's position */
} mca_coll_rabred_exec_t;

/* The internal plan's buffers (mca_coll_rabred_internal_plan). */
mca_coll_rabred_bufs_t mca_coll_rabred_internal_bufs(void *vec, void *tmp);

/* Runs a ready plan whose only_send is set: the blocking send of its one
 * transfer from `input` (the caller's send buffer, or its receive buffer
 * in place). */
int mca_coll_rabred_send_only(const rabred_ready_plan_t *ready, const void *input,
                              struct ompi_datatype_t *dtype, int tag,
                              struct ompi_communicator_t *comm);

/* The executor (coll_rabred_exec.c): runs one rank's ready plan over
 * `bufs`; `tag` is the collective's coll tag.  How elements move (extent,
 * memcpy or the datatype engine, which steps post their sends first) was
 * derived when the plan was built (rabred_elements_t). */
int mca_coll_rabred_execute(const rabred_ready_plan_t *ready, const mca_coll_rabred_bufs_t *bufs,
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op, int tag,
                            struct ompi_communicator_t *comm);

/* The executor in pieces, for nonblocking calls: init (slots: room for
 * 2 * ready->schedule.max_requests requests, the caller's), then resume
 * from Open MPI's progress engine until *done or an error; abandon cancels
 * and frees what is still posted (after an error, or when giving up). */
void mca_coll_rabred_exec_init(mca_coll_rabred_exec_t *x, const rabred_ready_plan_t *ready,
                               const mca_coll_rabred_bufs_t *bufs, struct ompi_datatype_t *dtype,
                               struct ompi_op_t *op, int tag, struct ompi_communicator_t *comm,
                               struct ompi_request_t **slots);
int mca_coll_rabred_exec_resume(mca_coll_rabred_exec_t *x, int *done);
void mca_coll_rabred_exec_abandon(mca_coll_rabred_exec_t *x);

/* A temporary of count elements of dtype: the allocation we own (raw,
 * NULL when it lives in a module's scratch), where its bytes start (base)
 * and the shift of element 0 from there (minus the true lower bound; see
 * mca_coll_rabred_bufs_t).  Temporaries up to coll_rabred_cache_bytes come from `scratch` and
 * stay allocated between calls: a fresh multi-megabyte malloc is an mmap
 * whose page faults and zeroing cost more than the reduction over shared
 * memory (measured: 4 MiB MPI_Reduce at p = 2, 7.7 ms against 1.2 ms). */
typedef struct {
    char *raw;
    char *base;
    ptrdiff_t shift;
} mca_coll_rabred_tmpbuf_t;

int mca_coll_rabred_tmpbuf_alloc(mca_coll_rabred_tmpbuf_t *t, struct ompi_datatype_t *dtype,
                                 size_t count, mca_coll_rabred_scratch_t *scratch);
void mca_coll_rabred_tmpbuf_free(mca_coll_rabred_tmpbuf_t *t);
void mca_coll_rabred_scratch_release(mca_coll_rabred_scratch_t *scratch);

/* What the blocking and nonblocking paths share (coll_rabred_module.c):
 * the prepared call of c, chosen and built on a miss, counted and said
 * (`own`: an entry of the caller's, used when every cached one is in
 * flight); an arrival-aware choice's plan built for equal arrivals into r;
 * the plan's buffers (temporaries from `scratch`), and their abandonment
 * after a failed run; the collective's tag for blocking calls; a call
 * counted in its algorithm's counter and said at verbose 2; one handed
 * down because the ranks' settings differ, counted and said; an
 * OMPI error as the application sees it. */
int mca_coll_rabred_prepared_for(mca_coll_rabred_module_t *m, const mca_coll_rabred_call_t *c,
                                 rabred_prepared_t *own, rabred_prepared_t **out);
int mca_coll_rabred_build_for(const mca_coll_rabred_module_t *m, const mca_coll_rabred_call_t *c,
                              const rabred_prepared_t *e, rabred_ready_plan_t *r);
int mca_coll_rabred_take_buffers(const mca_coll_rabred_call_t *c, const rabred_ready_plan_t *r,
                                 mca_coll_rabred_scratch_t scratch[3],
                                 mca_coll_rabred_tmpbuf_t t[3], mca_coll_rabred_bufs_t *bufs);
void mca_coll_rabred_abandon_temporaries(mca_coll_rabred_tmpbuf_t t[3],
                                         mca_coll_rabred_scratch_t scratch[3]);
int mca_coll_rabred_call_tag(const mca_coll_rabred_call_t *c);
void mca_coll_rabred_count_disagreement(const mca_coll_rabred_call_t *c);
void mca_coll_rabred_count_call(const mca_coll_rabred_call_t *c, const rabred_choice_t *choice);
int mca_coll_rabred_user_error(int rc);

END_C_DECLS

#endif /* MCA_COLL_RABRED_EXPORT_H */
