/*
 * The component's side of online arrival estimation (rabred_estimate.h
 * has the method): time each estimated MPI_Allreduce's entry, exchange
 * the gaps after the call, fold them into the communicator's estimate, and
 * let the decision price the arrival-aware algorithms with it.
 *
 * Which calls are estimated must be the same on every rank, or the gap
 * exchange would not match: it depends only on the component's parameters
 * (the same everywhere, MCA_BASE_VAR_SCOPE_ALL_EQ), p and the call's size
 * (MPI requires the same count and datatype signature on every rank).
 *
 * The application may replace the estimate per communicator with the MPI
 * info key "rabred_arrival" (auto, off, late:RANK=SECONDS,...; README):
 * then nothing is exchanged, and with off nothing is estimated at all.
 *
 * Cost on a balanced call: two clock reads and, on the calls the pacing
 * picks (1, 2, 4, then every 8th while nobody is late), an allreduce of 2p
 * doubles with MAX by recursive doubling (lg p messages of 16p bytes,
 * through the same executor) after the call, in which a rank also waits
 * for the last one to leave the call; nothing below
 * coll_rabred_arrival_min_bytes, nor where the model prices that exchange
 * above 1% of the call (rabred_estimate_pays, asked by the selection
 * unit, select/rabred_select.c, which also makes the arrival-aware choice).  What the exchanges really cost is measured (MPI_T
 * coll_rabred_arrival_exchange_seconds) and paces them further apart when
 * it is more than the model thought (rabred_estimate_longest_period).
 * bench/results/ has the measured overhead.
 */
#include "coll_rabred.h"

#include <stdio.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "opal/util/info.h"
#include "opal/util/info_subscriber.h"
#include "opal/util/output.h"

/* ---- the application's hint: MPI info "rabred_arrival" ----------------- */

/* Bumped whenever a hint is set on any communicator, so that a call reads
 * its communicator's info only after some hint changed: one integer
 * compare on the call path, not an info lookup.  A stale read (threads)
 * only delays the new hint to the next call. */
static volatile int hint_changes;

/* Open MPI keeps an info key on a communicator only when a subscriber
 * accepts it; this one accepts what rabred_hint_parse understands and
 * answers anything else with a warning and "auto". */
static RABRED_INFO_CB_CONST char *hint_accept(opal_infosubscriber_t *object,
                                              RABRED_INFO_CB_CONST char *key,
                                              RABRED_INFO_CB_CONST char *value)
{
    static char fallback[] = "auto";
    struct ompi_communicator_t *comm = (struct ompi_communicator_t *)object;
    int p = ompi_comm_size(comm);
    hint_changes++;
    if (RABRED_HINT_BAD != rabred_hint_parse(value, p, NULL)) {
        return value;
    }
    opal_output(0, "coll:rabred: MPI info %s=\"%s\" on %s is not auto, off or late:RANK=SECONDS,... "
                "with ranks below %d; using auto", key, NULL != value ? value : "(null)",
                comm->c_name, p);
    return fallback;
}

int mca_coll_rabred_arrival_subscribe(struct ompi_communicator_t *comm)
{
    static char key[] = RABRED_HINT_KEY, dflt[] = "auto";
    return OPAL_SUCCESS == opal_infosubscribe_subscribe(&comm->super, key, dflt, hint_accept)
               ? OMPI_SUCCESS
               : OMPI_ERROR;
}

/* After some hint was set, re-read this communicator's; when it differs,
 * forget what was learned or assumed and, for late:, assume its offsets.
 * The same on every rank: MPI_Comm_set_info is collective and the hint
 * must be the same everywhere (README). */
