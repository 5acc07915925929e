/*
 * Unit tests of the online arrival estimate and the arrival-aware choice
 * (rabred_estimate.h), no MPI.
 *
 * - the smoothing: the first vector is taken as is, later ones weighted;
 *   offsets are relative to the earliest rank; NaN, infinite and negative
 *   gaps count as 0; a bad weight counts as 1;
 * - learning: a rank that is always late by d is estimated within 1% of d
 *   after a few calls, and a random pattern averages out to a small spread;
 * - the choice, priced by the simulator under the default-like model:
 *   balanced offsets never switch (and simulate nothing); one rank late by
 *   much more than a segment's time switches to an arrival-aware algorithm
 *   whose simulated average elapsed time is lower by at least min_gain of
 *   the call's balanced price;
 *   non-commutative calls and p above RABRED_ESTIMATE_MAX_P never switch;
 *   where the measured table keeps every arrival-aware plan out (from
 *   p = 16 below 128 KiB) nothing switches and nothing is estimated;
 * - the gap exchange's price and the 1% rule for estimating a call at
 *   all (the cluster's model: every p up to 16 from 256 KiB; a fast
 *   network: not at 64 KiB, yes at 16 MiB);
 * - pacing the exchange: balanced exchanges space the next out (1, 2, 4,
 *   8 calls), a late rank brings it back to every call; an exchange
 *   measured costly spaces them up to 64 calls apart;
 * - the application's hint: what parses (auto, off, late:R=S,...) and
 *   what is rejected; assumed offsets act at once and make the choice
 *   switch like learned ones;
 * - determinism: two estimates fed the same vectors are bitwise equal, as
 *   the ranks' must be.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "select/rabred_estimate.h"
#include "select/rabred_select.h"
#include "rabred_test.h"
#include "rabred_test_nomem.h"

static const rabred_model_t MODEL = {.alpha = 1.07e-5, .beta = 1.67e-7, .gamma = 3.5e-11, .f_alpha = 0.69, .f_beta = 0.5};

static void test_update(void)
{
    rabred_estimate_t e;
    CHECK(RABRED_ERR_ARG == rabred_estimate_init(&e, 0), "p = 0 is refused");
    CHECK(RABRED_OK == rabred_estimate_init(&e, 4), "init");
    CHECK(0 == rabred_estimate_spread(&e), "no estimate yet: spread 0");
    double g1[4] = {0.010, 0.012, 0.030, 0.011};
    rabred_estimate_update(&e, g1, 0.5);
    CHECK(0 == e.offset[0] && fabs(e.offset[2] - 0.020) < 1e-15,
          "first vector as is, relative to the earliest: %g %g", e.offset[0], e.offset[2]);
    double g2[4] = {0.010, 0.010, 0.010, 0.010};
    rabred_estimate_update(&e, g2, 0.5);
    CHECK(fabs(e.offset[2] - 0.010) < 1e-15 && fabs(e.offset[1] - 0.001) < 1e-15,
          "halfway to a balanced call: %g %g", e.offset[2], e.offset[1]);
    double bad[4] = {NAN, -5.0, INFINITY, 0.002};
    rabred_estimate_update(&e, bad, 7.0); /* weight 7 counts as 1 */
    CHECK(0 == e.offset[0] && 0 == e.offset[1] && 0 == e.offset[2] &&
              fabs(e.offset[3] - 0.002) < 1e-15,
          "NaN, negative and infinite gaps count as 0, weight 7 as 1: %g %g %g %g", e.offset[0],
          e.offset[1], e.offset[2], e.offset[3]);
    CHECK(3 == e.calls, "three vectors folded: %d", e.calls);
    rabred_estimate_fini(&e);
}

/* A rank counts as late only once it was late in two calls in a row: a
 * one-off (the first gap on a communicator spans whatever ran before) must
 * not make auto switch. */
static void test_one_off(void)
{
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, 4), "init");
    double late[4] = {0.0, 1.5, 0.0, 0.0}, calm[4] = {0.0, 0.0, 0.0, 0.0};
    rabred_estimate_update(&e, late, 0.5);
    CHECK(0 == rabred_estimate_spread(&e) && fabs(e.offset[1] - 1.5) < 1e-15,
          "one late call: smoothed %g, acted on %g", e.offset[1], rabred_estimate_spread(&e));
    rabred_estimate_update(&e, calm, 0.5);
    CHECK(0 == rabred_estimate_spread(&e), "a one-off is never acted on: %g",
          rabred_estimate_spread(&e));
    rabred_estimate_update(&e, late, 0.5);
    rabred_estimate_update(&e, late, 0.5);
    CHECK(fabs(rabred_estimate_spread(&e) - e.offset[1]) < 1e-15 && e.offset[1] > 1.0,
          "late twice in a row: the smoothed %g is acted on (%g)", e.offset[1],
          rabred_estimate_spread(&e));
    rabred_estimate_fini(&e);
}

