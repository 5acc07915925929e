/*
 * test_prepared.c -- prepared calls (select/rabred_prepared.h) and the
 * schedules their plans run by (plan/rabred_schedule.h).
 *
 *  - schedules: for every algorithm, p and count, the steps cover every
 *    round once and in order; a step of several rounds is a group of
 *    joined rounds that may be posted at once; early posting happens only
 *    between single rounds and only as far as the plan allows; each step
 *    lists its own transfers once, receives first, and knows its longest
 *    send (the executor's post order), whether it is alone (one
 *    transfer, none of it posted early) and whether its one send goes
 *    late (not ahead of a local step: the blocking walk sends it
 *    blocking); and no step posts more
 *    requests than the slots a prepared call sizes (the executor writes
 *    into those slots without checking);
 *  - a ready plan is marked only_send exactly when it is one send of the
 *    input and nothing else (the leaves of a tree): the blocking path
 *    then sends without temporaries or executor state, which is sound
 *    only for such a plan;
 *  - the cache: a key finds its entry and only its entry (every field of
 *    the key tells calls apart), a hit moves nothing, a full cache evicts
 *    the least recently used, a claimed entry starts empty, an entry in
 *    flight (a nonblocking call runs it) is never claimed or emptied, and
 *    a plan that cannot be built leaves nothing runnable behind.
 */
#include <stdio.h>
#include <string.h>

#include "algorithms/rabred_table.h"
#include "plan/rabred_schedule.h"
#include "rabred_test.h"
#include "rabred_test_nomem.h"
#include "select/rabred_prepared.h"

static int posted(const rabred_plan_t *plan, int r, int first_dir, int last_dir)
{
    int n = 0;
    for (int k = 0; k < plan->rounds[r].nxfer; k++) {
        int dir = plan->xfers[plan->rounds[r].first_xfer + k].dir;
        n += dir >= first_dir && dir <= last_dir;
    }
    return n;
}

/* A step's posts are its rounds' transfers, each once, receives first. */
static void check_posts(const rabred_plan_t *plan, const rabred_schedule_t *s,
                        const rabred_step_t *st, int k, const char *what)
{
    int want = 0, recvs = 0, seen_send = 0, in_order = 1, own = 1;
    int64_t longest = 0;
    for (int r = st->first; r < st->end; r++) {
        want += plan->rounds[r].nxfer;
        recvs += posted(plan, r, RABRED_XFER_RECV, RABRED_XFER_RECV);
        for (int k = 0; k < plan->rounds[r].nxfer; k++) {
            const rabred_xfer_t *x = &plan->xfers[plan->rounds[r].first_xfer + k];
            longest = RABRED_XFER_SEND == x->dir && x->len > longest ? x->len : longest;
        }
    }
    CHECK(st->max_send == longest && st->max_send <= s->max_send,
          "%s: step %d's longest send is %lld elements, it says %lld (schedule %lld)", what, k,
          (long long)longest, (long long)st->max_send, (long long)s->max_send);
    for (int i = 0; i < st->post_count; i++) {
        int x = s->posts[st->post_first + i];
        int mine = 0;
        for (int r = st->first; r < st->end; r++) {
            mine |= x >= plan->rounds[r].first_xfer &&
                    x < plan->rounds[r].first_xfer + plan->rounds[r].nxfer;
        }
        own &= mine;
        for (int j = 0; j < i; j++) {
            own &= x != s->posts[st->post_first + j];
        }
        seen_send |= RABRED_XFER_SEND == plan->xfers[x].dir;
        in_order &= !(seen_send && RABRED_XFER_RECV == plan->xfers[x].dir);
    }
    CHECK(st->post_count == want && own && in_order,
          "%s: step %d posts %d of its %d transfers (%s)", what, k, st->post_count, want,
          !own ? "others' or twice" : !in_order ? "a receive after a send" : "missing");
    (void)recvs;
}

