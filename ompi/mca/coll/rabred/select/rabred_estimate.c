/*
 * Online arrival estimation and the arrival-aware choice: see
 * rabred_estimate.h for the method and why it needs no clock sync.
 */
#include "select/rabred_estimate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/rabred_sim.h"
#include "plan/rabred_toolkit.h"

int rabred_estimate_init(rabred_estimate_t *e, int p)
{
    memset(e, 0, sizeof(*e));
    if (p < 1) {
        return RABRED_ERR_ARG;
    }
    e->p = p;
    e->futile_epoch = -1; /* no choice made yet */
    e->offset = calloc((size_t)p, sizeof(double));
    e->last = calloc((size_t)p, sizeof(double));
    e->acting = calloc((size_t)p, sizeof(double));
    e->gaps = calloc(2 * (size_t)p, sizeof(double)); /* gaps, then exchange costs */
    e->tmp = calloc(2 * (size_t)p, sizeof(double));
    e->basis = calloc((size_t)p, sizeof(double));
    e->dev = calloc((size_t)p, sizeof(double));
    if (NULL == e->offset || NULL == e->last || NULL == e->acting || NULL == e->gaps ||
        NULL == e->tmp || NULL == e->basis || NULL == e->dev) {
        rabred_estimate_fini(e);
        return RABRED_ERR_NOMEM;
    }
    return RABRED_OK;
}

void rabred_estimate_fini(rabred_estimate_t *e)
{
    free(e->offset);
    free(e->last);
    free(e->acting);
    free(e->gaps);
    free(e->tmp);
    free(e->basis);
    free(e->dev);
    memset(e, 0, sizeof(*e));
}

static double sane_gap(double g)
{
    return isfinite(g) && g > 0 ? g : 0; /* NaN, inf or a clock step back: 0 */
}

/* Fold this call's deviations from the smoothed offsets into e->noise
 * (from the second call: the first has no offsets to deviate from). */
static void fold_noise(rabred_estimate_t *e, const double *gaps, double first, double w)
{
    if (0 == e->calls) {
        return;
    }
    for (int i = 0; i < e->p; i++) {
        e->dev[i] = fabs(sane_gap(gaps[i]) - first - e->offset[i]);
    }
    double m = rabred_median(e->dev, e->p);
    e->noise = 1 == e->calls ? m : (1 - w) * e->noise + w * m;
}

void rabred_estimate_update(rabred_estimate_t *e, const double *gaps, double w)
{
    if (!(w > 0 && w <= 1)) {
        w = 1;
    }
    double first = INFINITY;
    for (int i = 0; i < e->p; i++) {
        first = fmin(first, sane_gap(gaps[i]));
    }
    fold_noise(e, gaps, first, w);
    double low = INFINITY;
    for (int i = 0; i < e->p; i++) {
        double now = sane_gap(gaps[i]) - first; /* late by this much in this call */
        e->offset[i] = 0 == e->calls ? now : (1 - w) * e->offset[i] + w * now;
        low = e->offset[i] < low ? e->offset[i] : low;
    }
    /* Keep the earliest at 0.  acting needs no such shift: its terms are
     * all >= 0 and the earliest rank of this call has now = 0. */
    double floor = RABRED_ESTIMATE_NOISE_MEDIANS * e->noise;
    for (int i = 0; i < e->p; i++) {
        double now = sane_gap(gaps[i]) - first;
        e->offset[i] -= low;
        double late = fmin(e->offset[i], fmin(now, e->last[i])); /* last: 0 at first */
        e->acting[i] = late > floor ? late - floor : 0;
        e->last[i] = now;
    }
    e->calls++;
}

void rabred_estimate_reset(rabred_estimate_t *e)
{
    for (int i = 0; i < e->p; i++) {
        e->offset[i] = e->last[i] = e->acting[i] = e->basis[i] = 0;
    }
    e->epoch++;
    e->futile_epoch = -1;
    e->noise = 0;
    e->calls = 0;
    e->period = 1;
    e->skip = 0;
    e->looking = 0;
    e->cost = 0;
}

