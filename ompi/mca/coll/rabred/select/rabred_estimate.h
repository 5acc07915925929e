/*
 * Online arrival estimation and the arrival-aware choice (Proficz 2018, done
 * without the paper's edge() call and helper thread).
 *
 * What is estimated: each rank's arrival offset, how much later than the
 * earliest rank it enters a call.  How, with no change to the application
 * and no clock synchronisation: an allreduce ends at nearly the same moment
 * on every rank (the last messages reach everyone within one message
 * time), so the time a rank spends between leaving one call and entering
 * the next (its "gap", measured with its own clock) differs from the other
 * ranks' gaps by exactly how late it arrives, up to that exit skew.  Clock
 * offsets and drift cancel because each gap is a difference of two
 * readings of one clock.  After each estimated call the ranks exchange
 * their gaps (an allreduce of p doubles with MAX, lg p small messages;
 * the component does it, this file only does the arithmetic), so every rank
 * folds the same vector into the same smoothed estimate and builds the
 * same plans: the estimate must be bitwise identical everywhere, or the
 * ranks would sort each other differently and deadlock.
 *
 * Smoothing: exponential, offset = (1 - w) offset + w gap_offset, so a
 * steady pattern (one rank always late: a slower node, I/O on rank 0) is
 * learned in a few calls and a random one averages out to "balanced",
 * where the balanced algorithms are right.  What plans and the choice act
 * on (`acting`) is the least of that and the rank's lateness in the last
 * two calls: one late call alone never counts (see rabred_estimate_t).
 *
 * The choice: the arrival-aware algorithms (table entries with
 * arrival_aware set) are priced with the simulator under the component's
 * cost model and the estimated offsets, against the balanced choice under
 * the same offsets, by the average elapsed time over ranks (Proficz's (2018)
 * metric, plus the structural terms of rabred_model_extras of the rank
 * that arrives last: its rounds are not hidden by waiting); one wins only when it saves at
 * least min_gain (a fraction) of the call's balanced price (the saving cannot exceed what the call costs,
 * however late a rank is, so a fraction of the elapsed time, which is
 * mostly waiting, would never be reached for long delays).  When the
 * spread of the offsets is below min_gain times the balanced call's own
 * predicted time, no algorithm can gain that much, and nothing is
 * simulated: that keeps balanced calls cheap.  Simulating costs O(p^2)
 * messages for these O(p)-round algorithms, so it is done only up to
 * RABRED_ESTIMATE_MAX_P ranks, and the component reuses a pick for a few
 * calls of the same shape while the spread stays large enough
 * (coll_rabred_arrival.c).
 *
 * Pure C, no MPI: unit-tested in test/unit/test_estimate.c.
 */
#ifndef RABRED_ESTIMATE_H
#define RABRED_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "select/rabred_model.h"
#include "algorithms/rabred_table.h"

/* Above this size the arrival-aware choice is not simulated (about a
 * millisecond per algorithm at 64 ranks). */
#define RABRED_ESTIMATE_MAX_P 64

typedef struct {
    int p;
    int calls;      /* gap vectors folded in */
    double *offset; /* p smoothed offsets, seconds, the smallest is 0 */
    double *last;   /* p: how late each rank was in the last call folded in */
    /* p: what plans and the choice use: per rank the least of its smoothed
     * offset and its lateness in the last two calls, the smallest at 0.  A
     * rank counts as late only once it was late twice in a row: the first
     * gap on a communicator, or one after a pause, spans whatever the
     * program did in between (measured: a 1.5 s "late" rank on the first
     * estimated call made auto switch for two calls and lose 17%), and a
     * one-off cannot be exploited by the next call anyway.  Less the
     * arrivals' noise (below): a plan is made for the next call, and only
     * lateness that recurs above the noise is there to be planned for. */
    double *acting;
    /* How much a typical rank's lateness moves from call to call, seconds:
     * the median over ranks of |lateness in this call - smoothed offset|,
     * smoothed as the offsets are.  Ranks that share cores, or a noisy
     * machine, arrive up to several scheduler slices apart in a random
     * order: at p = 16 on 2 cores, 64 KiB, ranks looked 1-13 ms late in
     * turn, each acting offset the same noise twice, and the arrival-aware
     * plans built for that order took 2.5x the balanced plan
     * (bench/results/pace-20261206).  The median ignores the few ranks
     * that are really late, or turn late. */
    double noise;
    double *dev;    /* p doubles of scratch for the median */
    /* 2p doubles, exchanged by the component: this call's gaps, then each
     * rank's measured cost of its previous exchange (rabred_estimate_note_cost) */
    double *gaps;
    double *tmp;    /* 2p doubles of scratch for that exchange */
    int period;     /* calls from one exchange to the next (0 counts as 1) */
    int skip;       /* calls still to go without an exchange */
    int looking;    /* the next exchange looks again at a rank late once */
    double cost;    /* an exchange's measured cost in calls (rabred_estimate_note_cost) */
    /* p: the acting offsets of the current epoch (rabred_estimate_epoch):
     * what the cached pick and arrival-aware plan were made for */
    double *basis;
    int epoch;
    /* the epoch whose simulated choice found no arrival-aware plan that
     * saves min_gain (rabred_estimate_note_choice); -1: none */
    int futile_epoch;
} rabred_estimate_t;