static void hint_refresh(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm)
{
    char text[RABRED_HINT_TEXT_MAX + 1];
    int flag = 0, changes = hint_changes;
    if (changes == m->hint_changes_seen) {
        return;
    }
    m->hint_changes_seen = changes;
    if (NULL != comm->super.s_info) {
        rabred_ompi_info_get(comm->super.s_info, RABRED_HINT_KEY, text, RABRED_HINT_TEXT_MAX,
                             &flag);
    }
    if (!flag) {
        strcpy(text, "auto");
    }
    if (0 == strcmp(text, m->hint_text)) {
        return;
    }
    rabred_hint_t kind = rabred_hint_parse(text, m->est.p, m->est.tmp);
    rabred_estimate_reset(&m->est);
    m->last_exit = 0;
    m->exchange_cost = 0;
    m->generation++; /* prepared calls re-choose, and forget their arrival picks */
    if (RABRED_HINT_LATE == kind) {
        rabred_estimate_assume(&m->est, m->est.tmp);
    }
    m->hint = RABRED_HINT_BAD == kind ? RABRED_HINT_AUTO : kind;
    strcpy(m->hint_text, text);
    opal_output_verbose(3, mca_coll_rabred_component.output,
                        "coll:rabred: arrival hint on %s: %s (%s)", comm->c_name, text,
                        RABRED_HINT_LATE == m->hint ? "offsets given"
                        : RABRED_HINT_OFF == m->hint ? "no estimation"
                                                     : "learned online");
}

int mca_coll_rabred_arrival_wanted(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm)
{
    /* Out of memory here is an error of the call, not "do not estimate":
     * the other ranks would estimate and wait for our gap. */
    if (NULL == m->est.offset &&
        RABRED_OK != rabred_estimate_init(&m->est, ompi_comm_size(comm))) {
        return -1;
    }
    hint_refresh(m, comm);
    return RABRED_HINT_OFF == m->hint ? 0 : 1;
}

/* The offsets as plans take them, or NULL before the first estimate. */
const rabred_arrival_t *mca_coll_rabred_arrival_input(mca_coll_rabred_module_t *m,
                                                      struct ompi_datatype_t *dtype,
                                                      rabred_arrival_t *storage)
{
    size_t ts = 0;
    if (m->est.calls < 1) {
        return NULL;
    }
    ompi_datatype_type_size(dtype, &ts);
    *storage = rabred_estimate_arrival(&m->est, &m->model, ts);
    return storage;
}

/* After an estimated call: every rank contributes its gap (time from its
 * previous estimated exit to this entry) in its slot, and in slot p + rank
 * what its previous exchange cost it (rabred_estimate_note_cost); MAX
 * gives everyone both vectors, and everyone folds them in alike.  The
 * first estimated call on a communicator has no previous exit: nothing to
 * exchange. */
int mca_coll_rabred_arrival_end(mca_coll_rabred_module_t *m, struct ompi_communicator_t *comm,
                                double t_in)
{
    mca_coll_rabred_component_t *c = &mca_coll_rabred_component;
    int p = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    if (RABRED_HINT_LATE == m->hint) {
        return OMPI_SUCCESS; /* the offsets are given: nothing to learn or exchange */
    }
    if (m->last_exit > 0) {
        for (int i = 0; i < 2 * p; i++) {
            m->est.gaps[i] = 0;
        }
        m->est.gaps[rank] = t_in - m->last_exit;
        m->est.gaps[p + rank] = m->exchange_cost;
        double t_exchange = MPI_Wtime();
        int rc = mca_coll_rabred_allreduce_max(m, m->est.gaps, m->est.tmp, 2 * p,
                                               &ompi_mpi_double.dt, comm);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        double t_out = MPI_Wtime();
        /* the exchange's time includes waiting for the last rank to leave
         * the call, which its price (microseconds of messages) does not */
        m->exchange_cost = t_exchange > t_in ? (t_out - t_exchange) / (t_exchange - t_in) : 0;
        c->arrival_exchanges++;
        c->arrival_exchange_seconds += t_out - t_exchange;
        rabred_estimate_update(&m->est, m->est.gaps, c->arrival_weight);
        rabred_estimate_note_cost(&m->est, m->est.gaps + p);
        rabred_estimate_pace(&m->est, m->est_price, c->arrival_min_gain);
        opal_output_verbose(3, c->output,
                            "coll:rabred: arrival estimate on %s after %d calls: spread %.3g us, "
                            "my offset %.3g us, exchange %.3g us (call %.3g us), exchanges "
                            "cost %.3g calls, next in %d calls", comm->c_name, m->est.calls,
                            rabred_estimate_spread(&m->est) * 1e6, m->est.acting[rank] * 1e6,
                            (t_out - t_exchange) * 1e6, (t_exchange - t_in) * 1e6,
                            m->est.cost, m->est.period);
    }
    m->last_exit = MPI_Wtime();
    return OMPI_SUCCESS;
}