static void test_learning(void)
{
    rabred_estimate_t late, noise;
    CHECK(RABRED_OK == rabred_estimate_init(&late, 8) && RABRED_OK == rabred_estimate_init(&noise, 8),
          "init");
    uint64_t x = 12345;
    double sum = 0;
    for (int call = 0; call < 40; call++) {
        double g[8], r[8];
        for (int i = 0; i < 8; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            double u = (double)(x >> 11) / 9007199254740992.0;
            g[i] = 0.001 + 0.0001 * u + (5 == i ? 0.050 : 0); /* rank 5: 50 ms late */
            r[i] = 0.050 * u;                                 /* up to 50 ms at random */
        }
        rabred_estimate_update(&late, g, 0.5);
        rabred_estimate_update(&noise, r, 0.5);
        sum += call >= 10 ? rabred_estimate_spread(&noise) : 0;
    }
    CHECK(fabs(late.offset[5] - 0.050) < 0.0005, "a steady late rank is learned: %g",
          late.offset[5]);
    CHECK(0 == sum, "a random pattern is noise, never acted on: mean spread %g", sum / 30);
    CHECK(late.acting[5] > 0.049, "a steady late rank with 0.1 ms of noise is acted on: %g",
          late.acting[5]);
    rabred_estimate_fini(&late);
    rabred_estimate_fini(&noise);
}

/* A uniform random number in [0, 1) from the state x. */
static double uniform(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*x >> 11) / 9007199254740992.0;
}

/* Noise is not lateness: 16 ranks arriving 0-10 ms apart in a random order
 * each call (ranks sharing cores) are never acted on, however often a rank
 * is late twice in a row, nor looked at again by the pacing; one rank 50
 * ms late among them is, less the
 * noise; at p = 2 a rank that turns late is acted on within a few calls;
 * a reset forgets the noise. */
static void test_noise(void)
{
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, 16), "init");
    uint64_t x = 777;
    double g[16], most = 0, late_most = 0, others_most = 0;
    for (int call = 0; call < 40; call++) {
        for (int i = 0; i < 16; i++) {
            g[i] = 0.002 + 0.010 * uniform(&x);
        }
        rabred_estimate_update(&e, g, 0.5);
        most = call >= 2 && rabred_estimate_spread(&e) > most ? rabred_estimate_spread(&e) : most;
    }
    CHECK(most < 0.001, "0-10 ms of random arrivals: spread at most %g s", most);
    CHECK(e.noise > 0.001 && e.noise < 0.005, "their noise measured: %g s", e.noise);
    rabred_estimate_reset(&e);
    CHECK(0 == e.noise, "reset forgets the noise");
    int exchanges = 0;
    for (int call = 0; call < 200; call++) { /* the pacing under that noise */
        if (!rabred_estimate_due(&e)) {
            continue;
        }
        for (int i = 0; i < 16; i++) {
            g[i] = 0.002 + 0.010 * uniform(&x);
        }
        rabred_estimate_update(&e, g, 0.5);
        rabred_estimate_pace(&e, 0.01, 0.1); /* a rank counts from 1 ms */
        exchanges++;
    }
    /* every 8th call would be 25; a look again after each back-off, on the
     * last call's raw spread, made it 52 */
    CHECK(exchanges <= 45, "random 0-10 ms arrivals: %d gap exchanges in 200 calls, want at "
          "most 45 (no look again at noise)", exchanges);
    rabred_estimate_reset(&e);
    for (int call = 0; call < 20; call++) {
        for (int i = 0; i < 16; i++) {
            g[i] = 0.002 + 0.005 * uniform(&x) + (3 == i ? 0.050 : 0);
        }
        rabred_estimate_update(&e, g, 0.5);
        for (int i = 0; call >= 5 && i < 16; i++) {
            double *most_of = 3 == i ? &late_most : &others_most;
            *most_of = e.acting[i] > *most_of ? e.acting[i] : *most_of;
        }
        CHECK(call < 5 || e.acting[3] > 0.040, "call %d: rank 3, 50 ms late in 0-5 ms of noise, "
              "acted on at %g s", call, e.acting[3]);
    }
    CHECK(others_most < 0.001, "the others stay on time: at most %g s", others_most);
    rabred_estimate_fini(&e);
    CHECK(RABRED_OK == rabred_estimate_init(&e, 2), "init p = 2");
    double on_time[2] = {0.001, 0.001}, late[2] = {0.001, 0.101};
    rabred_estimate_update(&e, on_time, 0.5);
    rabred_estimate_update(&e, on_time, 0.5);
    int calls = 0;
    while (calls < 20 && !(e.acting[1] > 0.05)) {
        rabred_estimate_update(&e, late, 0.5);
        calls++;
    }
    CHECK(calls <= 4, "p = 2: a rank that turns 100 ms late is acted on after %d calls", calls);
    rabred_estimate_fini(&e);
}

static const rabred_alg_t *alg(const char *name)
{
    return rabred_table_by_name(RABRED_COLL_ALLREDUCE, name);
}

/* The choice for p ranks, rank `who` late by `late` seconds, count doubles. */
static double price_of(int p, int64_t count)
{
    return MODEL.alpha * 2 * (p - 1) + MODEL.beta * 8.0 * (double)count;
}

static void choose_case(int p, int who, double late, int64_t count, int commutative,
                        rabred_arrival_pick_t *pick)
{
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, p), "init p=%d", p);
    double *g = calloc((size_t)p, sizeof(double));
    if (p > 0 && who >= 0 && who < p) {
        g[who] = late;
    }
    rabred_estimate_update(&e, g, 1.0);
    rabred_estimate_update(&e, g, 1.0); /* late twice in a row: it counts */
    rabred_call_t call = {p, count, commutative, NULL};
    const rabred_alg_t *ring = alg("pairwise_ring");
    double price = price_of(p, count);
    CHECK(RABRED_OK == rabred_estimate_choose(&e, &call, 8, &MODEL, ring, price, 0, 0.05, pick),
          "choose p=%d", p);
    free(g);
    rabred_estimate_fini(&e);
}

