/*
 * The algorithm table (see rabred_table.h).  Cost formulas use the model of
 * seed 000 sec. 2.1: alpha per message, beta per byte sent, gamma per byte
 * reduced, n bytes per rank, p' the largest power of two <= p, full duplex
 * (f_alpha = f_beta = 1).  The simulator's tests check each one.
 */
#include "rabred_table.h"

#include <stddef.h>
#include <string.h>

#include "rabred_toolkit.h"

/* Entries leave out the trailing fields that are 0 (segmented), which
 * -Wextra would flag in each of them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static const rabred_alg_t allreduce_algs[] = {
    {RABRED_COLL_ALLREDUCE, 1, "recursive_doubling", rabred_build_allreduce_recursive_doubling, 0,
     "recursive doubling: full vectors exchanged at distance 1, 2, 4...; "
     "fold to p' for other p (seed 000 sec. 2.4); best for short vectors",
     "(lg p' + 2[p != p']) alpha + (lg p' + 2[p != p']) n beta + (lg p' + [p != p']) n gamma",
     {3}, 0},
    {RABRED_COLL_ALLREDUCE, 2, "rabenseifner", rabred_build_allreduce_rabenseifner,
     RABRED_NEEDS_COUNT_GE_POF2,
     "Rabenseifner: reduce-scatter by recursive halving + allgather by recursive doubling, "
     "fold to p' for other p (seed 000 sec. 2.5); long vectors",
     "p = p': 2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma; "
     "else (2 lg p' + 3) alpha + (4 - 2/p') n beta + (3/2 - 1/p') n gamma",
     {6}, 0},
    {RABRED_COLL_ALLREDUCE, 3, "ring", rabred_build_allreduce_ring, RABRED_NEEDS_COMMUTATIVE,
     "ring: pairwise-exchange reduce-scatter + ring allgather over p blocks, any p without a "
     "fold (seed 000 sec. 2.7); long vectors, small p",
     "2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma",
     {4}, 0},
    {RABRED_COLL_ALLREDUCE, 4, "linear", rabred_build_allreduce_linear, 0,
     "linear: every rank sends to rank 0, which reduces in rank order and sends the result "
     "to all (the classical reduce + broadcast; a baseline)",
     "2 (p-1) (alpha + n beta) + (p-1) n gamma",
     {1}, 0},
    {RABRED_COLL_ALLREDUCE, 5, "binary_tree", rabred_build_allreduce_binary_tree, 0,
     "binary tree: reduce to rank 0 over an in-order binary tree (rank order kept), then "
     "broadcast down the same tree (seed 000 sec. 2.3)",
     "T(p) + B(p); T = max(T(a) + c + g, T(b)) + c + g, B = max(c + B(a), 2c + B(b)), "
     "c = alpha + n beta, g = n gamma, subtrees of a and b ranks",
     {2}, 0},
    {RABRED_COLL_ALLREDUCE, 6, "binary_blocks", rabred_build_allreduce_binary_blocks, 0,
     "binary blocks: p split into power-of-two blocks that halve inside themselves and "
     "cascade their windows to the largest block, which allgathers and feeds the others "
     "(seed 000 sec. 2.6); long vectors, p with blocks of similar size",
     "p = 2^k: as rabenseifner; else block 0 halving + cascade + allgather + feeding "
     "(see coll_rabred_allreduce_binary_blocks.c)",
     {0}, 0},
    {RABRED_COLL_ALLREDUCE, 7, "bruck", rabred_build_allreduce_bruck, RABRED_NEEDS_COMMUTATIVE,
     "Bruck: reduce-scatter by distance halving + Bruck allgather, ceil(lg p) rounds each for "
     "any p without a fold (seed 001); a wrapped window costs a second message",
     "2 (K + W) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma, K = ceil(lg p), "
     "W = #{1 <= k < K : min(2^k, p - 2^k) >= 2}",
     {0}, 0},
    {RABRED_COLL_ALLREDUCE, 8, "segmented_ring", rabred_build_allreduce_segmented_ring,
     RABRED_NEEDS_COMMUTATIVE,
     "segmented ring: neighbour-ring reduce-scatter cut into segments of "
     "coll_rabred_segment_size bytes so each segment's transfer overlaps the previous "
     "one's reduction, then the ring allgather; long vectors",
     "(p-1) (S+1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma without overlap; with it, "
     "alpha = 0: (1 - 1/p) n (beta + max(beta, gamma)) + n/(p S) min(beta, gamma)",
     {5}, 0, 1},
    {RABRED_COLL_ALLREDUCE, 9, "sorted_linear_tree", rabred_build_allreduce_sorted_linear_tree,
     RABRED_NEEDS_COMMUTATIVE,
     "sorted linear tree: ranks sorted by arrival offset, p segments pipelined down the line "
     "to the latest rank and its results around to the others (seed 004 sec. 4.1); for "
     "imbalanced arrival, never chosen by the balanced decision",
     "balanced: 3 (p-1) alpha + 3 (1 - 1/p) n beta + 2 (1 - 1/p) n gamma",
     {0}, 1},
    {RABRED_COLL_ALLREDUCE, 10, "prereduced_ring", rabred_build_allreduce_prereduced_ring,
     RABRED_NEEDS_COMMUTATIVE,
     "pre-reduced ring: neighbour ring in arrival order whose early ranks start reducing "
     "segments before the late ones arrive (seed 004 sec. 4.2); without offsets the plain "
     "ring; for imbalanced arrival, never chosen by the balanced decision",
     "balanced: 2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma (as ring)",
     {0}, 1},
    {RABRED_COLL_ALLREDUCE, 11, "prereduced_scatter", rabred_build_allreduce_prereduced_scatter,
     RABRED_NEEDS_COMMUTATIVE,
     "pre-reduced scatter: while the latest rank is away the others reduce-scatter among "
     "themselves; then it sends each its part once and gets the result back, pipelined, "
     "near seed 004's bound for one late rank; for imbalanced arrival, never chosen by the "
     "balanced decision",
     "early ranks: (p-2) alpha + (1 - 1/(p-1)) n (beta + gamma), then, with m pieces per "
     "block: (m+1) ((p-1) alpha + n beta / m) + n gamma / (p-1)",
     {0}, 1, 1},
};

static const rabred_alg_t reduce_algs[] = {
    {RABRED_COLL_REDUCE, 1, "binomial", rabred_build_reduce_binomial, 0,
     "binomial tree of full vectors toward the root (seed 000 sec. 2.3); "
     "rank-ordered tree plus one forward to the root for non-commutative ops; short vectors",
     "commutative: ceil(lg p) (alpha + n beta + n gamma); "
     "non-commutative, root != 0: one more alpha + n beta",
     {5}, 0},
    {RABRED_COLL_REDUCE, 2, "rabenseifner", rabred_build_reduce_rabenseifner,
     RABRED_NEEDS_COUNT_GE_POF2,
     "Rabenseifner: reduce-scatter by recursive halving + binomial gather to the root; "
     "a root among the folded pairs is the rank kept (seed 000 sec. 2.5, seed 003)",
     "p = p': 2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma; "
     "else (2 lg p' + 2) alpha + (3 - 2/p') n beta + (3/2 - 1/p') n gamma",
     {7}, 0},
    {RABRED_COLL_REDUCE, 3, "ring", rabred_build_reduce_ring, RABRED_NEEDS_COMMUTATIVE,
     "ring: pairwise-exchange reduce-scatter, then every rank sends its block straight to the "
     "root (seed 000 sec. 2.7); long vectors, small p",
     "2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma",
     {0}, 0},
    {RABRED_COLL_REDUCE, 4, "linear", rabred_build_reduce_linear, 0,
     "linear: every rank sends its vector to the root, which reduces in rank order (a baseline)",
     "(p-1) (alpha + n beta + n gamma)",
     {1}, 0},
    {RABRED_COLL_REDUCE, 5, "binary_tree", rabred_build_reduce_binary_tree, 0,
     "binary tree: in-order binary tree toward the root, at most two children per rank; "
     "rank-ordered tree plus a forward to the root for non-commutative ops (seed 000 sec. 2.3)",
     "T(p) (+ alpha + n beta when non-commutative and root != 0); "
     "T = max(T(a) + c + g, T(b)) + c + g, c = alpha + n beta, g = n gamma",
     {6, 4}, 0},
    {RABRED_COLL_REDUCE, 6, "binary_blocks", rabred_build_reduce_binary_blocks, 0,
     "binary blocks: blocks halve inside themselves and cascade to the largest, which "
     "gathers to the root; a root outside it stands in for rank 0 (seed 000 sec. 2.6)",
     "p = 2^k: as rabenseifner; else reduce-up + gather in block 0 "
     "(see coll_rabred_reduce_binary_blocks.c)",
     {0}, 0},
    {RABRED_COLL_REDUCE, 7, "pipeline", rabred_build_reduce_pipeline, 0,
     "pipeline: a chain toward the root with the vector cut into coll_rabred_segment_size "
     "segments, every link busy at once and each rank gone once it has forwarded; "
     "rank-ordered chain plus a forward to a root inside it for non-commutative ops "
     "(coll/tuned's chain and pipeline); long vectors, few ranks",
     "S segments of m = n/S: (p - 2 + S) (alpha + m beta + m gamma); p = 2: alpha + m beta + "
     "m gamma + (S-1) max(alpha + m beta, m gamma); non-commutative, 0 < root < p-1: "
     "+ (1 + max(0, S - max(root + 1, p - root))) (alpha + m beta): the hop to the root, "
     "and the segments that share its port with the chain's",
     {3, 2, 0}, 0, 1},
};

#pragma GCC diagnostic pop

static const rabred_alg_t *table(rabred_coll_t coll, int *size)
{
    if (RABRED_COLL_ALLREDUCE == coll) {
        *size = (int)(sizeof(allreduce_algs) / sizeof(allreduce_algs[0]));
        return allreduce_algs;
    }
    if (RABRED_COLL_REDUCE == coll) {
        *size = (int)(sizeof(reduce_algs) / sizeof(reduce_algs[0]));
        return reduce_algs;
    }
    *size = 0;
    return NULL;
}

const char *rabred_coll_name(rabred_coll_t coll)
{
    return RABRED_COLL_ALLREDUCE == coll ? "allreduce" : "reduce";
}

int rabred_table_size(rabred_coll_t coll)
{
    int size;
    (void)table(coll, &size);
    return size;
}

const rabred_alg_t *rabred_table_at(rabred_coll_t coll, int index)
{
    int size;
    const rabred_alg_t *algs = table(coll, &size);
    return (index >= 0 && index < size) ? &algs[index] : NULL;
}

const rabred_alg_t *rabred_table_by_id(rabred_coll_t coll, int id)
{
    int size;
    const rabred_alg_t *algs = table(coll, &size);
    for (int i = 0; i < size; i++) {
        if (algs[i].id == id) {
            return &algs[i];
        }
    }
    return NULL;
}

const rabred_alg_t *rabred_table_by_name(rabred_coll_t coll, const char *name)
{
    int size;
    const rabred_alg_t *algs = table(coll, &size);
    for (int i = 0; i < size && NULL != name; i++) {
        if (0 == strcmp(algs[i].name, name)) {
            return &algs[i];
        }
    }
    return NULL;
}

const rabred_alg_t *rabred_table_by_tuned_id(rabred_coll_t coll, int tuned_id)
{
    int size;
    const rabred_alg_t *algs = table(coll, &size);
    for (int i = 0; i < size && tuned_id > 0; i++) {
        for (int k = 0; k < 3 && 0 != algs[i].tuned_ids[k]; k++) {
            if (algs[i].tuned_ids[k] == tuned_id) {
                return &algs[i];
            }
        }
    }
    return NULL;
}

const char *rabred_alg_violation(const rabred_alg_t *alg, const rabred_call_t *call)
{
    if ((alg->restrictions & RABRED_NEEDS_COMMUTATIVE) && !call->commutative) {
        return "needs a commutative op";
    }
    if ((alg->restrictions & RABRED_NEEDS_COUNT_GE_POF2) &&
        call->count < rabred_pof2_floor(call->p)) {
        return "needs count >= p' (largest power of two <= p)";
    }
    return NULL;
}
