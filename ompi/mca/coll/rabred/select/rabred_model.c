/*
 * The cost model: price books from the simulator (see rabred_model.h).
 */
#include "select/rabred_model.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "sim/rabred_sim.h"
#include "plan/rabred_toolkit.h"

const rabred_link_units_t rabred_default_intra = {
    .alpha_us = 0.38, .mbs = 10200, .oneway_alpha = 0.87, .oneway_beta = 1.07,
    .eager_bytes = 2048, .eager_mbs = 2480, .rndv_us = 1.91, .rndv_oneway_us = 1.49,
    .invalidate_mbs = 5240, .overwrite_mbs = 12100, .repeat = 1.21, .peer_us = 0,
    .duplex = 1, .aggregate_mbs = 0, .send_buffer_bytes = 2048, .shared_ports = 0,
    .parallel_ports = 0, .wire_us = 0};
const rabred_link_units_t rabred_default_inter = {
    .alpha_us = 2.0, .mbs = 10000, .oneway_alpha = 0.8, .oneway_beta = 1.0,
    .eager_bytes = 8192, .rndv_us = 3.0, .rndv_oneway_us = 3.0, .peer_us = 0, .repeat = 1,
    .duplex = 1, .aggregate_mbs = 0, .send_buffer_bytes = 8192, .shared_ports = 0,
    .parallel_ports = 0, .wire_us = 0};

rabred_model_t rabred_model_make_copy(const rabred_link_units_t *link, double reduce_mbs,
                                      double round_sync_us, double copy_mbs)
{
    rabred_model_t m = rabred_model_make(link, reduce_mbs, round_sync_us);
    m.copy = copy_mbs > 0 ? 1e-6 / copy_mbs : 0;
    return m;
}

void rabred_model_set_far(rabred_model_t *m, const rabred_far_units_t *far)
{
    int on = NULL != far && far->cache_bytes > 0;
    m->gamma_far = on && far->reduce_mbs > 0 ? 1e-6 / far->reduce_mbs : 0;
    m->copy_far = on && far->copy_mbs > 0 ? 1e-6 / far->copy_mbs : 0;
    m->cache_bytes = on && (m->gamma_far > 0 || m->copy_far > 0) ? far->cache_bytes : 0;
}

/* Three vectors of the call stay in use while it runs (the input, the
 * result and a temporary): a local reduction of doubles on this project's
 * machine (2 MiB L2 per core) runs at 36-42 GB/s while its two operands
 * fit, 26 at 1 MiB each and 13.7 from 2 MiB
 * (bench/results/shm-p2-rd-20261128).  Beyond the cache the lines a peer
 * read have left its cache before they are written again (it has streamed
 * more than its cache since), so writing them costs what the memory's
 * speed already charges: no invalidate or overwrite term. */
rabred_model_t rabred_model_for_bytes(const rabred_model_t *m, int64_t bytes)
{
    rabred_model_t at = *m;
    if (m->cache_bytes > 0 && 3.0 * (double)bytes > m->cache_bytes) {
        at.gamma = m->gamma_far > 0 ? m->gamma_far : m->gamma;
        at.copy = m->copy_far > 0 ? m->copy_far : m->copy;
        at.beta_inv = at.beta_overwrite = 0;
    }
    return at;
}

rabred_model_t rabred_model_make(const rabred_link_units_t *link, double reduce_mbs,
                                 double round_sync_us)
{
    rabred_model_t m = {
        .alpha = 1e-6 * link->alpha_us,
        .beta = link->mbs > 0 ? 1e-6 / link->mbs : 0,
        .gamma = reduce_mbs > 0 ? 1e-6 / reduce_mbs : 0,
        .f_alpha = link->oneway_alpha,
        .f_beta = link->oneway_beta,
        .sync = 1e-6 * round_sync_us,
        .peer = 1e-6 * link->peer_us,
        .rndv = 1e-6 * link->rndv_us,
        .rndv_oneway = 1e-6 * link->rndv_oneway_us,
        .rndv_cross = 1e-6 * link->rndv_cross_us,
        .beta_eager = link->eager_mbs > 0 ? 1e-6 / link->eager_mbs : 0,
        .beta_inv = link->invalidate_mbs > 0 ? 1e-6 / link->invalidate_mbs : 0,
        .beta_overwrite = link->overwrite_mbs > 0 ? 1e-6 / link->overwrite_mbs : 0,
        .eager_bytes = link->eager_bytes,
        .repeat = link->repeat > 1 ? link->repeat : 1,
        .duplex = link->duplex > 1 ? link->duplex : 1,
        .aggregate = link->aggregate_mbs > 0 ? 1e-6 / link->aggregate_mbs : 0,
        .beta_rank = link->rank_mbs > 0 ? 1e-6 / link->rank_mbs : 0,
        .send_buffer = link->send_buffer_bytes > 0 ? link->send_buffer_bytes : 0,
        .shared_ports = link->shared_ports > 0,
        .parallel_ports = link->shared_ports <= 0 && link->parallel_ports > 0,
        .wire = link->wire_us > 0 ? 1e-6 * (link->wire_us < link->alpha_us ? link->wire_us
                                                                           : link->alpha_us)
                                  : 0,
    };
    for (int k = 0; k < RABRED_DISTANCE_CLASSES; k++) {
        m.distance_beta[k] = link->distance_mbs[k] > 0 ? 1e-6 / link->distance_mbs[k] : 0;
        m.shift_beta[k] = link->shift_mbs[k] > 0 ? 1e-6 / link->shift_mbs[k] : 0;
        m.distance_alpha[k] = 1e-6 * link->distance_alpha_us[k];
        m.shift_alpha[k] = 1e-6 * link->shift_alpha_us[k];
    }
    return m;
}

