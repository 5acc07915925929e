/*
 * allreduce: pre-reduced scatter, for one rank that arrives late.
 *
 * Seed 004 (sec. 2) bounds what any arrival-aware allreduce can save when
 * one rank is late: the mean elapsed time cannot drop below the delay plus
 * delta, the time to move the vector once between two ranks, while the
 * ring pays the delay plus Delta, its whole balanced time.  The pre-reduced
 * ring recovers only a small part of Delta - delta on a bandwidth-bound
 * network: the late rank still runs 2 (p-1) ring steps after it arrives.
 * This plan goes for the bound instead.  The late rank sends its vector out
 * once and receives the result once, both at full link speed and at the same
 * time (full duplex), and everything the early ranks can do without it they
 * do before it arrives.
 *
 * Steps (q = p - 1 early ranks, the vector cut into q blocks, block i owned
 * by early rank e_i; each block cut into m pieces)
 *  1. L, the latest rank by the arrival offsets (rabred_arrival_order's last
 *     position; without offsets rank p-1), and e_0..e_{q-1}, the others in
 *     arrival order;
 *  2. while L is away: the early ranks run a neighbour-ring reduce-scatter
 *     among themselves, q-1 steps, after which e_i holds block i summed over
 *     the early ranks;
 *  3. m + 1 pipelined rounds once L is there: in round k, L sends piece k of
 *     every block i to its owner e_i, and e_i adds it into its block (piece
 *     k is then final); e_i sends final piece k-1 of its block to every
 *     other rank, L included, and receives final piece k-1 of every other
 *     block.  After round m everyone holds the whole result.  A round is
 *     an all-to-all: p-1 pairwise sub-steps (send to x+d, receive from
 *     x-d at position x), joined into one group that the executor posts at
 *     once while a rank's share of a round is small enough
 *     (RABRED_PRS_JOIN_ELEMENTS; larger rounds run the sub-steps in
 *     order).  On the emulated cluster (one rank 50 ms late, 1 MiB)
 *     posting each round at once took 207 / 226 ms at p = 6 / 8,
 *     against 223 / 249 for the sub-steps one after another
 *     (bench/results/prs-rounds-20261122): no lock-step wait for the slowest rank of each
 *     sub-step, and TCP shares the links.  The simulator runs the sub-steps
 *     in order, a schedule every port agrees on, taking the ports' total
 *     busy time, what fair sharing takes too; its first-come-first-served
 *     ports would price a round posted at once about 1.8x higher (p = 7).
 *
 * Cost (ranks equal in speed; n elements; alpha, beta, gamma per element)
 *   step 2: (q-1) alpha + (1 - 1/q) n (beta + gamma);
 *   step 3: each round moves q pieces of n/(q m) through every rank's
 *   outgoing and incoming port: (m+1) (q alpha + n beta / m), plus
 *   n gamma / q for the owners' reductions (those of the last sub-steps
 *   show: the simulator's numbers are in test_plans).
 * Balanced total about (2 - 1/q + 1/m) n beta: a little above the ring's
 * 2 (1 - 1/p) n beta, so the balanced decision never wants it.  With L
 * late by D >= step 2's time, the early ranks finish D + (1 + 1/m) n beta
 * (+ alphas) after arriving and L (1 + 1/m) n beta after it: against the
 * ring's D + 2 (1 - 1/p) n beta, close to Proficz's (2018) bound.
 * m: a segment size given (seg_count) sets the piece length; otherwise m
 * minimises step 3's (m+1) (q alpha + n beta / m) under args->arrival's
 * model (about sqrt(n beta / (q alpha))); with no model m = 8; always
 * within 1..RABRED_PRS_MAX_PIECES.
 *
 * Limitations: commutative ops only (L's part is added last).  Each piece
 * is reduced once, by its owner, and copied to the others: every rank gets
 * the same bits.  One late rank: with several, the early ranks' step 2
 * waits for the latest of them (the auto choice simulates that and picks
 * another plan when this one does not pay).  The offsets must be the same
 * on every rank: they choose L.
 *
 * Memory per process: TMP of count elements (one block used); p ints while
 * the plan is built.  Plan: q + (m+1) (p-1) rounds of up to 2 transfers.
 */
