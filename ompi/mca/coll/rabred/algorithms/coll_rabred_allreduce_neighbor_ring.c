/*
 * allreduce: neighbor_ring, the neighbour ring (the ring of Rabenseifner 2004 sec.
 * 2.7 with the classic neighbour-ring reduce-scatter of Patarasuk & Yuan,
 * JPDC 2009), unsegmented by default or cut into segments as in Open MPI's
 * coll_base_allreduce_intra_ring_segmented (segment size tuning: Vadhiyar,
 * Fagg & Dongarra 2000, the allreduce survey).
 *
 * Steps
 *  1. in place only: copy the input into ACC;
 *  2. reduce-scatter on the ring over p blocks, each block cut into S
 *     balanced segments: for step i = 0 .. p-2 and segment s = 0 .. S-1 one
 *     round sends segment s of block rank-i-1 (partial sum; at step 0 the
 *     input as it is) to rank+1, receives segment s of block rank-i-2 from
 *     rank-1 into ACC and reduces the rank's own input of it into that
 *     (in place: into TMP, reduced into ACC).  Rank r ends with block r.
 *     No copy of the vector comes first, and what the right neighbour
 *     reads at step 0 is memory the rank never writes;
 *  3. allgather on the ring, unsegmented (rabred_phase_ring_allgather): it
 *     has no reductions to hide, so segments would only add messages.
 *
 * Why the neighbour ring and not the pairwise exchange of
 * coll_rabred_allreduce_pairwise_ring.c: both pipeline the same way (consecutive
 * rounds touch different segments; a segment reduced in round (i, s) is sent
 * S rounds later, in round (i+1, s)), and the simulator gives them identical
 * times, also with arrival skew.  The neighbour ring talks only to rank+-1 in
 * both phases: with consecutive ranks on a node, one stream per node crosses
 * the network, where the pairwise exchange sends nearly every block off the
 * node (ppn times the NIC traffic) and needs connections to all p-1 peers.
 *
 * Overlap: with S >= 2 the transfers of round j+1 never touch the ranges
 * that round j's reduction reads or writes (other TMP and ACC segments), so
 * the executor and the simulator post round j+1 before running that
 * reduction (rabred_plan_can_post_early) and the reductions hide behind the
 * messages.  With S = 1 round j+1 sends the block round j has just reduced:
 * no overlap, the plain ring.
 *
 * Segments: S = ceil(ceil(n/p) / seg) with seg = a->seg_count elements,
 * capped at RABRED_SEGRING_MAX_SEGMENTS; seg = 0 or >= ceil(n/p) gives S = 1,
 * exactly the plain neighbour ring.  Segments of a block differ by at most
 * one element and none exceeds seg (below the cap).
 *
 * Cost, term by term (alpha, beta or gamma alone, where nothing overlaps):
 * (p-1) (S + 1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma (one element
 * per step more when p does not divide n).
 * With round j's reduction overlapping round j+1's transfers (S >= 2) and
 * s = n/(p S): a reduce-scatter round costs max(alpha + s beta, s gamma)
 * instead of the sum: (alpha + s beta) + ((p-1) S - 1) max(alpha + s beta,
 * s gamma) + s gamma + (p-1) (alpha + n/p beta); for alpha = 0 that is
 * (1 - 1/p) n (beta + max(beta, gamma)) + (n/(p S)) min(beta, gamma).
 *
 * Limitations: commutative ops only (block b combines ranks b+1, ..., p-1,
 * 0, ..., b: rank order only for b = p-1).  Every block is reduced on one
 * rank only and then copied, so all ranks get the same bits.
 *
 * Memory per process: TMP of count elements ((1 - 1/p) of it is used),
 * only in place.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

/* The number S of segments per block: ceil(bmax / seg) for the largest
 * block (bmax = ceil(count/p) elements), at most RABRED_SEGRING_MAX_SEGMENTS;
 * S = 1 (the plain ring) when seg is 0 or at least bmax. */
static int segments_per_block(const rabred_plan_args_t *a)
{
    int64_t bmax = (a->count + a->p - 1) / a->p, seg = a->seg_count;
    if (seg <= 0 || seg >= bmax) {
        return 1;
    }
    int64_t nseg = (bmax + seg - 1) / seg;
    return nseg < RABRED_SEGRING_MAX_SEGMENTS ? (int)nseg : RABRED_SEGRING_MAX_SEGMENTS;
}

/* Segment s of block b: the block cut into nseg balanced parts (the toolkit's
 * block rule again), so every round moves and reduces about the same amount:
 * with a short last segment, a round would reduce a full segment while
 * receiving the short one and the overlap would be lost there.  Sender and
 * receiver compute the same range; empty segments (blocks shorter than nseg)
 * are dropped on both sides. */
