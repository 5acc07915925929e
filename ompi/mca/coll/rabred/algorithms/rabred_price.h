/*
 * What an algorithm's closed-form price reads: the cost model's parameters
 * (seed 000 sec. 2.1, with one-way factors) and the call.  A price is the
 * balanced time of one call in seconds by the metric of its collective:
 * MPI_Allreduce its completion time, MPI_Reduce seed 004's average elapsed
 * time over ranks (select/rabred_model.h says why).  The simulator runs
 * the same model on the plans themselves; test_model checks every closed
 * form against it.  Pure C, no MPI.
 */
#ifndef RABRED_PRICE_H
#define RABRED_PRICE_H

#include <stdint.h>

typedef struct {
    double alpha;   /* seconds per message of an exchange */
    double beta;    /* seconds per byte of an exchange */
    double gamma;   /* seconds per byte reduced */
    double f_alpha; /* one-way message cost relative to an exchange */
    double f_beta;
} rabred_model_t;

typedef struct {
    int p;
    int root;          /* reduce: the root; allreduce: -1 */
    int commutative;
    int64_t bytes;     /* per rank */
    int64_t seg_bytes; /* segment size of the segmented algorithms; 0: none */
} rabred_price_call_t;

/* Seconds, or < 0 when the closed form does not cover this call. */
typedef double (*rabred_price_fn)(const rabred_price_call_t *call, const rabred_model_t *model);

/* A message of `bytes` sent while nothing comes back from that peer. */
static inline double rabred_price_one_way(const rabred_model_t *m, double bytes)
{
    return m->f_alpha * m->alpha + bytes * m->f_beta * m->beta;
}

/* A message of `bytes` each way between two peers. */
static inline double rabred_price_exchange(const rabred_model_t *m, double bytes)
{
    return m->alpha + bytes * m->beta;
}

/* The largest of p blocks of the call's bytes (rabred_block_length): a
 * ring's every step carries one, so uneven blocks cost as the largest. */
static inline double rabred_price_block_bytes(const rabred_price_call_t *call)
{
    return (double)((call->bytes + call->p - 1) / call->p);
}

/* A message of `bytes` to a ring neighbour: one-way, except at p = 2,
 * where the neighbours on both sides are the same peer (an exchange). */
static inline double rabred_price_neighbour(const rabred_model_t *m, int p, double bytes)
{
    return 2 == p ? rabred_price_exchange(m, bytes) : rabred_price_one_way(m, bytes);
}

/* The pairwise-exchange reduce-scatter of n bytes over p blocks
 * (rabred_phase_pairwise_reduce_scatter): p-1 steps, step k sends to
 * r + k and receives from r - k, one-way except the step k = p/2 of an even
 * p, which exchanges with one peer; each step reduces one block. */
static inline double rabred_price_pairwise_reduce_scatter(const rabred_model_t *m, int p, double n)
{
    double block = n / p;
    double t = (p - 1) * (rabred_price_neighbour(m, p, block) + block * m->gamma);
    if (0 == p % 2) {
        t += rabred_price_exchange(m, block) - rabred_price_neighbour(m, p, block);
    }
    return t;
}

#endif /* RABRED_PRICE_H */