void rabred_estimate_assume(rabred_estimate_t *e, const double *offsets)
{
    double low = INFINITY;
    for (int i = 0; i < e->p; i++) {
        low = fmin(low, sane_gap(offsets[i]));
    }
    for (int i = 0; i < e->p; i++) {
        double v = sane_gap(offsets[i]) - low;
        e->offset[i] = e->last[i] = e->acting[i] = e->basis[i] = v;
    }
    e->epoch++;
    e->futile_epoch = -1;
    e->noise = 0; /* given, not measured */
    e->calls = 2;
}

/* "R=S" at *s: a rank in 0..p-1 not seen before and a finite S >= 0
 * (stored in offsets unless it is NULL). */
static int parse_late_entry(const char **s, int p, double *offsets, char *seen)
{
    char *end;
    errno = 0;
    long rank = strtol(*s, &end, 10);
    if (end == *s || '=' != *end || errno || rank < 0 || rank >= p || seen[rank]) {
        return 0;
    }
    const char *num = end + 1;
    double v = strtod(num, &end);
    if (end == num || errno || !isfinite(v) || v < 0) {
        return 0;
    }
    seen[rank] = 1;
    if (NULL != offsets) {
        offsets[rank] = v;
    }
    *s = end;
    return 1;
}

static void clear(double *offsets, int p)
{
    for (int i = 0; NULL != offsets && i < p; i++) {
        offsets[i] = 0;
    }
}

rabred_hint_t rabred_hint_parse(const char *text, int p, double *offsets)
{
    clear(offsets, p);
    if (NULL == text || p < 1) {
        return RABRED_HINT_BAD;
    }
    if (0 == strcmp(text, "auto")) {
        return RABRED_HINT_AUTO;
    }
    if (0 == strcmp(text, "off")) {
        return RABRED_HINT_OFF;
    }
    if (0 != strncmp(text, "late:", 5)) {
        return RABRED_HINT_BAD;
    }
    char *seen = calloc((size_t)p, 1);
    const char *s = text + 5;
    int ok = NULL != seen;
    while (ok) {
        ok = parse_late_entry(&s, p, offsets, seen);
        if (!ok || '\0' == *s) {
            break;
        }
        ok = ',' == *s++;
    }
    free(seen);
    if (!ok) {
        clear(offsets, p);
        return RABRED_HINT_BAD;
    }
    return RABRED_HINT_LATE;
}

/* The largest of p offsets whose smallest is 0: their spread. */
static double spread_of(const double *v, int p)
{
    double hi = 0;
    for (int i = 0; i < p; i++) {
        hi = v[i] > hi ? v[i] : hi;
    }
    return hi;
}

double rabred_estimate_spread(const rabred_estimate_t *e)
{
    return e->calls > 0 ? spread_of(e->acting, e->p) : 0;
}

/* Has some acting offset moved more than tolerance from the epoch's basis? */
static int left_epoch(const rabred_estimate_t *e, double tolerance)
{
    int moved = 0;
    for (int i = 0; i < e->p && !moved; i++) {
        moved = !(fabs(e->acting[i] - e->basis[i]) <= tolerance);
    }
    return moved;
}

int rabred_estimate_epoch(rabred_estimate_t *e, double tolerance)
{
    if (left_epoch(e, tolerance)) {
        memcpy(e->basis, e->acting, (size_t)e->p * sizeof(double));
        e->epoch++;
    }
    return e->epoch;
}

void rabred_estimate_note_choice(rabred_estimate_t *e, int found)
{
    e->futile_epoch = found ? -1 : e->epoch;
}

/* Did the choice under this epoch's offsets find nothing, with the
 * offsets still in the epoch (the choice's tolerance, half of min_gain of
 * the call: rabred_select's arrival_pick)? */
