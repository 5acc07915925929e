/*
 * The cost model's structural terms (rabred_model_extras, declared in
 * select/rabred_model.h): what a call costs beyond the closed forms'
 * alpha, beta and gamma, read off the plans of the ranks on the longest
 * paths.  Each term is a physical effect with its own parameter
 * (docs/decision.md, "The cost model"):
 *   sync         every round that moves data (ranks out of step);
 *   rndv         a round with a message above the eager limit (the
 *                handshakes; crossing in a round that sends and receives);
 *   beta_eager   a round's largest eager message at the eager speed;
 *   repeat       an exchange with one peer after the call's first round;
 *   duplex       sending to one peer while receiving from another;
 *   invalidate   reducing into memory a peer has read in this call
 *                (single-copy transports: the coherence protocol takes the
 *                lines back from the reader's cache, and a reduction reads
 *                each line before writing it; 12 ns per 64-byte line on
 *                this project's machine at 64 KiB, where a p = 2
 *                exchange that reduces into all it sent takes 1.2x one
 *                that reduces into none);
 *   overwrite    a receive or a copy over such memory: it writes whole
 *                lines without reading them and pays less, measured here
 *                at 64 KiB a copy 7.2 us against 1.8 into the rank's own,
 *                a reduction 16 against 2.1, a receive 14.5 against 10
 *                (bench/results/shm-invalidate-20261126); charged at the
 *                reduction's speed, halving and doubling at p = 2 and
 *                256 KiB was priced at 78 us where it takes 41;
 *   copy         local copies (a root that copies its input before
 *                reducing into it pays what one receiving in place does not);
 *   peer         every distinct peer of the rank;
 *   aggregate    all ranks' bytes of a round at the aggregate bandwidth;
 *   distance     a round's slowest message at the bandwidth every rank
 *                gets when all exchange at its partner's distance (links
 *                shared by long routes: on bench/scale's torus,
 *                Rabenseifner's partners 2-8 ranks apart along a row and
 *                32-128 across rows cross up to 8 links each and share
 *                them, 2.07x a ring at p = 256, 2 MiB; one link only:
 *                with a node map a rank's distance is not its node's);
 *                a partner rank XOR 2^k at the bandwidth of XOR pairs
 *                that far apart, any other (Bruck's rank - 2^k, which
 *                wraps around the rank order) at that of shifts, where
 *                those were measured; and the round's slowest message's
 *                latency in its pattern beyond alpha (routes of more
 *                hops: on the torus at p = 1024 a shift of 8 takes
 *                1.34 us where alpha is 0.53).
 * Messages are sized in bytes: plans are built with one-byte elements.
 */
#include "select/rabred_model.h"

#include <stdlib.h>
#include <string.h>

#include "plan/rabred_toolkit.h"

/* Which link's terms a round pays: with a node map (NULL: one link, `m`),
 * a round with a message to another node pays `m`'s (the network's), one
 * inside the node the intra-node link's. */
typedef struct {
    const rabred_nodes_t *nodes;
    int rank;
    const rabred_model_t *intra;
} links_t;

static const rabred_model_t *round_link(const rabred_plan_t *plan, const rabred_round_t *rd,
                                        const links_t *links, const rabred_model_t *m)
{
    if (NULL == links) {
        return m;
    }
    const int32_t *node_of = links->nodes->node_of;
    for (int k = 0; k < rd->nxfer; k++) {
        if (node_of[plan->xfers[rd->first_xfer + k].peer] != node_of[links->rank]) {
            return m;
        }
    }
    return links->intra;
}

/* Does transfer x cross the link whose terms are m (with a node map: the
 * network when m is not the intra-node link)?  A rank sending over the
 * network while it receives over shared memory pays no duplex term: that
 * term is the network stack's work in both directions at once. */
static int on_link(const rabred_xfer_t *x, const links_t *links, const rabred_model_t *m)
{
    if (NULL == links) {
        return 1;
    }
    int remote = links->nodes->node_of[x->peer] != links->nodes->node_of[links->rank];
    return remote == (m != links->intra);
}

/* Is transfer x of round rd half of an exchange: does the round also move
 * data the other way with the same peer? */
