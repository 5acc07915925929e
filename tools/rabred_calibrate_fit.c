/*
 * rabred-calibrate's arithmetic (see rabred_calibrate_fit.h).
 */
#include "rabred_calibrate_fit.h"

#include <math.h>

#include "plan/rabred_toolkit.h"

static int usable(const rabred_cal_link_t *m)
{
    if (m->n < 3 || m->n > RABRED_CAL_MAX_SIZES) {
        return 0;
    }
    for (int i = 0; i < m->n; i++) {
        if (!(m->oneway[i] > 0) || !(m->exchange[i] > 0) ||
            (i > 0 && !(m->bytes[i] > m->bytes[i - 1]))) {
            return 0;
        }
    }
    return 1;
}

static double slope(const double *t, const double *x, int i, int j)
{
    return (t[j] - t[i]) / (x[j] - x[i]);
}

/* Time per byte of the large messages: the median of the slopes between
 * consecutive sizes among the largest four, so that one size caught in a
 * slow mode (a bimodal transport) does not set it.  Where two of the
 * three are caught (a machine busy with other work: the median came out
 * negative for the intra-node link of 5 ranks on 2 cores while a build
 * ran beside them), the chord across the four, which a slow mode in the
 * middle sizes cannot turn negative; 0 when even that falls. */
static double large_slope(const double *t, const double *x, int n)
{
    double s[3] = {0, 0, 0};
    int k = 0;
    for (int i = n - 1; i >= 1 && k < 3; i--) {
        s[k++] = slope(t, x, i - 1, i);
    }
    double median = k < 3 ? (s[0] + s[k - 1]) / 2 : rabred_median(s, 3);
    if (median > 0) {
        return median;
    }
    double chord = slope(t, x, n - 1 - k, n - 1);
    return chord > 0 ? chord : 0;
}

/* Latency at zero bytes: the smallest size less its bytes' time; where a
 * slow mode made the slope so steep that this is not positive, the
 * median of the three smallest sizes' (a busy machine's stray slope
 * should not lose the link). */
static double zero_bytes_latency(const double *t, const double *x, int n, double per_byte)
{
    double first = t[0] - x[0] * per_byte;
    if (first > 0 || n < 3) {
        return first;
    }
    double at[3];
    for (int i = 0; i < 3; i++) {
        at[i] = t[i] - x[i] * per_byte;
    }
    return rabred_median(at, 3);
}

/* How much step i -> i+1 of series t grows beyond what its bytes cost at
 * the large sizes' time per byte. */
static double excess(const double *t, const double *x, int i, double big_slope)
{
    return t[i + 1] - t[i] - big_slope * (x[i + 1] - x[i]);
}

/* The protocol switch: of the steps where the one-way and the exchange
 * times both grow beyond their bytes by a one-way latency or more (a
 * handshake costs a round trip's order; it shows in both series, where a
 * slow mode of one does not) and by 2 % of their time, the one that grows
 * most against its time (the two series' shares added): a handshake is a
 * fixed cost, so where it starts it is a large share of a small time.
 * Not the first step that passes: below the limit eager messages move at
 * their own, slower speed, so a step there can pass both tests (over
 * shared memory 1 -> 2 KiB grew 0.47 us beyond the large messages'
 * speed, 28 % of its time, against 2.1 us, 52 %, at the real switch,
 * 2 -> 4 KiB; taking the first put the limit at 1 KiB, priced the
 * handshake at 1.4 us instead of 2.5-3.9, and auto ran recursive doubling
 * at 4 KiB, 1.38x the best,
 * bench/results/shm-direct-20261206/switch-first/2-stale).
 * Nor the largest in microseconds: a slow mode at 16 -> 32 KiB grows more
 * (3.9 us, 19 %; shm-direct-20261206/switch-largest/1-stale).
 * The handshakes cost what the first size above the limit takes beyond
 * latency and bytes: the exchange's in a round that sends and receives
 * (two crossing: on shared memory about 3x one), the one-way's in a round
 * that only sends or receives. */
