/*
 * Do the ranks of a communicator decide alike?  Checked once per
 * communicator, at the first MPI_Allreduce or MPI_Reduce that reaches
 * rabred on it.
 *
 * Why: every rank must run the same algorithm for a call.  Plans of
 * different algorithms do not match, so ranks that chose differently hang,
 * or exchange blocks the others do not expect.  The choice reads the rules
 * file and the coll_rabred_* parameters, which Open MPI requires, but does
 * not check, to be the same on every rank (MCA_BASE_VAR_SCOPE_ALL_EQ).  They
 * differ in practice:
 *   - a rules file on a disk that only some nodes see;
 *   - a per-node openmpi-mca-params.conf;
 *   - an `-x OMPI_MCA_coll_rabred_...` given to one application context.
 *
 * How: each rank digests what its decisions read (rabred_rules_digest of
 * the rules this communicator uses; the parameters the decision, the cost model, the
 * node map and the arrival estimate use; the algorithm table's names, which rules and
 * parameters refer to by id).  The ranks then run one allreduce with MAX
 * of {rules, ~rules, parameters, ~parameters}: the largest digest and the
 * complement of the smallest.  Equal means everyone agrees, and every
 * rank learns the same answer.  The exchange is the communicator's set-up
 * (coll_rabred_setup.c), with the node map's: recursive doubling through
 * rabred's own executor, once per communicator, blocking or not.
 *
 * On disagreement, every rank hands that communicator's calls to the
 * component below rabred (coll/tuned), whose choice does not read rabred's
 * settings.  Rank 0 warns once.  With coll_rabred_verbose >= 1 each rank
 * prints its digests and host, so the odd ones out can be found.
 *
 * Not covered: settings changed through MPI_T after the check (those
 * variables must be set alike on every rank), ranks where rabred is not
 * selected at all, and a digest collision (two different settings with
 * equal 64-bit digests; FNV-1a makes that practically impossible by
 * accident).
 */
#include "coll_rabred.h"

#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

/* Everything the choice of an algorithm reads besides the rules file.
 * Not the priority (it decides whether rabred runs at all, before any
 * rabred code), the cache size or the verbosity (local effects only). */
static uint64_t parameters_digest(void)
{
    const mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    int64_t ints[2 * RABRED_NCOLLS + 3];
    const rabred_link_units_t *l = c->link;
    double reals[] = {l[0].alpha_us,      l[0].mbs,          l[0].oneway_alpha,
                      l[0].oneway_beta,   l[0].eager_bytes,  l[0].rndv_us,
                      l[0].peer_us,       l[0].aggregate_mbs, l[0].duplex,
                      l[0].repeat,        l[1].repeat,       l[1].duplex,
                      l[0].rndv_oneway_us, l[1].rndv_oneway_us, l[0].eager_mbs,
                      l[1].eager_mbs,     l[0].invalidate_mbs, l[1].invalidate_mbs,
                      l[0].overwrite_mbs, l[1].overwrite_mbs,
                      l[1].alpha_us,
                      l[1].mbs,           l[1].oneway_alpha, l[1].oneway_beta,
                      l[1].eager_bytes,   l[1].rndv_us,      l[1].peer_us,
                      l[1].aggregate_mbs, l[0].rank_mbs,     l[1].rank_mbs,
                      l[0].send_buffer_bytes, l[1].send_buffer_bytes,
                      l[0].rndv_cross_us, l[1].rndv_cross_us,
                      l[0].shared_ports,  l[1].shared_ports,
                      l[0].parallel_ports, l[1].parallel_ports,
                      l[0].wire_us,       l[1].wire_us,
                      c->reduce_mbs,      c->round_sync_us,
                      c->copy_mbs,
                      c->arrival_weight,  c->arrival_min_gain};
    int n = 0;
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        ints[n++] = c->algorithm[coll];
        ints[n++] = c->short_bytes[coll];
    }
    ints[n++] = c->segment_size;
    ints[n++] = c->arrival_aware;
    ints[n++] = c->arrival_min_bytes;
    uint64_t h = rabred_digest(RABRED_DIGEST_INIT, ints, sizeof(ints));
    h = rabred_digest(h, l[1].distance_mbs, sizeof(l[1].distance_mbs));
    h = rabred_digest(h, l[1].shift_mbs, sizeof(l[1].shift_mbs));
    h = rabred_digest(h, l[1].distance_alpha_us, sizeof(l[1].distance_alpha_us));
    h = rabred_digest(h, l[1].shift_alpha_us, sizeof(l[1].shift_alpha_us));
    /* the speeds beyond the cache as they take effect: the cache size
     * (each host's own L2 by default) only once a far speed is set */
    rabred_model_t far = {0};
    rabred_model_set_far(&far, &c->far);
    double far_terms[3] = {far.gamma_far, far.copy_far, far.cache_bytes};
    h = rabred_digest(h, far_terms, sizeof(far_terms));
    const char *map = NULL != c->node_map ? c->node_map : "";
    h = rabred_digest(h, map, strlen(map) + 1);
    h = rabred_digest(h, reals, sizeof(reals));
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        for (int i = 0; i < rabred_table_size((rabred_coll_t)coll); i++) {
            const char *name = rabred_table_at((rabred_coll_t)coll, i)->name;
            h = rabred_digest(h, name, strlen(name) + 1);
        }
    }
    return h;
}

