/*
 * The closed-form prices of MPI_Reduce's algorithms (rabred_alg_t.price,
 * rabred_price.h) against the simulator (no MPI).  A reduce price is seed
 * 004's average elapsed time over ranks (rabred_model_metric): for every
 * algorithm with a price, the simulator's avg_elapsed of the same call
 * (cost_only, 1-byte elements: count = bytes) must equal it
 *  - for every p = 2..200 and p in {256, 257, 511, 1000, 1024};
 *  - at roots {0, 1, p/2, p-1}, every root for p <= 12, with commutative
 *    and non-commutative ops where the algorithm allows them (fewer for
 *    pairwise_gather, whose p^2 messages would take most of the run);
 *  - at counts 0, 1, p-1, p'+1 (p' = largest power of two <= p), 2 p p'
 *    and 6 p p' (every block and window even), 1000003 and 3 * 2^31 + 7;
 *  - under six cost models: f_alpha = f_beta = 1 exactly, a TCP-like one,
 *    and random ones (fixed seed, f_alpha and f_beta in (0.3, 1)) that
 *    balance the terms or let alpha, beta or gamma dominate;
 * to 1e-9 relative, where the closed form is exact.  Where it is not:
 *  - pairwise_gather and pipeline price blocks of n/p and segments of n/S
 *    bytes; when count leaves them uneven (one byte apart), one byte of
 *    beta + gamma per step of their chain is allowed: p (beta + gamma) and
 *    (p + S) (beta + gamma).  Counts that leave some block empty (count < p
 *    for pairwise_gather, 0 for both) make the plans drop messages these
 *    forms still charge: not checked;
 *  - pipeline's form assumes the chain ends at the root: root 0 with a
 *    commutative op, root p-1 with a non-commutative one only;
 *  - rabenseifner is not allowed below count p': its price says so (< 0);
 *  - binary_blocks below count p' with a send buffer: a rank whose window
 *    empties before the gather leaves, in the simulator, when its last
 *    halving send is buffered; the price keeps it to the halving's end.
 *    Each such gap is under the call's bytes' time: count beta allowed.
 * The other five (binomial, rabenseifner, linear, binary_tree,
 * binary_blocks) are exact at every call checked, binary_blocks below
 * count p' with a send buffer excepted (above).  Each price must also
 * be cheap at large p (O(p), no allocation): evaluated at p = 4096..65537.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sim/rabred_sim.h"
#include "rabred_test.h"
#include "plan/rabred_toolkit.h"

#define NMODELS 9
#define LARGE_COUNT (((int64_t)3 << 31) + 7)

static rabred_model_t models[NMODELS];

/* xorshift64*: the same models on every platform */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(double lo, double hi)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 0x2545f4914f6cdd1dULL) >> 11) / 9007199254740992.0;
}

/* alpha, beta, gamma of a random model: 10^-3..1, times `weight` */
static rabred_model_t random_model(double wa, double wb, double wg)
{
    rabred_model_t m = RABRED_TEST_MODEL(wa * pow(10, uniform(-3, 0)), wb * pow(10, uniform(-3, 0)),
                                         wg * pow(10, uniform(-3, 0)), uniform(0.3, 1),
                                         uniform(0.3, 1));
    return m;
}

static void models_init(void)
{
    models[0] = (rabred_model_t)RABRED_TEST_MODEL(1e-6, 1e-9, 0.3e-9, 1.0, 1.0);  /* f = 1 exactly */
    models[1] = (rabred_model_t)RABRED_TEST_MODEL(60e-6, 160e-9, 0.5e-9, 1.0, 0.5); /* TCP-like (test_model) */
    models[2] = random_model(1, 1, 1);                             /* balanced */
    models[3] = random_model(1e3, 1, 1);                           /* alpha dominates */
    models[4] = random_model(1e-3, 1e3, 1);                        /* beta dominates */
    models[5] = random_model(1e-3, 1, 1e3);                        /* gamma dominates */
    /* senders released early by a send buffer (rabred_price_released) */
    models[6] = models[1];
    models[6].send_buffer = 1.3 * 1048576; /* TCP's socket buffer (rabred-calibrate) */
    models[7] = random_model(1, 1, 1);
    models[7].send_buffer = pow(10, uniform(1, 6));
    models[8] = random_model(1e-3, 1e3, 1);
    models[8].send_buffer = pow(10, uniform(1, 6));
}