/* A series' time at size i beyond latency + bytes at the large sizes'
 * speed (>= 0). */
static double beyond(const double *t, const double *x, int i, double lat, double per_byte)
{
    double e = t[i] - lat - x[i] * per_byte;
    return e > 0 ? e : 0;
}

static void find_switch(const rabred_cal_link_t *m, double slope_oneway, double slope_exchange,
                        double alpha, double alpha_uni, rabred_link_units_t *out)
{
    int at = -1;
    double most = 0;
    for (int i = 0; i + 1 < m->n && m->bytes[i] <= RABRED_CAL_MAX_EAGER; i++) {
        if (m->bytes[i] < RABRED_CAL_MIN_EAGER) {
            continue;
        }
        double e1 = excess(m->oneway, m->bytes, i, slope_oneway);
        double e2 = excess(m->exchange, m->bytes, i, slope_exchange);
        if (e1 > 0.02 * m->oneway[i + 1] && e2 > 0.02 * m->exchange[i + 1] &&
            e1 > alpha_uni && e2 > alpha_uni) {
            double share = e1 / m->oneway[i + 1] + e2 / m->exchange[i + 1];
            if (share > most) {
                at = i;
                most = share;
            }
        }
    }
    if (at >= 0) {
        out->eager_bytes = m->bytes[at];
        /* the eager messages' own speed: the exchange's slope up to the
         * limit, when more than 10 % slower than the large messages' */
        double eager = at > 0 ? slope(m->exchange, m->bytes, 0, at) : 0;
        out->eager_mbs = eager > 1.1 * slope_exchange ? 1e-6 / eager : 0;
        /* what the first size above the limit takes beyond latency and
         * bytes: the model charges a large message alpha + n beta + rndv */
        out->rndv_us = 1e6 * beyond(m->exchange, m->bytes, at + 1, alpha, slope_exchange);
        out->rndv_oneway_us = 1e6 * beyond(m->oneway, m->bytes, at + 1, alpha_uni, slope_oneway);
    } else {
        out->eager_bytes = 0;
        out->eager_mbs = 0;
        out->rndv_us = 0;
        out->rndv_oneway_us = 0;
    }
}

/* Back to back over the first exchange at the largest (up to) four sizes,
 * the median; 1 when not measured or less than 10 % slower (within the
 * spread of these measurements: a term that noise sets would decide
 * near-ties at random). */
static double repeat_factor(const rabred_cal_link_t *m)
{
    double r[4];
    int k = 0;
    for (int i = m->n - 1; i >= 0 && k < 4; i--) {
        if (!(m->repeated[i] > 0)) {
            return 1;
        }
        r[k++] = m->repeated[i] / m->exchange[i];
    }
    for (int i = 1; i < k; i++) { /* insertion sort of at most 4 */
        for (int j = i; j > 0 && r[j] < r[j - 1]; j--) {
            double tmp = r[j];
            r[j] = r[j - 1];
            r[j - 1] = tmp;
        }
    }
    double median = k % 2 ? r[k / 2] : (r[k / 2 - 1] + r[k / 2]) / 2;
    return median > 1.1 ? median : 1;
}

/* The smallest size from which every back-to-back exchange posted
 * send-first beats the receive-first one by 10 % (0: none). */
static double sends_first_from(const rabred_cal_link_t *m)
{
    double from = 0;
    for (int i = m->n - 1; i >= 0; i--) {
        if (!(m->repeated_sf[i] > 0 && m->repeated[i] > 0 &&
              m->repeated_sf[i] < 0.9 * m->repeated[i])) {
            break;
        }
        from = m->bytes[i];
    }
    return from;
}

/* The measurements as rabred's executor meets them: from sends_first_bytes
 * on, back-to-back exchanges posted send-first. */
