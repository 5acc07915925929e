/*
 * Plan phases shared by several algorithms: the pieces Rabenseifner 2004 combines
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

#include <stddef.h>

#include "plan/rabred_plan.h"
#include "plan/rabred_toolkit.h"

/* copy INPUT into ACC (a no-op under MPI_IN_PLACE, see rabred_plan.h) */
void rabred_phase_copy_in(rabred_plan_t *plan, int64_t count);

/* Fold with full vectors: the extra sends its vector, the proxy reduces it.
 * Cost: alpha + n beta + n gamma (one direction). */
void rabred_phase_fold_full(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count);

/* Fold with halves (Rabenseifner 2004 sec. 2.5): the pair exchanges halves, both
 * reduce one half, then the extra sends its reduced half to the proxy.
 * Cost: 2 alpha + n beta + n/2 gamma. */
void rabred_phase_fold_halves(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count);

/* The proxy hands the full result to its extra: alpha + n beta. */
void rabred_phase_unfold(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count);

/* A power-of-two team running recursive halving and doubling.  Member i is
 * virtual rank i of a fold, or real rank base + i; `subst` lets one other
 * rank play a member (binary blocks' reduce: a root outside the largest
 * block plays member 0 in the gather).  Windows are measured on a grid of
 * `grid` blocks (grid >= size, both powers of two) so that teams of
 * different sizes cut the vector at the same element boundaries. */
typedef struct {
    const rabred_fold_t *fold; /* NULL: member i is real rank base + i */
    int base;
    int size, me;
    int grid;
    int subst_member, subst_rank; /* -1: no substitution */
} rabred_team_t;

/* The team of a fold's p' virtual ranks (me = this rank's vrank). */
rabred_team_t rabred_team_of_fold(const rabred_fold_t *fold);
/* Real rank of member i. */
int rabred_team_real(const rabred_team_t *team, int member);
/* Element range of a team window. */
int64_t rabred_team_offset(const rabred_team_t *team, int64_t count, rabred_window_t w);
int64_t rabred_team_length(const rabred_team_t *team, int64_t count, rabred_window_t w);

/* Reduce-scatter by recursive vector halving and distance doubling among
 * the team: lg s alpha + (1 - 1/s) n (beta + gamma) for a team of s. */
void rabred_phase_reduce_scatter(rabred_plan_t *plan, const rabred_team_t *team,
                                 const rabred_halving_t *h, int64_t count);

/* Rabenseifner's first half, shared by its allreduce and reduce: the
 * fold to p' (a rank in a fold's pair, or in place, copies its input into
 * ACC first), then the team's reduce-scatter.  A rank that did not copy
 * its input starts the halving from INPUT in place: it sends the half it
 * gives from INPUT and reduces its own input into the half it keeps, so
 * no copy of the input comes first, and what the peer reads (INPUT) is
 * never written (single-copy transports: no line is taken back from the
 * reader's cache).  Returns 1 and sets team and h for a rank of the
 * halving, 0 for a fold's extra (its part is done). */
int rabred_phase_fold_reduce_scatter(rabred_plan_t *plan, const rabred_plan_args_t *a,
                                     const rabred_fold_t *fold, rabred_team_t *team,
                                     rabred_halving_t *h);

/* Allgather by recursive vector doubling and distance halving, the exact
 * reverse of the reduce-scatter: lg s alpha + (1 - 1/s) n beta. */
void rabred_phase_allgather(rabred_plan_t *plan, const rabred_team_t *team,
                            const rabred_halving_t *h, int64_t count);

/* Binomial gather of the scattered blocks to member `root_member`, again
 * the reverse of the reduce-scatter: lg s alpha + (1 - 1/s) n beta there. */
void rabred_phase_gather(rabred_plan_t *plan, const rabred_team_t *team,
                         const rabred_halving_t *h, int64_t count, int root_member);

