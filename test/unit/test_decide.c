/*
 * Unit tests of the selection layer (no MPI): over a grid of p, counts,
 * type sizes, commutativity and every forced value, the choice never
 * violates the chosen algorithm's restrictions, forced algorithms win when
 * allowed, fallbacks say so, and the thresholds cut where documented.
 */
#include <string.h>

#include "rabred_decide.h"
#include "rabred_test.h"
#include "rabred_toolkit.h"

static const rabred_thresholds_t defaults = {RABRED_DEFAULT_ALLREDUCE_SHORT_BYTES,
                                             RABRED_DEFAULT_REDUCE_SHORT_BYTES};

static void check_one(rabred_coll_t coll, const rabred_call_t *call, int64_t bytes, int forced)
{
    rabred_choice_t ch;
    rabred_decide(coll, call, bytes, forced, &defaults, &ch);
    const rabred_alg_t *want = rabred_table_by_id(coll, forced);
    if (NULL != ch.alg) {
        CHECK(NULL == rabred_alg_violation(ch.alg, call), "%s p=%d count=%lld comm=%d: %s chosen",
              rabred_coll_name(coll), call->p, (long long)call->count, call->commutative,
              ch.alg->name);
    }
    if (NULL != want && NULL == rabred_alg_violation(want, call)) {
        CHECK(ch.alg == want && RABRED_WHY_FORCED == ch.why, "forced %s ignored", want->name);
    } else if (NULL != want) {
        CHECK(RABRED_WHY_FALLBACK == ch.why && ch.alg != want && NULL != strstr(ch.reason, want->name),
              "forced %s not allowed but why=%s reason=%s", want->name, rabred_why_name(ch.why),
              ch.reason);
    } else if (RABRED_ALG_PREVIOUS == forced) {
        CHECK(NULL == ch.alg && RABRED_WHY_FORCED == ch.why, "previous not honoured");
    } else if (RABRED_ALG_AUTO == forced) {
        CHECK(NULL != ch.alg && RABRED_WHY_DECISION == ch.why, "auto gave no algorithm");
    } else {
        CHECK(RABRED_WHY_FALLBACK == ch.why, "unknown id %d not reported", forced);
    }
    CHECK(ch.reason[0] != '\0', "empty reason");
}

static void test_grid(void)
{
    int ps[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 100, 1024};
    int64_t counts[] = {0, 1, 3, 7, 8, 255, 256, 4096, 1 << 20};
    int sizes[] = {1, 4, 8, 16};
    int forced[] = {RABRED_ALG_AUTO, RABRED_ALG_PREVIOUS, 1, 2, 3, 4, 5, 99, -3};
    for (int coll = 0; coll < RABRED_NCOLLS; coll++)
        for (size_t a = 0; a < sizeof(ps) / sizeof(ps[0]); a++)
            for (size_t b = 0; b < sizeof(counts) / sizeof(counts[0]); b++)
                for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
                    for (int comm = 0; comm <= 1; comm++)
                        for (size_t f = 0; f < sizeof(forced) / sizeof(forced[0]); f++) {
                            rabred_call_t call = {ps[a], counts[b], comm};
                            check_one((rabred_coll_t)coll, &call, counts[b] * sizes[c], forced[f]);
                        }
}

static void test_thresholds(void)
{
    rabred_call_t call = {8, 1024, 1};
    rabred_choice_t ch;
    rabred_decide(RABRED_COLL_ALLREDUCE, &call, 2048, RABRED_ALG_AUTO, &defaults, &ch);
    CHECK(0 == strcmp(ch.alg->name, "recursive_doubling"), "2048 B: %s", ch.alg->name);
    rabred_decide(RABRED_COLL_ALLREDUCE, &call, 2049, RABRED_ALG_AUTO, &defaults, &ch);
    CHECK(0 == strcmp(ch.alg->name, "rabenseifner"), "2049 B: %s", ch.alg->name);
    rabred_decide(RABRED_COLL_REDUCE, &call, 1 << 20, RABRED_ALG_AUTO, &defaults, &ch);
    CHECK(0 == strcmp(ch.alg->name, "rabenseifner"), "1 MiB reduce: %s", ch.alg->name);
    call.count = 7; /* < p': rabenseifner refused even for a long type */
    rabred_decide(RABRED_COLL_REDUCE, &call, 7 << 20, RABRED_ALG_AUTO, &defaults, &ch);
    CHECK(0 == strcmp(ch.alg->name, "binomial"), "count < p': %s", ch.alg->name);
}

int main(void)
{
    test_grid();
    test_thresholds();
    return rabred_test_summary("test_decide");
}
