/*
 * Unit tests of the selection layer (no MPI): over a grid of p, counts,
 * type sizes, commutativity, every forced value, with and without the cost
 * model and with rules that ask for every algorithm, the choice never
 * violates the chosen algorithm's restrictions, forced algorithms win when
 * allowed, rules win when allowed and are refused with file:line when not,
 * fallbacks say so, the thresholds cut where documented, and only a user
 * (forced value or rule) gets an arrival-aware algorithm.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "select/rabred_select.h"
#include "rabred_test_select.h"
#include "rabred_test.h"
#include "plan/rabred_toolkit.h"

static const decide_ctx_t no_model = {NULL, "none", NULL, 0};

static void check_one(rabred_coll_t coll, const rabred_call_t *call, int64_t bytes, int forced,
                      const decide_ctx_t *ctx)
{
    rabred_choice_t ch;
    decide(coll, call, bytes, forced, ctx, &ch);
    const rabred_alg_t *want = rabred_table_by_id(coll, forced);
    if (NULL != ch.alg) {
        CHECK(NULL == rabred_alg_violation(ch.alg, call), "%s p=%d count=%lld comm=%d: %s chosen",
              rabred_coll_name(coll), call->p, (long long)call->count, call->commutative,
              ch.alg->name);
        /* only a user (forced, or a rule) runs an arrival-aware algorithm */
        CHECK(!ch.alg->arrival_aware || RABRED_WHY_FORCED == ch.why || RABRED_WHY_RULE == ch.why,
              "the decision chose %s (%s)", ch.alg->name, ch.reason);
    }
    if (NULL != want && NULL == rabred_alg_violation(want, call)) {
        CHECK(ch.alg == want && RABRED_WHY_FORCED == ch.why, "forced %s ignored", want->name);
    } else if (NULL != want) {
        CHECK(RABRED_WHY_FALLBACK == ch.why && ch.alg != want && NULL != strstr(ch.reason, want->name),
              "forced %s not allowed but why=%s reason=%s", want->name, rabred_why_name(ch.why),
              ch.reason);
    } else if (RABRED_ALG_PREVIOUS == forced) {
        CHECK(NULL == ch.alg && RABRED_WHY_FORCED == ch.why, "previous not honoured");
    } else if (RABRED_ALG_AUTO == forced && NULL == ctx->rules) {
        CHECK(NULL != ch.alg && RABRED_WHY_DECISION == ch.why, "auto gave no algorithm");
    } else if (RABRED_ALG_AUTO != forced) {
        CHECK(RABRED_WHY_FALLBACK == ch.why, "unknown id %d not reported", forced);
    }
    CHECK(ch.reason[0] != '\0', "empty reason");
}

/* With a rule asking for `rule_alg` on every call: the rule wins when it
 * may serve the call, else the reason names file:line and the call still
 * gets an allowed algorithm. */
static void check_rule(rabred_coll_t coll, const rabred_call_t *call, int64_t bytes,
                       const rabred_alg_t *rule_alg, const decide_ctx_t *ctx)
{
    rabred_choice_t ch;
    decide(coll, call, bytes, RABRED_ALG_AUTO, ctx, &ch);
    if (NULL == rabred_alg_violation(rule_alg, call)) {
        CHECK(ch.alg == rule_alg && RABRED_WHY_RULE == ch.why && 4096 == ch.seg_bytes,
              "rule for %s not followed (%s)", rule_alg->name, ch.reason);
    } else {
        CHECK(NULL != ch.alg && NULL == rabred_alg_violation(ch.alg, call) &&
                  RABRED_WHY_FALLBACK == ch.why && NULL != strstr(ch.reason, "r.txt:7:"),
              "refused rule for %s: alg %s why %s (%s)", rule_alg->name,
              ch.alg ? ch.alg->name : "none", rabred_why_name(ch.why), ch.reason);
    }
}

static void test_grid(void)
{
    int ps[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 100, 1024};
    int64_t counts[] = {0, 1, 3, 7, 8, 255, 256, 4096, 1 << 20};
    int sizes[] = {1, 4, 8, 16};
    int forced[] = {RABRED_ALG_AUTO, RABRED_ALG_PREVIOUS, 1, 2, 3, 4, 5, 99, -3};
    for (int coll = 0; coll < RABRED_NCOLLS; coll++)
        for (size_t a = 0; a < sizeof(ps) / sizeof(ps[0]); a++)
            for (size_t b = 0; b < sizeof(counts) / sizeof(counts[0]); b++)
                for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
                    for (int comm = 0; comm <= 1; comm++)
                        for (size_t f = 0; f < sizeof(forced) / sizeof(forced[0]); f++) {
                            rabred_call_t call = {ps[a], counts[b], comm, NULL};
                            check_one((rabred_coll_t)coll, &call, counts[b] * sizes[c], forced[f],
                                      &no_model);
                        }
}

/* The same grid with the cost model priced for each p, and with a rule
 * naming each algorithm in turn. */
static void test_grid_model_and_rules(void)
{
    int ps[] = {2, 3, 4, 5, 7, 8, 13, 16, 100, 1024};
    int64_t counts[] = {0, 1, 3, 7, 8, 255, 256, 4096, 1 << 20};
    int forced[] = {RABRED_ALG_AUTO, RABRED_ALG_PREVIOUS, 1, 2, 3, 7, 9, 10, 99};
    rabred_model_t model = RABRED_TEST_MODEL(60e-6, 160e-9, 0.5e-9, 1.0, 0.5);
    static rabred_pricebook_t book;
    for (int coll = 0; coll < RABRED_NCOLLS; coll++)
        for (size_t a = 0; a < sizeof(ps) / sizeof(ps[0]); a++) {
            CHECK(RABRED_OK == rabred_pricebook_fill(&book, coll, ps[a], 65536, &model), "fill");
            decide_ctx_t ctx = {NULL, "r.txt", &book, 0};
            for (size_t b = 0; b < sizeof(counts) / sizeof(counts[0]); b++)
                for (int comm = 0; comm <= 1; comm++) {
                    rabred_call_t call = {ps[a], counts[b], comm, NULL};
                    for (size_t f = 0; f < sizeof(forced) / sizeof(forced[0]); f++) {
                        check_one(coll, &call, counts[b] * 8, forced[f], &ctx);
                    }
                    for (int i = 0; i < rabred_table_size(coll); i++) {
                        const rabred_alg_t *alg = rabred_table_at(coll, i);
                        rabred_rule_t rule = {coll, 1, INT_MAX, 0, INT64_MAX, -1, alg->id, 4096, 7};
                        rabred_rules_t rules = {&rule, 1};
                        decide_ctx_t with_rule = {&rules, "r.txt", &book, 0};
                        check_rule(coll, &call, counts[b] * 8, alg, &with_rule);
                    }
                }
        }
}

