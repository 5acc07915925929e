/*
 * The cost model behind the built-in decision (seed 000 sec. 2.1 and 3).
 *
 * A call of n bytes per rank costs, for each algorithm, what its plans cost
 * under alpha (per message), beta (per byte sent) and gamma (per byte
 * reduced), with one-way messages charged f_alpha * alpha + len * f_beta *
 * beta (an exchange with one peer, alpha + len * beta), measured along the
 * critical path of all p ranks' plans as the simulator runs them.
 *
 * Every balanced algorithm states that price in closed form in its
 * descriptor (rabred_alg_t.price; test_prices_* check each one against the
 * simulator for every p up to 300 and samples to 1024, under several
 * models): a price is then a few dozen arithmetic operations at any p, and
 * the first call on a communicator of 4096 ranks is priced in microseconds
 * (bench/rabred_bench --first-call).  An algorithm without a closed form
 * is priced by the simulator instead: its time at three sizes, fitted as
 * fixed + per_byte * n (exact for n a multiple of 2 p p'), about 10 ms per
 * algorithm at p = 64, O(p^2) for O(p)-round plans, and skipped where
 * that would cost more than SIM_BUDGET.
 *
 * A price book holds, per collective and commutativity, each algorithm's
 * price for one communicator size, segment size and model.  Books are
 * shared: the component keeps one registry (rabred_pricebooks_t), so every
 * communicator of the same size reads the same book, filled once.
 *
 * Arrival-aware algorithms (rabred_alg_t.arrival_aware, seed 004) are not
 * priced: this model assumes every rank arrives at once, where they are no
 * better than the ring, and the decision must not choose them.
 */
#ifndef RABRED_MODEL_H
#define RABRED_MODEL_H

#include <stdint.h>

#include "sim/rabred_sim.h"

/* Cost-model defaults, measured with bench/rabred_netmodel on rabred's
 * emulated cluster (2 hosts, 100 Mbit/s tbf links, TCP BTL; numbers and
 * commands in bench/cluster/README.md):
 *  - alpha: an 8 B exchange with one peer, 10.7 us; f_alpha = one-way
 *    latency / exchange latency = 7.35 / 10.7 = 0.69;
 *  - beta: a same-peer exchange above the TCP BTL's 64 KiB eager limit is
 *    bimodal, either as fast as one way or exactly twice as slow (the
 *    rendezvous handshake waits behind the other direction's data on the
 *    one connection per peer).  We take the slow mode, 2 x the one-way
 *    8.36e-8 s/B: a decision that relies on the lucky mode loses 2x when it
 *    does not come; f_beta = 0.5 is then the one-way cost exactly;
 *  - gamma: MPI_Reduce_local of doubles, 2.1e-11 s/B at 1 MiB up to
 *    5.7e-11 at 64 MiB; 3.5e-11 (16 MiB) in between. */
#define RABRED_DEFAULT_ALPHA 1.07e-5
#define RABRED_DEFAULT_BETA 1.67e-7
#define RABRED_DEFAULT_GAMMA 3.5e-11
#define RABRED_DEFAULT_F_ALPHA 0.69
#define RABRED_DEFAULT_F_BETA 0.5

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

/* Predicted seconds of `alg` for n bytes per rank (reduce: to `root`), or
 * < 0 when it is not priced. */
double rabred_pricebook_price(const rabred_pricebook_t *book, const rabred_alg_t *alg, int root,
                              int commutative, int64_t bytes);

/* The same for table entry `index`, reduce to root 0. */
double rabred_pricebook_time(const rabred_pricebook_t *book, rabred_coll_t coll, int commutative,
                             int index, int64_t bytes);

/* The books of every communicator size in use, shared by all
 * communicators (the component holds one, and serialises calls to it). */
typedef struct {
    rabred_pricebook_t **books;
    int n, cap;
} rabred_pricebooks_t;

/* The book for (p, seg_bytes, model) with `coll` priced, filling it on
 * first use.  RABRED_OK (*book set) or RABRED_ERR_NOMEM (*book NULL). */
int rabred_pricebooks_get(rabred_pricebooks_t *books, rabred_coll_t coll, int p,
                          int64_t seg_bytes, const rabred_model_t *model,
                          const rabred_pricebook_t **book);
void rabred_pricebooks_free(rabred_pricebooks_t *books);

/* What a price measures.  MPI_Allreduce: the completion time (every rank
 * ends with the result, all at about the same moment).  MPI_Reduce: seed
 * 004's average elapsed time over ranks, since a non-root rank is free as
 * soon as its part has left, and that time goes back to the application;
 * a tree whose leaves leave after one send is then worth what it is
 * (measured: by this metric coll/tuned's trees beat a ring reduce that wins
 * on completion time).  Also the benchmark's metric. */
double rabred_model_metric(const rabred_sim_result_t *res, rabred_coll_t coll);

/* alg's closed-form price (reduce: root 0, a commutative op), or < 0 when
 * it has none. */
double rabred_model_closed_form(const rabred_alg_t *alg, int p, int64_t bytes, int64_t seg_bytes,
                                const rabred_model_t *model);

#endif /* RABRED_MODEL_H */
