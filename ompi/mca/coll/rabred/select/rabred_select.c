/*
 * The selection unit (see rabred_select.h): the measured table, then the
 * stages in their order, then the one entry that runs them.
 */
#include "select/rabred_select.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Measured corrections to the model: the one table of thresholds.  The
 * model's price of `alg` is multiplied by `factor` for calls in the cell
 * (p in [p_min, p_max], bytes in [bytes_min, bytes_max]); factor 0 keeps
 * the algorithm out of the cell; the first matching line counts.  Each line
 * says where it was measured. */
typedef struct {
    const rabred_alg_t *alg;
    int p_min, p_max;
    int64_t bytes_min, bytes_max;
    double factor;
    /* 1: applies only where the arrival estimate prices an arrival-aware
     * plan under offsets (rabred_select_arrival_factor), not to the
     * balanced decision */
    int under_offsets;
} rabred_measured_t;

#define ANY_P (1 << 30)
#define KIB ((int64_t)1024)
/* The last size of the cell from p = 16 where the rings are kept out of
 * the balanced decision and the arrival-aware plans out of the estimate's
 * choice: both groups of lines must cover the same cell. */
#define LGP_ONLY_P16_MAX (128 * KIB - 1)

/* Measured on the emulated 100 Mbit/s TCP cluster (bench/results/
 * full-20261121: p = 2..8, 12, 16 hosts, 8 B..4 MiB, every rabred and
 * coll/tuned algorithm interleaved, 5 rounds; times below are medians of
 * the average over ranks).  Where the model, which knows alpha, beta and
 * gamma but not TCP, CPU sharing or the eager limit, ranked algorithms
 * differently from the measurement, the measurement wins here. */