static void test_thresholds(void)
{
    rabred_call_t call = {8, 1024, 1, NULL};
    rabred_choice_t ch;
    decide(RABRED_COLL_ALLREDUCE, &call, 2048, RABRED_ALG_AUTO, &no_model, &ch);
    CHECK(0 == strcmp(ch.alg->name, "recursive_doubling"), "2048 B: %s", ch.alg->name);
    decide(RABRED_COLL_ALLREDUCE, &call, 2049, RABRED_ALG_AUTO, &no_model, &ch);
    CHECK(0 == strcmp(ch.alg->name, "rabenseifner"), "2049 B: %s", ch.alg->name);
    decide(RABRED_COLL_REDUCE, &call, 1 << 20, RABRED_ALG_AUTO, &no_model, &ch);
    CHECK(0 == strcmp(ch.alg->name, "rabenseifner"), "1 MiB reduce: %s", ch.alg->name);
    call.count = 7; /* < p': rabenseifner refused even for a long type */
    decide(RABRED_COLL_REDUCE, &call, 7 << 20, RABRED_ALG_AUTO, &no_model, &ch);
    CHECK(0 == strcmp(ch.alg->name, "binomial"), "count < p': %s", ch.alg->name);

    /* an admin's short_bytes wins over the model below it, not above */
    static rabred_pricebook_t book;
    rabred_model_t model = RABRED_TEST_MODEL(60e-6, 160e-9, 0.5e-9, 1.0, 0.5);
    rabred_pricebook_fill(&book, RABRED_COLL_ALLREDUCE, 8, 65536, &model);
    decide_ctx_t admin = {NULL, "none", &book, 1 << 20};
    call.count = 1 << 17;
    decide(RABRED_COLL_ALLREDUCE, &call, 1 << 20, RABRED_ALG_AUTO, &admin, &ch);
    CHECK(0 == strcmp(ch.alg->name, "recursive_doubling"), "admin 1 MiB: %s", ch.alg->name);
    decide(RABRED_COLL_ALLREDUCE, &call, (1 << 20) + 8, RABRED_ALG_AUTO, &admin, &ch);
    CHECK(0 != strcmp(ch.alg->name, "recursive_doubling") && NULL != strstr(ch.reason, "model"),
          "admin above 1 MiB: %s (%s)", ch.alg->name, ch.reason);
}

/* The built-in decision changes algorithm only where the model's prices
 * cross: whenever auto's choice changes from A at one size to B at the
 * next, A was no dearer than B at the first size and B no dearer than A at
 * the second, by the prices the decision sees (closed forms and the
 * structural terms: rounds out of step, peers, the rendezvous switch).
 * Checked for every p = 2..40 and 64, 128, over sizes 8 B to 64 MiB in
 * steps of 2^(1/4), under the built-in models within and between nodes
 * and under one with every structural term large. */
static double full_price(const rabred_pricebook_t *book, const rabred_alg_t *alg, int p,
                         int64_t bytes)
{
    rabred_price_call_t call = {p, RABRED_COLL_REDUCE == alg->coll ? 0 : -1, 1, bytes,
                                book->seg_bytes, bytes / 8}; /* doubles, as decide's calls */
    double extra = 0, t = rabred_pricebook_price_count(book, alg, call.root, 1, call.count, bytes);
    CHECK(RABRED_OK == rabred_model_extras(alg, &call, &book->model, &extra), "extras");
    return t + extra;
}

static void test_crossovers(void)
{
    rabred_model_t models[3] = {
        rabred_model_make(&rabred_default_intra, RABRED_DEFAULT_REDUCE_MBS, 0),
        rabred_model_make(&rabred_default_inter, RABRED_DEFAULT_REDUCE_MBS, 0),
        rabred_model_make(&rabred_default_inter, RABRED_DEFAULT_REDUCE_MBS, 200)};
    models[2].peer = 50e-6;
    models[2].eager_bytes = 65536;
    models[2].rndv = 300e-6;
    rabred_pricebooks_t books = {0};
    int changes = 0;
    for (int k = 0; k < 3; k++) {
        for (int coll = 0; coll < RABRED_NCOLLS; coll++) {
            for (int p = 2; p <= 128; p = p < 40 ? p + 1 : 2 * p) {
                const rabred_pricebook_t *book;
                CHECK(RABRED_OK == rabred_pricebooks_get(&books, coll, p, 0, &models[k], &book),
                      "book");
                decide_ctx_t ctx = {NULL, "none", book, 0};
                const rabred_alg_t *prev = NULL;
                int64_t prev_bytes = 0;
                for (double x = 8; x <= 64.0 * (1 << 20); x *= 1.189207115) {
                    int64_t bytes = (int64_t)x / 8 * 8;
                    rabred_call_t call = {p, bytes / 8, 1, NULL};
                    rabred_choice_t ch;
                    decide(coll, &call, bytes, RABRED_ALG_AUTO, &ctx, &ch);
                    if (NULL != prev && ch.alg != prev) {
                        /* or the new choice may serve only from here on
                         * (direct from count p): then it need only be cheaper */
                        rabred_call_t before = {p, prev_bytes / 8, 1, NULL};
                        int newly_allowed = NULL != rabred_alg_violation(ch.alg, &before);
                        changes++;
                        CHECK((newly_allowed || full_price(book, prev, p, prev_bytes) <=
                                                    full_price(book, ch.alg, p, prev_bytes) *
                                                        (1 + 1e-12)) &&
                                  full_price(book, ch.alg, p, bytes) <=
                                      full_price(book, prev, p, bytes) * (1 + 1e-12),
                              "model %d %s p=%d: %s at %lld B, %s at %lld B, but their prices do "
                              "not cross there", k, rabred_coll_name(coll), p, prev->name,
                              (long long)prev_bytes, ch.alg->name, (long long)bytes);
                    }
                    prev = ch.alg;
                    prev_bytes = bytes;
                }
            }
        }
    }
    CHECK(changes > 100, "only %d changes of algorithm: the test sees too little", changes);
    rabred_pricebooks_free(&books);
}

/* The terms each shift a choice the way their physics says.  Rounds out
 * of step favour fewer rounds: on a network where one-way bytes cost half
 * an exchange's (f_beta 0.5), at p = 16 and 256 KiB a ring wins in step,
 * and a lg p-round algorithm once a round costs 200 us more.  A costly
 * handshake above the eager limit favours messages below it: at p = 2,
 * 64 KiB, with a 48 KiB limit and a 20 us latency, recursive doubling's
 * one exchange of 64 KiB wins without it and the two of 32 KiB with it. */