static void check_schedule(const rabred_plan_t *plan, const rabred_schedule_t *s, int in_place,
                           const char *what)
{
    int next = 0;
    int64_t longest = 0;
    for (int k = 0; k < s->nsteps; k++) {
        longest = s->steps[k].max_send > longest ? s->steps[k].max_send : longest;
    }
    CHECK(longest == s->max_send, "%s: the schedule's longest send %lld, its steps' %lld", what,
          (long long)s->max_send, (long long)longest);
    for (int k = 0; k < s->nsteps; k++) {
        const rabred_step_t *st = &s->steps[k];
        CHECK(st->first == next && st->end > st->first && st->end <= plan->nrounds,
              "%s: step %d covers [%d, %d), want it to start at %d", what, k, st->first,
              st->end, next);
        next = st->end;
        if (st->end > st->first + 1) {
            CHECK(rabred_plan_group_end(plan, st->first) == st->end &&
                      rabred_plan_group_safe(plan, st->first, st->end, in_place),
                  "%s: step %d joins rounds [%d, %d) that may not go at once", what, k,
                  st->first, st->end);
        }
        check_posts(plan, s, st, k, what);
        CHECK(st->post_count <= s->max_requests, "%s: step %d posts %d requests, %d slots", what,
              k, st->post_count, s->max_requests);
        /* alone: one transfer, none of it posted before the step before
         * it is complete (a blocking walk may then run it blocking) */
        int alone = 1 == st->post_count && (0 == k || 0 == st[-1].early);
        CHECK(st->alone == alone, "%s: step %d (%d posts, the one before posts %d early) says "
              "alone %d, want %d", what, k, st->post_count, k > 0 ? st[-1].early : 0,
              st->alone, alone);
        /* late_send: one send (listed last), not posted ahead of a local
         * step (a blocking walk may then send it blocking once the
         * receives are out) */
        int sends = posted(plan, st->first, RABRED_XFER_SEND, RABRED_XFER_SEND);
        for (int r = st->first + 1; r < st->end; r++) {
            sends += posted(plan, r, RABRED_XFER_SEND, RABRED_XFER_SEND);
        }
        int before = 0; /* local steps of the step before */
        for (int r = k > 0 ? st[-1].first : 0; k > 0 && r < st[-1].end; r++) {
            before += plan->rounds[r].nlocal;
        }
        int late = 1 == sends && (0 == k || st[-1].early < st->post_count || 0 == before);
        CHECK(st->sends == sends && st->late_send == late,
              "%s: step %d (%d sends, the one before posts %d of %d early) says %d sends, "
              "late_send %d, want %d", what, k, sends, k > 0 ? st[-1].early : 0, st->post_count,
              st->sends, st->late_send, late);
        if (0 == st->early) {
            continue;
        }
        const rabred_step_t *nx = k + 1 < s->nsteps ? st + 1 : NULL;
        CHECK(NULL != nx && st->end == st->first + 1 && nx->end == nx->first + 1,
              "%s: step %d posts early next to a group, or after the last", what, k);
        if (NULL == nx) {
            continue;
        }
        int recvs = posted(plan, nx->first, RABRED_XFER_RECV, RABRED_XFER_RECV);
        CHECK((st->early == recvs && rabred_plan_can_post_recvs_early(plan, st->first, in_place)) ||
                  (st->early == nx->post_count &&
                   rabred_plan_can_post_early(plan, st->first, in_place)),
              "%s: step %d posts %d of round %d early where the plan allows %s", what, k,
              st->early, nx->first,
              rabred_plan_can_post_early(plan, st->first, in_place) ? "all" : "fewer");
    }
    CHECK(next == plan->nrounds, "%s: steps end at round %d of %d", what, next, plan->nrounds);
}

static void test_schedules(void)
{
    int ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 33, 64};
    int64_t counts[] = {0, 1, 7, 64, 1031, 65536};
    rabred_plan_t plan;
    rabred_schedule_t s;
    rabred_plan_init(&plan);
    rabred_schedule_init(&s);
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        for (int i = 0; i < rabred_table_size(coll); i++) {
            const rabred_alg_t *alg = rabred_table_at(coll, i);
            for (size_t a = 0; a < sizeof(ps) / sizeof(ps[0]); a++) {
                for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
                    int p = ps[a];
                    for (int rank = 0; rank < p; rank += p > 4 ? p / 3 : 1) {
                        for (int in_place = 0; in_place <= 1; in_place++) {
                            int root = RABRED_COLL_REDUCE == coll ? p - 1 : -1;
                            int at_root = RABRED_COLL_ALLREDUCE == coll || rank == root;
                            rabred_plan_args_t args = {p, rank, root, counts[c], 1,
                                                       alg->segmented ? 16 : 0, NULL,
                                                       in_place && at_root, NULL};
                            if (RABRED_OK != rabred_plan_build(alg->build, &args, &plan)) {
                                continue; /* count below the algorithm's restriction */
                            }
                            char what[128];
                            snprintf(what, sizeof(what), "%s %s p=%d rank=%d count=%lld%s",
                                     rabred_coll_name(coll), alg->name, p, rank,
                                     (long long)counts[c], args.in_place ? " in place" : "");
                            CHECK(RABRED_OK == rabred_schedule_build(&plan, args.in_place, &s),
                                  "%s: schedule", what);
                            check_schedule(&plan, &s, args.in_place, what);
                        }
                    }
                }
            }
        }
    }
    rabred_plan_free(&plan);
    rabred_schedule_free(&s);
}

