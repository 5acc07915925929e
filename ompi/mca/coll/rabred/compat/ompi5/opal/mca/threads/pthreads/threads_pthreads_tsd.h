/*
 * rabred compatibility header for Open MPI 5.0 (see compat/ompi5/README.md).
 * opal/mca/threads/tsd.h wants the key type and the three accessors of
 * thread-specific data; with POSIX threads they are pthread's own.
 */
#ifndef RABRED_COMPAT_THREADS_PTHREADS_TSD_H
#define RABRED_COMPAT_THREADS_PTHREADS_TSD_H

#include <pthread.h>

typedef pthread_key_t opal_tsd_key_t;

static inline int opal_tsd_key_delete(opal_tsd_key_t key)
{
    return pthread_key_delete(key);
}

static inline int opal_tsd_setspecific(opal_tsd_key_t key, void *value)
{
    return pthread_setspecific(key, value);
}

static inline int opal_tsd_getspecific(opal_tsd_key_t key, void **valuep)
{
    *valuep = pthread_getspecific(key);
    return 0; /* OPAL_SUCCESS */
}

#endif /* RABRED_COMPAT_THREADS_PTHREADS_TSD_H */