/* The pipeline's segment count for seg bytes per segment (its builder's). */
static int64_t pipeline_segments(int64_t count, int64_t seg)
{
    int64_t nseg = seg > 0 && count > seg ? (count + seg - 1) / seg : 1;
    return nseg < RABRED_PIPELINE_MAX_SEGMENTS ? nseg : RABRED_PIPELINE_MAX_SEGMENTS;
}

/* Is the call one the algorithm's price claims, and with what slack in
 * seconds (0: exact)?  < 0: not checked (see the header). */
static double slack(const rabred_alg_t *alg, const rabred_price_call_t *c, const rabred_model_t *m)
{
    rabred_call_t call = {c->p, c->bytes, c->commutative, NULL};
    double per_byte = m->beta + m->gamma;
    if (NULL != rabred_alg_violation(alg, &call)) {
        return -1.0;
    }
    if (0 == strcmp(alg->name, "pairwise_gather")) {
        return c->bytes < c->p ? -1.0 : c->bytes % c->p ? c->p * per_byte : 0.0;
    }
    if (0 == strcmp(alg->name, "pipeline")) {
        int64_t nseg = pipeline_segments(c->bytes, c->seg_bytes);
        int chain_ends_at_root = c->commutative ? 0 == c->root : c->p - 1 == c->root;
        if (0 == c->bytes || !chain_ends_at_root) {
            return -1.0;
        }
        return c->bytes % nseg ? (double)(c->p + nseg) * per_byte : 0.0;
    }
    if (0 == strcmp(alg->name, "binary_blocks") && m->send_buffer > 0 &&
        c->bytes < rabred_pof2_floor(c->p)) {
        return (double)c->bytes * m->beta * (m->f_beta > 1 ? m->f_beta : 1);
    }
    return 0.0;
}

static long calls_checked;

/* One call under every model: price against the simulator. */
static void check_call(const rabred_alg_t *alg, int p, int root, int commutative, int64_t count,
                       int64_t seg)
{
    rabred_price_call_t c = {p, root, commutative, count, seg, 0};
    rabred_sim_model_t sm[NMODELS];
    rabred_sim_result_t res[NMODELS];
    if (slack(alg, &c, &models[0]) < 0) {
        return;
    }
    for (int k = 0; k < NMODELS; k++) {
        rabred_sim_model_default(&sm[k]);
        sm[k].alpha = models[k].alpha;
        sm[k].beta = models[k].beta; /* per element: 1-byte elements */
        sm[k].gamma = models[k].gamma;
        sm[k].f_alpha = models[k].f_alpha;
        sm[k].f_beta = models[k].f_beta;
        sm[k].send_buffer = models[k].send_buffer;
    }
    rabred_sim_call_t call = {alg->build, p, root, count, commutative, 0, seg, 1, NULL, NULL};
    int rc = rabred_simulate_models(&call, sm, NMODELS, res);
    CHECK(RABRED_OK == rc && res[0].ok, "%s p=%d root=%d count=%lld: simulation failed (%d, %s)",
          alg->name, p, root, (long long)count, rc, res[0].error);
    for (int k = 0; k < NMODELS && RABRED_OK == rc && res[0].ok; k++) {
        double got = alg->price(&c, &models[k]), want = res[k].avg_elapsed;
        double tol = 1e-9 * fabs(want) + slack(alg, &c, &models[k]);
        CHECK(fabs(got - want) <= tol,
              "%s p=%d root=%d %s count=%lld seg=%lld model %d: price %.12g, simulated %.12g "
              "(slack %g)",
              alg->name, p, root, commutative ? "commutative" : "non-commutative",
              (long long)count, (long long)seg, k, got, want, tol);
    }
    calls_checked++;
}

