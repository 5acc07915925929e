/*
 * How a plan runs: the groups of rounds the executor posts at once, and
 * what of the next group it posts before a group's local steps.
 *
 * Both follow from the plan alone (and from whether INPUT and ACC are the
 * same memory), so a prepared call (select/rabred_prepared.h) derives them
 * once, when its plan is built, and every later call only walks the steps:
 * deciding them means comparing every transfer of a group with every local
 * step and transfer of the rounds before it, quadratic in a group's rounds
 * (26 us per call for the pre-reduced scatter at p = 16, 408 us at p = 64,
 * when the executor did it on each call).
 *
 * Step k covers rounds [first, end): all their receives are posted, then
 * all their sends (the order is listed once, in `posts`, so the executor
 * walks one array), all are waited for, then their local steps run in
 * order.
 * A group of joined rounds (rabred_plan_round_joined) is one step when it is
 * safe to post at once (rabred_plan_group_safe), else one step per round.
 * Between two single-round steps the next round's transfers go out before
 * this round's local steps when the plan allows it
 * (rabred_plan_can_post_early: all of them; rabred_plan_can_post_recvs_early:
 * its receives), so that they overlap the reduction.  The simulator follows
 * the same groups and early posting of whole rounds (not of receives alone:
 * rabred_plan.h says why).  Pure C, no MPI.
 */
#ifndef RABRED_SCHEDULE_H
#define RABRED_SCHEDULE_H

#include <stdint.h>

#include "plan/rabred_plan.h"

typedef struct {
    int32_t first, end;  /* rounds [first, end) */
    int32_t post_first;  /* its transfers in posting order: posts[post_first ..] */
    int32_t post_count;  /*   ... all receives of its rounds, then all sends */
    int32_t early;       /* how many of step k+1's posts go out before this
                          * step's local steps: 0, its receives, or all */
    int64_t max_send;    /* its longest send, elements (0: none; the
                          * executor's post order reads it) */
    int32_t alone;       /* 1: one transfer, posted whole after the step before
                          * it completed (none of it early), so a blocking
                          * walk may run it with a blocking send or receive */
    int32_t sends;       /* how many of its posts are sends (the last ones) */
    int32_t late_send;   /* 1: one send, and it is not posted ahead of any
                          * local step (not early, or the step before has
                          * none), so a blocking walk may send it with a
                          * blocking send once the step's receives are posted */
} rabred_step_t;

typedef struct {
    rabred_step_t *steps;
    int32_t nsteps, cap;
    int32_t *posts;       /* transfer indices (plan->xfers) in posting order */
    int32_t nposts, posts_cap;
    int32_t max_requests; /* the most requests one step posts */
    int64_t max_send;     /* the longest send of any step, elements */
} rabred_schedule_t;

void rabred_schedule_init(rabred_schedule_t *s);
void rabred_schedule_free(rabred_schedule_t *s);

/* The steps of `plan`; input_is_acc: INPUT and ACC are the same memory
 * (MPI_IN_PLACE).  RABRED_OK or RABRED_ERR_NOMEM (s then holds no steps). */
int rabred_schedule_build(const rabred_plan_t *plan, int input_is_acc, rabred_schedule_t *s);

/* What a runner does to the transport, so that every runner (the
 * executor on Open MPI's PML, blocking or nonblocking, the MPI-level runner
 * under any MPI) posts, waits and reduces in one order, the one written
 * here.  Each returns 0 or the runner's own error code, which stops the
 * walk and is returned.  `slot` (0 or 1) names the set of requests a
 * step's posts go into: step k waits in slot k & 1 while step k+1 is
 * posted into the other. */
typedef struct {
    /* post posts [from, to) of step st (receives first) into slot */
    int (*post)(void *ctx, const rabred_step_t *st, int from, int to, int slot);
    int (*wait)(void *ctx, int slot);  /* wait for all of a slot's requests */
    int (*locals)(void *ctx, int round); /* run a round's local steps */
    /* nonblocking runners: *done 1 when all of a slot's requests are
     * complete, 0 when some are still in flight; never waits */
    int (*test)(void *ctx, int slot, int *done);
} rabred_schedule_ops_t;

/* Runs the schedule: step k's posts, then for each step wait for it, post
 * the first `early` posts of step k+1, run step k's rounds' local steps,
 * post the rest of step k+1.  Returns 0 or the first error; the requests
 * still posted on error are the caller's to release. */
int rabred_schedule_walk(const rabred_schedule_t *s, const rabred_schedule_ops_t *ops, void *ctx);

/* Where a nonblocking walk stopped: the step whose requests it waits for. */
typedef struct {
    int32_t step;
    int32_t started; /* step 0 posted */
} rabred_schedule_cursor_t;

/* The same walk, in pieces: from the cursor, as far as it gets without
 * waiting (ops->test says a step's requests are not all complete), in the
 * same order as rabred_schedule_walk.  *done 1 when the whole schedule ran.
 * A zeroed cursor starts at the beginning (posting step 0).  Returns 0 or
 * the first error. */
int rabred_schedule_resume(const rabred_schedule_t *s, const rabred_schedule_ops_t *ops, void *ctx,
                           rabred_schedule_cursor_t *cursor, int *done);

#endif /* RABRED_SCHEDULE_H */
