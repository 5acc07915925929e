/*
 * rabred-calibrate's arithmetic: from measured times to the cost model's
 * terms (select/rabred_model.h).  Pure C, no MPI, so that it is tested on
 * recorded and synthetic measurements (test/unit/test_calibrate.c).
 *
 * A link (two ranks within a node, or on two nodes) is measured at sizes
 * from 8 bytes up, each as a one-way message (half a ping-pong) and as an
 * exchange with the same peer (MPI_Sendrecv), one at a time started in
 * step and back to back.  `exchange` is the faster of the two (a lone
 * exchange's time includes the barrier's exit skew, which matters for the
 * smallest messages only).  Then:
 *   alpha_us        the smallest exchange less its bytes' time (at the
 *                   large sizes' time per byte);
 *   oneway_alpha    the same of the one-way time, over alpha_us;
 *   mbs, oneway_beta  from the time per byte of the largest sizes (where
 *                   the bulk of a large call's bytes travel; the median of
 *                   the slopes between consecutive sizes among the largest
 *                   four): 1 / exchange slope, one-way slope over exchange
 *                   slope;
 *   sends_first_bytes  the smallest size from which every back-to-back
 *                   exchange posted send-first takes under 0.9x the one
 *                   posted receive-first (0: none; 0.9: the measurements'
 *                   own spread): from there rabred's executor posts sends
 *                   first, and the terms below read the send-first times;
 *   repeat          the median over the largest four sizes of back to back
 *                   over `exchange`: what an exchange costs when it follows
 *                   another round (1 when less than 1.1, the measurements'
 *                   own spread);
 *   eager_bytes, rndv_us, rndv_oneway_us  the protocol switch: between two consecutive
 *                   sizes the times grow by more than the bytes explain (at
 *                   the large sizes' time per byte); the first step where
 *                   both the one-way and the exchange times exceed by a
 *                   one-way latency and 2 % of their time marks the
 *                   eager limit (the smaller size); what the next size takes
 *                   beyond latency and bytes is the handshakes' cost: the
 *                   exchange's in a round that sends and receives, the
 *                   one-way's in one that does not;
 *   eager_mbs       1 / the exchange's slope from the smallest size to the
 *                   eager limit, when that is more than 10 % slower than
 *                   the large sizes' (0: no term).  No such step: no
 *                   switch (eager_bytes 0).  Only steps from sizes
 *                   RABRED_CAL_MIN_EAGER to RABRED_CAL_MAX_EAGER count:
 *                   transports' eager limits are a few KiB to 64 KiB;
 *                   below, the steps are inline-send limits (a fraction
 *                   of the latency, no round trip) or noise, and above
 *                   they are the caches' (a message that no longer fits
 *                   in a cache moves at the next level's speed), which a
 *                   per-message constant does not describe;
 *   invalidate_mbs  (measured apart) reducing into memory a peer has just
 *                   read against reducing into one's own;
 *   overwrite_mbs   (measured apart) the same for copying over it;
 *   rndv_cross_us   (measured apart, 3 ranks or more) ring rounds against
 *                   exchange rounds of every rank, by size
 *                   (rabred_cal_ring_handshake); where ping-pong shows no
 *                   switch (a handshake's round trip is lost in a slow
 *                   link's message time), the ring's switch, bisected
 *                   within its octave (rabred_cal_refine_switch), is the
 *                   link's eager_bytes;
 * The reduction speed and the per-round, per-peer and aggregate terms come
 * from their own measurements (rabred_calibrate.c) as plain differences
 * and ratios.
 */
#ifndef RABRED_CALIBRATE_FIT_H
#define RABRED_CALIBRATE_FIT_H

#include "select/rabred_model.h"

#define RABRED_CAL_MAX_SIZES 24
#define RABRED_CAL_MIN_EAGER 256
#define RABRED_CAL_MAX_EAGER (64 * 1024)