static int is_exchange(const rabred_plan_t *plan, const rabred_round_t *rd,
                       const rabred_xfer_t *x)
{
    for (int i = 0; i < rd->nxfer; i++) {
        const rabred_xfer_t *y = &plan->xfers[rd->first_xfer + i];
        if (y->dir != x->dir && y->peer == x->peer) {
            return 1;
        }
    }
    return 0;
}

/* One round's duplex and repeat terms.  When the rank sends to a peer it
 * does not receive from while it receives from another, its largest such
 * send moves at 1 / duplex of its speed alone; an exchange with one peer
 * in a round that follows another (`later`) at 1 / repeat of a first
 * one's. */
static double round_pair_extra(const rabred_plan_t *plan, const rabred_round_t *rd, int later,
                               const rabred_model_t *m, const links_t *links)
{
    int64_t one_way = 0, exchanged = 0;
    int receives = 0;
    for (int k = 0; k < rd->nxfer; k++) {
        const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
        receives |= RABRED_XFER_RECV == x->dir && on_link(x, links, m);
    }
    for (int k = 0; k < rd->nxfer && receives; k++) {
        const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
        if (!on_link(x, links, m) || RABRED_XFER_SEND != x->dir) {
            continue;
        }
        if (is_exchange(plan, rd, x)) {
            exchanged = x->len > exchanged ? x->len : exchanged;
        } else {
            one_way = x->len > one_way ? x->len : one_way;
        }
    }
    return (m->duplex - 1) * (double)one_way * m->f_beta * m->beta +
           (later ? (m->repeat - 1) * (double)exchanged * m->beta : 0.0);
}

/* One round's eager term: its largest message up to eager_bytes moves at
 * beta_eager per byte instead of beta (a one-way one at f_beta of that). */
static double eager_extra(const rabred_plan_t *plan, const rabred_round_t *rd,
                          const rabred_model_t *m)
{
    double most = 0;
    for (int k = 0; k < rd->nxfer; k++) {
        const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
        double cost = (double)x->len * (is_exchange(plan, rd, x) ? 1.0 : m->f_beta);
        if ((double)x->len <= m->eager_bytes && cost > most) {
            most = cost;
        }
    }
    return most * (m->beta_eager - m->beta);
}

/* Partners d ranks apart (cyclically) are in distance class floor(lg d). */
static int distance_class(int rank, int peer, int p)
{
    int d = peer > rank ? peer - rank : rank - peer;
    d = d < p - d ? d : p - d;
    int k = 0;
    while (d > 1 && k + 1 < RABRED_DISTANCE_CLASSES) {
        d >>= 1;
        k++;
    }
    return k;
}

/* Is peer rank XOR 2^k?  Such a partner is in the pattern of the XOR
 * pairs (its route stays inside an aligned block of 2^(k+1) ranks), any
 * other in the pattern of the shifts (it crosses those blocks, or wraps
 * around the rank order). */
static int xor_partner(int rank, int peer)
{
    int d = rank ^ peer;
    return d > 0 && 0 == (d & (d - 1));
}

/* A pattern's entry for class k: the shifts' where the partner is not an
 * XOR partner and the shifts were measured, else the XOR pairs'. */
static double pattern_entry(const double *xor_list, const double *shift_list, int rank,
                            int peer, int k)
{
    return !xor_partner(rank, peer) && shift_list[k] > 0 ? shift_list[k] : xor_list[k];
}

/* One round's distance terms: what its slowest message adds at its
 * pattern's bandwidth over beta (a one-way one at f_beta of that), and in
 * *late its slowest message's latency over alpha (a one-way one at
 * f_alpha). */
static double distance_extra(const rabred_plan_t *plan, const rabred_round_t *rd,
                             const rabred_model_t *m, int rank, int p, double *late_out)
{
    double most = 0, latest = 0;
    for (int k = 0; k < rd->nxfer; k++) {
        const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
        int c = distance_class(rank, x->peer, p), exchange = is_exchange(plan, rd, x);
        double far = pattern_entry(m->distance_beta, m->shift_beta, rank, x->peer, c);
        double slower = far > m->beta ? far - m->beta : 0.0;
        double cost = (double)x->len * slower * (exchange ? 1.0 : m->f_beta);
        double lat = pattern_entry(m->distance_alpha, m->shift_alpha, rank, x->peer, c);
        double late = lat > m->alpha ? (lat - m->alpha) * (exchange ? 1.0 : m->f_alpha) : 0.0;
        most = cost > most ? cost : most;
        latest = late > latest ? late : latest;
    }
    *late_out = latest;
    return most;
}