static const rabred_measured_t measured[] = {
    /* linear is the baseline the others are checked against: the model
     * prices it right, but its root serialises p-1 full vectors and no
     * measurement has ever shown it ahead; keep it forcible only. */
    {&rabred_alg_allreduce_linear, 2, ANY_P, 0, INT64_MAX, 0.0, 0},
    {&rabred_alg_reduce_linear, 3, ANY_P, 0, INT64_MAX, 0.0, 0},
    /* p = 2 from 256 KiB: one exchange of n (recursive doubling, 372 ms at
     * 4 MiB) beats two of n/2 (Rabenseifner, binary blocks and the rings
     * at p = 2 are all those two; 473 ms), which the model prices alike:
     * two rendezvous handshakes, and each exchange may hit the TCP BTL's
     * 2x mode.  At 1 MiB the two exchanges took 90 ms in full-20261121 but
     * 133-135 ms in confirm-20261121 and full2-20261121, where recursive
     * doubling took 95 ms; from 256 KiB the model already prefers it. */
    {&rabred_alg_allreduce_recursive_doubling, 2, 2, 256 * KIB, INT64_MAX, 0.75, 0},
    /* Below 64 KiB the 2(p-1) rounds of the rings cost far more than the
     * model's alpha: with p ranks sharing the CPUs every lock-step round
     * waits for a descheduled neighbour.  Measured 1.3-3.5x the best tuned
     * algorithm at 16 KiB for p = 6, 8, 16, where bruck and rabenseifner
     * (lg p rounds) were within 0.85-1.2x (full-20261121, a loaded
     * machine; at 64 KiB a quieter rerun, confirm-20261121, had the rings
     * ahead again, so the line stops below 64 KiB).  From p = 16 it goes
     * on to 128 KiB: at 64 KiB the lg p-round algorithms beat the rings in
     * all four runs on the VM of 2026-11-25 (bruck 21.0-23.0 ms, binary
     * blocks 20.6-21.8, rabred's Rabenseifner 20.9-22.0, tuned's default
     * 19.9-21.1; the rings 24.4-27.7: confirm-p16, estimate-cost,
     * p16-64k-lgp and p16-64k-512k-20261125), and at 128 KiB everything
     * tied (45.8-48.8 ms).  On the VM of 2026-11-22 they had tied at
     * 64 KiB too (full5, confirm6: 19.5-22.2 ms). */
    {&rabred_alg_allreduce_pairwise_ring, 16, ANY_P, 0, LGP_ONLY_P16_MAX, 0.0, 0},
    {&rabred_alg_allreduce_neighbor_ring, 16, ANY_P, 0, LGP_ONLY_P16_MAX, 0.0, 0},
    {&rabred_alg_allreduce_pairwise_ring, 4, ANY_P, 0, 64 * KIB - 1, 0.0, 0},
    {&rabred_alg_allreduce_neighbor_ring, 4, ANY_P, 0, 64 * KIB - 1, 0.0, 0},
    /* From 1 MiB at p >= 13: at p = 16 the rings took 1.11-1.22x the best
     * tuned algorithm, bruck (lg p rounds) 0.91-0.96x (full-20261121) and
     * 0.99-1.04x in the rerun, though the model prices bruck's last,
     * same-peer step dearer.  Below 1 MiB the rerun had the rings ahead.
     * At 16 MiB the neighbour ring was ahead again (p = 16, full16m-
     * 20261122: 4.18 s against bruck's 4.89 s, tuned's ring 4.10 s), and
     * at 4 MiB they were even (full5-20261122: 1.25-1.36 s against 1.29 s),
     * so the line stops at 8 MiB, between the two.  Above, the model
     * decides: at powers of two it prefers the neighbour ring (bruck's
     * last step there is a same-peer exchange), elsewhere it ties the two
     * and a rounding picks bruck, as measured fair at p = 12, 16 MiB
     * (bruck 3.37 s, the neighbour ring 3.33 s).  At p = 16 the line
     * stops at 4 MiB: there the rings came out ahead of bruck in three of
     * four runs and tuned's ring in all four (full2-20261121 1.32 / 1.40
     * against 1.41 s; estimate-cost-20261125 1.20 / 1.22 against 1.26 s;
     * confirm-p16-20261125 1.09 / 1.15 against 1.28 s; full5-20261122
     * 1.36 / 1.22 against 1.29 s), auto 1.03-1.09x of the best tuned on
     * bruck; at 1 MiB bruck led in all three runs that had it (0.91-0.96x
     * of the neighbour ring).  Above p = 16 not measured: as p = 16. */
    {&rabred_alg_allreduce_pairwise_ring, 13, 15, 1024 * KIB, 8192 * KIB - 1, 2.0, 0},
    {&rabred_alg_allreduce_neighbor_ring, 13, 15, 1024 * KIB, 8192 * KIB - 1, 2.0, 0},
    {&rabred_alg_allreduce_pairwise_ring, 16, ANY_P, 1024 * KIB, 4096 * KIB - 1, 2.0, 0},
    {&rabred_alg_allreduce_neighbor_ring, 16, ANY_P, 1024 * KIB, 4096 * KIB - 1, 2.0, 0},
    /* p = 9..15 below 1 MiB: the model prices bruck and the neighbour ring
     * within 0.1% of each other there, so a rounding picked bruck; at
     * p = 12 the rings were ahead at 64 and 256 KiB in both full runs
     * (full2-20261121: 1.09 against 1.25 of the best tuned at 256 KiB;
     * full5-20261122: 64 KiB bruck 16.3 ms, neighbour ring 15.2; 256 KiB
     * 75.8 and 68.1, tuned's ring 58.6), while from 1 MiB bruck was as
     * good or better (full5: 250 against 275 ms).  p = 9..11 and 13..15
     * were not measured; the tie in the model is the same there. */
    {&rabred_alg_allreduce_bruck, 9, 15, 64 * KIB, 1024 * KIB - 1, 1.05, 0},
    /* p = 9..11 from 8 MiB: the same tie, and at 16 MiB the neighbour ring
     * was ahead in 8 of 9 rounds (big16m-p9-15-20261122: 2.87 / 3.07 /
     * 3.09 s against bruck's 3.36 / 3.23 / 3.52 s at p = 9 / 10 / 11),
     * while at 4 MiB bruck was (confirm9 and confirm11-allreduce: 764-840
     * against 779-886 ms).  At p = 13..15 bruck kept up at 16 MiB. */
    {&rabred_alg_allreduce_bruck, 9, 11, 8192 * KIB, INT64_MAX, 1.05, 0},
    /* ring's reduce-scatter exchanges with a different peer each step (p-1
     * TCP connections, each starting cold); the neighbour ring
     * (segmented_ring, unsegmented by default) keeps two: 1.15-1.23x
     * slower at p = 3, 4, 5 from 1 MiB (584 vs 493 ms at p = 3, 4 MiB). */
    {&rabred_alg_allreduce_pairwise_ring, 3, ANY_P, 0, INT64_MAX, 1.2, 0},
    /* For small p bruck is priced like the neighbour ring (p = 3: equal)
     * but measured 1.07-1.28x the best tuned at p = 3 and 7 from 256 KiB,
     * where the neighbour ring was 0.85-1.08x. */
    {&rabred_alg_allreduce_bruck, 3, 8, 64 * KIB, INT64_MAX, 1.1, 0},
    /* reduce by ring (reduce-scatter, then p-1 blocks into the root) keeps
     * every rank busy to the end; by the average over ranks a binomial tree
     * wins 1.4-3.9x below 2 MiB (p = 3..16) and from p = 8 at every size
     * (1.11-1.46x at 4 MiB, full5-20261122; from 8 MiB the ring's rounds
     * scatter by 10-25% and its median was 0.96-1.08x of the tree's,
     * reduce-ring-large-20261122), while the ring wins at 4 MiB for
     * p = 3, 5, 7 (0.69-0.95x of the best tuned).  p = 6 (the tree had
     * won at 4 MiB before its receives were posted early, full-20261121):
     * from 4 MiB the ring is 0.92x of the tree (4, 8 and 16 MiB, confirm7-
     * reduce-20261122 and reduce-ring-large-20261122; 0.95x in
     * full16m-20261122, a tie in full5), and its root finishes 25-30%
     * sooner. */
    {&rabred_alg_reduce_pairwise_gather, 3, ANY_P, 0, 2048 * KIB - 1, 0.0, 0},
    {&rabred_alg_reduce_pairwise_gather, 6, 6, 0, 4096 * KIB - 1, 0.0, 0},
    {&rabred_alg_reduce_pairwise_gather, 8, ANY_P, 0, INT64_MAX, 0.0, 0},
    /* pipeline (the chain) came after the cluster run and has not been
     * measured there; the price book prices it by completion time, while
     * reduce is decided by the average over ranks.  Forcible and usable in
     * rules (rabred-tune measures it), not chosen by auto until measured. */
    {&rabred_alg_reduce_pipeline, 2, ANY_P, 0, INT64_MAX, 0.0, 0},
    /* The pre-reduced scatter under offsets.  The simulator runs each of
     * its all-to-all rounds as p-1 sub-steps in order; the executor posts
     * them at once and TCP shares the links.  Against rabred's ring,
     * measured / simulated average elapsed time was 0.87 and 0.91 (0 ms),
     * 0.88 and 0.84 (one rank 50 ms late), 0.87 and 0.88 against tuned's
     * ring (100 ms) at p = 6 and 8, 1 MiB (bench/results/
     * arrival6-20261122).  Without it auto kept the ring at 50 ms, where
     * the scatter was 1.12x faster.  Not applied to balanced decisions:
     * there it would make the scatter look 1% ahead at p = 8, where it
     * measured 3.5% behind. */
    {&rabred_alg_allreduce_prereduced_scatter, 6, 8, 512 * KIB, 2048 * KIB, 0.87, 1},
    /* From p = 16 below 128 KiB, where the rings are kept out of the
     * balanced decision above, the arrival-aware plans are kept out too:
     * they run 2(p-1) or more lock-step rounds each.  Balanced, they took
     * 29.2 (pre-reduced ring), 32.6 (sorted linear tree) and 50.9 ms
     * (pre-reduced scatter) against bruck's 21.0 at p = 16, 64 KiB
     * (confirm-p16-20261125); and once bruck was the balanced choice, the
     * few ms of skew that 16 ranks on 2 cores always show made auto switch
     * to the pre-reduced ring in 174 of 306 calls, at 31.0 against bruck's
     * 21.2 ms (confirm-p16-64k-20261125).  With all of them out, the cell
     * is not estimated at all (rabred_select_arrival_possible). */
    {&rabred_alg_allreduce_prereduced_ring, 16, ANY_P, 0, LGP_ONLY_P16_MAX, 0.0, 1},
    {&rabred_alg_allreduce_sorted_linear_tree, 16, ANY_P, 0, LGP_ONLY_P16_MAX, 0.0, 1},
    {&rabred_alg_allreduce_prereduced_scatter, 16, ANY_P, 0, LGP_ONLY_P16_MAX, 0.0, 1},
};