static void test_terms_shift_choices(void)
{
    rabred_pricebooks_t books = {0};
    const rabred_pricebook_t *book;
    char why[2][300];
    rabred_model_t m = rabred_model_make(&rabred_default_inter, RABRED_DEFAULT_REDUCE_MBS, 0);
    m.beta = 1e-8; /* bandwidth-bound at 256 KiB: the rings win in step */
    m.f_beta = 0.5;
    const char *got[2];
    for (int out_of_step = 0; out_of_step <= 1; out_of_step++) {
        m.sync = out_of_step ? 200e-6 : 0;
        CHECK(RABRED_OK == rabred_pricebooks_get(&books, RABRED_COLL_ALLREDUCE, 16, 0, &m, &book),
              "book");
        decide_ctx_t ctx = {NULL, "none", book, 0};
        rabred_call_t call = {16, (256 << 10) / 8, 1, NULL};
        rabred_choice_t ch;
        decide(RABRED_COLL_ALLREDUCE, &call, 256 << 10, RABRED_ALG_AUTO, &ctx, &ch);
        got[out_of_step] = ch.alg->name;
        snprintf(why[out_of_step], sizeof(why[0]), "%s", ch.reason);
    }
    CHECK(0 != strcmp(got[0], got[1]) && NULL != strstr(got[0], "ring") &&
              NULL == strstr(got[1], "ring"),
          "p=16, 256 KiB: in step %s (%s), out of step %s (%s)", got[0], why[0], got[1], why[1]);

    rabred_model_t h = rabred_model_make(&rabred_default_intra, RABRED_DEFAULT_REDUCE_MBS, 0);
    for (int costly = 0; costly <= 1; costly++) {
        h.alpha = 20e-6;
        h.eager_bytes = 48 << 10;
        h.rndv = costly ? 100e-6 : 0;
        CHECK(RABRED_OK == rabred_pricebooks_get(&books, RABRED_COLL_ALLREDUCE, 2, 0, &h, &book),
              "book");
        decide_ctx_t ctx = {NULL, "none", book, 0};
        rabred_call_t call = {2, (64 << 10) / 8, 1, NULL};
        rabred_choice_t ch;
        decide(RABRED_COLL_ALLREDUCE, &call, 64 << 10, RABRED_ALG_AUTO, &ctx, &ch);
        got[costly] = ch.alg->name;
        snprintf(why[costly], sizeof(why[0]), "%s", ch.reason);
    }
    CHECK(0 == strcmp(got[0], "recursive_doubling") && 0 != strcmp(got[1], "recursive_doubling"),
          "p=2, 64 KiB, eager limit 48 KiB: no handshake cost %s (%s), a costly one %s (%s)",
          got[0], why[0], got[1], why[1]);
    rabred_pricebooks_free(&books);
}

/* The reduce at p = 8, 1 MiB, a network where an exchange with one peer
 * runs at a third of one-way speed: with sending and receiving at once
 * as cheap as sending alone (duplex 1), the pairwise gather (every rank
 * sends to one peer and receives from another) beats the binomial tree
 * (each rank only sends or only receives); when it costs 2x, the tree
 * wins.  The same for an aggregate limit that every rank sending at once
 * hits and a tree's rounds do not. */
static void check_term_moves_reduce(const char *term, double off, double on, double *field,
                                    rabred_model_t *m)
{
    rabred_pricebooks_t books = {0};
    const rabred_pricebook_t *book;
    const char *got[2];
    char why[2][300];
    for (int k = 0; k < 2; k++) {
        *field = k ? on : off;
        CHECK(RABRED_OK == rabred_pricebooks_get(&books, RABRED_COLL_REDUCE, 8, 0, m, &book),
              "book");
        decide_ctx_t ctx = {NULL, "none", book, 0};
        rabred_call_t call = {8, (1 << 20) / 8, 1, NULL};
        rabred_choice_t ch;
        decide(RABRED_COLL_REDUCE, &call, 1 << 20, RABRED_ALG_AUTO, &ctx, &ch);
        got[k] = ch.alg->name;
        snprintf(why[k], sizeof(why[0]), "%s", ch.reason);
    }
    CHECK(0 != strcmp(got[0], "binomial") && 0 == strcmp(got[1], "binomial"),
          "%s %g: %s (%s); %g: %s (%s)", term, off, got[0], why[0], on, got[1], why[1]);
    rabred_pricebooks_free(&books);
}

static void test_duplex_and_aggregate(void)
{
    rabred_link_units_t tcp = {.alpha_us = 10, .mbs = 4, .oneway_alpha = 0.7,
                               .oneway_beta = 0.33, .duplex = 1};
    rabred_model_t m = rabred_model_make(&tcp, RABRED_DEFAULT_REDUCE_MBS, 0);
    check_term_moves_reduce("duplex", 1, 2, &m.duplex, &m);
    m = rabred_model_make(&tcp, RABRED_DEFAULT_REDUCE_MBS, 0);
    /* 8 links of 12 MB/s one-way; together at most 30 MB/s */
    check_term_moves_reduce("aggregate (s/B)", 0, 1e-6 / 30, &m.aggregate, &m);

    /* exchanges slower after a first round: recursive doubling at p = 2
     * (one round) keeps its price, halving and doubling (two) pays */
    rabred_pricebooks_t books = {0};
    const rabred_pricebook_t *book[2];
    double rd[2], rab[2];
    rabred_price_call_t call = {2, -1, 1, 1 << 20, 0, 0};
    for (int k = 0; k < 2; k++) {
        m = rabred_model_make(&tcp, RABRED_DEFAULT_REDUCE_MBS, 0);
        m.repeat = k ? 3 : 1;
        CHECK(RABRED_OK ==
                      rabred_pricebooks_get(&books, RABRED_COLL_ALLREDUCE, 2, 0, &m, &book[k]) &&
                  RABRED_OK == rabred_model_price(book[k], &rabred_alg_allreduce_recursive_doubling,
                                                  &call, &rd[k]) &&
                  RABRED_OK == rabred_model_price(book[k], &rabred_alg_allreduce_rabenseifner,
                                                  &call, &rab[k]),
              "prices");
    }
    CHECK(rd[0] == rd[1] && rab[1] > rab[0] + 0.9 * 2 * (512 << 10) * m.beta,
          "repeat 3: recursive doubling %g -> %g s, rabenseifner %g -> %g s", rd[0], rd[1], rab[0],
          rab[1]);
    rabred_pricebooks_free(&books);
}

/* alg's MPI_Allreduce price at p = 8, 1 MiB on `link`, without the
 * aggregate limit (t[0]) and with it at `per_byte` seconds per byte of
 * all ranks' sends (t[1]). */
static void price_with_aggregate(const rabred_link_units_t *link, double per_byte,
                                 const rabred_alg_t *alg, double t[2])
{
    rabred_pricebooks_t books = {0};
    rabred_price_call_t call = {8, -1, 1, 1 << 20, 0, 0};
    for (int k = 0; k < 2; k++) {
        rabred_model_t m = rabred_model_make(link, RABRED_DEFAULT_REDUCE_MBS, 0);
        m.aggregate = k ? per_byte * m.beta : 0;
        const rabred_pricebook_t *book;
        t[k] = -1;
        CHECK(RABRED_OK == rabred_pricebooks_get(&books, RABRED_COLL_ALLREDUCE, 8, 0, &m, &book) &&
                  RABRED_OK == rabred_model_price(book, alg, &call, &t[k]),
              "%s: price", alg->name);
    }
    rabred_pricebooks_free(&books);
}

/* The aggregate limit is a bound on a round: it takes the longer of the
 * slowest rank's own sends, one after the other through its port (an
 * exchange at beta, a one-way send at f_beta beta, slowed by duplex), and
 * all ranks' bytes at the aggregate rate, never their sum.  At p = 8:
 *  - one-way as fast as an exchange, duplex 2, an aggregate at which 8
 *    ranks' sends take twice one alone: a ring round costs what duplex
 *    makes it; halving and doubling's exchanges, which duplex does not
 *    slow, pay the aggregate;
 *  - one-way 3x as fast as an exchange and an aggregate between the two
 *    (0.66 beta over the 8 ranks): halving and doubling's exchanges take
 *    longer than the aggregate's time, so it pays nothing. */
