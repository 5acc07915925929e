/*
 * allreduce: direct, a reduce-scatter and an allgather that each post all
 * their messages at once: the pairwise exchange of Rabenseifner 2004 sec.
 * 2.7 with its p - 1 steps in flight together.  On bench/scale's
 * crossbar and fat tree at p = 64, 512 B-32 KiB, it is the best measured
 * (bench/results/scale-direct-p64-20261207).
 *
 * Steps (each a group of p - 1 joined rounds, posted at once)
 *  1. reduce-scatter by direct exchange: send block j of INPUT to every
 *     rank j, receive block rank from every peer into its own slot of TMP
 *     (and TMP2), then reduce the slots into ACC in rank order
 *     (rabred_phase_direct_reduce_scatter);
 *  2. allgather by direct exchange: block rank of ACC to every peer, every
 *     other block from its owner (rabred_phase_direct_allgather).
 *
 * Cost, messages taking turns on a rank's ports:
 *   2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma,
 * the pairwise ring's; its point is the other kind of network: where alpha
 * is mostly wire latency (wire_us) that messages in flight pay at once, a
 * round of p - 1 messages costs one latency and p - 1 overheads o,
 *   2 (p-1) (o + n/p beta) + 2 wire + (1 - 1/p) n gamma,
 * two latencies where recursive halving pays 2 lg p: short and middle
 * vectors at tens to hundreds of ranks on a fabric with little per-message
 * work (bench/scale/).  Where a rank's messages hold no port at all
 * (parallel_ports), a phase costs its slowest message, alpha + n/p beta.  Every rank talks to every other (the peer term).
 *
 * Limitations: count >= p (below it p - 1 slots of a block may not fit TMP
 * and TMP2; the plan then reduce-scatters in p - 1 ordered steps, slower
 * than its price says, so the decision is not offered it).  Exact rank
 * order for non-commutative ops (each block is reduced on one rank, lower
 * ranks in front); every rank gets the same bits.
 *
 * Memory per process: TMP of count elements, and TMP2 when p - 1 blocks
 * outgrow it (count < p (p-1)); p - 1 requests of each kind posted at once.
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_phase_direct_reduce_scatter(plan, a->p, a->rank, a->count);
    rabred_phase_direct_allgather(plan, a->p, a->rank, a->count);
    return plan->error;
}

/* Step k of a phase: one message of `block` bytes per port, to rank + k
 * while one comes from rank - k: one-way, but at k = p/2 of an even p, an
 * exchange with one peer (as in the pairwise ring).  It holds its ports
 * for its latency's overhead part o (alpha less its wire latency) and its
 * bytes; the wire latency follows, and in a group posted at once the
 * steps' wire latencies overlap: the phase pays the last one only.  With
 * wire = 0 (Hockney's turns) the phase is the p - 1 steps one after the
 * other, as the simulator times them. */
typedef struct {
    double held; /* on the ports: the overhead o and the bytes */
    double wire; /* after them */
} direct_step_t;

static direct_step_t direct_step(const rabred_model_t *m, double block, int exchange)
{
    double latency = exchange ? m->alpha : m->f_alpha * m->alpha;
    double overhead = m->wire > 0 && m->alpha - m->wire < latency ? m->alpha - m->wire : latency;
    direct_step_t s = {overhead + block * m->beta * (exchange ? 1.0 : m->f_beta),
                       latency - overhead};
    return s;
}

static double direct_phase(const rabred_model_t *m, int p, double block)
{
    int exchanges = 0 == p % 2; /* the step k = p/2 */
    direct_step_t one_way = direct_step(m, block, 0), exchange = direct_step(m, block, 1);
    if (m->parallel_ports) { /* no port: every step at once, the slowest decides */
        direct_step_t last = exchanges ? exchange : one_way;
        return last.held + last.wire;
    }
    double last_wire = 2 == p ? exchange.wire : one_way.wire; /* step p - 1 */
    return (p - 1 - exchanges) * one_way.held + exchanges * exchange.held + last_wire;
}

static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double block = rabred_price_block_bytes(c);
    if (0 == c->bytes || c->p < 2) {
        return 0; /* the plans drop empty messages */
    }
    return 2 * direct_phase(m, c->p, block) + (c->p - 1) * block * m->gamma;
}

const rabred_alg_t rabred_alg_allreduce_direct = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 15,
    .name = "direct",
    .build = build,
    .description = "direct: reduce-scatter and allgather over p blocks, each phase's p-1 "
                   "messages posted at once; rank order kept; short and middle vectors where "
                   "latency is mostly wire (messages in flight overlap it)",
    .formula = "2 (p-1) alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma",
    .restrictions = RABRED_NEEDS_COUNT_GE_P,
    .price = price,
    .prices_sharing = 1,
};
