/*
 * The unit tests' short way to ask the selection unit: a call's
 * collective, shape, forced id, and the context (rules, price book,
 * short_bytes), with the reason text asked for, and a reduce's root at 0.
 */
#ifndef RABRED_TEST_SELECT_H
#define RABRED_TEST_SELECT_H

#include "select/rabred_select.h"

typedef struct {
    const rabred_rules_t *rules;
    const char *rules_name;
    const rabred_pricebook_t *book;
    int64_t short_bytes;
} decide_ctx_t;

static inline void decide(rabred_coll_t coll, const rabred_call_t *call, int64_t bytes,
                          int forced, const decide_ctx_t *ctx, rabred_choice_t *choice)
{
    rabred_select_in_t in = {.coll = coll,
                             .call = *call,
                             .root = RABRED_COLL_REDUCE == coll ? 0 : -1,
                             .bytes = bytes,
                             .forced = forced,
                             .rules = ctx->rules,
                             .rules_name = ctx->rules_name,
                             .book = ctx->book,
                             .short_bytes = ctx->short_bytes,
                             .want_reason = 1};
    (void)rabred_select(&in, choice);
}

#endif /* RABRED_TEST_SELECT_H */
