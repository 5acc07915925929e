/*
 * The arrival-aware allreduce algorithms of Proficz 2018 through
 * the simulator (no MPI):
 *  - the paper's worked examples (Figs. 6 and 8), in units of tau, with the
 *    exact times the simulator gives and why they differ from the figures
 *    where they do;
 *  - a sweep of random arrival patterns where the builders and the
 *    simulator see the same offsets: every plan verifies (in place and
 *    not), and the pre-reduced ring's mean elapsed time never exceeds the
 *    plain ring's (the mean gain is printed);
 *  - without offsets, or with all offsets equal, the pre-reduced ring is
 *    the plain ring (same simulated times, p = 2..64) and the sorted linear
 *    tree the linear tree in rank order;
 *  - bad offsets and model values (NaN, infinite, negative) count as 0;
 *  - no algorithm, arrival-aware or not, takes less mean elapsed time than
 *    the balanced bandwidth bound under any arrival pattern.
 * Time units: tau = one segment moved and reduced.  The model is alpha =
 * gamma = 0 and beta = 1 per element with one element per segment, f_alpha
 * = f_beta = 1 (full duplex: a rank sends one segment and receives one at
 * a time), as the figures draw it.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sim/rabred_sim.h"
#include "rabred_test.h"
#include "plan/rabred_toolkit.h"

#define MAX_P 129          /* offsets arrays */
#define BALANCED_MAX_P 64 /* p = 2..64: prereduced_ring without offsets is the ring */

static const rabred_alg_t *alg_named(const char *name)
{
    const rabred_alg_t *alg = rabred_table_by_name(RABRED_COLL_ALLREDUCE, name);
    CHECK(NULL != alg, "no allreduce algorithm %s", name);
    return alg;
}

/* Simulates `name` for p ranks timed with the offsets `timed` (NULL: all
 * at 0); the builder gets `plan_for` (NULL: plans without arrivals). */
static rabred_sim_result_t run(const char *name, int p, int64_t count, const rabred_sim_model_t *m,
                               const double *timed, const rabred_arrival_t *plan_for,
                               int in_place, int cost_only)
{
    rabred_sim_result_t res;
    memset(&res, 0, sizeof(res));
    const rabred_alg_t *alg = alg_named(name);
    if (NULL == alg) {
        return res;
    }
    rabred_sim_model_t model = *m;
    model.arrival = timed;
    rabred_sim_call_t call = {alg->build, p, -1, count, 1, in_place, 0, cost_only, plan_for, NULL};
    int rc = rabred_simulate(&call, &model, &res);
    CHECK(RABRED_OK == rc && res.ok, "%s p=%d count=%lld in_place=%d: %s", name, p,
          (long long)count, in_place, RABRED_OK == rc ? res.error : "simulation failed");
    return res;
}

/* The figures' model: one element per segment, tau = beta = 1. */
static rabred_sim_model_t tau_model(void)
{
    rabred_sim_model_t m;
    rabred_sim_model_default(&m);
    m.alpha = m.gamma = 0.0;
    m.beta = 1.0;
    return m;
}

/* ---- Proficz's (2018) worked examples -------------------------------------- */

/* Fig. 6: p = 4 (four ranks, four segments), rank 0 late by 4 tau.  The
 * paper counts the operation's total time, from the first arrival (0) to
 * the last rank's finish: res.time here.  It gives 14 tau for the linear
 * tree in rank order and 12 tau sorted; the simulator gives 13 and 11, the
 * same 2 tau saved.  13 and 11 are the least these data flows can take
 * when a hop costs tau and a rank moves one segment each way at a time:
 *  - rank order (line 0 -> 1 -> 2 -> 3, results 3 -> 0 -> 1 -> 2): rank 0
 *    sends its four segments from 4 tau on, the last one leaves at 7 tau
 *    and needs six hops (three reductions, three results): 7 + 6 = 13;
 *  - sorted (line 1 -> 2 -> 3 -> 0): rank 0, now last, receives the four
 *    pre-reduced segments one after another from 4 tau, the last by 8 tau,
 *    and its result needs three hops (0 -> 1 -> 2 -> 3): 8 + 3 = 11.
 * Each figure thus counts one tau more than its data flow needs; as the
 * difference is the same in both, we read it as the figure's way of
 * counting steps (the drawing is not in our copy of the text), not as a
 * fault of either builder.  Balanced, the pipelined tree takes 3 (p-1) =
 * 9 tau. */
