/*
 * Unit tests of rabred-calibrate's arithmetic (tools/rabred_calibrate_fit.c)
 * and of what a calibration decides:
 *  - measurements made from known terms give those terms back, also with
 *    one size caught in a slow mode, and without a protocol switch;
 *  - measurements that cannot give terms are refused, the defaults kept;
 *  - the per-round terms (sync, duplex, aggregate) come out as defined;
 *  - a calibration recorded on the emulated cluster, turned into the model
 *    the component builds from it, reproduces the ranking of the algorithms
 *    as they were measured there (rabred_recorded_cluster.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rabred_calibrate_fit.h"
#include "rabred_recorded_cluster.h"
#include "rabred_recorded_cluster_sf.h"
#include "rabred_test.h"
#include "select/rabred_model.h"

/* What the model and the fit achieve on the recorded cluster (95 % of the
 * pairs, 108 of 120 cells; the misses are printed): a change that ranks
 * worse fails. */
#define RECORDED_MIN_AGREE 0.93
#define RECORDED_MIN_NEAR_BEST 0.88
#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int close_to(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

/* The times a link with terms u shows at 8 B .. 4 MiB (exchanges posted
 * send-first not measured: 0). */
static void synthesize(const rabred_link_units_t *u, rabred_cal_link_t *m)
{
    memset(m, 0, sizeof(*m));
    double alpha = 1e-6 * u->alpha_us, beta = 1e-6 / u->mbs, rndv = 1e-6 * u->rndv_us;
    double rndv1 = 1e-6 * u->rndv_oneway_us;
    m->n = 0;
    for (double b = 8; b <= 4 << 20; b *= 2) {
        int above = u->eager_bytes > 0 && b > u->eager_bytes;
        double handshake = above ? rndv : 0;
        /* eager messages at eager_mbs, the larger ones at mbs */
        double per = u->eager_mbs > 0 && !above ? 1e-6 / u->eager_mbs : beta;
        m->bytes[m->n] = b;
        double repeat = u->repeat > 1 && b > 32768 ? u->repeat : 1;
        m->oneway[m->n] = u->oneway_alpha * alpha + b * u->oneway_beta * per + above * rndv1;
        m->exchange[m->n] = alpha + b * per + handshake;
        m->repeated[m->n++] = alpha + b * per * repeat + handshake;
    }
}

static void check_recovers(const char *what, const rabred_link_units_t *want,
                           const rabred_cal_link_t *m, double rel)
{
    rabred_link_units_t got = rabred_default_inter;
    CHECK(0 == rabred_cal_fit_link(m, &got), "%s: refused", what);
    CHECK(close_to(got.alpha_us, want->alpha_us, rel), "%s: alpha %g us, want %g", what,
          got.alpha_us, want->alpha_us);
    CHECK(close_to(got.mbs, want->mbs, rel), "%s: %g MB/s, want %g", what, got.mbs, want->mbs);
    CHECK(close_to(got.oneway_alpha, want->oneway_alpha, rel), "%s: oneway_alpha %g, want %g",
          what, got.oneway_alpha, want->oneway_alpha);
    CHECK(close_to(got.oneway_beta, want->oneway_beta, rel), "%s: oneway_beta %g, want %g",
          what, got.oneway_beta, want->oneway_beta);
    CHECK(got.eager_bytes == want->eager_bytes, "%s: eager %g, want %g", what, got.eager_bytes,
          want->eager_bytes);
    CHECK(close_to(got.rndv_us, want->rndv_us, 0.05) || (0 == want->rndv_us && 0 == got.rndv_us),
          "%s: rndv %g us, want %g", what, got.rndv_us, want->rndv_us);
    CHECK(close_to(got.rndv_oneway_us, want->rndv_oneway_us, 0.05) ||
              (0 == want->rndv_oneway_us && 0 == got.rndv_oneway_us),
          "%s: one-way rndv %g us, want %g", what, got.rndv_oneway_us, want->rndv_oneway_us);
    CHECK(close_to(got.repeat, want->repeat > 1 ? want->repeat : 1, 0.01), "%s: repeat %g, want %g",
          what, got.repeat, want->repeat);
    CHECK(close_to(got.eager_mbs, want->eager_mbs, 0.01), "%s: eager %g MB/s, want %g", what,
          got.eager_mbs, want->eager_mbs);
    CHECK(got.peer_us == rabred_default_inter.peer_us, "%s: the peer term was touched", what);
}

