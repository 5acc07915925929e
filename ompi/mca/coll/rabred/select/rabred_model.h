/*
 * The cost model behind the built-in decision (Rabenseifner 2004 sec. 2.1 and 3).
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
 * that would cost more than SIM_BUDGET.  MPI_Reduce where a send buffer
 * holds more than a latency's worth of bytes (a TCP network) also samples
 * the saving it brings, up to RABRED_SAVING_POINTS more pairs of
 * simulations per algorithm.  Simulated prices also keep a line per
 * count below p' where the plans change shape (rabred_price_t.shape_count),
 * one more simulation each: a two-level MPI_Reduce book over the
 * emulated cluster's TCP link (16 ranks per node) takes 0.14 s at
 * p = 128 and 1.8 s at p = 1024, 0.03 and 0.47 s without the send
 * buffer (bench/rabred_first_call, bench/results/first-call-20261128).
 *
 * A price book holds, per collective and commutativity, each algorithm's
 * price for one communicator size, segment size and model.  Books are
 * shared: the component keeps one registry (rabred_pricebooks_t), so every
 * communicator of the same size reads the same book, filled once.
 *
 * The closed forms count Hockney's turns: a rank's messages hold its link
 * one after another, latency included.  A link whose messages in flight
 * share it or pay their latency at once (rabred_link_units_t.shared_ports,
 * wire_us) has every plan within SIM_BUDGET priced by the simulator in
 * that mode instead, and the sends within the buffer sampled as MPI_Reduce's
 * saving is, for both collectives.
 *
 * Arrival-aware algorithms (rabred_alg_t.arrival_aware, Proficz 2018) are not
 * priced: this model assumes every rank arrives at once, where they are no
 * better than the ring, and the decision must not choose them.
 */
#ifndef RABRED_MODEL_H
#define RABRED_MODEL_H

#include <stdint.h>

#include "sim/rabred_sim.h"

/* A link's terms in the units its MCA parameters use (docs/decision.md, "The cost
 * model"): microseconds, MB/s (10^6 bytes per second), ratios, bytes. */
typedef struct {
    double alpha_us;     /* latency of an 8-byte exchange with one peer */
    double mbs;          /* bandwidth of an exchange, each direction */
    double oneway_alpha; /* a one-way message's latency / an exchange's (f_alpha) */
    double oneway_beta;  /* a one-way byte's time / an exchange byte's (f_beta) */
    double eager_bytes;  /* the largest message sent without a handshake (0: none) */
    double rndv_us;      /* what the handshakes of larger messages add to a round that
                          * sends and receives */
    double rndv_oneway_us; /* the same for a round that only sends or receives */
    double rndv_cross_us; /* what a round adds beyond rndv_us that sends a message above
                           * eager_bytes to one peer and receives one from another (a
                           * ring step): the receive's handshake waits behind the
                           * rank's own outgoing data */
    double eager_mbs;    /* bandwidth of an exchange of messages up to eager_bytes; 0: mbs */
    double invalidate_mbs; /* speed of reducing into memory a peer has read (0: no cost) */
    double overwrite_mbs;  /* speed of overwriting it with a receive or a copy (0: no cost) */
    double peer_us;      /* what each distinct peer a rank talks to in a call adds */
    double repeat;       /* an exchange right after another round, per byte, / a first one */
    double duplex;       /* sending while receiving from another peer, per byte, / alone */
    double aggregate_mbs; /* the most all ranks move at once together; 0: no limit */
    double rank_mbs;     /* between nodes: what one rank's message alone moves when the
                          * node's link is wider than a rank's (a leaf switch's uplinks
                          * shared by its hosts); 0: the link's mbs */
    double send_buffer_bytes; /* what a sender may leave behind: its send is done once
                               * all but this many bytes have left (a TCP socket's
                               * send buffer, an eager copy); 0: when all have */
    /* 1: the messages a rank has in flight share its link, each at 1/k of
     * its speed while k are (TCP connections, a NIC interleaving its
     * queues' packets, a flow-level network), and its sends up to
     * send_buffer_bytes leave it when posted, so the next round's join
     * them; 0: they take turns, each alone for its time (Hockney's
     * model).  rabred-calibrate sends two messages at once and times the
     * first's arrival: n beta (turns) or 2 n beta (shared) */
    double shared_ports;
    /* 1: no port at all: each message a rank has in flight on this link
     * moves at the link's full speed, as if alone (single-copy shared
     * memory where every receiver copies for itself; SMPI's loopback
     * inside a host).  A fan-out or fan-in of k messages then costs about
     * one message, not k.  rabred-calibrate sends two messages at once and
     * times the second's arrival: n beta here, 2 n beta otherwise.  Read
     * only where shared_ports is 0 */
    double parallel_ports;
    /* Of alpha_us, the wire latency, microseconds: the time of flight
     * (NICs, cables, switches) that a rank's messages in flight pay at
     * once.  The rest, LogP's overhead o, is per-message work that holds
     * the rank's link (posting, a NIC's descriptor): a rank receiving from
     * k peers at once finishes after alpha + (k-1) o + its bytes, not
     * k alpha + its bytes.  0 (the default): none, all of alpha is held
     * (Hockney's model).  rabred-calibrate measures o as what each more
     * sender adds when several send to one rank at once */
    double wire_us;
    double sends_first_bytes; /* not a price: from this message size a step posts its
                               * sends before its receives, where the transport
                               * serialises an exchange posted receive-first (0: never) */
    /* what each rank moves, MB/s each way, when every rank exchanges at
     * once with the rank 2^k places away (rank XOR 2^k), k = 0, 1, ...; a
     * torus or a tapered fat tree routes long distances over shared links.
     * 0 (or beyond the list's end): mbs.  One rank per node only: with a
     * node map a rank's distance is not its node's (rabred_model_extras) */
    double distance_mbs[RABRED_DISTANCE_CLASSES];
    /* the same when every rank sends to rank + 2^k and receives from
     * rank - 2^k (cyclically) at once, scaled so that 1 apart reads mbs:
     * shifts cross the aligned blocks XOR partners stay in and wrap around
     * the rank order, which on a torus block can be routes several times
     * longer (Bruck's, a ring's steps).  0 (or beyond the list): as
     * distance_mbs */
    double shift_mbs[RABRED_DISTANCE_CLASSES];
    /* the latency of an 8-byte message in each pattern, microseconds:
     * when every rank talks 2^k places away at once, in XOR pairs and in
     * shifts.  Routes of more hops take longer (a torus: about 0.12 us a
     * hop on bench/scale's); a round pays its slowest message's latency
     * beyond alpha_us.  0 (or beyond the list): alpha_us */
    double distance_alpha_us[RABRED_DISTANCE_CLASSES];
    double shift_alpha_us[RABRED_DISTANCE_CLASSES];
} rabred_link_units_t;