static void test_choice(void)
{
    rabred_arrival_pick_t pick;
    CHECK(NULL != alg("prereduced_ring") && alg("prereduced_ring")->arrival_aware &&
              NULL != alg("sorted_linear_tree") && alg("sorted_linear_tree")->arrival_aware &&
              NULL != alg("prereduced_scatter") && alg("prereduced_scatter")->arrival_aware &&
              !alg("pairwise_ring")->arrival_aware,
          "the table marks the arrival-aware algorithms");
    for (int p = 2; p <= 16; p++) {
        choose_case(p, 0, 0, 1 << 17, 1, &pick); /* balanced */
        CHECK(NULL == pick.alg && pick.best_s < 0, "balanced p=%d: no switch, nothing simulated",
              p);
        choose_case(p, p / 2, 0.5, 1 << 17, 1, &pick); /* 1 MiB, one rank 500 ms late */
        /* p = 2, 3: the early ranks have (almost) nothing to pre-reduce */
        CHECK((p < 4 || NULL != pick.alg) &&
                  (NULL == pick.alg || (pick.alg->arrival_aware &&
                                        pick.balanced_s - pick.best_s >=
                                            0.05 * price_of(p, 1 << 17))),
              "p=%d one rank late: %s %g s vs ring %g s", p, pick.alg ? pick.alg->name : "none",
              pick.best_s, pick.balanced_s);
        /* far past the early ranks' reduce-scatter, the plan near seed
         * 004's bound wins (test_arrival: test_scatter_bound) from p = 5;
         * at p = 4 the pre-reduced ring's pre-steps already cover most of
         * the work and its fewer, larger messages win by a little */
        CHECK(p < 5 || alg("prereduced_scatter") == pick.alg, "p=%d one rank 500 ms late: %s", p,
              pick.alg ? pick.alg->name : "none");
        choose_case(p, p / 2, 0.5, 1 << 17, 0, &pick);
        CHECK(NULL == pick.alg, "p=%d non-commutative: never arrival-aware", p);
    }
    choose_case(RABRED_ESTIMATE_MAX_P + 1, 1, 0.5, 1 << 17, 1, &pick);
    CHECK(NULL == pick.alg && pick.best_s < 0, "p above RABRED_ESTIMATE_MAX_P: not simulated");
}

static double book_price(const rabred_model_t *model, const char *name, int p, int64_t bytes);

/* Rounds cost more than their messages when ranks are out of step
 * (rabred_model_t.sync: 16 ranks on 2 cores, measured on the emulated
 * cluster), and the arrival-aware plans run 2(p-1) or more lock-step
 * rounds: the choice prices that term for them as for the balanced plan.
 * At p = 16 and 64 KiB, with one rank 5 ms late, a millisecond per round
 * keeps them out (30 rounds cost more than the 5 ms they could hide),
 * while with ranks in step (sync 0) and a rank 50 ms late they win. */
static void test_sync_prices_rounds(void)
{
    const rabred_alg_t *bruck = alg("bruck");
    for (int oversubscribed = 0; oversubscribed <= 1; oversubscribed++) {
        int p = 16;
        rabred_model_t m = MODEL;
        m.sync = oversubscribed ? 1e-3 : 0;
        rabred_estimate_t e;
        CHECK(RABRED_OK == rabred_estimate_init(&e, p), "init");
        double g[16] = {0, oversubscribed ? 0.005 : 0.05};
        rabred_estimate_update(&e, g, 1.0);
        rabred_estimate_update(&e, g, 1.0);
        int64_t bytes = oversubscribed ? 64 << 10 : 1 << 20;
        rabred_call_t call = {p, bytes / 8, 1, NULL};
        rabred_arrival_pick_t pick;
        double price = book_price(&m, "bruck", p, bytes);
        CHECK(RABRED_OK == rabred_estimate_choose(&e, &call, 8, &m, bruck, price, 0, 0.10, &pick),
              "choose");
        CHECK(oversubscribed ? NULL == pick.alg : NULL != pick.alg,
              "sync %g s per round, rank 1 %g ms late, %lld B: %s picked (%g s, bruck %g s)",
              m.sync, 1e3 * g[1], (long long)bytes, pick.alg ? pick.alg->name : "none",
              pick.best_s, pick.balanced_s);
        rabred_estimate_fini(&e);
    }
}

/* The model's price of allreduce `name` for p ranks and `bytes` per rank. */
static double book_price(const rabred_model_t *model, const char *name, int p, int64_t bytes)
{
    static rabred_pricebook_t book;
    CHECK(RABRED_OK == rabred_pricebook_fill(&book, RABRED_COLL_ALLREDUCE, p, 0, model),
          "price book p=%d", p);
    for (int i = 0; i < rabred_table_size(RABRED_COLL_ALLREDUCE); i++) {
        if (rabred_table_at(RABRED_COLL_ALLREDUCE, i) == alg(name)) {
            return rabred_pricebook_time(&book, RABRED_COLL_ALLREDUCE, 1, i, bytes);
        }
    }
    CHECK(0, "no allreduce %s", name);
    return -1;
}

/* The gap exchange's price (an allreduce of p doubles by recursive
 * doubling) and the rule that keeps it under 1% of the call. */