static void test_figure_6(void)
{
    rabred_sim_model_t m = tau_model();
    double late[4] = {4, 0, 0, 0};
    rabred_arrival_t arr = {late, m.alpha, m.beta, m.gamma};
    rabred_sim_result_t bal = run("sorted_linear_tree", 4, 4, &m, NULL, NULL, 0, 0);
    rabred_sim_result_t lt = run("sorted_linear_tree", 4, 4, &m, late, NULL, 0, 0);
    rabred_sim_result_t slt = run("sorted_linear_tree", 4, 4, &m, late, &arr, 0, 0);
    CHECK(9.0 == bal.time, "balanced linear tree: %g tau, want 9", bal.time);
    CHECK(13.0 == lt.time, "Fig. 6a linear tree, rank 0 late by 4: %g tau, want 13", lt.time);
    CHECK(11.0 == slt.time, "Fig. 6b sorted linear tree: %g tau, want 11", slt.time);
    printf("Fig. 6 (paper 14 and 12 tau): linear tree %g tau, sorted %g tau; mean elapsed %g -> %g\n",
           lt.time, slt.time, lt.avg_elapsed, slt.avg_elapsed);
}

/* Fig. 8: p = 4, rank 0 late by 2 tau.  The ring takes 8 tau as in the
 * paper (6 tau balanced, everything waits for rank 0).  The paper's
 * pre-reduced ring takes 7 tau; here 8, with the mean elapsed time down
 * from 7.5 to 7.25 tau (ranks 1..3 at 0, rank 0 at 2 tau).  8 tau is the
 * least any ring can take: every segment needs rank 0's part, so rank 0
 * (last in the ring, sending only to the first) sends at least four
 * segments after arriving at 2 tau, the last one ending at 6 tau or later,
 * and whatever it carries still has to reach the two ranks beyond the
 * first: 6 + 2 = 8.  7 tau needs the late rank to send two segments in one
 * tau, which no port model with one outgoing link per rank allows (Fig.
 * 7's pseudo-code, read literally, also mis-orders its messages; see
 * coll_rabred_allreduce_prereduced_ring.c).  What the pre-steps buy here is
 * the paper's own measure, the mean elapsed time (its Tables 3-5). */
static void test_figure_8(void)
{
    rabred_sim_model_t m = tau_model();
    double late[4] = {2, 0, 0, 0};
    rabred_arrival_t arr = {late, m.alpha, m.beta, m.gamma};
    rabred_sim_result_t ring = run("pairwise_ring", 4, 4, &m, late, NULL, 0, 0);
    rabred_sim_result_t plain = run("prereduced_ring", 4, 4, &m, late, NULL, 0, 0);
    rabred_sim_result_t prr = run("prereduced_ring", 4, 4, &m, late, &arr, 0, 0);
    CHECK(8.0 == ring.time && 7.5 == ring.avg_elapsed, "Fig. 8a ring: %g tau (mean %g), want 8 (7.5)",
          ring.time, ring.avg_elapsed);
    CHECK(8.0 == plain.time && 7.5 == plain.avg_elapsed, "prereduced_ring without offsets: %g (%g)",
          plain.time, plain.avg_elapsed);
    CHECK(8.0 == prr.time && 7.25 == prr.avg_elapsed,
          "Fig. 8b pre-reduced ring: %g tau (mean %g), want 8 (7.25)", prr.time, prr.avg_elapsed);
    printf("Fig. 8 (paper 8 and 7 tau): ring %g tau, pre-reduced ring %g tau; mean elapsed %g -> %g\n",
           ring.time, prr.time, ring.avg_elapsed, prr.avg_elapsed);
}

