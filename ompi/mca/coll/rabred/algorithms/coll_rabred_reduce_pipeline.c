/*
 * reduce: pipeline, a linear chain toward the root with the vector cut into
 * segments (Open MPI coll/tuned's reduce algorithms 3 "pipeline" and 2
 * "chain" with one chain, ompi_coll_base_reduce_intra_pipeline; the linear
 * tree of Proficz 2018 sec. 2; segment size tuning: the allreduce survey).
 *
 * Steps
 *  The p ranks form a chain c_0 -> c_1 -> ... -> c_{p-1}; the vector is cut
 *  into S segments.  The head c_0 sends its input, one segment per round.
 *  Member c_h (h >= 1) in its round k receives segment k from c_{h-1} (the
 *  partial result of c_0..c_{h-1}), forwards segment k-1 (its own partial
 *  result) to c_{h+1}, then combines segment k with its input.  Segment k
 *  crosses the link out of c_h at step k + h, so every link of the chain is
 *  busy at once, and c_h is done as soon as it has forwarded its last
 *  segment: the earlier in the chain, the earlier out (Proficz's (2018) elapsed
 *  time).
 *
 * Which chain: rank order
 *  - commutative op: c_h = root - 1 - h (mod p), ending at the root and
 *    running downward, so that ranks other than the root receive straight
 *    into ACC and add their input onto it (no TMP, no copy), except when
 *    run in place under a view whose INPUT is ACC (node_chain's leaders),
 *    where they receive into TMP;
 *  - non-commutative op: downward, c_h = p-1-h, where rank r puts its own
 *    contribution before the partial of ranks r+1..p-1 it receives, or
 *    upward, c_h = h, where the partial of ranks 0..r-1 goes before rank
 *    r's.  Either way every reduction joins two adjacent runs of ranks in
 *    rank order, and the chain must end at rank 0 (down) or p-1 (up): root
 *    0 goes down and root p-1 goes up, ending the chain.  Any other root
 *    takes its place in the chain like every rank and then receives the
 *    result from the chain's end, segment by segment (one hop more).  It
 *    takes the direction that passes it earlier (down when 2 root + 1 >=
 *    p): its one incoming port takes both the chain's segments and the
 *    result's, which come gap = p - (its position) rounds later, so the
 *    two streams share the port only when S > gap (gap >= (p+1)/2).
 *
 * Overlap: a member's round k+1 forwards the segment that round k has just
 * reduced, so it is posted after that reduction (rabred_plan_can_post_early
 * says no); its receive touches another segment, so the executor posts it
 * before the reduction (rabred_plan_can_post_recvs_early): the next
 * segment arrives while this one is reduced.  The head (nothing to reduce)
 * and the end (nothing to forward) post every round early.  Forwarding
 * each segment one round later would let whole rounds go early and hide
 * the p-2+S reductions on the critical path, but every hop would then take
 * two transfers: (p-1) x more (x, r below), a loss unless r is close to x;
 * on networks gamma is far below beta.
 *
 * Cost, in the simulator's port model: one-way transfer of a segment of
 * m = n/S elements x = f_alpha alpha + m f_beta beta, its reduction
 * r = m gamma; a middle member's period is x + r (it forwards a segment
 * once reduced and reduces the next once its round's transfers are done).
 * Completion at the root:
 *   p >= 3, the chain ends at the root: (p - 2 + S) (x + r);
 *   p = 2: x + r + (S - 1) max(x, r) (the root's reductions overlap);
 *   forwarding root (non-commutative, 0 < root < p-1): the hop to the
 *   root, and x for each of the S - gap rounds (if any) whose chain segment
 *   and result segment share its port: (p - 2 + S) (x + r)
 *   + (1 + max(0, S - gap)) x.
 *   (At p = 3 the root and the end send to each other in the same rounds,
 *   which the simulator prices as exchanges, not one-way.)
 * Average elapsed time over ranks (Proficz 2018), p >= 3, chain ending at the
 * root: c_h, h <= p-2, is done at (S - 1 + h) (x + r) + x, the root at
 * (p - 2 + S) (x + r); the mean is
 *   [((p-1) (S-1) + (p-1) (p-2) / 2 + p - 2 + S) (x + r) + (p-1) x] / p.
 * S = 1 is the plain chain: (p-1) (x + r) at the root.
 *
 * Segments: S = ceil(n / seg) for seg = a->seg_count elements, at most
 * RABRED_PIPELINE_MAX_SEGMENTS; seg = 0 or >= n gives S = 1.  Segments
 * differ by one element at most (the toolkit's block rule) and none
 * exceeds seg below the cap.
 *
 * Limitations: none (any p, root, count and op).  Filling the chain costs
 * p-2 segment times: for long vectors on few ranks.
 *
 * Memory per process: none at the head; ACC of count elements on other
 * non-root ranks; TMP of count elements at the root, on an upward chain
 * and on members run in place.
 */