int rabred_distance_parse(const char *text, double mbs[RABRED_DISTANCE_CLASSES])
{
    int n = 0;
    memset(mbs, 0, RABRED_DISTANCE_CLASSES * sizeof(double));
    if (NULL == text || '\0' == *text) {
        return 0;
    }
    for (const char *s = text;; s++) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || !(v >= 0 && v < 1e300) || n == RABRED_DISTANCE_CLASSES ||
            (',' != *end && '\0' != *end)) {
            memset(mbs, 0, RABRED_DISTANCE_CLASSES * sizeof(double));
            return -1;
        }
        mbs[n++] = v;
        if ('\0' == *end) {
            return n;
        }
        s = end;
    }
}

/* Simulation work we accept per price (rank-rounds plus transfers over all
 * ranks): about 10 ms.  Larger plans take the closed forms below where
 * the book may use them (one link; MPI_Reduce by the ranks' average);
 * otherwise they are left unpriced, alike on every rank: with a node map
 * a flat ring's O(p^2) work passes the budget from a few hundred ranks, where
 * the node-aware plans (rings over the nodes, not the ranks) stay priced. */
#define SIM_BUDGET 400000

/* Does the book price its messages in flight as sharing their rank's
 * link (rabred_link_units_t.shared_ports)?  The simulator shares every
 * port or none, so only when every link of the book shares: a link that
 * takes turns, or has no port at all (SMPI's loopback inside a host, where
 * the first of two messages is in as soon as one alone), would be priced
 * as sharing otherwise (bench/scale's nodes of 16: node_leaders at 4 KiB,
 * p = 1024, priced 17.15 us for 14.71 measured, against 14.70 with the
 * ports inside nodes taking turns). */
static int shares_ports(const rabred_pricebook_t *book)
{
    return book->model.shared_ports && (NULL == book->node_of || book->intra.shared_ports);
}

/* The simulator's model for a book: one link (book->model), or with a
 * node map the intra-node link inside nodes and book->model between them
 * (rabred_pricebook_fill_nodes). */
static void sim_model(const rabred_pricebook_t *book, double alpha_on, double bytes_on,
                      rabred_sim_model_t *out)
{
    const rabred_model_t *m = &book->model;
    const rabred_model_t *local = NULL != book->node_of ? &book->intra : m;
    rabred_sim_model_default(out);
    out->alpha = alpha_on * local->alpha;
    out->beta = bytes_on * local->beta;
    out->gamma = bytes_on * m->gamma;
    out->f_alpha = m->f_alpha;
    out->f_beta = m->f_beta;
    out->send_buffer = local->send_buffer; /* bytes: plans of one-byte elements */
    /* links that share their ports (shares_ports) or overlap latencies
     * (rabred_link_units_t.wire_us): a link without wire latency holds
     * all of its alpha */
    out->fair_share = shares_ports(book);
    out->parallel_ports = local->parallel_ports;
    out->latency_overlaps = m->wire > 0 || local->wire > 0;
    out->overhead = alpha_on * (local->alpha - local->wire);
    if (NULL != book->node_of) {
        out->inter_send_buffer = m->send_buffer;
        out->nodes = &book->nodes;
        out->inter_alpha = alpha_on * m->alpha;
        out->inter_beta = bytes_on * m->beta;
        out->inter_rank_beta = bytes_on * m->beta_rank;
        out->inter_overhead = alpha_on * (m->alpha - m->wire);
    }
}

/* Does a link of the book depart from the turns the closed forms count
 * (a port shared by its messages, latency paid at once)? */
static int beyond_turns(const rabred_pricebook_t *book)
{
    const rabred_model_t *m = &book->model, *local = NULL != book->node_of ? &book->intra : m;
    return m->shared_ports || m->wire > 0 || local->shared_ports || local->wire > 0 ||
           m->parallel_ports || local->parallel_ports;
}

/* Does one rank's plan keep at most one message on each of its ports at
 * a time?  Every round (a joined group counts as one) sends at most one
 * message and receives at most one, and a round that sends without
 * receiving is the rank's last that sends (a send that leaves its sender
 * early, within the send buffer, has no later send to share the port
 * with).  Then in a balanced start a message has its ports to itself,
 * shared or not, and no two latencies are in flight on one port: the
 * closed forms' turns are exact for it.  Trees (a parent's two children),
 * the linear broadcast and a pipeline's one-way steps are not. */
static int one_at_a_time(const rabred_plan_t *plan, int64_t *crowd)
{
    int sent_alone = 0, alone = 1; /* sent_alone: the last round that sent received nothing */
    for (int r = 0; r < plan->nrounds; r = rabred_plan_group_end(plan, r)) {
        int end = rabred_plan_group_end(plan, r), sends = 0, recvs = 0;
        for (int x = plan->rounds[r].first_xfer;
             x < plan->rounds[end - 1].first_xfer + plan->rounds[end - 1].nxfer; x++) {
            sends += RABRED_XFER_SEND == plan->xfers[x].dir;
            recvs += RABRED_XFER_RECV == plan->xfers[x].dir;
        }
        *crowd += (int64_t)sends * sends + (int64_t)recvs * recvs; /* every round counts */
        alone = alone && sends <= 1 && recvs <= 1 && !(sends > 0 && sent_alone);
        sent_alone = sends > 0 ? 0 == recvs : sent_alone;
    }
    return alone;
}

/* one_at_a_time for every rank's plan at the reference count (below p
 * elements empty blocks make one-way steps of rings and halvings, where
 * the closed forms are an approximation anyway: test_closed_forms_by_count);
 * *ok 0 when some plan is not, or cannot be built.  *crowd: the sum over
 * ranks and rounds of each port's messages squared, what sharing them
 * costs the simulator (each message's end re-rates the others: the
 * linear broadcast's root at p = 1024 takes 0.4 s a simulation).
 * RABRED_OK or RABRED_ERR_NOMEM. */
