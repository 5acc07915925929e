/*
 * rabred plans: storage and the small builder API (see rabred_plan.h).
 * Arrays grow by doubling; a failed allocation is recorded once and every
 * later call becomes a no-op, so builders need no error checks of their own.
 */
#include "plan/rabred_plan.h"

#include <stdlib.h>
#include <string.h>

void rabred_plan_init(rabred_plan_t *plan)
{
    memset(plan, 0, sizeof(*plan));
}

void rabred_plan_reset(rabred_plan_t *plan)
{
    plan->nrounds = plan->nxfers = plan->nlocals = 0;
    memset(plan->uses, 0, sizeof(plan->uses));
    plan->error = RABRED_OK;
    memset(&plan->view, 0, sizeof(plan->view));
    plan->fresh = 0;
}

void rabred_plan_view(rabred_plan_t *plan, const rabred_plan_view_t *view)
{
    if (NULL != view) {
        plan->view = *view;
    } else {
        memset(&plan->view, 0, sizeof(plan->view));
    }
    plan->fresh = 1;
}

/* Where a member's step lands in the communicator's plan. */
static int view_peer(const rabred_plan_t *plan, int peer)
{
    return NULL != plan->view.peers ? plan->view.peers[peer] : peer;
}

static rabred_buf_t view_buf(const rabred_plan_t *plan, rabred_buf_t buf)
{
    return plan->view.input_is_acc && RABRED_BUF_INPUT == buf ? RABRED_BUF_ACC : buf;
}

void rabred_plan_free(rabred_plan_t *plan)
{
    free(plan->rounds);
    free(plan->xfers);
    free(plan->locals);
    rabred_plan_init(plan);
}

/* Make room for one more element of size `size` in *array. */
static int reserve(rabred_plan_t *plan, void **array, int32_t used, int32_t *cap, size_t size)
{
    if (plan->error != RABRED_OK) {
        return 0;
    }
    if (used < *cap) {
        return 1;
    }
    int32_t ncap = *cap ? 2 * *cap : 16;
    void *grown = realloc(*array, (size_t)ncap * size);
    if (NULL == grown) {
        plan->error = RABRED_ERR_NOMEM;
        return 0;
    }
    *array = grown;
    *cap = ncap;
    return 1;
}

void rabred_plan_round(rabred_plan_t *plan)
{
    if (!reserve(plan, (void **)&plan->rounds, plan->nrounds, &plan->cap_rounds,
                 sizeof(rabred_round_t))) {
        return;
    }
    plan->fresh = 0;
    rabred_round_t *r = &plan->rounds[plan->nrounds++];
    r->first_xfer = plan->nxfers;
    r->first_local = plan->nlocals;
    r->nxfer = r->nlocal = 0;
    r->joined = 0;
}

void rabred_plan_round_joined(rabred_plan_t *plan)
{
    int had = plan->nrounds, fresh = plan->fresh;
    rabred_plan_round(plan);
    if (had > 0 && plan->nrounds > had && !fresh) {
        plan->rounds[had].joined = 1;
    }
}

static rabred_round_t *current_round(rabred_plan_t *plan)
{
    if (0 == plan->nrounds || plan->fresh) {
        rabred_plan_round(plan);
    }
    return plan->error == RABRED_OK ? &plan->rounds[plan->nrounds - 1] : NULL;
}

static void add_xfer(rabred_plan_t *plan, rabred_xfer_dir_t dir, int peer, rabred_buf_t buf,
                     int64_t off, int64_t len)
{
    if (len <= 0) {
        return;
    }
    peer = view_peer(plan, peer);
    buf = view_buf(plan, buf);
    off += plan->view.base;
    rabred_round_t *r = current_round(plan);
    if (NULL == r || !reserve(plan, (void **)&plan->xfers, plan->nxfers, &plan->cap_xfers,
                              sizeof(rabred_xfer_t))) {
        return;
    }
    rabred_xfer_t *x = &plan->xfers[plan->nxfers++];
    x->peer = peer;
    x->dir = (uint8_t)dir;
    x->buf = (uint8_t)buf;
    x->off = off;
    x->len = len;
    r->nxfer++;
    plan->uses[buf] = 1;
}

