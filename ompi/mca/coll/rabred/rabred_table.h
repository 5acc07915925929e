/*
 * The algorithm table: the one place where rabred's algorithms are listed
 * (DESIGN.md, "one table is the truth").  The MCA enum values and their
 * ompi_info help text, the per-algorithm call counters, dispatch, the
 * restriction checks and the tests all read this table.  Pure C, no MPI.
 *
 * Ids are part of the interface (MCA enum values, later rules files): they
 * never change meaning.  0 is "auto"; RABRED_ALG_PREVIOUS forwards the call
 * to the coll component that was selected before rabred.
 */
#ifndef RABRED_TABLE_H
#define RABRED_TABLE_H

#include <stdint.h>

#include "rabred_plan.h"

typedef enum { RABRED_COLL_ALLREDUCE = 0, RABRED_COLL_REDUCE = 1, RABRED_NCOLLS = 2 } rabred_coll_t;

enum {
    RABRED_ALG_AUTO = 0,
    RABRED_ALG_PREVIOUS = 100
};

/* Restrictions an algorithm declares; the selection layer checks them. */
enum {
    RABRED_NEEDS_COMMUTATIVE = 1u << 0, /* combines operands out of rank order */
    RABRED_NEEDS_COUNT_GE_POF2 = 1u << 1 /* below count p' some ranks idle: use another */
};

/* segmented_ring cuts a block into at most this many segments: that bounds
 * its plan to (p-1) * 64 + p rounds; past a few segments per block the
 * overlap is already complete and every further segment costs one alpha.
 * (The cost model prices the same cap.) */
#define RABRED_SEGRING_MAX_SEGMENTS 64

/* pipeline cuts the whole vector into at most this many segments.  Its
 * chain takes p-2 segment times to fill, so its time exceeds the bandwidth
 * term n (beta + gamma) by a factor of about 1 + (p-2)/S: at S = 1024 less
 * than 10% up to p = 100, past where a chain is competitive.  A plan then
 * holds about S rounds (~100 KB at 1024), as the segmented ring's at p = 16;
 * the cap keeps tiny segments from making the plan larger than the data.
 * (The cost model prices the same cap.) */
#define RABRED_PIPELINE_MAX_SEGMENTS 1024

typedef struct {
    rabred_coll_t coll;
    int id;
    const char *name;
    rabred_plan_builder_fn build;
    unsigned restrictions;
    const char *description; /* one line, for ompi_info and rabred-plan */
    const char *cost;        /* alpha/beta/gamma formula, as in the file header */
    /* coll/tuned's ids for the same algorithm (its coll_tuned_<coll>_algorithm
     * values), 0-terminated: rules files in tuned's format map through them,
     * and rabred-tune writes tuned_ids[0].  Allreduce: 1 basic_linear,
     * 2 nonoverlapping (reduce + bcast), 3 recursive_doubling, 4 ring,
     * 5 segmented_ring, 6 rabenseifner.  Reduce: 1 linear, 2 chain,
     * 3 pipeline, 4 binary, 5 binomial, 6 in-order binary, 7 rabenseifner;
     * chain (fan-out chains from the root; rabred runs one) maps onto
     * pipeline. */
    int tuned_ids[3];
    /* 1: the plan adapts to the ranks' arrival offsets (rabred_arrival_t,
     * seed 004).  The balanced decision (cost model, price book) must not
     * consider these: priced with equal arrivals they are only slower
     * variants of the ring and the linear tree, and the decision has not
     * been taught to predict arrivals.  They run when forced or named by a
     * rule.  Positional initialisers that stop before it leave it 0. */
    int arrival_aware;
    /* 1 when the plans cut the vector into seg_count-element segments (a
     * rule's segsize=, coll_rabred_segment_size, the price book's closed
     * form); entries that leave it out are 0. */
    int segmented;
} rabred_alg_t;

/* What the restriction checks need to know about a call. */
typedef struct {
    int p;
    int64_t count;
    int commutative;
} rabred_call_t;

const char *rabred_coll_name(rabred_coll_t coll);
int rabred_table_size(rabred_coll_t coll);
const rabred_alg_t *rabred_table_at(rabred_coll_t coll, int index);
const rabred_alg_t *rabred_table_by_id(rabred_coll_t coll, int id);
const rabred_alg_t *rabred_table_by_name(rabred_coll_t coll, const char *name);
/* The algorithm coll/tuned calls `tuned_id`, or NULL when rabred has none. */
const rabred_alg_t *rabred_table_by_tuned_id(rabred_coll_t coll, int tuned_id);

/* NULL when `alg` may serve `call`, else why not (a static string). */
const char *rabred_alg_violation(const rabred_alg_t *alg, const rabred_call_t *call);

/* Plan builders (one file each: coll_rabred_<coll>_<alg>.c). */
int rabred_build_allreduce_recursive_doubling(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_rabenseifner(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_reduce_binomial(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_reduce_rabenseifner(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_ring(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_reduce_ring(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_linear(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_reduce_linear(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_binary_tree(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_reduce_binary_tree(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_binary_blocks(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_reduce_binary_blocks(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_reduce_pipeline(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_bruck(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_segmented_ring(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_sorted_linear_tree(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_prereduced_ring(const rabred_plan_args_t *a, rabred_plan_t *plan);
int rabred_build_allreduce_prereduced_scatter(const rabred_plan_args_t *a, rabred_plan_t *plan);

#endif /* RABRED_TABLE_H */
