/*
 * Nonblocking and persistent MPI_Allreduce and MPI_Reduce: MPI_Iallreduce,
 * MPI_Ireduce and (Open MPI 5) MPI_Allreduce_init, MPI_Reduce_init.
 *
 * The same plans as the blocking calls, run in pieces.  A call chooses
 * through the same prepared-call cache and selection unit
 * (mca_coll_rabred_prepared_for), takes its own temporaries and request
 * slots, posts the plan's first step and returns a request.  From then on
 * mca_coll_rabred_progress, registered with Open MPI's progress engine,
 * advances every request in flight as far as it goes without waiting
 * (rabred_schedule_resume: the order of posts, waits and local steps is
 * the blocking walk's, so results are bit for bit the blocking ones).
 * There is no helper thread and the call never waits for a peer.
 *
 * Stages of a request:
 *   setup    the communicator's first rabred call is nonblocking: it runs
 *            the set-up exchange (coll_rabred_setup.c) through the same
 *            runner, then chooses; later calls that arrive meanwhile wait
 *            (setup_wait) and choose when it is done, in the order they
 *            were made.  Blocking calls made meanwhile progress until it
 *            is done (every rank started it: MPI orders collectives).
 *   run      the chosen plan.
 *   inner    the component below serves it (choice `previous`, or ranks
 *            whose settings differ): its nonblocking request runs inside
 *            ours.
 *
 * Tags: every start reserves one tag from the communicator's nonblocking
 * tag counter, the one libnbc and the other nonblocking components use
 * (ompi_coll_base_nbc_reserve_tags), so requests in flight on one
 * communicator, rabred's or another component's, never take each other's
 * messages; blocking calls use the collectives' fixed tags.
 *
 * Plans stay valid while they run: a request pins its prepared call
 * (rabred_prepared_t.in_flight), which the cache then never evicts; when
 * every entry is pinned, the request prepares into an entry of its own.
 * An arrival-aware algorithm (forced or by a rule) runs a plan the request
 * builds for equal arrivals: nonblocking calls do not estimate arrivals
 * (their time includes the application's overlapped work).
 *
 * Persistent requests (Open MPI 5) choose at their first start (after the
 * set-up, if that is still to come) and keep the prepared call pinned
 * until MPI_Request_free: each MPI_Start reserves a tag and runs.
 *
 * MPI calls freeing or cancelling an active nonblocking collective's
 * request erroneous.  Cancel answers MPI_ERR_REQUEST, as libnbc does; free
 * is accepted: the operation completes in the background and the request
 * is released then.
 *
 * Errors: a failing PML request or allocation completes the request with
 * its error (out of memory as MPI_ERR_NO_MEM); what is still posted is
 * cancelled and released, and temporaries a request may still touch are
 * leaked, as in the blocking path.
 */
#include "coll_rabred.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/op/op.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"

enum { STAGE_SETUP_WAIT, STAGE_SETUP, STAGE_RUN, STAGE_INNER, STAGE_DONE };

/* An ompi_coll_base_nbc_request_t: Open MPI's MPI_Iallreduce and
 * MPI_Ireduce bindings take the returned request for one and keep the op
 * and datatype in it (ompi_coll_base_retain_op). */
typedef struct {
    ompi_coll_base_nbc_request_t super;
    mca_coll_rabred_module_t *module;
    mca_coll_rabred_call_t call;
    int stage;
    int rc;           /* the error it completes with */
    int tag;          /* this start's */
    int persistent;
    int freed;        /* released when it completes (MPI_Request_free while active) */
    int chosen;       /* a persistent request's choice is made */
    int listed;       /* in the component's active list */
    rabred_prepared_t *entry; /* the prepared call it pinned (cache's or own) */
    rabred_prepared_t own;    /* used when every cached entry is in flight */
    rabred_ready_plan_t built; /* an arrival-aware choice's plan, equal arrivals */
    const rabred_ready_plan_t *ready;
    mca_coll_rabred_setup_t setup;
    mca_coll_rabred_exec_t exec;
    void **slots;             /* its own requests (rabred_request_slots_reserve) */
    int32_t nslots;
    mca_coll_rabred_scratch_t scratch[3];
    mca_coll_rabred_tmpbuf_t t[3];
    ompi_request_t *inner;    /* the component below's request */
} rabred_nbc_request_t;