/* RABRED_OK or RABRED_ERR_NOMEM / RABRED_ERR_ARG (p < 1). */
int rabred_estimate_init(rabred_estimate_t *e, int p);
void rabred_estimate_fini(rabred_estimate_t *e);

/* An acting offset is a rank's lateness less this many times the noise:
 * the median of |deviation| of normal noise is 0.67 of its standard
 * deviation, so this keeps lateness above about two standard deviations
 * of the noise, which random arrivals exceed in one rank of 40 per call
 * (twice in a row, in one of 1600). */
#define RABRED_ESTIMATE_NOISE_MEDIANS 3.0

/* Fold one call's gap vector (seconds; the same on every rank) with
 * weight w in (0, 1]; w outside it is taken as 1.  A gap that is negative
 * or not a number counts as 0 (a clock step backwards must not make a rank
 * look early forever). */
void rabred_estimate_update(rabred_estimate_t *e, const double *gaps, double w);

/* The offsets as plans and the simulator take them: per element of
 * type_size bytes, one-way costs (the arrival-aware algorithms send one
 * way). */
rabred_arrival_t rabred_estimate_arrival(const rabred_estimate_t *e, const rabred_model_t *model,
                                         size_t type_size);

/* max - min of the acting offsets (0 before two updates). */
double rabred_estimate_spread(const rabred_estimate_t *e);

/* Estimation may cost at most this fraction of a call's balanced price.
 * Issue 6 allows auto 2% against the best balanced algorithm on balanced
 * calls; half of that goes to the exchange, the rest is left for noise. */
#define RABRED_ESTIMATE_MAX_OVERHEAD 0.01

/* The model's price of the gap exchange after an estimated call: an
 * allreduce of p doubles by recursive doubling, ceil(lg p) exchanges of 8p
 * bytes, two more one-way messages when p is not a power of two. */
double rabred_estimate_exchange_price(int p, const rabred_model_t *model);

/* Is estimating a call whose balanced price is `balanced_price` seconds
 * worth the exchange?  Yes when the exchange costs at most
 * RABRED_ESTIMATE_MAX_OVERHEAD of it, or when the price is unknown (<= 0:
 * a forced algorithm, no price book), where coll_rabred_arrival_min_bytes
 * alone decides.  coll_rabred_arrival_min_bytes (64 KiB) was set on a
 * 100 Mbit/s network, where the exchange is 0.1-0.6% of a 64 KiB call; on
 * a network with 100x the bandwidth the same exchange would be a fifth of
 * it, and this test keeps such calls out once the model is calibrated
 * there.  The same on every rank: the model and the price book are. */
int rabred_estimate_pays(int p, const rabred_model_t *model, double balanced_price);

