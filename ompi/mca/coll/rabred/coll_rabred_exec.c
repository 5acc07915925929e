/*
 * The executor: the only rabred code that touches the PML (DESIGN.md).
 *
 * It walks a prepared schedule (plan/rabred_schedule.h): for each step (a
 * round, or a group of joined rounds) post every receive, then every send
 * (receives first so eager data lands in place; sends from the link's
 * sends_first_bytes go first, see post()), wait for all, then run
 * the local steps with ompi_op_reduce and datatype copies; the next step's
 * receives, or all its transfers, go out before those local steps where the
 * schedule says so (rabred_schedule_walk owns that order, for every
 * runner; this file gives it the PML's operations).  Nothing is decided
 * here: which rounds go together and
 * what goes early were derived once, with the plan.  The request arrays
 * come from the prepared call too, so a call allocates nothing.  Addresses
 * are base + off * extent in 64-bit arithmetic (ptrdiff_t), so vectors over
 * 2^31 bytes are fine; counts go to the PML as size_t.
 *
 * Errors: the first PML or allocation error is returned as the real OMPI
 * code (a failed request's own error, not MPI_ERR_IN_STATUS); requests
 * still posted are cancelled and released, never leaked.  One the PML
 * cannot cancel may still touch the buffers, so the caller leaks its
 * temporaries after an error (run_plan).
 */
#include "coll_rabred.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"

