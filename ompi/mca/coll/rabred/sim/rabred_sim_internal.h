/*
 * What the simulator's two halves share; private to sim/.
 *
 * rabred_sim.c is the timing engine: it compiles every rank's plan, posts,
 * matches and finishes the messages, and prices the run.
 * rabred_sim_check.c is the verification: what each element holds, the
 * plan checks made while compiling, and the data that full mode moves
 * through the engine's messages and checks at the end.  The engine calls
 * the checks at four points (compiling a round, a send, a delivery, a
 * round's local steps) and once per rank after the run; it never sees a
 * buffer.  The checks never see the engine's queue or messages: a message
 * is only a slot number to them.
 *
 * In cost_only mode there is no rabred_sim_data_t (NULL) and the engine
 * calls nothing of the checks but rabred_sim_check_round.
 */
#ifndef RABRED_SIM_INTERNAL_H
#define RABRED_SIM_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>

#include "sim/rabred_sim.h"

/* What both halves read and report into. */
typedef struct {
    const rabred_sim_call_t *call;
    rabred_sim_result_t *res; /* the run being filled in: problems go here */
    int rc;                   /* RABRED_OK, or the first error (the run stops) */
} rabred_sim_ctx_t;

#if defined(__GNUC__)
#define RABRED_SIM_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define RABRED_SIM_PRINTF(fmt, args)
#endif

/* Record a problem in ctx->res (ok = 0); the first one is kept. */
void rabred_sim_fail(rabred_sim_ctx_t *ctx, const char *fmt, ...) RABRED_SIM_PRINTF(2, 3);

/* Grow *array (of *cap elements of `size` bytes) to hold at least `need`;
 * 0 (and ctx->rc = RABRED_ERR_NOMEM) when out of memory.  Inline: the
 * engine's queue calls it per message. */
static inline int rabred_sim_grow(rabred_sim_ctx_t *ctx, void **array, int32_t *cap,
                                  int64_t need, size_t size)
{
    if (need <= *cap) {
        return 1;
    }
    int64_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        ncap *= 2;
    }
    void *grown = ncap <= INT32_MAX ? realloc(*array, (size_t)ncap * size) : NULL;
    if (NULL == grown) {
        ctx->rc = RABRED_ERR_NOMEM;
        return 0;
    }
    *array = grown;
    *cap = (int32_t)ncap;
    return 1;
}

static inline int rabred_sim_wants_result(const rabred_sim_call_t *call, int rank)
{
    return call->root < 0 || call->root == rank;
}

/* Are INPUT and ACC one buffer at this rank (MPI_IN_PLACE)? */
static inline int rabred_sim_input_is_acc(const rabred_sim_call_t *call, int rank)
{
    return call->in_place && rabred_sim_wants_result(call, rank);
}

/* Full mode's state (rabred_sim_check.c): each rank's plan and buffers,
 * the snapshot each message slot carries, scratch. */
typedef struct rabred_sim_data_s rabred_sim_data_t;

/* ---- plan checks, while compiling (both modes) ------------------------- */

/* Round `round` of `plan` at `rank`: valid peers and ranges, local steps
 * inside the vector and, with data (full mode), no receive overlapping
 * another transfer of the round.  1 when it passes; 0 after recording the
 * problem (or setting ctx->rc). */
int rabred_sim_check_round(rabred_sim_ctx_t *ctx, rabred_sim_data_t *data, int rank,
                           const rabred_plan_t *plan, int round);

/* ---- full mode: the data the messages carry ----------------------------- */

/* NULL when out of memory.  call must outlive the data. */
rabred_sim_data_t *rabred_sim_data_new(const rabred_sim_call_t *call);
void rabred_sim_data_free(rabred_sim_data_t *data); /* NULL is fine */

/* Where the engine builds rank's plan: kept for the run, whose transfers
 * and local steps the functions below read by index. */
rabred_plan_t *rabred_sim_data_plan(rabred_sim_data_t *data, int rank);

/* After the plan is built: the rank's buffers, INPUT holding its own
 * contribution (and being ACC when rabred_sim_input_is_acc). */
int rabred_sim_data_setup_rank(rabred_sim_data_t *data, int rank);

/* The engine's events; each returns RABRED_OK or RABRED_ERR_NOMEM.  xfer is
 * an index into the rank's plan->xfers, msg the engine's message slot (a
 * slot is reused once its message is delivered). */
int rabred_sim_data_send(rabred_sim_data_t *data, int rank, int32_t xfer, int32_t msg);
int rabred_sim_data_deliver(rabred_sim_data_t *data, int rank, int32_t xfer, int32_t msg);
int rabred_sim_data_locals(rabred_sim_data_t *data, int rank, int round);

/* After the run: the rank never wrote its input, and its result (where it
 * wants one) holds exactly the contributions of ranks 0..p-1, in rank order
 * for non-commutative ops. */
void rabred_sim_check_data(rabred_sim_ctx_t *ctx, const rabred_sim_data_t *data, int rank);

#endif /* RABRED_SIM_INTERNAL_H */