/* One link's measurements: medians, seconds per operation. */
typedef struct {
    int n;                                /* sizes measured, increasing */
    double bytes[RABRED_CAL_MAX_SIZES];
    double oneway[RABRED_CAL_MAX_SIZES];   /* half a ping-pong */
    double exchange[RABRED_CAL_MAX_SIZES]; /* MPI_Sendrecv with the same peer */
    double repeated[RABRED_CAL_MAX_SIZES]; /* the same back to back; 0: not measured */
    double repeated_sf[RABRED_CAL_MAX_SIZES]; /* ... posted send-first; 0: not measured */
} rabred_cal_link_t;

/* The link's terms into *out (peer_us left as it is).  0, or -1 when the
 * measurements cannot give them (fewer than three sizes, sizes not
 * increasing, a time not positive); *out is then untouched. */
int rabred_cal_fit_link(const rabred_cal_link_t *m, rabred_link_units_t *out);

/* MB/s of a reduction of `bytes` that took `seconds`. */
double rabred_cal_mbs(double bytes, double seconds);

/* What a lock-step round costs beyond its message (us, >= 0): `round_s`
 * per round measured, `message_s` the message alone. */
double rabred_cal_excess_us(double round_s, double message_s);

/* The aggregate bandwidth (MB/s) of p ranks that each send `bytes` per
 * lock-step round at once, a round taking `round_s` of which `sync_s` is
 * the rounds' own synchronisation, when the same rounds on half the ranks
 * take `half_s`: p * bytes / (round_s - sync_s) when all ranks' round is
 * more than 10 % slower than half's (the links do not all run at full
 * speed together: what slows each link alone slows both alike), else 0
 * (no limit seen). */
double rabred_cal_aggregate_mbs(int p, double bytes, double round_s, double sync_s,
                                double half_s);

/* The duplex factor from rounds with every rank busy: ring rounds of
 * `ring_s` (each rank sends to one peer and receives from another)
 * against exchange rounds of `pairs_s` (each rank exchanges the same
 * bytes with one peer), `sync_s` of each the rounds' synchronisation.
 * The model prices the ring's send at duplex x the one-way time
 * (oneway_beta x the exchange's per byte), so duplex = ring / pairs /
 * oneway_beta; 1 when that is below 1.1 (the measurements' own spread)
 * or a time is missing. */
double rabred_cal_duplex_rounds(double ring_s, double pairs_s, double sync_s, double oneway_beta);

/* The handshake a ring step's receive waits for (rabred_link_units_t
 * .rndv_cross_us) from rounds of every rank at once at n increasing sizes
 * bytes[i], each sample a ring round (each rank sends to one peer and
 * receives from another) next to an exchange round (each rank with one
 * peer), so that a slow moment of the machine slows both: `excess_s[i]`
 * the median over samples of ring - exchange, `pairs_s[i]` the exchange
 * round's median, `slower[i]` in how many of the `samples` the ring took
 * longer.  A size leans the ring's way when the ring took longer in most
 * samples and its excess is above 10 % of the exchange round and above
 * `floor_s` (a latency, what per-message noise adds).  The ring's switch
 * is the first size from which every larger one leans too (a protocol
 * switch stays switched), and the handshake counts only when the samples
 * of those sizes together pass the sign test (rabred_cal_sign_test: one
 * size of 11 samples needs 9 slower, two 16 of 22, three 23 of 33; on 8
 * ranks sharing 2 cores single sizes read 7-8 of 11 where the sizes
 * around them read 10-11, bench/results/calibrate-20261207b):
 * *switch_bytes the size before it (bytes[0] / 2 when the first leans),
 * *cross_us the median excess of the sizes from it, in microseconds.
 * Returns how many sizes that is; 0 (and both 0) when the largest does
 * not lean or the count could be chance. */
int rabred_cal_ring_handshake(const double *bytes, const double *excess_s, const double *pairs_s,
                              const int *slower, int samples, int n, double floor_s,
                              double *switch_bytes, double *cross_us);

/* The sign test's level: the chance that the ring comes out slower in
 * `slower` of `samples` or more when it is not (one-sided binomial tail)
 * must be below it.  3.5 %: 9 of 11 samples pass (3.3 %), 8 do not. */
#define RABRED_CAL_SIGN_LEVEL 0.035
int rabred_cal_sign_test(int slower, int samples);