static void test_synthetic(void)
{
    /* shared memory and a network, with and without a switch */
    rabred_link_units_t shm = {.alpha_us = 0.4, .mbs = 13000, .oneway_alpha = 0.9,
                               .oneway_beta = 0.65, .eager_bytes = 4096, .rndv_us = 0.9,
                               .rndv_oneway_us = 0.6, .eager_mbs = 6000};
    rabred_link_units_t ib = {.alpha_us = 2, .mbs = 12000, .oneway_alpha = 0.8,
                              .oneway_beta = 1.0, .eager_bytes = 16384, .rndv_us = 3,
                              .rndv_oneway_us = 3};
    rabred_link_units_t tcp = {.alpha_us = 10, .mbs = 12, .oneway_alpha = 0.7,
                               .oneway_beta = 1.0, .eager_bytes = 0, .rndv_us = 0, .repeat = 3};
    rabred_cal_link_t m;
    synthesize(&shm, &m);
    check_recovers("shared memory", &shm, &m, 0.01); /* 8 bytes at eager speed */
    synthesize(&ib, &m);
    check_recovers("a fabric with a switch at 16 KiB", &ib, &m, 1e-6);
    synthesize(&tcp, &m);
    check_recovers("no switch, exchanges 3x slower back to back", &tcp, &m, 1e-6);

    /* the largest exchange caught once in a mode twice as slow: the
     * bandwidth still comes from the others */
    synthesize(&ib, &m);
    m.exchange[m.n - 1] *= 2;
    rabred_link_units_t got = ib;
    CHECK(0 == rabred_cal_fit_link(&m, &got) && close_to(got.mbs, ib.mbs, 0.02),
          "one slow size set the bandwidth: %g MB/s", got.mbs);

    /* two of the largest four caught (a busy machine): the slopes'
     * median is negative, the chord across the four is not, and the link
     * is kept with about its bandwidth */
    synthesize(&ib, &m);
    m.exchange[m.n - 2] *= 3;
    m.exchange[m.n - 4] *= 3;
    got = ib;
    CHECK(0 == rabred_cal_fit_link(&m, &got) && got.mbs > ib.mbs / 2 && got.mbs < 2 * ib.mbs &&
              got.alpha_us > 0,
          "two slow sizes lost the link or its bandwidth: %g MB/s, alpha %g us", got.mbs,
          got.alpha_us);

    /* a cache cliff at 2 MiB is not a protocol switch */
    synthesize(&shm, &m);
    for (int i = 0; i < m.n; i++) {
        double cliff = m.bytes[i] > (1 << 20) ? 40e-6 : 0;
        m.oneway[i] += cliff;
        m.exchange[i] += cliff;
    }
    CHECK(0 == rabred_cal_fit_link(&m, &got) && 4096 == got.eager_bytes,
          "the cache's step taken for the eager limit: %g", got.eager_bytes);
}

/* Calibrations over shared memory (us; bench/results/shm-direct-20261206):
 * in switch-first/2-stale eager messages move slowly enough (1.2 GB/s)
 * that the 1 -> 2 KiB step also passes the switch's tests; in
 * switch-largest/1-stale and 2-stale a slow mode at 16 -> 32 and
 * 32 -> 64 KiB grows more microseconds than the switch.  The switch is
 * 2 -> 4 KiB in all three, and the handshake what 4 KiB takes beyond
 * latency and bytes (taking the first step that passes gave 1 KiB and
 * 1.4 us in the first; the largest in microseconds 16 and 32 KiB and
 * 6-8 us in the others). */
typedef struct {
    double t[20][4]; /* bytes, one-way, exchange, back to back */
    double rndv_us;
} recorded_link_t;

static const recorded_link_t recorded_shm[] = {
    {{{8, 0.434, 0.644, 0.644},         {16, 0.480, 0.589, 0.589},
      {32, 0.506, 0.591, 0.591},        {64, 0.590, 0.641, 0.641},
      {128, 0.607, 0.686, 0.686},       {256, 0.674, 0.737, 0.737},
      {512, 0.918, 1.317, 1.317},       {1024, 1.123, 1.476, 1.476},
      {2048, 1.705, 2.302, 2.302},      {4096, 3.994, 5.068, 5.068},
      {8192, 4.757, 5.984, 6.721},      {16384, 6.157, 5.824, 7.961},
      {32768, 8.650, 7.811, 11.424},    {65536, 13.679, 12.063, 17.784},
      {131072, 20.582, 20.603, 24.585}, {262144, 36.699, 33.797, 43.139},
      {524288, 70.903, 64.201, 84.780}, {1048576, 149.556, 147.767, 182.264},
      {2097152, 290.775, 255.674, 321.837}, {4194304, 538.496, 507.251, 513.844}},
     3.93},
    {{{8, 0.396, 0.611, 0.611},         {16, 0.465, 0.591, 0.591},
      {32, 0.509, 0.581, 0.581},        {64, 0.596, 0.732, 0.732},
      {128, 0.598, 0.680, 0.680},       {256, 0.649, 0.782, 0.782},
      {512, 0.901, 1.149, 1.149},       {1024, 0.985, 1.318, 1.318},
      {2048, 1.256, 1.557, 1.557},      {4096, 2.724, 4.010, 4.010},
      {8192, 3.631, 6.237, 6.237},      {16384, 5.959, 7.010, 8.214},
      {32768, 9.836, 12.202, 12.202},   {65536, 15.176, 19.257, 19.257},
      {131072, 21.570, 19.482, 22.973}, {262144, 36.294, 32.432, 45.331},
      {524288, 66.931, 70.389, 79.554}, {1048576, 136.037, 128.330, 166.832},
      {2097152, 262.887, 246.221, 307.237}, {4194304, 491.913, 500.397, 529.282}},
     2.94},
    {{{8, 0.480, 0.697, 0.697},         {16, 0.568, 0.669, 0.669},
      {32, 0.789, 0.670, 0.670},        {64, 0.616, 0.770, 0.770},
      {128, 0.637, 0.681, 0.681},       {256, 0.623, 0.772, 0.772},
      {512, 0.935, 1.263, 1.263},       {1024, 1.143, 1.440, 1.440},
      {2048, 1.452, 1.926, 1.926},      {4096, 3.594, 4.362, 4.890},
      {8192, 3.851, 5.029, 5.618},      {16384, 5.503, 6.232, 7.628},
      {32768, 7.817, 7.928, 11.036},    {65536, 13.661, 16.169, 17.336},
      {131072, 26.889, 22.003, 26.326}, {262144, 40.767, 35.810, 47.133},
      {524288, 72.210, 81.111, 163.045}, {1048576, 177.408, 155.781, 205.766},
      {2097152, 305.989, 322.100, 344.022}, {4194304, 537.112, 581.000, 587.467}},
     3.08},
};