static int ports_one_at_a_time(const rabred_alg_t *alg, const rabred_pricebook_t *book,
                               int commutative, int64_t n1, int *ok, int64_t *crowd)
{
    rabred_plan_t plan;
    rabred_plan_init(&plan);
    int rc = RABRED_OK, root = RABRED_COLL_REDUCE == alg->coll ? 0 : -1;
    int alone = 1;
    *crowd = 0;
    for (int rank = 0; rank < book->p && RABRED_OK == rc; rank++) {
        rabred_plan_args_t args = {book->p, rank, root, n1, commutative, book->seg_bytes,
                                   NULL, 0, NULL};
        rc = rabred_plan_build(alg->build, &args, &plan);
        alone = alone && RABRED_OK == rc && one_at_a_time(&plan, crowd);
    }
    *ok = RABRED_OK == rc && alone;
    rabred_plan_free(&plan);
    return RABRED_ERR_NOMEM == rc ? rc : RABRED_OK;
}

/* Simulated seconds under each of nmodels models (the plans built once,
 * rabred_simulate_models) in t[k], or -1 when this plan cannot be
 * simulated (the same on every rank: the algorithm stays unpriced).
 * Returns RABRED_ERR_NOMEM when the simulator ran out of memory: that is
 * this rank's alone, and a rank that went on with a book the others do
 * not have would choose differently, so it is the call's error. */
static int simulate_times(const rabred_alg_t *alg, int p, int commutative, int64_t bytes,
                          int64_t seg_bytes, const rabred_sim_model_t *models, int nmodels,
                          int completion, double *t)
{
    int root = RABRED_COLL_REDUCE == alg->coll ? 0 : -1;
    rabred_sim_call_t call = {alg->build, p, root, bytes, commutative, 0, seg_bytes, 1, NULL,
                              models[0].nodes};
    rabred_sim_result_t res[5];
    int rc = nmodels <= 5 ? rabred_simulate_models(&call, models, nmodels, res) : RABRED_ERR_ARG;
    for (int k = 0; k < nmodels; k++) {
        t[k] = RABRED_OK == rc && res[k].ok ? rabred_model_metric_of(&res[k], alg->coll, completion)
                                            : -1.0;
    }
    return RABRED_ERR_NOMEM == rc ? rc : RABRED_OK;
}

static int simulate_time(const rabred_alg_t *alg, int p, int commutative, int64_t bytes,
                         int64_t seg_bytes, const rabred_sim_model_t *model, int completion,
                         double *t)
{
    return simulate_times(alg, p, commutative, bytes, seg_bytes, model, 1, completion, t);
}

double rabred_model_metric(const rabred_sim_result_t *res, rabred_coll_t coll)
{
    return rabred_model_metric_of(res, coll, 0);
}

double rabred_model_metric_of(const rabred_sim_result_t *res, rabred_coll_t coll, int completion)
{
    return RABRED_COLL_REDUCE == coll && !completion ? res->avg_elapsed : res->time;
}

/* Rank 1's plan size times p: what simulating this call would cost
 * (INT64_MAX when the plan cannot be built).  RABRED_ERR_NOMEM as in
 * simulate_time. */
static int sim_work(const rabred_alg_t *alg, int p, int64_t bytes, int64_t seg_bytes,
                    const rabred_nodes_t *nodes, int64_t *work)
{
    rabred_plan_t plan;
    rabred_plan_init(&plan);
    rabred_plan_args_t args = {p, p > 1 ? 1 : 0, RABRED_COLL_REDUCE == alg->coll ? 0 : -1,
                               bytes, 1, seg_bytes, NULL, 0, nodes};
    int rc = rabred_plan_build(alg->build, &args, &plan);
    *work = RABRED_OK == rc ? (int64_t)p * (plan.nrounds + plan.nxfers) : INT64_MAX;
    rabred_plan_free(&plan);
    return RABRED_ERR_NOMEM == rc ? rc : RABRED_OK;
}

/* Reference sizes: multiples of 2 p p' (every block and window even), and
 * for segmented algorithms at least 8 segments per block, so the fit sees
 * the pipeline, not its start-up. */
static int64_t reference_bytes(int p, int64_t seg_bytes)
{
    int64_t n = (int64_t)2 * p * rabred_pof2_floor(p) * 64;
    int64_t pipelined = (int64_t)8 * p * (seg_bytes > 0 ? seg_bytes : 1);
    while (n < pipelined) {
        n *= 2;
    }
    return n;
}

/* The price through three times: t0 at the smallest size (the alpha
 * part), t1 and t2 at n1 and n2 (the slope); unpriced if any is missing. */
static void fit(rabred_price_t *out, double t0, double t1, double t2, int64_t n1, int64_t n2)
{
    if (t0 >= 0 && t1 >= 0 && t2 >= 0) {
        out->per_byte = (t2 - t1) / (double)(n2 - n1);
        out->fixed = t0;
        out->ok = 1;
    }
}

/* The largest saving a send buffer can bring, in seconds: its bytes'
 * time on its link. */
static double buffer_time(const rabred_model_t *m)
{
    return m->send_buffer * m->f_beta * (m->beta > m->beta_rank ? m->beta : m->beta_rank);
}

/* Has some link of the book a send buffer?  With shared ports a send
 * within it leaves its rank when posted, however short the buffer's
 * bytes' time (buffers_matter's test for ports taken in turn). */
static int buffered(const rabred_pricebook_t *book)
{
    return book->model.send_buffer > 0 || (NULL != book->node_of && book->intra.send_buffer > 0);
}

/* Is some link's send buffer worth pricing?  A buffer saves at most its
 * bytes' time (buffer_time); below the link's latency that is inside what
 * the model can tell apart (an RDMA fabric's eager copy of 8 KiB: 0.8 us
 * against 2 us), above it a tree's leaves leave much earlier (TCP's
 * 1.27 MB at 100 Mbit/s: 110 ms). */
static int buffers_matter(const rabred_pricebook_t *book)
{
    const rabred_model_t *inter = &book->model;
    int two_level = NULL != book->node_of;
    return buffer_time(inter) > inter->alpha ||
           (two_level && buffer_time(&book->intra) > book->intra.alpha);
}

