/*
 * rabred's selection layer, pure part (DESIGN.md, "Selection"):
 * forced algorithm > built-in decision > the previous component.  (Rules
 * files come in between once they exist.)  The decision never returns an
 * algorithm whose declared restrictions the call violates, and always says
 * why it chose, for the verbose line.  No MPI here, so it is unit-tested.
 */
#ifndef RABRED_DECIDE_H
#define RABRED_DECIDE_H

#include <stdint.h>

#include "rabred_table.h"

/* Built-in thresholds, in bytes per rank (n = count * type size).
 * Defaults: MPICH's long-standing short-message cut-overs
 * (MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE and MPIR_CVAR_REDUCE_SHORT_MSG_SIZE,
 * both 2048 B), which follow from the same alpha/beta/gamma comparison
 * of recursive doubling / binomial against halving and doubling (seed 000
 * sec. 3).  To be re-measured on the emulated cluster (bench/). */
#define RABRED_DEFAULT_ALLREDUCE_SHORT_BYTES 2048
#define RABRED_DEFAULT_REDUCE_SHORT_BYTES 2048

typedef struct {
    int64_t allreduce_short_bytes; /* <= this: recursive_doubling */
    int64_t reduce_short_bytes;    /* <= this: binomial */
} rabred_thresholds_t;

typedef enum {
    RABRED_WHY_FORCED,   /* the user named it */
    RABRED_WHY_DECISION, /* the built-in decision */
    RABRED_WHY_FALLBACK  /* the forced one cannot serve this call */
} rabred_why_t;

typedef struct {
    const rabred_alg_t *alg; /* NULL: hand the call to the previous component */
    rabred_why_t why;
    char reason[256];        /* one line for the verbose output */
} rabred_choice_t;

const char *rabred_why_name(rabred_why_t why);

/* Choose for `call` (bytes = count * type size) given the forced id
 * (RABRED_ALG_AUTO, RABRED_ALG_PREVIOUS or a table id). */
void rabred_decide(rabred_coll_t coll, const rabred_call_t *call, int64_t bytes, int forced,
                   const rabred_thresholds_t *th, rabred_choice_t *choice);

#endif /* RABRED_DECIDE_H */