static rabred_call_key_t key_of(int64_t count)
{
    rabred_call_key_t key = {.coll = RABRED_COLL_ALLREDUCE, .flags = RABRED_KEY_COMMUTATIVE,
                             .root = -1, .generation = 7, .count = count, .type_size = 8,
                             .extent = 8};
    return key;
}

/* Every field of the key tells two calls apart. */
static void test_key_fields(void)
{
    rabred_prepared_cache_t cache;
    CHECK(RABRED_OK == rabred_prepared_cache_init(&cache, 4), "init");
    rabred_call_key_t base = key_of(100);
    (void)rabred_prepared_claim(&cache, &base);
    rabred_call_key_t other[7];
    for (int i = 0; i < 7; i++) {
        other[i] = base;
    }
    other[0].coll = RABRED_COLL_REDUCE;
    other[1].flags = 0;
    other[2].root = 0;
    other[3].generation = 8;
    other[4].count = 101;
    other[5].type_size = 4;
    other[6].extent = 16;
    for (int i = 0; i < 7; i++) {
        CHECK(NULL == rabred_prepared_find(&cache, &other[i]), "field %d does not tell apart", i);
    }
    CHECK(NULL != rabred_prepared_find(&cache, &base), "the key itself is not found");
    rabred_prepared_cache_fini(&cache);
}

/* A full cache forgets the least recently used; hits keep an entry. */
static void test_eviction(void)
{
    rabred_prepared_cache_t cache;
    CHECK(RABRED_OK == rabred_prepared_cache_init(&cache, 3), "init");
    rabred_call_key_t k1 = key_of(1), k2 = key_of(2), k3 = key_of(3), k4 = key_of(4);
    rabred_prepared_t *e1 = rabred_prepared_claim(&cache, &k1);
    (void)rabred_prepared_claim(&cache, &k2);
    (void)rabred_prepared_claim(&cache, &k3);
    CHECK(e1 == rabred_prepared_find(&cache, &k1), "k1 lost before the cache was full");
    (void)rabred_prepared_claim(&cache, &k4); /* evicts k2, the least recently used */
    CHECK(NULL != rabred_prepared_find(&cache, &k1) && NULL == rabred_prepared_find(&cache, &k2) &&
              NULL != rabred_prepared_find(&cache, &k3) && NULL != rabred_prepared_find(&cache, &k4),
          "eviction did not take the least recently used");
    rabred_prepared_t *e = rabred_prepared_find(&cache, &k4);
    e->choice.alg = &rabred_alg_allreduce_bruck;
    e->pick_at_calls = 5;
    rabred_prepared_clear(&cache);
    CHECK(NULL == rabred_prepared_find(&cache, &k1) && NULL == rabred_prepared_find(&cache, &k4),
          "clear kept an entry");
    e = rabred_prepared_claim(&cache, &k4);
    CHECK(NULL == e->choice.alg && 0 == e->pick_at_calls && NULL == e->run.alg &&
              !e->estimated,
          "a claimed entry is not empty");
    rabred_prepared_cache_fini(&cache);
}

/* An entry a nonblocking call runs (in_flight) is never claimed for
 * another key, not even as the least recently used or after a clear, and
 * a clear leaves its choice for the call; once it is done, it is claimed
 * again. */
static void test_in_flight(void)
{
    rabred_prepared_cache_t cache;
    CHECK(RABRED_OK == rabred_prepared_cache_init(&cache, 2), "init");
    rabred_call_key_t k1 = key_of(1), k2 = key_of(2), k3 = key_of(3);
    rabred_prepared_t *e1 = rabred_prepared_claim(&cache, &k1);
    rabred_prepared_t *e2 = rabred_prepared_claim(&cache, &k2);
    e1->choice.alg = &rabred_alg_allreduce_bruck;
    e1->in_flight = 1;
    (void)rabred_prepared_find(&cache, &k2); /* k1 is now the least recently used */
    CHECK(e2 == rabred_prepared_claim(&cache, &k3), "a claim took the entry in flight");
    e2->in_flight = 1;
    CHECK(NULL == rabred_prepared_claim(&cache, &k2), "a claim with every entry in flight");
    e2->in_flight = 0;
    rabred_prepared_clear(&cache);
    CHECK(NULL == rabred_prepared_find(&cache, &k1), "clear left an entry in flight findable");
    CHECK(e1->choice.alg == &rabred_alg_allreduce_bruck, "clear emptied an entry in flight");
    CHECK(e2 == rabred_prepared_claim(&cache, &k2), "a cleared idle entry was not claimed");
    e2->in_flight = 1;
    CHECK(NULL == rabred_prepared_claim(&cache, &k3), "a cleared entry in flight was claimed");
    e1->in_flight = 0;
    CHECK(e1 == rabred_prepared_claim(&cache, &k3) && NULL == e1->choice.alg,
          "an entry no longer in flight is not claimed empty");
    rabred_prepared_cache_fini(&cache);
}

