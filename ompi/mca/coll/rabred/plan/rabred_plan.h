/*
 * rabred plans (DESIGN.md, "plan, then run").
 *
 * A plan is one rank's part of one collective call: an ordered list of
 * rounds.  In a round the rank posts all its receives, then all its sends,
 * waits for all of them, and then runs the round's local steps (reduce a
 * range of one buffer into another with a stated operand order, or copy a
 * range).  Rounds may be joined into a group that the executor runs as one
 * round (rabred_plan_round_joined).  Plans name four buffers:
 *
 *   INPUT  the caller's send buffer (the receive buffer under MPI_IN_PLACE;
 *          then INPUT and ACC are the same memory: the executor skips a copy
 *          INPUT->ACC of the same range, and a plan must not read INPUT after
 *          it has written ACC);
 *   ACC    the accumulator: the receive buffer where the result is wanted,
 *          otherwise a temporary of count elements;
 *   TMP    a temporary of count elements that receives peers' data;
 *   TMP2   a second such temporary, for plans that keep more receives
 *          posted than ACC and TMP can hold (the binomial tree's root
 *          receives three children at once).  Allocated only when a plan
 *          names it.
 *
 * A range is the same element range in every buffer: element i of a vector
 * lives at element i of whichever buffer holds it.  That keeps plans short
 * and lets the executor compute addresses as base + off * extent.  One
 * exception: a plan may receive a peer's copy of a range into a slot of
 * TMP or TMP2 elsewhere (many receives of one range in flight at once,
 * rabred_plan_reduce_from), and reduce it from there: a transfer names
 * where its elements lie in its buffer, whichever they are.
 *
 * Plans know nothing of MPI.  Builders are pure functions of
 * rabred_plan_args_t; the executor, the simulator and rabred-plan run them.
 * Messages of zero elements and local steps on empty ranges are dropped at
 * build time; builders compute the same range on both sides of a message, so
 * both sides drop it together (the simulator checks every pairing).
 */
#ifndef RABRED_PLAN_H
#define RABRED_PLAN_H

#include <stdint.h>

enum {
    RABRED_OK = 0,
    RABRED_ERR_NOMEM = 1, /* an allocation failed */
    RABRED_ERR_ARG = 2    /* arguments outside what the builder accepts */
};

typedef enum {
    RABRED_BUF_INPUT = 0,
    RABRED_BUF_ACC = 1,
    RABRED_BUF_TMP = 2,
    RABRED_BUF_TMP2 = 3,
    RABRED_NBUFS = 4
} rabred_buf_t;

typedef enum { RABRED_XFER_RECV = 0, RABRED_XFER_SEND = 1 } rabred_xfer_dir_t;

typedef struct {
    int32_t peer;
    uint8_t dir; /* rabred_xfer_dir_t */
    uint8_t buf; /* rabred_buf_t */
    int64_t off, len;
} rabred_xfer_t;

typedef enum { RABRED_LOCAL_REDUCE = 0, RABRED_LOCAL_COPY = 1 } rabred_local_kind_t;

/* REDUCE: dst = src (op) dst when src_first, else dst = dst (op) src.
 * src_first says which operand holds the lower ranks' contributions, so
 * non-commutative operations see rank order.  COPY: dst = src. */
typedef struct {
    uint8_t kind; /* rabred_local_kind_t */
    uint8_t src, dst;
    uint8_t src_first;
    uint8_t replicated; /* another rank computes the same value: keep the
                         * operand order even for commutative ops */
    int64_t off, len; /* the range written in dst */
    int64_t src_off;  /* where src holds it: off, except from a receive slot */
} rabred_local_t;

typedef struct {
    int32_t first_xfer, nxfer;
    int32_t first_local, nlocal;
    int32_t joined; /* runs in one group with the round before (rabred_plan_round_joined) */
} rabred_round_t;

/* A view runs a phase, or a whole builder, written for ranks 0..s-1 and a
 * vector of n elements, over a subgroup of the communicator and a
 * sub-range of the vector: member i is rank peers[i], element e is element
 * base + e.  With input_is_acc, INPUT names ACC (the data already lives
 * there, reduced by an earlier phase): a copy INPUT->ACC is then dropped,
 * and a builder run under the view must be told in_place = 1.  This is
 * how the node-aware algorithms compose the flat phases and builders
 * (a reduce-scatter inside a node, an allreduce across nodes of one block)
 * without new execution code: the plan still names communicator ranks
 * and whole-vector ranges. */
