/*
 * rabred-calibrate: measures every term of rabred's cost model on the
 * machine it runs on, under the user's own mpirun line, and writes them as
 * an Open MPI MCA parameter file.
 *
 *   mpirun -np 4 --map-by node rabred-calibrate       (a few nodes, 1+ rank each)
 *   -> ./rabred-calibration.conf   `name = value` lines: append to
 *                                  $HOME/.openmpi/mca-params.conf, or pass
 *                                  --mca mca_base_param_files $PWD/rabred-calibration.conf
 *   -> ./rabred-calibration.md     one page: every term, its spread, how
 *
 * What is measured (select/rabred_model.h has the model):
 *   within a node, between two ranks that share one, and between nodes,
 *   between rank 0 and a rank elsewhere (by MPI_Comm_split_type): a
 *   ping-pong and same-peer MPI_Sendrecv (one started in step, and back
 *   to back) at sizes from 8 B up, giving
 *   latency, bandwidth, the one-way and repeat factors and the eager/rendezvous switch
 *   (tools/rabred_calibrate_fit.h); then one message of the largest size,
 *   timed at MPI_Send's return and at its last byte's arrival: the send
 *   buffer, what was left when the send returned; the ranks not measuring sleep;
 *   the reduction and a copy: MPI_Reduce_local and memcpy of doubles on
 *   every rank at once (ranks that share cores share them here too), the
 *   slowest rank, with vectors of a quarter of the per-core cache the
 *   system reports (1 MiB when it reports none) and, beyond it, of four
 *   times that cache (at most 64 MiB): the speeds in cache and from
 *   memory (coll_rabred_core_cache_bytes);
 *   rounds out of step, on one rank per node when there are several
 *   nodes (the network's terms; the other ranks sleep), else on every
 *   rank: each exchanges 8 bytes with its ring neighbours, round after
 *   round; what a round takes beyond the message;
 *   at the largest size measured (at most 1 MiB, where bytes, not
 *   per-message costs, decide): duplex (3 ranks or more), ring rounds of
 *   every rank against exchange rounds of every rank in pairs; the
 *   aggregate limit (4 ranks or more), the ring rounds against the same
 *   on half the ranks;
 *   distinct peers (5 ranks or more): 64 KiB rounds to a new pair of
 *   peers every round against the ring's, the difference per peer;
 *   messages in flight at once, per link with a hub and two spokes or more
 *   on it (measure_fan): 8-byte answers from all spokes at once against
 *   one (the overhead o, so wire_us = alpha - o), and the largest size to
 *   one spoke and to two at once (shared_ports).
 * A term that cannot be measured here (no two ranks on one node, one node
 * only, fewer than 5 nodes, or 5 ranks on one node) is not written: the built-in default stays, and
 * the summary says so.  Every number is the median of several samples;
 * the summary gives their spread, (max - min) / median.  Rank 0 shows
 * progress on stderr.  About a minute on a fast network; on slow links the
 * largest sizes are skipped once one message takes longer than 50 ms.
 *
 * Only <mpi.h>: it measures the MPI below rabred, with any coll list.
 */
#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rabred_calibrate_fit.h"
#include "rabred_mpit.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "?"
#endif

enum { SAMPLES = 7, TAG = 7301 };
/* The ring handshake's samples: 16 ranks sharing 2 cores (the emulated
 * cluster) move a round's time by 10-60 % from sample to sample, and its
 * test counts samples (rabred_cal_ring_handshake) */
enum { SCAN_SAMPLES = 11 };
/* The ring handshake's scan runs on every other rank of the rounds from
 * this many on: the handshake is a link's (an acknowledgement queued
 * behind the rank's own data), so a ring of 8 shows it as one of 16
 * does, and on the emulated cluster (16 ranks on 2 cores) the 16-rank
 * ring was slower than the pairs in 8-10 of 11 samples at 64-256 KiB, a
 * sign count that found the term in 2 of 5 calibrations
 * (bench/results/calibrate-20261207), where 8 ranks show 1.5x
 * (ring-handshake-20261206) */
enum { SCAN_HALF_FROM = 8 };
/* bisections of the ring's switch within the octave the scan found */
enum { SWITCH_STEPS = 3 };

static int g_rank, g_size;
/* The ranks of the lock-step rounds (sync, duplex, aggregate, the ring's
 * handshake, peers, distances), as world ranks g_round[0..g_nround-1]:
 * one per node when the job spans nodes, so that every message crosses
 * the network whose terms they are; on one node, every rank.  With every
 * rank, two per node in block order put half a ring's steps and every
 * exchange pair inside a node, and the network's duplex read 25.6
 * (exchange rounds at shared-memory speed).  The others sleep meanwhile.
 * g_round_me: this rank's place among them, -1 when not one of them. */
static int g_nround, g_round_me = -1, *g_round;
static double g_progress_done, g_progress_total;

static void progress(const char *what)
{
    if (0 != g_rank) {
        return;
    }
    int width = 30, filled = (int)(width * g_progress_done / g_progress_total);
    fprintf(stderr, "\r[%.*s%*s] %3d%% %-48.48s", filled, "##############################",
            width - filled, "", (int)(100 * g_progress_done / g_progress_total), what);
    fflush(stderr);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    double median, spread;
} stat_t;

static stat_t stats(double *x, int n)
{
    qsort(x, (size_t)n, sizeof(*x), cmp_double);
    stat_t s = {x[n / 2], x[n / 2] > 0 ? (x[n - 1] - x[0]) / x[n / 2] : 0};
    return s;
}

/* ---- one link: ping-pong and exchange between ranks a and b ------------ */

typedef struct {
    int a, b;                 /* the pair; -1: not measured */
    const char *name;         /* "intra" or "inter" */
    MPI_Comm pair;            /* a (rank 0) and b (rank 1); MPI_COMM_NULL elsewhere */
    rabred_cal_link_t m;
    double spread;            /* the worst spread of its medians */
    rabred_link_units_t fit;
    int fitted;
    int inv_bytes;            /* the invalidation measurement: size, */
    int buffer_bytes;         /* the send buffer's measurement: size, */
    double buffer_t[2];       /* MPI_Send's return and the last byte's arrival (medians, s) */
    double buffer_spread;
    double inv_t[4];          /* seconds to reduce into memory after a peer read it, into
                               * the rank's own; to copy over it, over the rank's own */
    /* messages in flight at once (measure_fan): a hub and its spokes over
     * this link, MPI_COMM_NULL where fewer than two spokes exist */
    int hub, nspokes;
    MPI_Comm fan;
    stat_t fan_one, fan_all; /* 8-byte replies: from one spoke, from all at once (s) */
    int share_bytes;
    stat_t share_alone, share_first; /* one message alone, the first of two at once (s) */
    stat_t share_last;               /* the last of the two (s) */
} link_t;

enum { PINGPONG, EXCHANGE, EXCHANGE_SENDS_FIRST };

/* Seconds per operation of `iters` back-to-back operations, on each rank
 * of the pair: half a ping-pong, an MPI_Sendrecv with the same peer (its
 * receive is posted first), or the same exchange posted send-first (what
 * rabred's executor does from sends_first_bytes).
 * Each sender writes what it sends just before, as a collective sends
 * what it has just reduced or copied: over shared memory a reader then
 * fetches the lines from the writer's cache, 2-3x slower than re-reading
 * a buffer it already holds; the writing itself is timed apart and taken
 * out (write_time: once per exchange, half once per one-way time, since a
 * ping-pong's receiver writes while the message is on its way). */
static double run_ops(const link_t *l, int kind, char *buf, char *buf2, int bytes, int iters)
{
    int me, peer;
    MPI_Comm_rank(l->pair, &me);
    peer = 1 - me;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        memset(buf, i, (size_t)bytes);
        if (EXCHANGE == kind) {
            MPI_Sendrecv(buf, bytes, MPI_BYTE, peer, TAG, buf2, bytes, MPI_BYTE, peer, TAG,
                         l->pair, MPI_STATUS_IGNORE);
        } else if (EXCHANGE_SENDS_FIRST == kind) {
            MPI_Request q[2];
            MPI_Isend(buf, bytes, MPI_BYTE, peer, TAG, l->pair, &q[0]);
            MPI_Irecv(buf2, bytes, MPI_BYTE, peer, TAG, l->pair, &q[1]);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        } else if (0 == me) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, TAG, l->pair);
            MPI_Recv(buf2, bytes, MPI_BYTE, peer, TAG, l->pair, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf2, bytes, MPI_BYTE, peer, TAG, l->pair, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, peer, TAG, l->pair);
        }
    }
    double t = (MPI_Wtime() - t0) / iters;
    return PINGPONG == kind ? t / 2 : t;
}

/* Seconds of one memset of `bytes` of a buffer the rank alone uses. */
static double write_time(char *buf, int bytes)
{
    int iters = (int)fmin(fmax(1e7 / (bytes + 64.0), 10), 1e5);
    double best = 1e9;
    for (int s = 0; s < 3; s++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            memset(buf, i, (size_t)bytes);
        }
        best = fmin(best, (MPI_Wtime() - t0) / iters);
    }
    return best;
}

/* The median of SAMPLES batches of about `target` seconds each; both
 * ranks run the iterations rank a chose from a timed warm-up. */
static stat_t measure_batches(const link_t *l, int kind, char *buf, char *buf2, int bytes,
                              double target)
{
    double x[SAMPLES];
    (void)run_ops(l, kind, buf, buf2, bytes, 2); /* warm-up: buffers, protocol state */
    double once = run_ops(l, kind, buf, buf2, bytes, 3);
    int iters = once > 0 ? (int)fmin(fmax(target / once, 1), 1e6) : 1000;
    MPI_Bcast(&iters, 1, MPI_INT, 0, l->pair);
    for (int s = 0; s < SAMPLES; s++) {
        x[s] = run_ops(l, kind, buf, buf2, bytes, iters);
    }
    return stats(x, SAMPLES);
}

/* Exchanges started in step, as a call's first round starts: a barrier of
 * the pair, then one timed MPI_Sendrecv; the median over SAMPLES of the
 * slower rank's time. */
static stat_t measure_in_step(const link_t *l, char *buf, char *buf2, int bytes)
{
    double x[SAMPLES];
    int me;
    MPI_Comm_rank(l->pair, &me);
    for (int s = 0; s < SAMPLES; s++) {
        memset(buf, s, (size_t)bytes); /* fresh, as in run_ops; not timed */
        MPI_Barrier(l->pair);
        double t0 = MPI_Wtime();
        MPI_Sendrecv(buf, bytes, MPI_BYTE, 1 - me, TAG, buf2, bytes, MPI_BYTE, 1 - me, TAG,
                     l->pair, MPI_STATUS_IGNORE);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &x[s], 1, MPI_DOUBLE, MPI_MAX, l->pair);
    }
    return stats(x, SAMPLES);
}

