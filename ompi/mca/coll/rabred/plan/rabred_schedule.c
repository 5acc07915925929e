/*
 * The steps of a plan (see rabred_schedule.h).
 */
#include "plan/rabred_schedule.h"

#include <stdlib.h>
#include <string.h>

void rabred_schedule_init(rabred_schedule_t *s)
{
    memset(s, 0, sizeof(*s));
}

void rabred_schedule_free(rabred_schedule_t *s)
{
    free(s->steps);
    free(s->posts);
    rabred_schedule_init(s);
}

/* Round a's step: [a, end) when its joined rounds may go at once, else a
 * alone. */
static int step_end(const rabred_plan_t *plan, int a, int input_is_acc)
{
    int end = rabred_plan_group_end(plan, a);
    return end > a + 1 && rabred_plan_group_safe(plan, a, end, input_is_acc) ? end : a + 1;
}

/* What of round a+1 may go out before round a's local steps: the last
 * direction, or -1 for nothing. */
static int early_part(const rabred_plan_t *plan, int a, int input_is_acc)
{
    if (rabred_plan_can_post_early(plan, a, input_is_acc)) {
        return RABRED_XFER_SEND;
    }
    return rabred_plan_can_post_recvs_early(plan, a, input_is_acc) ? RABRED_XFER_RECV : -1;
}

static int grow(void **array, int32_t *cap, int32_t need, size_t size)
{
    if (need <= *cap) {
        return RABRED_OK;
    }
    int32_t ncap = *cap ? 2 * *cap : 16;
    while (ncap < need) {
        ncap *= 2;
    }
    void *grown = realloc(*array, (size_t)ncap * size);
    if (NULL == grown) {
        return RABRED_ERR_NOMEM;
    }
    *array = grown;
    *cap = ncap;
    return RABRED_OK;
}

/* Step [first, end): its transfers' indices, receives first. */
static int push_step(const rabred_plan_t *plan, rabred_schedule_t *s, int first, int end)
{
    int32_t n = 0;
    for (int r = first; r < end; r++) {
        n += plan->rounds[r].nxfer;
    }
    if (RABRED_OK != grow((void **)&s->steps, &s->cap, s->nsteps + 1, sizeof(*s->steps)) ||
        RABRED_OK != grow((void **)&s->posts, &s->posts_cap, s->nposts + n, sizeof(*s->posts))) {
        return RABRED_ERR_NOMEM;
    }
    rabred_step_t *st = &s->steps[s->nsteps++];
    *st = (rabred_step_t){.first = first, .end = end, .post_first = s->nposts, .post_count = n};
    for (int dir = RABRED_XFER_RECV; dir <= RABRED_XFER_SEND; dir++) {
        for (int r = first; r < end; r++) {
            const rabred_round_t *rd = &plan->rounds[r];
            for (int k = 0; k < rd->nxfer; k++) {
                const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
                if (x->dir == dir) {
                    s->posts[s->nposts++] = rd->first_xfer + k;
                }
                if (RABRED_XFER_SEND == dir && x->dir == dir) {
                    st->sends++;
                    st->max_send = x->len > st->max_send ? x->len : st->max_send;
                }
            }
        }
    }
    s->max_requests = n > s->max_requests ? n : s->max_requests;
    s->max_send = st->max_send > s->max_send ? st->max_send : s->max_send;
    return RABRED_OK;
}

/* How many of round r's transfers are receives. */
static int32_t receives(const rabred_plan_t *plan, int r)
{
    int32_t n = 0;
    for (int k = 0; k < plan->rounds[r].nxfer; k++) {
        n += RABRED_XFER_RECV == plan->xfers[plan->rounds[r].first_xfer + k].dir;
    }
    return n;
}

/* The walk from the cursor; blocking: ops->wait, else ops->test, and a
 * step not yet complete leaves the cursor on it. */
static int walk_from(const rabred_schedule_t *s, const rabred_schedule_ops_t *ops, void *ctx,
                     rabred_schedule_cursor_t *c, int blocking, int *done)
{
    int rc = 0;
    *done = 0;
    if (!c->started) {
        c->started = 1;
        rc = 0 < s->nsteps ? ops->post(ctx, &s->steps[0], 0, s->steps[0].post_count, 0) : 0;
    }
    for (; c->step < s->nsteps && 0 == rc; c->step++) {
        const rabred_step_t *st = &s->steps[c->step];
        const rabred_step_t *next = c->step + 1 < s->nsteps ? st + 1 : NULL;
        int cur = c->step & 1, nxt = cur ^ 1, complete = 1;
        rc = blocking ? ops->wait(ctx, cur) : ops->test(ctx, cur, &complete);
        if (0 == rc && !complete) {
            return 0; /* resumed here */
        }
        if (0 == rc && NULL != next && st->early > 0) {
            rc = ops->post(ctx, next, 0, st->early, nxt);
        }
        for (int r = st->first; r < st->end && 0 == rc; r++) {
            rc = ops->locals(ctx, r);
        }
        if (0 == rc && NULL != next) {
            rc = ops->post(ctx, next, st->early, next->post_count, nxt);
        }
    }
    *done = 0 == rc;
    return rc;
}

int rabred_schedule_walk(const rabred_schedule_t *s, const rabred_schedule_ops_t *ops, void *ctx)
{
    rabred_schedule_cursor_t c = {0, 0};
    int done;
    return walk_from(s, ops, ctx, &c, 1, &done);
}

int rabred_schedule_resume(const rabred_schedule_t *s, const rabred_schedule_ops_t *ops, void *ctx,
                           rabred_schedule_cursor_t *cursor, int *done)
{
    return walk_from(s, ops, ctx, cursor, 0, done);
}

/* How many local steps step st's rounds have. */
static int32_t step_locals(const rabred_plan_t *plan, const rabred_step_t *st)
{
    int32_t n = 0;
    for (int r = st->first; r < st->end; r++) {
        n += plan->rounds[r].nlocal;
    }
    return n;
}

int rabred_schedule_build(const rabred_plan_t *plan, int input_is_acc, rabred_schedule_t *s)
{
    s->nsteps = s->nposts = s->max_requests = 0;
    s->max_send = 0;
    for (int a = 0, b; a < plan->nrounds; a = b) {
        b = step_end(plan, a, input_is_acc);
        if (RABRED_OK != push_step(plan, s, a, b)) {
            s->nsteps = s->nposts = 0;
            return RABRED_ERR_NOMEM;
        }
    }
    /* early posting only between two single rounds */
    for (int k = 0; k + 1 < s->nsteps; k++) {
        rabred_step_t *cur = &s->steps[k], *next = &s->steps[k + 1];
        if (cur->end == cur->first + 1 && next->end == next->first + 1) {
            int dir = early_part(plan, cur->first, input_is_acc);
            cur->early = RABRED_XFER_SEND == dir   ? next->post_count
                         : RABRED_XFER_RECV == dir ? receives(plan, next->first)
                                                   : 0;
        }
    }
    for (int k = 0; k < s->nsteps; k++) {
        rabred_step_t *st = &s->steps[k];
        int32_t early = 0 == k ? 0 : s->steps[k - 1].early; /* of st's posts */
        st->alone = 1 == st->post_count && 0 == early;
        /* posted early, a send goes ahead of the step before's local
         * steps: harmless when there are none */
        st->late_send = 1 == st->sends &&
                        (0 == k || early < st->post_count ||
                         0 == step_locals(plan, &s->steps[k - 1]));
    }
    return RABRED_OK;
}
