/*
 * allreduce: Bruck (reduce-scatter + allgather in ceil(lg p) rounds each, for
 * any p, without the power-of-two fold).  Seed 001 ("with an adaptation of
 * Bruck's algorithm", reduce-scatter + allgather); J. Bruck et al., "Efficient
 * algorithms for all-to-all communications in multiport message-passing
 * systems", IEEE TPDS 8(11), 1997; Thakur, Rabenseifner & Gropp, IJHPCA 2005.
 *
 * Convention: p blocks (rabred_block_offset/length(count, p, b)); rank r ends
 * the reduce-scatter with block r.  In the round of distance 2^k rank r sends
 * to (r - 2^k) mod p and receives from (r + 2^k) mod p, in both phases.
 * K = ceil(lg p), m_k = min(2^k, p - 2^k) blocks move in the round of 2^k.
 *
 * Steps
 *  1. copy the input into ACC;
 *  2. reduce-scatter, distance halving, k = K-1 .. 0: before the round rank r
 *     holds partial sums of the blocks r - d, d < min(2^(k+1), p); it sends
 *     the m_k blocks r - d, 2^k <= d < 2^k + m_k, and reduces the m_k blocks
 *     r - d, d < m_k, received from r + 2^k.  A contribution of rank j to
 *     block b travels down by (j - b) mod p, one binary digit per round, so
 *     it is added exactly once.  Only the first round (k = K-1) moves fewer
 *     than 2^k blocks when p is not a power of two;
 *  3. allgather (Bruck, the lecture notes on collective costs), distance doubling, k = 0 .. K-1: rank r
 *     holds the final blocks r + d, d < 2^k, sends the first m_k of them and
 *     receives the m_k blocks r + 2^k + d into place.  No final rotation:
 *     blocks live at their own offsets in every buffer.
 * Distance halving, not doubling, in step 2: with doubling the blocks a round
 * sends are every 2^(k+1)-th block (up to p/2 messages in a round); with
 * halving they are m_k consecutive blocks mod p, i.e. at most two runs.
 *
 * Cost (K = ceil(lg p), q = n div p, r = n mod p, in elements):
 *   beta  2 sum_k (m_k q + min(m_k, r)),  gamma  sum_k (m_k q + min(m_k, r)):
 *         each phase moves sum_k m_k = p - 1 blocks for any p, so for p | n
 *         exactly 2 (1 - 1/p) n beta + (1 - 1/p) n gamma, and at most
 *         (p - 1) elements per phase more otherwise;
 *   alpha 2 (K + W), W = #{1 <= k < K : m_k >= 2} = max(0, K - 1 -
 *         [p == 2^(K-1) + 1]).  ceil(lg p) rounds per phase, but a window
 *         that wraps past block p-1 is two messages (one per run), and in
 *         every round with m_k >= 2 some ranks have such a window: that round
 *         costs 2 alpha.  p = 2^K: (4 lg p - 2) alpha; p = 2, 3: 2 ceil(lg p).
 *   No block layout avoids the wrap: all p rotations of a cyclic window of
 *   1 < m < p blocks cannot all be intervals of one linear order.
 *
 * Limitations: commutative ops only (a block's partial sums combine ranks
 * b + d, b + d + 2^(k+1), ... : strided, not in rank order).  Every block is
 * reduced on one rank and then copied, so all ranks get the same bits.
 *
 * Memory per process: TMP of count elements, of which only the blocks
 * r - d, d < max_k m_k <= p/2, are ever used.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

/* The cyclic window of n blocks from block `first` (mod p) as runs of
 * consecutive blocks: [first, first + n) or [first, p) and [0, first + n - p).
 * Both ends of a message compute the same window, so they cut it the same way
 * and post the runs in the same order (MPI's non-overtaking rule pairs them). */
static int window_runs(int p, int first, int n, rabred_window_t run[2])
{
    run[0].first = first;
    run[0].nblocks = first + n <= p ? n : p - first;
    run[1].first = 0;
    run[1].nblocks = n - run[0].nblocks;
    return run[1].nblocks > 0 ? 2 : 1;
}

static void xfer_window(rabred_plan_t *plan, rabred_xfer_dir_t dir, int peer, rabred_buf_t buf,
                        int64_t count, int p, int first, int n)
{
    rabred_window_t run[2];
    int nruns = window_runs(p, first, n, run);
    for (int i = 0; i < nruns; i++) {
        int64_t off = rabred_window_offset(count, p, run[i]);
        int64_t len = rabred_window_length(count, p, run[i]);
        if (RABRED_XFER_SEND == dir) {
            rabred_plan_send(plan, peer, buf, off, len);
        } else {
            rabred_plan_recv(plan, peer, buf, off, len);
        }
    }
}

static void reduce_window(rabred_plan_t *plan, int64_t count, int p, int first, int n)
{
    rabred_window_t run[2];
    int nruns = window_runs(p, first, n, run);
    for (int i = 0; i < nruns; i++) {
        /* not rank-ordered anyway (commutative only): src_first as the ring */
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC,
                           rabred_window_offset(count, p, run[i]),
                           rabred_window_length(count, p, run[i]), 1);
    }
}