static void test_pays(void)
{
    const rabred_model_t *m = &MODEL;
    double x8 = m->alpha + 64 * m->beta, x6 = m->alpha + 48 * m->beta;
    double u6 = m->f_alpha * m->alpha + m->f_beta * 48 * m->beta;
    CHECK(0.0 == rabred_estimate_exchange_price(1, m), "p=1: no exchange");
    CHECK(fabs(rabred_estimate_exchange_price(2, m) - (m->alpha + 16 * m->beta)) < 1e-15,
          "p=2: one exchange of 16 bytes");
    CHECK(fabs(rabred_estimate_exchange_price(8, m) - 3 * x8) < 1e-15, "p=8: three exchanges");
    CHECK(fabs(rabred_estimate_exchange_price(6, m) - (2 * x6 + 2 * u6)) < 1e-15,
          "p=6: fold, two exchanges, unfold");
    /* unknown price: min_bytes alone decides */
    CHECK(rabred_estimate_pays(8, m, 0) && rabred_estimate_pays(8, m, -1) &&
              rabred_estimate_pays(8, m, NAN),
          "no price: estimation stays on");
    /* the 100 Mbit/s cluster's model: from 256 KiB every p up to 16 pays;
     * at 64 KiB p up to 10 (from p = 11 the exchange is 1.0-1.2% of it) */
    for (int p = 2; p <= 16; p++) {
        double price = book_price(m, "pairwise_ring", p, 256 << 10);
        CHECK(price > 0 && rabred_estimate_pays(p, m, price),
              "100 Mbit/s, p=%d, 256 KiB: exchange %g s vs call %g s", p,
              rabred_estimate_exchange_price(p, m), price);
        price = book_price(m, "pairwise_ring", p, 64 << 10);
        CHECK(p > 10 || rabred_estimate_pays(p, m, price),
              "100 Mbit/s, p=%d, 64 KiB: exchange %g s vs call %g s", p,
              rabred_estimate_exchange_price(p, m), price);
    }
    /* a fast network (2 us, 10 GB/s): at 64 KiB the exchange would be a
     * large part of the call, at 16 MiB a negligible one */
    rabred_model_t fast = {.alpha = 2e-6, .beta = 1e-10, .gamma = 3.5e-11, .f_alpha = 1, .f_beta = 1};
    for (int p = 2; p <= 64; p *= 2) {
        double small = book_price(&fast, "pairwise_ring", p, 65536);
        double big = book_price(&fast, "pairwise_ring", p, 16 << 20);
        double x = rabred_estimate_exchange_price(p, &fast);
        CHECK(!rabred_estimate_pays(p, &fast, small) && x > 0.01 * small,
              "fast network, p=%d, 64 KiB: exchange %g s vs call %g s must not pay", p, x, small);
        CHECK(rabred_estimate_pays(p, &fast, big) && x <= 0.01 * big,
              "fast network, p=%d, 16 MiB: exchange %g s vs call %g s must pay", p, x, big);
    }
}

/* Calls until the next exchange: due() answers no that many times, then yes. */
static int calls_to_next(rabred_estimate_t *e)
{
    int n = 0;
    while (!rabred_estimate_due(e) && n < 100) {
        n++;
    }
    return n;
}

/* One exchanged call: fold its gaps, pace, and count the calls skipped
 * before the next exchange. */
static int exchange(rabred_estimate_t *e, const double *gaps, double price, double gain)
{
    rabred_estimate_update(e, gaps, 0.5);
    rabred_estimate_pace(e, price, gain);
    return calls_to_next(e);
}

/* Pacing: balanced exchanges double the period up to the maximum; a rank
 * late by min_gain of the call in the last exchange makes the next call
 * exchange (before the twice-in-a-row rule lets it act) and, if it was a
 * blip, costs only that exchange; late twice brings it back to every call;
 * a lateness below that does nothing; an unknown price leaves the pacing as it was (a
 * fresh estimate: every call; a forced call between auto's calls: auto's
 * countdown and period go on); reset starts over. */
