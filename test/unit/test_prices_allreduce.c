/*
 * Every closed-form MPI_Allreduce price (rabred_alg_t.price,
 * algorithms/rabred_price.h) against the simulator (no MPI), all terms on
 * at once: p = 2..300 and a sample up to 1024, seven cost models (one-way
 * factors 1 exactly, three random ones in (0.3, 1), alpha-, beta- and
 * gamma-dominated), counts 0, 1, p/2, p-1, p+1, multiples of 2 p p' and a
 * large odd one (1-byte elements: the price of n bytes is the simulation
 * of count n), commutative and, where the algorithm allows it, not.
 *
 * Each price promises the simulator's completion time within a range:
 *  - exact (relative 1e-9) for recursive_doubling, rabenseifner, linear,
 *    binary_tree at every count, bruck when p divides n, binary_blocks when
 *    p' divides n, and any new price not listed in ranges[] below;
 *  - bruck, other counts: the price charges each round its dearest window,
 *    and those may lie on no single path: the simulator is at most
 *    sum_k min(w_k, n mod p) elements of 2 beta + gamma below it (the long
 *    blocks a window of w_k blocks may hold, in both phases);
 *  - binary_blocks, other counts: the price follows member 0 of every block,
 *    the largest windows; the simulator lies between the exact price of the
 *    even count p' floor(n/p') and the price.  Below n = p' some windows
 *    are empty, and members whose halving steps are then one-way or empty
 *    post their cascade receives earlier than member 0: the simulator is at
 *    most lg p' (1 - f_alpha) alpha + n (beta + gamma) below the price;
 *  - pairwise_ring and neighbor_ring (unsegmented) price blocks of n/p
 *    bytes, but when p does not divide n the simulator's path carries a
 *    longest block, ceil(n/p) bytes, at every step: its time lies between
 *    the price of n and the price of p ceil(n/p) (up to p-1 elements per
 *    phase above the price).  Below n = p, where blocks are empty, up to
 *    two steps they price as exchanges (the pairwise step p/2, both phases
 *    at p = 2) are one-way: the simulator may be that much below.  They
 *    also price n = 0 (no messages, time 0) as if messages were sent: not
 *    checked, reported once.
 *
 * Simulating a plan of R rounds per rank costs about p R: the rings (R =
 * 2 (p-1)) are checked at every p while p R <= FULL_WORK, above that at
 * every SPARSE_STRIDE-th p, and in the sample above 300 only while
 * p R <= SAMPLE_WORK (their terms are checked for every p up to 1024 in
 * test_costs_allreduce).  The whole test takes about 40 s of one core.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "sim/rabred_sim.h"
#include "rabred_test.h"
#include "plan/rabred_toolkit.h"

#define NMODELS 7
#define LARGE_ODD (((int64_t)3 << 31) + 7)
#define FULL_WORK 40000
#define SPARSE_STRIDE 8
#define SAMPLE_WORK 600000

static rabred_model_t models[NMODELS];
static const char *model_names[NMODELS] = {"f=1",     "random 1",        "random 2",
                                           "random 3", "alpha-dominated", "beta-dominated",
                                           "gamma-dominated"};

/* splitmix64: the same models on every run */
static double uniform(uint64_t *state, double lo, double hi)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return lo + (hi - lo) * (double)(z >> 11) / 9007199254740992.0;
}

static void init_models(void)
{
    uint64_t seed = 20040601;
    models[0] = (rabred_model_t)RABRED_TEST_MODEL(2e-6, 0.4e-9, 0.25e-9, 1.0, 1.0);
    for (int k = 1; k <= 3; k++) { /* alpha 0.1-100 us, beta and gamma 0.01-10 ns */
        models[k].alpha = pow(10.0, uniform(&seed, -7, -4));
        models[k].beta = pow(10.0, uniform(&seed, -11, -8));
        models[k].gamma = pow(10.0, uniform(&seed, -11, -8));
        models[k].f_alpha = uniform(&seed, 0.3, 1.0);
        models[k].f_beta = uniform(&seed, 0.3, 1.0);
    }
    models[4] = (rabred_model_t)RABRED_TEST_MODEL(50e-6, 0.05e-9, 0.02e-9, 0.55, 0.45);
    models[5] = (rabred_model_t)RABRED_TEST_MODEL(0.05e-6, 2e-9, 0.2e-9, 0.8, 0.5);
    models[6] = (rabred_model_t)RABRED_TEST_MODEL(0.05e-6, 0.1e-9, 3e-9, 0.4, 0.7);
    /* send buffers free a rank from its last sends early, never the
     * last receiver: an allreduce's completion time, and so every price,
     * stays as it is */
    models[1].send_buffer = 1.3 * 1048576;
    models[5].send_buffer = 1000;
}