static int request_free(ompi_request_t **request);
static int request_cancel(ompi_request_t *request, int complete);
static int request_start(size_t count, ompi_request_t **requests);

static void request_construct(rabred_nbc_request_t *r)
{
    r->super.super.req_type = OMPI_REQUEST_COLL;
    r->super.super.req_free = request_free;
    r->super.super.req_cancel = request_cancel;
    r->super.super.req_start = request_start;
    r->module = NULL;
    r->entry = NULL;
    rabred_prepared_init(&r->own);
    memset(&r->built, 0, sizeof(r->built));
    rabred_plan_init(&r->built.plan);
    r->ready = NULL;
    r->setup.vec = r->setup.tmp = NULL;
    r->slots = NULL;
    r->nslots = 0;
    memset(r->scratch, 0, sizeof(r->scratch));
    memset(r->t, 0, sizeof(r->t));
    r->inner = NULL;
    r->listed = r->chosen = r->freed = 0;
}

static void request_destruct(rabred_nbc_request_t *r)
{
    rabred_prepared_fini(&r->own);
    rabred_ready_plan_free(&r->built);
    mca_coll_rabred_setup_free(&r->setup);
    free(r->slots);
    for (int i = 0; i < 3; i++) {
        mca_coll_rabred_scratch_release(&r->scratch[i]);
    }
}

static OBJ_CLASS_INSTANCE(rabred_nbc_request_t, ompi_coll_base_nbc_request_t, request_construct,
                          request_destruct);

/* ---- pins and references ------------------------------------------------ */

static void pin(rabred_nbc_request_t *r, rabred_prepared_t *e)
{
    r->entry = e;
    __atomic_add_fetch(&e->in_flight, 1, __ATOMIC_ACQ_REL);
}

static void unpin(rabred_nbc_request_t *r)
{
    if (NULL != r->entry) {
        __atomic_sub_fetch(&r->entry->in_flight, 1, __ATOMIC_ACQ_REL);
        r->entry = NULL;
    }
    r->ready = NULL;
    r->chosen = 0;
}

/* The communicator, module, datatype and op outlive the request: the
 * application may free its handles while the operation runs. */
static void retain_objects(rabred_nbc_request_t *r)
{
    OBJ_RETAIN(r->call.comm);
    OBJ_RETAIN(r->module);
    OBJ_RETAIN(r->call.dtype);
    OBJ_RETAIN(r->call.op);
}

static void release_objects(rabred_nbc_request_t *r)
{
    unpin(r); /* before the module (and its cache) may go */
    OBJ_RELEASE(r->call.dtype);
    OBJ_RELEASE(r->call.op);
    OBJ_RELEASE(r->module);
    OBJ_RELEASE(r->call.comm);
}

/* ---- spare requests -------------------------------------------------------
 * A request is about 1.5 KB with its slots and small temporaries; making
 * and constructing one cost more than an 8-byte reduction's messages over
 * shared memory.  Released requests are kept, component-wide (a request
 * may outlive its communicator's module), with their slots, scratch (each
 * at most coll_rabred_cache_bytes) and plan storage, up to RABRED_NBC_SPARE,
 * and the next call takes one.
 *
 * One more reason to keep them: when a persistent request holds a derived
 * datatype or a user op, Open MPI's binding wraps the request's free
 * function and reads the request after ours returns (free_objs_callback,
 * coll_base_util.c); its memory must stay valid.  Such a request is always
 * kept, and the list is trimmed back to its bound, oldest first, at the
 * next take. */
#define RABRED_NBC_SPARE 16

static rabred_nbc_request_t *take_spare(void)
{
    mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    opal_list_item_t *item = NULL, *extra;
    opal_atomic_lock(&k->spare_lock);
    while (opal_list_get_size(&k->spare) > RABRED_NBC_SPARE) {
        extra = opal_list_remove_first(&k->spare);
        opal_atomic_unlock(&k->spare_lock);
        OBJ_RELEASE(extra);
        opal_atomic_lock(&k->spare_lock);
    }
    item = opal_list_remove_last(&k->spare); /* the most recent: warm in cache */
    opal_atomic_unlock(&k->spare_lock);
    return (rabred_nbc_request_t *)item;
}