/* The sizes fit_buffers samples, in turn: p, then from `first` doubling;
 * 0 after `last`. */
static int64_t next_sample(int64_t n, int p, int64_t first, double last)
{
    if (n < p) {
        return p;
    }
    if ((double)n >= last) {
        return 0;
    }
    return n < first ? first : 2 * n;
}

/* The line for a call of `count` elements: the shape sampled at the
 * largest p' / 2^k <= count, which is the kept shape with the smallest
 * count above count / 2 (counts not kept share the line above them);
 * the reference line when no kept shape is that close. */
static double line_at(const rabred_price_t *price, int64_t count, int64_t bytes)
{
    double fixed = price->fixed, per_byte = price->per_byte;
    for (int k = 0; k < price->nshape && 2 * price->shape_count[k] > count; k++) {
        fixed = price->shape_fixed[k];
        per_byte = price->shape_per_byte[k];
    }
    return fixed + per_byte * (double)bytes;
}

/* One saving sample at n bytes (simulated without and with buffers,
 * `both`); 0 when there is no room or n cannot be simulated (the same on
 * every rank: the samples so far stand), *rc the simulator's error. */
static int add_saving(const rabred_alg_t *alg, const rabred_pricebook_t *book, int commutative,
                      const rabred_sim_model_t both[2], int64_t n, rabred_price_t *out, int *rc)
{
    double t[2];
    if (out->nsaving == RABRED_SAVING_POINTS) {
        return 0;
    }
    *rc = simulate_times(alg, book->p, commutative, n, book->seg_bytes, both, 2,
                         book->model.reduce_completion, t);
    if (RABRED_OK != *rc || t[0] < 0 || t[1] < 0) {
        return 0;
    }
    out->saving_bytes[out->nsaving] = (double)n;
    /* with shared ports the line (fitted without buffers at large sizes,
     * where nothing shares) misses what small messages in flight share
     * even without buffers: the sample is against the line itself */
    out->saving[out->nsaving++] = (shares_ports(book) ? line_at(out, n, n) : t[1]) - t[0];
    return 1;
}

/* MPI_Reduce with send buffers: the saving curve of rabred_price_t,
 * sampled where it bends.  A rank's saving is min(its buffer, what its
 * last message still had to move), which bends where that message (a
 * vector, a block of n/2^k or n/p, or one queued behind others at a
 * node's port) matches the buffer: from n = B/16 to p B (B the larger
 * buffer; every last message is n/p or more, so beyond p B all of them
 * outgrow their buffers and the saving stays), at sizes 2x apart, so
 * that a power-of-two share of the vector bends at a sample; below, at
 * p bytes (next_sample).  Each sample is the difference of two
 * simulations, without and with buffers, at the same size, so the fit's
 * own error (at small sizes) stays out of it and any size will do: the
 * samples need not be multiples of 2 p p' (at p = 1024 that is 2 MiB,
 * above the bend of TCP's 1.27 MB buffer).  Below p, a sample at each
 * count where the plan's shape changes (rabred_price_t.shape_count,
 * simulated by fit_shapes with its line): a tree of whole vectors at
 * 512 B saves what a tree of blocks at p bytes does not.  At most
 * log2(16 p) + 2 pairs of simulations here (19 at p = 4096), and up to
 * 12 shapes (within RABRED_SAVING_POINTS; rabred_model.h gives the time
 * they take).  With shared ports (rabred_link_units_t.shared_ports) sends
 * within the buffer leave when posted in every round and share the link
 * with the next round's, for either collective: then every doubling from
 * 8 bytes to 2 p B is sampled, each against the fitted line (the line,
 * fitted where no message fits a buffer, cannot see that), so the
 * "saving" may be < 0: 24 pairs of simulations at p = 1024 and a 64 KiB
 * buffer. */
static int fit_buffers(const rabred_alg_t *alg, const rabred_pricebook_t *book, int commutative,
                       rabred_price_t *out)
{
    int p = book->p;
    rabred_sim_model_t both[2]; /* with buffers, without */
    sim_model(book, 1.0, 1.0, &both[0]);
    both[1] = both[0];
    both[1].send_buffer = both[1].inter_send_buffer = 0.0;
    double most = both[0].send_buffer > both[0].inter_send_buffer ? both[0].send_buffer
                                                                   : both[0].inter_send_buffer;
    int64_t first = (int64_t)(most / 16) > 2 * (int64_t)p ? (int64_t)(most / 16) : 2 * (int64_t)p;
    int rc = RABRED_OK;
    out->nsaving = 0;
    if (shares_ports(book)) {
        /* shared: a send within the buffer frees its rank when posted, at
         * any size, and the next round's sends share its port: no shape
         * of the plans bounds that, so every doubling from 8 bytes */
        for (int64_t n = 8; (double)n < 2 * p * most && RABRED_OK == rc; n *= 2) {
            if (!add_saving(alg, book, commutative, both, n, out, &rc)) {
                break;
            }
        }
        return rc;
    }
    /* below p, the counts where the plan's shape changes (fit_shapes: the
     * smallest first), whose savings the sample at p does not scale to */
    for (int k = out->nshape - 1; k >= 0; k--) {
        if (out->shape_count[k] < p) { /* simulated with its line (fit_shapes) */
            out->saving_bytes[out->nsaving] = (double)out->shape_count[k];
            out->saving[out->nsaving++] = out->shape_saving[k];
        }
    }
    for (int64_t n = p; n > 0 && RABRED_OK == rc; n = next_sample(n, p, first, (double)p * most)) {
        if (!add_saving(alg, book, commutative, both, n, out, &rc)) {
            break;
        }
    }
    return rc;
}

