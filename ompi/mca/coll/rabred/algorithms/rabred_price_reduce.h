/*
 * What the closed-form prices of reduce's rabenseifner and binary_blocks
 * share (rabred_price.h): both cut the vector on a grid of G = 2^L blocks,
 * halve windows of it among a team (rabred_phase_reduce_scatter) and gather
 * them to the root by a binomial tree (rabred_phase_gather).  Everything
 * here follows the simulator's rules (sim/rabred_sim.h) exactly, for every
 * count: the uneven blocks of rabred_block_length and the messages that
 * empty windows drop included:
 *  - the halving's time at a team position in O(1), from one table per
 *    call of O(L) entries (rabred_halving_price_t), for members that start
 *    together;
 *  - the gather as one walk of its tree, O(team size) in all
 *    (rabred_gather_price).
 * Pure C, no MPI, no allocation.
 */
#ifndef RABRED_PRICE_REDUCE_H
#define RABRED_PRICE_REDUCE_H

#include <stdint.h>

#include "algorithms/rabred_price.h"

/* n bytes on G grid blocks: q each, the first e one more. */
typedef struct {
    int64_t q, e;
} rabred_grid_t;

static inline rabred_grid_t rabred_grid(int64_t n, int64_t blocks)
{
    rabred_grid_t g = {n / blocks, n % blocks};
    return g;
}

/* Bytes of the grid blocks [first, first + nblocks). */
static inline double rabred_grid_len(const rabred_grid_t *g, int64_t first, int64_t nblocks)
{
    int64_t extra = g->e - first;
    extra = extra < 0 ? 0 : extra > nblocks ? nblocks : extra;
    return (double)(nblocks * g->q + extra);
}

/* A round in which two peers send each other a and b bytes: an exchange
 * when both are there, one-way when only one is (the simulator drops
 * empty messages, and a send is one-way when nothing comes back from that
 * peer), nothing when neither is.  Not a rank's last round: its sends are
 * done when their messages are (rabred_price_released). */
static inline double rabred_price_swap(const rabred_model_t *m, double a, double b)
{
    double most = a > b ? a : b;
    if (a > 0 && b > 0) {
        return rabred_price_exchange(m, most);
    }
    return most > 0 ? rabred_price_one_way(m, most) : 0.0;
}

/* The bits of v: 1 + the index of its highest set bit, 0 for v = 0 (a
 * GCC/Clang builtin, O(1): evaluated once per rank). */
static inline int rabred_price_bits(unsigned v)
{
    return 0 == v ? 0 : 32 - __builtin_clz(v);
}

/* Recursive halving on the grid (rabred_phase_reduce_scatter with the
 * team's windows on the grid, rabred_team_t): before step k a member holds
 * the aligned window of G / 2^k blocks around its final window, exchanges
 * halves with its partner (both messages at once: the larger half's time),
 * and reduces the half it keeps.  Every member starts at the same time and
 * partners hold the same window, so a member's time is the sum of its
 * steps' terms.  Blocks < e are one byte longer, so windows clear of grid
 * block e are uniform; the table follows e's chain of windows: a member's
 * terms are e's down to the step where its window leaves e's, that step's
 * with the other half, then uniform ones on its side of e. */
typedef struct {
    const rabred_model_t *m;
    rabred_grid_t grid;
    int levels;      /* L = lg G */
    double pre[32];  /* sum of the terms of e's chain before step k */
    double away[32]; /* step k's term for the half without e's block */
    double tail[2][33]; /* sum of uniform terms from step k on, [0] short, [1] long */
} rabred_halving_price_t;

/* One step's term: the exchange of a window's halves of lo and hi bytes,
 * and the reduction of the half kept. */
static inline double rabred_halving_term(const rabred_model_t *m, double lo, double hi, double kept)
{
    return rabred_price_swap(m, lo, hi) + kept * m->gamma;
}