/* Keep r for a later call (always when `must`), or release it. */
static void give_back(rabred_nbc_request_t *r, int must)
{
    mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    opal_atomic_lock(&k->spare_lock);
    int keep = must || opal_list_get_size(&k->spare) < RABRED_NBC_SPARE;
    if (keep) {
        opal_list_append(&k->spare, &r->super.super.super.super);
    }
    opal_atomic_unlock(&k->spare_lock);
    if (!keep) {
        OBJ_RELEASE(r);
    }
}

void mca_coll_rabred_nbc_close(void)
{
    opal_list_item_t *item;
    while (NULL != (item = opal_list_remove_first(&mca_coll_rabred_component.spare))) {
        OBJ_RELEASE(item);
    }
}

/* wrapped: Open MPI's binding reads r after this (see above). */
static void release_request(rabred_nbc_request_t *r, int wrapped)
{
    release_objects(r);
    OMPI_REQUEST_FINI(&r->super.super);
    give_back(r, wrapped);
}

/* A request for a new call: a spare one, or a new one. */
static rabred_nbc_request_t *take_request(void)
{
    rabred_nbc_request_t *r = take_spare();
    if (NULL == r) {
        return OBJ_NEW(rabred_nbc_request_t);
    }
    r->super.super.req_free = request_free; /* the binding may have wrapped it */
    r->super.cb.req_complete_cb = NULL;
    r->super.req_complete_cb_data = NULL;
    r->entry = NULL;
    r->ready = NULL;
    r->inner = NULL;
    r->listed = r->chosen = r->freed = 0;
    return r;
}

/* ---- stages ------------------------------------------------------------- */

/* The request's own slots, for ready's schedule (the prepared call's are
 * the blocking calls'). */
static int reserve_slots(rabred_nbc_request_t *r, const rabred_ready_plan_t *ready)
{
    return RABRED_OK == rabred_request_slots_reserve(&r->slots, &r->nslots, &ready->schedule)
               ? OMPI_SUCCESS
               : OMPI_ERR_OUT_OF_RESOURCE;
}

/* Hand the call to the component below: its request runs inside ours. */
static int start_inner(rabred_nbc_request_t *r)
{
    const mca_coll_rabred_module_t *m = r->module;
    const mca_coll_rabred_call_t *c = &r->call;
    int allreduce = RABRED_COLL_ALLREDUCE == c->coll;
    if (allreduce ? NULL == m->previous_iallreduce : NULL == m->previous_ireduce) {
        opal_output_verbose(1, mca_coll_rabred_component.output,
                            "coll:rabred: no nonblocking %s below rabred on %s; add libnbc to "
                            "the coll list", rabred_coll_name(c->coll), c->comm->c_name);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    r->stage = STAGE_INNER;
    /* The component below takes its tag from the communicator's counter
     * when it starts.  A call whose choice waited for the set-up starts it
     * from the progress engine, after other calls took tags, and not at
     * the same point on every rank: it would take a tag its peers gave
     * another call.  So it is given the one this call reserved when it
     * was made (one tag: what libnbc takes per call). */
    int32_t counter = c->comm->c_nbc_tag;
    c->comm->c_nbc_tag = r->tag;
    int rc = allreduce
                 ? m->previous_iallreduce(c->sbuf, c->rbuf, c->count, c->dtype, c->op, c->comm,
                                          &r->inner, m->previous_iallreduce_module)
                 : m->previous_ireduce(c->sbuf, c->rbuf, c->count, c->dtype, c->op, c->root,
                                       c->comm, &r->inner, m->previous_ireduce_module);
    c->comm->c_nbc_tag = counter;
    return rc;
}

/* The plan this call runs (ready), or the component below (ready NULL,
 * *previous 1), chosen as a blocking call would be. */
static int choose(rabred_nbc_request_t *r, int *previous)
{
    mca_coll_rabred_module_t *m = r->module;
    *previous = 0;
    if (RABRED_SETTINGS_AGREE != m->agreement) {
        mca_coll_rabred_count_disagreement(&r->call);
        *previous = 1;
        return OMPI_SUCCESS;
    }
    rabred_prepared_t *e;
    int rc = mca_coll_rabred_prepared_for(m, &r->call, &r->own, &e);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL == e->choice.alg) {
        *previous = 1;
        return OMPI_SUCCESS;
    }
    pin(r, e);
    r->ready = &e->run;
    if (e->choice.alg->arrival_aware) {
        rc = mca_coll_rabred_build_for(m, &r->call, e, &r->built);
        r->ready = &r->built;
    }
    r->chosen = OMPI_SUCCESS == rc;
    return rc;
}