#include <stdlib.h>

#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

/* At most 8 pieces: each piece costs p-1 rounds, and a round costs more
 * than the model's alpha (a ping-pong's) on a loaded node.  Measured on the
 * emulated cluster (p = 8, 1 MiB, one rank 50 ms late, mean elapsed):
 * m = 2: 287 ms, 3: 262, 5: 236, 10: 234, 19: 243, 32: 251; the pipeline
 * loses 1/m of n beta, 12% at 8. */
#define RABRED_PRS_MAX_PIECES 8
#define RABRED_PRS_DEFAULT_PIECES 8

/* A round's sub-steps are posted at once only while a rank's share of the
 * round, n/m elements, is at most this (256 KiB of doubles).  Measured
 * (one rank 50 ms late, p = 6 and 8): at 1 MiB (128 KiB per round) at
 * once took 0.87-0.93x the pairwise order; at 4 MiB (512 KiB per round)
 * 1.2-1.3x (bench/results/arrival8-20261122 against arrival4), the link
 * queues overflowing with p-1 large messages at a time.  Counted in
 * elements: plans do not know the type's size. */
#define RABRED_PRS_JOIN_ELEMENTS ((int64_t)32768)

/* The blocks and pieces of step 3. */
typedef struct {
    int q, m;
    int64_t count;
} prs_cut_t;

static int64_t block_off(const prs_cut_t *c, int i)
{
    return rabred_block_offset(c->count, c->q, i);
}

static int64_t piece_off(const prs_cut_t *c, int i, int k)
{
    int64_t len = rabred_block_length(c->count, c->q, i);
    return block_off(c, i) + rabred_block_offset(len, c->m, k);
}

static int64_t piece_len(const prs_cut_t *c, int i, int k)
{
    return rabred_block_length(rabred_block_length(c->count, c->q, i), c->m, k);
}

/* Step 3's time with m pieces per block under the model (see the header). */
static double pieced_time(int m, int q, int64_t count, double alpha, double beta)
{
    return (m + 1) * (q * alpha + (double)count * beta / m);
}

/* Pieces per block: from the segment size, else the m that the model
 * prices lowest (alpha = 0 gives the most pieces), else a default. */
static int pieces(const rabred_plan_args_t *a, int q)
{
    if (a->seg_count > 0) {
        int64_t block = rabred_block_length(a->count, q, 0); /* block 0 is the largest */
        int64_t m = (block + a->seg_count - 1) / a->seg_count;
        return m < 1 ? 1 : m > RABRED_PRS_MAX_PIECES ? RABRED_PRS_MAX_PIECES : (int)m;
    }
    if (NULL == a->arrival || NULL == a->arrival->offset) {
        return RABRED_PRS_DEFAULT_PIECES; /* no offsets: as if no arrival given at all */
    }
    double alpha = rabred_arrival_clean(a->arrival->alpha);
    double beta = rabred_arrival_clean(a->arrival->beta);
    int best = 1;
    for (int m = 2; m <= RABRED_PRS_MAX_PIECES; m++) {
        if (pieced_time(m, q, a->count, alpha, beta) <=
            pieced_time(best, q, a->count, alpha, beta)) {
            best = m;
        }
    }
    return best;
}

/* Step 2 at early position e of q (ring[] maps positions to ranks): the
 * neighbour ring's reduce-scatter; at step s position e sends block
 * e-s-1 to e+1 and adds block e-s-2 from e-1, ending with block e. */