/* Reduce-scatter by pairwise exchange over p blocks (Rabenseifner 2004 sec. 2.7):
 * at step i = 1..p-1 send block rank+i of ACC to rank+i and reduce block
 * rank from rank-i into ACC.  Rank k ends with block k reduced.
 * (p-1) alpha + (1 - 1/p) n (beta + gamma).  Not in rank order. */
void rabred_phase_pairwise_reduce_scatter(rabred_plan_t *plan, int p, int rank, int64_t count);


/* Reduce-scatter in rank order over p blocks, for non-commutative ops:
 * rank k combines block k as x_0 op x_1 op ... op x_{p-1}, receiving the
 * lower ranks' blocks from k-1 down to 0 (each in front), then the higher
 * ones from k+1 up (each behind).  At step s rank k receives from k - s
 * while s <= k, else from s; so rank j sends at step s to j + s and, at
 * step j, to every rank below it.  (p-1) alpha + (1 - 1/p) n (beta +
 * gamma), but rank j posts j sends at step j: slower than the pairwise
 * exchange when messages are large, and only used where order matters. */
void rabred_phase_ordered_reduce_scatter(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Reduce-scatter by direct exchange over p blocks: p - 1 steps joined into
 * one group (rabred_plan_round_joined), step k sending block rank+k of
 * INPUT to its owner and receiving block rank from rank-k into a slot of
 * TMP of its own (TMP2 too when p - 1 blocks outgrow TMP); after the
 * group the rank copies its own block into ACC and reduces the slots into
 * it in rank order (lower ranks in front, from rank-1 down, then higher
 * ones behind): exact for non-commutative ops.  With ports taking turns,
 * (p-1) (alpha + n/p beta) + (1 - 1/p) n gamma; with latency paid at once
 * by messages in flight, one wire latency instead of p - 1.  When the
 * slots do not fit (rabred_phase_direct_fits: from count >= p they do),
 * the ordered reduce-scatter after a copy-in instead. */
void rabred_phase_direct_reduce_scatter(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Do p - 1 receive slots of the largest block fit TMP and TMP2?  Always
 * from count >= p: count / ceil(count / p) > p / 2 there. */
int rabred_phase_direct_fits(int p, int64_t count);

/* Allgather by direct exchange, p - 1 steps joined into one group: step k
 * sends block rank of ACC to rank+k and receives block rank-k into ACC.
 * (p-1) (alpha + n/p beta), or one wire latency as above. */
void rabred_phase_direct_allgather(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Gather of the p blocks of ACC at rank 0, all p - 1 messages posted at
 * once (rank 0's receives are one group of joined rounds): rank k sends
 * block k.  With ports taking turns (p-1) (alpha + n/p beta) at rank 0;
 * with latency paid at once by messages in flight, or ports that do not
 * take turns (SMPI's loopback inside a host), about one alpha. */
void rabred_phase_direct_gather(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Broadcast of ACC from rank 0 to every other rank at once (one group of
 * p - 1 joined rounds at rank 0).  (p-1) (alpha + n beta) with ports
 * taking turns, about alpha + n beta where they do not. */
void rabred_phase_direct_bcast(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Binomial broadcast of ACC from rank 0: at step k the ranks below 2^k
 * send to rank + 2^k.  ceil(lg p) (alpha + n beta). */
void rabred_phase_bcast(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Allgather on a ring: at step i send block rank-i to rank+1, receive block
 * rank-i-1 from rank-1.  (p-1) alpha + (1 - 1/p) n beta. */
void rabred_phase_ring_allgather(rabred_plan_t *plan, int p, int rank, int64_t count);

/* Linear reduce at root: the root receives every other rank's vector in
 * turn and combines them in rank order; the others send their input.
 * (p-1) (alpha + n beta + n gamma) at the root. */
void rabred_phase_linear_reduce(rabred_plan_t *plan, int p, int rank, int root, int64_t count);
/* The team of this rank's binary block (grid: the largest block). */
rabred_team_t rabred_team_of_block(const rabred_blocks_t *b);

/* Element range of the final window of `member` of block `blk`. */
void rabred_blocks_window(const rabred_blocks_t *b, int64_t count, int blk, int member,
                          int64_t *off, int64_t *len);

/* Binary blocks' reduce-scatter (Rabenseifner 2004 sec. 2.6): every block reduces
 * by recursive halving inside itself, then, from the smallest block up,
 * each block's members send their reduced windows to the members of the
 * next larger block that own the matching parts, which reduce them (the
 * smaller block holds higher ranks, so its data goes second: rank order).
 * Afterwards every member of block 0 holds its window reduced over all p.
 * `h` is this rank's halving inside its block. */
void rabred_phase_blocks_reduce_up(rabred_plan_t *plan, const rabred_blocks_t *b,
                                   const rabred_halving_t *h, int64_t count);

/* Everything binary blocks' allreduce and reduce share: split p into
 * blocks, set up this rank's team and halving, copy the input in and run
 * the reduce-up phase. */
void rabred_phase_blocks_start(rabred_plan_t *plan, const rabred_plan_args_t *a,
                               rabred_blocks_t *b, rabred_team_t *team, rabred_halving_t *h);

/* Reduce over the in-order binary tree (rabred_bintree_t) of tree ranks
 * t = (rank - tree_root) mod p: the result ends in ACC at tree_root, in
 * rank order when tree_root is 0.  Leaves send INPUT without a copy. */
void rabred_phase_tree_reduce(rabred_plan_t *plan, int p, int rank, int tree_root,
                              int64_t count);

/* Segment chains around a ring of positions (Proficz 2018: the sorted linear
 * tree and the pre-reduced ring are both instances).  ring[q] is the rank at
 * position q; the vector is cut into p segments, segment j being block j of
 * p (rabred_block_offset).  Segment j starts at position start[j]: its
 * partial sum travels start[j] -> start[j]+1 -> ... for p-1 hops, each
 * receiver adding its own part, so position start[j]-1 holds the result;
 * that one sends it on around the ring for p-1 more hops (each receiver
 * overwriting its partial with it), so the segment is reduced once and
 * copied to everyone: every rank gets the same bits.
 *
 * Schedule: hop h of segment j runs at step start[j] - j + h.  At any step
 * a position then sends at most one segment (j = position - step mod p) and
 * receives at most one (from position - 1), and every hop comes one step
 * after the one before it.  Each position runs its steps in order, one
 * round per step with something to move, so both ends of every link see
 * the same message order and no rank waits for a step that waits for it:
 * any start[] gives a correct, deadlock-free plan.  start[j] = j is the
 * neighbour ring (2 (p-1) steps); start[j] = 0 for all j the pipelined
 * linear tree 0 -> 1 -> ... -> p-1 -> 0 -> ... -> p-2 (3 (p-1) steps).
 * Empty segments (count < p) move nothing and make no rounds.
 * Commutative ops only: segment j combines the ranks in ring order from
 * start[j].  `rank` is the calling rank (found in ring[]).  Appends
 * copy-in (INPUT to ACC) first and uses TMP for partials, unless
 * from_input (not in place): then no copy comes first, a chain's first
 * rank sends its input as it is and partials are received into ACC. */
void rabred_phase_segment_chains(rabred_plan_t *plan, int p, const int *ring, int rank,
                                 const int *start, int64_t count, int from_input);

/* What rabred_phase_segment_chains' plans with these start[] cost under
 * arr's model and offsets: the mean over ranks of (finish - arrival), in
 * seconds, as the simulator would time them with f_alpha = f_beta = 1 (a
 * round is posted when the previous one's transfers are done, or when its
 * reduction is too if the round touches what it reduced; a message starts
 * when both ends have posted it: in these plans a port never has two
 * messages waiting).  For choosing between schedules (the pre-reduced ring
 * keeps its pre-steps only when they pay).  O(p (p + max shift)) time,
 * O(p) memory; < 0 when out of memory. */
double rabred_chains_mean_elapsed(int p, const int *ring, const int *start, int64_t count,
                                  const rabred_arrival_t *arr);

#endif /* RABRED_PHASES_H */