/* The saving at n bytes: 0 without samples; below the first sample (p
 * bytes) in proportion to n, down to 0 for an empty vector (what a rank
 * saves is at most its last message's bytes' time, and the queued
 * latencies it skips shrink with the queue; taking the first sample's
 * whole saving there priced 8-byte calls at p = 1024 below 0); linear
 * between samples; the last beyond (every leaving rank saves its whole
 * buffer). */
static double saving_at(const rabred_price_t *price, int64_t bytes)
{
    double n = (double)bytes;
    if (0 == price->nsaving || n <= price->saving_bytes[0]) {
        return 0 == price->nsaving ? 0.0 : price->saving[0] * n / price->saving_bytes[0];
    }
    for (int k = 1; k < price->nsaving; k++) {
        double lo = price->saving_bytes[k - 1], hi = price->saving_bytes[k];
        if (n <= hi) {
            double w = (n - lo) / (hi - lo);
            return (1 - w) * price->saving[k - 1] + w * price->saving[k];
        }
    }
    return price->saving[price->nsaving - 1];
}

/* Are one rank's plans at counts a and b the same shape: the same
 * rounds, peers, buffers and operations, every length in proportion
 * (len_a * b == len_b * a)?  Then the time at b is the line at a's.
 * *same 0 when either cannot be built.  RABRED_OK or RABRED_ERR_NOMEM. */
static int rank_same_shape(const rabred_alg_t *alg, const rabred_pricebook_t *book, int rank,
                           int commutative, int64_t a, int64_t b, int *same)
{
    rabred_plan_t pa, pb;
    rabred_plan_init(&pa);
    rabred_plan_init(&pb);
    const rabred_nodes_t *nodes = NULL != book->node_of ? &book->nodes : NULL;
    int root = RABRED_COLL_REDUCE == alg->coll ? 0 : -1;
    rabred_plan_args_t args_a = {book->p, rank, root, a, commutative, book->seg_bytes,
                                 NULL, 0, nodes};
    rabred_plan_args_t args_b = args_a;
    args_b.count = b;
    int rc = rabred_plan_build(alg->build, &args_a, &pa);
    if (RABRED_OK == rc) {
        rc = rabred_plan_build(alg->build, &args_b, &pb);
    }
    *same = RABRED_OK == rc && pa.nrounds == pb.nrounds && pa.nxfers == pb.nxfers &&
            pa.nlocals == pb.nlocals;
    for (int i = 0; *same && i < pa.nrounds; i++) {
        *same = pa.rounds[i].nxfer == pb.rounds[i].nxfer &&
                pa.rounds[i].nlocal == pb.rounds[i].nlocal;
    }
    for (int i = 0; *same && i < pa.nxfers; i++) {
        const rabred_xfer_t *x = &pa.xfers[i], *y = &pb.xfers[i];
        *same = x->peer == y->peer && x->dir == y->dir && x->buf == y->buf &&
                x->len * b == y->len * a;
    }
    for (int i = 0; *same && i < pa.nlocals; i++) {
        const rabred_local_t *x = &pa.locals[i], *y = &pb.locals[i];
        *same = x->kind == y->kind && x->src == y->src && x->dst == y->dst &&
                x->len * b == y->len * a;
    }
    rabred_plan_free(&pa);
    rabred_plan_free(&pb);
    return RABRED_ERR_NOMEM == rc ? rc : RABRED_OK;
}

/* The same for ranks 0, 1, p / 2 and p - 1: the ranks where trees,
 * folds and blocks begin and end (a shape change elsewhere alone is
 * priced with the line above). */
static int same_shape(const rabred_alg_t *alg, const rabred_pricebook_t *book, int commutative,
                      int64_t a, int64_t b, int *same)
{
    int ranks[4] = {0, 1, book->p / 2, book->p - 1}, rc = RABRED_OK;
    *same = 1;
    for (int i = 0; i < 4 && *same && RABRED_OK == rc; i++) {
        rc = rank_same_shape(alg, book, ranks[i] < book->p ? ranks[i] : 0, commutative, a, b,
                             same);
    }
    return rc;
}

/* One shape's simulations at c elements, one plan build for all
 * (rabred_simulate_models): t[0] alpha alone, t[1] and t[2] elements of
 * n1 / c and n2 / c bytes (the simulator's beta scaled to the element:
 * the plan's shape is c's, its bytes the reference sizes', where the
 * ports' queues are what they are at large sizes), and with `savings`
 * the pair fit_buffers samples, one-byte elements with (t[3]) and
 * without (t[4]) send buffers.  Any t[k] < 0: c cannot be simulated. */
static int simulate_shape(const rabred_alg_t *alg, const rabred_pricebook_t *book,
                          int commutative, int completion, int savings, int64_t c, int64_t n1,
                          int64_t n2, double t[5])
{
    rabred_sim_model_t models[5];
    sim_model(book, 1.0, 0.0, &models[0]);
    sim_model(book, 1.0, (double)n1 / (double)c, &models[1]);
    sim_model(book, 1.0, (double)n2 / (double)c, &models[2]);
    sim_model(book, 1.0, 1.0, &models[3]);
    models[4] = models[3];
    const int unbuffered[3] = {1, 2, 4}; /* the lines as the reference; the pair's other */
    for (int k = 0; k < 3; k++) {
        models[unbuffered[k]].send_buffer = models[unbuffered[k]].inter_send_buffer = 0.0;
    }
    t[3] = t[4] = 0.0;
    return simulate_times(alg, book->p, commutative, c, book->seg_bytes, models, savings ? 5 : 3,
                          completion, t);
}

/* The lines of the shapes below p' elements (rabred_price_t.shape_count),
 * made as the reference line is: at each count c = p' / 2^k, the alpha
 * part with no bytes and the slope at large elements (simulate_shape).
 * A count whose plans are those of the count above in proportion
 * (same_shape) is not simulated, and one whose line is the one above
 * (within 0.1% at c elements of n1 / c bytes) not kept: its shape did not
 * change.  With `savings`, each kept shape also keeps the send buffers'
 * saving at c bytes.  Stops at the first count the algorithm does not
 * serve or that cannot be simulated (the same on every rank). */