typedef struct {
    const int32_t *peers; /* member i -> rank; NULL: identity */
    int64_t base;         /* element offset of the sub-range */
    int input_is_acc;
} rabred_plan_view_t;

typedef struct {
    rabred_round_t *rounds;
    rabred_xfer_t *xfers;
    rabred_local_t *locals;
    int32_t nrounds, nxfers, nlocals;
    int32_t cap_rounds, cap_xfers, cap_locals;
    uint8_t uses[RABRED_NBUFS]; /* which buffers the plan touches */
    int error;                  /* first error met while building */
    rabred_plan_view_t view;    /* rabred_plan_view; peers NULL, base 0: none */
    int fresh;                  /* the next step starts a round (a view began or ended) */
} rabred_plan_t;

/* When each rank arrives at the call, and the model that prices a step, for
 * the algorithms that order their work by arrival (Proficz 2018; the table marks
 * them arrival_aware).  The offsets come from outside the call (a prediction
 * every rank shares) and must be the same on every rank, or ranks would build
 * plans that do not match.  Bad values are not fatal: an offset that is NaN,
 * infinite or negative counts as 0 (on time), and alpha, beta or gamma that
 * are NaN, infinite or negative count as 0 (rabred_arrival_clean in
 * rabred_toolkit.h). */
typedef struct {
    const double *offset; /* p arrival offsets in seconds (>= 0), by rank; the same on every rank */
    double alpha;         /* model: seconds per message */
    double beta;          /* seconds per ELEMENT sent */
    double gamma;         /* seconds per ELEMENT reduced */
} rabred_arrival_t;

/* Which ranks share a node (a host: shared memory between them, one
 * network link out), for the node-aware algorithms.  node_of[r] is rank
 * r's node, 0 <= node_of[r] < nnodes, every node used; any numbering
 * (builders number nodes by their lowest rank).  The same on every rank.
 *
 * place_of (p entries, or NULL: unknown) says where inside its node a rank
 * runs: ranks with equal values share a socket and a NUMA domain, and
 * ordering a node's ranks by (place, rank) puts the ranks of one socket,
 * and of one NUMA domain in it, next to each other.  For commutative ops
 * the node-aware plans order a node's ranks so (rabred_node_layout), and
 * their intra-node rings and trees cross a socket boundary a few times
 * instead of at every step under --map-by socket.  Positional
 * initialisers name all four fields (-Wmissing-field-initializers). */
typedef struct {
    int nnodes;
    const int32_t *node_of; /* p entries */
    const int64_t *place_of; /* p entries, or NULL */
    /* The map grouped once (rabred_node_groups_make, plan/rabred_nodes.h)
     * for the node-aware builders to read, or NULL: each builds its own. */
    const struct rabred_node_groups *groups;
} rabred_nodes_t;

/* What a builder is given.  root is -1 for allreduce.  Positional
 * initialisers that stop before `arrival` leave it NULL, which every
 * builder reads as "arrivals unknown or equal". */
typedef struct {
    int p, rank, root;
    int64_t count;   /* elements */
    int commutative; /* 1 when the operation may be applied in any order */
    int64_t seg_count; /* elements per segment for pipelined algorithms; 0: one segment */
    const rabred_arrival_t *arrival; /* NULL: arrivals unknown or equal (balanced) */
    /* 1: INPUT and ACC are the same memory at this rank (MPI_IN_PLACE), so
     * nothing may be received into ACC before INPUT has been read.  0 (what
     * positional initialisers that stop earlier give) lets a builder receive
     * into ACC first; only callers that run the plan must set it right (the
     * executor's caller and the simulator do). */
    int in_place;
    /* The node map (rabred_nodes_t), or NULL: unknown, every rank counts
     * as one node.  Only the node-aware algorithms read it. */
    const rabred_nodes_t *nodes;
} rabred_plan_args_t;

typedef int (*rabred_plan_builder_fn)(const rabred_plan_args_t *args, rabred_plan_t *plan);

void rabred_plan_init(rabred_plan_t *plan);
void rabred_plan_reset(rabred_plan_t *plan); /* keep the storage, drop content */
void rabred_plan_free(rabred_plan_t *plan);