int rabred_model_has_distance(const rabred_model_t *m)
{
    for (int k = 0; k < RABRED_DISTANCE_CLASSES; k++) {
        if (m->distance_beta[k] > m->beta || m->shift_beta[k] > m->beta ||
            m->distance_alpha[k] > m->alpha || m->shift_alpha[k] > m->alpha) {
            return 1;
        }
    }
    return 0;
}

void rabred_model_clear_distance(rabred_model_t *m)
{
    memset(m->distance_beta, 0, sizeof(m->distance_beta));
    memset(m->shift_beta, 0, sizeof(m->shift_beta));
    memset(m->distance_alpha, 0, sizeof(m->distance_alpha));
    memset(m->shift_alpha, 0, sizeof(m->shift_alpha));
}

/* Regions of one of the rank's buffers that a peer has read in this call
 * (sent above the eager limit: single-copy transports read the sender's
 * memory) and that the rank has not written since, as disjoint intervals;
 * past READ_MAX they merge into their hull (over-counting a little). */
#define READ_MAX 16
typedef struct {
    int64_t off[READ_MAX], end[READ_MAX];
    int n;
} read_regions_t;

static void read_add(read_regions_t *r, int64_t off, int64_t end)
{
    int k = 0;
    for (int i = 0; i < r->n; i++) { /* absorb what touches [off, end) */
        if (r->end[i] < off || r->off[i] > end) {
            r->off[k] = r->off[i];
            r->end[k++] = r->end[i];
        } else {
            off = r->off[i] < off ? r->off[i] : off;
            end = r->end[i] > end ? r->end[i] : end;
        }
    }
    if (k == READ_MAX) { /* full: one hull */
        for (int i = 0; i < k; i++) {
            off = r->off[i] < off ? r->off[i] : off;
            end = r->end[i] > end ? r->end[i] : end;
        }
        k = 0;
    }
    r->off[k] = off;
    r->end[k++] = end;
    r->n = k;
}

/* Bytes of [off, end) a peer has read; they are the rank's again. */
static int64_t read_take(read_regions_t *r, int64_t off, int64_t end)
{
    int64_t taken = 0;
    read_regions_t keep = {.n = 0};
    for (int i = 0; i < r->n; i++) {
        int64_t lo = r->off[i] > off ? r->off[i] : off, hi = r->end[i] < end ? r->end[i] : end;
        if (hi <= lo) {
            read_add(&keep, r->off[i], r->end[i]);
            continue;
        }
        taken += hi - lo;
        if (r->off[i] < lo) {
            read_add(&keep, r->off[i], lo);
        }
        if (hi < r->end[i]) {
            read_add(&keep, hi, r->end[i]);
        }
    }
    *r = keep;
    return taken;
}

/* The invalidation terms of one rank: every byte it reduces into that a
 * peer read earlier in the call at beta_inv, every such byte it receives
 * or copies over at beta_overwrite; either makes the bytes the rank's own
 * again.  A round's receives come before its sends count; its local steps
 * run after its messages completed. */
static double invalidate_extra(const rabred_plan_t *plan, const rabred_model_t *m)
{
    read_regions_t read[RABRED_NBUFS];
    int64_t reduced = 0, overwritten = 0;
    memset(read, 0, sizeof(read));
    for (int r = 0; r < plan->nrounds; r++) {
        const rabred_round_t *rd = &plan->rounds[r];
        for (int k = 0; k < rd->nxfer; k++) {
            const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
            if (RABRED_XFER_RECV == x->dir && x->buf < RABRED_NBUFS) {
                overwritten += read_take(&read[x->buf], x->off, x->off + x->len);
            }
        }
        for (int k = 0; k < rd->nxfer; k++) {
            const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
            if (RABRED_XFER_SEND == x->dir && x->buf < RABRED_NBUFS &&
                (double)x->len > m->eager_bytes) {
                read_add(&read[x->buf], x->off, x->off + x->len);
            }
        }
        for (int k = 0; k < rd->nlocal; k++) {
            const rabred_local_t *l = &plan->locals[rd->first_local + k];
            if (l->dst < RABRED_NBUFS) {
                int64_t taken = read_take(&read[l->dst], l->off, l->off + l->len);
                reduced += RABRED_LOCAL_REDUCE == l->kind ? taken : 0;
                overwritten += RABRED_LOCAL_REDUCE == l->kind ? 0 : taken;
            }
        }
    }
    return (double)reduced * m->beta_inv + (double)overwritten * m->beta_overwrite;
}