static void test_recorded_switch(void)
{
    for (int k = 0; k < NELEMS(recorded_shm); k++) {
        const recorded_link_t *r = &recorded_shm[k];
        rabred_cal_link_t m;
        memset(&m, 0, sizeof(m));
        for (m.n = 0; m.n < NELEMS(r->t); m.n++) {
            m.bytes[m.n] = r->t[m.n][0];
            m.oneway[m.n] = 1e-6 * r->t[m.n][1];
            m.exchange[m.n] = 1e-6 * r->t[m.n][2];
            m.repeated[m.n] = 1e-6 * r->t[m.n][3];
        }
        rabred_link_units_t got = rabred_default_intra;
        CHECK(0 == rabred_cal_fit_link(&m, &got) && 2048 == got.eager_bytes &&
                  close_to(got.rndv_us, r->rndv_us, 0.02),
              "recorded shared memory %d: eager %g B (want 2048), handshake %g us (want %g)",
              k, got.eager_bytes, got.rndv_us, r->rndv_us);
    }
}

/* The ring handshake's scan as rabred-calibrate recorded it on the
 * emulated cluster (16 ranks, 100 Mbit/s links, Open MPI 4.1.4's TCP BTL,
 * 2026-12-06; bench/results/ring-handshake-20261206): bytes, the exchange
 * round's median (us), the median of ring - exchange sample by sample
 * (us), and in how many of 11 samples the ring took longer.  Ping-pong
 * showed no protocol switch there; every run puts the ring's at 32 KiB
 * and its handshake at 3.0-3.8 ms, though single sizes below (1-8 KiB:
 * the ring slower by 20-50 us in nearly every sample) pay on their own. */
static const double recorded_ring[3][11][4] = {
    {{256, 120.7, 4.8, 7}, {512, 138.3, 12.1, 11}, {1024, 137.7, 27.1, 11},
     {2048, 227.6, 20.5, 11}, {4096, 438.4, 25.4, 10}, {8192, 780.1, 38.3, 11},
     {16384, 1763.8, 46.9, 7}, {32768, 3832.1, 61.8, 6}, {65536, 7563.4, 2037.3, 11},
     {131072, 15106.9, 3001.9, 10}, {262144, 26245.5, 6074.0, 9}},
    {{256, 82.4, 9.1, 9}, {512, 129.4, 12.4, 10}, {1024, 132.4, 24.1, 11},
     {2048, 228.9, 16.1, 9}, {4096, 437.9, 25.9, 11}, {8192, 824.6, 48.9, 11},
     {16384, 1791.3, 17.9, 6}, {32768, 3819.8, 25.9, 7}, {65536, 8563.0, 1339.2, 11},
     {131072, 14276.1, 3615.3, 11}, {262144, 26410.4, 4916.9, 9}},
    {{256, 144.0, 20.0, 8}, {512, 132.0, 28.1, 9}, {1024, 145.1, 31.4, 8},
     {2048, 246.7, 6.8, 8}, {4096, 457.3, 41.5, 11}, {8192, 896.3, 40.9, 11},
     {16384, 1748.7, 161.2, 8}, {32768, 3757.3, 327.3, 8}, {65536, 7331.9, 3626.7, 9},
     {131072, 14329.3, 3820.6, 11}, {262144, 26034.8, 4962.0, 11}},
};

/* rabred_cal_ring_handshake over n rows {bytes, pairs us, excess us, slower}. */
static int ring_fit(const double (*rows)[4], int n, double *switch_bytes, double *cross_us)
{
    double bytes[RABRED_CAL_MAX_SIZES], excess[RABRED_CAL_MAX_SIZES], pairs[RABRED_CAL_MAX_SIZES];
    int slower[RABRED_CAL_MAX_SIZES];
    for (int i = 0; i < n; i++) {
        bytes[i] = rows[i][0];
        pairs[i] = 1e-6 * rows[i][1];
        excess[i] = 1e-6 * rows[i][2];
        slower[i] = (int)rows[i][3];
    }
    return rabred_cal_ring_handshake(bytes, excess, pairs, slower, 11, n, 13.89e-6, switch_bytes,
                                     cross_us);
}

