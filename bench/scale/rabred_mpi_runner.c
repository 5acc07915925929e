/*
 * The MPI-level runner (rabred_mpi_runner.h): it gives
 * rabred_schedule_walk, which the executor (coll_rabred_exec.c) uses too,
 * its MPI operations, so that a plan's order of posts, waits and
 * reductions, and its overlap of transfers and reductions, are the same
 * under any MPI.  Two request arrays: step k waits in one while step k+1
 * is posted into the other.
 */
#include "rabred_mpi_runner.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const rabred_plan_t *plan;
    const rabred_schedule_t *sched;
    const rabred_mpi_call_t *call;
    MPI_Request *reqs[2]; /* step k waits in reqs[k & 1] while step k+1 is posted */
    int n[2];
} runner_t;

static char *address(const runner_t *x, int buf, int64_t off)
{
    return x->call->base[buf] + (ptrdiff_t)off * (ptrdiff_t)x->call->extent;
}

/* Posts [from, to) of step st, appending to reqs[*n]. */
static int post(void *ctx, const rabred_step_t *st, int from, int to, int slot)
{
    runner_t *x = ctx;
    MPI_Request *reqs = x->reqs[slot];
    int *n = &x->n[slot];
    const rabred_mpi_call_t *c = x->call;
    int rc = MPI_SUCCESS;
    for (int i = from; i < to && MPI_SUCCESS == rc; i++) {
        const rabred_xfer_t *t = &x->plan->xfers[x->sched->posts[st->post_first + i]];
        char *ptr = address(x, t->buf, t->off);
        rc = RABRED_XFER_RECV == t->dir
                 ? MPI_Irecv(ptr, (int)t->len, c->dtype, t->peer, c->tag, c->comm, &reqs[*n])
                 : MPI_Isend(ptr, (int)t->len, c->dtype, t->peer, c->tag, c->comm, &reqs[*n]);
        if (MPI_SUCCESS == rc) {
            (*n)++;
        }
    }
    return rc;
}

/* dst = src (op) dst, or dst = dst (op) src: MPI_Reduce_local computes
 * only the first form in place (inoutbuf = inbuf op inoutbuf), so the
 * second computes into src (a scratch buffer: plans reduce only from TMP
 * or TMP2) and copies back.  A commutative op takes the first form unless
 * another rank computes the same value (rabred_plan_reduce_replicated). */
static int reduce_step(const runner_t *x, const rabred_local_t *l, char *src, char *dst)
{
    const rabred_mpi_call_t *c = x->call;
    int rc;
    if (l->src_first || (!l->replicated && c->commutative)) {
        rc = MPI_Reduce_local(src, dst, (int)l->len, c->dtype, c->op);
    } else if (RABRED_BUF_TMP != l->src && RABRED_BUF_TMP2 != l->src) {
        return MPI_ERR_ARG;
    } else {
        rc = MPI_Reduce_local(dst, src, (int)l->len, c->dtype, c->op);
        memcpy(dst, src, (size_t)l->len * c->extent);
    }
    if (MPI_SUCCESS == rc && NULL != c->charge_reduce) {
        c->charge_reduce(c->ctx, l->len);
    }
    return rc;
}

static int run_locals(void *ctx, int r)
{
    const runner_t *x = ctx;
    const rabred_round_t *rd = &x->plan->rounds[r];
    for (int k = 0; k < rd->nlocal; k++) {
        const rabred_local_t *l = &x->plan->locals[rd->first_local + k];
        char *src = address(x, l->src, l->src_off);
        char *dst = address(x, l->dst, l->off);
        int rc = MPI_SUCCESS;
        if (RABRED_LOCAL_REDUCE == l->kind) {
            rc = reduce_step(x, l, src, dst);
        } else if (src != dst) { /* a copy onto itself is MPI_IN_PLACE */
            memcpy(dst, src, (size_t)l->len * x->call->extent);
        }
        if (MPI_SUCCESS != rc) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

static int wait_step(void *ctx, int slot)
{
    runner_t *x = ctx;
    MPI_Request *reqs = x->reqs[slot];
    int *n = &x->n[slot];
    int rc = 0 < *n ? MPI_Waitall(*n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    if (MPI_SUCCESS == rc) {
        *n = 0;
    }
    return rc;
}

/* The transport's operations; rabred_schedule_walk owns the order. */
static const rabred_schedule_ops_t mpi_ops = {.post = post, .wait = wait_step, .locals = run_locals};

static void release(MPI_Request *reqs, int n)
{
    for (int i = 0; i < n; i++) {
        if (MPI_REQUEST_NULL != reqs[i]) {
            MPI_Cancel(&reqs[i]);
            MPI_Request_free(&reqs[i]);
        }
    }
}

int rabred_mpi_run(const rabred_ready_plan_t *ready, const rabred_mpi_call_t *call)
{
    int slots = ready->schedule.max_requests > 0 ? ready->schedule.max_requests : 1;
    MPI_Request *all = malloc(2 * (size_t)slots * sizeof(*all));
    if (NULL == all) {
        return MPI_ERR_NO_MEM;
    }
    runner_t x = {&ready->plan, &ready->schedule, call, {all, all + slots}, {0, 0}};
    int rc = rabred_schedule_walk(&ready->schedule, &mpi_ops, &x);
    if (MPI_SUCCESS != rc) {
        release(x.reqs[0], x.n[0]);
        release(x.reqs[1], x.n[1]);
    }
    free(all);
    return rc;
}