/* What each distinct peer costs: its link's peer term. */
static double peers_extra(const int *peers, int npeers, int overflow, const links_t *links,
                          const rabred_model_t *m)
{
    if (NULL == links) {
        return (npeers + overflow) * m->peer;
    }
    double t = overflow * m->peer;
    for (int i = 0; i < npeers; i++) {
        int remote = links->nodes->node_of[peers[i]] != links->nodes->node_of[links->rank];
        t += remote ? m->peer : links->intra->peer;
    }
    return t;
}

/* Does round rd send a message above `eager` bytes to one peer and
 * receive one above it from another (a ring step, Bruck's, a pipeline's)?
 * Its receive's handshake then waits behind the rank's own outgoing data
 * (rndv_cross).  Sends to several peers count as another peer for any
 * receive. */
static int crosses(const rabred_plan_t *plan, const rabred_round_t *rd, double eager)
{
    int to = -1; /* the peer of the large sends; -2: several */
    for (int k = 0; k < rd->nxfer; k++) {
        const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
        if (RABRED_XFER_SEND == x->dir && (double)x->len > eager) {
            to = to == -1 || to == x->peer ? x->peer : -2;
        }
    }
    for (int k = 0; k < rd->nxfer && to != -1; k++) {
        const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
        if (RABRED_XFER_RECV == x->dir && (double)x->len > eager && x->peer != to) {
            return 1;
        }
    }
    return 0;
}

/* One rank's structural terms (links: NULL, or the node map's two links);
 * the rank is `rank` of p. */
static double rank_extras(const rabred_plan_t *plan, const rabred_model_t *net,
                          const links_t *links, int rank, int p)
{
    int peers[64], npeers = 0, overflow = 0, moved = 0;
    int distance = NULL == links && rabred_model_has_distance(net);
    double t = 0, group_late = 0;
    for (int r = 0; r < plan->nrounds; r++) {
        const rabred_round_t *rd = &plan->rounds[r];
        /* a group of joined rounds is posted at once: its latencies
         * beyond alpha overlap, paid once (allreduce direct's p - 1
         * steps).  sync stays per round: it was measured on lock-step
         * rounds, and what a group posted at once pays is not */
        int in_group = r > 0 && rd->joined;
        int group_ends = r + 1 == plan->nrounds || !plan->rounds[r + 1].joined;
        const rabred_model_t *m = round_link(plan, rd, links, net);
        int big = 0, dirs = 0;
        for (int k = 0; k < rd->nxfer; k++) {
            const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
            big |= m->eager_bytes > 0 && (double)x->len > m->eager_bytes;
            dirs |= 1 << x->dir;
            int seen = 0;
            for (int i = 0; i < npeers && !seen; i++) {
                seen = peers[i] == x->peer;
            }
            if (!seen && npeers < 64) {
                peers[npeers++] = x->peer;
            } else if (!seen) {
                overflow++; /* more than 64 peers: counted, not remembered */
            }
        }
        /* a round that sends and receives pays two crossing handshakes */
        t += rd->nxfer > 0 ? m->sync + big * (3 == dirs ? m->rndv : m->rndv_oneway) : 0.0;
        if (big && 3 == dirs && m->rndv_cross > 0 && crosses(plan, rd, m->eager_bytes)) {
            t += m->rndv_cross;
        }
        if (m->duplex > 1 || m->repeat > 1) {
            t += round_pair_extra(plan, rd, moved, m, links);
        }
        if (m->beta_eager > m->beta && m->eager_bytes > 0) {
            t += eager_extra(plan, rd, m);
        }
        if (distance) {
            double late = 0;
            t += distance_extra(plan, rd, m, rank, p, &late);
            group_late = in_group && late < group_late ? group_late : late;
            t += group_ends ? group_late : 0.0;
        }
        moved |= rd->nxfer > 0;
    }
    /* a peer reads memory only inside a node (single-copy transports) */
    const rabred_model_t *mem = NULL != links ? links->intra : net;
    t += mem->beta_inv > 0 || mem->beta_overwrite > 0 ? invalidate_extra(plan, mem) : 0.0;
    for (int k = 0; k < plan->nlocals && net->copy > 0; k++) {
        t += RABRED_LOCAL_COPY == plan->locals[k].kind ? (double)plan->locals[k].len * net->copy
                                                        : 0.0;
    }
    return t + peers_extra(peers, npeers, overflow, links, net);
}