static inline void rabred_halving_price_init(rabred_halving_price_t *h, const rabred_model_t *m,
                                             int64_t n, int levels)
{
    int64_t G = (int64_t)1 << levels;
    h->m = m;
    h->grid = rabred_grid(n, G);
    h->levels = levels;
    h->pre[0] = 0.0;
    h->tail[0][levels] = h->tail[1][levels] = 0.0;
    for (int k = 0; k < levels; k++) {
        int64_t half = G >> (k + 1), first = h->grid.e / (2 * half) * (2 * half);
        double lo = rabred_grid_len(&h->grid, first, half);
        double hi = rabred_grid_len(&h->grid, first + half, half);
        int upper = h->grid.e - first >= half; /* e's block in the upper half */
        h->pre[k + 1] = h->pre[k] + rabred_halving_term(m, lo, hi, upper ? hi : lo);
        h->away[k] = rabred_halving_term(m, lo, hi, upper ? lo : hi);
    }
    for (int k = levels - 1; k >= 0; k--) {
        for (int side = 0; side < 2; side++) {
            double len = (double)((G >> (k + 1)) * (h->grid.q + side));
            h->tail[side][k] = h->tail[side][k + 1] + rabred_halving_term(m, len, len, len);
        }
    }
}

/* The halving's time for the member of a team of 2^steps (steps <= L)
 * whose final window starts at grid block `first` (G / 2^steps blocks): the
 * sum of its steps' terms. */
static inline double rabred_halving_time(const rabred_halving_price_t *h, int64_t first, int steps)
{
    int64_t e = h->grid.e;
    int d = h->levels - rabred_price_bits((unsigned)(first ^ e)); /* steps on e's chain */
    if (d >= steps) {
        return h->pre[steps];
    }
    int side = first < e; /* 1: long blocks */
    return h->pre[d] + h->away[d] + h->tail[side][d + 1] - h->tail[side][steps];
}

/* The binomial gather of a grid of 2^L team positions (rabred_phase_gather,
 * one position per grid block) to the member at root_pos.  In positions
 * relative to the root (pos ^ root_pos), the member at a sends once, at the
 * step of a's lowest set bit 2^h, to a - 2^h, after taking its own children
 * a + 2^t, t = 0..h-1, one a round, in that order; so one depth-first walk
 * visits every member once.  A receiver posts its first receive when its
 * last round's messages are done (`done`: the receive touches nothing that
 * round reduces), each later one when the message before is in and its own
 * reductions are over (`cpu`); a sender posts its send at `cpu`.  A message
 * starts when both have posted (ports are free: each moves one at a time)
 * and is one-way; its sender leaves when its send buffer holds the rest
 * (rabred_price_released); an empty one is dropped, and the round is then
 * instant.
 * `state` gives a member's done and cpu by its position. */
typedef struct rabred_gather_price {
    const rabred_model_t *m;
    const rabred_grid_t *grid;
    int root_pos;
    void (*state)(const struct rabred_gather_price *g, int pos, double *done, double *cpu);
    const void *ctx; /* the caller's, for state() */
    double sum;      /* the finish times of the members that sent */
} rabred_gather_price_t;

/* The member at relative position a, lowest set bit 2^h (h = L at the
 * root): returns when it posts its send (at the root: when it is done). */
static inline double rabred_gather_price(rabred_gather_price_t *g, int a, int h)
{
    double done, cpu;
    g->state(g, a ^ g->root_pos, &done, &cpu);
    double post = h > 0 ? done : cpu;
    for (int t = 0; t < h; t++) {
        int child = a + (1 << t);
        double ready = rabred_gather_price(g, child, t);
        double len = rabred_grid_len(g->grid, (int64_t)(((child ^ g->root_pos) >> t) << t),
                                     (int64_t)1 << t);
        double matched = ready > post ? ready : post;
        double end = len > 0 ? matched + rabred_price_one_way(g->m, len) : post;
        g->sum += len > 0 ? rabred_price_released(g->m, matched, end) : ready;
        post = end > cpu ? end : cpu;
    }
    return post;
}

#endif /* RABRED_PRICE_REDUCE_H */
