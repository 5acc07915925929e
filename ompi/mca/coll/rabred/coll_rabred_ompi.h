/*
 * The one place where rabred differs between Open MPI 4.1 and 5.0.
 *
 * The coll interface changed little between the two (docs/development.md, "Open MPI
 * 4.1 and 5.0"): the component version (coll API 2.0.0 in 4.1, 2.4.0 in
 * 5.0; 5.0's loader refuses anything else, silently), the runtime header
 * that defines OMPI_PROC_MY_NAME, and MPI_Info values (a caller's buffer
 * in 4.1, a reference-counted opal_cstring_t in 5.0; info subscriber
 * callbacks take const strings in 5.0), and where the mutex header lives.  The version comes from Open MPI's
 * own headers (OMPI_MAJOR_VERSION), so one source builds against either;
 * configure accepts only 4.1.x and 5.0.x.  Everything else in rabred is
 * written once against what both versions share: comm_query,
 * enable/disable, `int count` collectives, and selection that hands the
 * previous component's function pointers to module_enable.
 */
#ifndef MCA_COLL_RABRED_OMPI_H
#define MCA_COLL_RABRED_OMPI_H

#include "ompi_config.h"

#include <string.h>

#include "ompi/mca/coll/coll.h"
#include "opal/util/info.h"
#include "opal/util/info_subscriber.h"

#if OMPI_MAJOR_VERSION == 5
#    include "ompi/runtime/ompi_rte.h"
#    include "opal/mca/threads/mutex.h"
#    define RABRED_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
typedef mca_coll_base_component_2_4_0_t rabred_coll_base_component_t;
/* the value type of an info subscriber's callback */
#    define RABRED_INFO_CB_CONST const
/* how the component structure, Open MPI's entry point, is exported */
#    define RABRED_COMPONENT_DECLSPEC OMPI_DECLSPEC
#elif OMPI_MAJOR_VERSION == 4
#    include "ompi/mca/rte/rte.h"
#    include "opal/threads/mutex.h"
#    define RABRED_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
typedef mca_coll_base_component_2_0_0_t rabred_coll_base_component_t;
#    define RABRED_INFO_CB_CONST
#    define RABRED_COMPONENT_DECLSPEC OMPI_MODULE_DECLSPEC
#else
#    error "rabred supports Open MPI 4.1.x and 5.0.x (configure checks this)"
#endif

/* The rank of this process in the job, for messages. */
static inline unsigned rabred_ompi_my_vpid(void)
{
    return (unsigned) OMPI_PROC_MY_NAME->vpid;
}

/* info's value of `key` into value[0 .. len] (NUL-terminated, cut to len
 * characters); *flag 1 when the key is set. */
static inline int rabred_ompi_info_get(opal_info_t *info, const char *key, char *value, int len,
                                       int *flag)
{
#if OMPI_MAJOR_VERSION == 5
    opal_cstring_t *s = NULL;
    *flag = 0;
    int rc = opal_info_get(info, key, &s, flag);
    if (OPAL_SUCCESS == rc && *flag && NULL != s) {
        strncpy(value, s->string, (size_t) len);
        value[len] = '\0';
    }
    if (NULL != s) {
        OBJ_RELEASE(s);
    }
    return rc;
#else
    return opal_info_get(info, key, len, value, flag);
#endif
}

#endif /* MCA_COLL_RABRED_OMPI_H */