/* The first matching line's factor among the lines for balanced decisions
 * or (under_offsets) those for plans priced under arrival offsets; 1: none. */
static double measured_factor(const rabred_alg_t *alg, int p, int64_t bytes,
                              int under_offsets)
{
    for (size_t i = 0; i < sizeof(measured) / sizeof(measured[0]); i++) {
        const rabred_measured_t *m = &measured[i];
        if (m->under_offsets == under_offsets && m->alg == alg && p >= m->p_min && p <= m->p_max &&
            bytes >= m->bytes_min && bytes <= m->bytes_max) {
            return m->factor;
        }
    }
    return 1.0;
}

double rabred_select_measured_factor(const rabred_alg_t *alg, int p, int64_t bytes)
{
    return measured_factor(alg, p, bytes, 0);
}

double rabred_select_arrival_factor(const rabred_alg_t *alg, int p, int64_t bytes)
{
    return measured_factor(alg, p, bytes, 1);
}

int rabred_select_arrival_possible(int p, int64_t bytes)
{
    for (int i = 0; i < rabred_table_size(RABRED_COLL_ALLREDUCE); i++) {
        const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_ALLREDUCE, i);
        if (alg->arrival_aware && rabred_select_arrival_factor(alg, p, bytes) > 0) {
            return 1;
        }
    }
    return 0;
}