/* The ring handshake's fit: the recorded scans give the switch at 32 KiB
 * and the median of the sizes above it; a ring no slower than the pairs,
 * or slower only at some sizes below the largest, gives none; a ring
 * slower at every size puts the switch below the first; a ring slower by
 * less than 10 % of the round, or in fewer than half the samples, does not
 * lean; sizes that lean pay when their samples together pass the sign
 * test (9 of 11 for one size alone, 16 of 22 for two). */
static void test_ring_handshake(void)
{
    const double want[3] = {3001.9, 3615.3, 3820.6};
    double sw, cross;
    for (int k = 0; k < 3; k++) {
        int n = ring_fit(recorded_ring[k], 11, &sw, &cross);
        CHECK(3 == n && 32768 == sw && fabs(cross - want[k]) < 1e-6,
              "recorded scan %d: %d sizes, switch %g B (want 32768), handshake %g us (want %g)",
              k, n, sw, cross, want[k]);
    }
    /* 8 of 16 ranks on the emulated cluster (bench/results/calibrate-20261207b/half-5):
     * 7, 10 and 8 of 11 from 64 KiB; 64 KiB's 594 us is under 10 % of
     * its round, so the two above it (18 of 22) give the term */
    const double half_ring[3][4] = {{65536, 10341.0, 593.8, 7},
                                    {131072, 18409.4, 2074.5, 10},
                                    {262144, 31795.4, 4994.6, 8}};
    CHECK(2 == ring_fit(half_ring, 3, &sw, &cross) && 65536 == sw &&
              fabs(cross - 3534.55) < 1e-6,
          "recorded scan on 8 ranks: switch %g B (want 65536), handshake %g us (want 3534.55)",
          sw, cross);
    double rows[6][4];
    for (int i = 0; i < 6; i++) {
        double b = 4096 << i, pairs = b / 10; /* us: 10 MB/s */
        rows[i][0] = b;
        rows[i][1] = pairs;
        rows[i][2] = b > 32768 ? 5000 : 0.02 * pairs;
        rows[i][3] = b > 32768 ? 11 : 5;
    }
    CHECK(2 == ring_fit((const double(*)[4])rows, 6, &sw, &cross) && 32768 == sw &&
              fabs(cross - 5000) < 1e-6,
          "synthetic switch above 32 KiB: switch %g B, handshake %g us", sw, cross);
    rows[5][3] = 8; /* the largest: 8 of 11, with the one before 19 of 22 */
    CHECK(2 == ring_fit((const double(*)[4])rows, 6, &sw, &cross) && 32768 == sw,
          "8 of 11 beside 11 of 11 (19 of 22) does not pay: %g B, %g us", sw, cross);
    CHECK(!rabred_cal_ring_pays(1e-6 * rows[5][2], 1e-6 * rows[5][1], 8, 11, 13.89e-6) &&
              rabred_cal_ring_pays(1e-6 * rows[5][2], 1e-6 * rows[5][1], 9, 11, 13.89e-6),
          "one size alone: 8 of 11 paid, or 9 of 11 did not");
    rows[4][3] = 7; /* 15 of 22: chance 13 % */
    CHECK(0 == ring_fit((const double(*)[4])rows, 6, &sw, &cross) && 0 == sw && 0 == cross,
          "8 and 7 of 11 paid: %g B, %g us", sw, cross);
    rows[4][3] = 11;
    rows[5][3] = 5; /* the largest faster in most samples */
    CHECK(0 == ring_fit((const double(*)[4])rows, 6, &sw, &cross) && 0 == sw && 0 == cross,
          "the largest size does not lean: no switch (%g B, %g us)", sw, cross);
    rows[5][3] = 11;
    rows[5][2] = 0.09 * rows[5][1];
    CHECK(0 == ring_fit((const double(*)[4])rows, 6, &sw, &cross),
          "the largest size 9%% slower: no switch (%g B, %g us)", sw, cross);
    for (int i = 0; i < 6; i++) {
        rows[i][2] = 0.5 * rows[i][1];
        rows[i][3] = 11;
    }
    CHECK(6 == ring_fit((const double(*)[4])rows, 6, &sw, &cross) && 2048 == sw,
          "every size pays: the switch below the first (%g B, want 2048)", sw);
}

/* A network whose ring step pays from `switch_bytes` + 1 on, counting
 * the sizes asked. */
typedef struct {
    double switch_bytes;
    int asked;
} fake_switch_t;

static int fake_pays(double bytes, void *ctx)
{
    fake_switch_t *net = ctx;
    net->asked++;
    return bytes > net->switch_bytes;
}

/* The switch's bisection: never above the true switch, within an eighth
 * of the octave after 3 steps, 3 sizes measured; TCP's 64 KiB limit less
 * a header is found at 61440, not the scan's 32768. */
