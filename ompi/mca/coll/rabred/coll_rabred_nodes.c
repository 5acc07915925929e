/*
 * Which ranks of a communicator share a node (the node-aware algorithms'
 * input, rabred_nodes_t), learned once, at the communicator's first
 * MPI_Allreduce or MPI_Reduce that reaches rabred (after the settings
 * check, coll_rabred_agree.c).
 *
 * From the runtime: Open MPI marks every peer process that runs on this
 * rank's node (OPAL_PROC_ON_LOCAL_NODE, what its shared-memory transport
 * uses).  Each rank names its node by the lowest rank of the communicator
 * on it, and one allreduce (MAX of a p-vector where each rank fills its
 * own slot; part of the communicator's set-up exchange,
 * coll_rabred_setup.c) gives every rank the same map.  The exchange matters: host names are no substitute, since a
 * process's own name and the name its peers see for it can differ (the
 * emulated cluster: the host's name against its hostfile address), and
 * ranks that build plans from different maps exchange mismatched blocks.
 * When no rank has a peer off its node (ompi_group_have_remote_peers is
 * the same on every rank then), there is one node and nothing to exchange.
 *
 * coll_rabred_node_map overrides it with block:L, cyclic:N or list:...
 * (rabred_nodes_parse), so that tests on one machine run the node-aware
 * plans over several "nodes"; it is part of the settings every rank must
 * share (coll_rabred_agree.c).  A wrong map costs speed, never
 * correctness: the plans are correct under any map.
 */
#include "coll_rabred.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/group/group.h"
#include "ompi/proc/proc.h"
#include "opal/mca/hwloc/hwloc-internal.h"
#include "opal/util/output.h"

/* The lowest rank of the communicator whose locality flags (relative to
 * this rank) include all of `flags`; this rank when none below it does. */
static int32_t lowest_sharing(struct ompi_communicator_t *comm, uint16_t flags)
{
    int me = ompi_comm_rank(comm);
    for (int r = 0; r < me; r++) {
        ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
        if (NULL != proc && flags == (proc->super.proc_flags & flags)) {
            return r;
        }
    }
    return me;
}

int mca_coll_rabred_node_labels_needed(struct ompi_communicator_t *comm)
{
    return ompi_group_have_remote_peers(comm->c_local_group);
}

/* Slot r: rank r's node label, the lowest rank on its node.  Slot p + r:
 * its place, the lowest rank on its node and socket (high word) and on
 * its node, socket and NUMA domain (low word).  Open MPI sets the socket
 * and NUMA flags only between processes bound inside those domains
 * (hwloc); unbound, each rank is alone in both, and the map has no
 * places (mca_coll_rabred_node_map). */
void mca_coll_rabred_node_labels_fill(struct ompi_communicator_t *comm, uint64_t *labels)
{
    int p = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    const uint16_t socket = OPAL_PROC_ON_NODE | OPAL_PROC_ON_SOCKET;
    memset(labels, 0, (size_t)RABRED_NODE_LABEL_WORDS * (size_t)p * sizeof(uint64_t));
    labels[me] = (uint64_t)lowest_sharing(comm, OPAL_PROC_ON_NODE);
    labels[p + me] = (uint64_t)lowest_sharing(comm, socket) << 32 |
                     (uint64_t)lowest_sharing(comm, socket | OPAL_PROC_ON_NUMA);
}

/* Every rank's place from the exchanged vector, into m->place_of; none
 * (NULL) when no two ranks share a socket: the runtime did not say, or one
 * rank per socket, where the order inside a node does not matter. */
static int places_from_runtime(mca_coll_rabred_module_t *m, int p, const uint64_t *labels)
{
    free(m->place_of);
    m->place_of = NULL;
    int shared = 0;
    for (int r = 0; NULL != labels && r < p && !shared; r++) {
        shared = (int64_t)(labels[p + r] >> 32) != r;
    }
    if (!shared) {
        return OMPI_SUCCESS;
    }
    m->place_of = malloc((size_t)p * sizeof(int64_t));
    if (NULL == m->place_of) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int r = 0; r < p; r++) {
        m->place_of[r] = (int64_t)labels[p + r];
    }
    return OMPI_SUCCESS;
}

/* How many sockets (the high words) or NUMA domains (the low words):
 * each is labelled by its lowest rank, so count the ranks that are. */
static int count_places(const int64_t *place_of, int p, int numa)
{
    int n = 0;
    for (int r = 0; r < p; r++) {
        n += (numa ? place_of[r] & 0xffffffff : place_of[r] >> 32) == r;
    }
    return n;
}

/* Every rank's label from the exchanged vector (NULL: no rank has a peer
 * off its node, one node). */