/* Does one size of the ring handshake's scan pay on its own (it leans the
 * ring's way, and its own samples pass the sign test)?  The bisection of
 * the switch asks it of each midpoint. */
int rabred_cal_ring_pays(double excess_s, double pairs_s, int slower, int samples,
                         double floor_s);

/* Where between two sizes of the scan the ring's switch is: `lo` bytes
 * do not pay, `hi` bytes do (sizes a factor 2 apart tell the switch only
 * to within that factor, and a 40 KiB ring step priced as a 64 KiB one
 * pays a handshake it does not have).  Bisects `steps` times, asking
 * pays(bytes, ctx) (which measures that size) at each midpoint rounded
 * down to 8 bytes; returns the largest size known not to pay, so that the
 * switch found is never above the true one and within (hi - lo) / 2^steps
 * of it. */
double rabred_cal_refine_switch(double lo, double hi, int steps,
                                int (*pays)(double bytes, void *ctx), void *ctx);

/* The distance list (rabred_link_units_t.distance_mbs) from exchange
 * rounds of every rank with rank XOR 2^k at once, `pairs_s[k]` seconds
 * each for k = 0 .. n-1 (`sync_s` of each the rounds' synchronisation):
 * entry k is `mbs` times how much faster distance 1 ran than distance
 * 2^k (the load of every rank being busy, the same at every distance, is
 * the aggregate limit's), `mbs` itself where that is within the
 * measurements' noise: 1.1x, or 1 + twice `spread` (the worst (max -
 * min) / median of the rounds' samples) where that is more.  The number
 * of entries written to out (n), or 0 when no distance is slower than
 * that or a time is missing: nothing to write. */
int rabred_cal_distance_mbs(double mbs, const double *pairs_s, int n, double sync_s,
                            double spread, double *out);

/* The speed (MB/s) of writing memory a peer has just read: `bytes` written
 * in `after_read_s` right after a peer read them (a message above the
 * eager limit) and in `own_s` when no one else had: bytes / (after_read_s
 * - own_s) when the first is more than 10 % slower, else 0 (no cost). */
double rabred_cal_invalidate_mbs(double bytes, double after_read_s, double own_s);

/* The send buffer (bytes) of a link fitted as `fit`: a one-way message of
 * `bytes` whose MPI_Send returned after `returned_s` and whose last byte
 * was in after `delivered_s` (both from the send's start).  The time
 * between, at the one-way time per byte, as the simulator has it
 * (sim/rabred_sim.h: a sender is released that many bytes' time before
 * its message ends; the message's latency is in both).  Between 0 and
 * `bytes` (a send that returned at once shows only that the buffer holds
 * at least `bytes`); 0 when the times say nothing (not positive, or
 * returned after delivered). */
double rabred_cal_send_buffer_bytes(const rabred_link_units_t *fit, double bytes,
                                    double returned_s, double delivered_s);

/* A link's wire latency (us; rabred_link_units_t.wire_us) from a fan-in:
 * a hub's rounds with `k` senders answering at once took `all_s`, with
 * one `one_s`; each more message adds the overhead o = (all - one) /
 * (k - 1), and the wire latency is alpha_us - o, 0 when o reaches alpha
 * or the times say nothing (k < 2, a time not positive). */
double rabred_cal_wire_us(double alpha_us, int k, double one_s, double all_s);

/* rabred_link_units_t.shared_ports from one message in `alone_s` and the
 * first of two sent at once in `first_s`: taking turns the first is in
 * after one message's time, sharing the link after about two; 1 when it
 * took over 1.5 times as long, 0 otherwise (and for missing times). */
int rabred_cal_shared_ports(double alone_s, double first_s);

/* rabred_link_units_t.parallel_ports from the same two and the last of
 * the two in `last_s`: with no port at all both are in after about one
 * message's time (taking turns, the last after two); 1 when the link does
 * not share (rabred_cal_shared_ports) and the last took under 1.5 times
 * the message alone, 0 otherwise (and for missing times). */
int rabred_cal_parallel_ports(double alone_s, double first_s, double last_s);

#endif /* RABRED_CALIBRATE_FIT_H */
