/*
 * rabred segment/recursion toolkit: the index arithmetic every algorithm
 * shares, in one place with one convention each (DESIGN.md, "the shared
 * toolkit").  Pure C, no MPI: unit-tested for p = 1..1024 without mpirun.
 *
 * Conventions
 *  - Counts and offsets are in elements, as int64_t, so that count * extent
 *    is computed in 64 bits by the caller (a 2^31-element double vector is
 *    16 GiB and must not overflow anywhere).
 *  - Blocks: a vector of `count` elements cut into `nblocks` blocks gives the
 *    first (count % nblocks) blocks one element more than the others, so
 *    block sizes differ by at most one and block i starts at
 *    i * (count / nblocks) + min(i, count % nblocks).
 *  - Fold (power-of-two reduction, Rabenseifner 2004 sec. 2.5): p = p' + r with p' the
 *    largest power of two <= p.  Ranks 0..2r-1 form the pairs (2i, 2i+1).
 *    In each pair one rank, the "proxy", stays for the power-of-two phase as
 *    virtual rank i; the other, the "extra", sits it out.  The proxy is the
 *    even rank unless the caller names a rank to keep (reduce keeps its root,
 *    so a root among the pairs never has to be fed afterwards: the MPICH reduce patch's
 *    "root is a removed rank" case costs nothing).  Ranks 2r..p-1 are "base"
 *    nodes with virtual rank rank - r.  Virtual ranks therefore map to
 *    ascending, contiguous groups of real ranks, which is what lets the
 *    algorithms keep exact rank order for non-commutative operations.
 */
#ifndef RABRED_TOOLKIT_H
#define RABRED_TOOLKIT_H

#include <stdint.h>

typedef enum {
    RABRED_NODE_BASE,  /* rank >= 2r: takes part in the power-of-two phase */
    RABRED_NODE_PROXY, /* member of a pair that stays, on behalf of both */
    RABRED_NODE_EXTRA  /* member of a pair that sits the phase out */
} rabred_node_kind_t;

typedef struct {
    int p;       /* communicator size */
    int pof2;    /* p': largest power of two <= p */
    int rem;     /* r = p - p' */
    int lg_pof2; /* lg p' */
    int keep;    /* real rank kept inside its pair, or -1 (evens kept) */
    int rank;    /* this rank */
    rabred_node_kind_t kind;
    int vrank;   /* virtual rank in 0..p'-1, or -1 for an extra */
    int partner; /* the other member of this rank's pair, or -1 for base */
} rabred_fold_t;

/* Largest power of two <= n (n >= 1), and its base-2 logarithm. */
int rabred_pof2_floor(int n);
int rabred_log2_floor(int n);
/* Smallest k with 2^k >= n (n >= 1). */
int rabred_log2_ceil(int n);
/* Reverse the lowest `bits` bits of v. */
int rabred_bit_reverse(int v, int bits);
/* The median of v[0..n-1], n >= 1 (the mean of the middle two when n is
 * even); sorts v. */
double rabred_median(double *v, int n);

/* Fold `rank` of `p`; `keep` is a rank to keep in its pair, or -1. */
void rabred_fold_init(rabred_fold_t *fold, int p, int rank, int keep);
/* Real rank of the node serving virtual rank `vrank` (0 <= vrank < p'). */
int rabred_fold_real_rank(const rabred_fold_t *fold, int vrank);
/* Virtual rank of real rank `rank` under the same fold (-1 if extra). */
int rabred_fold_vrank_of(const rabred_fold_t *fold, int rank);

/* Offset and length of block i of nblocks over count elements. */
int64_t rabred_block_offset(int64_t count, int nblocks, int i);
int64_t rabred_block_length(int64_t count, int nblocks, int i);

/* A window: the run of blocks [first, first + nblocks) out of `total`
 * blocks of a `count`-element vector; its element range follows. */
typedef struct {
    int first;
    int nblocks;
} rabred_window_t;

int64_t rabred_window_offset(int64_t count, int total, rabred_window_t w);
int64_t rabred_window_length(int64_t count, int total, rabred_window_t w);
/* Split w into its lower and upper halves (w.nblocks must be even). */
rabred_window_t rabred_window_lower(rabred_window_t w);
rabred_window_t rabred_window_upper(rabred_window_t w);

/* Recursive vector halving with distance doubling over p' virtual ranks
 * (Rabenseifner 2004 sec. 2.5): before step s (mask 2^s) vrank v holds window
 * before[s]; the lower vrank of the pair (v, v ^ mask) keeps the lower half.
 * After lg p' steps every vrank holds one block: block bit_reverse(v).
 * halving[s] = window after step s; the same array drives the reverse
 * (doubling with distance halving) phase of allgather and gather. */
typedef struct {
    int steps;                  /* lg p' */
    rabred_window_t before[31]; /* window held before step s */
    rabred_window_t after[31];  /* window kept after step s */
    rabred_window_t given[31];  /* window sent to the peer at step s */
} rabred_halving_t;

void rabred_halving_init(rabred_halving_t *h, int pof2, int vrank);

/* Binary blocks (Rabenseifner 2004 sec. 2.6): p written as a sum of distinct powers
 * of two, largest first; block b is the run of ranks
 * [base[b], base[b] + size[b]).  Block 0 is the largest; its size is the
 * grid on which every block measures its windows.  Member i of a block of
 * size s holds, after recursive halving, grid position bit_reverse(i) of s
 * (rabred_blocks_owner inverts that). */
typedef struct {
    int count;          /* number of blocks */
    int base[31], size[31];
    int block, member;  /* this rank's block and index in it */
} rabred_blocks_t;

void rabred_blocks_init(rabred_blocks_t *b, int p, int rank);
/* The member of block `block` whose final window holds grid block g. */
int rabred_blocks_owner(const rabred_blocks_t *b, int block, int g);
/* First grid block of member i's final window in block `block`. */
int rabred_blocks_first(const rabred_blocks_t *b, int block, int member);

/* In-order binary tree over tree ranks 0..p-1 rooted at 0: the subtree of a
 * node t covers the contiguous tree ranks [t, t + size); its first child is
 * t + 1 and takes ceil((size - 1) / 2) nodes, the second child the rest.
 * Combining node, first subtree, second subtree in that order is rank order,
 * which is what makes the binary tree usable for non-commutative ops. */
typedef struct {
    int parent;   /* -1 at the root */
    int child[2]; /* -1 when absent */
} rabred_bintree_t;

void rabred_bintree_init(rabred_bintree_t *node, int p, int t);

/* Arrival order (Proficz 2018): the algorithms that adapt to imbalanced process
 * arrival put the ranks on a line or ring sorted by arrival offset.  Every
 * rank must compute the same order from the same offsets, so ties go by
 * rank, and a value that is no usable time (NaN, infinite, negative) is
 * read as 0, "on time", rather than refused: a bad prediction then costs
 * speed, never correctness.  rabred_arrival_clean applies that rule to an
 * offset or a model parameter.  rabred_arrival_order fills order[q] with
 * the rank at position q, earliest first; offset NULL means all equal
 * (order[q] = q).  O(p lg p), no allocation (a heap sort in order[]). */
double rabred_arrival_clean(double v);
void rabred_arrival_order(int p, const double *offset, int *order);

#endif /* RABRED_TOOLKIT_H */