void rabred_plan_recv(rabred_plan_t *plan, int peer, rabred_buf_t buf, int64_t off, int64_t len)
{
    add_xfer(plan, RABRED_XFER_RECV, peer, buf, off, len);
}

void rabred_plan_send(rabred_plan_t *plan, int peer, rabred_buf_t buf, int64_t off, int64_t len)
{
    add_xfer(plan, RABRED_XFER_SEND, peer, buf, off, len);
}

/* Appends local step `step` (its buffers and ranges as the builder names
 * them: the view maps both). */
static void add_local(rabred_plan_t *plan, rabred_local_t step)
{
    if (step.len <= 0) {
        return;
    }
    step.src = (uint8_t)view_buf(plan, step.src);
    step.dst = (uint8_t)view_buf(plan, step.dst);
    step.off += plan->view.base;
    step.src_off += plan->view.base;
    if (step.src == step.dst) {
        /* a copy onto itself under input_is_acc does nothing; a reduction
         * of a buffer into itself, or a copy within one, is a builder's
         * error */
        if ((RABRED_LOCAL_REDUCE == step.kind || step.src_off != step.off) &&
            RABRED_OK == plan->error) {
            plan->error = RABRED_ERR_ARG;
        }
        return;
    }
    rabred_round_t *r = current_round(plan);
    if (NULL == r || !reserve(plan, (void **)&plan->locals, plan->nlocals, &plan->cap_locals,
                              sizeof(rabred_local_t))) {
        return;
    }
    plan->locals[plan->nlocals++] = step;
    r->nlocal++;
    plan->uses[step.src] = plan->uses[step.dst] = 1;
}

static rabred_local_t local_step(rabred_local_kind_t kind, rabred_buf_t src, int64_t src_off,
                                 rabred_buf_t dst, int64_t off, int64_t len)
{
    rabred_local_t step = {0};
    step.kind = (uint8_t)kind;
    step.src = (uint8_t)src;
    step.dst = (uint8_t)dst;
    step.off = off;
    step.len = len;
    step.src_off = src_off;
    return step;
}

void rabred_plan_reduce(rabred_plan_t *plan, rabred_buf_t src, rabred_buf_t dst, int64_t off,
                        int64_t len, int src_first)
{
    rabred_plan_reduce_from(plan, src, off, dst, off, len, src_first);
}

void rabred_plan_reduce_from(rabred_plan_t *plan, rabred_buf_t src, int64_t src_off,
                             rabred_buf_t dst, int64_t off, int64_t len, int src_first)
{
    rabred_local_t step = local_step(RABRED_LOCAL_REDUCE, src, src_off, dst, off, len);
    step.src_first = (uint8_t)(src_first ? 1 : 0);
    add_local(plan, step);
}

void rabred_plan_reduce_replicated(rabred_plan_t *plan, rabred_buf_t src, rabred_buf_t dst,
                                   int64_t off, int64_t len, int src_first)
{
    rabred_local_t step = local_step(RABRED_LOCAL_REDUCE, src, off, dst, off, len);
    step.src_first = (uint8_t)(src_first ? 1 : 0);
    step.replicated = 1;
    add_local(plan, step);
}

void rabred_plan_copy(rabred_plan_t *plan, rabred_buf_t src, rabred_buf_t dst, int64_t off,
                      int64_t len)
{
    add_local(plan, local_step(RABRED_LOCAL_COPY, src, off, dst, off, len));
}

int rabred_plan_build(rabred_plan_builder_fn build, const rabred_plan_args_t *args,
                      rabred_plan_t *plan)
{
    rabred_plan_reset(plan);
    if (args->p < 1 || args->rank < 0 || args->rank >= args->p || args->count < 0 ||
        args->root >= args->p) {
        return RABRED_ERR_ARG;
    }
    int rc = build(args, plan);
    return rc != RABRED_OK ? rc : plan->error;
}

