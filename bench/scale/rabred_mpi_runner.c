/*
 * The MPI-level runner (rabred_mpi_runner.h): step k of the schedule posts
 * its receives, then its sends, waits for them all, then runs its rounds'
 * local steps; step k+1's first `early` posts go out before those local
 * steps, the rest after, exactly as the executor (coll_rabred_exec.c)
 * does, so that a plan's overlap of transfers and reductions is the same
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
} runner_t;

static char *address(const runner_t *x, int buf, int64_t off)
{
    return x->call->base[buf] + (ptrdiff_t)off * (ptrdiff_t)x->call->extent;
}

/* Posts [from, to) of step st, appending to reqs[*n]. */
static int post(const runner_t *x, const rabred_step_t *st, int from, int to, MPI_Request *reqs,
                int *n)
{
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

static int run_locals(const runner_t *x, int r)
{
    const rabred_round_t *rd = &x->plan->rounds[r];
    for (int k = 0; k < rd->nlocal; k++) {
        const rabred_local_t *l = &x->plan->locals[rd->first_local + k];
        char *src = address(x, l->src, l->off);
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

static int wait_step(MPI_Request *reqs, int *n)
{
    int rc = 0 < *n ? MPI_Waitall(*n, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    if (MPI_SUCCESS == rc) {
        *n = 0;
    }
    return rc;
}

static int run_steps(const runner_t *x, MPI_Request *reqs[2], int n[2])
{
    const rabred_schedule_t *s = x->sched;
    int rc = 0 < s->nsteps ? post(x, &s->steps[0], 0, s->steps[0].post_count, reqs[0], &n[0])
                           : MPI_SUCCESS;
    for (int k = 0; k < s->nsteps && MPI_SUCCESS == rc; k++) {
        const rabred_step_t *st = &s->steps[k], *next = k + 1 < s->nsteps ? st + 1 : NULL;
        int cur = k & 1, nxt = cur ^ 1;
        rc = wait_step(reqs[cur], &n[cur]);
        if (MPI_SUCCESS == rc && NULL != next && st->early > 0) {
            rc = post(x, next, 0, st->early, reqs[nxt], &n[nxt]);
        }
        for (int r = st->first; r < st->end && MPI_SUCCESS == rc; r++) {
            rc = run_locals(x, r);
        }
        if (MPI_SUCCESS == rc && NULL != next) {
            rc = post(x, next, st->early, next->post_count, reqs[nxt], &n[nxt]);
        }
    }
    return rc;
}

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
    runner_t x = {&ready->plan, &ready->schedule, call};
    int slots = ready->schedule.max_requests > 0 ? ready->schedule.max_requests : 1;
    MPI_Request *all = malloc(2 * (size_t)slots * sizeof(*all));
    if (NULL == all) {
        return MPI_ERR_NO_MEM;
    }
    MPI_Request *reqs[2] = {all, all + slots};
    int n[2] = {0, 0};
    int rc = run_steps(&x, reqs, n);
    if (MPI_SUCCESS != rc) {
        release(reqs[0], n[0]);
        release(reqs[1], n[1]);
    }
    free(all);
    return rc;
}