static void test_aggregate_is_a_bound(void)
{
    rabred_link_units_t even = {.alpha_us = 10, .mbs = 4, .oneway_alpha = 0.7,
                                .oneway_beta = 1, .duplex = 2};
    rabred_link_units_t fast_oneway = {.alpha_us = 10, .mbs = 4, .oneway_alpha = 0.7,
                                       .oneway_beta = 0.33, .duplex = 1};
    double ring[2], rab[2], rab_fast[2];
    price_with_aggregate(&even, 2.0 / 8, &rabred_alg_allreduce_neighbor_ring, ring);
    price_with_aggregate(&even, 2.0 / 8, &rabred_alg_allreduce_rabenseifner, rab);
    price_with_aggregate(&fast_oneway, 0.66 / 8, &rabred_alg_allreduce_rabenseifner, rab_fast);
    CHECK(fabs(ring[1] - ring[0]) <= 1e-9 * ring[0], "ring: %g s without the aggregate, %g with",
          ring[0], ring[1]);
    CHECK(rab[1] > 1.1 * rab[0], "halving and doubling: %g s without the aggregate, %g with",
          rab[0], rab[1]);
    CHECK(fabs(rab_fast[1] - rab_fast[0]) <= 1e-9 * rab_fast[0],
          "halving and doubling, one-way 3x faster: %g s without the aggregate, %g with",
          rab_fast[0], rab_fast[1]);
}

/* What auto picks for n bytes at p under link (balanced, commutative). */
static const rabred_alg_t *pick_flat(const rabred_link_units_t *link, int p, int64_t n)
{
    rabred_pricebooks_t books = {0};
    rabred_model_t m = rabred_model_make(link, RABRED_DEFAULT_REDUCE_MBS, 0);
    const rabred_pricebook_t *book = NULL;
    rabred_choice_t out = {0};
    rabred_select_in_t in = {.coll = RABRED_COLL_ALLREDUCE, .call = {p, n / 8, 1, NULL},
                             .root = -1, .bytes = n, .forced = RABRED_ALG_AUTO};
    int rc = rabred_pricebooks_get(&books, RABRED_COLL_ALLREDUCE, p, 0, &m, &book);
    in.book = book;
    rc = RABRED_OK == rc ? rabred_select(&in, &out) : rc;
    rabred_pricebooks_free(&books);
    return RABRED_OK == rc ? out.alg : NULL;
}

/* Verbose 3's list of prices: every candidate (allowed and priced by the
 * book) priced, none pruned; the choice is the same as without the list
 * and is the cheapest listed. */
static void test_prices_listed(void)
{
    rabred_link_units_t link = rabred_default_inter;
    const int sizes[] = {8, 65536, 4 << 20};
    for (int i = 0; i < 3; i++) {
        rabred_pricebooks_t books = {0};
        rabred_model_t m = rabred_model_make(&link, RABRED_DEFAULT_REDUCE_MBS, 0);
        const rabred_pricebook_t *book = NULL;
        rabred_choice_t plain = {0}, listed = {0};
        char prices[2048] = "";
        rabred_select_in_t in = {.coll = RABRED_COLL_ALLREDUCE, .call = {13, sizes[i] / 8, 1, NULL},
                                 .root = -1, .bytes = sizes[i], .forced = RABRED_ALG_AUTO};
        int rc = rabred_pricebooks_get(&books, RABRED_COLL_ALLREDUCE, 13, 0, &m, &book);
        in.book = book;
        rc = RABRED_OK == rc ? rabred_select(&in, &plain) : rc;
        in.prices = prices;
        in.prices_len = sizeof(prices);
        rc = RABRED_OK == rc ? rabred_select(&in, &listed) : rc;
        int n = 0, candidates = 0;
        for (int k = 0; RABRED_OK == rc && k < rabred_table_size(RABRED_COLL_ALLREDUCE); k++) {
            const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_ALLREDUCE, k);
            candidates += !alg->arrival_aware && NULL == rabred_alg_violation(alg, &in.call) &&
                          rabred_pricebook_price_count(book, alg, -1, 1, in.call.count,
                                                       in.bytes) >= 0;
        }
        rabred_pricebooks_free(&books);
        double least = -1;
        char least_name[64] = "", *save = NULL;
        for (char *tok = strtok_r(prices, ",", &save); NULL != tok;
             tok = strtok_r(NULL, ",", &save)) {
            char name[64];
            double t;
            if (2 == sscanf(tok, " %63s %lf us", name, &t) && (least < 0 || t < least)) {
                least = t;
                snprintf(least_name, sizeof(least_name), "%s", name);
            }
            n++;
        }
        CHECK(RABRED_OK == rc && NULL != plain.alg && plain.alg == listed.alg &&
                  0 == strcmp(least_name, plain.alg->name) && n == candidates,
              "p = 13, %d B: chose %s (with the list %s), cheapest listed %s, %d of %d "
              "candidates listed", sizes[i], plain.alg ? plain.alg->name : "none",
              listed.alg ? listed.alg->name : "none", least_name, n, candidates);
    }
}

/* The crossing-handshake term (rndv_cross): a round that sends a message
 * above eager_bytes to one peer and receives one from another pays it, an
 * exchange with one peer does not.  p = 8, 1 MiB: the neighbour ring's 14
 * rounds of 128 KiB pay it 14 times, Rabenseifner's exchanges never; at
 * 256 KiB the ring's 32 KiB messages are eager and pay nothing.  With the
 * emulated cluster's calibration (rabred-calibrate, calibrate-20261206:
 * no switch seen by ping-pong) the decision takes the ring at 1 MiB; with
 * the 5.4 ms its ring rounds of 128 KiB took beyond exchange rounds
 * (bench/results/ring-handshake-20261206) it takes halving and doubling,
 * measured 168 ms against the ring's 225; at 64 KiB, where the ring's
 * messages are 8 KiB, the term changes nothing. */