/* A ready plan has its schedule and twice its largest step's slots; one
 * that failed to build is not runnable; every allocation failing once
 * gives RABRED_ERR_NOMEM, never a half-built plan that looks runnable. */
static void test_ready_plans(void)
{
    rabred_ready_plan_t r;
    memset(&r, 0, sizeof(r));
    rabred_plan_args_t args = {16, 3, -1, 1000, 1, 0, NULL, 0, NULL};
    CHECK(RABRED_OK == rabred_ready_plan_build(&r, &rabred_alg_allreduce_rabenseifner, &args, NULL) &&
              r.alg == &rabred_alg_allreduce_rabenseifner && r.schedule.nsteps > 0 &&
              r.requests_cap >= 2 * r.schedule.max_requests,
          "rabenseifner p=16 not ready");
    rabred_plan_args_t bad = {16, 16, -1, 1000, 1, 0, NULL, 0, NULL}; /* rank outside p */
    CHECK(RABRED_ERR_ARG == rabred_ready_plan_build(&r, &rabred_alg_allreduce_rabenseifner, &bad, NULL) &&
              NULL == r.alg,
          "a plan that failed to build stayed runnable");
    rabred_ready_plan_free(&r);
    int failures = 0;
    for (long n = 0; n < 200; n++) {
        rabred_ready_plan_t fresh;
        memset(&fresh, 0, sizeof(fresh));
        rabred_nomem_arm(n);
        int rc = rabred_ready_plan_build(&fresh, &rabred_alg_allreduce_binary_blocks, &args, NULL);
        int failed = rabred_nomem_fired;
        rabred_nomem_disarm();
        if (failed) {
            failures++;
            CHECK(RABRED_ERR_NOMEM == rc && NULL == fresh.alg, "allocation %ld failed: rc %d", n,
                  rc);
        }
        rabred_ready_plan_free(&fresh);
        if (!failed) {
            CHECK(RABRED_OK == rc, "build without a failure: rc %d", rc);
            break;
        }
    }
    CHECK(failures > 0, "no allocation was failed");
}

/* sends_first_len for a plan of doubles whose link posts sends first
 * from `bytes` (built with elements), after checking it kept them. */
static int64_t sends_first_len_for(const rabred_alg_t *alg, int p, int64_t count, double bytes)
{
    rabred_ready_plan_t r;
    memset(&r, 0, sizeof(r));
    rabred_plan_args_t args = {p, 1, -1, count, 1, 0, NULL, 0, NULL};
    rabred_elements_t e = {8, 16, bytes};
    int64_t len = -1;
    if (RABRED_OK == rabred_ready_plan_build(&r, alg, &args, &e)) {
        CHECK(8 == r.elements.type_size && 16 == r.elements.extent &&
                  bytes == r.elements.sends_first_bytes,
              "the ready plan lost its elements");
        len = r.sends_first_len;
    }
    rabred_ready_plan_free(&r);
    return len;
}

/* The executor's sends-first threshold is derived at build: the link's
 * bytes rounded up to whole elements, inclusive at the longest send, 0
 * when no send reaches it or the link has none. */
