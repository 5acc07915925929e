/*
 * rabred's selection layer, pure part (DESIGN.md, "Selection"):
 *   forced algorithm > rules file > built-in decision > previous component.
 * The built-in decision is the cost model (rabred_model.h: every algorithm
 * priced by the simulator for this communicator's p, with the MCA
 * parameters alpha, beta, gamma, f_alpha, f_beta) corrected by the measured
 * limits in rabred_decide.c's one table.  Nothing here ever returns an
 * algorithm whose declared restrictions the call violates, and every
 * choice says why, for the verbose line.  No MPI here, so it is unit-tested.
 */
#ifndef RABRED_DECIDE_H
#define RABRED_DECIDE_H

#include <stdint.h>

#include "select/rabred_model.h"
#include "select/rabred_rules.h"
#include "algorithms/rabred_table.h"

/* Without a price book (or when the admin sets coll_rabred_*_short_bytes)
 * the short/long cut-over in bytes per rank: MPICH's long-standing values
 * (MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, MPIR_CVAR_REDUCE_SHORT_MSG_SIZE,
 * both 2048 B), the same alpha/beta/gamma comparison of recursive doubling
 * or binomial against halving and doubling (seed 000 sec. 3). */
#define RABRED_DEFAULT_SHORT_BYTES 2048

typedef struct {
    const rabred_rules_t *rules;    /* pruned for this communicator and collective, or NULL */
    const char *rules_name;         /* the rules file, for reasons */
    const rabred_pricebook_t *book; /* priced for this p, or NULL: use short_bytes */
    int64_t short_bytes;            /* > 0: latency algorithm up to here, model above */
} rabred_decide_ctx_t;

typedef enum {
    RABRED_WHY_FORCED,   /* the user named it */
    RABRED_WHY_RULE,     /* a rules-file line */
    RABRED_WHY_DECISION, /* the built-in decision */
    RABRED_WHY_FALLBACK  /* what was asked for cannot serve this call */
} rabred_why_t;

typedef struct {
    const rabred_alg_t *alg; /* NULL: hand the call to the previous component */
    rabred_why_t why;
    int64_t seg_bytes;       /* segment size from a rule; 0: the MCA parameter */
    char reason[256];        /* one line for the verbose output */
} rabred_choice_t;

const char *rabred_why_name(rabred_why_t why);

/* The measured table's factor on the model's price of `alg` for p ranks
 * and `bytes` per rank (1: no correction; 0: kept out of that cell), for
 * the balanced decision. */
double rabred_decide_measured_factor(rabred_coll_t coll, const rabred_alg_t *alg, int p,
                                     int64_t bytes);

/* The measured table's factor on the simulated average elapsed time of the
 * arrival-aware allreduce `alg` under arrival offsets (the arrival
 * estimate's choice), for p ranks and `bytes` per rank (1: none; 0: kept
 * out of that cell). */
double rabred_decide_arrival_factor(const rabred_alg_t *alg, int p, int64_t bytes);

/* 1 when the measured table leaves some arrival-aware allreduce in the
 * cell (p, bytes), so that estimating arrivals there can pay off; 0 when
 * it keeps them all out. */
int rabred_decide_arrival_possible(int p, int64_t bytes);

/* Choose for `call` (bytes = count * type size) given the forced id
 * (RABRED_ALG_AUTO, RABRED_ALG_PREVIOUS or a table id). */
void rabred_decide(rabred_coll_t coll, const rabred_call_t *call, int64_t bytes, int forced,
                   const rabred_decide_ctx_t *ctx, rabred_choice_t *choice);

#endif /* RABRED_DECIDE_H */
