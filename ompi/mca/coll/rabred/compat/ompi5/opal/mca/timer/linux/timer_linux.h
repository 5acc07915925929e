/*
 * rabred compatibility header for Open MPI 5.0 (see compat/ompi5/README.md).
 * The timer framework's Linux implementation: the library exports the
 * cycle and microsecond clocks as function pointers (set when the timer
 * framework opens) and the frequency as a function.  Declared here as the
 * library defines them, so a header that reads a timer calls Open MPI's.
 */
#ifndef RABRED_COMPAT_TIMER_LINUX_H
#define RABRED_COMPAT_TIMER_LINUX_H

#include "opal_config.h"
#include "opal/sys/timer.h"

BEGIN_C_DECLS

OPAL_DECLSPEC extern opal_timer_t (*opal_timer_base_get_cycles)(void);
OPAL_DECLSPEC extern opal_timer_t (*opal_timer_base_get_usec)(void);
OPAL_DECLSPEC opal_timer_t opal_timer_base_get_freq(void);

END_C_DECLS

#endif /* RABRED_COMPAT_TIMER_LINUX_H */