/* Parses a distance list, "MBS[,MBS...]" (entry k: distance 2^k; at most
 * RABRED_DISTANCE_CLASSES, each a finite number >= 0; empty: none) into
 * mbs[] (the rest 0).  The number of entries, or -1 for a bad list (mbs[]
 * then all 0). */
int rabred_distance_parse(const char *text, double mbs[RABRED_DISTANCE_CLASSES]);

/* Built-in defaults.  Within a node (shared memory): measured on this
 * project's machine (Debian 12 VM, 2 cores, Open MPI 4.1.4's vader BTL,
 * two ranks bound to cores) by rabred-calibrate, three runs in
 * bench/results/calibrate-20261126/shm-p2-*, the median of each term.
 * Between nodes: no network but the emulated one is available here, so
 * these are the order of magnitude of a 100 Gb/s RDMA fabric (one-way
 * latency near 1-2 us, about 10 GB/s each way, full duplex, an eager limit
 * of a few KiB and a rendezvous round trip above it); the emulated
 * 100 Mbit/s TCP cluster's own values are bench/profiles/emulated-100mbit.conf.
 * Between nodes, the terms a well-provisioned RDMA fabric does not show
 * (sync, peer, repeat, duplex, invalidate, aggregate, a slower eager
 * path) are off.  On both links a send is free once copied when it is
 * eager and once its data is read otherwise, so the send buffer is the
 * eager limit (calibrate-20261127b: over vader's single copy a 4 MiB
 * send returns when the receiver has it, within 1-2 us of noise).  Every
 * machine is different: rabred-calibrate measures yours. */
extern const rabred_link_units_t rabred_default_intra, rabred_default_inter;
#define RABRED_DEFAULT_REDUCE_MBS 24400.0 /* MPI_Reduce_local, doubles, SUM, 1 MiB */
#define RABRED_DEFAULT_ROUND_SYNC_US 0.0  /* ranks in step: a core each */
#define RABRED_DEFAULT_COPY_MBS 25600.0   /* memcpy of 1 MiB, every rank at once */

/* Speeds beyond the cache (rabred_model_t.gamma_far): MB/s of a local
 * reduction and copy whose vectors do not fit in cache_bytes; 0 leaves
 * the in-cache speeds for every size. */
typedef struct {
    double reduce_mbs;
    double copy_mbs;
    double cache_bytes;
} rabred_far_units_t;

/* m with its speeds beyond the cache set (far: NULL, none). */
void rabred_model_set_far(rabred_model_t *m, const rabred_far_units_t *far);