/* Post the chosen plan's first step. */
static int start_run(rabred_nbc_request_t *r)
{
    const mca_coll_rabred_call_t *c = &r->call;
    mca_coll_rabred_bufs_t bufs;
    r->stage = STAGE_RUN;
    if (0 == c->count) {
        r->stage = STAGE_DONE;
        return OMPI_SUCCESS;
    }
    int rc = reserve_slots(r, r->ready);
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_rabred_take_buffers(c, r->ready, r->scratch, r->t, &bufs);
    }
    if (OMPI_SUCCESS == rc) {
        mca_coll_rabred_exec_init(&r->exec, r->ready, &bufs, c->dtype, c->op, r->tag, c->comm,
                                  (ompi_request_t **)r->slots);
    }
    return rc;
}

/* After the set-up (or without one): choose, then run or hand down. */
static int choose_and_start(rabred_nbc_request_t *r)
{
    int previous = 0, rc = OMPI_SUCCESS;
    if (r->chosen) { /* a persistent request's later starts */
        mca_coll_rabred_count_call(&r->call, &r->entry->choice);
    } else {
        rc = choose(r, &previous);
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return previous ? start_inner(r) : start_run(r);
}

/* The communicator's first rabred call is this one: run the set-up. */
static int start_setup(rabred_nbc_request_t *r)
{
    mca_coll_rabred_module_t *m = r->module;
    struct ompi_communicator_t *comm = r->call.comm;
    const rabred_ready_plan_t *ready;
    int rc = mca_coll_rabred_setup_begin(m, comm, &r->setup);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (ompi_comm_size(comm) < 2) {
        rc = mca_coll_rabred_setup_end(m, comm, &r->setup);
        return OMPI_SUCCESS == rc ? choose_and_start(r) : rc;
    }
    rc = mca_coll_rabred_internal_plan(m, r->setup.count, comm, &ready);
    if (OMPI_SUCCESS == rc) {
        rc = reserve_slots(r, ready);
    }
    if (OMPI_SUCCESS != rc) {
        mca_coll_rabred_setup_free(&r->setup);
        return rc;
    }
    mca_coll_rabred_bufs_t bufs = mca_coll_rabred_internal_bufs(r->setup.vec, r->setup.tmp);
    mca_coll_rabred_exec_init(&r->exec, ready, &bufs, &ompi_mpi_uint64_t.dt, &ompi_mpi_op_max.op,
                              r->tag, comm, (ompi_request_t **)r->slots);
    m->setup_busy = 1;
    r->stage = STAGE_SETUP;
    return OMPI_SUCCESS;
}

/* The set-up exchange ran (rc: how): judge it, free the module for other
 * calls, go on. */
static int end_setup(rabred_nbc_request_t *r, int rc)
{
    mca_coll_rabred_module_t *m = r->module;
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_rabred_setup_end(m, r->call.comm, &r->setup);
    } else {
        mca_coll_rabred_exec_abandon(&r->exec);
        mca_coll_rabred_setup_free(&r->setup);
    }
    m->setup_busy = 0;
    return OMPI_SUCCESS == rc ? choose_and_start(r) : rc;
}

/* Advance as far as possible without waiting; 1 when complete (r->rc
 * says how). */
static int advance(rabred_nbc_request_t *r)
{
    int rc = OMPI_SUCCESS, done = 0;
    for (;;) {
        switch (r->stage) {
        case STAGE_SETUP_WAIT:
            if (r->module->setup_busy) {
                return 0;
            }
            rc = RABRED_SETTINGS_UNCHECKED == r->module->agreement
                     ? start_setup(r) /* the set-up failed: this call tries again */
                     : choose_and_start(r);
            break;
        case STAGE_SETUP:
            rc = mca_coll_rabred_exec_resume(&r->exec, &done);
            if (OMPI_SUCCESS != rc || done) {
                rc = end_setup(r, rc);
                break;
            }
            return 0;
        case STAGE_RUN:
            rc = mca_coll_rabred_exec_resume(&r->exec, &done);
            if (OMPI_SUCCESS != rc) {
                mca_coll_rabred_exec_abandon(&r->exec);
                mca_coll_rabred_abandon_temporaries(r->t, r->scratch);
            }
            if (OMPI_SUCCESS != rc || done) {
                r->stage = STAGE_DONE;
                break;
            }
            return 0;
        case STAGE_INNER:
            if (!REQUEST_COMPLETE(r->inner)) {
                return 0;
            }
            rc = r->inner->req_status.MPI_ERROR;
            ompi_request_free(&r->inner);
            r->stage = STAGE_DONE;
            break;
        default:
            return 1;
        }
        if (OMPI_SUCCESS != rc) {
            r->rc = rc;
            r->stage = STAGE_DONE;
        }
    }
}