/* Per round: the bytes all sampled ranks send, and the longest time one
 * rank's own transfers take on its link: its sends one after the other
 * through its outgoing port, its receives through its incoming one (the
 * longer of the two), as the closed forms charge them: an exchange's at
 * beta and a one-way message's at f_beta beta, slowed by the duplex and
 * repeat terms where its round has them. */
typedef struct {
    double *total, *most;
    int nrounds;
} round_load_t;

/* Round rd on one rank's ports, in seconds (see round_load_t); its sends'
 * bytes in *sent. */
static double own_round_time(const rabred_plan_t *plan, const rabred_round_t *rd, int later,
                             const rabred_model_t *m, double *sent)
{
    double t[2] = {0, 0}; /* receives, sends */
    *sent = 0;
    for (int k = 0; k < rd->nxfer; k++) {
        const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + k];
        int out = RABRED_XFER_SEND == x->dir;
        *sent += out ? (double)x->len : 0.0;
        t[out] += (double)x->len * (is_exchange(plan, rd, x) ? m->beta : m->f_beta * m->beta);
    }
    double ports = t[0] > t[1] ? t[0] : t[1];
    return rd->nxfer > 0 ? ports + round_pair_extra(plan, rd, later, m, NULL) : 0.0;
}

static int add_round_load(round_load_t *load, const rabred_plan_t *plan,
                          const rabred_model_t *m)
{
    if (plan->nrounds > load->nrounds) {
        double *t = realloc(load->total, (size_t)plan->nrounds * sizeof(double));
        if (NULL == t) {
            return RABRED_ERR_NOMEM;
        }
        load->total = t;
        double *most = realloc(load->most, (size_t)plan->nrounds * sizeof(double));
        if (NULL == most) {
            return RABRED_ERR_NOMEM;
        }
        load->most = most;
        for (int r = load->nrounds; r < plan->nrounds; r++) {
            load->total[r] = load->most[r] = 0;
        }
        load->nrounds = plan->nrounds;
    }
    int moved = 0;
    for (int r = 0; r < plan->nrounds; r++) {
        const rabred_round_t *rd = &plan->rounds[r];
        double sent, own = own_round_time(plan, rd, moved, m, &sent);
        load->total[r] += sent;
        load->most[r] = own > load->most[r] ? own : load->most[r];
        moved |= rd->nxfer > 0;
    }
    return RABRED_OK;
}

/* What the aggregate limit adds: per round, the time all ranks' bytes take
 * at the aggregate bandwidth beyond what the slowest rank's own transfers
 * take on its link.  Rounds are matched by their index in each rank's
 * plan, which is where lock-step plans (halving and doubling, rings,
 * Bruck) move together; a tree whose parent takes its children one round
 * each is charged as if its senders' round were one.  A round takes the longer of the two, not their sum: the
 * duplex and repeat terms already charged to that rank's round are part
 * of its own time, so a machine whose duplex measurement already holds
 * the aggregate limit (all ranks busy) does not pay it twice. */
static int aggregate_extra(const rabred_alg_t *alg, const rabred_price_call_t *call,
                           const rabred_model_t *m, rabred_plan_t *plan, double *extra)
{
    int p = call->p, stride = (p + RABRED_AGGREGATE_RANKS - 1) / RABRED_AGGREGATE_RANKS;
    int sampled = 0, rc = RABRED_OK;
    round_load_t load = {NULL, NULL, 0};
    for (int rank = 0; rank < p && RABRED_OK == rc; rank += stride) {
        rabred_plan_args_t args = {p, rank, call->root, call->bytes, call->commutative,
                                   call->seg_bytes, NULL, 0, NULL};
        rc = rabred_plan_build(alg->build, &args, plan);
        if (RABRED_OK == rc) {
            rc = add_round_load(&load, plan, m);
            sampled++;
        }
    }
    *extra = 0;
    for (int r = 0; r < load.nrounds && RABRED_OK == rc; r++) {
        double all = load.total[r] * ((double)p / sampled) * m->aggregate;
        *extra += all > load.most[r] ? all - load.most[r] : 0.0;
    }
    free(load.total);
    free(load.most);
    return rc;
}