/* Building.  Errors are sticky in plan->error; builders return it at the end. */
void rabred_plan_round(rabred_plan_t *plan);
/* A new round joined to the one before: the executor posts a group of
 * joined rounds at once, waits for all of it, then runs the rounds' local
 * steps in order, and the transport shares the links among the group's
 * messages.  The simulator runs a group round by round: a builder lists a
 * group's rounds in an order every port agrees on (a pairwise exchange),
 * whose time is the ports' total busy time, what fair sharing also takes;
 * the simulator's first-come-first-served ports would otherwise price a
 * group posted at once far above what TCP shows (see
 * coll_rabred_allreduce_prereduced_scatter.c).  Where latency is wire that
 * messages in flight pay at once (the model's wire_us), a group pays it
 * once, not per round: the simulator lets a group's next round onto the
 * ports once a round's messages have left them (their latency in flight;
 * the group's last round waits for every delivery), a closed form may
 * price the same (allreduce direct's), and the cost model's structural
 * terms charge a group's latency beyond alpha once
 * (select/rabred_extras.c).  A group is only run at once
 * when no round's transfers touch what an earlier round of the group's
 * local steps read or write (rabred_plan_group_safe); otherwise the
 * executor runs its rounds one by one. */
void rabred_plan_round_joined(rabred_plan_t *plan);
void rabred_plan_recv(rabred_plan_t *plan, int peer, rabred_buf_t buf, int64_t off, int64_t len);
void rabred_plan_send(rabred_plan_t *plan, int peer, rabred_buf_t buf, int64_t off, int64_t len);
void rabred_plan_reduce(rabred_plan_t *plan, rabred_buf_t src, rabred_buf_t dst, int64_t off,
                        int64_t len, int src_first);
/* The same, for a value that another rank computes too (recursive
 * doubling's partners): both must get the same bits, and MAX(+0, -0) or NaN
 * payloads depend on operand order, so the executor keeps it even for
 * commutative ops.  Values computed once may be reduced in whichever order
 * is cheaper when the op commutes (rabred_plan_reduce). */
void rabred_plan_reduce_replicated(rabred_plan_t *plan, rabred_buf_t src, rabred_buf_t dst,
                                   int64_t off, int64_t len, int src_first);
void rabred_plan_copy(rabred_plan_t *plan, rabred_buf_t src, rabred_buf_t dst, int64_t off,
                      int64_t len);
/* rabred_plan_reduce of the range [off, off + len) from where src holds it,
 * at src_off: a slot that one of many receives of the same range in flight
 * at once filled (allreduce direct's reduce-scatter receives block r from
 * every peer in one round, into p - 1 slots). */
void rabred_plan_reduce_from(rabred_plan_t *plan, rabred_buf_t src, int64_t src_off,
                             rabred_buf_t dst, int64_t off, int64_t len, int src_first);

/* May round r+1 be posted before round r's local steps run?  Yes when none
 * of its sends reads what those steps write and none of its receives
 * touches what they read or write.  Then the transfers of round r+1 overlap
 * the reductions of round r: that is what makes segmented (pipelined)
 * algorithms pay off.  The executor and the simulator both follow this
 * rule.  input_is_acc: INPUT and ACC are the same memory (MPI_IN_PLACE). */
int rabred_plan_can_post_early(const rabred_plan_t *plan, int r, int input_is_acc);

/* May round r+1's receives (only) be posted before round r's local steps?
 * Yes when none of them touches what those steps read or write.  A ring's
 * next send carries the block this round reduces, so the whole round may
 * not go early, but its receive may: the left neighbour's data then lands
 * while we reduce instead of waiting for the match (coll/tuned's ring does
 * the same).  The simulator starts a message when both halves are posted
 * and the receiver of a balanced ring posts before its sender anyway, so
 * it does not model this; the executor does it. */
int rabred_plan_can_post_recvs_early(const rabred_plan_t *plan, int r, int input_is_acc);

/* The end of round r's group: the first round after r not joined to it. */
int rabred_plan_group_end(const rabred_plan_t *plan, int r);

/* May rounds [first, end) be posted at once?  Yes when no transfer of a
 * round conflicts with the local steps of an earlier round in the range,
 * and no two transfers of different rounds touch the same elements with
 * one of them a receive. */
int rabred_plan_group_safe(const rabred_plan_t *plan, int first, int end, int input_is_acc);

/* Appends what follows under `view` (NULL: none, back to ranks and whole
 * ranges); either way the next step starts a new round, so no transfer of
 * one phase is posted with the local steps of another. */
void rabred_plan_view(rabred_plan_t *plan, const rabred_plan_view_t *view);

/* Builds a plan with `build` after resetting it; returns RABRED_OK or an error. */
int rabred_plan_build(rabred_plan_builder_fn build, const rabred_plan_args_t *args,
                      rabred_plan_t *plan);

#endif /* RABRED_PLAN_H */