/* One size on the pair: {one-way, exchange, back-to-back exchange, the
 * same posted send-first} seconds and the worst spread.  Back to back, as an algorithm's later
 * rounds follow each other, some transports are slower than for one
 * exchange started in step (over Open MPI's TCP BTL above the eager limit
 * 2-3x: one direction's handshake queues behind the other's data); the
 * exchange is the faster of the two (a lone one's time includes the
 * barrier's exit skew, which only the smallest messages notice). */
static void measure_size(const link_t *l, char *buf, char *buf2, int bytes, double t[4],
                         double *spread)
{
    stat_t one = measure_batches(l, PINGPONG, buf, buf2, bytes, 2e-3);
    stat_t batch = measure_batches(l, EXCHANGE, buf, buf2, bytes, 2e-3);
    stat_t sends_first = measure_batches(l, EXCHANGE_SENDS_FIRST, buf, buf2, bytes, 2e-3);
    stat_t step = measure_in_step(l, buf, buf2, bytes);
    double w = write_time(buf2, bytes);
    batch.median = fmax(batch.median - w, 1e-9);
    stat_t ex = step.median < batch.median ? step : batch;
    t[0] = fmax(one.median - w / 2, 1e-9);
    t[1] = ex.median;
    t[2] = batch.median;
    t[3] = fmax(sends_first.median - w, 1e-9);
    *spread = fmax(one.spread, ex.spread);
}

/* Writing memory a peer has just read (rank a sends `bytes`, above the
 * eager limit, so a single-copy transport has b read a's buffer) against
 * writing a buffer only a touched, the two ways a collective writes there:
 * a reduction into the buffer (MPI_Reduce_local, doubles, SUM), which
 * reads each line before writing it, and a copy over it (memcpy, whole
 * lines: what a receive does too).  t = {reduce after a read, reduce own,
 * copy after a read, copy own}, seconds per write, medians, on rank a. */
static void write_over(int copy, char *dst, const char *src, int bytes)
{
    if (copy) {
        memcpy(dst, src, (size_t)bytes);
    } else {
        MPI_Reduce_local(src, dst, bytes / (int)sizeof(double), MPI_DOUBLE, MPI_SUM);
    }
}

static void measure_invalidate(const link_t *l, char *buf, char *buf2, int bytes, double t[4])
{
    enum { ITERS = 20 };
    double x[2][SAMPLES], y[2][SAMPLES];
    int me;
    char *own = malloc((size_t)bytes), *src = malloc((size_t)bytes);
    if (NULL == own || NULL == src) {
        fprintf(stderr, "rabred-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(own, 0, (size_t)bytes);
    memset(src, 0, (size_t)bytes);
    memset(buf, 0, (size_t)bytes);
    MPI_Comm_rank(l->pair, &me);
    for (int s = 0; s < SAMPLES; s++) {
        for (int copy = 0; copy < 2; copy++) {
            x[copy][s] = y[copy][s] = 0;
            for (int i = 0; i < ITERS; i++) {
                if (0 == me) {
                    MPI_Send(buf, bytes, MPI_BYTE, 1, TAG, l->pair);
                    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG, l->pair, MPI_STATUS_IGNORE);
                    double t0 = MPI_Wtime();
                    write_over(copy, buf, src, bytes);
                    double t1 = MPI_Wtime();
                    write_over(copy, own, src, bytes);
                    x[copy][s] += t1 - t0;
                    y[copy][s] += MPI_Wtime() - t1;
                } else {
                    MPI_Recv(buf2, bytes, MPI_BYTE, 0, TAG, l->pair, MPI_STATUS_IGNORE);
                    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, l->pair);
                }
            }
        }
    }
    free(own);
    free(src);
    for (int copy = 0; copy < 2; copy++) {
        t[2 * copy] = stats(x[copy], SAMPLES).median / ITERS;
        t[2 * copy + 1] = stats(y[copy], SAMPLES).median / ITERS;
    }
}

/* The send buffer: after a barrier of the pair, rank a sends `bytes` once
 * and times MPI_Send's return and the 0-byte reply that b sends once the
 * message is in; less the reply's one-way time (`reply_s`) that is when
 * the last byte was in.  On rank a: the buffer of each sample
 * (rabred_cal_send_buffer_bytes) into *buffer (median) and *spread, and
 * t = {return, arrival}, medians. */
static void measure_send_buffer(const link_t *l, char *buf, char *buf2, int bytes, int samples,
                                double reply_s, double *buffer, double *spread, double t[2])
{
    double x[SAMPLES], y[SAMPLES], b[SAMPLES];
    int me;
    MPI_Comm_rank(l->pair, &me);
    for (int s = 0; s < samples; s++) {
        memset(buf, s, (size_t)bytes);
        MPI_Barrier(l->pair);
        if (0 == me) {
            double t0 = MPI_Wtime();
            MPI_Send(buf, bytes, MPI_BYTE, 1, TAG, l->pair);
            x[s] = MPI_Wtime() - t0;
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG, l->pair, MPI_STATUS_IGNORE);
            y[s] = MPI_Wtime() - t0 - reply_s;
            b[s] = rabred_cal_send_buffer_bytes(&l->fit, bytes, x[s], y[s]);
        } else {
            MPI_Recv(buf2, bytes, MPI_BYTE, 0, TAG, l->pair, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, l->pair);
        }
    }
    if (0 == me) {
        stat_t sb = stats(b, samples);
        *buffer = sb.median;
        *spread = sb.spread;
        t[0] = stats(x, samples).median;
        t[1] = stats(y, samples).median;
    }
}

/* Every rank waits here until every rank arrived, sleeping between tests:
 * ranks that wait for a pair's measurement must not take the cores the
 * pair runs on (nodes with more ranks than cores; with a core each it
 * changes nothing). */
static void quiet_barrier(void)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            struct timespec nap = {0, 200000};
            nanosleep(&nap, NULL);
        }
    }
}

/* The link's send buffer, from the largest size (a buffer can only be
 * seen below the message's size): 3 samples where one message takes
 * over 50 ms, else SAMPLES. */
static void measure_link_buffer(link_t *l, char *buf, char *buf2, int max_bytes)
{
    double t[2] = {0, 0}, got[2] = {0, 0};
    progress("send buffer");
    if (MPI_COMM_NULL != l->pair && l->fitted) {
        double one_way = 1e-6 * l->fit.alpha_us * l->fit.oneway_alpha +
                         max_bytes * l->fit.oneway_beta * 1e-6 / l->fit.mbs;
        measure_send_buffer(l, buf, buf2, max_bytes, one_way > 0.05 ? 3 : SAMPLES,
                            l->m.oneway[0], &got[0], &got[1], t);
    }
    quiet_barrier();
    MPI_Bcast(t, 2, MPI_DOUBLE, l->a, MPI_COMM_WORLD);
    MPI_Bcast(got, 2, MPI_DOUBLE, l->a, MPI_COMM_WORLD);
    g_progress_done += 1;
    l->buffer_bytes = max_bytes;
    memcpy(l->buffer_t, t, sizeof(t));
    l->buffer_spread = got[1];
    l->fit.send_buffer_bytes = l->fitted ? got[0] : 0;
}

/* Every rank calls this; the pair measures, the others wait (asleep). */
static void measure_link(link_t *l, char *buf, char *buf2, int max_bytes)
{
    l->m.n = 0;
    l->spread = 0;
    if (MPI_COMM_NULL != l->pair) {
        (void)run_ops(l, EXCHANGE, buf, buf2, max_bytes, 1); /* connection, registration */
    }
    for (int bytes = 8; bytes <= max_bytes && l->m.n < RABRED_CAL_MAX_SIZES; bytes *= 2) {
        double t[4] = {0, 0, 0, 0}, spread = 0;
        char what[64];
        snprintf(what, sizeof(what), "%s-node: %d bytes", l->name, bytes);
        progress(what);
        if (MPI_COMM_NULL != l->pair) {
            measure_size(l, buf, buf2, bytes, t, &spread);
        }
        quiet_barrier();
        MPI_Bcast(t, 4, MPI_DOUBLE, l->a, MPI_COMM_WORLD);
        MPI_Bcast(&spread, 1, MPI_DOUBLE, l->a, MPI_COMM_WORLD);
        l->m.bytes[l->m.n] = bytes;
        l->m.oneway[l->m.n] = t[0];
        l->m.exchange[l->m.n] = t[1];
        l->m.repeated[l->m.n] = t[2];
        l->m.repeated_sf[l->m.n++] = t[3];
        l->spread = fmax(l->spread, spread);
        g_progress_done += 1;
        if (t[0] > 0.05) {
            break; /* a slow link: larger messages would take minutes */
        }
    }
    l->fitted = 0 == rabred_cal_fit_link(&l->m, &l->fit);
    /* above the eager limit just found, small enough that the reader's
     * cache holds all of it (what a collective's blocks usually are) */
    int inv_bytes = (int)fmin(fmax(65536, 4 * l->fit.eager_bytes), max_bytes);
    double t[4] = {0, 0, 0, 0};
    progress("writing what a peer read");
    if (MPI_COMM_NULL != l->pair) {
        measure_invalidate(l, buf, buf2, inv_bytes, t);
    }
    quiet_barrier();
    MPI_Bcast(t, 4, MPI_DOUBLE, l->a, MPI_COMM_WORLD);
    l->fit.invalidate_mbs = l->fitted ? rabred_cal_invalidate_mbs(inv_bytes, t[0], t[1]) : 0;
    l->fit.overwrite_mbs = l->fitted ? rabred_cal_invalidate_mbs(inv_bytes, t[2], t[3]) : 0;
    l->inv_bytes = inv_bytes;
    memcpy(l->inv_t, t, sizeof(t));
    measure_link_buffer(l, buf, buf2, max_bytes);
}

/* ---- a rank's messages in flight at once (wire_us, shared_ports) --------- */

enum { FAN_MAX = 8, FAN_ITERS = 20 };

/* The fan of link k: a hub and up to FAN_MAX spokes it reaches over that
 * link.  Between nodes, rank 0 and the other nodes' leaders; inside one,
 * the first node with three ranks or more, its leader and its other
 * ranks.  Fewer than two spokes: none (nspokes 0). */