static void test_refine_switch(void)
{
    const double truths[] = {32768, 32769, 40000, 49152, 65536 - 64, 65535};
    for (int k = 0; k < NELEMS(truths); k++) {
        fake_switch_t net = {truths[k], 0};
        double got = rabred_cal_refine_switch(32768, 65536, 3, fake_pays, &net);
        CHECK(got <= truths[k] && truths[k] - got < 32768.0 / 8 && 3 == net.asked,
              "switch %g: found %g after %d sizes (want <= it, within 4096, 3 sizes)",
              truths[k], got, net.asked);
    }
    fake_switch_t tcp = {65536 - 64, 0};
    double got = rabred_cal_refine_switch(32768, 65536, 3, fake_pays, &tcp);
    CHECK(61440 == got, "TCP's eager limit: switch %g (want 61440)", got);
    fake_switch_t close = {100, 0};
    got = rabred_cal_refine_switch(96, 104, 3, fake_pays, &close);
    CHECK(96 == got && 0 == close.asked, "sizes 8 bytes apart: no probe, switch %g (%d asked)",
          got, close.asked);
}

static void test_refused(void)
{
    rabred_link_units_t ib = {.alpha_us = 2, .mbs = 12000, .oneway_alpha = 0.8,
                              .oneway_beta = 1.0, .eager_bytes = 16384, .rndv_us = 3,
                              .rndv_oneway_us = 3};
    rabred_cal_link_t m, bad;
    synthesize(&ib, &m);
    struct {
        const char *what;
        void (*spoil)(rabred_cal_link_t *);
    } cases[] = {
        {"two sizes", NULL},
        {"a zero time", NULL},
        {"sizes not increasing", NULL},
        {"NaN", NULL},
        {"exchange slower for smaller messages", NULL},
    };
    for (int k = 0; k < NELEMS(cases); k++) {
        bad = m;
        switch (k) {
        case 0: bad.n = 2; break;
        case 1: bad.oneway[3] = 0; break;
        case 2: bad.bytes[5] = bad.bytes[4]; break;
        case 3: bad.exchange[7] = NAN; break;
        default:
            for (int i = 0; i < bad.n; i++) {
                bad.exchange[i] = 1e-3 - 1e-12 * bad.bytes[i];
            }
        }
        rabred_link_units_t out = rabred_default_intra;
        CHECK(0 != rabred_cal_fit_link(&bad, &out) &&
                  0 == memcmp(&out, &rabred_default_intra, sizeof(out)),
              "%s: accepted, or the defaults changed", cases[k].what);
    }
}

static void test_round_terms(void)
{
    CHECK(close_to(rabred_cal_excess_us(50e-6, 20e-6), 30, 1e-9), "sync of 50 us rounds");
    CHECK(0 == rabred_cal_excess_us(10e-6, 20e-6), "a negative excess");
    CHECK(close_to(rabred_cal_mbs(1 << 20, 1e-4), 10485.76, 1e-9), "MB/s");
    CHECK(0 == rabred_cal_mbs(1 << 20, 0), "MB/s of no time");

    /* ring rounds of 1.5 x 0.9 x an exchange round's bytes' time, one-way
     * at 0.9 of an exchange's per byte: duplex 1.5 */
    CHECK(close_to(rabred_cal_duplex_rounds(1.35e-3 + 1e-4, 1e-3 + 1e-4, 1e-4, 0.9), 1.5, 1e-9),
          "duplex 1.5");
    CHECK(1 == rabred_cal_duplex_rounds(0.8e-3, 1e-3, 0, 1), "duplex below 1");
    CHECK(1 == rabred_cal_duplex_rounds(1.05e-3, 1e-3, 0, 1), "duplex within the noise");
    CHECK(1 == rabred_cal_duplex_rounds(1e-3, 0, 0, 1), "duplex without pair rounds");
    CHECK(1 == rabred_cal_duplex_rounds(1e-3, 1e-3, 2e-3, 1), "duplex of rounds below sync");

    /* 16 ranks of 64 KiB per round: 10 ms against 5 ms on half -> limited */
    double agg = rabred_cal_aggregate_mbs(16, 65536, 10e-3, 0, 5e-3);
    CHECK(close_to(agg, 16 * 65536 / 10e-3 * 1e-6, 1e-9), "aggregate %g MB/s", agg);
    CHECK(0 == rabred_cal_aggregate_mbs(16, 65536, 10.5e-3, 0, 10e-3),
          "5 %% slower on all ranks is no limit");
    CHECK(0 == rabred_cal_aggregate_mbs(16, 65536, 10e-3, 0, 0), "no half measurement");

    /* pairs 1, 2, 4 and 8 apart, as on a torus row of 16: the far ones
     * at half and a quarter of the near ones' speed; 2 apart within the
     * spread: the link's own */
    double d[RABRED_DISTANCE_CLASSES];
    const double far[4] = {1e-3 + 1e-4, 1.05e-3 + 1e-4, 2e-3 + 1e-4, 4e-3 + 1e-4};
    CHECK(4 == rabred_cal_distance_mbs(1000, far, 4, 1e-4, 0, d) && close_to(d[0], 1000, 1e-9) &&
              close_to(d[1], 1000, 1e-9) && close_to(d[2], 500, 1e-9) && close_to(d[3], 250, 1e-9),
          "distances: %g %g %g %g MB/s", d[0], d[1], d[2], d[3]);
    const double even[3] = {1e-3, 1.08e-3, 1.02e-3};
    CHECK(0 == rabred_cal_distance_mbs(1000, even, 3, 0, 0, d), "no distance slower: nothing");
    /* the emulated cluster under load: rounds with a 22% spread, and
     * distance 8 1.17x slower than distance 1 in their medians (noise:
     * one switch, the same route at every distance) */
    const double loaded[4] = {1.3e-1, 1.31e-1, 1.39e-1, 1.3e-1 * 1.17};
    CHECK(0 == rabred_cal_distance_mbs(1000, loaded, 4, 0, 0.22, d),
          "1.17x within a 22%% spread: nothing");
    CHECK(4 == rabred_cal_distance_mbs(1000, loaded, 4, 0, 0.05, d) &&
              close_to(d[3], 1000 / 1.17, 1e-9),
          "1.17x beyond a 5%% spread: %g MB/s at distance 8", d[3]);
    CHECK(4 == rabred_cal_distance_mbs(1000, far, 4, 1e-4, 0.22, d) && close_to(d[2], 500, 1e-9),
          "2x beyond a 22%% spread: %g MB/s at distance 4", d[2]);
    const double missing[3] = {1e-3, 0, 4e-3};
    CHECK(0 == rabred_cal_distance_mbs(1000, missing, 3, 0, 0, d), "a missing time: nothing");
}

