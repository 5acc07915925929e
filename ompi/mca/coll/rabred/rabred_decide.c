/*
 * rabred's selection layer, pure part (see rabred_decide.h).
 */
#include "rabred_decide.h"

#include <stdio.h>

const char *rabred_why_name(rabred_why_t why)
{
    switch (why) {
    case RABRED_WHY_FORCED:
        return "forced";
    case RABRED_WHY_DECISION:
        return "decision";
    default:
        return "fallback";
    }
}

/* Built-in decision: the short-vector algorithm up to the threshold, the
 * bandwidth-optimal one above it when its restrictions allow. */
static void built_in(rabred_coll_t coll, const rabred_call_t *call, int64_t bytes,
                     const rabred_thresholds_t *th, rabred_choice_t *choice)
{
    int allreduce = RABRED_COLL_ALLREDUCE == coll;
    int64_t limit = allreduce ? th->allreduce_short_bytes : th->reduce_short_bytes;
    const rabred_alg_t *shorter =
        rabred_table_by_name(coll, allreduce ? "recursive_doubling" : "binomial");
    const rabred_alg_t *longer = rabred_table_by_name(coll, "rabenseifner");
    const char *why_not = NULL;

    if (bytes > limit && NULL == (why_not = rabred_alg_violation(longer, call))) {
        choice->alg = longer;
        snprintf(choice->reason, sizeof(choice->reason), "%lld B > short limit %lld B",
                 (long long)bytes, (long long)limit);
    } else if (NULL == rabred_alg_violation(shorter, call)) {
        choice->alg = shorter;
        if (NULL != why_not) {
            snprintf(choice->reason, sizeof(choice->reason), "%lld B, but rabenseifner %s",
                     (long long)bytes, why_not);
        } else {
            snprintf(choice->reason, sizeof(choice->reason), "%lld B <= short limit %lld B",
                     (long long)bytes, (long long)limit);
        }
    } else {
        choice->alg = NULL;
        snprintf(choice->reason, sizeof(choice->reason), "no rabred algorithm fits");
    }
}

void rabred_decide(rabred_coll_t coll, const rabred_call_t *call, int64_t bytes, int forced,
                   const rabred_thresholds_t *th, rabred_choice_t *choice)
{
    choice->alg = NULL;
    choice->reason[0] = '\0';
    if (RABRED_ALG_PREVIOUS == forced) {
        choice->why = RABRED_WHY_FORCED;
        snprintf(choice->reason, sizeof(choice->reason), "previous component requested");
        return;
    }
    const rabred_alg_t *alg = rabred_table_by_id(coll, forced);
    const char *violation = alg ? rabred_alg_violation(alg, call) : NULL;
    if (NULL != alg && NULL == violation) {
        choice->alg = alg;
        choice->why = RABRED_WHY_FORCED;
        snprintf(choice->reason, sizeof(choice->reason), "coll_rabred_%s_algorithm",
                 rabred_coll_name(coll));
        return;
    }
    built_in(coll, call, bytes, th, choice);
    if (RABRED_ALG_AUTO == forced) {
        choice->why = NULL == choice->alg ? RABRED_WHY_FALLBACK : RABRED_WHY_DECISION;
        return;
    }
    /* forced, but it cannot serve this call (or the id is unknown) */
    char decided[100];
    snprintf(decided, sizeof(decided), "%.99s", choice->reason);
    if (NULL != alg) {
        snprintf(choice->reason, sizeof(choice->reason), "forced %s %s; decision: %s", alg->name,
                 violation, decided);
    } else {
        snprintf(choice->reason, sizeof(choice->reason), "unknown algorithm id %d; decision: %s",
                 forced, decided);
    }
    choice->why = RABRED_WHY_FALLBACK;
}