/* ---- random arrival patterns ------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double uniform(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

enum { SPREAD, ONE_LATE, TIES, ONE_VERY_LATE, SOME_LATE, ALL_LATE, TWO_GROUPS, NPATTERNS };

/* Offsets of pattern `kind` for p ranks; d is the largest delay. */
static void make_pattern(int kind, int p, double tau, double d, double *off)
{
    for (int i = 0; i < p; i++) {
        switch (kind) {
        case SPREAD: off[i] = uniform() * d; break;
        case TIES: off[i] = (int)(uniform() * 4) * 0.7 * tau; break;
        case SOME_LATE: off[i] = uniform() < 0.3 ? d : uniform() * tau; break;
        case ALL_LATE: off[i] = d; break;
        case TWO_GROUPS: off[i] = i < p / 2 ? 0.0 : d; break;
        default: off[i] = 0.0; break;
        }
    }
    if (ONE_LATE == kind || ONE_VERY_LATE == kind) {
        off[(int)(uniform() * p)] = ONE_LATE == kind ? d : 1e6 * tau;
    }
}

/* Models with f_alpha = f_beta = 1 (what rabred_arrival_t can describe):
 * the figures' one, a fast network and a 100 Mbit/s-like one (seconds per
 * message, per element sent, per element reduced). */
static rabred_sim_model_t sweep_model(int k)
{
    rabred_sim_model_t m = tau_model();
    if (1 == k) {
        m.alpha = 5e-6, m.beta = 1e-9, m.gamma = 2e-10;
    } else if (2 == k) {
        m.alpha = 50e-6, m.beta = 8e-9, m.gamma = 1e-9;
    }
    return m;
}

typedef struct {
    int n, one_late;
    double gain, one_late_gain, best, slt_one_late_gain;
} gains_t;

static void sweep_one(int seed, gains_t *g)
{
    int p = 2 + seed % 31, kind = (seed / 31) % NPATTERNS;
    int64_t counts[] = {0, 1, 3, p - 1, p, 2 * (int64_t)p + 1, 1000, 65543};
    int64_t count = counts[(seed / (31 * NPATTERNS)) % 8];
    rabred_sim_model_t m = sweep_model(seed % 3);
    double tau = m.alpha + (double)((count + p - 1) / p) * (m.beta + m.gamma);
    double off[MAX_P];
    make_pattern(kind, p, tau, tau * 3 * p * uniform(), off);
    rabred_arrival_t arr = {off, m.alpha, m.beta, m.gamma};
    rabred_sim_result_t ring = run("pairwise_ring", p, count, &m, off, NULL, 0, 1);
    rabred_sim_result_t prr = run("prereduced_ring", p, count, &m, off, &arr, seed & 1, 0);
    run("prereduced_ring", p, count, &m, off, &arr, !(seed & 1), 0);
    rabred_sim_result_t slt = run("sorted_linear_tree", p, count, &m, off, &arr, seed & 1, 0);
    run("sorted_linear_tree", p, count, &m, off, &arr, !(seed & 1), 0);
    run("prereduced_scatter", p, count, &m, off, &arr, seed & 1, 0);
    /* 1e-9: the two sum their ranks' elapsed times in different orders */
    CHECK(prr.avg_elapsed <= ring.avg_elapsed * (1 + 1e-9),
          "seed %d p=%d count=%lld pattern %d model %d: prereduced_ring mean elapsed %g > ring %g",
          seed, p, (long long)count, kind, seed % 3, prr.avg_elapsed, ring.avg_elapsed);
    double gain = ring.avg_elapsed > 0 ? 1 - prr.avg_elapsed / ring.avg_elapsed : 0.0;
    g->n++;
    g->gain += gain;
    g->best = gain > g->best ? gain : g->best;
    if (ONE_LATE == kind) {
        g->one_late++;
        g->one_late_gain += gain;
        g->slt_one_late_gain += ring.avg_elapsed > 0 ? 1 - slt.avg_elapsed / ring.avg_elapsed : 0.0;
    }
}

