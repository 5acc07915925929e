/*
 * The cost model: price books from the simulator (see rabred_model.h).
 */
#include "rabred_model.h"

#include <string.h>

#include "rabred_sim.h"
#include "rabred_toolkit.h"

/* Simulation work we accept per price (rank-rounds plus transfers over all
 * ranks): about 10 ms.  Larger plans take the closed forms below. */
#define SIM_BUDGET 400000

static void sim_model(const rabred_model_t *m, double alpha_on, double bytes_on,
                      rabred_sim_model_t *out)
{
    rabred_sim_model_default(out);
    out->alpha = alpha_on * m->alpha;
    out->beta = bytes_on * m->beta;
    out->gamma = bytes_on * m->gamma;
    out->f_alpha = m->f_alpha;
    out->f_beta = m->f_beta;
}

/* Simulated seconds in *t, or -1 when this plan cannot be simulated (the
 * same on every rank: the algorithm stays unpriced).  Returns
 * RABRED_ERR_NOMEM when the simulator ran out of memory: that is this
 * rank's alone, and a rank that went on with a book the others do not
 * have would choose differently, so it is the call's error. */
static int simulate_time(const rabred_alg_t *alg, int p, int commutative, int64_t bytes,
                         int64_t seg_bytes, const rabred_sim_model_t *model, double *t)
{
    int root = RABRED_COLL_REDUCE == alg->coll ? 0 : -1;
    rabred_sim_call_t call = {alg->build, p, root, bytes, commutative, 0, seg_bytes, 1, NULL};
    rabred_sim_result_t res;
    int rc = rabred_simulate(&call, model, &res);
    *t = RABRED_OK == rc && res.ok ? rabred_model_metric(&res, alg->coll) : -1.0;
    return RABRED_ERR_NOMEM == rc ? rc : RABRED_OK;
}

double rabred_model_metric(const rabred_sim_result_t *res, rabred_coll_t coll)
{
    return RABRED_COLL_REDUCE == coll ? res->avg_elapsed : res->time;
}

/* Rank 1's plan size times p: what simulating this call would cost
 * (INT64_MAX when the plan cannot be built).  RABRED_ERR_NOMEM as in
 * simulate_time. */
