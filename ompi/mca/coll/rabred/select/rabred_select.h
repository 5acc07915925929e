/*
 * The selection unit (DESIGN.md, "Selection"): for one call, which
 * algorithm runs and why.  One entry, rabred_select, owns the whole order:
 *
 *   1. forced: coll_rabred_<coll>_algorithm names an algorithm (or previous);
 *   2. rules file: the first rule matching the call;
 *   3. the built-in decision: the cost model's cheapest allowed algorithm
 *      (select/rabred_model.h: closed forms plus the structural terms);
 *   4. the arrival estimate (MPI_Allreduce): an arrival-aware algorithm
 *      replaces the decision's when the estimated offsets say it pays;
 *   5. previous: the component below rabred, when nothing here can serve.
 *
 * Nothing here returns an algorithm whose declared restrictions the call
 * violates, and every choice says why (the reason text is built only when
 * asked for: verbose output).  The component gathers the inputs (its
 * parameters, the communicator's rules, the shared price books, the
 * estimate) and runs the result.  No MPI here, so it is unit-tested; the
 * only state it touches is what it is handed (the estimate's pacing and the
 * cached arrival pick).
 */
#ifndef RABRED_SELECT_H
#define RABRED_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/rabred_table.h"
#include "select/rabred_estimate.h"
#include "select/rabred_model.h"
#include "select/rabred_rules.h"

/* Without a price book (or when the admin sets coll_rabred_*_short_bytes)
 * the short/long cut-over in bytes per rank: MPICH's long-standing values
 * (MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, MPIR_CVAR_REDUCE_SHORT_MSG_SIZE,
 * both 2048 B), the same alpha/beta/gamma comparison of recursive doubling
 * or binomial against halving and doubling (Rabenseifner 2004 sec. 3). */
#define RABRED_DEFAULT_SHORT_BYTES 2048

typedef enum {
    RABRED_WHY_FORCED,   /* the user named it */
    RABRED_WHY_RULE,     /* a rules-file line */
    RABRED_WHY_DECISION, /* the built-in decision, or the arrival estimate's */
    RABRED_WHY_FALLBACK  /* what was asked for cannot serve this call */
} rabred_why_t;

typedef struct {
    const rabred_alg_t *alg; /* NULL: hand the call to the previous component */
    rabred_why_t why;
    int64_t seg_bytes;       /* segment size from a rule; 0: the MCA parameter */
    double price;            /* the model's balanced price of alg (s); 0: not priced */
    char reason[256];        /* one line for the verbose output, when asked for */
} rabred_choice_t;

/* Simulating the arrival-aware algorithms costs O(p^2) messages, so a pick
 * (and the plan built for it) is reused for up to this many estimated
 * calls while the offsets stay in its epoch (rabred_estimate_epoch, with
 * half of min_gain of the call as the tolerance: the pick then stays
 * within min_gain of the best).  A rank that turns late, or stops being
 * late, starts a new epoch and the next call simulates again.  Every rank
 * counts calls and epochs alike, so all reuse (or redo) it together. */
#define RABRED_ARRIVAL_REUSE_CALLS 8

/* The arrival estimate's part of a call (MPI_Allreduce only). */
typedef struct {
    rabred_estimate_t *est;      /* the communicator's estimate (pacing counts down) */
    int hint_late;               /* the application gave the offsets: nothing to exchange */
    size_t type_size;
    int64_t seg_count;           /* elements per segment for the arrival-aware plans */
    double min_gain;             /* coll_rabred_arrival_min_gain */
    rabred_arrival_pick_t *pick; /* the last simulated pick, reused for a few calls */
    int *pick_at_calls;          /* est->calls when it was simulated; 0: none */
    int *pick_epoch;             /* est->epoch it was simulated in */
    /* out: */
    int estimating;              /* run the gap exchange after this call */
    double balanced_price;       /* the decision's price, for the pacing (0: none) */
} rabred_select_arrival_t;

typedef struct {
    rabred_coll_t coll;
    rabred_call_t call;           /* p, count, commutative */
    int root;                     /* reduce: the root; allreduce: -1 */
    int64_t bytes;                /* count * type size */
    int forced;                   /* RABRED_ALG_AUTO, RABRED_ALG_PREVIOUS or a table id */
    const rabred_rules_t *rules;  /* pruned for this communicator and collective, or NULL */
    const char *rules_name;       /* the rules file, for reasons */
    const rabred_pricebook_t *book; /* priced for this p, or NULL: short_bytes decides */
    int64_t short_bytes;          /* > 0: latency algorithm up to here, model above */
    int want_reason;              /* build choice->reason */
    char *prices;                 /* non-NULL (verbose 3): the built-in decision prices
                                   * every candidate, none pruned, and lists each
                                   * "name price" here; NULL: only what can win */
    size_t prices_len;
    rabred_select_arrival_t *arrival; /* NULL: this call is not estimated */
    const rabred_choice_t *prepared; /* the balanced choice of this call's shape, made
                                      * before (a prepared call): only stage 4 runs;
                                      * NULL: every stage */
} rabred_select_in_t;

const char *rabred_why_name(rabred_why_t why);

/* Choose for `in` into *out.  RABRED_OK, or RABRED_ERR_NOMEM when the
 * arrival estimate's simulation ran out of memory (that rank's alone: the
 * call must fail rather than choose differently from the others). */
int rabred_select(const rabred_select_in_t *in, rabred_choice_t *out);

#endif /* RABRED_SELECT_H */