enum { RULES, RULES_COMPLEMENT, PARAMETERS, PARAMETERS_COMPLEMENT };

static void report(struct ompi_communicator_t *comm, int rules_differ, int parameters_differ,
                   uint64_t rules, uint64_t parameters)
{
    if (0 == ompi_comm_rank(comm)) {
        opal_output(0,
                    "coll:rabred: the ranks of %s do not agree on rabred's settings (the rules "
                    "file's rules: %s; the coll_rabred_* parameters: %s); MPI_Allreduce and "
                    "MPI_Reduce on it go to the component below rabred. Give every rank the same "
                    "rules file and values (coll_rabred_verbose 1 shows each rank's digests)",
                    comm->c_name, rules_differ ? "differ" : "same",
                    parameters_differ ? "differ" : "same");
    }
    opal_output_verbose(1, mca_coll_rabred_component.output,
                        "coll:rabred: %s rank %d (%s): rules digest %016llx, parameters digest "
                        "%016llx",
                        comm->c_name, ompi_comm_rank(comm),
                        NULL != opal_process_info.nodename ? opal_process_info.nodename : "?",
                        (unsigned long long)rules, (unsigned long long)parameters);
}

/* What this rank's decisions read on m's communicator. */
static void local_digests(const mca_coll_rabred_module_t *m, uint64_t *rules,
                          uint64_t *parameters)
{
    *rules = RABRED_DIGEST_INIT;
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        *rules = rabred_rules_digest(*rules, &m->rules[coll]); /* what this communicator reads */
    }
    /* the metric as this communicator read it when it was set up */
    int completion = m->model.reduce_completion;
    *parameters = rabred_digest(parameters_digest(), &completion, sizeof(completion));
}

void mca_coll_rabred_agree_digests(const mca_coll_rabred_module_t *m,
                                   uint64_t d[RABRED_AGREE_DIGESTS])
{
    uint64_t rules, parameters;
    local_digests(m, &rules, &parameters);
    d[RULES] = rules;
    d[RULES_COMPLEMENT] = ~rules;
    d[PARAMETERS] = parameters;
    d[PARAMETERS_COMPLEMENT] = ~parameters;
}

void mca_coll_rabred_agree_judge(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                                 const uint64_t d[RABRED_AGREE_DIGESTS])
{
    /* MAX of ~x is ~(MIN of x): the largest and the smallest digest */
    int rules_differ = d[RULES] != ~d[RULES_COMPLEMENT];
    int parameters_differ = d[PARAMETERS] != ~d[PARAMETERS_COMPLEMENT];
    m->agreement = rules_differ || parameters_differ ? RABRED_SETTINGS_DIFFER
                                                     : RABRED_SETTINGS_AGREE;
    if (RABRED_SETTINGS_DIFFER == m->agreement) {
        uint64_t rules, parameters;
        local_digests(m, &rules, &parameters);
        report(comm, rules_differ, parameters_differ, rules, parameters);
    }
}