static void test_pace(void)
{
    const double price = 0.01, gain = 0.1; /* a rank counts from 1 ms */
    double even[4] = {0.2, 0.2, 0.2, 0.2}, late[4] = {0.2, 0.2, 0.205, 0.2};
    double slight[4] = {0.2, 0.2005, 0.2, 0.2};
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, 4), "init");
    CHECK(rabred_estimate_due(&e) && rabred_estimate_due(&e), "fresh: every call exchanges");
    int want[] = {1, 3, 7, 7, 7};
    for (int i = 0; i < 5; i++) {
        rabred_estimate_update(&e, 1 == i ? slight : even, 0.5);
        rabred_estimate_pace(&e, price, gain);
        int got = calls_to_next(&e);
        CHECK(got == want[i], "balanced exchange %d: %d calls skipped, want %d", i, got, want[i]);
    }
    rabred_estimate_update(&e, late, 0.5);
    CHECK(0.0 == rabred_estimate_spread(&e), "one late call does not act yet");
    rabred_estimate_pace(&e, price, gain);
    CHECK(0 == calls_to_next(&e), "a late rank: the next call exchanges again");
    rabred_estimate_update(&e, late, 0.5);
    rabred_estimate_pace(&e, price, gain);
    CHECK(rabred_estimate_spread(&e) > 0.001 && 0 == calls_to_next(&e),
          "late twice: acting, and every call exchanges");
    rabred_estimate_update(&e, even, 0.5);
    rabred_estimate_pace(&e, price, gain);
    CHECK(1 == calls_to_next(&e), "on time again: the doubling starts over (1 call skipped)");
    rabred_estimate_reset(&e);
    for (int i = 0; i < 4; i++) { /* the longest period: 7 calls to skip */
        exchange(&e, even, price, gain);
    }
    CHECK(0 == exchange(&e, late, price, gain), "a blip (late once): the next call looks again");
    int got = exchange(&e, even, price, gain);
    CHECK(7 == got, "a blip costs one exchange: the period stays the longest (%d calls "
          "skipped, want 7)", got);
    double other[4] = {0.2, 0.205, 0.2, 0.2}; /* rank 1 late instead of rank 2 */
    CHECK(0 == exchange(&e, late, price, gain), "another blip: the next call looks again");
    got = exchange(&e, other, price, gain);
    CHECK(7 == got, "the look again finds another rank late once: no second look (%d calls "
          "skipped, want 7)", got);
    exchange(&e, late, price, gain);
    CHECK(0 == exchange(&e, late, price, gain), "the same rank late twice: every call");
    rabred_estimate_reset(&e);
    rabred_estimate_update(&e, even, 0.5);
    rabred_estimate_pace(&e, 0, gain);
    CHECK(0 == calls_to_next(&e), "unknown price on a fresh estimate: every call exchanges");
    for (int i = 0; i < 4; i++) { /* back to the longest period: 7 calls to skip */
        rabred_estimate_update(&e, even, 0.5);
        rabred_estimate_pace(&e, price, gain);
    }
    CHECK(!rabred_estimate_due(&e) && !rabred_estimate_due(&e), "two of auto's calls skipped");
    rabred_estimate_update(&e, even, 0.5); /* a forced call between them */
    rabred_estimate_pace(&e, 0, gain);
    CHECK(5 == calls_to_next(&e), "unknown price: auto's countdown goes on (5 more calls)");
    rabred_estimate_update(&e, even, 0.5);
    rabred_estimate_pace(&e, price, gain);
    CHECK(7 == calls_to_next(&e), "unknown price: the period stays the longest");
    rabred_estimate_update(&e, even, 0.5);
    rabred_estimate_pace(&e, price, gain);
    rabred_estimate_reset(&e);
    CHECK(0 == calls_to_next(&e), "reset: every call exchanges again");
    rabred_estimate_fini(&e);
}

/* The measured cost of an exchange (seconds in it / seconds in the call,
 * the mean over ranks) stretches the longest period only when every 8th
 * call would still pay more than RABRED_ESTIMATE_MAX_OVERHEAD for it: a
 * cost of 3% of a call keeps 8 (the 4 MiB allreduce on the cluster), a
 * third of a call goes to 64 (shared memory, 256 KiB), anything dearer
 * stops at 64.  Bad entries count as 0; reset forgets the cost; a late
 * rank still brings the period back to every call. */
static void test_pace_costly(void)
{
    const double price = 0.01, gain = 0.1;
    double even[4] = {0.2, 0.2, 0.2, 0.2}, late[4] = {0.2, 0.2, 0.205, 0.2};
    double cheap[4] = {0.03, 0.02, 0.04, 0.03}, dear[4] = {0.2, 0.5, 0.3, 0.33};
    double worse[4] = {5, 5, 5, 5}, bad[4] = {NAN, -1, INFINITY, 0.4};
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, 4), "init");
    CHECK(8 == rabred_estimate_longest_period(&e), "no cost measured: 8");
    rabred_estimate_note_cost(&e, cheap);
    CHECK(fabs(e.cost - 0.03) < 1e-12 && 8 == rabred_estimate_longest_period(&e),
          "3%% of a call: cost %g, longest period %d, want 8", e.cost,
          rabred_estimate_longest_period(&e));
    rabred_estimate_note_cost(&e, dear);
    CHECK(64 == rabred_estimate_longest_period(&e), "a third of a call: %d, want 64",
          rabred_estimate_longest_period(&e));
    double sixteen[4] = {0.15, 0.15, 0.15, 0.15}; /* 0.15 / 16 <= 1% < 0.15 / 8 */
    rabred_estimate_note_cost(&e, sixteen);
    CHECK(16 == rabred_estimate_longest_period(&e), "15%% of a call: %d, want 16",
          rabred_estimate_longest_period(&e));
    rabred_estimate_note_cost(&e, worse);
    CHECK(64 == rabred_estimate_longest_period(&e), "5 calls: capped at 64, got %d",
          rabred_estimate_longest_period(&e));
    rabred_estimate_note_cost(&e, bad);
    CHECK(fabs(e.cost - 0.1) < 1e-12, "NaN, negative and infinite count as 0: %g", e.cost);

    rabred_estimate_note_cost(&e, dear); /* the period doubles on to 64 */
    int want[] = {1, 3, 7, 15, 31, 63, 63};
    for (int i = 0; i < 7; i++) {
        int got = exchange(&e, even, price, gain);
        CHECK(got == want[i], "costly, balanced exchange %d: %d calls skipped, want %d", i, got,
              want[i]);
    }
    CHECK(0 == exchange(&e, late, price, gain), "costly, a late rank: the next call looks again");
    rabred_estimate_reset(&e);
    CHECK(0 == e.cost && 8 == rabred_estimate_longest_period(&e), "reset forgets the cost");
    rabred_estimate_fini(&e);
}

