/*
 * The cost model behind the built-in decision (seed 000 sec. 2.1 and 3).
 *
 * A call of n bytes per rank costs, for each algorithm, what the simulator
 * says its plans cost under alpha (per message), beta (per byte sent) and
 * gamma (per byte reduced), with one-way messages charged f_alpha * alpha +
 * len * f_beta * beta (an exchange with one peer, alpha + len * beta).  The
 * simulator follows every rank's critical path, so trees, folds, cascades
 * and pipelines are priced as they run, not as a formula approximates them.
 *
 * For one communicator size the price of every algorithm is affine in n
 * (exactly so for n a multiple of 2 p p'; the segmented ring's alpha term
 * grows with its segment count, which the fit at large n includes):
 * price(n) = fixed + per_byte * n.  A price book holds these two numbers
 * per collective, commutativity and algorithm; it is filled once per
 * communicator size (a few milliseconds for O(lg p)-round algorithms) and
 * then each call's decision is a handful of multiply-adds.
 *
 * Algorithms whose simulation would cost more than about 10 ms (O(p)
 * rounds at large p: O(p^2) messages) are priced by closed forms instead:
 * ring has one; linear has none and is then not priced (never competitive
 * there).  Segmented algorithms (the table's `segmented`: segmented ring,
 * pipeline) are always priced by their closed forms, since their time
 * steps with the segment count.  test_model checks every closed form
 * against the simulator.
 *
 * Arrival-aware algorithms (rabred_alg_t.arrival_aware, seed 004) are not
 * priced: this model assumes every rank arrives at once, where they are no
 * better than the ring, and the decision must not choose them.
 */
#ifndef RABRED_MODEL_H
#define RABRED_MODEL_H

#include <stdint.h>

#include "sim/rabred_sim.h"
#include "algorithms/rabred_table.h"



typedef struct {
    int ok; /* 0: not priced (the decision skips it) */
    double fixed;    /* seconds */
    double per_byte; /* seconds per byte of n */
    const rabred_alg_t *closed; /* priced by its closed form instead */
} rabred_price_t;

typedef struct {
    int p;
    int64_t seg_bytes; /* segment size the segmented algorithms were priced with */
    rabred_model_t model;
    rabred_price_t price[RABRED_NCOLLS][2][RABRED_TABLE_MAX]; /* [coll][commutative][index] */
    int priced[RABRED_NCOLLS]; /* rabred_pricebook_ensure's bookkeeping */
} rabred_pricebook_t;

/* Price every algorithm of `coll` for p ranks (commutative and not).
 * Returns RABRED_OK, or RABRED_ERR_NOMEM. */
int rabred_pricebook_fill(rabred_pricebook_t *book, rabred_coll_t coll, int p, int64_t seg_bytes,
                          const rabred_model_t *model);

/* Keeps a communicator's book current for `coll`: prices it on first use
 * and prices again, collective by collective, once p or the segment size
 * (an MPI_T-writable parameter) changed.  Pricing one collective keeps the
 * other's prices, so a program alternating MPI_Allreduce and MPI_Reduce
 * prices each once.  *filled (may be NULL): 1 when this call priced.
 * Start from a zeroed book.  Returns RABRED_OK, or the fill's error. */
int rabred_pricebook_ensure(rabred_pricebook_t *book, rabred_coll_t coll, int p,
                            int64_t seg_bytes, const rabred_model_t *model, int *filled);

/* Predicted seconds for n bytes per rank with table entry `index`, or < 0
 * when it was not priced. */
double rabred_pricebook_time(const rabred_pricebook_t *book, rabred_coll_t coll, int commutative,
                             int index, int64_t bytes);

/* What a price measures.  MPI_Allreduce: the completion time (every rank
 * ends with the result, all at about the same moment).  MPI_Reduce: seed
 * 004's average elapsed time over ranks, since a non-root rank is free as
 * soon as its part has left, and that time goes back to the application;
 * a tree whose leaves leave after one send is then worth what it is
 * (measured: by this metric coll/tuned's trees beat a ring reduce that wins
 * on completion time).  Also the benchmark's metric. */
double rabred_model_metric(const rabred_sim_result_t *res, rabred_coll_t coll);

/* The closed forms used above RABRED_MODEL_SIM_MAX_P (exported for the
 * test that checks them against the simulator); < 0 when there is none. */
double rabred_model_closed_form(const rabred_alg_t *alg, int p, int64_t bytes, int64_t seg_bytes,
                                const rabred_model_t *model);

#endif /* RABRED_MODEL_H */