const char *rabred_why_name(rabred_why_t why)
{
    switch (why) {
    case RABRED_WHY_FORCED:
        return "forced";
    case RABRED_WHY_RULE:
        return "rule";
    case RABRED_WHY_DECISION:
        return "decision";
    default:
        return "fallback";
    }
}

/* The reason, only when someone will read it (verbose output): formatting
 * it costs more than the rest of a small call's choice. */
static void say(const rabred_select_in_t *in, rabred_choice_t *out, const char *fmt, ...)
{
    if (!in->want_reason) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
    va_end(ap);
}

/* Prefix the reason with `what` (the forced or rule part). */
static void prefix_reason(const rabred_select_in_t *in, rabred_choice_t *out, const char *what)
{
    char decided[160];
    if (!in->want_reason) {
        return;
    }
    snprintf(decided, sizeof(decided), "%.159s", out->reason);
    snprintf(out->reason, sizeof(out->reason), "%.90s; %s", what, decided);
}

static double price_of(const rabred_select_in_t *in, const rabred_alg_t *alg)
{
    return NULL != in->book ? rabred_pricebook_price(in->book, alg, in->root,
                                                     in->call.commutative, in->bytes)
                            : -1.0;
}

/* Without prices: the latency algorithm up to `limit`, halving and doubling
 * above when its restrictions allow. */
static void by_threshold(const rabred_select_in_t *in, int64_t limit, rabred_choice_t *out)
{
    int allreduce = RABRED_COLL_ALLREDUCE == in->coll;
    const rabred_alg_t *shorter =
        allreduce ? &rabred_alg_allreduce_recursive_doubling : &rabred_alg_reduce_binomial;
    const rabred_alg_t *longer =
        allreduce ? &rabred_alg_allreduce_rabenseifner : &rabred_alg_reduce_rabenseifner;
    const char *why_not = NULL;

    if (in->bytes > limit && NULL == (why_not = rabred_alg_violation(longer, &in->call))) {
        out->alg = longer;
        say(in, out, "%lld B > short limit %lld B", (long long)in->bytes, (long long)limit);
    } else {
        out->alg = shorter; /* no restrictions: serves every call */
        say(in, out, "%lld B %s", (long long)in->bytes,
            NULL != why_not ? "and rabenseifner needs count >= p'" : "<= short limit");
    }
}