static void segment(int64_t count, int p, int b, int nseg, int s, int64_t *off, int64_t *len)
{
    int64_t blen = rabred_block_length(count, p, b);
    *off = rabred_block_offset(count, p, b) + rabred_block_offset(blen, nseg, s);
    *len = rabred_block_length(blen, nseg, s);
}

/* Step 2: the neighbour-ring reduce-scatter, one round per (step, segment).
 * At step i rank r forwards its partial sum of block r-i-1 (its own input at
 * step 0) to r+1 and adds the partial sum of block r-i-2 coming from r-1;
 * after p-1 steps block r holds all p contributions (r+1, ..., r-1, r).
 * direct: the input was not copied into ACC, so step 0 sends it as it is
 * and each partial is received into ACC, where the rank's own input block
 * is reduced into it (each block arrives once, and the op commutes). */
static void ring_reduce_scatter(rabred_plan_t *plan, int p, int rank, int64_t count, int nseg,
                                int direct)
{
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int i = 0; i + 1 < p; i++) {
        int out = ((rank - i - 1) % p + p) % p, in = ((rank - i - 2) % p + p) % p;
        rabred_buf_t from = direct && 0 == i ? RABRED_BUF_INPUT : RABRED_BUF_ACC;
        for (int s = 0; s < nseg; s++) {
            int64_t out_off, out_len, in_off, in_len;
            segment(count, p, out, nseg, s, &out_off, &out_len);
            segment(count, p, in, nseg, s, &in_off, &in_len);
            rabred_plan_round(plan);
            rabred_plan_send(plan, right, from, out_off, out_len);
            if (direct) {
                rabred_plan_recv(plan, left, RABRED_BUF_ACC, in_off, in_len);
                rabred_plan_reduce(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, in_off, in_len, 0);
                continue;
            }
            rabred_plan_recv(plan, left, RABRED_BUF_TMP, in_off, in_len);
            /* the left partial covers the lower ranks of the ring: it goes first */
            rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, in_off, in_len, 1);
        }
    }
}

/* The plans read the input in place unless it is ACC (MPI_IN_PLACE) or
 * p = 1 (nothing to receive into ACC).  The ring is for commutative ops
 * only: a plan built for another op keeps the copy, whose reductions keep
 * the stated order. */
static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    int direct = !a->in_place && a->p > 1 && a->commutative;
    if (!direct) {
        rabred_phase_copy_in(plan, a->count);
    }
    ring_reduce_scatter(plan, a->p, a->rank, a->count, segments_per_block(a), direct);
    rabred_phase_ring_allgather(plan, a->p, a->rank, a->count);
    return plan->error;
}

/* S segments of s = n/(p S) bytes, each segment's transfer x (one-way; an
 * exchange at p = 2) overlapping the previous one's reduction r = s gamma:
 * (p-1) S max(x, r) + min(x, r), then the allgather, p-1 neighbour steps of
 * a block.  With S = 1 nothing overlaps (each step forwards what the last
 * one reduced): (p-1) (x + r). */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    int p = c->p;
    double block = rabred_price_block_bytes(c);
    if (0 == c->bytes) {
        return 0; /* the plans drop empty messages */
    }
    double segs = c->seg_bytes > 0 && block > c->seg_bytes
                      ? (double)(int64_t)((block + c->seg_bytes - 1) / c->seg_bytes)
                      : 1.0;
    segs = segs < RABRED_SEGRING_MAX_SEGMENTS ? segs : RABRED_SEGRING_MAX_SEGMENTS;
    double xfer = rabred_price_neighbour(m, p, block / segs), reduce = block / segs * m->gamma;
    double hi = xfer > reduce ? xfer : reduce, lo = xfer > reduce ? reduce : xfer;
    double allgather = (p - 1) * rabred_price_neighbour(m, p, block);
    if (segs < 2) {
        return (p - 1) * (xfer + reduce) + allgather;
    }
    return (p - 1) * segs * hi + lo + allgather;
}

const rabred_alg_t rabred_alg_allreduce_neighbor_ring = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 8,
    .name = "neighbor_ring",
    .alias = "segmented_ring", /* also accepted, in MCA values and rules files */
    .build = build,
    .restrictions = RABRED_NEEDS_COMMUTATIVE,
    .segmented = 1,
    .description = "neighbour ring: reduce-scatter passing blocks to the next rank, optionally cut "
                   "into segments of coll_rabred_segment_size bytes so each segment's transfer "
                   "overlaps the previous one's reduction, then the ring allgather; long vectors",
    .formula = "(p-1) (S+1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma without overlap; "
               "with it, alpha = 0: (1 - 1/p) n (beta + max(beta, gamma)) + n/(p S) min(beta, "
               "gamma)",
    .tuned_ids = {5},
    .price = price,
};