static int storage(int buf, int input_is_acc)
{
    return (RABRED_BUF_INPUT == buf && input_is_acc) ? RABRED_BUF_ACC : buf;
}

static int touches(int buf_a, int64_t off_a, int64_t len_a, int buf_b, int64_t off_b,
                   int64_t len_b, int input_is_acc)
{
    return storage(buf_a, input_is_acc) == storage(buf_b, input_is_acc) &&
           off_a < off_b + len_b && off_b < off_a + len_a;
}

/* Does transfer x conflict with local step l (see rabred_plan_can_post_early)?
 * A reduce with the destination first also writes its source (the executor
 * computes there and copies back). */
static int conflicts(const rabred_xfer_t *x, const rabred_local_t *l, int input_is_acc)
{
    int writes_src = RABRED_LOCAL_REDUCE == l->kind && !l->src_first;
    int hits_dst = touches(x->buf, x->off, x->len, l->dst, l->off, l->len, input_is_acc);
    int hits_src = touches(x->buf, x->off, x->len, l->src, l->src_off, l->len, input_is_acc);
    if (RABRED_XFER_SEND == x->dir) {
        return hits_dst || (writes_src && hits_src);
    }
    return hits_dst || hits_src;
}

/* Does any transfer of round `later` in direction `dir` (or any direction
 * when dir < 0) conflict with round r's local steps? */
static int round_conflicts(const rabred_plan_t *plan, int r, int later, int dir, int input_is_acc)
{
    const rabred_round_t *cur = &plan->rounds[r], *next = &plan->rounds[later];
    for (int k = 0; k < next->nxfer; k++) {
        const rabred_xfer_t *x = &plan->xfers[next->first_xfer + k];
        if (dir >= 0 && x->dir != dir) {
            continue;
        }
        for (int j = 0; j < cur->nlocal; j++) {
            if (conflicts(x, &plan->locals[cur->first_local + j], input_is_acc)) {
                return 1;
            }
        }
    }
    return 0;
}

int rabred_plan_group_end(const rabred_plan_t *plan, int r)
{
    int end = r + 1;
    while (end < plan->nrounds && plan->rounds[end].joined) {
        end++;
    }
    return end;
}

/* Do two transfers of different rounds race when posted at once?  Yes when
 * one receives into what the other sends or receives. */
static int xfers_race(const rabred_xfer_t *x, const rabred_xfer_t *y, int input_is_acc)
{
    return (RABRED_XFER_RECV == x->dir || RABRED_XFER_RECV == y->dir) &&
           touches(x->buf, x->off, x->len, y->buf, y->off, y->len, input_is_acc);
}

static int rounds_race(const rabred_plan_t *plan, int r, int later, int input_is_acc)
{
    const rabred_round_t *a = &plan->rounds[r], *b = &plan->rounds[later];
    for (int i = 0; i < a->nxfer; i++) {
        for (int j = 0; j < b->nxfer; j++) {
            if (xfers_race(&plan->xfers[a->first_xfer + i], &plan->xfers[b->first_xfer + j],
                           input_is_acc)) {
                return 1;
            }
        }
    }
    return 0;
}

int rabred_plan_group_safe(const rabred_plan_t *plan, int first, int end, int input_is_acc)
{
    for (int later = first + 1; later < end; later++) {
        for (int r = first; r < later; r++) {
            if (round_conflicts(plan, r, later, -1, input_is_acc) ||
                rounds_race(plan, r, later, input_is_acc)) {
                return 0;
            }
        }
    }
    return 1;
}

int rabred_plan_can_post_early(const rabred_plan_t *plan, int r, int input_is_acc)
{
    return r + 1 < plan->nrounds && !round_conflicts(plan, r, r + 1, -1, input_is_acc);
}

int rabred_plan_can_post_recvs_early(const rabred_plan_t *plan, int r, int input_is_acc)
{
    return r + 1 < plan->nrounds &&
           !round_conflicts(plan, r, r + 1, RABRED_XFER_RECV, input_is_acc);
}
