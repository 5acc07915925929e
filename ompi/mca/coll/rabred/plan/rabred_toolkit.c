/*
 * rabred segment/recursion toolkit: see rabred_toolkit.h for the
 * conventions.  Everything here is O(lg p) or O(1) and allocation-free,
 * except the arrival order: O(p lg p), still allocation-free.
 */
#include "plan/rabred_toolkit.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

int rabred_pof2_floor(int n)
{
    int pof2 = 1;
    while (pof2 <= n / 2) {
        pof2 <<= 1;
    }
    return pof2;
}

int rabred_log2_floor(int n)
{
    int lg = 0;
    while ((1 << (lg + 1)) <= n && lg < 30) {
        lg++;
    }
    return lg;
}

int rabred_log2_ceil(int n)
{
    int lg = 0;
    while ((1 << lg) < n && lg < 30) {
        lg++;
    }
    return lg;
}

int rabred_bit_reverse(int v, int bits)
{
    int r = 0;
    for (int b = 0; b < bits; b++) {
        r = (r << 1) | ((v >> b) & 1);
    }
    return r;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double rabred_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void rabred_fold_init(rabred_fold_t *fold, int p, int rank, int keep)
{
    fold->p = p;
    fold->pof2 = rabred_pof2_floor(p);
    fold->lg_pof2 = rabred_log2_floor(p);
    fold->rem = p - fold->pof2;
    /* a keep request only matters for a rank inside the pairs */
    fold->keep = (keep >= 0 && keep < 2 * fold->rem) ? keep : -1;
    fold->rank = rank;
    fold->vrank = rabred_fold_vrank_of(fold, rank);
    if (rank >= 2 * fold->rem) {
        fold->kind = RABRED_NODE_BASE;
        fold->partner = -1;
    } else {
        fold->kind = fold->vrank >= 0 ? RABRED_NODE_PROXY : RABRED_NODE_EXTRA;
        fold->partner = rank ^ 1;
    }
}

int rabred_fold_real_rank(const rabred_fold_t *fold, int vrank)
{
    if (vrank >= fold->rem) {
        return vrank + fold->rem;
    }
    int even = 2 * vrank;
    return (fold->keep >= 0 && fold->keep / 2 == vrank) ? fold->keep : even;
}

int rabred_fold_vrank_of(const rabred_fold_t *fold, int rank)
{
    if (rank >= 2 * fold->rem) {
        return rank - fold->rem;
    }
    int pair = rank / 2;
    return rabred_fold_real_rank(fold, pair) == rank ? pair : -1;
}

int64_t rabred_block_offset(int64_t count, int nblocks, int i)
{
    int64_t base = count / nblocks, extra = count % nblocks;
    return (int64_t)i * base + (i < extra ? i : extra);
}

int64_t rabred_block_length(int64_t count, int nblocks, int i)
{
    int64_t base = count / nblocks, extra = count % nblocks;
    return base + (i < extra ? 1 : 0);
}

int64_t rabred_window_offset(int64_t count, int total, rabred_window_t w)
{
    return rabred_block_offset(count, total, w.first);
}

int64_t rabred_window_length(int64_t count, int total, rabred_window_t w)
{
    return rabred_block_offset(count, total, w.first + w.nblocks) -
           rabred_block_offset(count, total, w.first);
}

rabred_window_t rabred_window_lower(rabred_window_t w)
{
    rabred_window_t half = {w.first, w.nblocks / 2};
    return half;
}

rabred_window_t rabred_window_upper(rabred_window_t w)
{
    rabred_window_t half = {w.first + w.nblocks / 2, w.nblocks / 2};
    return half;
}

void rabred_halving_init(rabred_halving_t *h, int pof2, int vrank)
{
    rabred_window_t w = {0, pof2};
    h->steps = rabred_log2_floor(pof2);
    for (int s = 0; s < h->steps; s++) {
        int peer = vrank ^ (1 << s);
        int keep_lower = vrank < peer;
        h->before[s] = w;
        h->after[s] = keep_lower ? rabred_window_lower(w) : rabred_window_upper(w);
        h->given[s] = keep_lower ? rabred_window_upper(w) : rabred_window_lower(w);
        w = h->after[s];
    }
}

void rabred_bintree_init(rabred_bintree_t *node, int p, int t)
{
    int lo = 0, size = p, parent = -1;
    while (lo != t) { /* descend from the root to the subtree holding t */
        int first = size / 2; /* ceil((size - 1) / 2) nodes in the first subtree */
        parent = lo;
        if (t < lo + 1 + first) {
            lo = lo + 1;
            size = first;
        } else {
            lo = lo + 1 + first;
            size = size - 1 - first;
        }
    }
    int first = size / 2; /* ceil((size - 1) / 2) */
    node->parent = parent;
    node->child[0] = first > 0 ? t + 1 : -1;
    node->child[1] = size - 1 - first > 0 ? t + 1 + first : -1;
}

void rabred_blocks_init(rabred_blocks_t *b, int p, int rank)
{
    int base = 0;
    b->count = 0;
    b->block = b->member = -1;
    for (int bit = 30; bit >= 0; bit--) {
        if (p & (1 << bit)) {
            b->base[b->count] = base;
            b->size[b->count] = 1 << bit;
            if (rank >= base && rank < base + (1 << bit)) {
                b->block = b->count;
                b->member = rank - base;
            }
            base += 1 << bit;
            b->count++;
        }
    }
}

int rabred_blocks_owner(const rabred_blocks_t *b, int block, int g)
{
    int s = b->size[block];
    return rabred_bit_reverse(g / (b->size[0] / s), rabred_log2_floor(s));
}

int rabred_blocks_first(const rabred_blocks_t *b, int block, int member)
{
    int s = b->size[block];
    return rabred_bit_reverse(member, rabred_log2_floor(s)) * (b->size[0] / s);
}

double rabred_arrival_clean(double v)
{
    return isfinite(v) && v > 0.0 ? v : 0.0;
}

/* Does rank x come after rank y in arrival order? */
static int arrives_after(const double *offset, int x, int y)
{
    double ox = NULL != offset ? rabred_arrival_clean(offset[x]) : 0.0;
    double oy = NULL != offset ? rabred_arrival_clean(offset[y]) : 0.0;
    return ox > oy || (ox == oy && x > y);
}

/* Move order[i] down the max-heap order[0..n) to its place. */
static void sift_down(const double *offset, int *order, int i, int n)
{
    for (int child = 2 * i + 1; child < n; i = child, child = 2 * i + 1) {
        if (child + 1 < n && arrives_after(offset, order[child + 1], order[child])) {
            child++;
        }
        if (!arrives_after(offset, order[child], order[i])) {
            return;
        }
        int t = order[i];
        order[i] = order[child];
        order[child] = t;
    }
}

void rabred_arrival_order(int p, const double *offset, int *order)
{
    for (int q = 0; q < p; q++) {
        order[q] = q;
    }
    if (NULL == offset) {
        return;
    }
    for (int i = p / 2 - 1; i >= 0; i--) {
        sift_down(offset, order, i, p);
    }
    for (int n = p - 1; n > 0; n--) { /* the latest of order[0..n] goes to n */
        int t = order[0];
        order[0] = order[n];
        order[n] = t;
        sift_down(offset, order, 0, n);
    }
}