/* The application's hint ("rabred_arrival") and assuming its offsets. */
static void test_hint(void)
{
    double o[4];
    CHECK(RABRED_HINT_AUTO == rabred_hint_parse("auto", 4, o), "auto");
    CHECK(RABRED_HINT_OFF == rabred_hint_parse("off", 4, o), "off");
    CHECK(RABRED_HINT_LATE == rabred_hint_parse("late:2=0.05", 4, o) && 0 == o[0] && 0 == o[1] &&
              0.05 == o[2] && 0 == o[3],
          "late:2=0.05 -> 0 0 0.05 0");
    CHECK(RABRED_HINT_LATE == rabred_hint_parse("late:3=1e-3,0=0.25", 4, o) && 0.25 == o[0] &&
              0 == o[1] && 0 == o[2] && 1e-3 == o[3],
          "two late ranks in any order");
    const char *bad[] = {"", "Auto", "late:", "late:4=1", "late:-1=1", "late:1=-0.5", "late:1=nan",
                         "late:1=inf", "late:1=", "late:=1", "late:1=1,1=2", "late:1=1,",
                         "late:1=1;2=1", "late:1=1 ", "late:1", "late 1=1", "on"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        o[1] = 7;
        CHECK(RABRED_HINT_BAD == rabred_hint_parse(bad[i], 4, o) && 0 == o[1],
              "\"%s\" is rejected and leaves no offsets", bad[i]);
    }
    CHECK(RABRED_HINT_BAD == rabred_hint_parse(NULL, 4, o), "NULL is rejected");
    CHECK(RABRED_HINT_LATE == rabred_hint_parse("late:3=1", 4, NULL) &&
              RABRED_HINT_BAD == rabred_hint_parse("late:4=1", 4, NULL),
          "NULL offsets: validation only");

    /* assumed offsets act at once: the earliest at 0, bad values at 0 */
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, 4), "init");
    double given[4] = {0.3, 0.1, NAN, 0.2};
    rabred_estimate_assume(&e, given);
    CHECK(2 == e.calls && 0.3 == e.acting[0] && 0.1 == e.acting[1] && 0 == e.acting[2] &&
              0.2 == e.acting[3] && 0.3 == rabred_estimate_spread(&e),
          "assumed: acting 0.3 0.1 0 0.2, spread 0.3");
    double shifted[4] = {0.5, 0.6, 0.7, 0.5};
    rabred_estimate_assume(&e, shifted);
    CHECK(0 == e.acting[0] && fabs(e.acting[2] - 0.2) < 1e-15 && 0 == e.acting[3],
          "assumed offsets are relative to the earliest rank");
    /* a hinted late rank makes the choice switch like a learned one */
    rabred_estimate_assume(&e, (double[4]){0.5, 0, 0, 0});
    rabred_call_t call = {4, 1 << 17, 1, NULL};
    rabred_arrival_pick_t pick;
    CHECK(RABRED_OK == rabred_estimate_choose(&e, &call, 8, &MODEL, alg("pairwise_ring"),
                                              price_of(4, 1 << 17), 0, 0.05, &pick) &&
              NULL != pick.alg && pick.alg->arrival_aware,
          "hinted 500 ms late at p=4: arrival-aware (%s)", pick.alg ? pick.alg->name : "none");
    rabred_estimate_reset(&e);
    CHECK(0 == e.calls && 0 == rabred_estimate_spread(&e) && 0 == e.acting[0] && 0 == e.offset[0],
          "reset: nothing learned or assumed");
    rabred_estimate_fini(&e);
}

static void test_determinism(void)
{
    rabred_estimate_t a, b;
    CHECK(RABRED_OK == rabred_estimate_init(&a, 5) && RABRED_OK == rabred_estimate_init(&b, 5),
          "init");
    for (int call = 0; call < 100; call++) {
        double g[5];
        for (int i = 0; i < 5; i++) {
            g[i] = sin(call * 7.0 + i) * 0.01 + 0.01;
        }
        rabred_estimate_update(&a, g, 0.3);
        rabred_estimate_update(&b, g, 0.3);
    }
    CHECK(0 == memcmp(a.offset, b.offset, 5 * sizeof(double)), "bitwise equal estimates");
    rabred_estimate_fini(&a);
    rabred_estimate_fini(&b);
}

/* Out of memory while the arrival-aware choice simulates is an error
 * (RABRED_ERR_NOMEM), with no pick: the component then fails the call
 * rather than keep the balanced choice while the other ranks switch.
 * Every allocation of the choice fails once (p = 6, 1 MiB, rank 0 100 ms
 * late, where the clean choice is an arrival-aware plan). */
static void test_choose_nomem(void)
{
    const int p = 6;
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, p), "init");
    double g[6] = {0.1};
    rabred_estimate_update(&e, g, 0.5);
    rabred_estimate_update(&e, g, 0.5);
    rabred_call_t call = {p, 1 << 17, 1, NULL};
    rabred_arrival_pick_t pick;
    const rabred_alg_t *ring = alg("neighbor_ring");
    double price = book_price(&MODEL, "neighbor_ring", p, 1 << 20);
    rabred_arrival_pick_t clean;
    CHECK(RABRED_OK == rabred_estimate_choose(&e, &call, 8, &MODEL, ring, price, 0, 0.10, &clean) &&
              NULL != clean.alg,
          "the clean choice picks no arrival-aware plan");
    long n = 0;
    for (;; n++) {
        rabred_nomem_arm(n);
        int rc = rabred_estimate_choose(&e, &call, 8, &MODEL, ring, price, 0, 0.10, &pick);
        int fired = rabred_nomem_fired;
        rabred_nomem_disarm();
        if (!fired) {
            CHECK(RABRED_OK == rc && clean.alg == pick.alg,
                  "no failure: rc %d, %s", rc, pick.alg ? pick.alg->name : "no pick");
            break;
        }
        CHECK(RABRED_ERR_NOMEM == rc && NULL == pick.alg,
              "allocation %ld failed: rc %d, pick %s", n, rc, pick.alg ? pick.alg->name : "none");
    }
    CHECK(n > 10, "the choice made only %ld allocations", n);
    printf("arrival-aware choice at p = 6: each of its %ld allocations failed once\n", n);
    rabred_estimate_fini(&e);
}


