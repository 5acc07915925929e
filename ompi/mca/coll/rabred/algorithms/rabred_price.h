/*
 * What an algorithm's closed-form price reads: the cost model's parameters
 * (Rabenseifner 2004 sec. 2.1, with one-way factors) and the call.  A price is the
 * balanced time of one call in seconds by the metric of its collective:
 * MPI_Allreduce its completion time, MPI_Reduce Proficz's (2018) average elapsed
 * time over ranks (select/rabred_model.h says why).  The simulator runs
 * the same model on the plans themselves; test_model checks every closed
 * form against it.  Pure C, no MPI.
 */
#ifndef RABRED_PRICE_H
#define RABRED_PRICE_H

#include <stdint.h>

/* Classes of the distance term (rabred_model_t.distance_beta): partners
 * 1, 2-3, 4-7, ... ranks apart, up to 2^16 ranks. */
#define RABRED_DISTANCE_CLASSES 16

/* The cost model's terms, each a physical quantity (docs/decision.md, "The cost
 * model"; rabred-calibrate measures them).  The closed forms price the
 * first five; the others are priced from the plans' structure
 * (rabred_model_extras in select/rabred_model.h), since they count rounds,
 * peers and protocol switches rather than bytes. */
typedef struct {
    double alpha;   /* seconds per message of an exchange with one peer */
    double beta;    /* seconds per byte of an exchange (each direction) */
    double gamma;   /* seconds per byte reduced */
    double f_alpha; /* a one-way message's latency relative to an exchange's */
    double f_beta;  /* a one-way message's time per byte relative to an exchange's */
    double sync;    /* seconds a lock-step round costs beyond its messages when the
                     * ranks are not in step (descheduled, or sharing cores) */
    double peer;    /* seconds per distinct peer a rank talks to in one call */
    double rndv;    /* seconds a round that sends and receives a message above
                     * eager_bytes adds (the rendezvous handshakes, crossing) */
    double rndv_oneway; /* the same for a round that only sends or only receives */
    double rndv_cross;  /* seconds beyond rndv of a round that sends a message above
                         * eager_bytes to one peer and receives one from another: the
                         * receive's handshake queues behind the rank's own outgoing
                         * data (a ring step over TCP), where in an exchange both
                         * handshakes cross before either side's data */
    double eager_bytes; /* the largest message sent eagerly, bytes; <= 0: no switch */
    double beta_eager;  /* seconds per byte of an exchange of messages up to eager_bytes
                         * (copied through the transport's buffers); 0: as beta */
    double copy;        /* seconds per byte of a local copy (memcpy); 0: free */
    /* Reductions and copies of a call whose vectors outgrow the core's
     * cache run at the memory's speed, not the cache's: with cache_bytes
     * > 0, a call of n bytes per rank with 3 n > cache_bytes (its input,
     * its result and a temporary stay in use) is priced with gamma_far and
     * copy_far where they are > 0 (rabred_model_for_bytes).  0: one speed. */
    double gamma_far;
    double copy_far;
    double cache_bytes;
    double beta_inv;    /* seconds per byte of reducing into memory a peer read in this
                         * call (single-copy transports, above eager_bytes); 0: none */
    double beta_overwrite; /* the same for overwriting it whole (a receive or a copy) */
    double repeat;    /* an exchange with one peer that follows another round of the
                       * call, per byte, relative to one that starts the call (>= 1;
                       * 1: the same) */
    double duplex;    /* a message's time per byte when its sender also receives from
                       * another peer in that round, relative to sending alone (>= 1;
                       * 1: sending and receiving do not slow each other) */
    double beta_rank; /* two levels: seconds per byte of one rank's message between
                       * nodes alone, when the node's link is wider than a rank's
                       * (rabred_link_units_t.rank_mbs); 0: the link's beta */
    double send_buffer; /* bytes a sender may leave behind: its send is done once all
                         * but this many of what its port still has to move have left
                         * (a TCP socket's buffer; an eager copy); 0: at the end */
    double aggregate; /* seconds per byte that all ranks together move in one round
                       * (1 / the aggregate bandwidth of the nodes or fabric, below the
                       * sum of the links': shared CPUs doing the transport's work, a
                       * bisection, a node's memory bus); 0: no limit */
    /* seconds per byte of an exchange when every rank exchanges at once
     * with the rank 2^k places away, for partners between 2^k and 2^(k+1)
     * - 1 ranks apart (cyclically: min(d, p - d)); 0: beta.  Where routes
     * at long distances share links (a torus, a tapered tree), a message
     * there moves slower than one alone (rabred_link_units_t.distance_mbs) */
    double distance_beta[RABRED_DISTANCE_CLASSES];
    /* the same for a message to a partner that is not rank XOR 2^k, when
     * every rank sends 2^k to 2^(k+1) - 1 places on at once (a shift);
     * 0: distance_beta (rabred_link_units_t.shift_mbs) */
    double shift_beta[RABRED_DISTANCE_CLASSES];
    /* seconds of latency of a message in those patterns (XOR pairs,
     * shifts); 0: alpha (rabred_link_units_t.distance_alpha_us) */
    double distance_alpha[RABRED_DISTANCE_CLASSES];
    double shift_alpha[RABRED_DISTANCE_CLASSES];
    /* 1: a rank's messages in flight share its link (rabred_link_units_t.
     * shared_ports); closed forms assume 0, turns */
    int shared_ports;
    /* 1: a rank's messages in flight do not wait for each other at all
     * (rabred_link_units_t.parallel_ports); closed forms assume 0 */
    int parallel_ports;
    /* seconds of alpha that are wire latency, paid at once by messages in
     * flight (rabred_link_units_t.wire_us); 0: none.  Closed forms assume 0 */
    double wire;
    /* What an MPI_Reduce price measures (coll_rabred_reduce_metric): 0, the
     * average of the ranks' own times (OSU's figure: a rank whose part has
     * left is free); 1, the completion, when the last rank is done (the
     * root, in every reduce plan: it holds the result last), for when the
     * application waits for the result.  MPI_Allreduce: completion. */
    int reduce_completion;
} rabred_model_t;