/* The fan's terms: SMPI's crossbar (alpha 1.0128 us, 0.0128 us a message
 * more: 8 senders take 0.0896 us more than one) has 1 us of wire latency;
 * a transport whose per-message work is all of alpha none; 1 MiB in
 * 839.9 us alone and 1678.8 us as the first of two (SMPI, measured by
 * rabred_scale) shares its link, and one whose first of two is in at one
 * message's time takes turns. */
static void test_fan_terms(void)
{
    double one = 2.0256e-6, all = one + 7 * 0.0128e-6;
    CHECK(close_to(rabred_cal_wire_us(1.0128, 8, one, all), 1.0, 1e-9), "wire %g us",
          rabred_cal_wire_us(1.0128, 8, one, all));
    CHECK(0 == rabred_cal_wire_us(1.0, 8, one, one + 7 * 2e-6), "overhead above alpha: no wire");
    CHECK(close_to(rabred_cal_wire_us(1.0, 3, one, one - 1e-7), 1.0, 1e-9),
          "all faster than one (noise): overhead 0, the whole alpha is wire");
    CHECK(0 == rabred_cal_wire_us(1.0, 1, one, all), "one sender says nothing");
    CHECK(0 == rabred_cal_wire_us(1.0, 8, 0, all), "a missing time says nothing");
    CHECK(1 == rabred_cal_shared_ports(839.884e-6, 1678.76e-6), "SMPI shares its link");
    CHECK(0 == rabred_cal_shared_ports(839.884e-6, 850e-6), "turns: the first at one message");
    CHECK(0 == rabred_cal_shared_ports(0, 1e-3), "no time alone says nothing");
    /* SMPI's loopback inside a host (bench/scale's nodes of 16): 1 MiB
     * alone and both of two in 105.069 us: no port */
    CHECK(1 == rabred_cal_parallel_ports(105.069e-6, 105.069e-6, 105.069e-6), "no port");
    CHECK(0 == rabred_cal_parallel_ports(839.884e-6, 850e-6, 1678.76e-6),
          "turns: the last at two messages");
    CHECK(0 == rabred_cal_parallel_ports(839.884e-6, 1678.76e-6, 1678.76e-6),
          "shared: not parallel");
    CHECK(0 == rabred_cal_parallel_ports(1e-3, 1e-3, 0), "no last time says nothing");
}

/* A send buffer seen as the time a send's last bytes take after it
 * returned: 100 Mbit/s TCP-like one-way terms, 4 MiB sent. */
static void test_send_buffer(void)
{
    rabred_link_units_t tcp = {.alpha_us = 60, .mbs = 6.25, .oneway_alpha = 1, .oneway_beta = 0.5};
    double per_byte = 0.5 * 1e-6 / 6.25, latency = 60e-6, bytes = 4 << 20;
    double delivered = latency + bytes * per_byte, buffer = 1.3 * 1048576;
    double got = rabred_cal_send_buffer_bytes(&tcp, bytes, latency + (bytes - buffer) * per_byte,
                                              delivered);
    CHECK(close_to(got, buffer, 1e-9), "1.3 MiB buffer: got %g bytes", got);
    got = rabred_cal_send_buffer_bytes(&tcp, bytes, delivered - 1e-3, delivered);
    CHECK(close_to(got, 1e-3 / per_byte, 1e-9), "returned 1 ms before the end: %g", got);
    got = rabred_cal_send_buffer_bytes(&tcp, bytes, 0, delivered + 1.0);
    CHECK(bytes == got, "never more than the message: %g", got);
    CHECK(0 == rabred_cal_send_buffer_bytes(&tcp, bytes, delivered, delivered),
          "a send that returned when the message was in: no buffer");
    CHECK(0 == rabred_cal_send_buffer_bytes(&tcp, bytes, 2 * delivered, delivered),
          "returned after delivery (noise): no buffer");
    rabred_link_units_t none = tcp;
    none.mbs = 0;
    CHECK(0 == rabred_cal_send_buffer_bytes(&none, bytes, 0, delivered),
          "no bandwidth fitted: no buffer");
}