static int fit_shapes(const rabred_alg_t *alg, const rabred_pricebook_t *book, int commutative,
                      int completion, int savings, int64_t n1, int64_t n2, rabred_price_t *out)
{
    double above_fixed = out->fixed, above_slope = out->per_byte;
    int64_t above = n2;
    out->nshape = 0;
    for (int64_t c = rabred_pof2_floor(book->p); c >= 1 && out->nshape < RABRED_SHAPE_POINTS;
         above = c, c /= 2) {
        rabred_call_t call = {book->p, c, commutative,
                              NULL != book->node_of ? &book->nodes : NULL};
        if (NULL != rabred_alg_violation(alg, &call)) {
            break; /* it never serves this count (rabenseifner below p'), nor smaller */
        }
        int same = 0;
        int rc = same_shape(alg, book, commutative, above, c, &same);
        if (RABRED_OK != rc) {
            return rc;
        }
        if (same) {
            continue; /* its line is the one above: nothing to simulate */
        }
        double t[5];
        rc = simulate_shape(alg, book, commutative, completion, savings, c, n1, n2, t);
        if (RABRED_OK != rc || t[0] < 0 || t[1] < 0 || t[2] < 0 || t[3] < 0 || t[4] < 0) {
            return rc;
        }
        double fixed = t[0], slope = (t[2] - t[1]) / (double)(n2 - n1);
        double at_n1 = fixed + slope * (double)n1;
        if (fabs(at_n1 - (above_fixed + above_slope * (double)n1)) > 1e-3 * at_n1) {
            out->shape_count[out->nshape] = c;
            out->shape_fixed[out->nshape] = fixed;
            out->shape_per_byte[out->nshape] = slope;
            out->shape_saving[out->nshape++] = savings ? t[4] - t[3] : 0.0;
            above_fixed = fixed;
            above_slope = slope;
        }
    }
    return RABRED_OK;
}

/* RABRED_OK (priced, or left unpriced alike on every rank) or
 * RABRED_ERR_NOMEM. */
static int price_alg(const rabred_alg_t *alg, const rabred_pricebook_t *book, int commutative,
                     rabred_price_t *out)
{
    int p = book->p;
    int64_t seg_bytes = book->seg_bytes;
    memset(out, 0, sizeof(*out));
    /* the closed forms price MPI_Reduce by the ranks' average */
    int completion = RABRED_COLL_REDUCE == alg->coll && book->model.reduce_completion;
    int closed = NULL != alg->price && NULL == book->node_of && !completion, alone = 0;
    int64_t n1 = reference_bytes(p, seg_bytes), n2 = 2 * n1, work = 0, crowd = 0;
    if (closed && alg->prices_sharing) {
        out->closed = alg; /* its closed form knows messages in flight */
        out->ok = 1;
        return RABRED_OK;
    }
    int rc = closed && beyond_turns(book)
                 ? ports_one_at_a_time(alg, book, commutative, n1, &alone, &crowd)
                 : RABRED_OK;
    if (RABRED_OK != rc) {
        return rc; /* out of memory */
    }
    /* a plan whose ports carry too many messages at once to simulate
     * shared keeps its closed form too (the linear broadcast's p - 1
     * sends end together either way).  Not MPI_Reduce's average: with
     * shared ports a send within the buffer frees its rank when posted,
     * where the closed forms free it once the message matched (linear's
     * leaves at p = 256, 8 B: 206 us priced, 1.6 simulated) */
    int alone_holds = alone && RABRED_COLL_ALLREDUCE == alg->coll;
    if (closed && (!beyond_turns(book) || alone_holds || crowd > SIM_BUDGET)) {
        out->closed = alg; /* exact at every size, and cheap at any p */
        out->ok = 1;
        return RABRED_OK;
    }
    /* with a node map no closed form knows which messages share a node's
     * link, and with shared ports or overlapped latency none counts what
     * a rank's messages in flight at once cost: simulated */
    rc = sim_work(alg, p, n2, seg_bytes, NULL != book->node_of ? &book->nodes : NULL, &work);
    if (RABRED_OK == rc && work > SIM_BUDGET && closed) {
        /* too large to simulate: the plans that large are the O(p)-round
         * ones (rings and pairwise exchanges, one message per port at a
         * time; linear, whose root's p - 1 sends end together either way) */
        out->closed = alg;
        out->ok = 1;
        return RABRED_OK;
    }
    if (RABRED_OK != rc || work > SIM_BUDGET) {
        return rc; /* too large to simulate: left unpriced, alike on every rank */
    }
    rabred_sim_model_t alpha_only, full;
    sim_model(book, 1.0, 0.0, &alpha_only);
    sim_model(book, 1.0, 1.0, &full);
    full.send_buffer = full.inter_send_buffer = 0.0; /* the buffers: fit_buffers */
    /* alpha part at the smallest even size: one segment per block */
    int64_t n0 = (int64_t)2 * p * rabred_pof2_floor(p);
    double t0 = -1, t1 = -1, t2 = -1;
    rc = simulate_time(alg, p, commutative, n0, seg_bytes, &alpha_only, completion, &t0);
    if (RABRED_OK == rc) {
        rc = simulate_time(alg, p, commutative, n1, seg_bytes, &full, completion, &t1);
    }
    if (RABRED_OK == rc) {
        rc = simulate_time(alg, p, commutative, n2, seg_bytes, &full, completion, &t2);
    }
    fit(out, t0, t1, t2, n1, n2);
    /* a send buffer frees senders early, never the root: no saving by
     * completion */
    /* with shared ports, sends within the buffer leave when posted in every
     * round and share the port with the next round's: sampled the same
     * way, for either collective and metric (a "saving" that may be < 0) */
    int savings = (buffers_matter(book) || (shares_ports(book) && buffered(book))) &&
                  ((RABRED_COLL_REDUCE == alg->coll && !completion) || shares_ports(book));
    if (RABRED_OK == rc && out->ok) {
        /* shared, fit_buffers samples every size itself: the shapes' savings go unused */
        rc = fit_shapes(alg, book, commutative, completion, savings && !shares_ports(book), n1,
                        n2, out);
    }
    if (RABRED_OK == rc && out->ok && savings) {
        rc = fit_buffers(alg, book, commutative, out);
    }
    return rc;
}

