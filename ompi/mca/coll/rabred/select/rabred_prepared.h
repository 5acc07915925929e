/*
 * Prepared calls (DESIGN.md, "Prepare once, run many").
 *
 * A solver's dot products are millions of 8-byte allreduces of one shape;
 * a training step's gradients are the same few sizes every step.  What a
 * call's choice and plan depend on is its key: the collective, count,
 * datatype size and extent, op commutativity, in place or not, root, and
 * a generation that changes whenever a setting the choice reads changes
 * (an MPI_T write, the communicator's arrival hint).  A communicator keeps
 * a bounded cache from keys to prepared calls: the selection's result, the
 * built plan, its schedule (plan/rabred_schedule.h) and the executor's
 * request slots.  A hit is one lookup (the last hit is tried first), then
 * the execution; nothing is decided, built, derived or formatted again.
 *
 * The arrival estimate cannot be prepared: on estimated calls (from
 * coll_rabred_arrival_min_bytes up, milliseconds each) the selection runs
 * again with the current estimate, reusing the prepared call's plan when it
 * keeps the balanced choice; an arrival-aware plan, built with the offsets
 * of the moment, is kept with its pick and rebuilt when the pick is
 * (rabred_select.c: every few estimated calls), so its O(p^2) simulation
 * and quadratic schedule stay off most calls.
 *
 * Pure C, no MPI: the request slots are untyped pointers the component
 * fills.
 */
#ifndef RABRED_PREPARED_H
#define RABRED_PREPARED_H

#include <stdint.h>

#include "plan/rabred_plan.h"
#include "plan/rabred_schedule.h"
#include "select/rabred_select.h"

enum { RABRED_KEY_COMMUTATIVE = 1, RABRED_KEY_IN_PLACE = 2 };

typedef struct {
    int32_t coll;
    int32_t flags;        /* RABRED_KEY_* */
    int32_t root;         /* -1 for allreduce */
    int32_t unused;
    uint64_t generation;  /* the settings' and the communicator's (coll_rabred_module.c) */
    int64_t count;
    int64_t type_size;
    int64_t extent;
} rabred_call_key_t;

/* How a call's elements move, fixed by its key: what the executor would
 * otherwise ask the datatype on every call.  Whether copies may be memcpy
 * is not among them: ranks may pass different datatypes of one signature
 * (MPI_INT on one, a duplicate of it on another), which must find the
 * same prepared call, so the executor tests the datatype itself (a flag). */
typedef struct {
    int64_t type_size;        /* bytes of data per element */
    int64_t extent;           /* bytes from one element to the next */
    double sends_first_bytes; /* the link's post order (coll_rabred_exec.c's post()) */
} rabred_elements_t;

/* A plan ready to run: built, scheduled, with room for its requests, and
 * everything the executor derives from it and the call's elements. */
typedef struct {
    const rabred_alg_t *alg; /* NULL: nothing built */
    int stamp;               /* arrival-aware plans: the estimate's calls when built */
    int epoch;               /* and its epoch (rabred_estimate_epoch) */
    rabred_plan_t plan;
    rabred_schedule_t schedule;
    void **requests;         /* 2 * schedule.max_requests slots (two steps in flight) */
    int32_t requests_cap;
    rabred_elements_t elements;
    /* a step that sends this many elements somewhere posts its sends
     * before its receives; 0: no step of this plan does */
    int64_t sends_first_len;
    /* 1: the plan is one send of the input and nothing else (a tree's
     * leaf): a blocking call sends plan.xfers[0] from the caller's input
     * with no executor state (coll_rabred_exec.c, mca_coll_rabred_send_only) */
    int32_t only_send;
    /* 1: the schedule is one step whose one transfer runs alone (a tree's
     * root with one child): a blocking call runs that transfer with the
     * PML's blocking call and then the step's local steps, which is all
     * the walk would do (coll_rabred_exec.c, mca_coll_rabred_execute) */
    int32_t one_transfer;
    /* the temporaries this rank takes, bit b for buffer b (ACC, TMP,
     * TMP2): ACC is the caller's receive buffer except on a reduce's
     * non-root ranks.  0, as at a small reduce's root: a call takes none
     * and frees none */
    int32_t temporaries;
} rabred_ready_plan_t;