static void from_runtime(struct ompi_communicator_t *comm, const uint64_t *labels,
                         int32_t *node_of, int *nnodes)
{
    int p = ompi_comm_size(comm);
    for (int r = 0; r < p; r++) {
        node_of[r] = NULL != labels ? (int32_t)labels[r] : 0;
    }
    *nnodes = NULL != labels ? p : 1; /* labels are ranks: relabelled below */
}

/* Relabel nodes by lowest rank (what rabred_nodes_parse gives too), so
 * that the map reads the same whichever way it was learned. */
static void by_lowest_rank(int32_t *node_of, int p, int nnodes, int32_t *seen)
{
    for (int n = 0; n < nnodes; n++) {
        seen[n] = -1;
    }
    int next = 0;
    for (int r = 0; r < p; r++) {
        if (seen[node_of[r]] < 0) {
            seen[node_of[r]] = next++;
        }
        node_of[r] = seen[node_of[r]];
    }
}

/* At verbose 2, or 1 when the map was given (an override is worth
 * confirming where fallbacks are reported). */
static void say_map(const mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                    const char *source, int level)
{
    int p = ompi_comm_size(comm), lo = p, hi = 0;
    int *count = calloc((size_t)m->nodes.nnodes, sizeof(int));
    if (NULL == count) {
        return; /* only a message lost */
    }
    for (int r = 0; r < p; r++) {
        count[m->nodes.node_of[r]]++;
    }
    for (int n = 0; n < m->nodes.nnodes; n++) {
        lo = count[n] < lo ? count[n] : lo;
        hi = count[n] > hi ? count[n] : hi;
    }
    free(count);
    char places[64] = "sockets unknown";
    if (NULL != m->place_of) {
        snprintf(places, sizeof(places), "%d sockets, %d NUMA domains",
                 count_places(m->place_of, p, 0), count_places(m->place_of, p, 1));
    }
    opal_output_verbose(level, mca_coll_rabred_component.output,
                        "coll:rabred: %s: %d ranks on %d nodes (%d to %d per node, %s; %s), "
                        "from %s",
                        comm->c_name, p, m->nodes.nnodes, lo, hi,
                        rabred_nodes_ordered(&m->nodes, p) ? "consecutive" : "interleaved",
                        places, source);
}

int mca_coll_rabred_node_map(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                             const uint64_t *labels)
{
    const char *spec = mca_coll_rabred_component.node_map;
    int p = ompi_comm_size(comm), given = 0;
    free(m->node_of);
    rabred_node_groups_free(&m->node_groups);
    m->nodes.groups = NULL;
    m->node_of = malloc((size_t)p * sizeof(int32_t));
    int32_t *scratch = malloc((size_t)p * sizeof(int32_t));
    if (NULL == m->node_of || NULL == scratch) {
        free(scratch);
        free(m->node_of);
        m->node_of = NULL;
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (NULL != spec && '\0' != spec[0]) {
        given = RABRED_OK == rabred_nodes_parse(spec, p, m->node_of, &m->nodes.nnodes);
        if (!given && 0 == ompi_comm_rank(comm)) {
            opal_output(mca_coll_rabred_component.output,
                        "coll:rabred: coll_rabred_node_map \"%s\" is not block:L, cyclic:N or "
                        "list: with %d node labels; using the runtime's locality", spec, p);
        }
    }
    if (!given) {
        from_runtime(comm, labels, m->node_of, &m->nodes.nnodes);
        by_lowest_rank(m->node_of, p, m->nodes.nnodes, scratch);
        m->nodes.nnodes = 0;
        for (int r = 0; r < p; r++) {
            m->nodes.nnodes = m->node_of[r] + 1 > m->nodes.nnodes ? m->node_of[r] + 1
                                                                  : m->nodes.nnodes;
        }
    }
    free(scratch);
    m->nodes.node_of = m->node_of;
    /* a given map says nothing of sockets: the runtime's places, labelled
     * by the real hosts' lowest ranks, would move its nodes' leaders */
    if (OMPI_SUCCESS != places_from_runtime(m, p, given ? NULL : labels)) {
        free(m->node_of);
        m->node_of = NULL;
        memset(&m->nodes, 0, sizeof(m->nodes));
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    m->nodes.place_of = m->place_of;
    /* grouped once: every plan built for this communicator reads it */
    m->nodes.groups = RABRED_OK == rabred_node_groups_make(&m->node_groups, &m->nodes, p)
                          ? &m->node_groups : NULL;
    say_map(m, comm, given ? "coll_rabred_node_map" : "the runtime's locality", given ? 1 : 2);
    return OMPI_SUCCESS;
}
