/*
 * The cost model: price books from the simulator (see rabred_model.h).
 */
#include "select/rabred_model.h"

#include <stdlib.h>
#include <string.h>

#include "sim/rabred_sim.h"
#include "plan/rabred_toolkit.h"

const rabred_link_units_t rabred_default_intra = {
    .alpha_us = 0.38, .mbs = 10200, .oneway_alpha = 0.87, .oneway_beta = 1.07,
    .eager_bytes = 2048, .eager_mbs = 2480, .rndv_us = 1.91, .rndv_oneway_us = 1.49,
    .invalidate_mbs = 5240, .overwrite_mbs = 12100, .repeat = 1.21, .peer_us = 0,
    .duplex = 1, .aggregate_mbs = 0, .send_buffer_bytes = 2048};
const rabred_link_units_t rabred_default_inter = {
    .alpha_us = 2.0, .mbs = 10000, .oneway_alpha = 0.8, .oneway_beta = 1.0,
    .eager_bytes = 8192, .rndv_us = 3.0, .rndv_oneway_us = 3.0, .peer_us = 0, .repeat = 1,
    .duplex = 1, .aggregate_mbs = 0, .send_buffer_bytes = 8192};

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
        .beta_eager = link->eager_mbs > 0 ? 1e-6 / link->eager_mbs : 0,
        .beta_inv = link->invalidate_mbs > 0 ? 1e-6 / link->invalidate_mbs : 0,
        .beta_overwrite = link->overwrite_mbs > 0 ? 1e-6 / link->overwrite_mbs : 0,
        .eager_bytes = link->eager_bytes,
        .repeat = link->repeat > 1 ? link->repeat : 1,
        .duplex = link->duplex > 1 ? link->duplex : 1,
        .aggregate = link->aggregate_mbs > 0 ? 1e-6 / link->aggregate_mbs : 0,
        .beta_rank = link->rank_mbs > 0 ? 1e-6 / link->rank_mbs : 0,
        .send_buffer = link->send_buffer_bytes > 0 ? link->send_buffer_bytes : 0,
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
 * ranks): about 10 ms.  Larger plans take the closed forms below. */
#define SIM_BUDGET 400000

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
    if (NULL != book->node_of) {
        out->inter_send_buffer = m->send_buffer;
        out->nodes = &book->nodes;
        out->inter_alpha = alpha_on * m->alpha;
        out->inter_beta = bytes_on * m->beta;
        out->inter_rank_beta = bytes_on * m->beta_rank;
    }
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
    rabred_sim_result_t res[2];
    int rc = nmodels <= 2 ? rabred_simulate_models(&call, models, nmodels, res) : RABRED_ERR_ARG;
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
 * above the bend of TCP's 1.27 MB buffer).  At most log2(16 p) + 2
 * pairs of simulations (19 at p = 4096, within RABRED_SAVING_POINTS;
 * rabred_model.h gives the time they take). */
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
    for (int64_t n = p; n > 0 && out->nsaving < RABRED_SAVING_POINTS && RABRED_OK == rc;
         n = next_sample(n, p, first, (double)p * most)) {
        double t[2];
        rc = simulate_times(alg, p, commutative, n, book->seg_bytes, both, 2,
                            book->model.reduce_completion, t);
        if (t[0] < 0 || t[1] < 0) {
            break; /* the same on every rank: the samples so far stand */
        }
        out->saving_bytes[out->nsaving] = (double)n;
        out->saving[out->nsaving++] = t[1] - t[0];
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
    if (NULL != alg->price && NULL == book->node_of && !completion) {
        out->closed = alg; /* exact at every size, and cheap at any p */
        out->ok = 1;
        return RABRED_OK;
    }
    /* with a node map no closed form knows which messages share a node's
     * link: every algorithm is simulated */
    int64_t n1 = reference_bytes(p, seg_bytes), n2 = 2 * n1, work = 0;
    int rc = sim_work(alg, p, n2, seg_bytes, NULL != book->node_of ? &book->nodes : NULL, &work);
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
    if (RABRED_OK == rc && out->ok && RABRED_COLL_REDUCE == alg->coll && !completion &&
        buffers_matter(book)) {
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

double rabred_pricebook_price(const rabred_pricebook_t *book, const rabred_alg_t *alg, int root,
                              int commutative, int64_t bytes)
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
        rabred_price_call_t call = {book->p, root, commutative ? 1 : 0, bytes, book->seg_bytes};
        rabred_model_t at = rabred_model_for_bytes(&book->model, bytes);
        return price->closed->price(&call, &at);
    }
    return price->fixed + price->per_byte * (double)bytes - saving_at(price, bytes);
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
           a->beta_eager == b->beta_eager && a->beta_inv == b->beta_inv &&
           a->beta_overwrite == b->beta_overwrite && a->copy == b->copy &&
           a->gamma_far == b->gamma_far && a->copy_far == b->copy_far &&
           a->cache_bytes == b->cache_bytes && a->eager_bytes == b->eager_bytes &&
           a->aggregate == b->aggregate && a->duplex == b->duplex && a->repeat == b->repeat &&
           a->beta_rank == b->beta_rank && a->send_buffer == b->send_buffer &&
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
    *t = rabred_pricebook_price(book, alg, call->root, call->commutative, call->bytes);
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
    rabred_price_call_t call = {p, RABRED_COLL_REDUCE == alg->coll ? 0 : -1, 1, bytes, seg_bytes};
    return p >= 2 && NULL != alg->price ? alg->price(&call, model) : -1.0;
}
