/*
 * The cache of prepared calls (see rabred_prepared.h).  A handful of
 * entries per communicator: a linear scan after the last hit is cheaper
 * than hashing at that size, and eviction is least recently used.
 */
#include "select/rabred_prepared.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int rabred_prepared_cache_init(rabred_prepared_cache_t *cache, int cap)
{
    memset(cache, 0, sizeof(*cache));
    cap = cap >= 1 ? cap : 1;
    cache->entries = calloc((size_t)cap, sizeof(*cache->entries));
    if (NULL == cache->entries) {
        return RABRED_ERR_NOMEM;
    }
    cache->cap = cap;
    for (int i = 0; i < cap; i++) {
        rabred_plan_init(&cache->entries[i].run.plan);
        rabred_plan_init(&cache->entries[i].arrival.plan);
    }
    return RABRED_OK;
}

void rabred_ready_plan_free(rabred_ready_plan_t *r)
{
    rabred_plan_free(&r->plan);
    rabred_schedule_free(&r->schedule);
    free(r->requests);
    memset(r, 0, sizeof(*r));
}

void rabred_prepared_cache_fini(rabred_prepared_cache_t *cache)
{
    for (int i = 0; i < cache->cap; i++) {
        rabred_ready_plan_free(&cache->entries[i].run);
        rabred_ready_plan_free(&cache->entries[i].arrival);
    }
    free(cache->entries);
    memset(cache, 0, sizeof(*cache));
}

rabred_prepared_t *rabred_prepared_lookup(rabred_prepared_cache_t *cache,
                                          const rabred_call_key_t *key)
{
    for (int i = 0; i < cache->cap; i++) {
        rabred_prepared_t *e = &cache->entries[i];
        if (e->used && rabred_call_key_equal(&e->key, key)) {
            e->last_use = ++cache->clock;
            cache->last = i;
            return e;
        }
    }
    return NULL;
}

/* Empty an entry, keeping its plans' storage. */
static void empty(rabred_prepared_t *e)
{
    e->used = 0;
    e->run.alg = NULL;
    e->arrival.alg = NULL;
    e->pick_at_calls = 0;
    e->pick_epoch = 0;
    memset(&e->pick, 0, sizeof(e->pick));
    memset(&e->choice, 0, sizeof(e->choice));
    e->estimated = 0;
}

rabred_prepared_t *rabred_prepared_claim(rabred_prepared_cache_t *cache,
                                         const rabred_call_key_t *key)
{
    int victim = -1;
    for (int i = 0; i < cache->cap; i++) {
        const rabred_prepared_t *e = &cache->entries[i];
        if (0 != e->in_flight) {
            continue; /* its plan runs: never rebuilt under a request */
        }
        if (!e->used) {
            victim = i;
            break;
        }
        if (victim < 0 || e->last_use < cache->entries[victim].last_use) {
            victim = i;
        }
    }
    if (victim < 0) {
        return NULL;
    }
    rabred_prepared_t *e = &cache->entries[victim];
    rabred_prepared_claim_own(e, key);
    e->last_use = ++cache->clock;
    cache->last = victim;
    return e;
}

void rabred_prepared_claim_own(rabred_prepared_t *e, const rabred_call_key_t *key)
{
    empty(e);
    e->key = *key;
    e->used = 1;
}

void rabred_prepared_init(rabred_prepared_t *e)
{
    memset(e, 0, sizeof(*e));
    rabred_plan_init(&e->run.plan);
    rabred_plan_init(&e->arrival.plan);
}

void rabred_prepared_fini(rabred_prepared_t *e)
{
    rabred_ready_plan_free(&e->run);
    rabred_ready_plan_free(&e->arrival);
    e->used = 0;
}

void rabred_prepared_clear(rabred_prepared_cache_t *cache)
{
    for (int i = 0; i < cache->cap; i++) {
        rabred_prepared_t *e = &cache->entries[i];
        if (0 == e->in_flight) {
            empty(e);
        } else {
            e->used = 0; /* no lookup finds it; its requests keep choice and plan */
        }
    }
}

int rabred_request_slots_reserve(void ***slots, int32_t *cap, const rabred_schedule_t *s)
{
    int32_t need = 2 * s->max_requests;
    need = need > 0 ? need : 1;
    if (need <= *cap) {
        return RABRED_OK;
    }
    void **grown = realloc(*slots, (size_t)need * sizeof(*grown));
    if (NULL == grown) {
        return RABRED_ERR_NOMEM;
    }
    *slots = grown;
    *cap = need;
    return RABRED_OK;
}

/* Elements from which a send goes out before its step's receives: the
 * link's sends_first_bytes rounded up to whole elements, 0 when no step of
 * the schedule sends that many (then posting costs nothing extra). */
static int64_t sends_first_len(const rabred_schedule_t *s, const rabred_elements_t *e)
{
    if (!(e->sends_first_bytes > 0) || e->type_size <= 0) {
        return 0;
    }
    double elements = (e->sends_first_bytes + (double)e->type_size - 1) / (double)e->type_size;
    if (!(elements < (double)s->max_send + 1)) {
        return 0; /* longer than any send (and no int64_t overflow) */
    }
    int64_t len = (int64_t)elements; /* bytes / type_size, rounded up */
    len = len > 0 ? len : 1;
    return s->max_send >= len ? len : 0;
}

/* One send of INPUT, no local step, no other transfer. */
static int32_t is_only_send(const rabred_plan_t *plan)
{
    return 1 == plan->nxfers && 0 == plan->nlocals &&
           RABRED_XFER_SEND == plan->xfers[0].dir && RABRED_BUF_INPUT == plan->xfers[0].buf;
}

/* Which of ACC, TMP and TMP2 the rank allocates (rabred_ready_plan_t). */
static int32_t temporaries(const rabred_plan_t *plan, const rabred_plan_args_t *args)
{
    int acc_is_given = args->root < 0 || args->rank == args->root;
    int32_t mask = 0;
    for (int b = RABRED_BUF_ACC; b <= RABRED_BUF_TMP2; b++) {
        if (plan->uses[b] && !(RABRED_BUF_ACC == b && acc_is_given)) {
            mask |= 1 << b;
        }
    }
    return mask;
}

int rabred_ready_plan_build(rabred_ready_plan_t *r, const rabred_alg_t *alg,
                            const rabred_plan_args_t *args, const rabred_elements_t *elements)
{
    static const rabred_elements_t none = {0, 0, 0};
    r->alg = NULL;
    int rc = rabred_plan_build(alg->build, args, &r->plan);
    if (RABRED_OK == rc) {
        rc = rabred_schedule_build(&r->plan, args->in_place, &r->schedule);
    }
    if (RABRED_OK == rc) {
        rc = rabred_request_slots_reserve(&r->requests, &r->requests_cap, &r->schedule);
    }
    if (RABRED_OK == rc) {
        r->elements = NULL != elements ? *elements : none;
        r->sends_first_len = sends_first_len(&r->schedule, &r->elements);
        r->only_send = is_only_send(&r->plan);
        r->one_transfer = 1 == r->schedule.nsteps && r->schedule.steps[0].alone;
        r->temporaries = temporaries(&r->plan, args);
        r->alg = alg;
    }
    return rc;
}