/* The cheapest allowed, priced algorithm for this call. */
static void by_model(const rabred_select_in_t *in, rabred_choice_t *out)
{
    const rabred_alg_t *best = NULL, *second = NULL;
    double best_t = 0.0, second_t = 0.0;
    for (int i = 0; i < rabred_table_size(in->coll); i++) {
        const rabred_alg_t *alg = rabred_table_at(in->coll, i);
        if (alg->arrival_aware || NULL != rabred_alg_violation(alg, &in->call)) {
            continue; /* made for arrivals this balanced decision does not predict, or not allowed */
        }
        double factor = rabred_select_measured_factor(alg, in->call.p, in->bytes);
        double price = price_of(in, alg);
        if (price < 0.0 || factor <= 0.0) {
            continue; /* not priced, or kept out by the measured table */
        }
        double t = factor * price; /* 0 is a price: an empty call */
        if (NULL == best || t < best_t) {
            second = best;
            second_t = best_t;
            best = alg;
            best_t = t;
        } else if (NULL == second || t < second_t) {
            second = alg;
            second_t = t;
        }
    }
    out->alg = best;
    if (NULL == best) {
        say(in, out, "model: no priced algorithm fits");
    } else {
        say(in, out, "model: %s %.3g us, next %s %.3g us", best->name, best_t * 1e6,
            second ? second->name : "none", second_t * 1e6);
    }
}

static void built_in(const rabred_select_in_t *in, rabred_choice_t *out)
{
    out->why = RABRED_WHY_DECISION;
    if (in->call.p > 1 && NULL != in->book && in->book->p == in->call.p &&
        (in->short_bytes <= 0 || in->bytes > in->short_bytes)) {
        by_model(in, out);
    } else {
        by_threshold(in, in->short_bytes > 0 ? in->short_bytes : RABRED_DEFAULT_SHORT_BYTES,
                     out);
    }
    if (NULL == out->alg) {
        out->why = RABRED_WHY_FALLBACK;
    }
}

/* A matching rule decides, unless its algorithm cannot serve the call.
 * Returns 1 when the choice is made, 0 when no rule (or an `auto` rule)
 * matched, -1 when the rule's algorithm cannot serve the call (`note` says
 * why). */
static int by_rule(const rabred_select_in_t *in, rabred_choice_t *out, char *note, size_t note_len)
{
    const rabred_rule_t *rule = NULL != in->rules ? rabred_rules_lookup(in->rules, in->bytes,
                                                                        in->call.commutative)
                                                  : NULL;
    if (NULL == rule || RABRED_ALG_AUTO == rule->alg_id) {
        if (NULL != rule && in->want_reason) {
            snprintf(note, note_len, "%s:%d says auto", in->rules_name, rule->line);
        }
        return 0;
    }
    out->why = RABRED_WHY_RULE;
    out->seg_bytes = rule->segsize;
    if (RABRED_ALG_PREVIOUS == rule->alg_id) {
        say(in, out, "%s:%d: previous", in->rules_name, rule->line);
        return 1;
    }
    const rabred_alg_t *alg = rabred_table_by_id(in->coll, rule->alg_id);
    const char *violation = NULL != alg ? rabred_alg_violation(alg, &in->call) : "unknown";
    if (NULL == violation) {
        out->alg = alg;
        say(in, out, "%s:%d", in->rules_name, rule->line);
        return 1;
    }
    out->seg_bytes = 0;
    if (in->want_reason) {
        snprintf(note, note_len, "%s:%d: %s %s", in->rules_name, rule->line,
                 NULL != alg ? alg->name : "?", violation);
    }
    return -1;
}

/* Stages 1-3 and 5: forced, rules file, built-in decision, previous. */
static void balanced(const rabred_select_in_t *in, rabred_choice_t *out)
{
    char note[160] = "", forced_note[80] = "";
    if (RABRED_ALG_PREVIOUS == in->forced) {
        out->why = RABRED_WHY_FORCED;
        say(in, out, "previous component requested");
        return;
    }
    const rabred_alg_t *alg = rabred_table_by_id(in->coll, in->forced);
    const char *violation = alg ? rabred_alg_violation(alg, &in->call) : NULL;
    if (NULL != alg && NULL == violation) {
        out->alg = alg;
        out->why = RABRED_WHY_FORCED;
        say(in, out, "coll_rabred_%s_algorithm", rabred_coll_name(in->coll));
        return;
    }
    /* A forced algorithm that cannot serve the call: decide as auto would
     * (rules, then the built-in decision), the reason saying why. */
    if (NULL != alg && in->want_reason) {
        snprintf(forced_note, sizeof(forced_note), "forced %s %s", alg->name, violation);
    } else if (RABRED_ALG_AUTO != in->forced && in->want_reason) {
        snprintf(forced_note, sizeof(forced_note), "unknown algorithm id %d", in->forced);
    }
    int rule = by_rule(in, out, note, sizeof(note));
    if (1 != rule) {
        built_in(in, out);
        if ('\0' != note[0]) {
            prefix_reason(in, out, note);
        }
    }
    if ('\0' != forced_note[0]) {
        prefix_reason(in, out, forced_note);
    }
    if ((RABRED_ALG_AUTO != in->forced || rule < 0) && NULL != out->alg) {
        out->why = RABRED_WHY_FALLBACK;
    }
}

