/*
 * rabred compatibility header for Open MPI 5.0 (see compat/ompi5/README.md).
 * opal/mca/threads/threads.h embeds a pthread_t in struct opal_thread_t
 * and declares opal_thread_yield() as an inline that this header must
 * define: the library yields through a function pointer it chooses at
 * start-up (sched_yield or a nanosleep, by opal_threads_pthreads_yield
 * _strategy), and exports it, so the inline calls the library's choice.
 */
#ifndef RABRED_COMPAT_THREADS_PTHREADS_THREADS_H
#define RABRED_COMPAT_THREADS_PTHREADS_THREADS_H

#include <pthread.h>
#include <signal.h>

OPAL_DECLSPEC extern void (*opal_threads_pthreads_yield_fn)(void);

static inline void opal_thread_yield(void)
{
    opal_threads_pthreads_yield_fn();
}

#endif /* RABRED_COMPAT_THREADS_PTHREADS_THREADS_H */
