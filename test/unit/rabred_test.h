/*
 * Minimal test harness for rabred's unit tests (no MPI).  Every CHECK is
 * counted; main() ends with rabred_test_summary(), which prints
 * "N passed, M failed" and returns the exit code.  Failures print where and
 * what, and at most RABRED_TEST_MAX_REPORTS of them, so one broken helper
 * does not flood the log.
 */
#ifndef RABRED_TEST_H
#define RABRED_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RABRED_TEST_MAX_REPORTS 50

static long rabred_test_passed, rabred_test_failed;

/* A cost model (rabred_model_t) of the classic terms alone; the structural
 * ones (sync, peer, rndv, duplex, aggregate) 0, i.e. off. */
#define RABRED_TEST_MODEL(a, b, g, fa, fb)                                              \
    {                                                                                   \
        .alpha = (a), .beta = (b), .gamma = (g), .f_alpha = (fa), .f_beta = (fb)        \
    }

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (cond) {                                                          \
            rabred_test_passed++;                                            \
        } else {                                                             \
            if (rabred_test_failed++ < RABRED_TEST_MAX_REPORTS) {            \
                fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
                fprintf(stderr, __VA_ARGS__);                                \
                fputc('\n', stderr);                                         \
            }                                                                \
        }                                                                    \
    } while (0)

/* Which p the simulator sweeps visit.  `make check` (the default test
 * command) proves every p up to 256 and a sample above it: each power of
 * two with its neighbours, the multiples of 97 and 1000 (odd factors,
 * non-powers of two with large remainders).  RABRED_TEST_SWEEP=full
 * (`make check-long`, scripts/run-tests.sh --long) proves every p up to
 * 1024: about 15 CPU minutes, as the O(p)-round plans cost O(p^2)
 * messages per p. */
#define RABRED_TEST_EVERY_P 256

static inline int rabred_test_full_sweep(void)
{
    const char *sweep = getenv("RABRED_TEST_SWEEP");
    return NULL != sweep && 0 == strcmp(sweep, "full");
}

/* A power of two or one of its neighbours (2^k - 1, 2^k + 1): where the
 * plans' folds and remainders change shape. */
static inline int rabred_test_near_pof2(int p)
{
    return p > 0 && (0 == (p & (p - 1)) || 0 == ((p - 1) & (p - 2)) || 0 == (p & (p + 1)));
}

static inline int rabred_test_sweeps_p(int p)
{
    if (p <= RABRED_TEST_EVERY_P || rabred_test_full_sweep()) {
        return 1;
    }
    return rabred_test_near_pof2(p) || p % 97 == 0 || p == 1000;
}

static inline const char *rabred_test_sweep_name(void)
{
    return rabred_test_full_sweep() ? "every p" : "sampled p";
}

static inline int rabred_test_summary(const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, rabred_test_passed, rabred_test_failed);
    return rabred_test_failed ? 1 : 0;
}

#endif /* RABRED_TEST_H */
