/*
 * Rules files, writing: rabred's named format and coll/tuned's classic
 * format (both described in rabred_rules.h).  Used by rabred-tune, never
 * by the component, which only reads rules files.  Pure C, no MPI.
 */
#ifndef RABRED_RULES_WRITE_H
#define RABRED_RULES_WRITE_H

#include <stdio.h>

#include "select/rabred_rules.h"

/* Named: every rule as one line.  Classic: the rules must form tuned's
 * grid (grouped by collective, comm_min then msg_min ascending,
 * commutative -1); algorithms without a tuned id are written as 0 (tuned's
 * own decision); gaps in the grid are written as 0 cells too.  Return
 * RABRED_OK, or RABRED_ERR_ARG for rules the format cannot hold (nothing is
 * written then) or a write error.  What they write always parses. */
int rabred_rules_write_named(FILE *f, const rabred_rules_t *rules);
int rabred_rules_write_classic(FILE *f, const rabred_rules_t *rules);

#endif /* RABRED_RULES_WRITE_H */