/* Give back what one start took; a persistent request keeps its choice. */
static void finish_start(rabred_nbc_request_t *r)
{
    for (int i = 0; i < 3; i++) {
        mca_coll_rabred_tmpbuf_free(&r->t[i]);
    }
    if (!r->persistent) {
        unpin(r);
    }
}

/* Complete: the application sees it; a freed request is released. */
static void complete(rabred_nbc_request_t *r)
{
    finish_start(r);
    r->super.super.req_status.MPI_ERROR = mca_coll_rabred_user_error(r->rc);
    ompi_request_complete(&r->super.super, true); /* also runs the binding's callback */
    if (r->freed) {
        release_request(r, 0);
    }
}

int mca_coll_rabred_progress(void)
{
    mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    rabred_nbc_request_t *r, *next;
    int completed = 0;
    if (opal_list_is_empty(&k->active) || opal_atomic_trylock(&k->progress_lock)) {
        return 0;
    }
    OPAL_LIST_FOREACH_SAFE (r, next, &k->active, rabred_nbc_request_t) {
        if (advance(r)) {
            opal_list_remove_item(&k->active, &r->super.super.super.super);
            r->listed = 0;
            complete(r);
            completed++;
        }
    }
    opal_atomic_unlock(&k->progress_lock);
    return completed;
}

/* ---- starting ----------------------------------------------------------- */

/* Begin a start: reserve its tag and take the first steps here, in the
 * call (the first step is posted before the call returns); what is left
 * goes to the progress engine. */
static void start(rabred_nbc_request_t *r)
{
    mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    mca_coll_rabred_module_t *m = r->module;
    r->rc = OMPI_SUCCESS;
    r->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    r->super.super.req_status._cancelled = 0;
    r->super.super.req_complete = REQUEST_PENDING;
    r->super.super.req_state = OMPI_REQUEST_ACTIVE;
    r->tag = ompi_coll_base_nbc_reserve_tags(r->call.comm, 1);
    int rc = OMPI_SUCCESS;
    if (r->chosen) {
        r->stage = STAGE_RUN;
        rc = choose_and_start(r);
    } else if (m->setup_busy) {
        r->stage = STAGE_SETUP_WAIT;
    } else if (RABRED_SETTINGS_UNCHECKED == m->agreement) {
        rc = start_setup(r);
    } else {
        rc = choose_and_start(r);
    }
    if (OMPI_SUCCESS != rc) {
        r->rc = rc;
        r->stage = STAGE_DONE;
    }
    if (advance(r)) {
        complete(r);
        return;
    }
    opal_atomic_lock(&k->progress_lock);
    if (!k->progress_registered) { /* once; unregistered at component close */
        k->progress_registered = 1;
        opal_progress_register(mca_coll_rabred_progress);
    }
    r->listed = 1;
    opal_list_append(&k->active, &r->super.super.super.super);
    opal_atomic_unlock(&k->progress_lock);
}

static int request_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; i++) {
        rabred_nbc_request_t *r = (rabred_nbc_request_t *)requests[i];
        if (NULL == r || OMPI_REQUEST_ACTIVE == r->super.super.req_state) {
            return MPI_ERR_REQUEST;
        }
        start(r);
    }
    return OMPI_SUCCESS;
}

static int request_cancel(ompi_request_t *request, int complete_flag)
{
    (void)request;
    (void)complete_flag;
    return MPI_ERR_REQUEST; /* MPI: cancelling a collective is erroneous */
}

/* Free: a complete or inactive request now; an active one when it
 * completes (under the progress lock, which completion also holds). */