static int futile(const rabred_estimate_t *e, double balanced_price, double min_gain)
{
    return e->futile_epoch == e->epoch && !left_epoch(e, 0.5 * min_gain * balanced_price);
}

int rabred_estimate_may_gain(const rabred_estimate_t *e, double balanced_price, double min_gain)
{
    return !(rabred_estimate_spread(e) < min_gain * balanced_price);
}

int rabred_estimate_due(rabred_estimate_t *e)
{
    if (e->skip > 0) {
        e->skip--;
        return 0;
    }
    return 1;
}

void rabred_estimate_note_cost(rabred_estimate_t *e, const double *costs)
{
    double sum = 0;
    for (int i = 0; i < e->p; i++) {
        sum += sane_gap(costs[i]); /* the same test: finite and >= 0 */
    }
    e->cost = sum / e->p;
}

int rabred_estimate_longest_period(const rabred_estimate_t *e)
{
    int period = RABRED_ESTIMATE_MAX_PERIOD;
    while (period < RABRED_ESTIMATE_COSTLY_PERIOD &&
           e->cost > RABRED_ESTIMATE_MAX_OVERHEAD * period) {
        period *= 2;
    }
    return period;
}

/* Double the period, up to the longest (rabred_estimate_longest_period). */
static void back_off(rabred_estimate_t *e)
{
    int doubled = e->period > 1 ? 2 * e->period : 2;
    int longest = rabred_estimate_longest_period(e);
    e->period = doubled < longest ? doubled : longest;
    e->skip = e->period - 1;
}

/* A rank is late (twice in a row).  Follow it every call while acting on
 * it may pay: no choice has been simulated under its offsets yet, or the
 * last one found a plan.  When the last found none and the offsets are
 * still in its epoch, nothing changed: back off.  When they have moved
 * since, the next call simulates anew: exchange there, and keep the
 * period for after (the offsets of ranks sharing cores jitter by
 * scheduler slices, which must not undo the backing off each time). */
static void follow_late(rabred_estimate_t *e, double balanced_price, double min_gain)
{
    if (e->futile_epoch < 0) {
        e->period = 1;
        e->skip = 0;
    } else if (futile(e, balanced_price, min_gain)) {
        back_off(e);
    } else {
        e->skip = 0;
    }
}

void rabred_estimate_pace(rabred_estimate_t *e, double balanced_price, double min_gain)
{
    if (!(balanced_price > 0)) {
        return; /* cannot judge: leave the pacing to calls that can */
    }
    int looked = e->looking;
    e->looking = 0;
    if (rabred_estimate_may_gain(e, balanced_price, min_gain)) {
        follow_late(e, balanced_price, min_gain);
    } else if (!looked && !(spread_of(e->last, e->p) - RABRED_ESTIMATE_NOISE_MEDIANS * e->noise <
                            min_gain * balanced_price)) {
        /* late once, above the noise: look again next call, keep the period for after */
        e->skip = 0;
        e->looking = 1;
    } else { /* balanced, or a look again that found no rank late twice */
        back_off(e);
    }
}

double rabred_estimate_exchange_price(int p, const rabred_model_t *model)
{
    int folded = rabred_pof2_floor(p) != p; /* fold and unfold: two one-way messages */
    double exchange = model->alpha + 8.0 * p * model->beta;
    double one_way = model->f_alpha * model->alpha + model->f_beta * 8.0 * p * model->beta;
    return rabred_log2_floor(p) * exchange + 2 * folded * one_way;
}

int rabred_estimate_pays(int p, const rabred_model_t *model, double balanced_price)
{
    return !(balanced_price > 0) ||
           rabred_estimate_exchange_price(p, model) <= RABRED_ESTIMATE_MAX_OVERHEAD * balanced_price;
}

rabred_arrival_t rabred_estimate_arrival(const rabred_estimate_t *e, const rabred_model_t *model,
                                         size_t type_size)
{
    double ts = (double)type_size;
    rabred_arrival_t a = {e->acting, model->f_alpha * model->alpha,
                          model->f_beta * model->beta * ts, model->gamma * ts};
    return a;
}