/* Pacing the exchange.  While every rank arrives on time, an exchange per
 * call buys nothing but its cost (measured: auto 2-3% behind the same plan
 * without estimation at p = 6 and 8, 64 KiB, on the emulated cluster; see
 * README).  So each exchange that finds the arrivals balanced (neither the
 * acting offsets nor the last call's lateness could save min_gain of the
 * call) doubles the number of calls until the next one, up to
 * RABRED_ESTIMATE_MAX_PERIOD, or further when the exchange measured costly
 * (rabred_estimate_longest_period).  One that finds a rank late for the
 * first time exchanges again at the next call, to see whether it stays
 * late, and keeps the period for after (a descheduled rank looks late by a
 * few ms: with 9 ranks on 2 cores, restarting the doubling at every such
 * blip ran the exchange after 592 of 777 calls of 64 KiB, 6.9% of auto's
 * time, bench/results/estimate-cost-20261125).  Only one look again per
 * blip: when it finds another rank late once instead (9 ranks on 2 cores
 * blip often; chains of look-agains still ran the exchange after 313 of
 * 959 such calls, estimate-cost2-20261125), the period resumes.  One that
 * finds a rank late twice in a row brings it back to
 * every call, while acting on it may pay (rabred_estimate_pace).  Skipped calls run the balanced choice.  Nothing is lost in
 * between: a gap runs from the last exchanged call's exit, and since calls
 * end together on every rank, the gaps still differ by exactly this call's
 * arrival offsets.  A rank that turns late is seen within one period
 * and acted on at the exchange after
 * (the twice-in-a-row rule).  Every rank counts the same calls and holds
 * the same estimate, so all skip the same calls. */
#define RABRED_ESTIMATE_MAX_PERIOD 8

/* What an exchange really costs.  Its messages are cheap (the model prices
 * them; rabred_estimate_pays), but a rank also waits in it for the last
 * rank to leave the call, which no price knows: the ranks leave a 4 MiB
 * allreduce on the emulated cluster up to 130 ms apart, and over shared
 * memory, oversubscribed, the exchange took a third of a 256 KiB call
 * (coll_rabred_arrival_exchange_seconds; docs/imbalanced-arrival.md, "Pacing the exchange").
 * So each rank measures its exchange against its call (seconds in the
 * exchange / seconds in the call before it) and sends that ratio with its
 * next gap; every rank then holds the same mean over ranks in e->cost
 * (costs: p ratios; not finite or negative counts as 0). */
void rabred_estimate_note_cost(rabred_estimate_t *e, const double *costs);

/* The longest period the pacing may reach: RABRED_ESTIMATE_MAX_PERIOD, or,
 * while an exchange measured at e->cost calls would cost more than
 * RABRED_ESTIMATE_MAX_OVERHEAD of the calls at that period, the next power
 * of two, up to RABRED_ESTIMATE_COSTLY_PERIOD (a rank that turns late is
 * then seen up to that many calls later). */
#define RABRED_ESTIMATE_COSTLY_PERIOD 64
int rabred_estimate_longest_period(const rabred_estimate_t *e);

/* Does this call exchange its gap?  Counts a skipped call down. */
int rabred_estimate_due(rabred_estimate_t *e);

/* After an exchange (rabred_estimate_update): set the period as above for
 * a call whose balanced price is `balanced_price` seconds.  A late rank
 * brings the exchange back to every call only while acting on it may pay:
 * once the choice simulated under the acting offsets found no plan that
 * saves min_gain (rabred_estimate_note_choice), and the offsets have not
 * left that epoch since, the period doubles as for balanced arrivals.
 * Ranks that share cores look late by a few scheduler slices all the
 * time: at p = 16 on 2 cores, 64 KiB, the exchange after every call cost
 * 13% of auto's time while no arrival-aware plan paid
 * (bench/results/model-cluster-20261206).  A rank that turns later than
 * that moves the offsets out of the epoch and is followed every call
 * again.  A call whose
 * price is unknown (<= 0: a forced or rule-chosen arrival-aware algorithm,
 * or no price book) cannot tell balanced from late, so it leaves the
 * period and the calls still to skip as they were: a fresh estimate then
 * exchanges on every call, as before pacing, and a forced call between
 * auto's calls does not undo auto's pacing.  (It did: in bench/'s
 * interleaved runs every auto call exchanged, and the exchange, which
 * makes every rank wait for the last one to finish, cost auto 4-12% of
 * the average elapsed time against the same plan forced at p = 3,
 * 256 KiB-4 MiB; bench/results/full3-partial-20261122.) */