/* An epoch ends when some acting offset moves more than the tolerance from
 * where the epoch began; drift adds up from there, not step by step. */
static void test_epoch(void)
{
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, 4), "init");
    int start = rabred_estimate_epoch(&e, 1e-3);
    double g[4] = {0, 0, 0, 0};
    rabred_estimate_update(&e, g, 1.0);
    CHECK(rabred_estimate_epoch(&e, 1e-3) == start, "balanced calls: the same epoch");
    int drifted = 0;
    for (int step = 1; step <= 4; step++) {
        g[1] = 0.4e-3 * step; /* rank 1 later by 0.4 ms each call (acting: the call before) */
        rabred_estimate_update(&e, g, 1.0);
        drifted += rabred_estimate_epoch(&e, 1e-3) != start;
    }
    CHECK(1 == drifted && fabs(e.basis[1] - 1.2e-3) < 1e-12,
          "steps of 0.4 ms against 1 ms: one new epoch, once the drift adds up to 1.2 ms "
          "(acting %g, basis %g, %d new)", e.acting[1], e.basis[1], drifted);
    int now = rabred_estimate_epoch(&e, 1e-3);
    g[1] = 0.3;
    rabred_estimate_update(&e, g, 1.0);
    CHECK(rabred_estimate_epoch(&e, 1e-3) == now, "a rank 300 ms late once: not yet acting");
    rabred_estimate_update(&e, g, 1.0);
    CHECK(rabred_estimate_epoch(&e, 1e-3) != now, "a rank 300 ms late twice: a new epoch");
    now = rabred_estimate_epoch(&e, 1e-3);
    rabred_estimate_reset(&e);
    CHECK(rabred_estimate_epoch(&e, 1e-3) != now, "a reset (a new hint): a new epoch");
    rabred_estimate_fini(&e);
}

/* An estimated selection at p = 5 of 2^17 doubles whose balanced choice
 * is the pairwise ring (the tests of the cached pick and of the pacing). */
typedef struct {
    rabred_pricebook_t book;
    rabred_choice_t balanced;
    rabred_estimate_t e;
    rabred_arrival_pick_t pick;
    int pick_at_calls, pick_epoch;
    rabred_select_arrival_t arrival;
    rabred_select_in_t in;
} selection_case_t;

enum { CASE_P = 5, CASE_COUNT = 1 << 17 };

static void selection_case_init(selection_case_t *c, double min_gain)
{
    memset(c, 0, sizeof(*c));
    CHECK(RABRED_OK == rabred_pricebook_fill(&c->book, RABRED_COLL_ALLREDUCE, CASE_P, 0, &MODEL),
          "price book");
    c->balanced = (rabred_choice_t){
        .alg = alg("pairwise_ring"), .why = RABRED_WHY_DECISION,
        .price = book_price(&MODEL, "pairwise_ring", CASE_P, 8 * (int64_t)CASE_COUNT)};
    CHECK(RABRED_OK == rabred_estimate_init(&c->e, CASE_P), "init");
    c->arrival = (rabred_select_arrival_t){.est = &c->e, .type_size = 8, .min_gain = min_gain,
                                           .pick = &c->pick, .pick_at_calls = &c->pick_at_calls,
                                           .pick_epoch = &c->pick_epoch};
    c->in = (rabred_select_in_t){.coll = RABRED_COLL_ALLREDUCE, .call = {CASE_P, CASE_COUNT, 1},
                                 .root = -1, .bytes = 8 * (int64_t)CASE_COUNT,
                                 .forced = RABRED_ALG_AUTO, .book = &c->book,
                                 .arrival = &c->arrival, .prepared = &c->balanced};
}

/* The selection's cached pick follows the estimate's epoch.  A pick made
 * while rank 1 was barely late (spread just above min_gain of the call:
 * worth simulating, nothing gains enough) must not be reused two calls
 * later when rank 1 is 300 ms late: that stale "nothing" kept a 5-rank
 * job with one rank 0.3 s late on the balanced plan for 8 calls (a CI
 * run of test_mpi_hint on a busy machine).  Reuse within an epoch still
 * holds. */