static double price_of(const rabred_alg_t *alg, int p, int commutative, int64_t bytes,
                       const rabred_model_t *m)
{
    rabred_price_call_t call = {p, -1, commutative, bytes, 0, 0};
    return alg->price(&call, m);
}

/* What the simulator may give for a price: [lo, hi] (see the top). */
typedef struct {
    double lo, hi;
} range_t;

typedef range_t (*range_fn)(const rabred_alg_t *alg, int p, int commutative, int64_t n,
                            const rabred_model_t *m);

static range_t bruck_range(const rabred_alg_t *alg, int p, int commutative, int64_t n,
                           const rabred_model_t *m)
{
    double price = price_of(alg, p, commutative, n, m), slack = 0.0;
    int64_t e = n % p;
    for (int k = 0; (1 << k) < p; k++) {
        int64_t w = (1 << k) < p - (1 << k) ? 1 << k : p - (1 << k);
        slack += (double)(w < e ? w : e);
    }
    slack *= 2 * m->beta * fmax(1.0, m->f_beta) + m->gamma;
    return (range_t){price - slack, price};
}

static range_t blocks_range(const rabred_alg_t *alg, int p, int commutative, int64_t n,
                            const rabred_model_t *m)
{
    int pof2 = rabred_pof2_floor(p);
    double price = price_of(alg, p, commutative, n, m);
    if (n >= pof2) {
        return (range_t){price_of(alg, p, commutative, n / pof2 * pof2, m), price};
    }
    double slack = rabred_log2_floor(p) * (1 - m->f_alpha) * m->alpha +
                   (double)n * (m->beta + m->gamma);
    return (range_t){price - slack, price};
}

static range_t ring_range(const rabred_alg_t *alg, int p, int commutative, int64_t n,
                          const rabred_model_t *m)
{
    int64_t longest = (n + p - 1) / p;
    range_t r = {price_of(alg, p, commutative, n, m),
                 price_of(alg, p, commutative, longest * p, m)};
    if (n < p) { /* an exchange whose other half is empty is one-way */
        r.lo -= 2 * ((1 - m->f_alpha) * m->alpha + (1 - m->f_beta) * m->beta);
    }
    return r;
}

/* Prices that are not exact at every count, and why (see the top). */
static const struct {
    const char *name;
    range_fn range;
    int skip_zero; /* prices n = 0 above 0: not checked (known) */
} ranges[] = {
    {"bruck", bruck_range, 0},
    {"binary_blocks", blocks_range, 0},
    {"pairwise_ring", ring_range, 1},
    {"neighbor_ring", ring_range, 1},
};
#define NRANGES (int)(sizeof(ranges) / sizeof(ranges[0]))

static int range_index(const rabred_alg_t *alg)
{
    for (int i = 0; i < NRANGES; i++) {
        if (0 == strcmp(alg->name, ranges[i].name)) {
            return i;
        }
    }
    return -1;
}

static long skipped_zero[RABRED_TABLE_MAX];