static void test_random_patterns(void)
{
    gains_t g = {0, 0, 0.0, 0.0, 0.0, 0.0};
    for (int seed = 0; seed < 31 * NPATTERNS * 8 * 2; seed++) {
        sweep_one(seed, &g);
    }
    printf("prereduced_ring vs ring, %d random patterns (p = 2..32): mean elapsed %.2f%% lower on "
           "average (one late rank: %.2f%%), at best %.1f%%, never higher\n",
           g.n, 100 * g.gain / g.n, 100 * g.one_late_gain / g.one_late, 100 * g.best);
    printf("sorted_linear_tree vs ring, one late rank: mean elapsed %.2f%% lower on average\n",
           100 * g.slt_one_late_gain / g.one_late);
    /* a few larger p, for correctness (the pre-steps' check is O(p^2) per
     * rank, so these cost O(p^3) to simulate) */
    int big[] = {63, 64, 100, 129};
    rabred_sim_model_t m = sweep_model(1);
    double off[129];
    for (int i = 0; i < 4; i++) {
        make_pattern(ONE_LATE, big[i], 1e-5, 1e-3, off);
        rabred_arrival_t arr = {off, m.alpha, m.beta, m.gamma};
        rabred_sim_result_t ring = run("pairwise_ring", big[i], 100003, &m, off, NULL, 0, 1);
        rabred_sim_result_t prr = run("prereduced_ring", big[i], 100003, &m, off, &arr, i & 1, 0);
        run("sorted_linear_tree", big[i], 100003, &m, off, &arr, i & 1, 0);
        run("prereduced_scatter", big[i], 100003, &m, off, &arr, i & 1, 0);
        CHECK(prr.avg_elapsed <= ring.avg_elapsed * (1 + 1e-9), "p=%d: %g > ring %g", big[i],
              prr.avg_elapsed, ring.avg_elapsed);
    }
}

/* ---- the pre-reduced scatter against Proficz's (2018) bound ------------------ */

/* One rank late by D on a 100 Mbit/s-like network (doubles: beta = 0.64
 * us, alpha 100 us, gamma 1 ns), p = 6 and 8, 1 MiB.  Seed 004 sec. 2: no
 * algorithm's mean elapsed time goes below D (p-1)/p + delta, delta = n
 * beta (the late rank must send its vector out once), and the ring pays
 * D (p-1)/p + Delta.  The pre-reduced scatter must land near the bound
 * once D covers the early ranks' reduce-scatter: within its own terms,
 * (1 + 1/m) n beta + (m+1)(p-1) alpha after that reduce-scatter, and
 * well below the ring and the pre-reduced ring. */
static void test_scatter_bound(void)
{
    rabred_sim_model_t m = tau_model();
    m.alpha = 100e-6, m.beta = 8 / 12.5e6, m.gamma = 1e-9;
    int64_t n = 131072;
    for (int p = 6; p <= 8; p += 2) {
        for (int i = 0; i < 2; i++) {
            double D = i ? 0.1 : 0.05, off[8] = {0};
            off[i] = D; /* rank 0, then rank 1: the late rank is not always the first */
            rabred_arrival_t arr = {off, m.alpha, m.beta, m.gamma};
            double ring = run("pairwise_ring", p, n, &m, off, NULL, 0, 1).avg_elapsed;
            double prr = run("prereduced_ring", p, n, &m, off, &arr, 0, 1).avg_elapsed;
            double prs = run("prereduced_scatter", p, n, &m, off, &arr, i, 0).avg_elapsed;
            double q = p - 1, rs = (q - 1) * m.alpha + (1 - 1 / q) * n * (m.beta + m.gamma);
            double lower = D * (p - 1) / p + n * m.beta;
            /* the early ranks start step 3 at max(D, rs); the late one at D */
            double start = (q * (D > rs ? D : rs) + (D > rs ? D : rs) - D) / p;
            double upper = start + 1.25 * n * m.beta + 9 * q * m.alpha + n * m.gamma;
            printf("one late by %g ms, p=%d, 1 MiB: mean elapsed ring %.1f ms, prereduced_ring %.1f, "
                   "prereduced_scatter %.1f (bound %.1f)\n", D * 1e3, p, ring * 1e3, prr * 1e3,
                   prs * 1e3, lower * 1e3);
            CHECK(prs >= lower && prs <= upper, "p=%d D=%g: prereduced_scatter %g outside [%g, %g]",
                  p, D, prs, lower, upper);
            CHECK(prs <= 0.9 * ring && prs < prr, "p=%d D=%g: prereduced_scatter %g, ring %g, prr %g",
                  p, D, prs, ring, prr);
        }
    }
}

