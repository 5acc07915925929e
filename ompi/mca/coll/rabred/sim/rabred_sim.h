/*
 * The rabred simulator (DESIGN.md, "plan, then run", runner 2).
 *
 * Runs the plans of all p ranks of one call against each other in one
 * process, without MPI, and
 *  - proves correctness: every element of every result holds exactly the
 *    contributions of ranks 0..p-1, once each, and for non-commutative
 *    operations combined in rank order; every send meets a receive of the
 *    same length from the same peer in the same order (MPI's non-overtaking
 *    rule), nothing deadlocks, no round receives into a range it also sends
 *    or receives twice, and the input buffer is never written;
 *  - prices the run with the alpha/beta/gamma model of Rabenseifner 2004 sec. 2.1.
 *
 * Buffers are stored as runs of elements with the same contributions, so the
 * cost of a simulation depends on p and the plan, not on count: count can
 * be 0, 1 or 2^40.  Pricing (cost_only) takes O(1) per message and round
 * once the plans are built: ring allreduce at p = 1024, 2 million messages,
 * in about 0.15 s.
 *
 * Timing model: each rank has one incoming and one outgoing port (full
 * duplex).  A message can start once the sender has posted it and the
 * receiver has posted the matching receive; it then holds both ports for
 * alpha + len * beta, or f_alpha * alpha + len * f_beta * beta when it is
 * one-way (the sender receives nothing from that peer in the same round);
 * or, with fair_share, shares them with the other messages in flight.
 * A round ends when all its messages have; its reductions then cost
 * gamma per element.  Ranks start at their arrival offsets.
 */
#ifndef RABRED_SIM_H
#define RABRED_SIM_H

#include <stdint.h>

#include "plan/rabred_plan.h"
#include "algorithms/rabred_table.h"

typedef struct {
    double alpha;   /* per message */
    double beta;    /* per element sent */
    double gamma;   /* per element reduced */
    double f_alpha; /* one-way message factors (1 = full duplex) */
    double f_beta;
    const double *arrival; /* per-rank start time, or NULL for all 0 */
    /* Two levels (NULL: one link, the terms above, for every message).
     * With a node map, the terms above price messages inside a node and
     * these the ones between nodes; each node also has one network port
     * each way, which every message leaving (entering) it holds for its
     * bytes' time (len * inter_beta): the ranks of a node share its link.
     * Where that link is wider than one rank's (a leaf switch's uplinks
     * shared by its hosts), a message alone still takes len *
     * inter_rank_beta (0: no such bound).  Latency is not held: messages
     * of several ranks are in flight at once, as on a NIC. */
    const rabred_nodes_t *nodes;
    double inter_alpha, inter_beta; /* per message, per element */
    double inter_rank_beta;         /* per element of one message alone; 0: none */
    /* 0: a message holds its ports for alpha too (alpha is per-message
     * work at both ends, LogP's overheads: a rank's messages take their
     * turn).  1: only for its bytes' time; alpha is wire latency that
     * messages in flight share, as in a flow-level network (SimGrid's
     * SMPI, bench/scale/) or a NIC that pipelines many messages. */
    int latency_overlaps;
    /* With latency_overlaps: the part of alpha (inter_alpha) that a
     * message does hold its ports for, before its elements (LogP's
     * overhead: per-message work of a port, which the messages of one port
     * do one after the other; SMPI's is about 0.013 us); the rest is wire
     * latency.  0: none. */
    double overhead, inter_overhead;
    /* A rank leaves its last round with messages once each of its
     * messages there is within this many elements' time of its end (the
     * time it waited for a port, its own or its receiver's, counts: the
     * model queues messages where TCP would share the link): the
     * transport's send buffer (a TCP socket's, an eager copy) holds the
     * rest.  Never before the message matched and its latency passed;
     * the receiver still waits for the last element.  Only that round,
     * by the model's choice: mid-call a rank's next round mostly waits
     * for a port or a peer anyway, and so the plans' timing and
     * MPI_Allreduce's completion time do not change; what changes is
     * when each rank is free again, which MPI_Reduce's average elapsed
     * time counts (and the arrival estimate's average, for either
     * collective).  0: a send is done when its message is (send_buffer
     * for messages inside a node, inter_send_buffer between nodes). */
    double send_buffer, inter_send_buffer;
    /* 0: the messages of a port take turns, first come first served (each
     * holds the port alone for its time).  1: the messages in flight on a
     * port share it equally, each at 1/k of its speed alone while k are
     * in flight (a message between nodes also shares its nodes' links),
     * as TCP connections and a flow-level network (SimGrid's SMPI) do;
     * and a send of at most the send buffer's elements leaves its sender
     * when posted, in every round (an eager copy; SMPI's detached sends),
     * so a rank's next sends join it on the port; a larger one, in the
     * rank's last round with messages, once the rest fits the buffer
     * (TCP's socket buffer, as without fair_share).  A parent sending to
     * two children at once then gets neither's message out before 2 n
     * beta, where in turn the first is out at n beta. */
    int fair_share;
    /* 1: messages inside a node (every message without a node map) hold
     * no port: each starts once matched and takes its time as if alone,
     * however many its ranks have in flight (a receiver copying for
     * itself from shared memory; SMPI's loopback).  Taking turns, a
     * joined round's next one starts at once; with fair_share, such a
     * flow shares no rank port (its nodes' links still, between nodes). */
    int parallel_ports;
} rabred_sim_model_t;

typedef struct {
    int ok;           /* 1 when every check passed */
    char error[256];  /* the first problem found */
    double time;      /* completion time: the latest rank's finish */
    double avg_elapsed; /* mean over ranks of finish - arrival */
    int64_t messages; /* over all ranks */
    int64_t elements_sent;
    int max_rounds;   /* longest plan */
} rabred_sim_result_t;

typedef struct {
    rabred_plan_builder_fn build;
    int p, root;  /* root -1 for allreduce */
    int64_t count;
    int commutative;
    int in_place; /* alias INPUT and ACC where MPI_IN_PLACE is allowed */
    int64_t seg_count; /* passed to the builder (0: unsegmented) */
    int cost_only;     /* skip the data checks (contributions, writes to
                        * the input, receives overlapping a transfer;
                        * peers, ranges, matching, lengths and timing
                        * stay): for pricing plans already proven correct */
    const rabred_arrival_t *arrival; /* passed to the builder (arrival-aware
                        * algorithms plan with it); NULL: none.  The model's
                        * own `arrival` is what the run is timed with: give
                        * both the same offsets to see a plan made for the
                        * arrivals that really happen */
    const rabred_nodes_t *nodes; /* passed to the builder (node-aware
                        * algorithms); NULL: one node */
} rabred_sim_call_t;

void rabred_sim_model_default(rabred_sim_model_t *model); /* alpha = beta = gamma = 1 */

/* Returns RABRED_OK when the simulation ran (res->ok says whether the plans
 * are right), RABRED_ERR_NOMEM/ARG otherwise. */
int rabred_simulate(const rabred_sim_call_t *call, const rabred_sim_model_t *model,
                    rabred_sim_result_t *res);

/* The same call priced under nmodels models (res[k] for models[k]): the
 * plans are built and checked once, and the data checks of full mode run
 * once (they do not depend on the timing); every res[k].ok is the same.
 * The cost tests price each alpha, beta and gamma term this way. */
int rabred_simulate_models(const rabred_sim_call_t *call, const rabred_sim_model_t *models,
                           int nmodels, rabred_sim_result_t *res);

#endif /* RABRED_SIM_H */
