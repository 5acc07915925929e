/*
 * Unit tests of the segment/recursion toolkit (no MPI): the fold, block
 * ranges and the halving windows, for p = 1..1024 and counts up to 2^40.
 */
#include <stdint.h>
#include <stdlib.h>

#include "rabred_test.h"
#include "rabred_toolkit.h"

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

int main(void)
{
    test_pof2();
    test_fold();
    test_blocks();
    test_halving();
    return rabred_test_summary("test_toolkit");
}
