/*
 * A communicator's set-up: the one exchange rabred needs before its first
 * choice on it, run at the first MPI_Allreduce, MPI_Reduce, MPI_Iallreduce
 * or MPI_Ireduce that reaches rabred (every rank's first is the same call:
 * MPI orders collectives on a communicator alike on every rank).
 *
 * One allreduce with MAX over a vector of 64-bit words answers both
 * questions: the settings check's four digests (coll_rabred_agree.c) and,
 * when some rank has a peer on another node, the node labels, two slots
 * per rank: its node, its socket and NUMA domain (coll_rabred_nodes.c).  Its length depends only on what every
 * rank sees alike (the communicator's size, and whether any rank is off
 * node), never on the settings being checked, so ranks that disagree still
 * exchange matching messages.
 *
 * Blocking calls run the exchange through the executor
 * (mca_coll_rabred_settings_check); a nonblocking call runs it as the
 * first stage of its request (coll_rabred_nbc.c), so MPI_Iallreduce never
 * waits for a peer that has not reached it yet.
 */
#include "coll_rabred.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"

int mca_coll_rabred_setup_begin(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                                mca_coll_rabred_setup_t *s)
{
    int p = ompi_comm_size(comm);
    s->count = RABRED_AGREE_DIGESTS +
               (mca_coll_rabred_node_labels_needed(comm) ? RABRED_NODE_LABEL_WORDS * p : 0);
    s->vec = malloc(2 * (size_t)s->count * sizeof(uint64_t));
    if (NULL == s->vec) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    s->tmp = s->vec + s->count;
    mca_coll_rabred_agree_digests(m, s->vec);
    if (s->count > RABRED_AGREE_DIGESTS) {
        mca_coll_rabred_node_labels_fill(comm, s->vec + RABRED_AGREE_DIGESTS);
    }
    return OMPI_SUCCESS;
}

int mca_coll_rabred_setup_end(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                              mca_coll_rabred_setup_t *s)
{
    mca_coll_rabred_agree_judge(m, comm, s->vec);
    int rc = OMPI_SUCCESS;
    if (RABRED_SETTINGS_AGREE == m->agreement) {
        rc = mca_coll_rabred_node_map(m, comm, s->count > RABRED_AGREE_DIGESTS
                                                   ? s->vec + RABRED_AGREE_DIGESTS
                                                   : NULL);
        if (OMPI_SUCCESS != rc) {
            m->agreement = RABRED_SETTINGS_UNCHECKED; /* the next call tries again */
        }
    }
    mca_coll_rabred_setup_free(s);
    return rc;
}

void mca_coll_rabred_setup_free(mca_coll_rabred_setup_t *s)
{
    free(s->vec);
    s->vec = s->tmp = NULL;
}

int mca_coll_rabred_settings_check(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm)
{
    mca_coll_rabred_setup_t s;
    int rc = mca_coll_rabred_setup_begin(m, comm, &s);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (ompi_comm_size(comm) > 1) {
        rc = mca_coll_rabred_allreduce_max(m, s.vec, s.tmp, s.count, &ompi_mpi_uint64_t.dt,
                                           comm);
    }
    if (OMPI_SUCCESS != rc) {
        mca_coll_rabred_setup_free(&s);
        return rc; /* unchecked still: the next call tries again */
    }
    return mca_coll_rabred_setup_end(m, comm, &s);
}
