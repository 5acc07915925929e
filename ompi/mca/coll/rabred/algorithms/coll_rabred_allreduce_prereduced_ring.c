/*
 * allreduce: pre-reduced ring (Proficz 2018, sec. 4.2, Figs. 7
 * and 8): the neighbour ring with the ranks in arrival order, plus
 * "pre-steps" that let the early ranks start reducing segments before the
 * late ones arrive.
 *
 * Steps
 *  1. sort the ranks by arrival offset, earliest first, ties by rank
 *     (rabred_arrival_order); position q of the ring is the q-th arrival,
 *     a_q its offset, and messages go from position q to q+1 (mod p);
 *  2. cut the vector into p segments (the toolkit's blocks of p) and price
 *     one ring step, moving and reducing the largest segment:
 *     tau = alpha + ceil(n/p) (beta + gamma), from args->arrival;
 *  3. pre-steps (Fig. 7, lines 1-6): k_{p-1} = 0 and, from q = p-2 down to
 *     0, position q gets one pre-step more than position q+1 when q+1
 *     arrives early enough to take that many segments before the last rank
 *     arrives, a_{p-1} - a_{q+1} >= (k_{q+1} + 1) tau, else as many;
 *  4. where segments start (Fig. 7, lines 7-13): segment j starts at the
 *     first position q with q + k_q >= j.  Without pre-steps that is
 *     position j, the plain ring; with them the early ranks start more
 *     segments, so the latest rank reduces them last instead of waiting
 *     at the head of their chains;
 *  5. keep the pre-steps only if they pay: rabred_chains_mean_elapsed
 *     times both schedules under the same model and offsets (exactly as
 *     the simulator would, for f_alpha = f_beta = 1), and the plain ring in
 *     arrival order is used unless the pre-steps give a lower mean elapsed
 *     time.  Step 3's rule counts every step as tau; when segments differ
 *     in size (count not a multiple of p, empty ones below p) it can start
 *     too many segments on one chain and lose to the plain ring (1.5% of
 *     one-late-rank patterns with p <= 10, count <= 2p did, by up to 9%
 *     in mean elapsed time): this check lets test_arrival assert "never
 *     slower";
 *  6. rabred_phase_segment_chains: each segment's partial sum travels
 *     around the ring from its start (p-1 hops, each adding a part), then
 *     its result once more around (p-1 hops).  Pre-steps are the hops
 *     that the plain ring would not have started yet: its step schedule
 *     puts them before the ring's first step.
 * Seed 004's pseudo-code (Fig. 7) has slips that this file does not copy:
 * the loop of lines 7-13 advances the start position by one where it may
 * have to advance by several (we take the first q with q + k_q >= j, which
 * is what its test means), the send test of line 19 names the wrong rank (a
 * partial sum must reach its last reducer rp = start - 1, which then sends
 * the result), and its loops visit the segments in an order in which the
 * two ends of a link need not agree.  We follow the text of sec. 4.2: the
 * same p (2p - 2) messages as the ring, the early ranks sending more.
 *
 * Cost, balanced arrival (or none given): no pre-steps, the neighbour ring:
 *   2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma,
 * the same time as coll_rabred_allreduce_pairwise_ring.c (test_arrival: equal for
 * p = 2..64), whose reduce-scatter is the pairwise exchange instead: with
 * f_alpha, f_beta != 1 and even p the two differ by that exchange's one
 * two-way step, as segmented_ring with one segment does.
 * Imbalanced: no ring can finish before a_{p-1} + 2 (p-1) tau when the last
 * rank is late enough (it sends at least p segments after arriving and the
 * last one still has p-2 hops to go), and the plain ring already does; what
 * the pre-steps cut is the ranks' mean elapsed time (finish - arrival, seed
 * 004's measure: Tables 3-4, up to 15% below the ring), because the early
 * ranks' work is done sooner.  test_arrival: 9% lower on average when one
 * rank is late, never higher.
 *
 * Limitations: commutative ops only (a segment combines the ranks in ring
 * order from its start).  Every segment is reduced once and copied, so all
 * ranks get the same bits.  The offsets and the model must be the same on
 * every rank: the pre-steps decide who talks to whom.  Not priced by the
 * balanced cost model (arrival_aware in the table).  With offsets, step 5
 * costs O(p^2) time per build (both schedules timed for every position).
 *
 * Memory per process: TMP of count elements (one segment used at a time);
 * while the plan is built, 3p ints and, with offsets, p clocks.
 */