static int sim_work(const rabred_alg_t *alg, int p, int64_t bytes, int64_t seg_bytes,
                    int64_t *work)
{
    rabred_plan_t plan;
    rabred_plan_init(&plan);
    rabred_plan_args_t args = {p, p > 1 ? 1 : 0, RABRED_COLL_REDUCE == alg->coll ? 0 : -1,
                               bytes, 1, seg_bytes, NULL, 0};
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

/* RABRED_OK (priced, or left unpriced alike on every rank) or
 * RABRED_ERR_NOMEM. */
static int price_alg(const rabred_alg_t *alg, int p, int commutative, int64_t seg_bytes,
                     const rabred_model_t *m, rabred_price_t *out)
{
    int64_t n1 = reference_bytes(p, seg_bytes), n2 = 2 * n1, work = 0;
    rabred_sim_model_t alpha_only, full;
    sim_model(m, 1.0, 0.0, &alpha_only);
    sim_model(m, 1.0, 1.0, &full);
    memset(out, 0, sizeof(*out));
    if (alg->segmented && rabred_model_closed_form(alg, p, n1, seg_bytes, m) >= 0) {
        /* its time steps with the segment count: the exact closed form,
         * not a line through two sizes */
        out->closed = alg;
        out->ok = 1;
        return RABRED_OK;
    }
    int rc = sim_work(alg, p, n2, seg_bytes, &work);
    if (RABRED_OK == rc && work > SIM_BUDGET) {
        fit(out, rabred_model_closed_form(alg, p, 2 * p, seg_bytes, m),
            rabred_model_closed_form(alg, p, n1, seg_bytes, m),
            rabred_model_closed_form(alg, p, n2, seg_bytes, m), n1, n2);
        return RABRED_OK;
    }
    /* alpha part at the smallest even size: one segment per block */
    int64_t n0 = (int64_t)2 * p * rabred_pof2_floor(p);
    double t0 = -1, t1 = -1, t2 = -1;
    if (RABRED_OK == rc) {
        rc = simulate_time(alg, p, commutative, n0, seg_bytes, &alpha_only, &t0);
    }
    if (RABRED_OK == rc) {
        rc = simulate_time(alg, p, commutative, n1, seg_bytes, &full, &t1);
    }
    if (RABRED_OK == rc) {
        rc = simulate_time(alg, p, commutative, n2, seg_bytes, &full, &t2);
    }
    fit(out, t0, t1, t2, n1, n2);
    return rc;
}

int rabred_pricebook_fill(rabred_pricebook_t *book, rabred_coll_t coll, int p, int64_t seg_bytes,
                          const rabred_model_t *model)
{
    book->p = p;
    book->seg_bytes = seg_bytes;
    book->model = *model;
    for (int commutative = 0; commutative <= 1; commutative++) {
        for (int i = 0; i < rabred_table_size(coll) && i < RABRED_TABLE_MAX; i++) {
            const rabred_alg_t *alg = rabred_table_at(coll, i);
            rabred_price_t *price = &book->price[coll][commutative][i];
            rabred_call_t call = {p, INT64_MAX / 4, commutative};
            memset(price, 0, sizeof(*price));
            /* arrival-aware algorithms are left unpriced (ok = 0), so the
             * decision never picks them: with equal arrivals they are the
             * ring (prereduced_ring) or slower (sorted_linear_tree), and
             * nothing here predicts arrivals yet */
            if (p >= 2 && !alg->arrival_aware && NULL == rabred_alg_violation(alg, &call)) {
                int rc = price_alg(alg, p, commutative, seg_bytes, model, price);
                if (RABRED_OK != rc) {
                    return rc; /* out of memory: not priced (ensure leaves the flag unset) */
                }
            }
        }
    }
    return RABRED_OK;
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
    int rc = rabred_pricebook_fill(book, coll, p, seg_bytes, model);
    if (RABRED_OK == rc) {
        book->priced[coll] = 1;
        if (NULL != filled) {
            *filled = 1;
        }
    }
    return rc;
}

double rabred_pricebook_time(const rabred_pricebook_t *book, rabred_coll_t coll, int commutative,
                             int index, int64_t bytes)
{
    const rabred_price_t *price = &book->price[coll][commutative ? 1 : 0][index];
    if (!price->ok) {
        return -1.0;
    }
    if (NULL != price->closed) {
        return rabred_model_closed_form(price->closed, book->p, bytes, book->seg_bytes,
                                        &book->model);
    }
    return price->fixed + price->per_byte * (double)bytes;
}

/* ---- closed forms for large p ---------------------------------------------
 * ring, p > 2: reduce-scatter by pairwise exchange (step k: send to r + k,
 * receive from r - k; one-way except the step k = p/2 of an even p, which
 * exchanges with one peer), then the neighbour allgather (one-way):
 *   2 (p-1) (f_a a + n/p f_b b) + (p-1) n/p g, + (a + n/p b) - (f_a a + n/p f_b b)
 *   for even p.
 * Reduce's ring ends with the root receiving p-1 blocks one after another
 *   (its in-port serialises them); reduce is priced by the average elapsed
 *   time, so the k-th sender counts k one-way blocks and the root p-1.
 * segmented ring: the neighbour ring cut into S segments of s = n/(p S)
 *   bytes, each segment's transfer x = f_a a + s f_b b overlapping the
 *   previous one's reduction r = s g: (p-1) S max(x, r) + min(x, r), then
 *   the allgather (p-1) (f_a a + n/p f_b b).  With S = 1 nothing overlaps
 *   (each step forwards what the last one reduced): (p-1) (x + r).
 * pipeline (reduce, root 0: the chain ends at the root): S segments of
 *   m = n/S bytes, x = f_a a + m f_b b one-way, r = m g; a middle member
 *   forwards a segment once reduced and reduces the next once its round's
 *   transfers are done, so the chain moves one segment per x + r and fills
 *   in p - 2 of them: the root completes at (p - 2 + S) (x + r), member h
 *   leaves at (S - 1 + h) (x + r) + x; the price is their average.  At
 *   p = 2 the head only sends and the root receives the next segment while
 *   it reduces one: root x + r + (S - 1) max(x, r), head 2x + (S - 2)
 *   max(x, r).  Exact for n a multiple of S. */

static double one_way(const rabred_model_t *m, double bytes)
{
    return m->f_alpha * m->alpha + bytes * m->f_beta * m->beta;
}

/* A message to a ring neighbour: one-way, except at p = 2 where the
 * neighbours on both sides are the same peer (an exchange). */
static double neighbour(const rabred_model_t *m, int p, double bytes)
{
    return 2 == p ? m->alpha + bytes * m->beta : one_way(m, bytes);
}

static double ring_time(int p, double n, int reduce, const rabred_model_t *m)
{
    double block = n / p;
    double t = (p - 1) * (neighbour(m, p, block) + block * m->gamma);
    if (0 == p % 2) {
        t += m->alpha + block * m->beta - neighbour(m, p, block);
    }
    if (!reduce) {
        return t + (p - 1) * neighbour(m, p, block); /* the neighbour allgather */
    }
    /* reduce, priced by the average elapsed time (rabred_model_metric):
     * the root's in-port takes the p-1 blocks one after another, so the
     * k-th sender is done after k one-way messages and the root after p-1:
     * on average (p-1)(p+2)/(2p) of them */
    return t + (double)(p - 1) * (p + 2) / (2.0 * p) * one_way(m, block);
}

static double segmented_ring_time(int p, double n, int64_t seg_bytes, const rabred_model_t *m)
{
    double block = n / p;
    double segs = seg_bytes > 0 && block > seg_bytes ? (double)(int64_t)((block + seg_bytes - 1) /
                                                                          seg_bytes)
                                                     : 1.0;
    segs = segs < RABRED_SEGRING_MAX_SEGMENTS ? segs : RABRED_SEGRING_MAX_SEGMENTS;
    double xfer = neighbour(m, p, block / segs), reduce = block / segs * m->gamma;
    double hi = xfer > reduce ? xfer : reduce, lo = xfer > reduce ? reduce : xfer;
    double allgather = (p - 1) * neighbour(m, p, block);
    if (segs < 2) {
        return (p - 1) * (xfer + reduce) + allgather; /* what is forwarded was just reduced */
    }
    return (p - 1) * segs * hi + lo + allgather;
}

static double pipeline_time(int p, int64_t bytes, int64_t seg_bytes, const rabred_model_t *m)
{
    int64_t nseg = seg_bytes > 0 && bytes > seg_bytes ? (bytes + seg_bytes - 1) / seg_bytes : 1;
    double segs = (double)(nseg < RABRED_PIPELINE_MAX_SEGMENTS ? nseg
                                                                : RABRED_PIPELINE_MAX_SEGMENTS);
    double seg = (double)bytes / segs, xfer = one_way(m, seg), reduce = seg * m->gamma;
    /* priced by the average elapsed time, as reduce is (rabred_model_metric) */
    if (2 == p) { /* the root takes one segment ahead of its reductions, so
                    * the sender's leave at the root's pace from the third */
        double hi = xfer > reduce ? xfer : reduce;
        double sender = segs < 2 ? xfer : 2 * xfer + (segs - 2) * hi;
        return (sender + xfer + reduce + (segs - 1) * hi) / 2;
    }
    /* chain member h = 0..p-2 leaves after (S-1+h) steps and its last
     * transfer, the root after p-2+S steps */
    double steps = (p - 1) * (segs - 1) + (p - 1) * (p - 2) / 2.0 + (p - 2 + segs);
    return (steps * (xfer + reduce) + (p - 1) * xfer) / p;
}

double rabred_model_closed_form(const rabred_alg_t *alg, int p, int64_t bytes, int64_t seg_bytes,
                                const rabred_model_t *model)
{
    if (p < 2) {
        return -1.0;
    }
    if (0 == strcmp(alg->name, "ring")) {
        return ring_time(p, (double)bytes, RABRED_COLL_REDUCE == alg->coll, model);
    }
    if (0 == strcmp(alg->name, "segmented_ring") && RABRED_COLL_ALLREDUCE == alg->coll) {
        return segmented_ring_time(p, (double)bytes, seg_bytes, model);
    }
    if (0 == strcmp(alg->name, "pipeline") && RABRED_COLL_REDUCE == alg->coll) {
        return pipeline_time(p, bytes, seg_bytes, model);
    }
    return -1.0;
}