static rabred_cal_link_t in_executor_order(const rabred_cal_link_t *m, double sends_first_bytes)
{
    rabred_cal_link_t e = *m;
    for (int i = 0; sends_first_bytes > 0 && i < m->n; i++) {
        if (m->bytes[i] >= sends_first_bytes) {
            e.repeated[i] = m->repeated_sf[i];
            e.exchange[i] = fmin(m->exchange[i], m->repeated_sf[i]);
        }
    }
    return e;
}

int rabred_cal_fit_link(const rabred_cal_link_t *measured, rabred_link_units_t *out)
{
    if (!usable(measured)) {
        return -1;
    }
    double sends_first_bytes = sends_first_from(measured);
    rabred_cal_link_t executor = in_executor_order(measured, sends_first_bytes);
    const rabred_cal_link_t *m = &executor;
    double beta = large_slope(m->exchange, m->bytes, m->n);
    double beta_uni = large_slope(m->oneway, m->bytes, m->n);
    if (!(beta > 0) || !(beta_uni > 0)) {
        return -1;
    }
    rabred_link_units_t fit = *out;
    /* latencies at zero bytes: the smallest size less its bytes' time */
    double alpha = zero_bytes_latency(m->exchange, m->bytes, m->n, beta);
    double alpha_uni = zero_bytes_latency(m->oneway, m->bytes, m->n, beta_uni);
    if (!(alpha > 0) || !(alpha_uni > 0)) {
        return -1;
    }
    fit.alpha_us = 1e6 * alpha;
    fit.oneway_alpha = alpha_uni / alpha;
    fit.mbs = 1e-6 / beta;
    fit.oneway_beta = beta_uni / beta;
    fit.repeat = repeat_factor(m);
    fit.sends_first_bytes = sends_first_bytes;
    find_switch(m, beta_uni, beta, alpha, alpha_uni, &fit);
    *out = fit;
    return 0;
}

double rabred_cal_mbs(double bytes, double seconds)
{
    return seconds > 0 ? 1e-6 * bytes / seconds : 0;
}

double rabred_cal_excess_us(double round_s, double message_s)
{
    double excess = round_s - message_s;
    return excess > 0 ? 1e6 * excess : 0;
}

double rabred_cal_aggregate_mbs(int p, double bytes, double round_s, double sync_s,
                                double half_s)
{
    double moving = round_s - sync_s;
    if (p < 2 || !(half_s > 0) || !(round_s > 1.1 * half_s) || !(moving > 0)) {
        return 0;
    }
    return 1e-6 * p * bytes / moving;
}

double rabred_cal_duplex_rounds(double ring_s, double pairs_s, double sync_s, double oneway_beta)
{
    double ring = ring_s - sync_s, pairs = pairs_s - sync_s;
    if (!(ring > 0) || !(pairs > 0) || !(oneway_beta > 0)) {
        return 1;
    }
    double f = ring / pairs / oneway_beta;
    return f > 1.1 ? f : 1; /* within the spread: no term */
}

int rabred_cal_distance_mbs(double mbs, const double *pairs_s, int n, double sync_s,
                            double spread, double *out)
{
    int slower = 0;
    double near = n > 0 ? pairs_s[0] - sync_s : 0;
    /* beyond what the rounds' own spread gives two medians (a loaded
     * machine: 22% on the emulated cluster), and 10% at least */
    double beyond = 1 + fmax(0.1, 2 * (spread > 0 ? spread : 0));
    if (!(mbs > 0) || !(near > 0) || n > RABRED_DISTANCE_CLASSES) {
        return 0;
    }
    for (int k = 0; k < n; k++) {
        double far = pairs_s[k] - sync_s;
        if (!(far > 0)) {
            return 0;
        }
        out[k] = far > beyond * near ? mbs * near / far : mbs; /* within the spread: none */
        slower |= far > beyond * near;
    }
    return slower ? n : 0;
}

double rabred_cal_invalidate_mbs(double bytes, double after_read_s, double own_s)
{
    if (!(own_s > 0) || !(after_read_s > 1.1 * own_s)) {
        return 0;
    }
    return 1e-6 * bytes / (after_read_s - own_s);
}