static void choose_fan(link_t *l, int k, const int *leader)
{
    l->hub = -1;
    l->nspokes = 0;
    for (int r = 0; r < g_size && 1 == k && l->a >= 0; r++) {
        if (leader[r] == r && r != 0 && l->nspokes < FAN_MAX) {
            l->hub = 0;
            l->nspokes++;
        }
    }
    for (int node = 0; node < g_size && 0 == k && l->a >= 0 && l->nspokes < 2; node++) {
        int n = 0;
        for (int r = 0; r < g_size; r++) {
            n += leader[r] == node && r != node;
        }
        if (leader[node] == node && n >= 2) {
            l->hub = node;
            l->nspokes = n < FAN_MAX ? n : FAN_MAX;
        }
    }
    l->nspokes = l->nspokes >= 2 ? l->nspokes : 0;
}

/* Is world rank r a member of l's fan, and its place (hub 0)? */
static int fan_place(const link_t *l, int k, const int *leader, int r)
{
    if (0 == l->nspokes) {
        return -1;
    }
    if (r == l->hub) {
        return 0;
    }
    int place = 0;
    for (int q = 0; q <= r; q++) {
        int spoke = q != l->hub && (1 == k ? leader[q] == q : leader[q] == l->hub);
        place += spoke;
        if (q == r) {
            return spoke && place <= l->nspokes ? place : -1;
        }
    }
    return -1;
}

/* Seconds per round of FAN_ITERS rounds: the hub sends an empty message to
 * spokes 1..n, each answers 8 bytes, the hub waits for all.  Its sends
 * and its receives each queue on its link, one message after another: n
 * spokes take (n - 1) o more than one (LogP's overhead o), while their
 * latencies pass at once. */
static double fan_in_time(MPI_Comm fan, int n, char *buf)
{
    int me;
    MPI_Comm_rank(fan, &me);
    MPI_Barrier(fan);
    double t0 = MPI_Wtime();
    for (int it = 0; it < FAN_ITERS; it++) {
        if (0 == me) {
            MPI_Request req[2 * FAN_MAX];
            for (int j = 1; j <= n; j++) {
                MPI_Irecv(buf + 8 * j, 8, MPI_BYTE, j, TAG, fan, &req[j - 1]);
            }
            for (int j = 1; j <= n; j++) {
                MPI_Isend(NULL, 0, MPI_BYTE, j, TAG, fan, &req[n + j - 1]);
            }
            MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE);
        } else if (me <= n) {
            MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG, fan, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, 0, TAG, fan);
        }
    }
    return (MPI_Wtime() - t0) / FAN_ITERS;
}

/* Seconds from the hub's start until the first spoke had all `bytes`:
 * to spoke 1 alone (two 0) or to spokes 1 and 2 at once; each answers
 * with an empty message once its message is in.  *last: until both had. */
static double fan_out_first(MPI_Comm fan, int two, int bytes, char *buf, char *buf2,
                            double *last)
{
    int me;
    MPI_Comm_rank(fan, &me);
    MPI_Barrier(fan);
    double first = 0;
    if (0 == me) {
        MPI_Request req[4];
        int n = two ? 2 : 1, index;
        double t0 = MPI_Wtime();
        for (int j = 1; j <= n; j++) {
            MPI_Irecv(NULL, 0, MPI_BYTE, j, TAG, fan, &req[j - 1]);
            MPI_Isend(buf, bytes, MPI_BYTE, j, TAG, fan, &req[n + j - 1]);
        }
        MPI_Waitany(n, req, &index, MPI_STATUS_IGNORE);
        first = MPI_Wtime() - t0;
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        *last = MPI_Wtime() - t0;
        MPI_Waitall(n, req + n, MPI_STATUSES_IGNORE);
    } else if (me <= (two ? 2 : 1)) {
        MPI_Recv(buf2, bytes, MPI_BYTE, 0, TAG, fan, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, fan);
    }
    return first;
}

/* The fan's two terms on link l (every rank calls this; the fan measures,
 * the others wait asleep):
 *  - wire_us: alpha less the overhead o, from the 8-byte replies of all
 *    spokes at once against one's (fan_in_time);
 *  - shared_ports: the largest size the link measured, sent to one spoke
 *    and to two at once: taking turns, the first of two is in after one
 *    message's time; sharing the link, after about two.  1 when it took
 *    over 1.5 times the message alone (median of the samples);
 *  - parallel_ports: when it did not, the last of the two: with no port
 *    at all it is in after about one message's time too. */
static void measure_fan(link_t *l, char *buf, char *buf2)
{
    enum { NGOT = 5 };
    double one[SAMPLES], all[SAMPLES], alone[SAMPLES], first[SAMPLES], last[SAMPLES], unused;
    double got[NGOT] = {0, 0, 0, 0, 0}, spread[NGOT] = {0, 0, 0, 0, 0};
    int bytes = l->m.n > 0 ? (int)l->m.bytes[l->m.n - 1] : 0;
    progress("messages in flight at once");
    if (MPI_COMM_NULL != l->fan && l->fitted && bytes > 0) {
        int samples = l->m.oneway[l->m.n - 1] > 0.02 ? 3 : SAMPLES;
        (void)fan_in_time(l->fan, l->nspokes, buf); /* connections */
        for (int s = 0; s < SAMPLES; s++) {
            one[s] = fan_in_time(l->fan, 1, buf);
            all[s] = fan_in_time(l->fan, l->nspokes, buf);
        }
        for (int s = 0; s < samples; s++) {
            alone[s] = fan_out_first(l->fan, 0, bytes, buf, buf2, &unused);
            first[s] = fan_out_first(l->fan, 1, bytes, buf, buf2, &last[s]);
        }
        stat_t st[NGOT] = {stats(one, SAMPLES), stats(all, SAMPLES), stats(alone, samples),
                           stats(first, samples), stats(last, samples)};
        for (int k = 0; k < NGOT; k++) {
            got[k] = st[k].median;
            spread[k] = st[k].spread;
        }
    }
    quiet_barrier();
    int hub = l->hub >= 0 ? l->hub : 0;
    MPI_Bcast(got, NGOT, MPI_DOUBLE, hub, MPI_COMM_WORLD);
    MPI_Bcast(spread, NGOT, MPI_DOUBLE, hub, MPI_COMM_WORLD);
    g_progress_done += 1;
    stat_t *out[NGOT] = {&l->fan_one, &l->fan_all, &l->share_alone, &l->share_first,
                         &l->share_last};
    for (int k = 0; k < NGOT; k++) {
        out[k]->median = got[k];
        out[k]->spread = spread[k];
    }
    l->share_bytes = bytes;
    l->fit.wire_us = rabred_cal_wire_us(l->fit.alpha_us, l->nspokes, got[0], got[1]);
    l->fit.shared_ports = rabred_cal_shared_ports(got[2], got[3]);
    l->fit.parallel_ports = rabred_cal_parallel_ports(got[2], got[3], got[4]);
}

/* ---- the terms every rank takes part in --------------------------------- */

/* The per-core cache the system reports (the L2), or 0; the same on
 * every rank (the smallest), as the decision needs it. */