/* ---- no plan beats the bandwidth bound, whatever the arrivals ---------- */

/* Every element of an allreduce crosses a link at least 2(p-1) times:
 * when the first rank comes to hold its full reduction, each of the other
 * p-1 ranks has sent its own contribution out (only it could), and after
 * that each of those p-1 must still receive a message that completes
 * it, which no message before could (the one-way gossip bound, 2p - 2
 * calls; a parallel round does no better than its calls one by one).  A
 * rank sends only between its arrival and its exit, one message at a time
 * (the simulator's out-port), and a message costs at least
 * min(1, f_beta) beta per element.  So the ranks' elapsed times add up to
 * at least 2(p-1) n min(1, f_beta) beta: Proficz's (2018) average elapsed time
 * never goes below the balanced bandwidth bound, 2(p-1)/p n beta, however
 * the ranks arrive.  Arriving late can be hidden, never bandwidth saved;
 * the README bounds what any algorithm can gain on the ring with it.
 * Checked for every allreduce algorithm of the table (the arrival-aware
 * ones planned for the offsets they are timed with), p = 2..33 and 64,
 * balanced, one late rank and random spreads, both halves: the elements
 * sent, and the time they take. */
static void bound_one(const rabred_alg_t *alg, int p, int64_t count, const rabred_sim_model_t *m,
                      const double *off, const rabred_arrival_t *arr, int64_t seg)
{
    rabred_sim_result_t res;
    memset(&res, 0, sizeof(res));
    rabred_sim_model_t model = *m;
    model.arrival = off;
    rabred_sim_call_t call = {alg->build, p, -1, count, 1, 0, seg, 1, arr, NULL};
    int rc = rabred_simulate(&call, &model, &res);
    CHECK(RABRED_OK == rc && res.ok, "%s p=%d count=%lld: %s", alg->name, p, (long long)count,
          RABRED_OK == rc ? res.error : "simulation failed");
    double per_element = (m->f_beta < 1 ? m->f_beta : 1) * m->beta;
    int64_t least = 2 * (int64_t)(p - 1) * count;
    CHECK(res.elements_sent >= least, "%s p=%d count=%lld: %lld elements sent, fewer than "
          "2(p-1) count = %lld", alg->name, p, (long long)count, (long long)res.elements_sent,
          (long long)least);
    CHECK(p * res.avg_elapsed >= res.elements_sent * per_element * (1 - 1e-9),
          "%s p=%d count=%lld: mean elapsed %g below the %lld elements' port time / p = %g",
          alg->name, p, (long long)count, res.avg_elapsed, (long long)res.elements_sent,
          res.elements_sent * per_element / p);
}