/* ---- the recorded cluster ------------------------------------------------ */

/* One recording: the link's per-size medians, the terms measured apart, and
 * every algorithm forced (rabred_recorded_cluster.py writes them). */
typedef struct {
    const char *name;
    int n;
    const double *bytes, *oneway_us, *exchange_us, *repeated_us, *repeated_sf_us;
    double reduce_mbs, copy_mbs, sync_us, peer_us, duplex, send_buffer_bytes;
    const recorded_run_t *runs;
    int nruns;
} recording_t;

/* Receive-first exchanges (before the executor's sends_first_bytes): every
 * p from 2 to 16. */
static const recording_t receive_first = {
    "recorded cluster, receive first", NELEMS(recorded_bytes), recorded_bytes,
    recorded_oneway_us, recorded_exchange_us, recorded_repeated_us, NULL, recorded_reduce_mbs,
    recorded_copy_mbs, recorded_sync_us, recorded_peer_us, recorded_duplex,
    recorded_send_buffer_bytes, recorded_runs, NELEMS(recorded_runs)};

/* The executor of today (sends first from 64 KiB), p = 2, 3, 4, 5, 8, 13, 16. */
static const recording_t sends_first = {
    "recorded cluster, sends first", NELEMS(recorded_sf_bytes), recorded_sf_bytes,
    recorded_sf_oneway_us, recorded_sf_exchange_us, recorded_sf_repeated_us,
    recorded_sf_repeated_sf_us, recorded_sf_reduce_mbs, recorded_sf_copy_mbs,
    recorded_sf_sync_us, recorded_sf_peer_us, recorded_sf_duplex,
    recorded_sf_send_buffer_bytes, recorded_sf_runs, NELEMS(recorded_sf_runs)};

static rabred_model_t recorded_model(const recording_t *rec)
{
    rabred_cal_link_t m = {.n = rec->n};
    for (int i = 0; i < m.n; i++) {
        m.bytes[i] = rec->bytes[i];
        m.oneway[i] = 1e-6 * rec->oneway_us[i];
        m.exchange[i] = 1e-6 * rec->exchange_us[i];
        m.repeated[i] = 1e-6 * rec->repeated_us[i];
        m.repeated_sf[i] = NULL != rec->repeated_sf_us ? 1e-6 * rec->repeated_sf_us[i] : 0;
    }
    rabred_link_units_t link = rabred_default_inter;
    CHECK(0 == rabred_cal_fit_link(&m, &link), "%s: the link is refused", rec->name);
    link.peer_us = rec->peer_us;
    link.duplex = rec->duplex;
    link.send_buffer_bytes = rec->send_buffer_bytes;
    return rabred_model_make_copy(&link, rec->reduce_mbs, rec->sync_us, rec->copy_mbs);
}

typedef struct {
    long pairs, agree;      /* pairs measured apart by >= 25 %, and ordered alike */
    int cells, near_best;   /* cells, and those where the model's pick is within 15 % */
    double worst;
} ranking_t;

/* One (coll, p, bytes) cell: runs[first .. last). */
static void rank_cell(rabred_pricebooks_t *books, const rabred_model_t *model,
                      const recorded_run_t *runs, int first, int last, ranking_t *r)
{
    const recorded_run_t *c = &runs[first];
    rabred_coll_t coll = 0 == strcmp(c->coll, "reduce") ? RABRED_COLL_REDUCE
                                                          : RABRED_COLL_ALLREDUCE;
    const rabred_pricebook_t *book;
    double price[64], best_us = 1e300, pick_us = 0, pick_price = 1e300;
    const char *best = "", *pick = "";
    CHECK(RABRED_OK == rabred_pricebooks_get(books, coll, c->p, 0, model, &book), "book");
    rabred_price_call_t call = {c->p, RABRED_COLL_REDUCE == coll ? 0 : -1, 1, c->bytes, 0, 0};
    for (int i = first; i < last && i - first < 64; i++) {
        const rabred_alg_t *alg = rabred_table_by_name(coll, runs[i].alg);
        CHECK(NULL != alg, "no algorithm %s", runs[i].alg);
        price[i - first] = -1;
        if (NULL != alg) {
            CHECK(RABRED_OK == rabred_model_price(book, alg, &call, &price[i - first]), "price");
        }
        double us = runs[i].us, t = price[i - first];
        if (us < best_us) {
            best_us = us;
            best = runs[i].alg;
        }
        if (t >= 0 && t < pick_price) {
            pick_price = t;
            pick_us = us;
            pick = runs[i].alg;
        }
    }
    for (int i = first; i < last; i++) {
        for (int j = first; j < last; j++) {
            double a = runs[i].us, b = runs[j].us;
            if (a < b / 1.25 && price[i - first] >= 0 && price[j - first] >= 0) {
                r->pairs++;
                r->agree += price[i - first] < price[j - first];
            }
        }
    }
    if (pick_us > 1.15 * best_us) { /* the log shows where the model misses */
        printf("  %s p=%d %d B: the model picks %s, %.2fx of the best, %s\n", c->coll, c->p,
               c->bytes, pick, pick_us / best_us, best);
    }
    r->cells++;
    r->near_best += pick_us <= 1.15 * best_us;
    r->worst = pick_us / best_us > r->worst ? pick_us / best_us : r->worst;
}