/* One (algorithm, p, count, op kind) under every model. */
static void check_call(const rabred_alg_t *alg, int index, int p, int64_t n, int commutative)
{
    rabred_sim_model_t sim_models[NMODELS];
    rabred_sim_result_t res[NMODELS];
    for (int k = 0; k < NMODELS; k++) {
        rabred_sim_model_default(&sim_models[k]);
        sim_models[k].alpha = models[k].alpha;
        sim_models[k].beta = models[k].beta; /* per element: 1-byte elements */
        sim_models[k].gamma = models[k].gamma;
        sim_models[k].f_alpha = models[k].f_alpha;
        sim_models[k].f_beta = models[k].f_beta;
        sim_models[k].send_buffer = models[k].send_buffer;
    }
    rabred_sim_call_t call = {alg->build, p, -1, n, commutative, 0, 0, 1, NULL, NULL};
    int rc = rabred_simulate_models(&call, sim_models, NMODELS, res);
    int known = range_index(alg);
    CHECK(RABRED_OK == rc && res[0].ok, "%s p=%d n=%lld: simulation failed: %s", alg->name, p,
          (long long)n, RABRED_OK == rc ? res[0].error : "rc");
    if (RABRED_OK != rc || !res[0].ok) {
        return;
    }
    if (0 == n && known >= 0 && ranges[known].skip_zero) {
        skipped_zero[index]++;
        return;
    }
    rabred_call_t what = {p, n, commutative, NULL};
    if (NULL != rabred_alg_violation(alg, &what)) {
        return; /* no price is promised where the decision may not pick it (direct below count p) */
    }
    for (int k = 0; k < NMODELS; k++) {
        double price = price_of(alg, p, commutative, n, &models[k]);
        range_t r = known >= 0 ? ranges[known].range(alg, p, commutative, n, &models[k])
                               : (range_t){price, price};
        double tol = 1e-9 * fmax(fabs(r.hi), fabs(res[k].time)) + 1e-18;
        CHECK(res[k].time >= r.lo - tol && res[k].time <= r.hi + tol,
              "%s p=%d n=%lld %s model %s: simulator %.12g, price %.12g, promised [%.12g, %.12g]",
              alg->name, p, (long long)n, commutative ? "commutative" : "non-commutative",
              model_names[k], res[k].time, price, r.lo, r.hi);
    }
}

static void check_p(const rabred_alg_t *alg, int index, int p)
{
    int64_t pof2 = rabred_pof2_floor(p);
    int64_t counts[] = {0, 1, p / 2, p - 1, p + 1, 2 * p * pof2, 10 * p * pof2, LARGE_ODD};
    int ops = alg->restrictions & RABRED_NEEDS_COMMUTATIVE ? 1 : 2;
    for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
        for (int op = 0; op < ops; op++) {
            check_call(alg, index, p, counts[j], 1 - op);
        }
    }
}

/* p times the rounds of rank 1's plan: what simulating the call costs. */
static int64_t sim_work(const rabred_alg_t *alg, int p)
{
    rabred_plan_t plan;
    rabred_plan_init(&plan);
    rabred_plan_args_t args = {p, 1, -1, (int64_t)2 * p * p, 1, 0, NULL, 0, NULL};
    int rc = rabred_plan_build(alg->build, &args, &plan);
    int64_t work = RABRED_OK == rc ? (int64_t)p * plan.nrounds : INT64_MAX;
    rabred_plan_free(&plan);
    return work;
}

static void test_prices(void)
{
    static const int large_p[] = {384, 512, 513, 1000, 1024};
    for (int i = 0; i < rabred_table_size(RABRED_COLL_ALLREDUCE); i++) {
        const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_ALLREDUCE, i);
        if (NULL == alg->price) {
            continue;
        }
        long failed = rabred_test_failed;
        clock_t start = clock();
        for (int p = 2; p <= 300; p++) {
            if (sim_work(alg, p) <= FULL_WORK || 0 == p % SPARSE_STRIDE || 300 == p) {
                check_p(alg, i, p);
            }
        }
        for (size_t j = 0; j < sizeof(large_p) / sizeof(large_p[0]); j++) {
            if (sim_work(alg, large_p[j]) <= SAMPLE_WORK) {
                check_p(alg, i, large_p[j]);
            }
        }
        printf("%-20s %s%s, %.1f s\n", alg->name,
               failed == rabred_test_failed ? "agrees" : "FAILS",
               range_index(alg) < 0 ? " (exact)" : " (within its range)",
               (double)(clock() - start) / CLOCKS_PER_SEC);
        if (skipped_zero[i]) {
            printf("%-20s n = 0 not checked (%ld calls): priced %g s under model %s, the simulator "
                   "sends nothing\n",
                   alg->name, skipped_zero[i], price_of(alg, 2, 1, 0, &models[0]),
                   model_names[0]);
        }
    }
}

int main(void)
{
    init_models();
    test_prices();
    return rabred_test_summary("test_prices_allreduce");
}