int mca_coll_rabred_tmpbuf_alloc(mca_coll_rabred_tmpbuf_t *t, struct ompi_datatype_t *dtype,
                                 size_t count, mca_coll_rabred_scratch_t *scratch)
{
    ptrdiff_t gap = 0;
    ptrdiff_t span = opal_datatype_span(&dtype->super, count, &gap);
    size_t need = span > 0 ? (size_t)span : 1;
    t->raw = t->base = NULL;
    t->shift = -gap; /* element 0 lies `gap` bytes before the first byte used */
    if (need <= (size_t)mca_coll_rabred_component.cache_bytes) {
        if (scratch->cap < need) {
            mca_coll_rabred_scratch_release(scratch);
            if (NULL == (scratch->raw = malloc(need))) {
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            scratch->cap = need;
        }
        t->base = scratch->raw;
        return OMPI_SUCCESS;
    }
    if (NULL == (t->raw = malloc(need))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    t->base = t->raw;
    return OMPI_SUCCESS;
}

void mca_coll_rabred_tmpbuf_free(mca_coll_rabred_tmpbuf_t *t)
{
    if (NULL != t->raw) { /* most temporaries live in the scratch */
        free(t->raw);
    }
    t->raw = t->base = NULL;
}

void mca_coll_rabred_scratch_release(mca_coll_rabred_scratch_t *scratch)
{
    free(scratch->raw);
    scratch->raw = NULL;
    scratch->cap = 0;
}

/* Element `off` of a buffer, as the datatype engine takes it (it adds the
 * type's lower bound back).  For a type with a positive lower bound that
 * address lies before the temporary's allocation, and with MPI_BOTTOM it
 * is computed from a null pointer: C leaves pointer arithmetic outside an
 * object undefined, so the sum is an integer's. */
static char *address(const mca_coll_rabred_exec_t *x, int buf, int64_t off)
{
    uintptr_t at = (uintptr_t)x->bufs.base[buf] +
                   (uintptr_t)((ptrdiff_t)off * x->extent + x->bufs.shift[buf]);
    return (char *)at;
}

static void release(ompi_request_t **reqs, int n)
{
    for (int i = 0; i < n; i++) {
        if (MPI_REQUEST_NULL != reqs[i]) {
            ompi_request_cancel(reqs[i]);
            ompi_request_free(&reqs[i]);
        }
    }
}

/* Post one transfer into slot's requests; n[slot] counts it, also on
 * error. */
static int post_one(mca_coll_rabred_exec_t *x, const rabred_xfer_t *t, int slot)
{
    ompi_request_t **req = &x->reqs[slot][x->n[slot]++];
    char *ptr = address(x, t->buf, t->off);
    *req = MPI_REQUEST_NULL;
    return RABRED_XFER_RECV == t->dir
               ? MCA_PML_CALL(irecv(ptr, (size_t)t->len, x->dtype, t->peer, x->tag, x->comm,
                                    req))
               : MCA_PML_CALL(isend(ptr, (size_t)t->len, x->dtype, t->peer, x->tag,
                                    MCA_PML_BASE_SEND_STANDARD, x->comm, req));
}

/* Does step st send at least sends_first_len elements somewhere? */
static int sends_first(const mca_coll_rabred_exec_t *x, const rabred_step_t *st)
{
    return 0 != x->sends_first_len && st->max_send >= x->sends_first_len;
}

/* Post the transfers of posts [from, to) of step st going direction dir,
 * in schedule order. */
static int post_dir(mca_coll_rabred_exec_t *x, const rabred_step_t *st, int from, int to,
                    int dir, int slot)
{
    const int32_t *posts = &x->sched->posts[st->post_first];
    int rc = OMPI_SUCCESS;
    for (int i = from; i < to && OMPI_SUCCESS == rc; i++) {
        const rabred_xfer_t *t = &x->plan->xfers[posts[i]];
        rc = t->dir == dir ? post_one(x, t, slot) : OMPI_SUCCESS;
    }
    return rc;
}

/* Does step st's one transfer run to completion with the PML's blocking
 * send or receive: in the blocking walk, a step the schedule marks alone
 * (one transfer, none of it posted early, nothing else in flight), posted
 * whole.  That is what posting it and waiting for it would do, and Open
 * MPI's blocking calls skip the request a nonblocking one allocates,
 * completes and frees: ob1 sends a short message straight into the
 * shared-memory transport's buffer and receives into a request on the
 * stack, which makes a leaf's send and a root's receive of a small
 * MPI_Reduce cheaper (bench/results/shm-p2-20261127f). */
static int runs_now(const mca_coll_rabred_exec_t *x, const rabred_step_t *st, int from, int to)
{
    return x->blocking && st->alone && 0 == from && 1 == to;
}

static int send_now(const mca_coll_rabred_exec_t *x, const rabred_xfer_t *t)
{
    return MCA_PML_CALL(send(address(x, t->buf, t->off), (size_t)t->len, x->dtype, t->peer,
                             x->tag, MCA_PML_BASE_SEND_STANDARD, x->comm));
}

static int transfer_now(const mca_coll_rabred_exec_t *x, const rabred_step_t *st)
{
    const rabred_xfer_t *t = &x->plan->xfers[x->sched->posts[st->post_first]];
    return RABRED_XFER_RECV == t->dir
               ? MCA_PML_CALL(recv(address(x, t->buf, t->off), (size_t)t->len, x->dtype, t->peer,
                                   x->tag, x->comm, MPI_STATUS_IGNORE))
               : send_now(x, t);
}

/* Does the blocking walk send step st's one send with the PML's blocking
 * send: the schedule says the send is not posted early, and this posting
 * ends the step, so every receive of the step is already posted (the
 * schedule lists the send last) and the walk would wait for the send
 * next anyway.  As coll/tuned's recursive doubling does (a receive, a
 * blocking send, a wait), ob1 then sends a short message without a
 * request (bench/results/shm-p2-20261128).  Not for a sends-first step,
 * whose sends must go out before its receives. */
static int sends_now(const mca_coll_rabred_exec_t *x, const rabred_step_t *st, int to)
{
    return x->blocking && st->late_send && to == st->post_count;
}

/* Post posts [from, to) of step st into slot.  The schedule lists
 * receives first, so that eager data lands in place.  A step that sends
 * at least sends_first_len elements somewhere posts all its sends first
 * (the link's sends_first_bytes: over Open MPI's TCP BTL an exchange
 * posted receive-first takes up to three times a one-way message,
 * send-first 1.02-1.08x, bench/results/exchange-order-20261126).  All of
 * them, in schedule order: a rank's messages to one peer match that
 * peer's receives in the order they are posted, and a step may send one
 * peer blocks on either side of the threshold (Bruck: 257 and 258
 * elements).  Such a step's receives are not posted early, ahead of the
 * previous step's local steps (the schedule's `early`): they wait for its
 * sends, or the exchange would be receive-first again. */
static int post(void *ctx, const rabred_step_t *st, int from, int to, int slot)
{
    mca_coll_rabred_exec_t *x = ctx;
    if (runs_now(x, st, from, to)) {
        return transfer_now(x, st);
    }
    if (!sends_first(x, st)) {
        const int32_t *posts = &x->sched->posts[st->post_first];
        int last = to > from && sends_now(x, st, to) ? to - 1 : to; /* posts[last]: blocking */
        int rc = OMPI_SUCCESS;
        for (int i = from; i < last && OMPI_SUCCESS == rc; i++) {
            rc = post_one(x, &x->plan->xfers[posts[i]], slot);
        }
        return OMPI_SUCCESS == rc && last < to ? send_now(x, &x->plan->xfers[posts[last]]) : rc;
    }
    if (0 == from && to < st->post_count) {
        x->held = st; /* the early part: posted with the rest */
        return OMPI_SUCCESS;
    }
    if (x->held == st) {
        from = 0;
        x->held = NULL;
    }
    int rc = post_dir(x, st, from, to, RABRED_XFER_SEND, slot);
    return OMPI_SUCCESS == rc ? post_dir(x, st, from, to, RABRED_XFER_RECV, slot) : rc;
}

/* dst = src for len elements: a plain memcpy for predefined types (the
 * datatype engine's general copy costs more than a small vector's bytes). */
static int copy(const mca_coll_rabred_exec_t *x, char *dst, char *src, int64_t len)
{
    if (0 != x->plain) {
        memcpy(dst, src, (size_t)len * x->plain);
        return OMPI_SUCCESS;
    }
    return ompi_datatype_copy_content_same_ddt(x->dtype, (size_t)len, dst, src);
}

/* dst = src (op) dst, or dst = dst (op) src.  ompi_op_reduce computes only
 * the first form in place; the second computes into src (always a scratch
 * buffer: plans reduce only from TMP or TMP2) and copies back.  When the op commutes
 * and no other rank computes the same value, the cheap first form gives the
 * same result and saves that copy; a replicated value (recursive doubling)
 * keeps the stated order so both partners get the same bits, since
 * MAX(+0, -0) or NaN payloads depend on operand order. */
static int reduce_step(const mca_coll_rabred_exec_t *x, const rabred_local_t *l, char *src, char *dst)
{
    if (l->src_first || (!l->replicated && ompi_op_is_commute(x->op))) {
        ompi_op_reduce(x->op, src, dst, (size_t)l->len, x->dtype);
        return OMPI_SUCCESS;
    }
    if (RABRED_BUF_TMP != l->src && RABRED_BUF_TMP2 != l->src) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    ompi_op_reduce(x->op, dst, src, (size_t)l->len, x->dtype);
    return copy(x, dst, src, l->len);
}

static int run_locals(void *ctx, int r)
{
    const mca_coll_rabred_exec_t *x = ctx;
    const rabred_round_t *rd = &x->plan->rounds[r];
    for (int k = 0; k < rd->nlocal; k++) {
        const rabred_local_t *l = &x->plan->locals[rd->first_local + k];
        char *src = address(x, l->src, l->src_off);
        char *dst = address(x, l->dst, l->off);
        int rc = OMPI_SUCCESS;
        if (RABRED_LOCAL_REDUCE == l->kind) {
            rc = reduce_step(x, l, src, dst);
        } else if (src != dst) { /* a copy onto itself is MPI_IN_PLACE */
            rc = copy(x, dst, src, l->len);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* Waits for every request of a posted step, one after the other (the
 * progress engine moves them all meanwhile; Open MPI's wait_all costs more
 * for the one or two requests of a typical step).  Each completed request
 * is freed and set to MPI_REQUEST_NULL; the first failed request's own
 * error (e.g. MPI_ERR_TRUNCATE) is returned, the ones after it left posted
 * for the caller's release(). */
static int wait_step(void *ctx, int slot)
{
    mca_coll_rabred_exec_t *x = ctx;
    ompi_request_t **reqs = x->reqs[slot];
    int *n = &x->n[slot];
    for (int i = 0; i < *n; i++) {
        int rc = ompi_request_wait(&reqs[i], MPI_STATUS_IGNORE);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    *n = 0;
    return OMPI_SUCCESS;
}

/* The nonblocking form of wait_step, run from Open MPI's progress engine:
 * it looks at the requests' completion flags and never calls progress
 * itself (it runs inside opal_progress).  Completed requests are freed,
 * from the last, so a partial pass keeps what is still in flight. */
static int test_step(void *ctx, int slot, int *done)
{
    mca_coll_rabred_exec_t *x = ctx;
    ompi_request_t **reqs = x->reqs[slot];
    int *n = &x->n[slot];
    while (*n > 0) {
        ompi_request_t **last = &reqs[*n - 1];
        if (!REQUEST_COMPLETE(*last)) {
            *done = 0;
            return OMPI_SUCCESS;
        }
        int rc = (*last)->req_status.MPI_ERROR;
        ompi_request_free(last);
        (*n)--;
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    *done = 1;
    return OMPI_SUCCESS;
}

/* The transport's operations; rabred_schedule_walk owns the order. */
static const rabred_schedule_ops_t pml_ops = {
    .post = post, .wait = wait_step, .locals = run_locals, .test = test_step};

void mca_coll_rabred_exec_init(mca_coll_rabred_exec_t *x, const rabred_ready_plan_t *ready,
                               const mca_coll_rabred_bufs_t *bufs, struct ompi_datatype_t *dtype,
                               struct ompi_op_t *op, int tag, struct ompi_communicator_t *comm,
                               ompi_request_t **slots)
{
    x->sends_first_len = ready->sends_first_len;
    x->held = NULL;
    x->blocking = 0;
    x->plan = &ready->plan;
    x->sched = &ready->schedule;
    x->bufs = *bufs;
    x->extent = (ptrdiff_t)ready->elements.extent;
    /* memcpy for a predefined type whose elements are contiguous */
    x->plain = opal_datatype_is_predefined(&dtype->super) &&
                       ready->elements.type_size == ready->elements.extent
                   ? (size_t)ready->elements.type_size
                   : 0;
    x->dtype = dtype;
    x->op = op;
    x->tag = tag;
    x->comm = comm;
    x->reqs[0] = slots;
    x->reqs[1] = slots + ready->schedule.max_requests;
    x->n[0] = x->n[1] = 0;
    x->cursor.step = x->cursor.started = 0;
}

int mca_coll_rabred_exec_resume(mca_coll_rabred_exec_t *x, int *done)
{
    return rabred_schedule_resume(x->sched, &pml_ops, x, &x->cursor, done);
}

void mca_coll_rabred_exec_abandon(mca_coll_rabred_exec_t *x)
{
    release(x->reqs[0], x->n[0]);
    release(x->reqs[1], x->n[1]);
    x->n[0] = x->n[1] = 0;
}

/* A ready plan whose one_transfer is set: what the blocking walk does
 * with its one step (post() runs the lone transfer with the PML's
 * blocking call, nothing is left to wait for, then the step's local
 * steps), without the walk's indirect calls and request slots: at the
 * root of a small MPI_Reduce over two ranks the walk cost more
 * instructions than the receive itself (bench/shm/call-instructions.sh). */
static int run_one_transfer(const mca_coll_rabred_exec_t *x)
{
    const rabred_step_t *st = &x->sched->steps[0];
    int rc = transfer_now(x, st);
    for (int r = st->first; r < st->end && OMPI_SUCCESS == rc; r++) {
        rc = run_locals((void *)x, r);
    }
    return rc;
}

int mca_coll_rabred_execute(const rabred_ready_plan_t *ready, const mca_coll_rabred_bufs_t *bufs,
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op, int tag,
                            struct ompi_communicator_t *comm)
{
    mca_coll_rabred_exec_t x;
    mca_coll_rabred_exec_init(&x, ready, bufs, dtype, op, tag, comm,
                              (ompi_request_t **)ready->requests);
    x.blocking = 1;
    if (ready->one_transfer) {
        return run_one_transfer(&x); /* nothing posted: nothing to drop */
    }
    int rc = rabred_schedule_walk(&ready->schedule, &pml_ops, &x);
    if (OMPI_SUCCESS != rc) { /* drop what is still posted */
        mca_coll_rabred_exec_abandon(&x);
    }
    return rc;
}

/* A leaf's whole plan: one send of its input (the ready plan's
 * only_send).  The PML's blocking send straight from the input, with no
 * temporaries and no executor state: in a loop of small MPI_Reduce calls
 * the leaf sets the pace (its stores queue behind its copy into the
 * shared-memory transport's buffer), so every store it skips counts
 * (bench/results/shm-p2-20261128). */
int mca_coll_rabred_send_only(const rabred_ready_plan_t *ready, const void *input,
                              struct ompi_datatype_t *dtype, int tag,
                              struct ompi_communicator_t *comm)
{
    const rabred_xfer_t *t = &ready->plan.xfers[0];
    uintptr_t at = (uintptr_t)input + (uintptr_t)((ptrdiff_t)t->off * ready->elements.extent);
    return MCA_PML_CALL(send((char *)at, (size_t)t->len, dtype, t->peer, tag,
                             MCA_PML_BASE_SEND_STANDARD, comm));
}

int mca_coll_rabred_internal_plan(mca_coll_rabred_module_t *m, int count,
                                  struct ompi_communicator_t *comm,
                                  const rabred_ready_plan_t **out)
{
    if (count != m->internal_count) { /* prepared once per size (set-up, then gaps) */
        rabred_plan_args_t args = {ompi_comm_size(comm), ompi_comm_rank(comm), -1, count, 1, 0,
                                   NULL, 1, NULL}; /* vec is INPUT and ACC */
        rabred_elements_t elements = {sizeof(uint64_t), sizeof(uint64_t), m->sends_first_bytes};
        int rc = rabred_ready_plan_build(&m->internal, &rabred_alg_allreduce_recursive_doubling,
                                         &args, &elements);
        m->internal_count = RABRED_OK == rc ? count : -1;
        if (RABRED_OK != rc) {
            return RABRED_ERR_NOMEM == rc ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_BAD_PARAM;
        }
    }
    *out = &m->internal;
    return OMPI_SUCCESS;
}

mca_coll_rabred_bufs_t mca_coll_rabred_internal_bufs(void *vec, void *tmp)
{
    mca_coll_rabred_bufs_t bufs = {{(char *)vec, (char *)vec, (char *)tmp, NULL}, {0, 0, 0, 0}};
    return bufs;
}

int mca_coll_rabred_allreduce_max(mca_coll_rabred_module_t *m, void *vec, void *tmp, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_communicator_t *comm)
{
    const rabred_ready_plan_t *ready;
    size_t size = 0;
    ompi_datatype_type_size(dtype, &size);
    if (sizeof(uint64_t) != size) { /* the internal plan's elements are 8 bytes */
        return OMPI_ERR_BAD_PARAM;
    }
    int rc = mca_coll_rabred_internal_plan(m, count, comm, &ready);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    mca_coll_rabred_bufs_t bufs = mca_coll_rabred_internal_bufs(vec, tmp);
    return mca_coll_rabred_execute(ready, &bufs, dtype, &ompi_mpi_op_max.op,
                                   MCA_COLL_BASE_TAG_ALLREDUCE, comm);
}
