/*
 * rabred compatibility header for Open MPI 5.0 (see compat/ompi5/README.md).
 *
 * opal/mca/threads/mutex.h and wait_sync.h build opal_mutex_t, opal_cond_t
 * and the request wait objects on an "internal" mutex and condition that
 * the threads implementation supplies.  With POSIX threads those are
 * pthread_mutex_t and pthread_cond_t: the types fix the layout of every
 * structure embedding them, so they must be exactly these.  The inline
 * operations below are what those headers call; rabred itself never locks.
 */
#ifndef RABRED_COMPAT_THREADS_PTHREADS_MUTEX_H
#define RABRED_COMPAT_THREADS_PTHREADS_MUTEX_H

#include <pthread.h>
#include <stdbool.h>

typedef pthread_mutex_t opal_thread_internal_mutex_t;
typedef pthread_cond_t opal_thread_internal_cond_t;

#define OPAL_THREAD_INTERNAL_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define OPAL_THREAD_INTERNAL_COND_INITIALIZER PTHREAD_COND_INITIALIZER
#if defined(PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP)
#    define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#endif

static inline int opal_thread_internal_mutex_init(opal_thread_internal_mutex_t *m, bool recursive)
{
    pthread_mutexattr_t attr;
    int rc = pthread_mutexattr_init(&attr);
    if (0 == rc && recursive) {
        rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    }
    if (0 == rc) {
        rc = pthread_mutex_init(m, &attr);
    }
    pthread_mutexattr_destroy(&attr);
    return 0 == rc ? 0 : -1; /* OPAL_SUCCESS, OPAL_ERROR */
}

static inline void opal_thread_internal_mutex_lock(opal_thread_internal_mutex_t *m)
{
    (void) pthread_mutex_lock(m);
}

/* 0 when taken, 1 when busy (the convention of opal_mutex_trylock) */
static inline int opal_thread_internal_mutex_trylock(opal_thread_internal_mutex_t *m)
{
    return 0 == pthread_mutex_trylock(m) ? 0 : 1;
}

static inline void opal_thread_internal_mutex_unlock(opal_thread_internal_mutex_t *m)
{
    (void) pthread_mutex_unlock(m);
}

static inline void opal_thread_internal_mutex_destroy(opal_thread_internal_mutex_t *m)
{
    (void) pthread_mutex_destroy(m);
}

static inline int opal_thread_internal_cond_init(opal_thread_internal_cond_t *c)
{
    return 0 == pthread_cond_init(c, NULL) ? 0 : -1;
}

static inline void opal_thread_internal_cond_wait(opal_thread_internal_cond_t *c,
                                                  opal_thread_internal_mutex_t *m)
{
    (void) pthread_cond_wait(c, m);
}

static inline void opal_thread_internal_cond_broadcast(opal_thread_internal_cond_t *c)
{
    (void) pthread_cond_broadcast(c);
}

static inline void opal_thread_internal_cond_signal(opal_thread_internal_cond_t *c)
{
    (void) pthread_cond_signal(c);
}

static inline void opal_thread_internal_cond_destroy(opal_thread_internal_cond_t *c)
{
    (void) pthread_cond_destroy(c);
}

#endif /* RABRED_COMPAT_THREADS_PTHREADS_MUTEX_H */