static double core_cache_bytes(void)
{
    double mine = 0, least;
#ifdef _SC_LEVEL2_CACHE_SIZE
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    mine = l2 > 0 ? (double)l2 : 0.0;
#endif
    MPI_Allreduce(&mine, &least, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return least;
}

/* MB/s of MPI_Reduce_local (doubles, SUM; copy 0) or of memcpy (copy 1)
 * of `count` doubles, `reps` times a sample, every rank at once; the
 * slowest rank's. */
static stat_t measure_local(int copy, int count, int reps, const char *what)
{
    double *in = malloc((size_t)count * sizeof(double));
    double *io = malloc((size_t)count * sizeof(double)), x[SAMPLES];
    if (NULL == in || NULL == io) {
        fprintf(stderr, "rabred-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < count; i++) {
        in[i] = io[i] = 1.0;
    }
    progress(what);
    for (int s = 0; s < SAMPLES; s++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < reps; k++) {
            if (copy) {
                memcpy(io, in, (size_t)count * sizeof(double));
            } else {
                MPI_Reduce_local(in, io, count, MPI_DOUBLE, MPI_SUM);
            }
        }
        double mine = (MPI_Wtime() - t0) / reps, slowest;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        x[s] = rabred_cal_mbs((double)count * sizeof(double), slowest);
    }
    free(in);
    free(io);
    g_progress_done += 1;
    return stats(x, SAMPLES);
}

/* One round's send and receive: MPI_Sendrecv (Open MPI posts its
 * receive first), or the send posted first, as rabred's executor does
 * from the link's sends_first_bytes (over the TCP BTL an exchange posted
 * receive-first runs up to 3x slower). */
static void send_recv(char *buf, char *buf2, int bytes, int to, int from, int sends_first)
{
    if (!sends_first) {
        MPI_Sendrecv(buf, bytes, MPI_BYTE, to, TAG, buf2, bytes, MPI_BYTE, from, TAG,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Request req[2];
    MPI_Isend(buf, bytes, MPI_BYTE, to, TAG, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(buf2, bytes, MPI_BYTE, from, TAG, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
}

/* What each rank does in a lock-step round of rounds_time. */
enum { RING = 0, DISTINCT = 1, PAIRS = 2 };

/* Seconds per round of `rounds` lock-step rounds: in round j every rank
 * of the ring (the ranks of g_round) sends `bytes` to the one d_j after
 * it and receives from the one d_j before, d_j = 1 (RING) or d_j = j + 1 (DISTINCT: every round
 * another peer), or exchanges `bytes` with its pair r ^ pair (PAIRS, pair
 * a power of two; a rank without one in range idles); the slowest
 * rank's.  The ring is every rank, or (half) the even-numbered ones while
 * the others sleep. */
static double rounds_time(int rounds, int pattern, int half, int bytes, int sends_first,
                          int pair, char *buf, char *buf2)
{
    int n = half ? (g_nround + 1) / 2 : g_nround, me = half ? g_round_me / 2 : g_round_me;
    int step = half ? 2 : 1, active = g_round_me >= 0 && (!half || 0 == g_round_me % 2);
    double mine = 0, slowest;
    active = active && !(PAIRS == pattern && (me ^ pair) >= n);
    MPI_Barrier(MPI_COMM_WORLD);
    if (active) {
        double t0 = MPI_Wtime();
        for (int j = 0; j < rounds; j++) {
            int d = DISTINCT == pattern ? 1 + j % (n - 1) : RING == pattern ? pair : 1;
            int to = PAIRS == pattern ? me ^ pair : (me + d) % n;
            int from = PAIRS == pattern ? me ^ pair : (me - d + n) % n;
            send_recv(buf, buf2, bytes, g_round[step * to], g_round[step * from], sends_first);
        }
        mine = (MPI_Wtime() - t0) / rounds;
    }
    quiet_barrier();
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* SAMPLES of rounds_time after one untimed pass (connections), as one
 * step of the progress bar. */
static stat_t sample_rounds(const char *what, int pattern, int half, int pair, int rounds,
                            int bytes, int sends_first, char *buf, char *buf2)
{
    double x[SAMPLES];
    progress(what);
    (void)rounds_time(rounds, pattern, half, bytes, sends_first, pair, buf, buf2);
    for (int s = 0; s < SAMPLES; s++) {
        x[s] = rounds_time(rounds, pattern, half, bytes, sends_first, pair, buf, buf2);
    }
    g_progress_done += 1;
    return stats(x, SAMPLES);
}

static stat_t measure_rounds(int pattern, int half, int rounds, int bytes, int sends_first,
                             char *buf, char *buf2)
{
    static const char *what[] = {"lock-step rounds", "distinct peers", "pairs at once"};
    return sample_rounds(half ? "half the ranks at once" : what[pattern], pattern, half, 1,
                         rounds, bytes, sends_first, buf, buf2);
}

/* Ring rounds of every rank `shift` places on at once. */
static stat_t measure_shifts_at(int shift, int rounds, int bytes, int sends_first, char *buf,
                                char *buf2)
{
    return sample_rounds("shifts farther apart", RING, 0, shift, rounds, bytes, sends_first,
                         buf, buf2);
}

/* Exchange rounds of every rank with rank XOR pair at once. */
static stat_t measure_pairs_at(int pair, int rounds, int bytes, int sends_first, char *buf,
                               char *buf2)
{
    return sample_rounds("pairs farther apart", PAIRS, 0, pair, rounds, bytes, sends_first, buf,
                         buf2);
}

/* ---- where the ranks are -------------------------------------------------- */

/* For every rank, the lowest world rank on its node. */
static void node_leaders(int *leader)
{
    MPI_Comm node;
    int mine;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Allreduce(&g_rank, &mine, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    MPI_Allgather(&mine, 1, MPI_INT, leader, 1, MPI_INT, MPI_COMM_WORLD);
}

static void choose_pairs(const int *leader, link_t *intra, link_t *inter, int *nodes)
{
    intra->a = intra->b = inter->a = inter->b = -1;
    *nodes = 0;
    for (int r = 0; r < g_size; r++) {
        *nodes += leader[r] == r;
        if (intra->a < 0 && leader[r] != r) {
            intra->a = leader[r];
            intra->b = r;
        }
        if (inter->a < 0 && leader[r] != leader[0]) {
            inter->a = 0;
            inter->b = r;
        }
    }
}

/* g_round: the node leaders when there are several nodes, else every rank. */
static void choose_round_ranks(const int *leader, int nodes)
{
    g_nround = 0;
    for (int r = 0; r < g_size; r++) {
        if (nodes < 2 || leader[r] == r) {
            g_round_me = r == g_rank ? g_nround : g_round_me;
            g_round[g_nround++] = r;
        }
    }
}

/* "all 8 ranks" or "4 ranks, one per node", for the summary. */
static const char *round_ranks_text(void)
{
    static char text[64];
    if (g_nround == g_size) {
        snprintf(text, sizeof(text), "all %d ranks", g_nround);
    } else {
        snprintf(text, sizeof(text), "%d ranks, one per node", g_nround);
    }
    return text;
}

/* A list parameter's line, when it has entries. */
static void write_list(FILE *f, const char *name, const double *mbs, int n)
{
    if (n > 0) {
        fprintf(f, "%s = ", name);
        for (int k = 0; k < n; k++) {
            fprintf(f, "%s%.6g", k ? "," : "", mbs[k]);
        }
        fprintf(f, "\n");
    }
}

/* ---- output --------------------------------------------------------------- */

typedef struct {
    link_t link[2];
    stat_t reduce, copy, ring, distinct;
    stat_t reduce_far, copy_far;  /* beyond core_cache (measured when it is > 0) */
    double core_cache;            /* bytes, the system's per-core cache; 0: unknown */
    int near_count, far_count;    /* doubles per vector of the two measurements */
    stat_t ring64, ring_big, pairs_big, half_big;
    stat_t pairs_far[RABRED_DISTANCE_CLASSES]; /* [k]: pairs 2^k apart; [0] unused */
    stat_t shifts_far[RABRED_DISTANCE_CLASSES]; /* [k]: ring rounds 2^k on; [0] unused */
    int far_classes;              /* distances measured, 1 included; 0: none */
    int ndistance;                /* entries of distance_mbs to write; 0: none */
    double distance_mbs[RABRED_DISTANCE_CLASSES];
    int nshift;                   /* entries of shift_mbs to write; 0: none */
    double shift_mbs[RABRED_DISTANCE_CLASSES];
    stat_t pairs8[RABRED_DISTANCE_CLASSES], shifts8[RABRED_DISTANCE_CLASSES]; /* 8-byte rounds */
    int nlatency;                 /* entries of the latency lists to write; 0: none */
    double distance_alpha_us[RABRED_DISTANCE_CLASSES], shift_alpha_us[RABRED_DISTANCE_CLASSES];
    int big_bytes;                /* the message size of the duplex and aggregate rounds */
    int nscan;                    /* sizes of the ring handshake's scan */
    double scan_bytes[RABRED_CAL_MAX_SIZES];
    stat_t scan_ring[RABRED_CAL_MAX_SIZES], scan_pairs[RABRED_CAL_MAX_SIZES];
    double scan_excess[RABRED_CAL_MAX_SIZES]; /* median of ring - pairs, sample by sample */
    int scan_slower[RABRED_CAL_MAX_SIZES];    /* samples where the ring took longer */
    double ring_switch;           /* the ring's protocol switch (bytes); 0: none seen */
    int switch_from_ring;         /* the link's eager_bytes is the ring's switch: 1 where
                                   * ping-pong found none, 2 where it refines ping-pong's */
    int nodes, have_peer;
    double sync_us, peer_us, aggregate_mbs, duplex;
    int peer_link;                /* the link the rounds cross */
} result_t;

/* The reduction's and the copy's speeds in cache (vectors of a quarter
 * of the core's cache: the input, the result and a temporary fit) and
 * from memory (four times the cache, at most 64 MiB).  Without a
 * reported cache, 1 MiB vectors and one speed. */
static void measure_locals(result_t *r)
{
    double cache = r->core_cache;
    double far = 4 * cache < 64.0 * (1 << 20) ? 4 * cache : 64.0 * (1 << 20);
    r->near_count = cache > 0 ? (int)(cache / 4 / sizeof(double)) : 1 << 17;
    r->far_count = (int)(far / sizeof(double));
    r->near_count = r->near_count > 1024 ? r->near_count : 1024;
    /* a sample moves about the same bytes at both sizes, so that ranks
     * sharing a core see the same share of it (20 in-cache vectors) */
    int far_reps = (int)(20.0 * r->near_count / r->far_count) > 1
                       ? (int)(20.0 * r->near_count / r->far_count)
                       : 1;
    r->reduce = measure_local(0, r->near_count, 20, "reduction speed");
    r->copy = measure_local(1, r->near_count, 20, "copy speed");
    if (cache > 0) {
        r->reduce_far = measure_local(0, r->far_count, far_reps,
                                      "reduction speed beyond the cache");
        r->copy_far = measure_local(1, r->far_count, far_reps, "copy speed beyond the cache");
    }
}

/* How many distances 1, 2, 4, ... up to p/2 the distance term is
 * measured at (beyond p/2 the cyclic distance the model uses is p - d,
 * already measured): with one rank per node and 4 ranks or more (with
 * several ranks per node the decision prices with the node map instead,
 * where a rank's distance is not its node's), else 0. */
static int far_classes(int nodes)
{
    int n = 0;
    while (nodes == g_size && g_size >= 4 && n < RABRED_DISTANCE_CLASSES &&
           (1 << n) <= g_size / 2) {
        n++;
    }
    return n;
}

/* The latency by distance: 8-byte rounds of both patterns at every
 * distance.  A longer route adds to the latency (hops), so each entry is
 * the link's alpha plus what its rounds take beyond the XOR pairs at
 * distance 1 (neighbours, as alpha was measured); a load that slows every
 * round alike (ranks sharing cores) then adds nothing.  Written when some
 * entry exceeds alpha by 10%, by twice the spread of distance 1's rounds
 * and by the sync term: ranks out of step cost a round that much anyway
 * (108 us on the emulated cluster's 16 ranks on 2 cores, where these
 * rounds read 17-58 us by distance, in no order). */
static void measure_latencies(result_t *r, const link_t *ring_link, int sends_first, char *buf,
                              char *buf2)
{
    double alpha_us = ring_link->fit.alpha_us, near_us = 0, noise_us = 0;
    int slower = 0;
    for (int k = 0; k < r->far_classes; k++) {
        r->pairs8[k] = sample_rounds("8-byte pairs by distance", PAIRS, 0, 1 << k, 50, 8,
                                     sends_first, buf, buf2);
        r->shifts8[k] = sample_rounds("8-byte shifts by distance", RING, 0, 1 << k, 50, 8,
                                      sends_first, buf, buf2);
        if (0 == k) {
            near_us = 1e6 * r->pairs8[0].median;
            noise_us = 2 * near_us * r->pairs8[0].spread;
        }
        /* >= 0, as the list's parser requires: at or below alpha adds nothing */
        r->distance_alpha_us[k] = fmax(0.0, alpha_us + 1e6 * r->pairs8[k].median - near_us);
        r->shift_alpha_us[k] = fmax(0.0, alpha_us + 1e6 * r->shifts8[k].median - near_us);
        double most = fmax(r->distance_alpha_us[k], r->shift_alpha_us[k]) - alpha_us;
        slower |= most > 0.1 * alpha_us && most > noise_us && most > r->sync_us;
    }
    r->nlatency = slower ? r->far_classes : 0;
}

/* Does the ring handshake's scan run on every other rank of the rounds? */
static int scan_half(void)
{
    return g_nround >= SCAN_HALF_FROM;
}

/* Which ranks the ring handshake's scan ran on, for the summary. */
static const char *scan_ranks_text(void)
{
    static char text[96];
    if (!scan_half()) {
        return round_ranks_text();
    }
    snprintf(text, sizeof(text), "%d ranks, every other one of %s", (g_nround + 1) / 2,
             round_ranks_text());
    return text;
}

/* Rounds per sample of the scan at a size whose one-way message takes
 * oneway_s: two when that is above a millisecond, else enough that every
 * rank's step comes round several times. */
static int scan_rounds(double oneway_s)
{
    return oneway_s > 1e-3 ? 2 : 4 * (g_nround - 1);
}

/* Does the link post sends first at this size (its sends_first_bytes)? */
static int sends_first_at(const rabred_link_units_t *fit, double bytes)
{
    return fit->sends_first_bytes > 0 && bytes >= fit->sends_first_bytes;
}

/* Scan size k: SAMPLES of ring rounds, each next to exchange rounds in
 * pairs (after one untimed pass of each), as two steps of the progress
 * bar. */
static void sample_ring_and_pairs(result_t *r, int k, int rounds, int bytes, int sends_first,
                                  char *buf, char *buf2)
{
    double ring[SCAN_SAMPLES], pairs[SCAN_SAMPLES], excess[SCAN_SAMPLES];
    int half = scan_half();
    progress("ring and exchange rounds by size");
    (void)rounds_time(rounds, RING, half, bytes, sends_first, 1, buf, buf2);
    (void)rounds_time(rounds, PAIRS, half, bytes, sends_first, 1, buf, buf2);
    r->scan_slower[k] = 0;
    for (int s = 0; s < SCAN_SAMPLES; s++) {
        ring[s] = rounds_time(rounds, RING, half, bytes, sends_first, 1, buf, buf2);
        pairs[s] = rounds_time(rounds, PAIRS, half, bytes, sends_first, 1, buf, buf2);
        excess[s] = ring[s] - pairs[s];
        r->scan_slower[k] += excess[s] > 0;
    }
    g_progress_done += 2;
    r->scan_ring[k] = stats(ring, SCAN_SAMPLES);
    r->scan_pairs[k] = stats(pairs, SCAN_SAMPLES);
    r->scan_excess[k] = stats(excess, SCAN_SAMPLES).median;
}

/* What the bisection of the ring's switch measures at one size. */
typedef struct {
    result_t *r;
    const rabred_link_units_t *fit;
    int rounds;
    double floor_s;
    char *buf, *buf2;
} switch_probe_t;

/* One midpoint of the bisection: scanned as the other sizes (it joins
 * the summary's table) and judged by the same test. */
static int probe_ring_switch(double bytes, void *ctx)
{
    switch_probe_t *q = ctx;
    result_t *r = q->r;
    int k = r->nscan++;
    r->scan_bytes[k] = bytes;
    sample_ring_and_pairs(r, k, q->rounds, (int)bytes, sends_first_at(q->fit, bytes), q->buf,
                          q->buf2);
    return rabred_cal_ring_pays(r->scan_excess[k], r->scan_pairs[k].median, r->scan_slower[k],
                                SCAN_SAMPLES, q->floor_s);
}

/* Reorder n elements of `size` bytes at base as order[] lists them. */
static void permute(void *base, size_t size, const int *order, int n)
{
    char tmp[RABRED_CAL_MAX_SIZES * sizeof(stat_t)];
    for (int i = 0; i < n; i++) {
        memcpy(tmp + i * size, (char *)base + order[i] * size, size);
    }
    memcpy(base, tmp, n * size);
}

/* The scan's sizes in increasing order, the bisection's among them. */
static void sort_scan(result_t *r)
{
    int order[RABRED_CAL_MAX_SIZES], n = r->nscan;
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && r->scan_bytes[order[j - 1]] > r->scan_bytes[i]; j--) {
            order[j] = order[j - 1];
        }
        order[j] = i;
    }
    permute(r->scan_bytes, sizeof(double), order, n);
    permute(r->scan_ring, sizeof(stat_t), order, n);
    permute(r->scan_pairs, sizeof(stat_t), order, n);
    permute(r->scan_excess, sizeof(double), order, n);
    permute(r->scan_slower, sizeof(int), order, n);
}

/* The ring's switch to within an eighth of the octave the scan found it
 * in: TCP's eager limit is 64 KiB, so the scan sees 32 KiB pass and
 * 64 KiB pay, and a switch read as 32 KiB charges the handshake to every
 * ring step between (a 256 KiB allreduce's 51 KiB steps at p = 5: priced
 * 35 ms above their 36 ms, bench/results/calibrate-20261206c).  Only
 * between two measured sizes (a switch below the first is not refined). */
static double refine_ring_switch(result_t *r, const link_t *ring_link, double switch_bytes,
                                 char *buf, char *buf2)
{
    int at = -1;
    for (int i = 0; i + 1 < r->nscan && at < 0; i++) {
        at = r->scan_bytes[i] == switch_bytes ? i : -1;
    }
    if (at < 0 || r->nscan + SWITCH_STEPS > RABRED_CAL_MAX_SIZES) {
        g_progress_done += 2 * SWITCH_STEPS;
        return switch_bytes;
    }
    double hi = r->scan_bytes[at + 1], hi_oneway = 0;
    for (int i = 0; i < ring_link->m.n; i++) {
        hi_oneway = ring_link->m.bytes[i] == hi ? ring_link->m.oneway[i] : hi_oneway;
    }
    switch_probe_t q = {.r = r,
                        .fit = &r->link[r->peer_link].fit,
                        .rounds = scan_rounds(hi_oneway), /* as the scan's at hi */
                        .floor_s = 1e-6 * ring_link->fit.alpha_us,
                        .buf = buf,
                        .buf2 = buf2};
    int before = r->nscan;
    double lo = rabred_cal_refine_switch(switch_bytes, hi, SWITCH_STEPS, probe_ring_switch, &q);
    g_progress_done += 2 * (SWITCH_STEPS - (r->nscan - before));
    sort_scan(r);
    return lo;
}

/* The ring step's handshake (rndv_cross_us), 3 ranks or more: ring rounds
 * against exchange rounds of every rank at once at each measured size from
 * RABRED_CAL_MIN_EAGER to 4 x RABRED_CAL_MAX_EAGER (protocol switches are
 * at most 64 KiB; the next two sizes show what a handshake costs beyond
 * it).  Over Open MPI's TCP BTL on the emulated 100 Mbit/s cluster a ring
 * round of 128 KiB took 5.4 ms more than an exchange round, where a
 * ping-pong's handshake is a round trip of 50 us lost in its 11 ms
 * (bench/results/ring-handshake-20261206).  Only the sizes above the
 * link's eager limit count; where ping-pong found none, the ring's switch
 * becomes it. */
static void measure_ring_handshake(result_t *r, const link_t *ring_link, char *buf, char *buf2)
{
    const rabred_cal_link_t *m = &ring_link->m;
    rabred_link_units_t *fit = &r->link[r->peer_link].fit;
    int n = 0, first_above = -1;
    for (int i = 0; i < m->n; i++) {
        int bytes = (int)m->bytes[i];
        if (bytes < RABRED_CAL_MIN_EAGER || bytes > 4 * RABRED_CAL_MAX_EAGER) {
            continue;
        }
        r->scan_bytes[n] = bytes;
        sample_ring_and_pairs(r, n, scan_rounds(m->oneway[i]), bytes, sends_first_at(fit, bytes),
                              buf, buf2);
        if (first_above < 0 && !(fit->eager_bytes > 0 && bytes <= fit->eager_bytes)) {
            first_above = n; /* the sizes the fit reads: above the link's eager limit */
        }
        n++;
    }
    r->nscan = n;
    double switch_bytes = 0, cross_us = 0, pairs[RABRED_CAL_MAX_SIZES];
    for (int i = 0; i < n; i++) {
        pairs[i] = r->scan_pairs[i].median;
    }
    if (first_above >= 0) {
        rabred_cal_ring_handshake(&r->scan_bytes[first_above], &r->scan_excess[first_above],
                                  &pairs[first_above], &r->scan_slower[first_above], SCAN_SAMPLES,
                                  n - first_above, 1e-6 * ring_link->fit.alpha_us, &switch_bytes,
                                  &cross_us);
    }
    if (cross_us > 0) {
        switch_bytes = refine_ring_switch(r, ring_link, switch_bytes, buf, buf2);
    } else {
        g_progress_done += 2 * SWITCH_STEPS;
    }
    r->ring_switch = switch_bytes;
    fit->rndv_cross_us = cross_us;
    if (!(fit->eager_bytes > 0) && cross_us > 0) {
        fit->eager_bytes = switch_bytes;
        r->switch_from_ring = 1;
    } else if (cross_us > 0 && switch_bytes > fit->eager_bytes &&
               switch_bytes < 2 * fit->eager_bytes) {
        /* ping-pong's sizes double, so its switch is "above eager_bytes,
         * at most twice it"; the ring's bisection found the same switch
         * to an eighth of that octave (61440 where ping-pong said 32768
         * over TCP, whose limit is 64 KiB less a header), and the model
         * charges the handshakes to every message above eager_bytes */
        fit->eager_bytes = switch_bytes;
        r->switch_from_ring = 2;
    }
}

/* The distance terms: the same exchange rounds in pairs, every rank with
 * rank XOR 2^k at once, k >= 1, against pairs 1 apart (r->pairs_big); and
 * the ring rounds with every rank sending 2^k places on at once against
 * the ring (r->ring_big): shifts, whose routes wrap around the rank order. */
static void measure_distances(result_t *r, const link_t *ring_link, int rounds, int bytes,
                              int sends_first, char *buf, char *buf2)
{
    double t[RABRED_DISTANCE_CLASSES] = {r->pairs_big.median};
    double u[RABRED_DISTANCE_CLASSES] = {r->ring_big.median};
    double t_spread = r->pairs_big.spread, u_spread = r->ring_big.spread;
    for (int k = 1; k < r->far_classes; k++) {
        r->pairs_far[k] = measure_pairs_at(1 << k, rounds, bytes, sends_first, buf, buf2);
        t[k] = r->pairs_far[k].median;
        t_spread = fmax(t_spread, r->pairs_far[k].spread);
        r->shifts_far[k] = measure_shifts_at(1 << k, rounds, bytes, sends_first, buf, buf2);
        u[k] = r->shifts_far[k].median;
        u_spread = fmax(u_spread, r->shifts_far[k].spread);
    }
    r->ndistance = rabred_cal_distance_mbs(ring_link->fit.mbs, t, r->far_classes,
                                           1e-6 * r->sync_us, t_spread, r->distance_mbs);
    r->nshift = rabred_cal_distance_mbs(ring_link->fit.mbs, u, r->far_classes,
                                        1e-6 * r->sync_us, u_spread, r->shift_mbs);
    if (r->ndistance > 0 && 0 == r->nshift) {
        /* shifts at full speed: said, or they would be priced as the XOR
         * pairs (an empty shift list falls back to the distance list) */
        r->nshift = r->far_classes;
        for (int k = 0; k < r->far_classes; k++) {
            r->shift_mbs[k] = ring_link->fit.mbs;
        }
    }
    measure_latencies(r, ring_link, sends_first, buf, buf2);
}

/* Rounds of the link's largest measured size (at most 1 MiB), where a
 * message's bytes, not per-message work, decide its time (at 64 KiB the
 * emulated cluster's 16 ranks moved 79 MB/s together, at 1 MiB 118-126,
 * bench/results/calibrate-20261127c; round_sync and peer_us price the
 * per-message work).  Two rounds a sample where one message takes over a
 * millisecond, else as many as the other rounds.
 *  - duplex (3 ranks or more): ring rounds of every rank against exchange
 *    rounds of every rank (pairs): the same ranks busy, the same bytes,
 *    and only the ring's sending to one peer while receiving from another
 *    tells them apart.  Against a message alone, as it once was, the
 *    factor also held the load of every rank being busy, which varies
 *    with the machine's state (1.5 one day, 2.4 the next on the emulated
 *    cluster) and is the aggregate limit's to price;
 *  - the aggregate limit (4 ranks or more): the ring rounds against the
 *    same on half the ranks. */
static void measure_big_rounds(result_t *r, const link_t *ring_link, char *buf, char *buf2)
{
    const rabred_cal_link_t *m = &ring_link->m;
    int i = m->n - 1;
    while (i > 0 && m->bytes[i] > 1048576) {
        i--;
    }
    int bytes = i >= 0 ? (int)m->bytes[i] : 65536;
    int rounds = scan_rounds(i >= 0 ? m->oneway[i] : 0);
    int sends_first = sends_first_at(&ring_link->fit, bytes); /* the executor's order */
    r->big_bytes = bytes;
    r->ring_big = measure_rounds(RING, 0, rounds, bytes, sends_first, buf, buf2);
    r->pairs_big = measure_rounds(PAIRS, 0, rounds, bytes, sends_first, buf, buf2);
    r->duplex = rabred_cal_duplex_rounds(r->ring_big.median, r->pairs_big.median,
                                         1e-6 * r->sync_us, ring_link->fit.oneway_beta);
    if (g_nround >= 4) {
        r->half_big = measure_rounds(RING, 1, rounds, bytes, sends_first, buf, buf2);
        r->aggregate_mbs = rabred_cal_aggregate_mbs(g_nround, bytes, r->ring_big.median,
                                                    1e-6 * r->sync_us, r->half_big.median);
    }
    if (r->far_classes > 1 && ring_link == &r->link[1]) {
        measure_distances(r, ring_link, rounds, bytes, sends_first, buf, buf2);
    } else if (r->far_classes > 1) { /* the network's fit failed: its mbs is not known */
        g_progress_done += 2 * (r->far_classes - 1) + 2 * r->far_classes;
        r->far_classes = 0;
    }
}

static void write_link_conf(FILE *f, const link_t *l)
{
    if (!l->fitted) {
        fprintf(f, "# %s-node link: not measured (see rabred-calibration.md)\n", l->name);
        return;
    }
    const rabred_link_units_t *u = &l->fit;
    fprintf(f, "coll_rabred_%s_alpha_us = %.4g\n", l->name, u->alpha_us);
    fprintf(f, "coll_rabred_%s_mbs = %.6g\n", l->name, u->mbs);
    fprintf(f, "coll_rabred_%s_oneway_alpha = %.4g\n", l->name, u->oneway_alpha);
    fprintf(f, "coll_rabred_%s_oneway_beta = %.4g\n", l->name, u->oneway_beta);
    fprintf(f, "coll_rabred_%s_eager_bytes = %.0f\n", l->name, u->eager_bytes);
    fprintf(f, "coll_rabred_%s_sends_first_bytes = %.0f\n", l->name, u->sends_first_bytes);
    fprintf(f, "coll_rabred_%s_rndv_us = %.4g\n", l->name, u->rndv_us);
    fprintf(f, "coll_rabred_%s_rndv_oneway_us = %.4g\n", l->name, u->rndv_oneway_us);
    fprintf(f, "coll_rabred_%s_rndv_cross_us = %.4g\n", l->name, u->rndv_cross_us);
    fprintf(f, "coll_rabred_%s_eager_mbs = %.6g\n", l->name, u->eager_mbs);
    fprintf(f, "coll_rabred_%s_invalidate_mbs = %.6g\n", l->name, u->invalidate_mbs);
    fprintf(f, "coll_rabred_%s_overwrite_mbs = %.6g\n", l->name, u->overwrite_mbs);
    fprintf(f, "coll_rabred_%s_repeat = %.4g\n", l->name, u->repeat);
    fprintf(f, "coll_rabred_%s_send_buffer_bytes = %.0f\n", l->name, u->send_buffer_bytes);
    if (l->nspokes >= 2) {
        fprintf(f, "coll_rabred_%s_wire_us = %.4g\n", l->name, u->wire_us);
        fprintf(f, "coll_rabred_%s_shared_ports = %.0f\n", l->name, u->shared_ports);
        fprintf(f, "coll_rabred_%s_parallel_ports = %.0f\n", l->name, u->parallel_ports);
    } else {
        fprintf(f, "# coll_rabred_%s_wire_us, _shared_ports, _parallel_ports: not measured (%s)\n", l->name,
                0 == strcmp(l->name, "intra") ? "no node holds 3 ranks" : "fewer than 3 nodes");
    }
}

/* Open MPI's list of parameter files as this run has it (MPI_T), so that
 * naming ours keeps the others: mca_base_param_files replaces the list. */
static void param_files(char *buf, size_t size)
{
    rabred_mpit_cvar_t cv;
    buf[0] = '\0';
    if (MPI_SUCCESS == rabred_mpit_cvar_find("mca_base_param_files", &cv) &&
        MPI_SUCCESS == rabred_mpit_cvar_open(&cv)) {
        (void)rabred_mpit_cvar_read_string(&cv, buf, size);
        rabred_mpit_cvar_close(&cv);
    }
}

static int write_conf(const char *path, const result_t *r, const char *files)
{
    FILE *f = fopen(path, "w");
    if (NULL == f) {
        return -1;
    }
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(f, "# rabred cost model, measured by rabred-calibrate %s on %s: p = %d on %d node(s)\n"
               "# Open MPI MCA parameter file: append to $HOME/.openmpi/mca-params.conf, or\n"
               "# mpirun --mca mca_base_param_files %s%s%s\n"
               "# (that parameter replaces Open MPI's list of files: keep the others in it)\n",
            PACKAGE_VERSION, when, g_size, r->nodes, path, '\0' != files[0] ? "," : "", files);
    write_link_conf(f, &r->link[0]);
    write_link_conf(f, &r->link[1]);
    fprintf(f, "coll_rabred_reduce_mbs = %.6g\n", r->reduce.median);
    fprintf(f, "coll_rabred_copy_mbs = %.6g\n", r->copy.median);
    if (r->core_cache > 0) {
        fprintf(f, "coll_rabred_core_cache_bytes = %.0f\n", r->core_cache);
        fprintf(f, "coll_rabred_reduce_far_mbs = %.6g\n", r->reduce_far.median);
        fprintf(f, "coll_rabred_copy_far_mbs = %.6g\n", r->copy_far.median);
    }
    fprintf(f, "coll_rabred_round_sync_us = %.4g\n", r->sync_us);
    if (g_nround >= 4) { /* measured from 4 ranks: fewer leave the default */
        fprintf(f, "coll_rabred_%s_aggregate_mbs = %.6g\n", r->link[r->peer_link].name,
                r->aggregate_mbs);
    }
    if (g_nround >= 3) {
        fprintf(f, "coll_rabred_%s_duplex = %.4g\n", r->link[r->peer_link].name, r->duplex);
    }
    if (r->have_peer) {
        fprintf(f, "coll_rabred_%s_peer_us = %.4g\n", r->link[r->peer_link].name, r->peer_us);
    }
    write_list(f, "coll_rabred_inter_distance_mbs", r->distance_mbs, r->ndistance);
    write_list(f, "coll_rabred_inter_shift_mbs", r->shift_mbs, r->nshift);
    write_list(f, "coll_rabred_inter_distance_alpha_us", r->distance_alpha_us, r->nlatency);
    write_list(f, "coll_rabred_inter_shift_alpha_us", r->shift_alpha_us, r->nlatency);
    return fclose(f);
}

static void summary_link(FILE *f, const link_t *l)
{
    if (l->a < 0 || !l->fitted) {
        fprintf(f, "| %s-node link | not measured | | %s |\n", l->name,
                l->a < 0 ? (0 == strcmp(l->name, "intra") ? "no two ranks share a node"
                                                         : "every rank is on one node")
                         : "too few sizes");
        return;
    }
    const rabred_link_units_t *u = &l->fit;
    fprintf(f, "| `coll_rabred_%s_alpha_us` | %.3g us | %.0f%% | 8-byte MPI_Sendrecv, ranks %d and %d |\n",
            l->name, u->alpha_us, 100 * l->spread, l->a, l->b);
    fprintf(f, "| `coll_rabred_%s_mbs` | %.4g MB/s | | exchange slope, %.0f to %.0f bytes |\n",
            l->name, u->mbs, l->m.bytes[l->m.n - 2], l->m.bytes[l->m.n - 1]);
    fprintf(f, "| `coll_rabred_%s_oneway_alpha` | %.3g | | one-way / exchange at 8 bytes |\n",
            l->name, u->oneway_alpha);
    fprintf(f, "| `coll_rabred_%s_oneway_beta` | %.3g | | one-way slope / exchange slope |\n",
            l->name, u->oneway_beta);
    fprintf(f, "| `coll_rabred_%s_eager_bytes` | %.0f | | the size before the step that grows most against its time, one-way and exchange (or the ring rounds' switch below, where they show none or it lies within the step they show) |\n",
            l->name, u->eager_bytes);
    fprintf(f, "| `coll_rabred_%s_rndv_us` | %.3g us | | that step's excess over its bytes, exchange |\n",
            l->name, u->rndv_us);
    fprintf(f, "| `coll_rabred_%s_rndv_oneway_us` | %.3g us | | the same, one-way |\n", l->name,
            u->rndv_oneway_us);
    fprintf(f, "| `coll_rabred_%s_rndv_cross_us` | %.3g us | | ring rounds of %s beyond exchange rounds, median over the sizes above the switch (table below; 0: not measured, or no size pays) |\n",
            l->name, u->rndv_cross_us, scan_ranks_text());
    fprintf(f, "| `coll_rabred_%s_eager_mbs` | %.4g MB/s | | exchange slope up to the eager limit (0: as mbs) |\n",
            l->name, u->eager_mbs);
    fprintf(f, "| `coll_rabred_%s_invalidate_mbs` | %.4g MB/s | | reducing into %d bytes a peer just read (%.3g us) against its own (%.3g us); 0: no cost |\n",
            l->name, u->invalidate_mbs, l->inv_bytes, 1e6 * l->inv_t[0], 1e6 * l->inv_t[1]);
    fprintf(f, "| `coll_rabred_%s_overwrite_mbs` | %.4g MB/s | | copying over %d bytes a peer just read (%.3g us) against its own (%.3g us); 0: no cost |\n",
            l->name, u->overwrite_mbs, l->inv_bytes, 1e6 * l->inv_t[2], 1e6 * l->inv_t[3]);
    fprintf(f, "| `coll_rabred_%s_repeat` | %.3g | | back-to-back exchanges over one in step, largest sizes, in the executor's order |\n",
            l->name, u->repeat);
    fprintf(f, "| `coll_rabred_%s_sends_first_bytes` | %.0f | | from this size on, back-to-back exchanges posted send-first take under 0.9x receive-first ones (0: never) |\n",
            l->name, u->sends_first_bytes);
    fprintf(f, "| `coll_rabred_%s_send_buffer_bytes` | %.0f | %.0f%% | MPI_Send of %d bytes returned after %.4g ms, its last byte was in after %.4g ms: what was left then%s |\n",
            l->name, u->send_buffer_bytes, 100 * l->buffer_spread, l->buffer_bytes,
            1e3 * l->buffer_t[0], 1e3 * l->buffer_t[1],
            u->send_buffer_bytes >= l->buffer_bytes ? " (all of it: the buffer holds at least that)" : "");
    if (l->nspokes < 2) {
        fprintf(f, "| `coll_rabred_%s_wire_us`, `_shared_ports`, `_parallel_ports` | not measured | | %s: the defaults (0) stay |\n",
                l->name, 0 == strcmp(l->name, "intra") ? "no node holds 3 ranks" : "fewer than 3 nodes");
        return;
    }
    fprintf(f, "| `coll_rabred_%s_wire_us` | %.3g us | %.0f%% | alpha less the overhead o: rank %d sends an empty message to %d ranks, each answers 8 bytes, %.3g us a round, against %.3g us with one; o = the difference / %d |\n",
            l->name, u->wire_us, 100 * fmax(l->fan_one.spread, l->fan_all.spread), l->hub,
            l->nspokes, 1e6 * l->fan_all.median, 1e6 * l->fan_one.median, l->nspokes - 1);
    fprintf(f, "| `coll_rabred_%s_shared_ports` | %.0f | %.0f%% | %d bytes from rank %d: in after %.4g ms alone, the first of two sent at once after %.4g ms (%.2fx; over 1.5x: the two share the link) |\n",
            l->name, u->shared_ports, 100 * fmax(l->share_alone.spread, l->share_first.spread),
            l->share_bytes, l->hub, 1e3 * l->share_alone.median, 1e3 * l->share_first.median,
            l->share_alone.median > 0 ? l->share_first.median / l->share_alone.median : 0);
    fprintf(f, "| `coll_rabred_%s_parallel_ports` | %.0f | %.0f%% | the same two: the last in after %.4g ms (%.2fx the one alone; under 1.5x, and not shared: no port, each message as if alone) |\n",
            l->name, u->parallel_ports, 100 * l->share_last.spread, 1e3 * l->share_last.median,
            l->share_alone.median > 0 ? l->share_last.median / l->share_alone.median : 0);
}

/* One distance list's line: its rounds' times by distance (near at 1,
 * far[k] at 2^k) and whether the list is written. */
static void summary_list_row(FILE *f, const char *param, int written, const char *not_why,
                             const stat_t *near, const stat_t *far, int n, int bytes,
                             const char *rounds, const char *against)
{
    fprintf(f, "| `%s` | %s%s%s | %.0f%% | %d-byte %s (us:", param,
            written ? "written" : "not written (", written ? "" : not_why, written ? "" : ")",
            100 * near->spread, bytes, rounds);
    for (int k = 0; k < n; k++) {
        fprintf(f, " %d: %.3g", 1 << k, 1e6 * (0 == k ? near->median : far[k].median));
    }
    fprintf(f, "), against %s |\n", against);
}

/* The distance term's line: what was measured, and whether it is written. */
static void summary_distance(FILE *f, const result_t *r)
{
    if (r->far_classes < 2) {
        fprintf(f, "| distance term | not measured | | needs 4 ranks or more, one per node, and the network's link measured |\n");
        return;
    }
    summary_list_row(f, "coll_rabred_inter_distance_mbs", r->ndistance > 0,
                     "no distance slower than 1 beyond the noise (10%, or twice the spread)",
                     &r->pairs_big, r->pairs_far,
                     r->far_classes, r->big_bytes,
                     "exchange rounds of every rank with rank XOR 2^k at once", "distance 1");
    summary_list_row(f, "coll_rabred_inter_shift_mbs", r->nshift > 0,
                     "no shift slower than 1 beyond the noise (10%, or twice the spread)",
                     &r->ring_big, r->shifts_far, r->far_classes,
                     r->big_bytes, "ring rounds of every rank sending 2^k places on at once",
                     "the ring");
    fprintf(f, "| `coll_rabred_inter_distance_alpha_us`, `coll_rabred_inter_shift_alpha_us` | %s "
               "| %.0f%% | alpha plus what 8-byte rounds of the pairs and the shifts at each "
               "distance take beyond the pairs at distance 1 (us, pairs / shifts:",
            r->nlatency > 0 ? "written" : "not written (none above alpha by 10%, the noise and the sync term)",
            100 * r->pairs8[0].spread);
    for (int k = 0; k < r->far_classes; k++) {
        fprintf(f, " %d: %.3g / %.3g", 1 << k, r->distance_alpha_us[k], r->shift_alpha_us[k]);
    }
    fprintf(f, ") |\n");
}

/* The ring handshake's scan: ring and exchange rounds by size. */
static void summary_ring_scan(FILE *f, const result_t *r)
{
    if (0 == r->nscan) {
        return;
    }
    const link_t *l = &r->link[r->peer_link];
    fprintf(f, "\nRounds of %s by size (us, medians; %s-node link): ring (each rank "
               "sends to the next and receives from the one before) against exchanges in pairs. "
               "The ring's switch: %.0f bytes%s.\n\n| bytes | ring | pairs | ring - pairs, "
               "sample by sample | samples where the ring took longer |\n"
               "|---:|---:|---:|---:|---:|\n",
            scan_ranks_text(), l->name, r->ring_switch,
            1 == r->switch_from_ring   ? " (the link's eager_bytes: ping-pong showed no switch)"
            : 2 == r->switch_from_ring ? " (the link's eager_bytes: ping-pong's switch, to within "
                                         "its octave)"
                                       : "");
    for (int i = 0; i < r->nscan; i++) {
        fprintf(f, "| %.0f | %.1f | %.1f | %.1f | %d of %d |\n", r->scan_bytes[i],
                1e6 * r->scan_ring[i].median, 1e6 * r->scan_pairs[i].median,
                1e6 * r->scan_excess[i], r->scan_slower[i], SCAN_SAMPLES);
    }
}

/* Which world ranks ran the lock-step rounds (g_round). */
static void summary_round_ranks(FILE *f)
{
    fprintf(f, "Lock-step rounds on %s: world ranks", round_ranks_text());
    for (int i = 0; i < g_nround; i++) {
        fprintf(f, "%s %d", i ? "," : "", g_round[i]);
    }
    fprintf(f, ".\n\n");
}

static int write_summary(const char *path, const result_t *r)
{
    FILE *f = fopen(path, "w");
    if (NULL == f) {
        return -1;
    }
    fprintf(f, "# rabred-calibrate: p = %d on %d node(s)\n\n"
               "Medians of %d samples; spread = (max - min) / median, the worst of a link's "
               "sizes. Written to `rabred-calibration.conf`.\n\n",
            g_size, r->nodes, SAMPLES);
    summary_round_ranks(f);
    fprintf(f, "| term | value | spread | measured as |\n|:---|---:|---:|:---|\n");
    summary_link(f, &r->link[0]);
    summary_link(f, &r->link[1]);
    double near_kib = r->near_count * sizeof(double) / 1024.0;
    double far_kib = r->far_count * sizeof(double) / 1024.0;
    fprintf(f, "| `coll_rabred_reduce_mbs` | %.4g MB/s | %.0f%% | MPI_Reduce_local, %.0f KiB of doubles, every rank at once, slowest |\n",
            r->reduce.median, 100 * r->reduce.spread, near_kib);
    fprintf(f, "| `coll_rabred_copy_mbs` | %.4g MB/s | %.0f%% | memcpy, %.0f KiB, every rank at once, slowest |\n",
            r->copy.median, 100 * r->copy.spread, near_kib);
    if (r->core_cache > 0) {
        fprintf(f, "| `coll_rabred_core_cache_bytes` | %.0f | | the per-core (L2) cache the system reports, the smallest of the ranks' |\n",
                r->core_cache);
        fprintf(f, "| `coll_rabred_reduce_far_mbs` | %.4g MB/s | %.0f%% | MPI_Reduce_local, %.0f KiB of doubles (beyond the cache), every rank at once, slowest |\n",
                r->reduce_far.median, 100 * r->reduce_far.spread, far_kib);
        fprintf(f, "| `coll_rabred_copy_far_mbs` | %.4g MB/s | %.0f%% | memcpy, %.0f KiB (beyond the cache), every rank at once, slowest |\n",
                r->copy_far.median, 100 * r->copy_far.spread, far_kib);
    } else {
        fprintf(f, "| speeds beyond the cache | not measured | | the system reports no per-core cache |\n");
    }
    fprintf(f, "| `coll_rabred_round_sync_us` | %.3g us | %.0f%% | 8-byte ring rounds of %s (%.3g us each) beyond one message |\n",
            r->sync_us, 100 * r->ring.spread, round_ranks_text(), 1e6 * r->ring.median);
    if (g_nround >= 3) {
        fprintf(f, "| `coll_rabred_%s_duplex` | %.3g | %.0f%% | %d-byte ring rounds of %s (%.3g us each) against exchange rounds of the same in pairs (%.3g us), posted in the executor's order, sync removed, over the one-way factor |\n",
                r->link[r->peer_link].name, r->duplex, 100 * r->ring_big.spread, r->big_bytes,
                round_ranks_text(), 1e6 * r->ring_big.median, 1e6 * r->pairs_big.median);
    } else {
        fprintf(f, "| duplex term | not measured | | needs 3 ranks or more (one per node when there are several nodes) |\n");
    }
    if (g_nround >= 4) {
        fprintf(f, "| `coll_rabred_%s_aggregate_mbs` | %.4g MB/s | %.0f%% | %d-byte ring rounds of %s (%.3g us each) against half of them (%.3g us); 0: no limit seen |\n",
                r->link[r->peer_link].name, r->aggregate_mbs, 100 * r->ring_big.spread,
                r->big_bytes, round_ranks_text(), 1e6 * r->ring_big.median,
                1e6 * r->half_big.median);
    } else {
        fprintf(f, "| aggregate term | not measured | | needs 4 ranks or more (one per node when there are several nodes) |\n");
    }
    if (r->have_peer) {
        fprintf(f, "| `coll_rabred_%s_peer_us` | %.3g us | %.0f%% | rounds to distinct peers (%.3g us) against the ring's |\n",
                r->link[r->peer_link].name, r->peer_us, 100 * r->distinct.spread,
                1e6 * r->distinct.median);
    } else {
        fprintf(f, "| peer term | not measured | | needs 5 ranks or more (one per node when there are several nodes) |\n");
    }
    summary_distance(f, r);
    summary_ring_scan(f, r);
    fprintf(f, "\nPer size (us, medians):\n\n");
    for (int k = 0; k < 2; k++) {
        const link_t *l = &r->link[k];
        if (l->a < 0) {
            continue;
        }
        fprintf(f, "\n%s-node, ranks %d and %d:\n\n| bytes | one-way | exchange | back to back "
                   "| back to back, send first |\n|---:|---:|---:|---:|---:|\n",
                l->name, l->a, l->b);
        for (int i = 0; i < l->m.n; i++) {
            fprintf(f, "| %.0f | %.3f | %.3f | %.3f | %.3f |\n", l->m.bytes[i],
                    1e6 * l->m.oneway[i], 1e6 * l->m.exchange[i], 1e6 * l->m.repeated[i],
                    1e6 * l->m.repeated_sf[i]);
        }
    }
    return fclose(f);
}

/* ---- main ------------------------------------------------------------------ */

/* A byte count with an optional K, M or G suffix (powers of 1024); -1 when
 * it is not one or lies outside [64, 1 GiB]. */
static long parse_bytes(const char *text)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    long unit = 'K' == *end || 'k' == *end ? 1L << 10 : 'M' == *end || 'm' == *end ? 1L << 20
              : 'G' == *end || 'g' == *end ? 1L << 30 : 1;
    end += 1 != unit;
    if (0 != errno || end == text || '\0' != *end || v < 1 || v > (1L << 30) / unit) {
        return -1;
    }
    return v * unit >= 64 ? v * unit : -1;
}

/* An option's value: "--opt VALUE" or "--opt=VALUE"; NULL if absent. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (0 == strncmp(argv[*i], name, n) && '=' == argv[*i][n]) {
        return argv[*i] + n + 1;
    }
    if (0 == strcmp(argv[*i], name) && *i + 1 < argc) {
        return argv[++*i];
    }
    return NULL;
}

/* Rank 0 makes the output directory if it is missing (one level). */
static int make_out_dir(const char *out)
{
    struct stat st;
    int ok = 1;
    if (0 == g_rank && 0 != stat(out, &st) && 0 != mkdir(out, 0777)) {
        fprintf(stderr, "rabred-calibrate: cannot create %s: %s\n", out, strerror(errno));
        ok = 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

static void usage(int status)
{
    if (0 == g_rank) {
        fprintf(status ? stderr : stdout,
                "usage: mpirun [mpirun options] rabred-calibrate [--out DIR] [--max-bytes N]\n"
                "Measures rabred's cost model here and writes DIR/rabred-calibration.conf\n"
                "(MCA parameters) and DIR/rabred-calibration.md (summary); DIR defaults to .\n"
                "Run it on a few nodes with one or more ranks each (--map-by node).\n"
                "  --out DIR      where to write (created if missing; default .)\n"
                "  --max-bytes N  largest message measured, 64..1G, K/M/G suffixes\n"
                "                 (default 4M)\n"
                "  --version      print the version\n"
                "  -h, --help     this text\n");
    }
    MPI_Finalize();
    exit(status);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    const char *out = ".";
    int max_bytes = 4 << 20;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (0 == strcmp(argv[i], "--help") || 0 == strcmp(argv[i], "-h")) {
            usage(0);
        } else if (0 == strcmp(argv[i], "--version")) {
            if (0 == g_rank) {
                printf("rabred-calibrate %s\n", PACKAGE_VERSION);
            }
            MPI_Finalize();
            return 0;
        } else if (NULL != (v = option_value(argc, argv, &i, "--out"))) {
            out = v;
        } else if (NULL != (v = option_value(argc, argv, &i, "--max-bytes"))) {
            long parsed = parse_bytes(v);
            max_bytes = (int)parsed;
            if (parsed < 0) {
                if (0 == g_rank) {
                    fprintf(stderr, "rabred-calibrate: --max-bytes %s: not a size in "
                                    "64..1G (K, M, G suffixes)\n", v);
                }
                MPI_Finalize();
                return 2;
            }
        } else {
            usage(2);
        }
    }
    if (g_size < 2) {
        if (0 == g_rank) {
            fprintf(stderr, "rabred-calibrate: needs 2 ranks or more (mpirun -np 2 or more)\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (!make_out_dir(out)) {
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc((size_t)max_bytes, 1), *buf2 = calloc((size_t)max_bytes, 1);
    int *leader = malloc((size_t)g_size * sizeof(int));
    g_round = malloc((size_t)g_size * sizeof(int));
    if (NULL == buf || NULL == buf2 || NULL == leader || NULL == g_round) {
        fprintf(stderr, "rabred-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    result_t r;
    memset(&r, 0, sizeof(r));
    r.link[0].name = "intra";
    r.link[1].name = "inter";
    r.link[0].fit = rabred_default_intra;
    r.link[1].fit = rabred_default_inter;
    node_leaders(leader);
    choose_pairs(leader, &r.link[0], &r.link[1], &r.nodes);
    choose_round_ranks(leader, r.nodes);
    for (int k = 0; k < 2; k++) {
        link_t *l = &r.link[k];
        int in_pair = l->a >= 0 && (g_rank == l->a || g_rank == l->b);
        MPI_Comm_split(MPI_COMM_WORLD, in_pair ? 0 : MPI_UNDEFINED, g_rank == l->a ? 0 : 1,
                       &l->pair);
        choose_fan(l, k, leader);
        int place = fan_place(l, k, leader, g_rank);
        MPI_Comm_split(MPI_COMM_WORLD, place >= 0 ? 0 : MPI_UNDEFINED, place, &l->fan);
    }
    int sizes = 0, scanned = 0;
    for (int b = 8; b <= max_bytes; b *= 2) {
        sizes++;
        scanned += b >= RABRED_CAL_MIN_EAGER && b <= 4 * RABRED_CAL_MAX_EAGER;
    }
    r.far_classes = r.link[1].a >= 0 ? far_classes(r.nodes) : 0;
    r.core_cache = core_cache_bytes();
    g_progress_total = 3 + 2 * (r.core_cache > 0) + 2 * (g_nround >= 3) +
                       2 * (scanned + SWITCH_STEPS) * (g_nround >= 3) + (g_nround >= 4) +
                       2 * (g_nround >= 5) +
                       (r.far_classes > 1 ? 2 * (r.far_classes - 1) + 2 * r.far_classes : 0) +
                       3 * (r.link[0].a >= 0) +
                       3 * (r.link[1].a >= 0) + (r.link[0].a >= 0) * sizes +
                       (r.link[1].a >= 0) * sizes;
    for (int k = 0; k < 2; k++) {
        if (r.link[k].a >= 0) {
            measure_link(&r.link[k], buf, buf2, max_bytes);
            measure_fan(&r.link[k], buf, buf2);
        }
    }
    measure_locals(&r);
    /* rounds cross the network when the ranks are on several nodes */
    const link_t *ring_link = r.link[1].fitted ? &r.link[1] : &r.link[0];
    double message = 2 == g_nround ? ring_link->m.exchange[0] : ring_link->m.oneway[0];
    r.ring = measure_rounds(RING, 0, 200, 8, 0, buf, buf2);
    r.sync_us = rabred_cal_excess_us(r.ring.median, message);
    r.have_peer = g_nround >= 5;
    r.peer_link = r.link[1].fitted ? 1 : 0;
    r.duplex = 1; /* two ranks: the ring is an exchange with one peer */
    if (g_nround >= 3) {
        measure_big_rounds(&r, ring_link, buf, buf2);
        measure_ring_handshake(&r, ring_link, buf, buf2);
    }
    if (r.have_peer) {
        /* 64 KiB rounds to a new pair of peers every round against the
         * same rounds to the ring neighbours: the excess is two peers'
         * worth */
        r.ring64 = measure_rounds(RING, 0, 4 * (g_nround - 1), 65536, 0, buf, buf2);
        r.distinct = measure_rounds(DISTINCT, 0, 4 * (g_nround - 1), 65536, 0, buf, buf2);
        r.peer_us = rabred_cal_excess_us(r.distinct.median, r.ring64.median) / 2;
    }
    if (0 == g_rank) {
        char conf[4096], md[4096];
        snprintf(conf, sizeof(conf), "%s/rabred-calibration.conf", out);
        snprintf(md, sizeof(md), "%s/rabred-calibration.md", out);
        g_progress_done = g_progress_total;
        progress("done");
        fprintf(stderr, "\n");
        char files[2048];
        param_files(files, sizeof(files));
        if (0 != write_conf(conf, &r, files) || 0 != write_summary(md, &r)) {
            fprintf(stderr, "rabred-calibrate: cannot write %s or %s: %s\n", conf, md,
                    strerror(errno));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("rabred-calibrate: wrote %s and %s\n", conf, md);
    }
    for (int k = 0; k < 2; k++) {
        if (MPI_COMM_NULL != r.link[k].pair) {
            MPI_Comm_free(&r.link[k].pair);
        }
        if (MPI_COMM_NULL != r.link[k].fan) {
            MPI_Comm_free(&r.link[k].fan);
        }
    }
    free(buf);
    free(buf2);
    free(leader);
    free(g_round);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