static void test_bandwidth_bound(void)
{
    int ps[34], np = 0;
    for (int p = 2; p <= 33; p++) {
        ps[np++] = p;
    }
    ps[np++] = 64;
    rabred_sim_model_t models[2] = {tau_model(), tau_model()};
    models[1].alpha = 50e-6, models[1].beta = 8e-9, models[1].gamma = 1e-9;
    models[1].f_alpha = 0.69, models[1].f_beta = 0.5; /* the cluster's one-way factors */
    int checked = 0;
    for (int i = 0; i < np; i++) {
        int p = ps[i];
        int64_t counts[] = {p, 1000 * (int64_t)p + 7};
        for (int k = 0; k < 2; k++) {
            const rabred_sim_model_t *m = &models[(i + k) & 1];
            double tau = m->alpha + (double)((counts[k] + p - 1) / p) * (m->beta + m->gamma);
            for (int kind = 0; kind < NPATTERNS; kind++) {
                double off[MAX_P];
                make_pattern(kind, p, tau, tau * 3 * p * uniform(), off);
                if (ONE_VERY_LATE == kind) {
                    continue; /* the same as ONE_LATE for this, and slow to price */
                }
                rabred_arrival_t arr = {off, m->alpha, m->beta, m->gamma};
                for (int a = 0; a < rabred_table_size(RABRED_COLL_ALLREDUCE); a++) {
                    const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_ALLREDUCE, a);
                    rabred_call_t call = {p, counts[k], 1, NULL};
                    if (NULL != rabred_alg_violation(alg, &call) || (p > 33 && 0 != kind)) {
                        continue;
                    }
                    int64_t seg = 0 == strcmp(alg->name, "neighbor_ring") ? 7 : 0;
                    bound_one(alg, p, counts[k], m, off, alg->arrival_aware ? &arr : NULL, seg);
                    checked++;
                }
            }
        }
    }
    printf("bandwidth bound: %d simulated allreduces (every algorithm, p = 2..33 and 64, "
           "balanced and late arrivals), none below 2(p-1)/p n beta\n", checked);
}

/* ---- balanced: the plain algorithms ----------------------------------- */

static void test_balanced_is_plain(void)
{
    double equal[MAX_P];
    for (int i = 0; i < MAX_P; i++) {
        equal[i] = 0.25;
    }
    for (int k = 0; k < 2; k++) {
        rabred_sim_model_t m = sweep_model(k);
        rabred_arrival_t arr = {equal, m.alpha, m.beta, m.gamma};
        for (int p = 2; p <= BALANCED_MAX_P; p++) {
            int64_t counts[] = {0, 1, p - 1, p, 2 * (int64_t)p + 1, 1 << 20};
            for (int c = 0; c < 6; c++) {
                rabred_sim_result_t ring = run("pairwise_ring", p, counts[c], &m, NULL, NULL, 0, 1);
                rabred_sim_result_t prr = run("prereduced_ring", p, counts[c], &m, NULL, NULL, 0, 1);
                /* the times are the same sums in another order: equal to the
                 * last bit at the end, the mean of p of them to rounding */
                CHECK(ring.time == prr.time && ring.messages == prr.messages &&
                          fabs(ring.avg_elapsed - prr.avg_elapsed) <= 1e-12 * ring.avg_elapsed,
                      "p=%d count=%lld: prereduced_ring without offsets %g, ring %g", p,
                      (long long)counts[c], prr.time, ring.time);
                rabred_sim_result_t ring_eq = run("pairwise_ring", p, counts[c], &m, equal, NULL, 0, 1);
                rabred_sim_result_t prr_eq = run("prereduced_ring", p, counts[c], &m, equal, &arr, 0, 1);
                CHECK(ring_eq.time == prr_eq.time, "p=%d count=%lld: equal offsets %g, ring %g", p,
                      (long long)counts[c], prr_eq.time, ring_eq.time);
                rabred_sim_result_t lt = run("sorted_linear_tree", p, counts[c], &m, equal, NULL, 0, 1);
                rabred_sim_result_t slt = run("sorted_linear_tree", p, counts[c], &m, equal, &arr, 0, 1);
                CHECK(lt.time == slt.time, "p=%d: sorted linear tree with equal offsets %g, plain %g",
                      p, slt.time, lt.time);
            }
        }
    }
}

/* ---- bad input -------------------------------------------------------- */

/* NaN, infinite and negative offsets plan as 0, and so do such alpha,
 * beta, gamma: the plans are those of the cleaned values (same times). */