#include "plan/rabred_plan.h"
#include "algorithms/rabred_table.h"
#include "plan/rabred_toolkit.h"

/* This rank's place in the chain. */
typedef struct {
    int pos;         /* 0: the head, p-1: the end */
    int prev, next;  /* neighbours' real ranks, -1 at the ends; the end's
                      * next is the root when the root is inside the chain */
    int upward;      /* the partial from prev holds lower ranks than ours */
    int result_from; /* at a root inside the chain: the end; else -1 */
    int gap;         /* rounds between a segment passing the root and its
                      * result arriving there */
} chain_t;

/* Only non-commutative ops run up (see the header): root p-1, or a root
 * in the lower half, which the upward chain passes earlier. */
static int runs_upward(const rabred_plan_args_t *a)
{
    if (a->commutative || 0 == a->root) {
        return 0;
    }
    return a->p - 1 == a->root || 2 * a->root + 1 < a->p;
}

/* The real rank at position h of the chain, and the position of a rank.
 * Downward chains start at base - 1 (mod p): base is the root for a
 * commutative op, 0 otherwise. */
static int member_at(int p, int base, int upward, int h)
{
    return upward ? h : (base + p - 1 - h) % p;
}

static int position_of(int p, int base, int upward, int rank)
{
    return upward ? rank : (base + p - 1 - rank) % p;
}

static void chain_init(chain_t *c, const rabred_plan_args_t *a)
{
    int p = a->p, base = a->commutative ? a->root : 0;
    int up = runs_upward(a), end = member_at(p, base, up, p - 1);
    c->upward = up;
    c->pos = position_of(p, base, up, a->rank);
    c->prev = c->pos > 0 ? member_at(p, base, up, c->pos - 1) : -1;
    c->next = c->pos < p - 1 ? member_at(p, base, up, c->pos + 1) : end != a->root ? a->root : -1;
    c->result_from = a->rank == a->root && end != a->root ? end : -1;
    c->gap = p - position_of(p, base, up, a->root);
}

/* S: ceil(count / seg), capped; 1 without segments. */
static int segment_count(const rabred_plan_args_t *a)
{
    int64_t seg = a->seg_count;
    if (seg <= 0 || seg >= a->count) {
        return 1;
    }
    int64_t nseg = (a->count + seg - 1) / seg;
    return nseg < RABRED_PIPELINE_MAX_SEGMENTS ? (int)nseg : RABRED_PIPELINE_MAX_SEGMENTS;
}

/* The head: its input, one segment per round. */
static void head_rounds(rabred_plan_t *plan, const chain_t *c, int64_t count, int nseg)
{
    for (int s = 0; s < nseg; s++) {
        rabred_plan_round(plan);
        rabred_plan_send(plan, c->next, RABRED_BUF_INPUT, rabred_block_offset(count, nseg, s),
                         rabred_block_length(count, nseg, s));
    }
}

/* Rounds k = 0..S of a member (0..S-1 at an end that keeps the result):
 * receive segment k, forward segment k-1, at a root inside the chain take
 * the result's segment k - gap as it comes back, combine segment k. */
static void member_rounds(rabred_plan_t *plan, const chain_t *c, int is_root, int in_place,
                          int64_t count, int nseg)
{
    /* Off the root, a downward partial lands straight in ACC and the input
     * goes onto it first.  The root (whose ACC may be its input under
     * MPI_IN_PLACE), any rank run in place (under a view whose INPUT is
     * ACC: the leaders' chain of node_chain) and an upward chain (the
     * partial must go first, and the executor reduces with the destination
     * first only from TMP) receive into TMP and start ACC from the input. */
    int direct = !c->upward && !is_root && !in_place;
    rabred_buf_t in = direct ? RABRED_BUF_ACC : RABRED_BUF_TMP;
    int last = c->next >= 0 ? nseg : nseg - 1;
    for (int k = 0; k <= last; k++) {
        rabred_plan_round(plan);
        if (k > 0 && c->next >= 0) {
            rabred_plan_send(plan, c->next, RABRED_BUF_ACC, rabred_block_offset(count, nseg, k - 1),
                             rabred_block_length(count, nseg, k - 1));
        }
        if (c->result_from >= 0 && k >= c->gap) {
            rabred_plan_recv(plan, c->result_from, RABRED_BUF_ACC,
                             rabred_block_offset(count, nseg, k - c->gap),
                             rabred_block_length(count, nseg, k - c->gap));
        }
        if (k == nseg) {
            continue;
        }
        int64_t off = rabred_block_offset(count, nseg, k), len = rabred_block_length(count, nseg, k);
        rabred_plan_recv(plan, c->prev, in, off, len);
        if (direct) {
            rabred_plan_reduce(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, off, len, 1);
        } else {
            rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, off, len);
            rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, off, len, c->upward);
        }
    }
}