typedef struct {
    int p;
    int root;          /* reduce: the root; allreduce: -1 */
    int commutative;
    int64_t bytes;     /* per rank */
    int64_t seg_bytes; /* segment size of the segmented algorithms; 0: none */
    int64_t count;     /* elements (what a plan's shape follows); 0: `bytes`
                        * one-byte elements.  Only a simulated book's price
                        * reads it (rabred_pricebook_price_count) */
} rabred_price_call_t;

/* Seconds, or < 0 when the closed form does not cover this call. */
typedef double (*rabred_price_fn)(const rabred_price_call_t *call, const rabred_model_t *model);

/* A message of `bytes` sent while nothing comes back from that peer. */
static inline double rabred_price_one_way(const rabred_model_t *m, double bytes)
{
    return m->f_alpha * m->alpha + bytes * m->f_beta * m->beta;
}

/* When the sender of a one-way message is free of it (the simulator's
 * sender_released): the message matched at `matched` (both ends posted)
 * and ends at `end`; its sender leaves once all but send_buffer bytes
 * have left, but not before the match and the latency. */
static inline double rabred_price_released(const rabred_model_t *m, double matched, double end)
{
    double buffered = m->send_buffer * m->f_beta * m->beta;
    double floor = matched + m->f_alpha * m->alpha;
    return buffered <= 0 ? end : end - buffered > floor ? end - buffered : floor;
}

/* The same for a one-way message that starts when it matches (no port is busy):
 * what the sender saves against the message's end. */
static inline double rabred_price_buffered(const rabred_model_t *m, double bytes)
{
    double held = bytes < m->send_buffer ? bytes : m->send_buffer;
    return held > 0 ? held * m->f_beta * m->beta : 0.0;
}

/* A message of `bytes` each way between two peers. */
static inline double rabred_price_exchange(const rabred_model_t *m, double bytes)
{
    return m->alpha + bytes * m->beta;
}

/* The largest of p blocks of the call's bytes (rabred_block_length): a
 * ring's every step carries one, so uneven blocks cost as the largest. */
static inline double rabred_price_block_bytes(const rabred_price_call_t *call)
{
    return (double)((call->bytes + call->p - 1) / call->p);
}

/* A message of `bytes` to a ring neighbour: one-way, except at p = 2,
 * where the neighbours on both sides are the same peer (an exchange). */
static inline double rabred_price_neighbour(const rabred_model_t *m, int p, double bytes)
{
    return 2 == p ? rabred_price_exchange(m, bytes) : rabred_price_one_way(m, bytes);
}

/* The pairwise-exchange reduce-scatter of n bytes over p blocks
 * (rabred_phase_pairwise_reduce_scatter): p-1 steps, step k sends to
 * r + k and receives from r - k, one-way except the step k = p/2 of an even
 * p, which exchanges with one peer; each step reduces one block. */
static inline double rabred_price_pairwise_reduce_scatter(const rabred_model_t *m, int p, double n)
{
    double block = n / p;
    double t = (p - 1) * (rabred_price_neighbour(m, p, block) + block * m->gamma);
    if (0 == p % 2) {
        t += rabred_price_exchange(m, block) - rabred_price_neighbour(m, p, block);
    }
    return t;
}

#endif /* RABRED_PRICE_H */