static void test_bad_input(void)
{
    rabred_sim_model_t m = tau_model();
    const double bad[8] = {NAN, -1.0, INFINITY, 6.0, -INFINITY, 0.0, 3.0, -0.0};
    double clean[8];
    for (int i = 0; i < 8; i++) {
        clean[i] = rabred_arrival_clean(bad[i]);
    }
    CHECK(0.0 == clean[0] && 0.0 == clean[1] && 0.0 == clean[2] && 6.0 == clean[3],
          "rabred_arrival_clean");
    const char *names[3] = {"prereduced_ring", "sorted_linear_tree", "prereduced_scatter"};
    for (int a = 0; a < 3; a++) {
        rabred_arrival_t raw = {bad, m.alpha, m.beta, m.gamma}, ok = {clean, 0.0, 1.0, 0.0};
        rabred_sim_result_t r1 = run(names[a], 8, 8, &m, clean, &raw, 1, 0);
        rabred_sim_result_t r2 = run(names[a], 8, 8, &m, clean, &ok, 1, 0);
        CHECK(r1.time == r2.time && r1.avg_elapsed == r2.avg_elapsed, "%s: bad offsets %g, clean %g",
              names[a], r1.time, r2.time);
        /* a model that prices nothing: no pre-steps (nothing says they pay) */
        rabred_arrival_t nan_model = {clean, NAN, -1.0, INFINITY}, zero = {clean, 0.0, 0.0, 0.0};
        r1 = run(names[a], 8, 8, &m, clean, &nan_model, 0, 0);
        r2 = run(names[a], 8, 8, &m, clean, &zero, 0, 0);
        CHECK(r1.time == r2.time, "%s: NaN model %g, zero model %g", names[a], r1.time, r2.time);
        rabred_arrival_t no_offsets = {NULL, 1.0, 1.0, 1.0};
        r1 = run(names[a], 8, 8, &m, NULL, &no_offsets, 0, 0);
        r2 = run(names[a], 8, 8, &m, NULL, NULL, 0, 0);
        CHECK(r1.time == r2.time, "%s: offsets NULL %g, arrival NULL %g", names[a], r1.time, r2.time);
    }
}

/* p = 1 and tiny calls, with and without offsets. */
static void test_small(void)
{
    rabred_sim_model_t m = tau_model();
    double off[3] = {0.0, 5.0, 1.0};
    rabred_arrival_t arr = {off, 0.0, 1.0, 0.0};
    for (int p = 1; p <= 3; p++) {
        for (int64_t count = 0; count <= 4; count++) {
            for (int in_place = 0; in_place <= 1; in_place++) {
                run("prereduced_ring", p, count, &m, off, &arr, in_place, 0);
                run("sorted_linear_tree", p, count, &m, off, &arr, in_place, 0);
                run("prereduced_ring", p, count, &m, NULL, NULL, in_place, 0);
                run("sorted_linear_tree", p, count, &m, NULL, NULL, in_place, 0);
                run("prereduced_scatter", p, count, &m, off, &arr, in_place, 0);
                run("prereduced_scatter", p, count, &m, NULL, NULL, in_place, 0);
            }
        }
    }
}

static void test_table_flags(void)
{
    for (int i = 0; i < rabred_table_size(RABRED_COLL_ALLREDUCE); i++) {
        const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_ALLREDUCE, i);
        int aware = 0 == strcmp(alg->name, "prereduced_ring") ||
                    0 == strcmp(alg->name, "sorted_linear_tree") ||
                    0 == strcmp(alg->name, "prereduced_scatter");
        CHECK(alg->arrival_aware == aware, "%s: arrival_aware %d", alg->name, alg->arrival_aware);
        CHECK(!aware || (alg->restrictions & RABRED_NEEDS_COMMUTATIVE), "%s must need commutative",
              alg->name);
    }
    for (int i = 0; i < rabred_table_size(RABRED_COLL_REDUCE); i++) {
        CHECK(!rabred_table_at(RABRED_COLL_REDUCE, i)->arrival_aware, "reduce algorithm aware");
    }
}

int main(void)
{
    test_table_flags();
    test_figure_6();
    test_figure_8();
    test_small();
    test_bad_input();
    test_balanced_is_plain();
    test_random_patterns();
    test_scatter_bound();
    test_bandwidth_bound();
    return rabred_test_summary("test_arrival");
}