/* The model a call of `bytes` per rank is priced with: m, with gamma and
 * copy at their speeds beyond the cache when the call's vectors do not fit
 * in it (rabred_model_t.gamma_far). */
rabred_model_t rabred_model_for_bytes(const rabred_model_t *m, int64_t bytes);

/* The model of one link, in the model's units (seconds, s/B). */
rabred_model_t rabred_model_make(const rabred_link_units_t *link, double reduce_mbs,
                                 double round_sync_us);
/* The same with a local copy's speed (MB/s; 0: copies are free). */
rabred_model_t rabred_model_make_copy(const rabred_link_units_t *link, double reduce_mbs,
                                      double round_sync_us, double copy_mbs);

#include "algorithms/rabred_table.h"



#define RABRED_SAVING_POINTS 40
/* Counts below p' (the largest power of two <= p) where a simulated price
 * keeps its own line: p', p'/2, ..., 1 (13 at p = 4096). */
#define RABRED_SHAPE_POINTS 13

typedef struct {
    int ok; /* 0: not priced (the decision skips it) */
    double fixed;    /* seconds */
    double per_byte; /* seconds per byte of n */
    /* MPI_Reduce with send buffers (rabred_model_t.send_buffer): a rank
     * that leaves after a send is free before its message is in, by what
     * its buffer held of it; the price is the line above less that saving
     * (seconds, over the ranks' average), sampled at nsaving sizes,
     * increasing, linear between them (no samples: no saving). */
    int nsaving;
    double saving_bytes[RABRED_SAVING_POINTS];
    double saving[RABRED_SAVING_POINTS];
    /* A plan's shape can change with the count: below p' elements some
     * algorithms give up blocks for whole vectors (binary blocks at
     * p = 1024 moves 2 n beta at 1024 elements, 10 n at 64), and a line
     * fitted at the reference sizes prices them at the large shape.  So
     * a simulated price also keeps, for counts shape_count[k] = p' / 2^k,
     * the line of that shape (alpha part, seconds per byte); a call of
     * count elements takes the line of the largest shape_count <= count
     * (rabred_pricebook_price_count), the reference line from p' up. */
    int nshape;
    int64_t shape_count[RABRED_SHAPE_POINTS];
    double shape_fixed[RABRED_SHAPE_POINTS];
    double shape_per_byte[RABRED_SHAPE_POINTS];
    double shape_saving[RABRED_SHAPE_POINTS]; /* the send buffers' saving at
                                               * shape_count bytes (below) */
    const rabred_alg_t *closed; /* priced by its closed form instead */
} rabred_price_t;