static void test_rndv_cross_term(void)
{
    const int64_t n = 1 << 20;
    rabred_model_t m = RABRED_TEST_MODEL(0, 1e-9, 0, 1.0, 1.0);
    m.eager_bytes = 65536;
    m.rndv_cross = 5e-3;
    rabred_price_call_t call = {8, -1, 1, n, 0, 0};
    double rab = -1, ring = -1;
    CHECK(RABRED_OK == rabred_model_extras(&rabred_alg_allreduce_neighbor_ring, &call, &m,
                                           &ring) && fabs(ring - 14 * 5e-3) < 1e-12,
          "p = 8, 1 MiB: the ring's crossing handshakes %g s, want 14 x 5 ms", ring);
    CHECK(RABRED_OK == rabred_model_extras(&rabred_alg_allreduce_rabenseifner, &call, &m, &rab) &&
              0 == rab,
          "p = 8, 1 MiB: Rabenseifner's exchanges pay %g s, want 0", rab);
    call.bytes = n / 4;
    CHECK(RABRED_OK == rabred_model_extras(&rabred_alg_allreduce_neighbor_ring, &call, &m,
                                           &ring) && 0 == ring,
          "p = 8, 256 KiB: the ring's 32 KiB messages are eager, pay %g s, want 0", ring);

    rabred_link_units_t rig = {.alpha_us = 13.89, .mbs = 11.709, .oneway_alpha = 1.266,
                               .oneway_beta = 0.9796, .repeat = 1, .duplex = 1,
                               .peer_us = 457.4, .send_buffer_bytes = 1072333,
                               .sends_first_bytes = 65536};
    const rabred_alg_t *before = pick_flat(&rig, 8, n);
    rig.eager_bytes = 32768;
    rig.rndv_cross_us = 5400;
    const rabred_alg_t *after = pick_flat(&rig, 8, n), *small = pick_flat(&rig, 8, 1 << 16);
    rig.rndv_cross_us = 0;
    const rabred_alg_t *small_before = pick_flat(&rig, 8, 1 << 16);
    int halving = &rabred_alg_allreduce_rabenseifner == after ||
                  rabred_table_by_name(RABRED_COLL_ALLREDUCE, "binary_blocks") == after;
    CHECK(&rabred_alg_allreduce_neighbor_ring == before && halving,
          "p = 8, 1 MiB on the emulated cluster: %s without the term (want neighbor_ring), %s "
          "with it (want rabenseifner or binary_blocks)", before ? before->name : "none",
          after ? after->name : "none");
    CHECK(small == small_before, "p = 8, 64 KiB: %s with the term, %s without (want the same)",
          small ? small->name : "none", small_before ? small_before->name : "none");
}

/* Shifts (rabred_link_units_t.shift_mbs, shift_alpha_us) price the messages to partners
 * other than rank XOR 2^k: with XOR pairs at full speed at every distance
 * and shifts of 2 and more at half speed, Bruck (rank - 2^k) pays, halving
 * and doubling and recursive doubling (XOR partners at p = 2^k) do not,
 * and the ring pays nothing (a shift of 1 is the link's speed).  Without
 * the shift list every partner is priced by the XOR list, as before. */
static void test_shift_terms(void)
{
    const int64_t n = 1 << 16;
    rabred_model_t m = RABRED_TEST_MODEL(0, 1e-9, 0, 1.0, 1.0);
    for (int k = 0; k < RABRED_DISTANCE_CLASSES; k++) {
        m.distance_beta[k] = 1e-9;
        m.shift_beta[k] = k > 0 ? 2e-9 : 1e-9;
    }
    rabred_price_call_t call = {64, -1, 1, n, 0, 0};
    const char *names[4] = {"bruck", "rabenseifner", "recursive_doubling", "neighbor_ring"};
    for (int i = 0; i < 4; i++) {
        const rabred_alg_t *alg = rabred_table_by_name(RABRED_COLL_ALLREDUCE, names[i]);
        double with = -1, without = -1;
        rabred_model_t plain = m;
        memset(plain.shift_beta, 0, sizeof(plain.shift_beta));
        CHECK(NULL != alg && RABRED_OK == rabred_model_extras(alg, &call, &m, &with) &&
                  RABRED_OK == rabred_model_extras(alg, &call, &plain, &without),
              "%s: extras", names[i]);
        int pays = 0 == i;
        CHECK(pays ? with > without + 1e-12 : fabs(with - without) <= 1e-15,
              "p = 64, 64 KiB, shifts from 2 at half speed: %s's extra %g s with the shift "
              "list, %g without (%s)", names[i], with, without, pays ? "want more" : "want equal");
        CHECK(without <= 1e-15, "%s: XOR pairs at full speed cost nothing (%g s)", names[i],
              without);
    }
    /* the same for latency (distance_alpha, shift_alpha): shifts of 2 and
     * more take 1 us more than alpha per doubling, XOR pairs take alpha */
    rabred_model_t lat = RABRED_TEST_MODEL(1e-6, 0, 0, 1.0, 1.0);
    for (int k = 0; k < RABRED_DISTANCE_CLASSES; k++) {
        lat.distance_alpha[k] = 1e-6;
        lat.shift_alpha[k] = 1e-6 * (1 + k);
    }
    for (int i = 0; i < 4; i++) {
        const rabred_alg_t *alg = rabred_table_by_name(RABRED_COLL_ALLREDUCE, names[i]);
        double extra = -1;
        CHECK(NULL != alg && RABRED_OK == rabred_model_extras(alg, &call, &lat, &extra) &&
                  (0 == i ? extra > 1e-6 : extra <= 1e-15),
              "p = 64, shifts slower to reach: %s's latency extra %g s (%s)", names[i], extra,
              0 == i ? "want more than 1 us" : "want 0");
    }
}

/* A communicator whose rank distances are not the measured ones leaves
 * every distance term out: with any one of the four lists set, the model
 * has a distance term; cleared, none, and Bruck's extra is the plain
 * model's. */
static void test_clear_distance(void)
{
    rabred_model_t plain = RABRED_TEST_MODEL(1e-6, 1e-9, 0, 1.0, 1.0);
    rabred_price_call_t call = {64, -1, 1, 1 << 16, 0, 0};
    const rabred_alg_t *bruck = rabred_table_by_name(RABRED_COLL_ALLREDUCE, "bruck");
    double base = -1;
    CHECK(NULL != bruck && RABRED_OK == rabred_model_extras(bruck, &call, &plain, &base),
          "bruck: extras of the plain model");
    for (int list = 0; list < 4; list++) {
        rabred_model_t m = plain;
        double *lists[4] = {m.distance_beta, m.shift_beta, m.distance_alpha, m.shift_alpha};
        double slow = list < 2 ? 4e-9 : 4e-6;
        for (int k = 1; k < RABRED_DISTANCE_CLASSES; k++) {
            lists[list][k] = slow;
        }
        CHECK(rabred_model_has_distance(&m), "list %d set: a distance term", list);
        rabred_model_clear_distance(&m);
        double extra = -1;
        CHECK(!rabred_model_has_distance(&m) &&
                  RABRED_OK == rabred_model_extras(bruck, &call, &m, &extra) &&
                  fabs(extra - base) <= 1e-15,
              "list %d cleared: no distance term, bruck's extra %g s (plain %g)", list, extra,
              base);
    }
}

/* The distance term: a round's slowest message at the bandwidth every
 * rank gets when all exchange that far apart (rabred_extras.c).
 *  - p = 4, halving and doubling: rank 0 exchanges n/2 with rank 1, n/4
 *    with rank 2, then n/4 and n/2 back; with distance 2 at half speed
 *    the two n/4 exchanges pay n/4 beta each more: n beta / 2.  The
 *    neighbour ring talks only to ranks 1 away (3 is 1 away cyclically):
 *    nothing.
 *  - p = 256 with what rabred_scale measures on bench/scale's 16x16x16
 *    torus (each 16 ranks a row: 8 ranks apart is 8 hops on shared
 *    links, 16 apart one hop in the next dimension): 2 MiB goes from
 *    halving and doubling (Rabenseifner's or binary blocks', one price
 *    at p = 2^k) to a neighbour ring (SMPI: 7137 us against
 *    3451), 8 B stays with recursive doubling; a list equal to the
 *    link's bandwidth changes nothing. */