double rabred_cal_send_buffer_bytes(const rabred_link_units_t *fit, double bytes,
                                    double returned_s, double delivered_s)
{
    double per_byte = fit->mbs > 0 ? fit->oneway_beta * 1e-6 / fit->mbs : 0;
    double left_s = delivered_s - returned_s;
    if (!(per_byte > 0) || !(returned_s >= 0) || !(delivered_s > 0) || !(left_s > 0)) {
        return 0;
    }
    double left = left_s / per_byte;
    return left < bytes ? left : bytes;
}

/* A size leans the ring's way: slower in most samples, by 10 % of the
 * exchange round and by more than the floor. */
static int ring_leans(double excess_s, double pairs_s, int slower, int samples, double floor_s)
{
    return 2 * slower > samples && excess_s > 0.1 * pairs_s && excess_s > floor_s;
}

int rabred_cal_sign_test(int slower, int samples)
{
    if (samples <= 0 || samples > 1000 || slower < 0 || slower > samples) {
        return 0;
    }
    /* P(X >= slower) for X ~ Binomial(samples, 1/2), in logs */
    double tail = 0;
    for (int j = slower; j <= samples; j++) {
        tail += exp(lgamma(samples + 1.0) - lgamma(j + 1.0) - lgamma(samples - j + 1.0) -
                    samples * log(2.0));
    }
    return tail < RABRED_CAL_SIGN_LEVEL;
}

int rabred_cal_ring_pays(double excess_s, double pairs_s, int slower, int samples,
                         double floor_s)
{
    return ring_leans(excess_s, pairs_s, slower, samples, floor_s) &&
           rabred_cal_sign_test(slower, samples);
}

double rabred_cal_refine_switch(double lo, double hi, int steps,
                                int (*pays)(double bytes, void *ctx), void *ctx)
{
    for (int k = 0; k < steps; k++) {
        double mid = 8 * floor((lo + hi) / 16);
        if (!(mid > lo && mid < hi)) {
            break; /* within 8 bytes: nothing left to tell */
        }
        if (pays(mid, ctx)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return lo;
}

int rabred_cal_ring_handshake(const double *bytes, const double *excess_s, const double *pairs_s,
                              const int *slower, int samples, int n, double floor_s,
                              double *switch_bytes, double *cross_us)
{
    double excess[RABRED_CAL_MAX_SIZES];
    int from = n, pooled = 0;
    *switch_bytes = *cross_us = 0;
    for (int i = n - 1; i >= 0 && i >= n - RABRED_CAL_MAX_SIZES; i--) {
        if (!ring_leans(excess_s[i], pairs_s[i], slower[i], samples, floor_s)) {
            break;
        }
        from = i;
        pooled += slower[i];
    }
    int k = 0;
    for (int i = from; i < n; i++) {
        excess[k++] = excess_s[i];
    }
    if (0 == k || !rabred_cal_sign_test(pooled, k * samples)) {
        return 0;
    }
    *switch_bytes = from > 0 ? bytes[from - 1] : bytes[0] / 2;
    *cross_us = 1e6 * rabred_median(excess, k);
    return k;
}

double rabred_cal_wire_us(double alpha_us, int k, double one_s, double all_s)
{
    if (k < 2 || !(one_s > 0) || !(all_s > 0) || !(alpha_us > 0)) {
        return 0;
    }
    double o_us = 1e6 * (all_s - one_s) / (k - 1);
    o_us = o_us > 0 ? o_us : 0;
    return o_us < alpha_us ? alpha_us - o_us : 0;
}

int rabred_cal_shared_ports(double alone_s, double first_s)
{
    return alone_s > 0 && first_s > 1.5 * alone_s;
}

int rabred_cal_parallel_ports(double alone_s, double first_s, double last_s)
{
    return alone_s > 0 && last_s > 0 && !rabred_cal_shared_ports(alone_s, first_s) &&
           last_s < 1.5 * alone_s;
}