/* Prices what the book's model can price: arrival-aware algorithms are
 * left unpriced (ok = 0), so the decision never picks them (with equal
 * arrivals they are the ring, prereduced_ring, or slower,
 * sorted_linear_tree, and nothing here predicts arrivals); node-aware ones
 * only in a book with a node map, where they differ from flat ones. */
static int fill(rabred_pricebook_t *book, rabred_coll_t coll)
{
    int p = book->p;
    const rabred_nodes_t *nodes = NULL != book->node_of ? &book->nodes : NULL;
    for (int commutative = 0; commutative <= 1; commutative++) {
        for (int i = 0; i < rabred_table_size(coll) && i < RABRED_TABLE_MAX; i++) {
            const rabred_alg_t *alg = rabred_table_at(coll, i);
            rabred_price_t *price = &book->price[coll][commutative][i];
            rabred_call_t call = {p, INT64_MAX / 4, commutative, nodes};
            memset(price, 0, sizeof(*price));
            if (p >= 2 && !alg->arrival_aware && (!alg->node_aware || NULL != nodes) &&
                NULL == rabred_alg_violation(alg, &call)) {
                int rc = price_alg(alg, book, commutative, price);
                if (RABRED_OK != rc) {
                    return rc; /* out of memory: not priced (ensure leaves the flag unset) */
                }
            }
        }
    }
    return RABRED_OK;
}

int rabred_pricebook_fill(rabred_pricebook_t *book, rabred_coll_t coll, int p, int64_t seg_bytes,
                          const rabred_model_t *model)
{
    book->p = p;
    book->seg_bytes = seg_bytes;
    book->model = *model;
    return fill(book, coll);
}

int rabred_pricebook_ensure(rabred_pricebook_t *book, rabred_coll_t coll, int p,
                            int64_t seg_bytes, const rabred_model_t *model, int *filled)
{
    if (NULL != filled) {
        *filled = 0;
    }
    if (book->p != p || book->seg_bytes != seg_bytes) {
        memset(book->priced, 0, sizeof(book->priced));
    }
    if (book->priced[coll]) {
        return RABRED_OK;
    }
    book->p = p;
    book->seg_bytes = seg_bytes;
    book->model = *model;
    int rc = fill(book, coll);
    if (RABRED_OK == rc) {
        book->priced[coll] = 1;
        if (NULL != filled) {
            *filled = 1;
        }
    }
    return rc;
}


/* A closed form, written for one-byte elements, priced for `count`
 * elements of bytes / count bytes each: its plans' shape is count's,
 * and each element moves and reduces at e times a byte's time (beta,
 * gamma x e; the send buffer and the segment in elements).  The model
 * is linear in those terms, so this is the closed form of e-byte
 * elements exactly. */
static double closed_price(const rabred_alg_t *alg, const rabred_pricebook_t *book, int root,
                           int commutative, int64_t count, int64_t bytes)
{
    rabred_model_t at = rabred_model_for_bytes(&book->model, bytes);
    rabred_price_call_t call = {book->p, root, commutative ? 1 : 0, bytes, book->seg_bytes, 0};
    if (count > 0 && count < bytes) {
        double e = (double)bytes / (double)count;
        at.beta *= e;
        at.gamma *= e;
        at.send_buffer /= e;
        call.bytes = count;
        call.seg_bytes = book->seg_bytes > 0 ? (int64_t)((double)book->seg_bytes / e) : 0;
        call.seg_bytes = book->seg_bytes > 0 && call.seg_bytes < 1 ? 1 : call.seg_bytes;
    }
    return alg->price(&call, &at);
}

double rabred_pricebook_price(const rabred_pricebook_t *book, const rabred_alg_t *alg, int root,
                              int commutative, int64_t bytes)
{
    return rabred_pricebook_price_count(book, alg, root, commutative, bytes, bytes);
}

double rabred_pricebook_price_count(const rabred_pricebook_t *book, const rabred_alg_t *alg,
                                    int root, int commutative, int64_t count, int64_t bytes)
{
    int index = alg->id - 1; /* the table is in id order */
    if (index < 0 || index >= RABRED_TABLE_MAX) {
        return -1.0;
    }
    const rabred_price_t *price = &book->price[alg->coll][commutative ? 1 : 0][index];
    if (!price->ok) {
        return -1.0;
    }
    if (NULL != price->closed) {
        return closed_price(price->closed, book, root, commutative, count, bytes);
    }
    return line_at(price, count, bytes) - saving_at(price, bytes);
}

double rabred_pricebook_time(const rabred_pricebook_t *book, rabred_coll_t coll, int commutative,
                             int index, int64_t bytes)
{
    const rabred_alg_t *alg = rabred_table_at(coll, index);
    int root = RABRED_COLL_REDUCE == coll ? 0 : -1;
    return NULL != alg ? rabred_pricebook_price(book, alg, root, commutative, bytes) : -1.0;
}