/* Step 2: reduce-scatter by distance halving; rank r ends with block r. */
static void bruck_reduce_scatter(rabred_plan_t *plan, int p, int r, int64_t count)
{
    for (int k = rabred_log2_ceil(p) - 1; k >= 0; k--) {
        int dist = 1 << k;
        int m = dist < p - dist ? dist : p - dist;
        /* give blocks r - dist - m + 1 .. r - dist, get r - m + 1 .. r */
        int give = ((r - dist - m + 1) % p + p) % p, get = ((r - m + 1) % p + p) % p;
        rabred_plan_round(plan);
        xfer_window(plan, RABRED_XFER_SEND, (r - dist + p) % p, RABRED_BUF_ACC, count, p, give, m);
        xfer_window(plan, RABRED_XFER_RECV, (r + dist) % p, RABRED_BUF_TMP, count, p, get, m);
        reduce_window(plan, count, p, get, m);
    }
}

/* Step 3: Bruck allgather by distance doubling; every block lands in place. */
static void bruck_allgather(rabred_plan_t *plan, int p, int r, int64_t count)
{
    int nsteps = rabred_log2_ceil(p);
    for (int k = 0; k < nsteps; k++) {
        int dist = 1 << k;
        int m = dist < p - dist ? dist : p - dist;
        rabred_plan_round(plan);
        xfer_window(plan, RABRED_XFER_SEND, (r - dist + p) % p, RABRED_BUF_ACC, count, p, r, m);
        xfer_window(plan, RABRED_XFER_RECV, (r + dist) % p, RABRED_BUF_ACC, count, p,
                    (r + dist) % p, m);
    }
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_phase_copy_in(plan, a->count);
    bruck_reduce_scatter(plan, a->p, a->rank, a->count);
    bruck_allgather(plan, a->p, a->rank, a->count);
    return plan->error;
}

/* The dearest cyclic window of w blocks on the wire, in seconds, for
 * messages of a + bytes b: blocks are q bytes, the first e of them q + 1
 * (rabred_block_length), and a window is one message per non-empty run.
 * Unwrapped, [0, w) is dearest: one message, the most long blocks.
 * Wrapped, [p-j, p) and [0, w-j) are two messages when the first run is
 * not empty (q > 0 or p - j < e) and hold max(0, e-p+j) + min(w-j, e) long
 * blocks, which never grows with j: the smallest such j is dearest. */
static double dearest_window(int p, int w, int64_t q, int64_t e, double a, double b)
{
    double best = a + (double)(w * q + (w < e ? w : e)) * b;
    int64_t j = q > 0 ? 1 : p - e + 1;
    if (j < w) {
        int64_t x = (e - p + j > 0 ? e - p + j : 0) + (w - j < e ? w - j : e);
        double wrapped = 2 * a + (double)(w * q + x) * b;
        best = wrapped > best ? wrapped : best;
    }
    return best;
}

/* A round of w blocks in either phase: one-way, except the round at
 * distance p/2 of a power-of-two p, where the peers to and from are one
 * rank.  There a window and its complement are exchanged; when every block
 * but the first e is empty (q = 0) and one half holds all e long blocks,
 * its partner sends nothing back and the message is one-way, while the
 * other pairs exchange at most e - 1 elements. */
static double round_time(const rabred_model_t *m, int p, int w, int64_t q, int64_t e)
{
    int exchange = 2 * w == p;
    double one_way = dearest_window(p, w, q, e, m->f_alpha * m->alpha, m->f_beta * m->beta);
    if (!exchange) {
        return one_way;
    }
    if (q > 0 || e > w) {
        return dearest_window(p, w, q, e, m->alpha, m->beta);
    }
    double split = e >= 2 ? rabred_price_exchange(m, (double)(e - 1)) : 0.0;
    return one_way > split ? one_way : split;
}

/* The sum over both phases' rounds of the dearest window, plus in the
 * reduce-scatter the reduction of the longest one.  A rank's round waits
 * for its peers at distance 2^k, so a path may move by 2^k in round k.
 * When p divides n all windows hold the same bytes and some path meets a
 * wrapped window (two messages) in every round of w >= 2 blocks: the
 * formula's 2 (K + W) alpha; the sum is then that path, exactly.
 * Otherwise the dearest windows of successive rounds need not lie on one
 * path, and the price is above the simulator's time by at most
 * sum_k min(w_k, n mod p) elements of 2 beta + gamma (test_prices_allreduce). */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    int p = c->p, lg = rabred_log2_ceil(p);
    int64_t q = c->bytes / p, e = c->bytes % p;
    double t = 0.0;
    if (0 == c->bytes) {
        return 0.0;
    }
    for (int k = 0; k < lg; k++) {
        int w = (1 << k) < p - (1 << k) ? 1 << k : p - (1 << k);
        double longest = (double)(w * q + (w < e ? w : e));
        t += 2 * round_time(m, p, w, q, e) + longest * m->gamma;
    }
    return t;
}

const rabred_alg_t rabred_alg_allreduce_bruck = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 7,
    .name = "bruck",
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .description = "Bruck: reduce-scatter by distance halving + Bruck allgather, ceil(lg p) rounds "
                   "each for any p without a fold (the lecture notes on collective costs); a wrapped window costs a second "
                   "message",
    .formula = "2 (K + W) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma, K = ceil(lg p), W = "
               "#{1 <= k < K : min(2^k, p - 2^k) >= 2}",
    .tuned_ids = {0},
    .price = price,
};
