/*
 * The selection unit (see rabred_select.h): the prices, the stages in
 * their order, then the one entry that runs them.
 */
#include "select/rabred_select.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* The algorithms' balanced prices for this call (s; < 0: not priced): the
 * closed form from the book, plus the structural terms
 * (rabred_model_extras), which need each algorithm's plans for a few ranks
 * and are computed only for the algorithms that can still win: the terms
 * are never negative, so one whose closed form alone costs more than the
 * best full price so far is out.  A prepared call computes them once. */
typedef struct {
    int filled;
    double base[RABRED_TABLE_MAX];
    double extra[RABRED_TABLE_MAX]; /* < 0: not computed yet */
} prices_t;

static void fill_prices(const rabred_select_in_t *in, prices_t *pr)
{
    pr->filled = 1;
    for (int i = 0; i < rabred_table_size(in->coll) && i < RABRED_TABLE_MAX; i++) {
        pr->base[i] = rabred_pricebook_price_count(in->book, rabred_table_at(in->coll, i),
                                                   in->root, in->call.commutative,
                                                   in->call.count, in->bytes);
        pr->extra[i] = -1.0;
    }
}

/* alg's full price in *t (< 0: not priced).  RABRED_OK or RABRED_ERR_NOMEM. */
static int price_of(const rabred_select_in_t *in, prices_t *pr, const rabred_alg_t *alg,
                    double *t)
{
    int i = alg->id - 1;
    *t = -1.0;
    if (!pr->filled || i < 0 || i >= RABRED_TABLE_MAX || pr->base[i] < 0) {
        return RABRED_OK;
    }
    if (pr->extra[i] < 0) {
        rabred_price_call_t call = {in->call.p, in->root, in->call.commutative, in->bytes,
                                    in->book->seg_bytes, in->call.count};
        if (RABRED_OK != rabred_model_book_extras(in->book, alg, &call, &pr->extra[i])) {
            return RABRED_ERR_NOMEM;
        }
    }
    *t = pr->base[i] + pr->extra[i];
    return RABRED_OK;
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

/* May alg serve the balanced decision of this call? */
static int candidate(const rabred_select_in_t *in, const prices_t *pr, const rabred_alg_t *alg)
{
    return !alg->arrival_aware && pr->base[alg->id - 1] >= 0 &&
           NULL == rabred_alg_violation(alg, &in->call);
}

/* Append "name price" to the list of prices asked for (in->prices). */
static void list_price(const rabred_select_in_t *in, const rabred_alg_t *alg, double t)
{
    size_t used = strlen(in->prices);
    if (used < in->prices_len) {
        snprintf(in->prices + used, in->prices_len - used, "%s%s %.4g us", used ? ", " : "",
                 alg->name, t * 1e6);
    }
}

/* The cheapest allowed, priced algorithm for this call: candidates in the
 * order of their closed forms, each with its full price, until the next
 * closed form alone costs more than the best full price (every candidate
 * when the prices are asked for). */
static int by_model(const rabred_select_in_t *in, prices_t *pr, rabred_choice_t *out)
{
    const rabred_alg_t *best = NULL, *second = NULL;
    double best_t = 0.0, second_t = 0.0;
    int done[RABRED_TABLE_MAX] = {0}, all = NULL != in->prices;
    for (;;) {
        const rabred_alg_t *next = NULL;
        for (int i = 0; i < rabred_table_size(in->coll); i++) {
            const rabred_alg_t *alg = rabred_table_at(in->coll, i);
            if (!done[i] && candidate(in, pr, alg) &&
                (NULL == next || pr->base[i] < pr->base[next->id - 1])) {
                next = alg;
            }
        }
        if (NULL == next || (!all && NULL != second && pr->base[next->id - 1] >= second_t)) {
            break; /* nothing left can beat the best two */
        }
        done[next->id - 1] = 1;
        double t;
        if (RABRED_OK != price_of(in, pr, next, &t)) { /* 0 is a price: an empty call */
            return RABRED_ERR_NOMEM;
        }
        if (all) {
            list_price(in, next, t);
        }
        if (NULL == best || t < best_t) {
            second = best;
            second_t = best_t;
            best = next;
            best_t = t;
        } else if (NULL == second || t < second_t) {
            second = next;
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
    return RABRED_OK;
}

static int built_in(const rabred_select_in_t *in, prices_t *pr, rabred_choice_t *out)
{
    int rc = RABRED_OK;
    out->why = RABRED_WHY_DECISION;
    if (in->call.p > 1 && pr->filled && in->book->p == in->call.p &&
        (in->short_bytes <= 0 || in->bytes > in->short_bytes)) {
        rc = by_model(in, pr, out);
    } else {
        by_threshold(in, in->short_bytes > 0 ? in->short_bytes : RABRED_DEFAULT_SHORT_BYTES,
                     out);
    }
    if (NULL == out->alg) {
        out->why = RABRED_WHY_FALLBACK;
    }
    return rc;
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

/* Stages 1-3 and 5: forced, rules file, built-in decision, previous.
 * RABRED_OK or RABRED_ERR_NOMEM. */
static int balanced(const rabred_select_in_t *in, prices_t *pr, rabred_choice_t *out)
{
    char note[160] = "", forced_note[80] = "";
    if (RABRED_ALG_PREVIOUS == in->forced) {
        out->why = RABRED_WHY_FORCED;
        say(in, out, "previous component requested");
        return RABRED_OK;
    }
    const rabred_alg_t *alg = rabred_table_by_id(in->coll, in->forced);
    const char *violation = alg ? rabred_alg_violation(alg, &in->call) : NULL;
    if (NULL != alg && NULL == violation) {
        out->alg = alg;
        out->why = RABRED_WHY_FORCED;
        say(in, out, "coll_rabred_%s_algorithm", rabred_coll_name(in->coll));
        return RABRED_OK;
    }
    /* A forced algorithm that cannot serve the call: decide as auto would
     * (rules, then the built-in decision), the reason saying why. */
    if (NULL != alg && in->want_reason) {
        snprintf(forced_note, sizeof(forced_note), "forced %s %s", alg->name, violation);
    } else if (RABRED_ALG_AUTO != in->forced && in->want_reason) {
        snprintf(forced_note, sizeof(forced_note), "unknown algorithm id %d", in->forced);
    }
    int rule = by_rule(in, out, note, sizeof(note)), rc = RABRED_OK;
    if (1 != rule) {
        rc = built_in(in, pr, out);
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
    return rc;
}

/* Replace the decision's choice by an arrival-aware algorithm when the
 * model says it pays (rabred_estimate_choose), reusing a recent pick of the
 * same epoch (the
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
    int epoch = rabred_estimate_epoch(a->est, 0.5 * a->min_gain * price);
    int fresh = *a->pick_at_calls > 0 && a->est->calls >= *a->pick_at_calls &&
                a->est->calls - *a->pick_at_calls < RABRED_ARRIVAL_REUSE_CALLS &&
                *a->pick_epoch == epoch;
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
        *a->pick_epoch = epoch;
    }
    rabred_estimate_note_choice(a->est, NULL != pick->alg); /* for the pacing */
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
 * (rabred_estimate_pays), whose operation an arrival-aware plan can serve
 * (they all need a commutative op), and where the pacing says the exchange
 * is due; a hint costs no exchange.  A forced or rule-chosen
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
    double price = out->price;
    a->balanced_price = price;
    a->estimating = a->hint_late ||
                    (rabred_estimate_pays(in->call.p, &in->book->model, price) &&
                     in->call.commutative && rabred_estimate_due(a->est));
    return a->estimating ? arrival_pick(in, a, price, out) : RABRED_OK;
}

int rabred_select(const rabred_select_in_t *in, rabred_choice_t *out)
{
    prices_t pr = {0};
    double price = 0;
    if (NULL != in->prepared) { /* stages 1-3 ran when the call was prepared */
        *out = *in->prepared;
        return NULL != in->arrival ? arrival_stage(in, in->arrival, out) : RABRED_OK;
    }
    memset(out, 0, sizeof(*out));
    if (NULL != in->book) {
        fill_prices(in, &pr);
    }
    if (RABRED_OK != balanced(in, &pr, out) ||
        (NULL != out->alg && RABRED_OK != price_of(in, &pr, out->alg, &price))) {
        return RABRED_ERR_NOMEM;
    }
    out->price = price > 0 ? price : 0;
    return NULL != in->arrival ? arrival_stage(in, in->arrival, out) : RABRED_OK;
}