typedef struct {
    int p;
    int64_t seg_bytes; /* segment size the segmented algorithms were priced with */
    rabred_model_t model;
    rabred_price_t price[RABRED_NCOLLS][2][RABRED_TABLE_MAX]; /* [coll][commutative][index] */
    int priced[RABRED_NCOLLS]; /* rabred_pricebook_ensure's bookkeeping */
    /* Two levels (rabred_pricebooks_get_nodes): node_of (owned, p entries)
     * non-NULL; `model` then prices messages between nodes, `intra` those
     * inside one, and every algorithm, node-aware ones included, is priced
     * by the simulator with the nodes' shared links. */
    int32_t *node_of;
    rabred_nodes_t nodes;
    rabred_model_t intra;
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

/* The same for a call of `count` elements (the plan's shape) of
 * `bytes` in all: a simulated price below p' elements takes that
 * shape's line (rabred_price_t.shape_count); closed forms take the
 * shape of one-byte elements, as rabred_pricebook_price. */
double rabred_pricebook_price_count(const rabred_pricebook_t *book, const rabred_alg_t *alg,
                                    int root, int commutative, int64_t count, int64_t bytes);

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

/* The same for a communicator whose ranks share nodes (a map where
 * rabred_nodes_matter): its own book per (p, map, both links), priced by
 * the two-level simulator, once per map, at the first call: measured on
 * this project's machine (MPI_Allreduce, 16 ranks per node) 0.09-0.13 s
 * at p = 128, 0.17 s at p = 1024 (bench/results/first-call-20261128),
 * and seconds at p = 4096.  Up to RABRED_TWO_LEVEL_MAX_P
 * ranks; above, the caller uses the one-link book (rabred_pricebooks_get)
 * rather than spend seconds in a first call. */
#define RABRED_TWO_LEVEL_MAX_P 1024
int rabred_pricebooks_get_nodes(rabred_pricebooks_t *books, rabred_coll_t coll, int p,
                                int64_t seg_bytes, const rabred_model_t *inter,
                                const rabred_model_t *intra, const rabred_nodes_t *nodes,
                                const rabred_pricebook_t **book);

/* What a price measures.  MPI_Allreduce: the completion time (every rank
 * ends with the result, all at about the same moment).  MPI_Reduce: seed
 * 004's average elapsed time over ranks, since a non-root rank is free as
 * soon as its part has left, and that time goes back to the application;
 * a tree whose leaves leave after one send is then worth what it is
 * (measured: by this metric coll/tuned's trees beat a ring reduce that wins
 * on completion time).  Also the benchmark's metric. */
double rabred_model_metric(const rabred_sim_result_t *res, rabred_coll_t coll);
/* The same, MPI_Reduce by the root's completion when `completion`
 * (rabred_model_t.reduce_completion): the closed forms then do not apply
 * and every MPI_Reduce algorithm is simulated, as in a two-level book. */
double rabred_model_metric_of(const rabred_sim_result_t *res, rabred_coll_t coll, int completion);

/* The terms beyond alpha, beta and gamma for alg on this call, read off
 * the plans of the ranks on the longest paths (rank 0, rank 1, the last
 * rank and a reduce's root): every round that moves data costs `sync`,
 * every distinct peer `peer`, every round with a message above
 * `eager_bytes` one `rndv`, every round where the rank sends to one peer
 * and receives from another (duplex - 1) times its largest message's
 * one-way transfer time, every exchange with one peer after the first
 * round (repeat - 1) times its transfer time, every round's largest
 * message up to eager_bytes what moving it at beta_eager adds; the
 * largest sum over those ranks.  With an
 * `aggregate` limit, each round also costs what moving the bytes all
 * ranks send in it takes at the aggregate bandwidth beyond what the
 * slowest rank's own transfers take on its ports, duplex and repeat included:
 * the longer of the two, never their sum (all ranks' plans up to
 * RABRED_AGGREGATE_RANKS ranks, an even sample of that many above).
 * The sum in *extra.  Messages are sized in bytes (plans built with
 * one-byte elements).  RABRED_OK, or RABRED_ERR_NOMEM (building a plan). */
#define RABRED_AGGREGATE_RANKS 64

/* The same terms (all but the aggregate) for one rank's plan, built with
 * `arrival` (NULL: none), in *extra.  The arrival estimate prices with it
 * the rank that arrives last: its rounds after it arrived are what no
 * early work hides. */
int rabred_model_extras_of_rank(const rabred_alg_t *alg, const rabred_price_call_t *call,
                                const rabred_arrival_t *arrival, int rank,
                                const rabred_model_t *model, double *extra);

/* alg's full balanced price for `call` (the book's closed form or
 * simulation plus rabred_model_extras) in *t, < 0 when the book does not
 * price it.  RABRED_OK, or RABRED_ERR_NOMEM. */
int rabred_model_price(const rabred_pricebook_t *book, const rabred_alg_t *alg,
                       const rabred_price_call_t *call, double *t);
int rabred_model_extras(const rabred_alg_t *alg, const rabred_price_call_t *call,
                        const rabred_model_t *model, double *extra);

/* The same for a two-level book (book->node_of set): plans built with
 * the node map, each round paying the terms of the link it crosses (the
 * network's when any of its messages leaves the node), each peer its
 * link's peer term, invalidation the intra-node link's (only there does a
 * peer read the rank's memory); no aggregate term. */
int rabred_model_extras_nodes(const rabred_alg_t *alg, const rabred_price_call_t *call,
                              const rabred_pricebook_t *book, double *extra);

/* alg's structural terms for `call` as a book prices them: with its node
 * map (rabred_model_extras_nodes) or, on one link, with the book's model
 * at the call's size (rabred_model_for_bytes).  RABRED_OK, or
 * RABRED_ERR_NOMEM. */
int rabred_model_book_extras(const rabred_pricebook_t *book, const rabred_alg_t *alg,
                             const rabred_price_call_t *call, double *extra);

/* Does the model charge some distance more than a neighbour's (its
 * distance term, rabred_model_t.distance_beta)? */
int rabred_model_has_distance(const rabred_model_t *model);

/* Leave every distance term out (bandwidths and latencies, XOR pairs and
 * shifts): for a communicator whose rank distances are not the ones
 * measured (not a run of MPI_COMM_WORLD, or ranks grouped by node). */
void rabred_model_clear_distance(rabred_model_t *model);

/* alg's closed-form price (reduce: root 0, a commutative op), or < 0 when
 * it has none. */
double rabred_model_closed_form(const rabred_alg_t *alg, int p, int64_t bytes, int64_t seg_bytes,
                                const rabred_model_t *model);

#endif /* RABRED_MODEL_H */
