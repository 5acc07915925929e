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

static inline int rabred_test_summary(const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, rabred_test_passed, rabred_test_failed);
    return rabred_test_failed ? 1 : 0;
}

#endif /* RABRED_TEST_H */