static int no_terms(const rabred_model_t *model)
{
    return 0 == model->sync && 0 == model->peer && 0 == model->rndv && 0 == model->rndv_oneway &&
           0 == model->rndv_cross &&
           0 == model->aggregate && !(model->beta_eager > model->beta) && 0 == model->beta_inv &&
           0 == model->beta_overwrite &&
           !(model->duplex > 1) && !(model->repeat > 1) && 0 == model->copy &&
           !rabred_model_has_distance(model);
}

int rabred_model_extras_of_rank(const rabred_alg_t *alg, const rabred_price_call_t *call,
                                const rabred_arrival_t *arrival, int rank,
                                const rabred_model_t *model, double *extra)
{
    *extra = 0;
    if (no_terms(model)) {
        return RABRED_OK;
    }
    rabred_plan_t plan;
    rabred_plan_init(&plan);
    rabred_plan_args_t args = {call->p, rank, call->root, call->bytes, call->commutative,
                               call->seg_bytes, arrival, 0, NULL};
    int rc = rabred_plan_build(alg->build, &args, &plan);
    if (RABRED_OK == rc) {
        *extra = rank_extras(&plan, model, NULL, rank, call->p);
    }
    rabred_plan_free(&plan);
    return RABRED_ERR_NOMEM == rc ? rc : RABRED_OK;
}

/* The extras of the ranks on the longest paths: 0, 1, p - 1 and the root
 * (with a node map also the first rank of the second node, where a node's
 * plan differs). */
static int extras_of(const rabred_alg_t *alg, const rabred_price_call_t *call,
                     const rabred_model_t *model, const rabred_nodes_t *nodes,
                     const rabred_model_t *intra, double *extra)
{
    *extra = 0;
    if (no_terms(model) && (NULL == intra || no_terms(intra))) {
        return RABRED_OK;
    }
    int p = call->p, ranks[5] = {0, 1, p - 1, call->root, -1};
    for (int r = 1; NULL != nodes && r < p && ranks[4] < 0; r++) {
        ranks[4] = nodes->node_of[r] != nodes->node_of[0] ? r : -1;
    }
    rabred_plan_t plan;
    rabred_plan_init(&plan);
    int rc = RABRED_OK;
    for (int i = 0; i < 5 && RABRED_OK == rc; i++) {
        if (ranks[i] < 0 || ranks[i] >= p || (i > 0 && ranks[i] == ranks[i - 1])) {
            continue;
        }
        rabred_plan_args_t args = {p, ranks[i], call->root, call->bytes, call->commutative,
                                   call->seg_bytes, NULL, 0, nodes};
        rc = rabred_plan_build(alg->build, &args, &plan);
        if (RABRED_OK == rc) {
            links_t links = {nodes, ranks[i], intra};
            double t = rank_extras(&plan, model, NULL != nodes ? &links : NULL, ranks[i], p);
            *extra = t > *extra ? t : *extra;
        }
    }
    if (RABRED_OK == rc && model->aggregate > 0 && NULL == nodes) {
        double agg = 0;
        rc = aggregate_extra(alg, call, model, &plan, &agg);
        *extra += agg;
    }
    rabred_plan_free(&plan);
    /* a builder's argument error is alike on every rank: no extras then */
    return RABRED_ERR_NOMEM == rc ? rc : RABRED_OK;
}


int rabred_model_extras(const rabred_alg_t *alg, const rabred_price_call_t *call,
                        const rabred_model_t *model, double *extra)
{
    return extras_of(alg, call, model, NULL, NULL, extra);
}

int rabred_model_extras_nodes(const rabred_alg_t *alg, const rabred_price_call_t *call,
                              const rabred_pricebook_t *book, double *extra)
{
    return extras_of(alg, call, &book->model, &book->nodes, &book->intra, extra);
}