static void test_pick_follows_epoch(void)
{
    const double min_gain = 0.10;
    static selection_case_t c;
    selection_case_init(&c, min_gain);
    const rabred_alg_t *ring = c.balanced.alg;
    rabred_choice_t out;
    double g[5] = {0, 1.1 * min_gain * c.balanced.price, 0, 0, 0};
    rabred_estimate_update(&c.e, g, 0.5);
    rabred_estimate_update(&c.e, g, 0.5);
    CHECK(RABRED_OK == rabred_select(&c.in, &out) && ring == out.alg && 2 == c.pick_at_calls,
          "rank 1 late by 1.1 min_gain: simulated (at call %d), balanced kept (%s)",
          c.pick_at_calls, out.alg ? out.alg->name : "previous");
    g[1] = 0.3;
    rabred_estimate_update(&c.e, g, 1.0);
    rabred_estimate_update(&c.e, g, 1.0);
    CHECK(RABRED_OK == rabred_select(&c.in, &out) && NULL != out.alg && out.alg->arrival_aware &&
              4 == c.pick_at_calls,
          "two calls later rank 1 is 300 ms late: simulated again (at call %d), %s",
          c.pick_at_calls, out.alg ? out.alg->name : "previous");
    const rabred_alg_t *picked = out.alg;
    rabred_estimate_update(&c.e, g, 1.0);
    CHECK(RABRED_OK == rabred_select(&c.in, &out) && picked == out.alg && 4 == c.pick_at_calls,
          "the same offsets a call later: the pick of call %d reused", c.pick_at_calls);
    rabred_estimate_fini(&c.e);
}

/* Pacing follows the choice: a rank late twice brings the exchange back
 * to every call only while acting on it may pay.  Once the choice under
 * the current offsets found no plan that saves min_gain, and the offsets
 * stay in that epoch, the period doubles as for balanced arrivals; when
 * the offsets move out of it, the next call exchanges (and simulates
 * anew) with the period kept; a choice that finds a plan follows every
 * call again. */
static void test_pace_follows_choice(void)
{
    const double price = 0.01, gain = 0.1, tolerance = 0.5 * gain * price;
    double late_by[4] = {0, 0, 0.005, 0}; /* rank 2 late by 5 ms: may gain 1 ms */
    double late[4] = {0.2, 0.2, 0.205, 0.2}, later[4] = {0.2, 0.2, 0.225, 0.2};
    rabred_estimate_t e;
    CHECK(RABRED_OK == rabred_estimate_init(&e, 4), "init");
    rabred_estimate_assume(&e, late_by); /* acting at once, as learned twice in a row */
    CHECK(0 == exchange(&e, late, price, gain), "late, no choice simulated yet: every call");
    rabred_estimate_epoch(&e, tolerance);
    rabred_estimate_note_choice(&e, 0);
    int want[] = {1, 3, 7, 7};
    for (int i = 0; i < 4; i++) {
        int got = exchange(&e, late, price, gain);
        CHECK(got == want[i], "late, the choice found nothing, the same epoch: exchange %d "
              "skips %d calls, want %d", i, got, want[i]);
    }
    rabred_estimate_update(&e, later, 1.0); /* rank 2 now 25 ms late: out of the epoch */
    rabred_estimate_update(&e, later, 1.0);
    rabred_estimate_pace(&e, price, gain);
    CHECK(0 == calls_to_next(&e), "the offsets left the epoch: the next call exchanges");
    rabred_estimate_epoch(&e, tolerance);
    rabred_estimate_note_choice(&e, 0);
    int got = exchange(&e, later, price, gain);
    CHECK(7 == got, "nothing found in the new epoch either: the kept period goes on (%d calls "
          "skipped, want 7)", got);
    rabred_estimate_note_choice(&e, 1);
    CHECK(0 == exchange(&e, later, price, gain), "a choice that finds a plan: every call");
    CHECK(0 == exchange(&e, later, price, gain), "and on while it does");
    rabred_estimate_fini(&e);
}

/* The selection tells the estimate what its simulation found: rank 1
 * barely late (nothing gains min_gain) backs the pacing off; 300 ms late
 * (an arrival-aware plan wins) keeps every call. */
static void test_select_notes_choice(void)
{
    const double min_gain = 0.10;
    static selection_case_t c;
    selection_case_init(&c, min_gain);
    const rabred_alg_t *ring = c.balanced.alg;
    rabred_choice_t out;
    double g[5] = {0, 1.1 * min_gain * c.balanced.price, 0, 0, 0};
    rabred_estimate_update(&c.e, g, 0.5);
    rabred_estimate_update(&c.e, g, 0.5);
    CHECK(RABRED_OK == rabred_select(&c.in, &out) && ring == out.alg, "barely late: balanced kept");
    rabred_estimate_update(&c.e, g, 0.5);
    rabred_estimate_pace(&c.e, c.balanced.price, min_gain);
    CHECK(1 == calls_to_next(&c.e), "barely late, nothing gains: the pacing backs off (%d)",
          calls_to_next(&c.e));
    g[1] = 0.3;
    rabred_estimate_update(&c.e, g, 1.0);
    rabred_estimate_update(&c.e, g, 1.0);
    CHECK(RABRED_OK == rabred_select(&c.in, &out) && NULL != out.alg && out.alg->arrival_aware,
          "300 ms late: an arrival-aware plan");
    rabred_estimate_update(&c.e, g, 1.0);
    rabred_estimate_pace(&c.e, c.balanced.price, min_gain);
    CHECK(0 == calls_to_next(&c.e), "a plan gains: every call exchanges");
    rabred_estimate_fini(&c.e);
}

int main(void)
{
    test_update();
    test_one_off();
    test_learning();
    test_noise();
    test_choice();
    test_sync_prices_rounds();
    test_choose_nomem();
    test_pays();
    test_pace();
    test_pace_costly();
    test_hint();
    test_determinism();
    test_epoch();
    test_pick_follows_epoch();
    test_pace_follows_choice();
    test_select_notes_choice();
    return rabred_test_summary("test_estimate");
}