void rabred_estimate_pace(rabred_estimate_t *e, double balanced_price, double min_gain);

/* Could any arrival-aware plan save min_gain of a call whose balanced
 * price is `balanced_price` seconds?  Not while the spread is below that:
 * the saving cannot exceed how late the latest rank is.  The choice below
 * and the component's reuse of an earlier pick both ask this. */
int rabred_estimate_may_gain(const rabred_estimate_t *e, double balanced_price, double min_gain);

/* An application's hint about arrivals on a communicator (the MPI info
 * key "rabred_arrival", docs/imbalanced-arrival.md), for when it knows
 * better than any estimate: rank 0 writes a checkpoint before every step,
 * or the arrivals are random and estimating is wasted. */
typedef enum {
    RABRED_HINT_AUTO, /* "auto": learn the offsets online (the default) */
    RABRED_HINT_OFF,  /* "off": no estimation, balanced algorithms only */
    RABRED_HINT_LATE, /* "late:R=S,...": these offsets, nothing learned */
    RABRED_HINT_BAD   /* anything else */
} rabred_hint_t;

/* Parse a hint for p ranks.  "late:R=S[,R=S...]" says rank R arrives S
 * seconds after the earliest rank (S finite, >= 0; ranks not named at 0);
 * offsets (p doubles) receives them, and is zeroed for the other kinds;
 * NULL offsets: only validate.
 * BAD: an unknown word, a rank outside 0..p-1 or named twice, a number
 * that does not parse or is negative, NaN or infinite, trailing text. */
rabred_hint_t rabred_hint_parse(const char *text, int p, double *offsets);

/* The epoch of the acting offsets: a new one starts when some offset has
 * moved more than `tolerance` seconds from the basis (the offsets when the
 * epoch began).  A pick or plan made in this epoch stays good: a plan's
 * predicted elapsed time moves by at most how far the arrivals moved
 * (completion times are maxima of arrival plus work, so ranks later by at
 * most d delay everything by at most d), so the pick and every alternative
 * move by at most the tolerance each, and the pick stays within twice the
 * tolerance of the best.  Drift is measured from
 * the basis, never step by step, so slow drift also starts an epoch once
 * it adds up.  Every rank holds the same offsets and tolerance, so every
 * rank starts the same epochs. */
int rabred_estimate_epoch(rabred_estimate_t *e, double tolerance);

/* What the choice under the current epoch's offsets found: `found` 1 when
 * an arrival-aware plan saves min_gain, 0 when none does (the pacing then
 * backs off while the offsets stay in the epoch; rabred_estimate_pace). */
void rabred_estimate_note_choice(rabred_estimate_t *e, int found);

/* Forget everything learned or assumed: offsets 0, no calls folded in. */
void rabred_estimate_reset(rabred_estimate_t *e);

/* Make e hold `offsets` (e->p doubles; NaN, infinite or negative count as
 * 0) as if it had learned them from two calls in a row, so that plans and
 * the choice act on them at once. */
void rabred_estimate_assume(rabred_estimate_t *e, const double *offsets);

typedef struct {
    const rabred_alg_t *alg; /* the winner, or NULL: keep the balanced choice */
    double balanced_s;       /* predicted average elapsed time of the balanced choice */
    double best_s;           /* of the best arrival-aware one (< 0: none simulated) */
    const rabred_alg_t *best; /* which, even when it did not win */
} rabred_arrival_pick_t;

/* Price the arrival-aware allreduce algorithms that may serve `call`
 * against `balanced` (the decision's choice) under `model` (bytes as in
 * rabred_model_t; type_size converts to elements) and e's offsets.
 * `balanced_price` is the price book's time for the call (seconds), the
 * yardstick of the spread test.  Returns RABRED_OK, or an error of the
 * simulator (then pick->alg is NULL). */
int rabred_estimate_choose(const rabred_estimate_t *e, const rabred_call_t *call,
                           size_t type_size, const rabred_model_t *model,
                           const rabred_alg_t *balanced, double balanced_price,
                           int64_t seg_count, double min_gain, rabred_arrival_pick_t *pick);

#endif /* RABRED_ESTIMATE_H */