/* A root inside the chain: the result's segments that come back after its
 * last chain round, received in one round. */
static void result_round(rabred_plan_t *plan, const chain_t *c, int64_t count, int nseg)
{
    int first = nseg + 1 - c->gap > 0 ? nseg + 1 - c->gap : 0;
    if (c->result_from < 0 || first >= nseg) {
        return;
    }
    rabred_plan_round(plan);
    for (int s = first; s < nseg; s++) {
        rabred_plan_recv(plan, c->result_from, RABRED_BUF_ACC, rabred_block_offset(count, nseg, s),
                         rabred_block_length(count, nseg, s));
    }
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    if (1 == a->p) {
        rabred_plan_round(plan);
        rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, a->count);
        return plan->error;
    }
    chain_t c;
    chain_init(&c, a);
    int nseg = segment_count(a);
    if (0 == c.pos) {
        head_rounds(plan, &c, a->count, nseg);
    } else {
        member_rounds(plan, &c, a->rank == a->root, a->in_place, a->count, nseg);
        result_round(plan, &c, a->count, nseg);
    }
    return plan->error;
}

/* The chain ending at the root (root 0, or p-1 for a non-commutative op),
 * S segments of m = n/S bytes, x = a one-way transfer of m, r = m gamma,
 * priced by the average elapsed time: chain member h = 0..p-2 leaves after
 * (S-1+h) steps of x + r and its last transfer, the root after p-2+S
 * steps.  At p = 2 the root takes one segment ahead of its reductions, so
 * the sender leaves at the root's pace from the third segment on.  Every
 * last transfer starts when it matches (its sender posts it when the one
 * before is in), so a sender leaves rabred_price_buffered before it
 * ends. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double p = c->p; /* (p-1)(p-2) overflows an int from p = 46343 */
    if (0 == c->bytes) {
        return 0; /* the plans drop empty messages */
    }
    int64_t nseg = c->seg_bytes > 0 && c->bytes > c->seg_bytes
                       ? (c->bytes + c->seg_bytes - 1) / c->seg_bytes
                       : 1;
    double segs = (double)(nseg < RABRED_PIPELINE_MAX_SEGMENTS ? nseg
                                                                : RABRED_PIPELINE_MAX_SEGMENTS);
    double seg = (double)c->bytes / segs, xfer = rabred_price_one_way(m, seg);
    double reduce = seg * m->gamma, buffered = rabred_price_buffered(m, seg);
    if (2 == p) {
        double hi = xfer > reduce ? xfer : reduce;
        double sender = segs < 2 ? xfer : 2 * xfer + (segs - 2) * hi;
        return (sender - buffered + xfer + reduce + (segs - 1) * hi) / 2;
    }
    double steps = (p - 1) * (segs - 1) + (p - 1) * (p - 2) / 2.0 + (p - 2 + segs);
    return (steps * (xfer + reduce) + (p - 1) * (xfer - buffered)) / p;
}

const rabred_alg_t rabred_alg_reduce_pipeline = {
    .coll = RABRED_COLL_REDUCE,
    .id = 7,
    .name = "pipeline",
    .build = build,
    .segmented = 1,
    .description = "pipeline: a chain toward the root with the vector cut into "
                   "coll_rabred_segment_size segments, every link busy at once and each rank gone "
                   "once it has forwarded; rank-ordered chain plus a forward to a root inside it "
                   "for non-commutative ops (coll/tuned's chain and pipeline); long vectors, few "
                   "ranks",
    .formula = "S segments of m = n/S: (p - 2 + S) (alpha + m beta + m gamma); p = 2: alpha + "
               "m beta + m gamma + (S-1) max(alpha + m beta, m gamma); non-commutative, 0 < "
               "root < p-1: + (1 + max(0, S - max(root + 1, p - root))) (alpha + m beta): the "
               "hop to the root, and the segments that share its port with the chain's",
    .tuned_ids = {3, 2, 0},
    .price = price,
};