static int same_model(const rabred_model_t *a, const rabred_model_t *b)
{
    return a->alpha == b->alpha && a->beta == b->beta && a->gamma == b->gamma &&
           a->f_alpha == b->f_alpha && a->f_beta == b->f_beta && a->sync == b->sync &&
           a->peer == b->peer && a->rndv == b->rndv && a->rndv_oneway == b->rndv_oneway &&
           a->rndv_cross == b->rndv_cross &&
           a->beta_eager == b->beta_eager && a->beta_inv == b->beta_inv &&
           a->beta_overwrite == b->beta_overwrite && a->copy == b->copy &&
           a->gamma_far == b->gamma_far && a->copy_far == b->copy_far &&
           a->cache_bytes == b->cache_bytes && a->eager_bytes == b->eager_bytes &&
           a->aggregate == b->aggregate && a->duplex == b->duplex && a->repeat == b->repeat &&
           a->beta_rank == b->beta_rank && a->send_buffer == b->send_buffer &&
           a->shared_ports == b->shared_ports && a->parallel_ports == b->parallel_ports &&
           a->wire == b->wire &&
           0 == memcmp(a->distance_beta, b->distance_beta, sizeof(a->distance_beta)) &&
           0 == memcmp(a->shift_beta, b->shift_beta, sizeof(a->shift_beta)) &&
           0 == memcmp(a->distance_alpha, b->distance_alpha, sizeof(a->distance_alpha)) &&
           0 == memcmp(a->shift_alpha, b->shift_alpha, sizeof(a->shift_alpha)) &&
           a->reduce_completion == b->reduce_completion;
}

/* Does b price a communicator with this node map (NULL: none) and intra link? */
static int same_nodes(const rabred_pricebook_t *b, const rabred_nodes_t *nodes,
                      const rabred_model_t *intra)
{
    if (NULL == nodes || NULL == b->node_of) {
        return NULL == nodes && NULL == b->node_of;
    }
    return b->nodes.nnodes == nodes->nnodes && same_model(&b->intra, intra) &&
           0 == memcmp(b->node_of, nodes->node_of, (size_t)b->p * sizeof(int32_t));
}

/* The registry's book for (p, seg_bytes, model[, nodes, intra]), or a new empty one. */
static rabred_pricebook_t *book_for(rabred_pricebooks_t *books, int p, int64_t seg_bytes,
                                    const rabred_model_t *model, const rabred_nodes_t *nodes,
                                    const rabred_model_t *intra)
{
    for (int i = 0; i < books->n; i++) {
        rabred_pricebook_t *b = books->books[i];
        if (b->p == p && b->seg_bytes == seg_bytes && same_model(&b->model, model) &&
            same_nodes(b, nodes, intra)) {
            return b;
        }
    }
    if (books->n == books->cap) {
        int cap = books->cap ? 2 * books->cap : 8;
        rabred_pricebook_t **grown = realloc(books->books, (size_t)cap * sizeof(*grown));
        if (NULL == grown) {
            return NULL;
        }
        books->books = grown;
        books->cap = cap;
    }
    rabred_pricebook_t *b = calloc(1, sizeof(*b));
    if (NULL != b && NULL != nodes) {
        b->node_of = malloc((size_t)p * sizeof(int32_t));
        if (NULL == b->node_of) {
            free(b);
            return NULL;
        }
        memcpy(b->node_of, nodes->node_of, (size_t)p * sizeof(int32_t));
        b->nodes.nnodes = nodes->nnodes;
        b->nodes.node_of = b->node_of;
        b->intra = *intra;
    }
    if (NULL != b) {
        b->p = p;
        b->seg_bytes = seg_bytes;
        b->model = *model;
        books->books[books->n++] = b;
    }
    return b;
}

int rabred_pricebooks_get(rabred_pricebooks_t *books, rabred_coll_t coll, int p,
                          int64_t seg_bytes, const rabred_model_t *model,
                          const rabred_pricebook_t **book)
{
    rabred_pricebook_t *b = book_for(books, p, seg_bytes, model, NULL, NULL);
    int rc = NULL != b ? rabred_pricebook_ensure(b, coll, p, seg_bytes, model, NULL)
                       : RABRED_ERR_NOMEM;
    *book = RABRED_OK == rc ? b : NULL;
    return rc;
}

int rabred_pricebooks_get_nodes(rabred_pricebooks_t *books, rabred_coll_t coll, int p,
                                int64_t seg_bytes, const rabred_model_t *inter,
                                const rabred_model_t *intra, const rabred_nodes_t *nodes,
                                const rabred_pricebook_t **book)
{
    rabred_pricebook_t *b = book_for(books, p, seg_bytes, inter, nodes, intra);
    int rc = NULL != b ? rabred_pricebook_ensure(b, coll, p, seg_bytes, inter, NULL)
                       : RABRED_ERR_NOMEM;
    *book = RABRED_OK == rc ? b : NULL;
    return rc;
}

void rabred_pricebooks_free(rabred_pricebooks_t *books)
{
    for (int i = 0; i < books->n; i++) {
        free(books->books[i]->node_of);
        free(books->books[i]);
    }
    free(books->books);
    memset(books, 0, sizeof(*books));
}

int rabred_model_price(const rabred_pricebook_t *book, const rabred_alg_t *alg,
                       const rabred_price_call_t *call, double *t)
{
    double extra = 0;
    *t = rabred_pricebook_price_count(book, alg, call->root, call->commutative,
                                      call->count > 0 ? call->count : call->bytes, call->bytes);
    if (*t < 0) {
        return RABRED_OK;
    }
    int rc = rabred_model_book_extras(book, alg, call, &extra);
    *t += extra;
    return rc;
}

int rabred_model_book_extras(const rabred_pricebook_t *book, const rabred_alg_t *alg,
                             const rabred_price_call_t *call, double *extra)
{
    if (NULL != book->node_of) {
        return rabred_model_extras_nodes(alg, call, book, extra);
    }
    rabred_model_t at = rabred_model_for_bytes(&book->model, call->bytes);
    return rabred_model_extras(alg, call, &at, extra);
}

double rabred_model_closed_form(const rabred_alg_t *alg, int p, int64_t bytes, int64_t seg_bytes,
                                const rabred_model_t *model)
{
    rabred_price_call_t call = {p, RABRED_COLL_REDUCE == alg->coll ? 0 : -1, 1, bytes, seg_bytes,
                                0};
    return p >= 2 && NULL != alg->price ? alg->price(&call, model) : -1.0;
}
