/*
 * Unit tests of the segment/recursion toolkit (no MPI): the fold, block
 * ranges and the halving windows, for p = 1..1024 and counts up to 2^40,
 * and the arrival order.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <string.h>

#include "algorithms/rabred_table.h"
#include "rabred_test.h"
#include "plan/rabred_toolkit.h"

static void test_pof2(void)
{
    for (int n = 1; n <= 4096; n++) {
        int pof2 = rabred_pof2_floor(n), lg = rabred_log2_floor(n), lgc = rabred_log2_ceil(n);
        CHECK(pof2 <= n && 2 * pof2 > n && (1 << lg) == pof2, "n=%d pof2=%d lg=%d", n, pof2, lg);
        CHECK((1 << lgc) >= n && (lgc == 0 || (1 << (lgc - 1)) < n), "n=%d lgc=%d", n, lgc);
    }
    CHECK(rabred_bit_reverse(1, 3) == 4 && rabred_bit_reverse(6, 3) == 3, "bit reverse");
}

/* Every virtual rank has exactly one real rank, groups ascend, and a kept
 * rank inside the pairs is the proxy of its pair. */
static void check_fold(int p, int keep)
{
    rabred_fold_t f;
    rabred_fold_init(&f, p, 0, keep);
    int prev_real = -1, proxies = 0, extras = 0, bad = 0;
    for (int v = 0; v < f.pof2; v++) {
        int real = rabred_fold_real_rank(&f, v);
        rabred_fold_t g;
        rabred_fold_init(&g, p, real, keep);
        bad += real <= prev_real || g.vrank != v || g.kind == RABRED_NODE_EXTRA;
        prev_real = real;
    }
    for (int r = 0; r < p; r++) {
        rabred_fold_t g;
        rabred_fold_init(&g, p, r, keep);
        proxies += g.kind == RABRED_NODE_PROXY;
        extras += g.kind == RABRED_NODE_EXTRA;
        bad += g.kind != RABRED_NODE_BASE && (g.partner != (r ^ 1) || r >= 2 * g.rem);
        bad += g.kind == RABRED_NODE_EXTRA && g.vrank != -1;
    }
    CHECK(!bad && proxies == f.rem && extras == f.rem && f.pof2 + f.rem == p,
          "p=%d keep=%d bad=%d", p, keep, bad);
    if (keep >= 0) {
        rabred_fold_t k;
        rabred_fold_init(&k, p, keep, keep);
        CHECK(k.kind != RABRED_NODE_EXTRA, "p=%d: kept rank %d was removed", p, keep);
    }
}

static void test_fold(void)
{
    for (int p = 1; p <= 1024; p++) {
        check_fold(p, -1);
        check_fold(p, p - 1);
        check_fold(p, 1 % p);
        check_fold(p, p / 2);
    }
}

static void test_blocks(void)
{
    int64_t counts[] = {0, 1, 7, 1000, 1023, 1024, 1025, (int64_t)1 << 31, ((int64_t)1 << 40) + 3};
    int nblocks[] = {1, 2, 3, 5, 8, 13, 64, 1000, 1024};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        for (size_t b = 0; b < sizeof(nblocks) / sizeof(nblocks[0]); b++) {
            int64_t n = counts[c], next = 0, minlen = INT64_MAX, maxlen = 0;
            int nb = nblocks[b], bad = 0;
            for (int i = 0; i < nb; i++) {
                int64_t off = rabred_block_offset(n, nb, i), len = rabred_block_length(n, nb, i);
                bad += off != next || len < 0;
                next = off + len;
                minlen = len < minlen ? len : minlen;
                maxlen = len > maxlen ? len : maxlen;
            }
            CHECK(!bad && next == n && maxlen - minlen <= 1 &&
                      rabred_block_offset(n, nb, nb) == n,
                  "count=%lld nblocks=%d", (long long)n, nb);
        }
    }
}

/* Windows halve into disjoint halves; after lg p' steps vrank v holds the
 * single block bit_reverse(v); and all final blocks are distinct. */