/* Replace the decision's choice by an arrival-aware algorithm when the
 * model says it pays (rabred_estimate_choose), reusing a recent pick (the
 * cache belongs to one prepared call: the call's shape and balanced choice
 * are those it was simulated for).  A
 * simulation that fails alike on every rank keeps the balanced choice; out
 * of memory, this rank's alone, is the call's error. */
static int arrival_pick(const rabred_select_in_t *in, rabred_select_arrival_t *a, double price,
                        rabred_choice_t *out)
{
    rabred_arrival_pick_t *pick = a->pick;
    if (!rabred_estimate_may_gain(a->est, price, a->min_gain)) {
        return RABRED_OK; /* nothing can gain enough now, whatever an earlier pick said */
    }
    int fresh = *a->pick_at_calls > 0 && a->est->calls >= *a->pick_at_calls &&
                a->est->calls - *a->pick_at_calls < RABRED_ARRIVAL_REUSE_CALLS;
    if (!fresh) {
        int rc = rabred_estimate_choose(a->est, &in->call, a->type_size, &in->book->model, out->alg,
                                        price > 0 ? price : 0, a->seg_count, a->min_gain, pick);
        if (RABRED_ERR_NOMEM == rc) {
            *a->pick_at_calls = 0; /* nothing cached */
            return rc;
        }
        if (RABRED_OK != rc) {
            pick->alg = NULL;
        }
        *a->pick_at_calls = a->est->calls;
    }
    if (NULL != pick->alg) {
        say(in, out, "arrival: spread %.3g us; %s %.3g us vs %s %.3g us, avg elapsed predicted",
            rabred_estimate_spread(a->est) * 1e6, pick->alg->name, pick->best_s * 1e6,
            out->alg->name, pick->balanced_s * 1e6);
        out->alg = pick->alg;
    }
    return RABRED_OK;
}

/* Stage 4: is this call estimated (the gap exchange after it), and does an
 * arrival-aware algorithm replace the decision's?  Only the decision's
 * choice is replaced, and only on calls the exchange is cheap enough for
 * (rabred_estimate_pays), where the measured table leaves some
 * arrival-aware plan (rabred_select_arrival_possible) and the pacing says
 * the exchange is due; a hint costs no exchange.  A forced or rule-chosen
 * algorithm is estimated only when it reads the estimate (arrival-aware),
 * and does not count auto's pacing down (price 0). */
static int arrival_stage(const rabred_select_in_t *in, rabred_select_arrival_t *a,
                         rabred_choice_t *out)
{
    a->estimating = 0;
    a->balanced_price = 0;
    if (NULL == out->alg) {
        return RABRED_OK; /* the component below serves it: nothing to estimate */
    }
    if (RABRED_WHY_DECISION != out->why || NULL == in->book) {
        a->estimating = out->alg->arrival_aware;
        return RABRED_OK;
    }
    double price = price_of(in, out->alg);
    price = price > 0 ? price : 0;
    a->balanced_price = price;
    a->estimating = a->hint_late ||
                    (rabred_estimate_pays(in->call.p, &in->book->model, price) &&
                     rabred_select_arrival_possible(in->call.p, in->bytes) &&
                     rabred_estimate_due(a->est));
    return a->estimating ? arrival_pick(in, a, price, out) : RABRED_OK;
}

int rabred_select(const rabred_select_in_t *in, rabred_choice_t *out)
{
    memset(out, 0, sizeof(*out));
    balanced(in, out);
    if (NULL != out->alg && NULL != in->book) {
        double price = price_of(in, out->alg);
        out->price = price > 0 ? price : 0;
    }
    return NULL != in->arrival ? arrival_stage(in, in->arrival, out) : RABRED_OK;
}