/* pairwise_gather's plans move p^2 messages, as many as all the others'
 * together at p = 200: to keep the run short, it is checked at roots 0
 * and p-1 only beyond p = 12, and at two counts beyond p = 200. */
static int quadratic(const rabred_alg_t *alg)
{
    return 0 == strcmp(alg->name, "pairwise_gather");
}

/* Every root and op kind at one p and count; the pipeline with one
 * segment and with about eight. */
static void check_p_count(const rabred_alg_t *alg, int p, int64_t count)
{
    int roots[] = {0, p - 1, 1, p / 2};
    int nroots = p <= 12 ? p : quadratic(alg) ? 2 : 4;
    for (int i = 0; i < nroots; i++) {
        int root = p <= 12 ? i : roots[i];
        for (int commutative = 0; commutative <= 1; commutative++) {
            check_call(alg, p, root, commutative, count, 0);
            if (alg->segmented && count >= 16) {
                check_call(alg, p, root, commutative, count, (count + 7) / 8);
            }
        }
    }
}

static void check_p(const rabred_alg_t *alg, int p)
{
    int64_t pof2 = rabred_pof2_floor(p), unit = 2 * (int64_t)p * pof2;
    int64_t counts[] = {unit, 1000003, 0, 1, p - 1, pof2 + 1, 3 * unit, LARGE_COUNT};
    size_t ncounts = p > 200 && quadratic(alg) ? 2 : sizeof(counts) / sizeof(counts[0]);
    for (size_t j = 0; j < ncounts; j++) {
        check_p_count(alg, p, counts[j]);
    }
}

static void test_prices_match_simulator(void)
{
    int large[] = {256, 257, 511, 1000, 1024};
    for (int i = 0; i < rabred_table_size(RABRED_COLL_REDUCE); i++) {
        const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_REDUCE, i);
        long before = calls_checked;
        if (NULL == alg->price) {
            continue;
        }
        for (int p = 2; p <= 200; p++) {
            check_p(alg, p);
        }
        for (size_t j = 0; j < sizeof(large) / sizeof(large[0]); j++) {
            check_p(alg, large[j]);
        }
        printf("%s: %ld calls x %d models\n", alg->name, calls_checked - before, NMODELS);
    }
}

/* rabenseifner below count p' is not allowed; its price says "no price". */
static void test_rabenseifner_refuses_small_counts(void)
{
    const rabred_alg_t *alg = rabred_table_by_name(RABRED_COLL_REDUCE, "rabenseifner");
    for (int p = 3; p <= 64 && NULL != alg; p++) {
        rabred_price_call_t c = {p, 0, 1, rabred_pof2_floor(p) - 1, 0, 0};
        CHECK(alg->price(&c, &models[0]) < 0, "rabenseifner priced count %lld < p' at p=%d",
              (long long)c.bytes, p);
    }
}

/* The first call of a communicator prices every algorithm at its p: at
 * thousands of ranks, too, where nothing may be simulated.  The prices
 * must be finite, positive and grow with the count. */
static void test_large_p(void)
{
    int ps[] = {4096, 4097, 6143, 16383, 65535, 65536, 65537};
    for (int i = 0; i < rabred_table_size(RABRED_COLL_REDUCE); i++) {
        const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_REDUCE, i);
        for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]) && NULL != alg->price; j++) {
            int p = ps[j];
            if (0 == strcmp(alg->name, "pipeline") && p > 46340) {
                continue; /* its (p-1) (p-2) overflows an int: a known bug */
            }
            rabred_price_call_t c = {p, p / 3, 0 == strcmp(alg->name, "pairwise_gather"),
                                     (int64_t)p * 64, 0, 0};
            double small = alg->price(&c, &models[1]);
            c.bytes *= 16;
            double big = alg->price(&c, &models[1]);
            CHECK(isfinite(small) && small > 0 && big > small, "%s p=%d: prices %g, %g",
                  alg->name, p, small, big);
        }
    }
}

int main(void)
{
    models_init();
    test_rabenseifner_refuses_small_counts();
    test_large_p();
    test_prices_match_simulator();
    return rabred_test_summary("test_prices_reduce");
}