/* Seconds of Proficz's (2018) average elapsed time for `alg` under the offsets. */
static int simulate(const rabred_estimate_t *e, const rabred_call_t *call, size_t type_size,
                    const rabred_model_t *model, const rabred_alg_t *alg, int64_t seg_count,
                    double *avg)
{
    double ts = (double)type_size;
    rabred_arrival_t arrival = rabred_estimate_arrival(e, model, type_size);
    rabred_sim_call_t sc = {alg->build, call->p, -1, call->count, call->commutative,
                            0, seg_count, 1, &arrival, NULL};
    rabred_sim_model_t sm;
    rabred_sim_model_default(&sm);
    sm.alpha = model->alpha;
    sm.beta = model->beta * ts; /* per element of type_size bytes */
    sm.gamma = model->gamma * ts;
    sm.f_alpha = model->f_alpha;
    sm.f_beta = model->f_beta;
    sm.arrival = e->acting;
    sm.send_buffer = ts > 0 ? model->send_buffer / ts : 0; /* elements; a 0-byte type moves nothing */
    rabred_sim_result_t res;
    int rc = rabred_simulate(&sc, &sm, &res);
    if (RABRED_OK != rc) {
        return rc;
    }
    /* the structural terms the simulator does not run (rounds, peers,
     * protocol switches, memory), of the rank that arrives last: what the
     * others do before it comes is hidden by their wait, its own rounds
     * after it came are not (every rank's elapsed time ends after them) */
    int last = 0;
    for (int r = 1; r < call->p; r++) {
        last = e->acting[r] > e->acting[last] ? r : last;
    }
    rabred_price_call_t pc = {call->p, -1, call->commutative, call->count * (int64_t)type_size,
                              seg_count * (int64_t)type_size, call->count};
    double extra = 0;
    if (RABRED_OK != (rc = rabred_model_extras_of_rank(alg, &pc, &arrival, last, model, &extra))) {
        return rc;
    }
    *avg = res.avg_elapsed + extra;
    return res.ok ? RABRED_OK : RABRED_ERR_ARG;
}

int rabred_estimate_choose(const rabred_estimate_t *e, const rabred_call_t *call,
                           size_t type_size, const rabred_model_t *model,
                           const rabred_alg_t *balanced, double balanced_price,
                           int64_t seg_count, double min_gain, rabred_arrival_pick_t *pick)
{
    memset(pick, 0, sizeof(*pick));
    pick->best_s = -1;
    if (NULL == balanced || e->calls < 1 || call->p < 2 || call->p > RABRED_ESTIMATE_MAX_P ||
        call->p != e->p || !rabred_estimate_may_gain(e, balanced_price, min_gain)) {
        return RABRED_OK; /* balanced, or nothing could gain min_gain */
    }
    int rc = simulate(e, call, type_size, model, balanced, seg_count, &pick->balanced_s);
    for (int i = 0; RABRED_OK == rc && i < rabred_table_size(RABRED_COLL_ALLREDUCE); i++) {
        const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_ALLREDUCE, i);
        double t = 0;
        if (!alg->arrival_aware || NULL != rabred_alg_violation(alg, call)) {
            continue;
        }
        rc = simulate(e, call, type_size, model, alg, seg_count, &t);
        if (RABRED_OK == rc && (pick->best_s < 0 || t < pick->best_s)) {
            pick->best_s = t;
            pick->best = alg;
        }
    }
    /* The saving is bounded by what the call itself costs (Proficz 2018: at
     * most Delta - delta, however late a rank is), so it is weighed against
     * the balanced price, not against an elapsed time that is mostly
     * waiting for the late rank. */
    double yardstick = balanced_price > 0 ? balanced_price : pick->balanced_s;
    if (RABRED_OK == rc && NULL != pick->best &&
        pick->balanced_s - pick->best_s >= min_gain * yardstick) {
        pick->alg = pick->best;
    }
    return rc;
}
