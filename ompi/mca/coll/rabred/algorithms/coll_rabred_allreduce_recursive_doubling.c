/*
 * allreduce: recursive doubling (Rabenseifner, ICCS 2004, sec. 2.4).
 *
 * Steps
 *  1. p not a power of two: fold to p' (rabred_toolkit.h): each extra sends
 *     its whole input to its proxy, which reduces it;
 *  2. lg p' steps: virtual ranks v and v ^ 2^s exchange their whole partial
 *     result and both reduce it, lower virtual rank's data first, so both
 *     hold the same bits;
 *  3. each proxy sends the result to its extra.
 * The first step sends the input as it is and no reduction copies: the
 * partial result moves between ACC and TMP (the rank whose data comes
 * first reduces into the vector it received) and is placed to end in ACC.
 * Copies: one, of the input, on a rank whose first partner's data comes
 * first, and one at the end in place when the partial ends in TMP.
 * Against copying the input into ACC before the first send and reducing
 * into ACC (a reduction whose partner's data comes second then reduces
 * into TMP and copies back), that takes one or two vector copies off each
 * call's path, and at p = 2 no rank reduces into what its peer has read:
 * over shared memory 0.97-1.02x coll/tuned's recursive doubling up to
 * 512 B, 0.63x at 4 KiB, 0.41-0.60x tuned's default from 16 to 256 KiB
 * (bench/results/shm-p2-far-20261128).
 *
 * Cost (alpha per message, beta per byte, gamma per reduced byte):
 *   p = p':  lg p (alpha + n beta + n gamma)
 *   else:    (lg p' + 2) alpha + (lg p' + 2) n beta + (lg p' + 1) n gamma
 *   (the fold and unfold are one-way messages: alpha_uni + n beta_uni each)
 *
 * Limitations: none; exact rank order, so non-commutative ops are fine.
 * Best for short vectors: every step moves the whole vector.
 *
 * Memory per process: TMP of count elements, on ranks that receive into
 * it (ACC is the receive buffer).
 */
#include "plan/rabred_phases.h"
#include "algorithms/rabred_table.h"

/* Where this rank's partial result lives while the rounds run: INPUT
 * until the first reduction (the caller's buffer, never written), then ACC
 * or TMP.  Reducing never copies: ompi_op_reduce computes
 * `dst = src (op) dst` in place, so the rank whose data comes first
 * reduces into the buffer that holds its partner's (the partial moves
 * there) and the other into its own.  Both partners thus compute
 * lower (op) upper from the same operands: the same bits. */
typedef struct {
    rabred_buf_t cur;
} partial_t;

static rabred_buf_t other(rabred_buf_t b)
{
    return RABRED_BUF_ACC == b ? RABRED_BUF_TMP : RABRED_BUF_ACC;
}

/* The writable buffer the partial should move to now so that, after
 * `moves_after` more moves between ACC and TMP, it ends in ACC. */
static rabred_buf_t landing(int moves_after)
{
    return 0 == moves_after % 2 ? RABRED_BUF_ACC : RABRED_BUF_TMP;
}

/* One round's reduction of peer's vector into the partial.  The peer's
 * data first (peer_first): into the partial's buffer, which must be
 * writable, so a partial still in INPUT is first copied out of it (after
 * the round's send of INPUT was posted).  Else into the receive buffer,
 * where the partial moves.  moves_after: the moves of the later rounds. */
static void absorb(rabred_plan_t *plan, partial_t *part, int peer, int peer_first,
                   int moves_after, int64_t count)
{
    rabred_buf_t into;
    if (!peer_first) {
        into = RABRED_BUF_INPUT == part->cur ? landing(moves_after) : other(part->cur);
        rabred_plan_recv(plan, peer, into, 0, count);
        rabred_plan_reduce_replicated(plan, part->cur, into, 0, count, 1);
        part->cur = into;
        return;
    }
    if (RABRED_BUF_INPUT == part->cur) {
        rabred_buf_t mine = landing(moves_after);
        rabred_plan_recv(plan, peer, other(mine), 0, count);
        rabred_plan_copy(plan, RABRED_BUF_INPUT, mine, 0, count);
        part->cur = mine;
    } else {
        rabred_plan_recv(plan, peer, other(part->cur), 0, count);
    }
    rabred_plan_reduce_replicated(plan, other(part->cur), part->cur, 0, count, 1);
}