static void early_reduce_scatter(rabred_plan_t *plan, const prs_cut_t *c, const int *ring, int e)
{
    int q = c->q, next = ring[(e + 1) % q], prev = ring[(e + q - 1) % q];
    for (int s = 0; s + 1 < q; s++) {
        int out = ((e - s - 1) % q + q) % q, in = ((e - s - 2) % q + 2 * q) % q;
        int64_t in_len = rabred_block_length(c->count, q, in);
        rabred_plan_round(plan);
        rabred_plan_recv(plan, prev, RABRED_BUF_TMP, block_off(c, in), in_len);
        rabred_plan_send(plan, next, RABRED_BUF_ACC, block_off(c, out),
                         rabred_block_length(c->count, q, out));
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, block_off(c, in), in_len, 1);
    }
}

/* Step 3 at position x (0..q-1 early, q the late rank), round k, sub-step
 * d: send to x+d, receive from x-d (mod p).  The late rank sends its piece
 * k of the receiver's block; an early rank sends its final piece k-1; the
 * owner adds the late rank's piece into its block.  The sub-steps of a
 * round are joined (rabred_plan_round_joined): the executor posts them at
 * once, the simulator runs them in this pairwise order. */
static void exchange_step(rabred_plan_t *plan, const prs_cut_t *c, const int *ring, int x, int k,
                          int d)
{
    int q = c->q, p = q + 1, to = (x + d) % p, from = (x + p - d) % p;
    if (1 == d || c->count / c->m > RABRED_PRS_JOIN_ELEMENTS) {
        rabred_plan_round(plan);
    } else {
        rabred_plan_round_joined(plan);
    }
    if (from == q && k < c->m) {
        rabred_plan_recv(plan, ring[q], RABRED_BUF_TMP, piece_off(c, x, k), piece_len(c, x, k));
    } else if (from != q && k > 0) {
        rabred_plan_recv(plan, ring[from], RABRED_BUF_ACC, piece_off(c, from, k - 1),
                         piece_len(c, from, k - 1));
    }
    if (x == q && k < c->m) {
        rabred_plan_send(plan, ring[to], RABRED_BUF_INPUT, piece_off(c, to, k),
                         piece_len(c, to, k));
    } else if (x != q && k > 0) {
        rabred_plan_send(plan, ring[to], RABRED_BUF_ACC, piece_off(c, x, k - 1),
                         piece_len(c, x, k - 1));
    }
    if (from == q && k < c->m) {
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, piece_off(c, x, k),
                           piece_len(c, x, k), 1);
    }
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int p = a->p;
    if (p < 2) {
        rabred_phase_copy_in(plan, a->count);
        return plan->error;
    }
    int *ring = malloc((size_t)p * sizeof(int));
    if (NULL == ring) {
        return RABRED_ERR_NOMEM;
    }
    const double *offset = NULL != a->arrival ? a->arrival->offset : NULL;
    rabred_arrival_order(p, offset, ring); /* ring[0..q-1]: early; ring[q]: late */
    prs_cut_t cut = {p - 1, pieces(a, p - 1), a->count};
    int x = 0;
    while (ring[x] != a->rank) {
        x++;
    }
    if (x < cut.q) {
        rabred_phase_copy_in(plan, a->count);
        early_reduce_scatter(plan, &cut, ring, x);
    }
    for (int k = 0; k <= cut.m; k++) {
        for (int d = 1; d < p; d++) {
            exchange_step(plan, &cut, ring, x, k, d);
        }
    }
    free(ring);
    return plan->error;
}

const rabred_alg_t rabred_alg_allreduce_prereduced_scatter = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 11,
    .name = "prereduced_scatter",
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .arrival_aware = 1,
    .segmented = 1,
    .description = "pre-reduced scatter: while the latest rank is away the others reduce-scatter "
                   "among themselves; then it sends each its part once and gets the result back, "
                   "pipelined, near Proficz's (2018) bound for one late rank; for imbalanced arrival, "
                   "never chosen by the balanced decision",
    .formula = "early ranks: (p-2) alpha + (1 - 1/(p-1)) n (beta + gamma), then, with m pieces "
               "per block: (m+1) ((p-1) alpha + n beta / m) + n gamma / (p-1)",
    .tuned_ids = {0},
};
