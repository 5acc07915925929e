/*
 * Which ranks of a communicator share a node, learned once at module
 * enable (the node-aware algorithms' input, rabred_nodes_t).
 *
 * From the runtime: every process's host name, as Open MPI's runtime
 * (PMIx) publishes it for every peer (opal_get_proc_hostname): ranks with
 * the same name share a node.  No message is sent, and every rank derives
 * the same map from the same names.  Sorting the names costs O(p log p)
 * comparisons once per communicator.  When any name is missing the map is
 * unknown (NULL: every rank its own node), which costs speed, never
 * correctness: the plans are correct under any map.
 *
 * coll_rabred_node_map overrides it with block:L, cyclic:N or list:...
 * (rabred_nodes_parse), so that tests on one machine run the node-aware
 * plans over several "nodes"; it must be the same on every rank.
 */
#include "coll_rabred.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/proc/proc.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

typedef struct {
    const char *host;
    int rank;
} host_rank_t;

static int by_host(const void *a, const void *b)
{
    const host_rank_t *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    return 0 != c ? c : x->rank - y->rank;
}

/* node_of from host names; 0 when a name is unknown. */
static int from_hosts(struct ompi_communicator_t *comm, int p, int32_t *node_of, int *nnodes,
                      int *known)
{
    host_rank_t *hr = malloc((size_t)p * sizeof(*hr));
    if (NULL == hr) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *known = 1;
    for (int r = 0; r < p && *known; r++) {
        ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
        hr[r].host = NULL != proc ? opal_get_proc_hostname(&proc->super) : NULL;
        hr[r].rank = r;
        *known = NULL != hr[r].host && 0 != strcmp(hr[r].host, "unknown");
    }
    if (*known) {
        qsort(hr, (size_t)p, sizeof(*hr), by_host);
        int label = 0;
        for (int i = 0; i < p; i++) {
            label += i > 0 && 0 != strcmp(hr[i].host, hr[i - 1].host);
            node_of[hr[i].rank] = label;
        }
        *nnodes = label + 1;
    }
    free(hr);
    return OMPI_SUCCESS;
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
    opal_output_verbose(level, mca_coll_rabred_component.output,
                        "coll:rabred: %s: %d ranks on %d nodes (%d to %d per node, %s), from %s",
                        comm->c_name, p, m->nodes.nnodes, lo, hi,
                        rabred_nodes_ordered(&m->nodes, p) ? "consecutive" : "interleaved",
                        source);
}

int mca_coll_rabred_node_map(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm)
{
    const char *spec = mca_coll_rabred_component.node_map;
    int p = ompi_comm_size(comm), known = 0, rc = OMPI_SUCCESS;
    m->node_of = malloc((size_t)p * sizeof(int32_t));
    int32_t *seen = malloc((size_t)p * sizeof(int32_t));
    if (NULL == m->node_of || NULL == seen) {
        free(seen);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    const char *source = "coll_rabred_node_map";
    if (NULL != spec && '\0' != spec[0]) {
        known = RABRED_OK == rabred_nodes_parse(spec, p, m->node_of, &m->nodes.nnodes);
        if (!known) {
            opal_output(mca_coll_rabred_component.output,
                        "coll:rabred: coll_rabred_node_map \"%s\" is not block:L, cyclic:N or "
                        "list: with %d node labels; using the runtime's host names", spec, p);
        }
    }
    if (!known) {
        source = "host names";
        rc = from_hosts(comm, p, m->node_of, &m->nodes.nnodes, &known);
        if (known) {
            by_lowest_rank(m->node_of, p, m->nodes.nnodes, seen);
        }
    }
    free(seen);
    if (OMPI_SUCCESS != rc || !known) {
        free(m->node_of);
        m->node_of = NULL;
        m->nodes.nnodes = 0;
        return rc; /* unknown: no map, every rank its own node */
    }
    m->nodes.node_of = m->node_of;
    say_map(m, comm, source, 0 == strcmp(source, "host names") ? 2 : 1);
    return OMPI_SUCCESS;
}
