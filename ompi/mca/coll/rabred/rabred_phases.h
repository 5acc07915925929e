/*
 * Plan phases shared by several algorithms: the pieces seed 000 combines
 * (fold to a power of two, recursive halving, recursive doubling, binomial
 * gather).  Each appends rounds for the calling rank to a plan, using the
 * toolkit's fold and halving conventions, so no algorithm re-derives them.
 *
 * Operand order: virtual ranks stand for ascending groups of real ranks, so
 * the data of the lower virtual rank always goes first.  That keeps every
 * phase exact for non-commutative operations.
 */
#ifndef RABRED_PHASES_H
#define RABRED_PHASES_H

#include "rabred_plan.h"
#include "rabred_toolkit.h"

/* copy INPUT into ACC (a no-op under MPI_IN_PLACE, see rabred_plan.h) */
void rabred_phase_copy_in(rabred_plan_t *plan, int64_t count);

/* Fold with full vectors: the extra sends its vector, the proxy reduces it.
 * Cost: alpha + n beta + n gamma (one direction). */
void rabred_phase_fold_full(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count);

/* Fold with halves (seed 000 sec. 2.5): the pair exchanges halves, both
 * reduce one half, then the extra sends its reduced half to the proxy.
 * Cost: 2 alpha + n beta + n/2 gamma. */
void rabred_phase_fold_halves(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count);

/* The proxy hands the full result to its extra: alpha + n beta. */
void rabred_phase_unfold(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count);

/* Reduce-scatter by recursive vector halving and distance doubling among the
 * p' virtual ranks: lg p' alpha + (1 - 1/p') n (beta + gamma). */
void rabred_phase_reduce_scatter(rabred_plan_t *plan, const rabred_fold_t *fold,
                                 const rabred_halving_t *h, int64_t count);

/* Allgather by recursive vector doubling and distance halving, the exact
 * reverse of the reduce-scatter: lg p' alpha + (1 - 1/p') n beta. */
void rabred_phase_allgather(rabred_plan_t *plan, const rabred_fold_t *fold,
                            const rabred_halving_t *h, int64_t count);

/* Binomial gather of the scattered blocks to virtual rank vroot, again the
 * reverse of the reduce-scatter: lg p' alpha + (1 - 1/p') n beta at vroot. */
void rabred_phase_gather(rabred_plan_t *plan, const rabred_fold_t *fold,
                         const rabred_halving_t *h, int64_t count, int vroot);



/* Reduce-scatter by pairwise exchange over p blocks (seed 000 sec. 2.7):
 * at step i = 1..p-1 send block rank+i of ACC to rank+i and reduce block
 * rank from rank-i into ACC.  Rank k ends with block k reduced.
 * (p-1) alpha + (1 - 1/p) n (beta + gamma).  Not in rank order. */
void rabred_phase_pairwise_reduce_scatter(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Allgather on a ring: at step i send block rank-i to rank+1, receive block
 * rank-i-1 from rank-1.  (p-1) alpha + (1 - 1/p) n beta. */
void rabred_phase_ring_allgather(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Linear reduce at root: the root receives every other rank's vector in
 * turn and combines them in rank order; the others send their input.
 * (p-1) (alpha + n beta + n gamma) at the root. */
void rabred_phase_linear_reduce(rabred_plan_t *plan, int p, int rank, int root, int64_t count);
/* Reduce over the in-order binary tree (rabred_bintree_t) of tree ranks
 * t = (rank - tree_root) mod p: the result ends in ACC at tree_root, in
 * rank order when tree_root is 0.  Leaves send INPUT without a copy. */
void rabred_phase_tree_reduce(rabred_plan_t *plan, int p, int rank, int tree_root,
                              int64_t count);

#endif /* RABRED_PHASES_H */