static void test_sends_first_len(void)
{
    const rabred_alg_t *rd = &rabred_alg_allreduce_recursive_doubling;
    CHECK(1000 == sends_first_len_for(rd, 4, 1000, 8000), "threshold at the longest send");
    CHECK(0 == sends_first_len_for(rd, 4, 1000, 8001), "threshold just above the longest send");
    CHECK(125 == sends_first_len_for(rd, 4, 1000, 993), "993 bytes are not rounded up to 125");
    CHECK(1 == sends_first_len_for(rd, 4, 1000, 1), "one byte is not one element");
    CHECK(0 == sends_first_len_for(rd, 4, 1000, 0), "no threshold posts sends first");
    CHECK(0 == sends_first_len_for(rd, 4, 1000, 1e300), "a huge threshold overflowed");
    /* Bruck at p = 4 sends one peer blocks of 257 and 258 elements */
    CHECK(258 == sends_first_len_for(&rabred_alg_allreduce_bruck, 4, 1031, 2060),
          "bruck p=4: 2060 bytes are not 258 doubles");
    rabred_ready_plan_t r;
    memset(&r, 0, sizeof(r));
    rabred_plan_args_t args = {4, 1, -1, 1000, 1, 0, NULL, 0, NULL};
    CHECK(RABRED_OK == rabred_ready_plan_build(&r, rd, &args, NULL) && 0 == r.sends_first_len &&
              0 == r.elements.type_size && 0 == r.elements.extent,
          "a plan built without elements has element facts");
    rabred_ready_plan_free(&r);
}

/* The ready plan of `alg` for one rank, or NULL when it cannot be built
 * (a count below the algorithm's restriction). */
static const rabred_ready_plan_t *ready_for(rabred_ready_plan_t *r, const rabred_alg_t *alg,
                                            int p, int rank, int root, int64_t count,
                                            int in_place)
{
    rabred_plan_args_t args = {p, rank, root, count, 1, alg->segmented ? 16 : 0, NULL,
                               in_place, NULL};
    rabred_elements_t e = {8, 8, 0};
    return RABRED_OK == rabred_ready_plan_build(r, alg, &args, &e) ? r : NULL;
}

/* Sound: a plan marked only_send is a reduce leaf's one send from INPUT,
 * touching no other buffer (the blocking path allocates nothing for it).
 * Complete: the binomial tree marks exactly its leaves (a rank at
 * distance v from the root has children v + 2^j below v's lowest set bit,
 * so v odd or v = p - 1), and nothing at the root or in an
 * allreduce is marked. */
static void test_only_send(void)
{
    int ps[] = {1, 2, 3, 4, 7, 8, 13, 16};
    int64_t counts[] = {1, 8, 1031};
    rabred_ready_plan_t r;
    memset(&r, 0, sizeof(r));
    for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
        for (int i = 0; i < rabred_table_size(coll); i++) {
            const rabred_alg_t *alg = rabred_table_at(coll, i);
            for (size_t a = 0; a < sizeof(ps) / sizeof(ps[0]); a++) {
                for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
                    int p = ps[a], root = RABRED_COLL_REDUCE == coll ? p / 2 : -1;
                    for (int rank = 0; rank < p; rank++) {
                        const rabred_ready_plan_t *rp =
                            ready_for(&r, alg, p, rank, root, counts[c], rank == root);
                        if (NULL == rp || !rp->only_send) {
                            continue;
                        }
                        const rabred_plan_t *pl = &rp->plan;
                        CHECK(RABRED_COLL_REDUCE == coll && rank != root && 1 == pl->nxfers &&
                                  0 == pl->nlocals && RABRED_XFER_SEND == pl->xfers[0].dir &&
                                  RABRED_BUF_INPUT == pl->xfers[0].buf &&
                                  !pl->uses[RABRED_BUF_ACC] && !pl->uses[RABRED_BUF_TMP] &&
                                  !pl->uses[RABRED_BUF_TMP2],
                              "%s %s p=%d rank=%d count=%lld: marked only_send, but it is not "
                              "one send of the input",
                              rabred_coll_name(coll), alg->name, p, rank,
                              (long long)counts[c]);
                    }
                }
            }
        }
    }
    for (size_t a = 0; a < sizeof(ps) / sizeof(ps[0]); a++) {
        int p = ps[a], root = p / 2;
        for (int rank = 0; rank < p; rank++) {
            int v = (rank - root + p) % p; /* children v + 2^j below v's lowest bit */
            int leaf = v > 0 && (1 == v % 2 || v + 1 >= p);
            const rabred_ready_plan_t *rp =
                ready_for(&r, &rabred_alg_reduce_binomial, p, rank, root, 64, rank == root);
            CHECK(NULL != rp && rp->only_send == leaf,
                  "reduce binomial p=%d root=%d rank=%d: only_send %d, want %d", p, root, rank,
                  NULL != rp ? rp->only_send : -1, leaf);
        }
    }
    rabred_ready_plan_free(&r);
}

int main(void)
{
    test_schedules();
    test_key_fields();
    test_eviction();
    test_in_flight();
    test_ready_plans();
    test_sends_first_len();
    test_only_send();
    return rabred_test_summary("test_prepared");
}