static void test_distance_term(void)
{
    const int64_t n = 1 << 20;
    rabred_model_t m = RABRED_TEST_MODEL(0, 1e-9, 0, 1.0, 1.0);
    m.distance_beta[1] = 2e-9;
    rabred_price_call_t call = {4, -1, 1, n, 0, 0};
    double rab = -1, ring = -1;
    CHECK(RABRED_OK == rabred_model_extras(&rabred_alg_allreduce_rabenseifner, &call, &m, &rab) &&
              fabs(rab - n * 1e-9 / 2) <= 1e-12,
          "distance 2 at half speed, p = 4: halving and doubling's extra %g s, want %g", rab,
          n * 1e-9 / 2);
    CHECK(RABRED_OK == rabred_model_extras(&rabred_alg_allreduce_neighbor_ring, &call, &m,
                                           &ring) && 0 == ring,
          "distance 2 at half speed, p = 4: the neighbour ring's extra %g s, want 0", ring);

    rabred_link_units_t torus = {.alpha_us = 0.23, .mbs = 1250, .oneway_alpha = 1,
                                 .oneway_beta = 1, .repeat = 1, .duplex = 1};
    rabred_link_units_t flat = torus;
    const double measured[8] = {1250, 625, 312.5, 156.25, 1250, 625, 312.5, 156.25};
    for (int k = 0; k < 8; k++) {
        torus.distance_mbs[k] = measured[k];
    }
    const rabred_alg_t *big = pick_flat(&torus, 256, 2 << 20), *plain = pick_flat(&flat, 256, 2 << 20);
    int halving = &rabred_alg_allreduce_rabenseifner == plain ||
                  rabred_table_by_name(RABRED_COLL_ALLREDUCE, "binary_blocks") == plain;
    CHECK(&rabred_alg_allreduce_neighbor_ring == big && halving,
          "p = 256, 2 MiB: %s with the torus's distances (want neighbor_ring), %s without "
          "(want halving and doubling: rabenseifner or binary_blocks, equal at p = 2^k)",
          big ? big->name : "none", plain ? plain->name : "none");
    const rabred_alg_t *tiny = pick_flat(&torus, 256, 8);
    CHECK(&rabred_alg_allreduce_recursive_doubling == tiny,
          "p = 256, 8 B with the torus's distances: %s (want recursive_doubling)",
          tiny ? tiny->name : "none");
    for (int k = 0; k < 8; k++) {
        flat.distance_mbs[k] = flat.mbs;
    }
    const rabred_alg_t *same = pick_flat(&flat, 256, 2 << 20);
    CHECK(plain == same, "p = 256, 2 MiB, every distance at the link's speed: %s (want %s)",
          same ? same->name : "none", plain ? plain->name : "none");

    /* with a node map (4 nodes of 2 ranks) a rank's distance is not its
     * node's: the two-level extras do not charge it */
    int32_t node_of[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    rabred_nodes_t nodes = {4, node_of, NULL, NULL};
    rabred_model_t slow = m, intra = RABRED_TEST_MODEL(0, 1e-10, 0, 1.0, 1.0);
    slow.distance_beta[2] = 8e-9;
    double t[2] = {-1, -2};
    for (int k = 0; k < 2; k++) {
        rabred_pricebooks_t books = {0};
        const rabred_pricebook_t *book = NULL;
        rabred_price_call_t c8 = {8, -1, 1, n, 0, 0};
        CHECK(RABRED_OK == rabred_pricebooks_get_nodes(&books, RABRED_COLL_ALLREDUCE, 8, 0,
                                                       k ? &slow : &m, &intra, &nodes, &book) &&
                  RABRED_OK == rabred_model_extras_nodes(&rabred_alg_allreduce_rabenseifner, &c8,
                                                         book, &t[k]),
              "two levels: extras");
        rabred_pricebooks_free(&books);
    }
    CHECK(t[0] == t[1], "two levels: halving and doubling's extras %g s without the distance "
          "term, %g with (want the same)", t[0], t[1]);
}

/* MPI_Reduce's metric (coll_rabred_reduce_metric) on 4 nodes of 4 ranks
 * placed round-robin, a full-duplex network 10x slower than the nodes'
 * memory: by completion the root's node link decides, and the chain of
 * node leaders, which brings the vector into it once (plus its fill),
 * must beat the leaders' binomial tree, which brings it twice (lg 4); the
 * two metrics get books of their own, and a rank's average time is never
 * above the completion time, so neither is its price. */
static void test_reduce_metric(void)
{
    int32_t node_of[16];
    for (int r = 0; r < 16; r++) {
        node_of[r] = r % 4;
    }
    rabred_nodes_t nodes = {4, node_of, NULL, NULL};
    rabred_model_t net = RABRED_TEST_MODEL(2e-6, 1e-10, 1e-12, 1.0, 1.0);
    rabred_model_t intra = RABRED_TEST_MODEL(5e-7, 1e-11, 1e-12, 1.0, 1.0);
    rabred_model_t done = net;
    done.reduce_completion = 1;
    rabred_pricebooks_t books = {0};
    const rabred_pricebook_t *avg = NULL, *end = NULL;
    CHECK(RABRED_OK == rabred_pricebooks_get_nodes(&books, RABRED_COLL_REDUCE, 16, 0, &net, &intra,
                                                   &nodes, &avg) &&
              RABRED_OK == rabred_pricebooks_get_nodes(&books, RABRED_COLL_REDUCE, 16, 0, &done,
                                                       &intra, &nodes, &end) &&
              NULL != avg && NULL != end && avg != end,
          "two books, one per metric");
    const int64_t n = (int64_t)16 << 20;
    const rabred_alg_t *chain = rabred_table_by_name(RABRED_COLL_REDUCE, "node_chain");
    const rabred_alg_t *leaders = rabred_table_by_name(RABRED_COLL_REDUCE, "node_leaders");
    for (int i = 0; NULL != avg && NULL != end && i < rabred_table_size(RABRED_COLL_REDUCE); i++) {
        const rabred_alg_t *alg = rabred_table_at(RABRED_COLL_REDUCE, i);
        double a = rabred_pricebook_price(avg, alg, 0, 1, n);
        double c = rabred_pricebook_price(end, alg, 0, 1, n);
        CHECK(a < 0 || (c > 0 && a <= c * (1 + 1e-9)), "%s: average %g s above completion %g s",
              alg->name, a, c);
    }
    if (NULL != avg && NULL != end && NULL != chain && NULL != leaders) {
        double c_chain = rabred_pricebook_price(end, chain, 0, 1, n);
        double c_leaders = rabred_pricebook_price(end, leaders, 0, 1, n);
        double bound = (double)n * net.beta;
        /* the chain: n beta (1 + (N - 2)/S), S = 16, and the tree inside
         * the node (2 n beta_i), about 1.3 n beta; the tree twice that */
        CHECK(c_chain > 0 && c_chain < c_leaders && c_chain < 1.6 * bound && c_leaders > 2 * bound,
              "16 MiB by completion: node_chain %g s, node_leaders %g s, the root link's n beta "
              "%g s (want the chain below the tree, within 1.6x of n beta; the tree above 2x)",
              c_chain, c_leaders, bound);
    }
    rabred_pricebooks_free(&books);

    /* one link, p = 8: the closed forms price the average, so completion
     * must simulate; a binomial tree's leaves leave after one send, its
     * root after lg p receives */
    rabred_pricebooks_t flat = {0};
    const rabred_pricebook_t *flat_avg = NULL, *flat_end = NULL;
    CHECK(RABRED_OK == rabred_pricebooks_get(&flat, RABRED_COLL_REDUCE, 8, 0, &net, &flat_avg) &&
              RABRED_OK == rabred_pricebooks_get(&flat, RABRED_COLL_REDUCE, 8, 0, &done,
                                                 &flat_end),
          "one link: two books");
    if (NULL != flat_avg && NULL != flat_end) {
        double a = rabred_pricebook_price(flat_avg, &rabred_alg_reduce_binomial, 0, 1, n);
        double c = rabred_pricebook_price(flat_end, &rabred_alg_reduce_binomial, 0, 1, n);
        CHECK(a > 0 && c > 1.5 * a && c > 2.9 * (double)n * net.beta,
              "p = 8, 16 MiB, binomial: average %g s, completion %g s (want the root's three "
              "receives, above 1.5x the average and 3 n beta %g s)",
              a, c, 3 * (double)n * net.beta);
    }
    rabred_pricebooks_free(&flat);
}

/* The distance list's parser: up to RABRED_DISTANCE_CLASSES numbers >= 0,
 * comma-separated; anything else is refused whole. */
static void test_distance_parse(void)
{
    double mbs[RABRED_DISTANCE_CLASSES];
    CHECK(0 == rabred_distance_parse("", mbs) && 0 == rabred_distance_parse(NULL, mbs) &&
              0 == mbs[0],
          "empty list");
    CHECK(3 == rabred_distance_parse("1250,625.5,0", mbs) && 1250 == mbs[0] && 625.5 == mbs[1] &&
              0 == mbs[2] && 0 == mbs[3],
          "three entries: %g %g %g", mbs[0], mbs[1], mbs[2]);
    const char *bad[] = {"1250,", ",1250", "x", "-1", "nan", "inf", "1250;625", "1,,2",
                         "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        mbs[0] = 7;
        CHECK(-1 == rabred_distance_parse(bad[i], mbs) && 0 == mbs[0], "\"%s\" refused", bad[i]);
    }
    CHECK(16 == rabred_distance_parse("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", mbs) &&
              16 == mbs[15],
          "sixteen entries");
}

/* Writing what the peer read: reductions into it at beta_inv, receives
 * and copies over it at beta_overwrite (rabred_extras.c).  Recursive
 * doubling reduces into the vector it sent only where its partner's data
 * comes first after the first step: never at p = 2 (the first step sends
 * the input and reduces into the vector received or a copy of the input),
 * n bytes at p = 4 (ranks 2 and 3 in the second step); it never receives
 * over what it sent.  Halving and doubling sends its first half from the
 * input, which it never writes: at p = 2 nothing a peer read is written;
 * at p = 4 the second step's quarter, read from ACC, is received over in
 * the allgather (n/4 at beta_overwrite).  linear's ranks write only memory
 * nobody read. */
static void test_invalidate_terms(void)
{
    const int64_t n = 1 << 20;
    enum { NCASES = 5 };
    const rabred_alg_t *algs[NCASES] = {&rabred_alg_allreduce_recursive_doubling,
                                        &rabred_alg_allreduce_recursive_doubling,
                                        &rabred_alg_allreduce_rabenseifner,
                                        &rabred_alg_allreduce_rabenseifner,
                                        rabred_table_by_name(RABRED_COLL_ALLREDUCE, "linear")};
    const int ps[NCASES] = {2, 4, 2, 4, 2};
    for (int overwrite = 0; overwrite < 2; overwrite++) {
        rabred_model_t m = RABRED_TEST_MODEL(0, 0, 0, 1.0, 1.0);
        double *term = overwrite ? &m.beta_overwrite : &m.beta_inv;
        *term = 1e-9;
        const double want[NCASES] = {0, overwrite ? 0 : n * 1e-9, 0,
                                     overwrite ? n / 4 * 1e-9 : 0, 0};
        for (int k = 0; k < NCASES; k++) {
            rabred_price_call_t call = {ps[k], -1, 1, n, 0, 0};
            double extra = -1;
            CHECK(NULL != algs[k] &&
                      RABRED_OK == rabred_model_extras(algs[k], &call, &m, &extra) &&
                      fabs(extra - want[k]) <= 1e-12,
                  "%s: %s p = %d extra %g s, want %g s", overwrite ? "overwrite" : "invalidate",
                  NULL != algs[k] ? algs[k]->name : "?", ps[k], extra, want[k]);
        }
    }
}

/* Speeds beyond the cache (rabred_model_for_bytes): a call whose three
 * vectors fit in the cache keeps the model as it is; a larger one reduces
 * and copies at the far speeds and pays no invalidate or overwrite term.
 * Without a cache size or without far speeds nothing changes at any size,
 * and a book prices a closed form with the model of the call's size. */
static void test_far_speeds(void)
{
    rabred_model_t m = RABRED_TEST_MODEL(1e-6, 1e-10, 2e-11, 1.0, 1.0);
    m.copy = 3e-11;
    m.beta_inv = 2e-10;
    m.beta_overwrite = 5e-11;
    rabred_model_t plain = m;
    const rabred_far_units_t far = {10000, 12000, 3 << 20};
    rabred_model_set_far(&m, &far);
    rabred_model_t in = rabred_model_for_bytes(&m, 1 << 20), out = rabred_model_for_bytes(&m, (1 << 20) + 1);
    CHECK(in.gamma == m.gamma && in.copy == m.copy && in.beta_inv == m.beta_inv &&
              in.beta_overwrite == m.beta_overwrite,
          "3 n = the cache: in-cache speeds");
    CHECK(fabs(out.gamma - 1e-10) < 1e-22 && fabs(out.copy - 1e-6 / 12000) < 1e-22 &&
              0 == out.beta_inv && 0 == out.beta_overwrite && out.beta == m.beta,
          "3 n > the cache: gamma %g copy %g inv %g", out.gamma, out.copy, out.beta_inv);
    const rabred_far_units_t no_cache = {10000, 12000, 0}, no_speeds = {0, 0, 3 << 20};
    for (int k = 0; k < 2; k++) {
        rabred_model_t q = plain;
        rabred_model_set_far(&q, k ? &no_speeds : &no_cache);
        rabred_model_t big = rabred_model_for_bytes(&q, (int64_t)1 << 30);
        CHECK(0 == memcmp(&big, &plain, sizeof(big)), "%s: one speed at 1 GiB",
              k ? "no far speeds" : "no cache size");
    }
    static rabred_pricebook_t book;
    const rabred_alg_t *rd = &rabred_alg_allreduce_recursive_doubling;
    CHECK(RABRED_OK == rabred_pricebook_fill(&book, RABRED_COLL_ALLREDUCE, 8, 65536, &m), "fill");
    for (int64_t n = 1 << 16; n <= 1 << 24; n *= 4) {
        rabred_price_call_t call = {8, -1, 1, n, 65536, 0};
        rabred_model_t at = rabred_model_for_bytes(&m, n);
        double want = rd->price(&call, &at);
        double got = rabred_pricebook_price(&book, rd, -1, 1, n);
        CHECK(fabs(got - want) <= 1e-12 * want, "book at %lld B: %g, closed form %g",
              (long long)n, got, want);
    }
}

/* A forced algorithm that cannot serve the call is replaced by what auto
 * would do: the rules file first, then the cost model (not the bare
 * threshold), the reason naming the forced algorithm. */
static void test_forced_fallback(void)
{
    rabred_model_t model = RABRED_TEST_MODEL(60e-6, 160e-9, 0.5e-9, 1.0, 0.5);
    static rabred_pricebook_t book;
    CHECK(RABRED_OK == rabred_pricebook_fill(&book, RABRED_COLL_ALLREDUCE, 4, 0, &model), "fill");
    const rabred_alg_t *ring = rabred_table_by_name(RABRED_COLL_ALLREDUCE, "pairwise_ring");
    const rabred_alg_t *blocks = rabred_table_by_name(RABRED_COLL_ALLREDUCE, "binary_blocks");
    rabred_rule_t rule = {RABRED_COLL_ALLREDUCE, 1, INT_MAX, 0, INT64_MAX, -1, blocks->id, 0, 3};
    rabred_rules_t rules = {&rule, 1};
    rabred_call_t noncommutative = {4, 1 << 17, 0, NULL};
    rabred_choice_t ch;

    decide_ctx_t with_rule = {&rules, "r.txt", &book, 0};
    decide(RABRED_COLL_ALLREDUCE, &noncommutative, 1 << 20, ring->id, &with_rule, &ch);
    CHECK(blocks == ch.alg && RABRED_WHY_FALLBACK == ch.why && NULL != strstr(ch.reason, "ring") &&
              NULL != strstr(ch.reason, "r.txt:3"),
          "forced ring, non-commutative, rule binary_blocks: %s why=%s (%s)",
          ch.alg ? ch.alg->name : "previous", rabred_why_name(ch.why), ch.reason);

    decide_ctx_t model_only = {NULL, "none", &book, 0};
    decide(RABRED_COLL_ALLREDUCE, &noncommutative, 1 << 20, ring->id, &model_only, &ch);
    CHECK(NULL != ch.alg && NULL == rabred_alg_violation(ch.alg, &noncommutative) &&
              RABRED_WHY_FALLBACK == ch.why && NULL != strstr(ch.reason, "model:"),
          "forced ring, non-commutative, no rules: %s why=%s (%s)",
          ch.alg ? ch.alg->name : "previous", rabred_why_name(ch.why), ch.reason);
}

/* What auto picks for n bytes at p over a node map, the network's link and
 * the node's (balanced, commutative). */
static const rabred_alg_t *pick_nodes(const rabred_link_units_t *net,
                                      const rabred_link_units_t *node, rabred_nodes_t *nodes,
                                      int p, int64_t n)
{
    rabred_pricebooks_t books = {0};
    rabred_model_t m = rabred_model_make(net, RABRED_DEFAULT_REDUCE_MBS, 0);
    rabred_model_t in_node = rabred_model_make(node, RABRED_DEFAULT_REDUCE_MBS, 0);
    const rabred_pricebook_t *book = NULL;
    rabred_choice_t out = {0};
    rabred_select_in_t in = {.coll = RABRED_COLL_ALLREDUCE, .call = {p, n / 8, 1, nodes},
                             .root = -1, .bytes = n, .forced = RABRED_ALG_AUTO};
    int rc = rabred_pricebooks_get_nodes(&books, RABRED_COLL_ALLREDUCE, p, 0, &m, &in_node,
                                         nodes, &book);
    in.book = book;
    rc = RABRED_OK == rc ? rabred_select(&in, &out) : rc;
    rabred_pricebooks_free(&books);
    return RABRED_OK == rc ? out.alg : NULL;
}

/* parallel_ports moves the choice at a crossover it explains: 4 nodes of
 * 16 ranks with bench/scale's nodes16 links as measured there (a
 * 100 Gbit/s network link per node shared by its messages, 1 us; inside a
 * node 10 GB/s, 0.2 us, all of it wire).  At 4 and 32 KiB: where the
 * node's messages in flight move as if alone, node_leaders_direct (its
 * three node phases each about one message) is the cheapest; where they
 * take turns its leader's 15 broadcasts queue (15 n beta_i), and it is
 * not.  (At 512 B those take 0.8 us with latency overlapped, and it is
 * the cheapest either way.) */
static void test_parallel_ports_term(void)
{
    int32_t node_of[64];
    for (int r = 0; r < 64; r++) {
        node_of[r] = r / 16;
    }
    rabred_nodes_t nodes = {4, node_of, NULL, NULL};
    /* as bench/scale measures them: no handshake, sends below SMPI's
     * detached threshold leave when posted */
    rabred_link_units_t net = {.alpha_us = 1.00128, .mbs = 12500, .oneway_alpha = 1,
                               .oneway_beta = 1, .repeat = 1, .duplex = 1,
                               .send_buffer_bytes = 65535, .shared_ports = 1, .wire_us = 1.0};
    rabred_link_units_t node = net;
    node.alpha_us = node.wire_us = 0.2016;
    node.mbs = 10000;
    node.shared_ports = 0;
    const rabred_alg_t *direct = rabred_table_by_name(RABRED_COLL_ALLREDUCE, "node_leaders_direct");
    for (int64_t n = 4096; n <= 32768; n *= 8) {
        node.parallel_ports = 0;
        const rabred_alg_t *turns = pick_nodes(&net, &node, &nodes, 64, n);
        node.parallel_ports = 1;
        const rabred_alg_t *free_ports = pick_nodes(&net, &node, &nodes, 64, n);
        CHECK(NULL != direct && free_ports == direct && NULL != turns && turns != direct,
              "p = 64 on 4 nodes, %lld bytes: no ports picks %s, turns %s (want "
              "node_leaders_direct, then another)",
              (long long)n, free_ports ? free_ports->name : "none", turns ? turns->name : "none");
    }
}

int main(void)
{
    test_parallel_ports_term();
    test_crossovers();
    test_terms_shift_choices();
    test_duplex_and_aggregate();
    test_aggregate_is_a_bound();
    test_invalidate_terms();
    test_far_speeds();
    test_shift_terms();
    test_clear_distance();
    test_distance_term();
    test_rndv_cross_term();
    test_prices_listed();
    test_reduce_metric();
    test_distance_parse();
    test_grid();
    test_grid_model_and_rules();
    test_thresholds();
    test_forced_fallback();
    return rabred_test_summary("test_decide");
}