/* This rank's partners in order (the fold's partner, then one per
 * exchange step), whether each one's data comes first, and how many of
 * them this rank absorbs into its receive buffer (the partial's moves). */
typedef struct {
    int n;
    int peer[32]; /* p < 2^31: the fold and at most 30 exchanges */
    int peer_first[32];
} partners_t;

static void list_partners(const rabred_fold_t *fold, partners_t *pl)
{
    pl->n = 0;
    if (RABRED_NODE_PROXY == fold->kind) {
        pl->peer[pl->n] = fold->partner;
        pl->peer_first[pl->n++] = fold->partner < fold->rank;
    }
    for (int s = 0; RABRED_NODE_EXTRA != fold->kind && s < fold->lg_pof2; s++) {
        int peer_v = fold->vrank ^ (1 << s);
        pl->peer[pl->n] = rabred_fold_real_rank(fold, peer_v);
        pl->peer_first[pl->n++] = peer_v < fold->vrank;
    }
}

static int moves_after(const partners_t *pl, int i)
{
    int moves = 0;
    for (int j = i + 1; j < pl->n; j++) {
        moves += !pl->peer_first[j];
    }
    return moves;
}

static int build(const rabred_plan_args_t *a, rabred_plan_t *plan)
{
    rabred_fold_t fold;
    rabred_fold_init(&fold, a->p, a->rank, -1);
    partners_t pl;
    list_partners(&fold, &pl);
    partial_t part = {a->in_place ? RABRED_BUF_ACC : RABRED_BUF_INPUT};

    if (RABRED_NODE_EXTRA == fold.kind) { /* its vector to the proxy, as it is */
        rabred_plan_round(plan);
        rabred_plan_send(plan, fold.partner, part.cur, 0, a->count);
    }
    for (int i = 0; i < pl.n; i++) {
        rabred_plan_round(plan);
        if (i > 0 || RABRED_NODE_PROXY != fold.kind) { /* the fold's step only receives */
            rabred_plan_send(plan, pl.peer[i], part.cur, 0, a->count);
        }
        absorb(plan, &part, pl.peer[i], pl.peer_first[i], moves_after(&pl, i), a->count);
    }
    if (RABRED_NODE_EXTRA != fold.kind && RABRED_BUF_ACC != part.cur) {
        rabred_plan_round(plan); /* p = 1, or in place with an odd number of moves */
        rabred_plan_copy(plan, part.cur, RABRED_BUF_ACC, 0, a->count);
    }
    rabred_phase_unfold(plan, &fold, a->count);
    return plan->error;
}

/* Every step moves and reduces the whole vector on every rank at once, so
 * the path is the same for all: the fold (the extra's one-way vector, then
 * the proxy's reduction) holds up the proxies' partners at step 0, lg p'
 * exchanges each followed by a reduction, and the one-way unfold.  Nothing
 * is sent when n = 0. */
static double price(const rabred_price_call_t *c, const rabred_model_t *m)
{
    double n = (double)c->bytes, lg = rabred_log2_floor(c->p), fold = 0.0;
    if (0 == c->bytes) {
        return 0.0;
    }
    if (rabred_pof2_floor(c->p) != c->p) {
        fold = 2 * rabred_price_one_way(m, n) + n * m->gamma;
    }
    return fold + lg * (rabred_price_exchange(m, n) + n * m->gamma);
}

const rabred_alg_t rabred_alg_allreduce_recursive_doubling = {
    .coll = RABRED_COLL_ALLREDUCE,
    .id = 1,
    .name = "recursive_doubling",
    .build = build,
    .description = "recursive doubling: full vectors exchanged at distance 1, 2, 4...; fold to p' "
                   "for other p (Rabenseifner 2004 sec. 2.4); best for short vectors",
    .formula = "(lg p' + 2[p != p']) alpha + (lg p' + 2[p != p']) n beta + (lg p' + [p != p']) "
               "n gamma",
    .tuned_ids = {3},
    .price = price,
};
