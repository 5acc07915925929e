/*
 * The executor: the only rabred code that touches the PML (DESIGN.md).
 *
 * For each round of a plan (or group of joined rounds, rabred_plan.h):
 * post every receive, then every send (receives first so eager data lands
 * in place), wait for all, then run the local steps with ompi_op_reduce
 * and datatype copies.  The next round, or its
 * receives alone, is posted before those steps when the plan allows it
 * (early_part).  Addresses are
 * base + off * extent in 64-bit arithmetic (ptrdiff_t), so vectors over
 * 2^31 bytes are fine; counts go to the PML as size_t.
 *
 * Errors: the first PML or allocation error is returned as the real OMPI
 * code (a failed request's own error, not MPI_ERR_IN_STATUS); requests
 * still posted are cancelled and released, never leaked.  One the PML
 * cannot cancel may still touch the buffers, so the caller leaks its
 * temporaries after an error (run_plan).
 */
#include "coll_rabred.h"

#include <stdlib.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"

int mca_coll_rabred_tmpbuf_alloc(mca_coll_rabred_tmpbuf_t *t, struct ompi_datatype_t *dtype,
                                 size_t count, mca_coll_rabred_scratch_t *scratch)
{
    ptrdiff_t gap = 0;
    ptrdiff_t span = opal_datatype_span(&dtype->super, count, &gap);
    size_t need = span > 0 ? (size_t)span : 1;
    t->raw = t->buf = NULL;
    if (need <= (size_t)mca_coll_rabred_component.cache_bytes) {
        if (scratch->cap < need) {
            mca_coll_rabred_scratch_release(scratch);
            if (NULL == (scratch->raw = malloc(need))) {
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            scratch->cap = need;
        }
        t->buf = scratch->raw - gap;
        return OMPI_SUCCESS;
    }
    if (NULL == (t->raw = malloc(need))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    t->buf = t->raw - gap;
    return OMPI_SUCCESS;
}

void mca_coll_rabred_tmpbuf_free(mca_coll_rabred_tmpbuf_t *t)
{
    free(t->raw);
    t->raw = t->buf = NULL;
}

void mca_coll_rabred_scratch_release(mca_coll_rabred_scratch_t *scratch)
{
    free(scratch->raw);
    scratch->raw = NULL;
    scratch->cap = 0;
}

static char *address(char *bufs[RABRED_NBUFS], int buf, int64_t off, ptrdiff_t extent)
{
    return bufs[buf] + (ptrdiff_t)off * extent;
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

/* Post round rd's transfers of directions first..last (RECV before SEND:
 * receives first so eager data lands in place), appending to reqs[*n];
 * *n counts the requests posted, also on error. */
static int post_xfers(const rabred_plan_t *plan, const rabred_round_t *rd, int first, int last,
                      char *bufs[RABRED_NBUFS], struct ompi_datatype_t *dtype, int tag,
                      struct ompi_communicator_t *comm, ompi_request_t **reqs, int *n)
{
    ptrdiff_t lb, extent;
    ompi_datatype_get_extent(dtype, &lb, &extent);
    int rc = OMPI_SUCCESS;
    for (int pass = first; pass <= last && OMPI_SUCCESS == rc; pass++) {
        for (int k = 0; k < rd->nxfer && OMPI_SUCCESS == rc; k++) {
            const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
            if (x->dir != pass) {
                continue;
            }
            char *ptr = address(bufs, x->buf, x->off, extent);
            reqs[*n] = MPI_REQUEST_NULL;
            rc = RABRED_XFER_RECV == pass
                     ? MCA_PML_CALL(irecv(ptr, (size_t)x->len, dtype, x->peer, tag, comm, &reqs[*n]))
                     : MCA_PML_CALL(isend(ptr, (size_t)x->len, dtype, x->peer, tag,
                                          MCA_PML_BASE_SEND_STANDARD, comm, &reqs[*n]));
            (*n)++;
        }
    }
    return rc;
}

/* dst = src (op) dst, or dst = dst (op) src.  ompi_op_reduce computes only
 * the first form in place; the second computes into src (always a scratch
 * buffer: plans reduce only from TMP or TMP2) and copies back.  When the op commutes
 * and no other rank computes the same value, the cheap first form gives the
 * same result and saves that copy; a replicated value (recursive doubling)
 * keeps the stated order so both partners get the same bits, since
 * MAX(+0, -0) or NaN payloads depend on operand order. */
static int reduce_step(const rabred_local_t *l, char *src, char *dst,
                       struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    if (l->src_first || (!l->replicated && ompi_op_is_commute(op))) {
        ompi_op_reduce(op, src, dst, (size_t)l->len, dtype);
        return OMPI_SUCCESS;
    }
    if (RABRED_BUF_TMP != l->src && RABRED_BUF_TMP2 != l->src) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    ompi_op_reduce(op, dst, src, (size_t)l->len, dtype);
    return ompi_datatype_copy_content_same_ddt(dtype, (size_t)l->len, dst, src);
}

static int run_locals(const rabred_plan_t *plan, const rabred_round_t *rd,
                      char *bufs[RABRED_NBUFS], struct ompi_datatype_t *dtype,
                      struct ompi_op_t *op)
{
    ptrdiff_t lb, extent;
    ompi_datatype_get_extent(dtype, &lb, &extent);
    for (int k = 0; k < rd->nlocal; k++) {
        const rabred_local_t *l = &plan->locals[rd->first_local + k];
        char *src = address(bufs, l->src, l->off, extent);
        char *dst = address(bufs, l->dst, l->off, extent);
        int rc = OMPI_SUCCESS;
        if (RABRED_LOCAL_REDUCE == l->kind) {
            rc = reduce_step(l, src, dst, dtype, op);
        } else if (src != dst) { /* a copy onto itself is MPI_IN_PLACE */
            rc = ompi_datatype_copy_content_same_ddt(dtype, (size_t)l->len, dst, src);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* Requests of one posted round. */
typedef struct {
    ompi_request_t *few[8], **reqs;
    int n;
} rabred_reqs_t;

static int reqs_init(rabred_reqs_t *r, int max)
{
    r->reqs = max > 8 ? malloc((size_t)max * sizeof(*r->reqs)) : r->few;
    r->n = 0;
    return NULL == r->reqs ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

static void reqs_fini(rabred_reqs_t *r)
{
    if (NULL != r->reqs && r->reqs != r->few) {
        free(r->reqs);
    }
}

/* Which transfers of round r+1 go out before round r's local steps: all of
 * them when the plan allows it (rabred_plan_can_post_early), so they
 * overlap the reduction; else its receives alone when they may
 * (rabred_plan_can_post_recvs_early), so incoming data is matched at once;
 * else none.  Returns the last direction posted early (-1: none). */
static int early_part(const rabred_plan_t *plan, int r, int input_is_acc)
{
    if (rabred_plan_can_post_early(plan, r, input_is_acc)) {
        return RABRED_XFER_SEND;
    }
    return rabred_plan_can_post_recvs_early(plan, r, input_is_acc) ? RABRED_XFER_RECV : -1;
}

/* Round a's group: [a, end) when its joined rounds may go at once
 * (rabred_plan_group_safe), else a alone. */
static int group_end(const rabred_plan_t *plan, int a, int input_is_acc)
{
    int end = rabred_plan_group_end(plan, a);
    return end > a + 1 && rabred_plan_group_safe(plan, a, end, input_is_acc) ? end : a + 1;
}

/* Posts every transfer of rounds [a, b): all receives, then all sends. */
static int post_group(const rabred_plan_t *plan, int a, int b, char *bufs[RABRED_NBUFS],
                      struct ompi_datatype_t *dtype, int tag, struct ompi_communicator_t *comm,
                      rabred_reqs_t *q)
{
    int rc = OMPI_SUCCESS;
    for (int dir = RABRED_XFER_RECV; dir <= RABRED_XFER_SEND; dir++) {
        for (int r = a; r < b && OMPI_SUCCESS == rc; r++) {
            rc = post_xfers(plan, &plan->rounds[r], dir, dir, bufs, dtype, tag, comm, q->reqs,
                            &q->n);
        }
    }
    return rc;
}

/* Waits for every request of a posted round.  On failure Open MPI's
 * wait_all frees only the requests that succeeded and reports
 * MPI_ERR_IN_STATUS: return the first failed request's own error (e.g.
 * MPI_ERR_TRUNCATE) instead, and keep the count so that the caller's
 * release() frees the failed and unfinished ones. */
static int wait_round(rabred_reqs_t *cur)
{
    if (0 == cur->n) {
        return OMPI_SUCCESS;
    }
    int rc = ompi_request_wait_all(cur->n, cur->reqs, MPI_STATUSES_IGNORE);
    if (OMPI_SUCCESS == rc) {
        cur->n = 0;
        return rc;
    }
    for (int i = 0; i < cur->n; i++) {
        ompi_request_t *r = cur->reqs[i];
        if (MPI_REQUEST_NULL != r && REQUEST_COMPLETE(r) && MPI_SUCCESS != r->req_status.MPI_ERROR) {
            return r->req_status.MPI_ERROR;
        }
    }
    return rc;
}

/* Runs the rounds in order, a group of joined rounds as one (post all,
 * wait for all, then its local steps), and posts the next round (or part
 * of it) before a round's local steps whenever the plan allows it
 * (early_part; between single rounds only). */
static int run_rounds(const rabred_plan_t *plan, char *bufs[RABRED_NBUFS],
                      struct ompi_datatype_t *dtype, struct ompi_op_t *op, int tag,
                      struct ompi_communicator_t *comm, rabred_reqs_t q[2])
{
    int input_is_acc = bufs[RABRED_BUF_INPUT] == bufs[RABRED_BUF_ACC];
    q[0].n = q[1].n = 0;
    int a = 0, b = 0 < plan->nrounds ? group_end(plan, 0, input_is_acc) : 0;
    int rc = post_group(plan, a, b, bufs, dtype, tag, comm, &q[0]);
    for (int g = 0; a < plan->nrounds && OMPI_SUCCESS == rc; g++) {
        rabred_reqs_t *cur = &q[g & 1], *next = &q[(g + 1) & 1];
        rc = wait_round(cur);
        int more = b < plan->nrounds;
        int c = more ? group_end(plan, b, input_is_acc) : b; /* the next group: [b, c) */
        int singles = b == a + 1 && c == b + 1;
        int early = more && singles ? early_part(plan, a, input_is_acc) : -1;
        if (OMPI_SUCCESS == rc && early >= RABRED_XFER_RECV) {
            rc = post_xfers(plan, &plan->rounds[b], RABRED_XFER_RECV, early, bufs, dtype, tag,
                            comm, next->reqs, &next->n);
        }
        for (int r = a; r < b && OMPI_SUCCESS == rc; r++) {
            rc = run_locals(plan, &plan->rounds[r], bufs, dtype, op);
        }
        if (OMPI_SUCCESS == rc && more && !singles) {
            rc = post_group(plan, b, c, bufs, dtype, tag, comm, next);
        } else if (OMPI_SUCCESS == rc && more && early < RABRED_XFER_SEND) {
            rc = post_xfers(plan, &plan->rounds[b], early + 1, RABRED_XFER_SEND, bufs, dtype,
                            tag, comm, next->reqs, &next->n);
        }
        a = b;
        b = c;
    }
    return rc;
}

int mca_coll_rabred_execute(const rabred_plan_t *plan, char *bufs[RABRED_NBUFS],
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op, int tag,
                            struct ompi_communicator_t *comm)
{
    int maxx = 0;
    for (int a = 0, b; a < plan->nrounds; a = b) {
        /* the most requests a group of joined rounds can post (whether it
         * is safe to run at once is run_rounds' business) */
        int n = 0;
        b = rabred_plan_group_end(plan, a);
        for (int r = a; r < b; r++) {
            n += plan->rounds[r].nxfer;
        }
        maxx = n > maxx ? n : maxx;
    }
    rabred_reqs_t q[2];
    int rc0 = reqs_init(&q[0], maxx), rc1 = reqs_init(&q[1], maxx);
    int rc = OMPI_SUCCESS != rc0 ? rc0 : rc1;
    if (OMPI_SUCCESS == rc) {
        rc = run_rounds(plan, bufs, dtype, op, tag, comm, q);
    }
    for (int i = 0; i < 2; i++) { /* after an error: drop what is still posted */
        if (OMPI_SUCCESS != rc && NULL != q[i].reqs) {
            release(q[i].reqs, q[i].n);
        }
        reqs_fini(&q[i]);
    }
    return rc;
}