#include <math.h>
#include <stdlib.h>

#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

/* tau, seconds to move and reduce the largest segment; 0 when the model
 * gives no usable number (then no pre-steps: nothing says they would pay). */
static double segment_time(const rabred_arrival_t *arr, int p, int64_t count)
{
    double seg = (double)rabred_block_length(count, p, 0); /* block 0 is the largest */
    double tau = rabred_arrival_clean(arr->alpha) +
                 seg * (rabred_arrival_clean(arr->beta) + rabred_arrival_clean(arr->gamma));
    return isfinite(tau) ? tau : 0.0;
}

/* Step 3: k[q], the pre-steps of position q (ring[q] the q-th arrival). */
static void pre_steps(int p, const int *ring, const rabred_arrival_t *arr, double tau, int *k)
{
    k[p - 1] = 0;
    double last = rabred_arrival_clean(arr->offset[ring[p - 1]]);
    for (int q = p - 2; q >= 0; q--) {
        double next = rabred_arrival_clean(arr->offset[ring[q + 1]]);
        k[q] = k[q + 1] + (tau > 0.0 && last - next >= (k[q + 1] + 1) * tau);
    }
}

/* Step 4: start[j] = the first q with q + k[q] >= j.  q + k[q] never
 * decreases with q (k[q] <= k[q+1] + 1) and is p-1 at q = p-1, so one pass
 * finds them all. */
static void chain_starts(int p, const int *k, int *start)
{
    int q = 0;
    for (int j = 0; j < p; j++) {
        while (q + k[q] < j) {
            q++;
        }
        start[j] = q;
    }
}

/* Step 5: keep the pre-steps only if the model says they pay: the mean
 * elapsed time of the plans with them must be below that of the plain ring
 * in the same (arrival) order.  Writes the chosen starts into start[];
 * RABRED_OK or RABRED_ERR_NOMEM.  Strictly below: a tie keeps the ring. */
static int choose_starts(int p, const int *ring, const int *k, const rabred_arrival_t *arr,
                         int64_t count, int *start)
{
    int any = 0;
    for (int q = 0; q < p; q++) {
        any |= k[q] > 0;
        start[q] = q; /* the plain ring */
    }
    if (!any) {
        return RABRED_OK;
    }
    double plain = rabred_chains_mean_elapsed(p, ring, start, count, arr);
    chain_starts(p, k, start);
    double pre = rabred_chains_mean_elapsed(p, ring, start, count, arr);
    if (plain < 0.0 || pre < 0.0) {
        return RABRED_ERR_NOMEM;
    }
    for (int q = 0; q < p && !(pre < plain); q++) {
        start[q] = q;
    }
    return RABRED_OK;
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int p = a->p, rc = RABRED_OK, *ring = malloc(3 * (size_t)p * sizeof(int));
    if (NULL == ring) {
        return RABRED_ERR_NOMEM;
    }
    int *start = ring + p, *k = ring + 2 * p;
    const rabred_arrival_t *arr = NULL != a->arrival && NULL != a->arrival->offset ? a->arrival
                                                                                   : NULL;
    rabred_arrival_order(p, NULL != arr ? arr->offset : NULL, ring);
    if (NULL != arr) {
        pre_steps(p, ring, arr, segment_time(arr, p, a->count), k);
        rc = choose_starts(p, ring, k, arr, a->count, start);
    } else {
        for (int q = 0; q < p; q++) {
            start[q] = q; /* arrivals unknown: the plain ring */
        }
    }
    if (RABRED_OK == rc) {
        rabred_phase_segment_chains(plan, p, ring, a->rank, start, a->count,
                                    !a->in_place && a->commutative);
    }
    free(ring);
    return RABRED_OK != rc ? rc : plan->error;
}

const rabred_alg_t rabred_alg_allreduce_prereduced_ring = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 10,
    .name = "prereduced_ring",
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .arrival_aware = 1,
    .description = "pre-reduced ring: neighbour ring in arrival order whose early ranks start "
                   "reducing segments before the late ones arrive (Proficz 2018 sec. 4.2); without "
                   "offsets the plain ring; for imbalanced arrival, never chosen by the balanced "
                   "decision",
    .formula = "balanced: 2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma (as ring)",
    .tuned_ids = {0},
};