static void test_halving(void)
{
    for (int pof2 = 1; pof2 <= 1024; pof2 *= 2) {
        int lg = rabred_log2_floor(pof2), bad = 0;
        char *seen = calloc((size_t)pof2, 1);
        for (int v = 0; v < pof2; v++) {
            rabred_halving_t h;
            rabred_halving_init(&h, pof2, v);
            rabred_window_t w = {0, pof2};
            for (int s = 0; s < h.steps; s++) {
                bad += h.before[s].first != w.first || h.before[s].nblocks != w.nblocks;
                bad += h.after[s].nblocks * 2 != w.nblocks || h.given[s].nblocks * 2 != w.nblocks;
                bad += h.after[s].first == h.given[s].first;
                w = h.after[s];
            }
            bad += h.steps != lg || w.nblocks != 1 || w.first != rabred_bit_reverse(v, lg);
            bad += seen[w.first]++;
        }
        free(seen);
        CHECK(!bad, "pof2=%d bad=%d", pof2, bad);
    }
}

/* order[] is a permutation of 0..p-1 sorted by (cleaned offset, rank). */
static int arrival_sorted(int p, const double *offset, const int *order)
{
    char *seen = calloc((size_t)p, 1);
    int bad = NULL == seen;
    for (int q = 0; q < p && !bad; q++) {
        bad += order[q] < 0 || order[q] >= p || seen[order[q]]++;
        if (q > 0 && !bad) {
            double a = rabred_arrival_clean(offset[order[q - 1]]);
            double b = rabred_arrival_clean(offset[order[q]]);
            bad += a > b || (a == b && order[q - 1] > order[q]);
        }
    }
    free(seen);
    return !bad;
}

static void test_arrival_order(void)
{
    int order[1024];
    double offset[1024];
    uint64_t x = 12345;
    rabred_arrival_order(5, NULL, order);
    CHECK(0 == order[0] && 4 == order[4], "no offsets: rank order");
    for (int p = 1; p <= 1024; p = p < 40 ? p + 1 : 2 * p + 1) {
        for (int i = 0; i < p; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            int kind = (int)(x >> 60) % 8;
            /* few distinct values (ties), NaN, infinities, negatives, -0 */
            offset[i] = kind < 4 ? (double)((x >> 33) % 7) : kind == 4 ? NAN
                      : kind == 5 ? -INFINITY : kind == 6 ? -1.5 : (x >> 40) * 1e300;
        }
        rabred_arrival_order(p, offset, order);
        CHECK(arrival_sorted(p, offset, order), "p=%d: not sorted by (offset, rank)", p);
    }
    double ties[4] = {1.0, 0.0, 1.0, 0.0}, bad[4] = {NAN, 2.0, -3.0, INFINITY};
    rabred_arrival_order(4, ties, order);
    CHECK(1 == order[0] && 3 == order[1] && 0 == order[2] && 2 == order[3], "ties by rank");
    rabred_arrival_order(4, bad, order); /* 0, 0, 2, 0 after cleaning */
    CHECK(0 == order[0] && 2 == order[1] && 3 == order[2] && 1 == order[3], "bad values as 0");
}

/* The table lists each collective's algorithms in id order from 1, so an
 * id is an index (rabred_table_by_id, counter slots, price books); names
 * and aliases are unique within a collective, and lookups by name or
 * alias find the descriptor itself. */
static void test_table(void)
{
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        int n = rabred_table_size(coll);
        CHECK(n >= 1 && n <= RABRED_TABLE_MAX, "%s: %d algorithms", rabred_coll_name(coll), n);
        for (int i = 0; i < n; i++) {
            const rabred_alg_t *alg = rabred_table_at(coll, i);
            CHECK(alg->id == i + 1 && (int)alg->coll == coll && rabred_table_by_id(coll, i + 1) == alg,
                  "%s entry %d: id %d", rabred_coll_name(coll), i, alg->id);
            CHECK(rabred_table_by_name(coll, alg->name) == alg, "%s by name", alg->name);
            CHECK(NULL == alg->alias || rabred_table_by_name(coll, alg->alias) == alg,
                  "%s by alias %s", alg->name, alg->alias);
            for (int j = 0; j < i; j++) {
                const rabred_alg_t *other = rabred_table_at(coll, j);
                CHECK(0 != strcmp(other->name, alg->name) &&
                          (NULL == alg->alias || 0 != strcmp(other->name, alg->alias)) &&
                          (NULL == other->alias || 0 != strcmp(other->alias, alg->name)),
                      "%s and %s share a name", other->name, alg->name);
            }
            CHECK(alg->arrival_aware || alg->node_aware || NULL != alg->price,
                  "%s %s: a balanced algorithm without a closed-form price",
                  rabred_coll_name(coll), alg->name);
        }
    }
}

int main(void)
{
    test_table();
    test_pof2();
    test_arrival_order();
    test_fold();
    test_blocks();
    test_halving();
    return rabred_test_summary("test_toolkit");
}
