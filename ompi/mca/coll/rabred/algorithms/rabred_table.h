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

#include "algorithms/rabred_price.h"
#include "plan/rabred_plan.h"

typedef enum { RABRED_COLL_ALLREDUCE = 0, RABRED_COLL_REDUCE = 1, RABRED_NCOLLS = 2 } rabred_coll_t;

/* The most algorithms a collective may have: the one bound of every array
 * indexed by algorithm (counters, prices, MCA enum values). */
#define RABRED_TABLE_MAX 32

enum {
    RABRED_ALG_AUTO = 0,
    RABRED_ALG_PREVIOUS = 100
};

/* Restrictions an algorithm declares; the selection layer checks them. */
enum {
    RABRED_NEEDS_COMMUTATIVE = 1u << 0, /* combines operands out of rank order */
    RABRED_NEEDS_COUNT_GE_POF2 = 1u << 1, /* below count p' some ranks idle: use another */
    /* node-aware: a non-commutative op keeps rank order only when every
     * node's ranks are consecutive (rabred_nodes_ordered) */
    RABRED_NEEDS_ORDERED_NODES = 1u << 2,
    /* receive slots of p - 1 blocks in TMP and TMP2 (allreduce direct):
     * below count p they may not fit, and the plan runs slower steps */
    RABRED_NEEDS_COUNT_GE_P = 1u << 3
};

/* neighbor_ring cuts a block into at most this many segments: that bounds
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

/* An algorithm: each algorithm's file defines its descriptor (builder,
 * restrictions, flags, text, closed-form price where it has one) with
 * designated initialisers, and rabred_table.c lists them.  Nothing looks an
 * algorithm up by its name except the parsers of names (MCA values, rules
 * files, tools' options). */
typedef struct rabred_alg {
    rabred_coll_t coll;
    /* 1, 2, ...: its MCA enum value, its rules-file id, its counter slot;
     * the table lists a collective's algorithms in id order, so that
     * rabred_table_at(coll, id - 1) is the algorithm (test_toolkit checks) */
    int id;
    const char *name;
    const char *alias; /* another name accepted for it, or NULL (README) */
    rabred_plan_builder_fn build;
    unsigned restrictions;
    const char *description; /* one line, for ompi_info and rabred-plan */
    const char *formula;     /* alpha/beta/gamma formula, as in the file header */
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
     * Proficz 2018).  The balanced decision (cost model, price book) must not
     * consider these: priced with equal arrivals they are only slower
     * variants of the ring and the linear tree, and the decision has not
     * been taught to predict arrivals.  They run when forced, named by a
     * rule or picked by the arrival estimate. */
    int arrival_aware;
    /* 1 when the plans cut the vector into seg_count-element segments (a
     * rule's segsize=, coll_rabred_segment_size, the price's closed form) */
    int segmented;
    /* 1: the plan reads the node map (rabred_plan_args_t.nodes) and
     * composes flat phases inside and across nodes.  The balanced decision
     * does not price these yet (its model has one link per communicator):
     * they run when forced or named by a rule. */
    int node_aware;
    /* The balanced price in closed form (rabred_price.h), or NULL: the cost
     * model then prices the algorithm with the simulator. */
    rabred_price_fn price;
    /* 1: the closed form prices messages in flight that share a port or
     * overlap their wire latency too (rabred_model_t.shared_ports, wire),
     * so a book beyond turns keeps it instead of simulating (a round of
     * p - 1 messages per port costs the shared simulator O(p^2) per port) */
    int prices_sharing;
} rabred_alg_t;

/* What the restriction checks need to know about a call. */
typedef struct {
    int p;
    int64_t count;
    int commutative;
    const rabred_nodes_t *nodes; /* the node map, or NULL (one node) */
} rabred_call_t;

const char *rabred_coll_name(rabred_coll_t coll);
int rabred_table_size(rabred_coll_t coll);
const rabred_alg_t *rabred_table_at(rabred_coll_t coll, int index);
const rabred_alg_t *rabred_table_by_id(rabred_coll_t coll, int id);
/* By name or alias: for the parsers of names only. */
const rabred_alg_t *rabred_table_by_name(rabred_coll_t coll, const char *name);
/* The algorithm coll/tuned calls `tuned_id`, or NULL when rabred has none. */
const rabred_alg_t *rabred_table_by_tuned_id(rabred_coll_t coll, int tuned_id);

/* NULL when `alg` may serve `call`, else why not (a static string). */
const char *rabred_alg_violation(const rabred_alg_t *alg, const rabred_call_t *call);

/* The algorithms (one file each: algorithms/coll_rabred_<coll>_<name>.c). */
extern const rabred_alg_t rabred_alg_allreduce_recursive_doubling;
extern const rabred_alg_t rabred_alg_allreduce_rabenseifner;
extern const rabred_alg_t rabred_alg_allreduce_pairwise_ring;
extern const rabred_alg_t rabred_alg_allreduce_linear;
extern const rabred_alg_t rabred_alg_allreduce_binary_tree;
extern const rabred_alg_t rabred_alg_allreduce_binary_blocks;
extern const rabred_alg_t rabred_alg_allreduce_bruck;
extern const rabred_alg_t rabred_alg_allreduce_neighbor_ring;
extern const rabred_alg_t rabred_alg_allreduce_sorted_linear_tree;
extern const rabred_alg_t rabred_alg_allreduce_prereduced_ring;
extern const rabred_alg_t rabred_alg_allreduce_prereduced_scatter;
extern const rabred_alg_t rabred_alg_allreduce_node_lanes;
extern const rabred_alg_t rabred_alg_allreduce_node_leaders;
extern const rabred_alg_t rabred_alg_allreduce_node_lanes_ring;
extern const rabred_alg_t rabred_alg_allreduce_direct;
extern const rabred_alg_t rabred_alg_allreduce_node_leaders_direct;
extern const rabred_alg_t rabred_alg_reduce_binomial;
extern const rabred_alg_t rabred_alg_reduce_rabenseifner;
extern const rabred_alg_t rabred_alg_reduce_pairwise_gather;
extern const rabred_alg_t rabred_alg_reduce_linear;
extern const rabred_alg_t rabred_alg_reduce_binary_tree;
extern const rabred_alg_t rabred_alg_reduce_binary_blocks;
extern const rabred_alg_t rabred_alg_reduce_pipeline;
extern const rabred_alg_t rabred_alg_reduce_node_leaders;
extern const rabred_alg_t rabred_alg_reduce_node_leaders_direct;
extern const rabred_alg_t rabred_alg_reduce_node_lanes;
extern const rabred_alg_t rabred_alg_reduce_node_chain;

#endif /* RABRED_TABLE_H */