static int request_free(ompi_request_t **request)
{
    mca_coll_rabred_component_t *k = &mca_coll_rabred_component;
    rabred_nbc_request_t *r = (rabred_nbc_request_t *)*request;
    opal_atomic_lock(&k->progress_lock);
    int active = r->listed;
    if (active) {
        r->freed = 1;
    }
    opal_atomic_unlock(&k->progress_lock);
    *request = MPI_REQUEST_NULL;
    if (!active) {
        if (r->persistent) {
            unpin(r);
        }
        release_request(r, request_free != r->super.super.req_free);
    }
    return OMPI_SUCCESS;
}

/* A new request for call c (not started). */
static int new_request(const mca_coll_rabred_call_t *c, mca_coll_base_module_t *module,
                       int persistent, rabred_nbc_request_t **out)
{
    if (c->count < 0) {
        return MPI_ERR_COUNT;
    }
    rabred_nbc_request_t *r = take_request();
    if (NULL == r) {
        return MPI_ERR_NO_MEM;
    }
    OMPI_REQUEST_INIT(&r->super.super, persistent);
    r->super.super.req_mpi_object.comm = c->comm;
    r->module = (mca_coll_rabred_module_t *)module;
    r->call = *c;
    r->persistent = persistent;
    retain_objects(r);
    *out = r;
    return OMPI_SUCCESS;
}

static int issue(const mca_coll_rabred_call_t *c, mca_coll_base_module_t *module,
                 ompi_request_t **request)
{
    rabred_nbc_request_t *r;
    int rc = new_request(c, module, 0, &r);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    *request = &r->super.super;
    start(r);
    return OMPI_SUCCESS;
}

static mca_coll_rabred_call_t allreduce_call(const void *sbuf, void *rbuf, int count,
                                             struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                             struct ompi_communicator_t *comm)
{
    mca_coll_rabred_call_t c = {RABRED_COLL_ALLREDUCE, sbuf, rbuf, count, dtype, op, -1, comm,
                                ompi_comm_size(comm), ompi_comm_rank(comm), MPI_IN_PLACE == sbuf,
                                1};
    return c;
}

static mca_coll_rabred_call_t reduce_call(const void *sbuf, void *rbuf, int count,
                                          struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                          int root, struct ompi_communicator_t *comm)
{
    int rank = ompi_comm_rank(comm);
    mca_coll_rabred_call_t c = {RABRED_COLL_REDUCE, sbuf, rbuf, count, dtype, op, root, comm,
                                ompi_comm_size(comm), rank, rank == root && MPI_IN_PLACE == sbuf,
                                1};
    return c;
}

int mca_coll_rabred_iallreduce(const void *sbuf, void *rbuf, int count,
                               struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    mca_coll_rabred_call_t c = allreduce_call(sbuf, rbuf, count, dtype, op, comm);
    return issue(&c, module, request);
}

int mca_coll_rabred_ireduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                            struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                            ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_rabred_call_t c = reduce_call(sbuf, rbuf, count, dtype, op, root, comm);
    return issue(&c, module, request);
}

#if OMPI_MAJOR_VERSION >= 5
/* Persistent: a request that each MPI_Start runs (the choice and plan are
 * made at the first start and kept). */
static int persistent(const mca_coll_rabred_call_t *c, mca_coll_base_module_t *module,
                      ompi_request_t **request)
{
    rabred_nbc_request_t *r;
    int rc = new_request(c, module, 1, &r);
    if (OMPI_SUCCESS == rc) {
        r->stage = STAGE_DONE;
        *request = &r->super.super;
    }
    return rc;
}

int mca_coll_rabred_allreduce_init(const void *sbuf, void *rbuf, int count,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                   ompi_request_t **request, mca_coll_base_module_t *module)
{
    (void)info;
    mca_coll_rabred_call_t c = allreduce_call(sbuf, rbuf, count, dtype, op, comm);
    return persistent(&c, module, request);
}

int mca_coll_rabred_reduce_init(const void *sbuf, void *rbuf, int count,
                                struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                                struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                ompi_request_t **request, mca_coll_base_module_t *module)
{
    (void)info;
    mca_coll_rabred_call_t c = reduce_call(sbuf, rbuf, count, dtype, op, root, comm);
    return persistent(&c, module, request);
}
#endif