typedef struct {
    rabred_call_key_t key;
    uint64_t last_use;
    int used;                /* holds a prepared call */
    rabred_choice_t choice;  /* what the selection chose (its balanced choice, when estimated) */
    int estimated;           /* the selection runs again on every call (the arrival estimate) */
    rabred_ready_plan_t run; /* choice.alg's plan, unless arrival-aware */
    rabred_ready_plan_t arrival; /* the arrival-aware plan last run, with its offsets */
    rabred_arrival_pick_t pick;  /* the estimate's last pick and when (rabred_select_arrival_t) */
    int pick_at_calls;
    int pick_epoch;
    /* nonblocking calls running `run` now: such an entry is never claimed
     * for another key (its plan must outlive them).  Raised by the call,
     * lowered when its request completes, maybe in another thread: a
     * stale read only ever sees it still raised. */
    volatile int32_t in_flight;
} rabred_prepared_t;

typedef struct {
    rabred_prepared_t *entries;
    int cap;
    int last;       /* the entry of the last hit, tried first */
    uint64_t clock; /* use counter, for evicting the least recently used */
} rabred_prepared_cache_t;

/* RABRED_OK or RABRED_ERR_NOMEM; cap >= 1 entries. */
int rabred_prepared_cache_init(rabred_prepared_cache_t *cache, int cap);
void rabred_prepared_cache_fini(rabred_prepared_cache_t *cache);

/* The prepared call for `key`, or NULL. */
static inline int rabred_call_key_equal(const rabred_call_key_t *a, const rabred_call_key_t *b)
{
    return a->count == b->count && a->coll == b->coll && a->flags == b->flags &&
           a->root == b->root && a->generation == b->generation &&
           a->type_size == b->type_size && a->extent == b->extent;
}

rabred_prepared_t *rabred_prepared_lookup(rabred_prepared_cache_t *cache,
                                          const rabred_call_key_t *key);

static inline rabred_prepared_t *rabred_prepared_find(rabred_prepared_cache_t *cache,
                                                      const rabred_call_key_t *key)
{
    rabred_prepared_t *e = &cache->entries[cache->last];
    if (e->used && rabred_call_key_equal(&e->key, key)) {
        e->last_use = ++cache->clock;
        return e;
    }
    return rabred_prepared_lookup(cache, key);
}

/* An entry for `key`: an empty one, or the least recently used of those
 * no nonblocking call runs, emptied (its plans keep their storage for the
 * next build); NULL when every entry is in flight. */
rabred_prepared_t *rabred_prepared_claim(rabred_prepared_cache_t *cache,
                                         const rabred_call_key_t *key);

/* The same for an entry outside any cache (a caller's own). */
void rabred_prepared_claim_own(rabred_prepared_t *e, const rabred_call_key_t *key);

/* An entry outside any cache: made empty, and its storage released. */
void rabred_prepared_init(rabred_prepared_t *e);
void rabred_prepared_fini(rabred_prepared_t *e);

/* Forget every prepared call (the plans keep their storage); one that
 * nonblocking calls run stays intact for them, and is claimed only once
 * they are done. */
void rabred_prepared_clear(rabred_prepared_cache_t *cache);

/* Build alg's plan for `args` into r, derive its schedule, size its
 * request slots and derive what the executor needs from `elements` (NULL:
 * a plan no PML executor runs; its element facts are zero).  RABRED_OK,
 * RABRED_ERR_NOMEM or the builder's RABRED_ERR_ARG; on error r holds
 * nothing runnable (r->alg NULL). */
int rabred_ready_plan_build(rabred_ready_plan_t *r, const rabred_alg_t *alg,
                            const rabred_plan_args_t *args, const rabred_elements_t *elements);

void rabred_ready_plan_free(rabred_ready_plan_t *r);

/* Room in *slots (*cap of them) for two of s's steps' requests at once:
 * the executor's double buffer.  RABRED_OK or RABRED_ERR_NOMEM (*slots
 * unchanged). */
int rabred_request_slots_reserve(void ***slots, int32_t *cap, const rabred_schedule_t *s);

#endif /* RABRED_PREPARED_H */
