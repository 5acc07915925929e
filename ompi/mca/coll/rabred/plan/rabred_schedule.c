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
    rabred_schedule_init(s);
}

/* Round a's step: [a, end) when its joined rounds may go at once, else a
 * alone. */
static int step_end(const rabred_plan_t *plan, int a, int input_is_acc)
{
    int end = rabred_plan_group_end(plan, a);
    return end > a + 1 && rabred_plan_group_safe(plan, a, end, input_is_acc) ? end : a + 1;
}

/* What of round a+1 may go out before round a's local steps. */
static int early_part(const rabred_plan_t *plan, int a, int input_is_acc)
{
    if (rabred_plan_can_post_early(plan, a, input_is_acc)) {
        return RABRED_XFER_SEND;
    }
    return rabred_plan_can_post_recvs_early(plan, a, input_is_acc) ? RABRED_XFER_RECV
                                                                   : RABRED_EARLY_NONE;
}

static int push_step(rabred_schedule_t *s, int first, int end)
{
    if (s->nsteps == s->cap) {
        int32_t cap = s->cap ? 2 * s->cap : 16;
        rabred_step_t *grown = realloc(s->steps, (size_t)cap * sizeof(*grown));
        if (NULL == grown) {
            return RABRED_ERR_NOMEM;
        }
        s->steps = grown;
        s->cap = cap;
    }
    s->steps[s->nsteps++] = (rabred_step_t){first, end, RABRED_EARLY_NONE};
    return RABRED_OK;
}

/* The most requests a group of joined rounds posts, whether or not it runs
 * as one step: enough for any step. */
static int32_t max_requests(const rabred_plan_t *plan)
{
    int32_t most = 0;
    for (int a = 0, b; a < plan->nrounds; a = b) {
        int32_t n = 0;
        b = rabred_plan_group_end(plan, a);
        for (int r = a; r < b; r++) {
            n += plan->rounds[r].nxfer;
        }
        most = n > most ? n : most;
    }
    return most;
}

int rabred_schedule_build(const rabred_plan_t *plan, int input_is_acc, rabred_schedule_t *s)
{
    s->nsteps = 0;
    for (int a = 0, b; a < plan->nrounds; a = b) {
        b = step_end(plan, a, input_is_acc);
        if (RABRED_OK != push_step(s, a, b)) {
            s->nsteps = 0;
            return RABRED_ERR_NOMEM;
        }
    }
    /* early posting only between two single rounds */
    for (int k = 0; k + 1 < s->nsteps; k++) {
        rabred_step_t *cur = &s->steps[k], *next = &s->steps[k + 1];
        if (cur->end == cur->first + 1 && next->end == next->first + 1) {
            cur->early = (int8_t)early_part(plan, cur->first, input_is_acc);
        }
    }
    s->max_requests = max_requests(plan);
    return RABRED_OK;
}