/* How the model built from rec's calibration ranks rec's runs of `coll`
 * (NULL: both), printed. */
static ranking_t rank_recording(const recording_t *rec, const char *coll)
{
    rabred_model_t model = recorded_model(rec);
    rabred_pricebooks_t books;
    memset(&books, 0, sizeof(books));
    ranking_t r = {0, 0, 0, 0, 1};
    for (int first = 0; first < rec->nruns;) {
        const recorded_run_t *f = &rec->runs[first];
        int last = first + 1;
        while (last < rec->nruns && 0 == strcmp(rec->runs[last].coll, f->coll) &&
               rec->runs[last].p == f->p && rec->runs[last].bytes == f->bytes) {
            last++;
        }
        if (NULL == coll || 0 == strcmp(coll, f->coll)) {
            rank_cell(&books, &model, rec->runs, first, last, &r);
        }
        first = last;
    }
    rabred_pricebooks_free(&books);
    printf("%s, %s: %ld of %ld pairs measured 1.25x apart ordered alike (%.0f%%); the model's "
           "pick within 1.15x of the measured best in %d of %d cells, worst %.2fx\n",
           rec->name, NULL != coll ? coll : "both", r.agree, r.pairs,
           100.0 * (double)r.agree / (double)(r.pairs > 0 ? r.pairs : 1), r.near_best, r.cells,
           r.worst);
    return r;
}

static void check_ranking(const recording_t *rec, const ranking_t *r, long min_pairs)
{
    double agree = (double)r->agree / (double)(r->pairs > 0 ? r->pairs : 1);
    CHECK(r->pairs > min_pairs && agree >= RECORDED_MIN_AGREE, "%s: ranking agreement %.3f",
          rec->name, agree);
    CHECK(r->near_best >= RECORDED_MIN_NEAR_BEST * r->cells, "%s: picks near the best: %d of %d",
          rec->name, r->near_best, r->cells);
}

static void test_recorded_ranking(void)
{
    ranking_t both = rank_recording(&receive_first, NULL);
    check_ranking(&receive_first, &both, 1000);
    /* Today's executor, each collective held to the same standard.
     * MPI_Reduce, priced by the ranks' average time, rests on the send
     * buffer: a send returns once all but TCP's socket buffer (1.27 MB)
     * has left, so a binomial leaf's 1 MiB send returns in 0.27 ms against
     * 88 ms on the wire; without that term the model picked exchange plans
     * where binomial is best, in 18 of 28 cells. */
    ranking_t allreduce = rank_recording(&sends_first, "allreduce");
    check_ranking(&sends_first, &allreduce, 300);
    ranking_t reduce = rank_recording(&sends_first, "reduce");
    check_ranking(&sends_first, &reduce, 250);
}

/* A transport whose receive-first exchanges serialise from 64 KiB (3x
 * back to back) while send-first ones do not: the executor's order
 * switches there, and the repeat term is the order it will use. */
static void test_sends_first(void)
{
    rabred_link_units_t tcp = {.alpha_us = 10, .mbs = 12, .oneway_alpha = 0.7,
                               .oneway_beta = 1.0, .eager_bytes = 0, .rndv_us = 0, .repeat = 3};
    rabred_cal_link_t m;
    rabred_link_units_t got = rabred_default_inter;
    synthesize(&tcp, &m);
    for (int i = 0; i < m.n; i++) {
        m.repeated_sf[i] = m.exchange[i] * (m.bytes[i] >= 65536 ? 1.05 : 1.0);
    }
    CHECK(0 == rabred_cal_fit_link(&m, &got), "sends first: refused");
    CHECK(65536 == got.sends_first_bytes, "sends first from %g bytes, want 65536",
          got.sends_first_bytes);
    CHECK(close_to(got.repeat, 1.05, 1e-6) || 1 == got.repeat,
          "repeat %g read the receive-first times", got.repeat);
    CHECK(close_to(got.mbs, tcp.mbs, 1e-6), "sends first changed the bandwidth: %g", got.mbs);

    /* no gain, or one only at some sizes below the largest: receives first */
    synthesize(&tcp, &m);
    for (int i = 0; i < m.n; i++) {
        m.repeated_sf[i] = m.repeated[i] * (m.bytes[i] == 65536 ? 0.5 : 0.95);
    }
    got = rabred_default_inter;
    CHECK(0 == rabred_cal_fit_link(&m, &got) && 0 == got.sends_first_bytes,
          "a 5%% gain (within the spread) switched the order at %g", got.sends_first_bytes);
    CHECK(close_to(got.repeat, 3, 0.01), "repeat %g, want the receive-first 3", got.repeat);
}

int main(void)
{
    test_synthetic();
    test_recorded_switch();
    test_ring_handshake();
    test_refine_switch();
    test_sends_first();
    test_refused();
    test_round_terms();
    test_send_buffer();
    test_fan_terms();
    test_recorded_ranking();
    return rabred_test_summary("test_calibrate");
}
