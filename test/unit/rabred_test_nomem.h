/*
 * Out-of-memory injection for unit tests (no MPI): include in exactly one
 * file of a test program.  The program then has its own malloc, calloc
 * and realloc, which glibc lets an executable define; they pass every
 * call to glibc's (__libc_malloc and friends) except the one allocation
 * rabred_nomem_arm(n) picks, the n-th from then on (0: the next), which
 * returns NULL.  rabred_nomem_fired says whether it came.  A test arms
 * n = 0, 1, 2, ... until an operation completes without the failure
 * firing: every allocation it makes has then failed once.
 */
#ifndef RABRED_TEST_NOMEM_H
#define RABRED_TEST_NOMEM_H

#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);

static long rabred_nomem_countdown = -1; /* < 0: no failure armed */
static int rabred_nomem_fired;

static void rabred_nomem_arm(long n)
{
    rabred_nomem_countdown = n;
    rabred_nomem_fired = 0;
}

static void rabred_nomem_disarm(void) { rabred_nomem_countdown = -1; }

static int rabred_nomem_now(void)
{
    if (rabred_nomem_countdown < 0 || rabred_nomem_countdown-- > 0) {
        return 0;
    }
    rabred_nomem_fired = 1; /* countdown is now -1: one failure only */
    return 1;
}

void *malloc(size_t size) { return rabred_nomem_now() ? NULL : __libc_malloc(size); }
void *calloc(size_t n, size_t size) { return rabred_nomem_now() ? NULL : __libc_calloc(n, size); }
void *realloc(void *ptr, size_t size)
{
    return rabred_nomem_now() ? NULL : __libc_realloc(ptr, size);
}

#endif /* RABRED_TEST_NOMEM_H */
