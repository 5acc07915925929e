/*
 * Plan phases shared by several algorithms (see rabred_phases.h).
 */
#include "plan/rabred_phases.h"

#include <stdlib.h>

void rabred_phase_copy_in(rabred_plan_t *plan, int64_t count)
{
    rabred_plan_round(plan);
    rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, count);
}

void rabred_phase_fold_full(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count)
{
    rabred_plan_round(plan);
    if (RABRED_NODE_EXTRA == fold->kind) {
        rabred_plan_send(plan, fold->partner, RABRED_BUF_ACC, 0, count);
    } else if (RABRED_NODE_PROXY == fold->kind) {
        rabred_plan_recv(plan, fold->partner, RABRED_BUF_TMP, 0, count);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, count,
                           fold->partner < fold->rank);
    }
}

void rabred_phase_fold_halves(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count)
{
    if (RABRED_NODE_BASE == fold->kind) {
        return;
    }
    /* the even rank of a pair reduces the lower half, the odd one the upper */
    int64_t half = count / 2;
    int is_even = 0 == (fold->rank & 1);
    int64_t keep_off = is_even ? 0 : half, keep_len = is_even ? half : count - half;
    int64_t give_off = is_even ? half : 0, give_len = count - keep_len;

    rabred_plan_round(plan);
    rabred_plan_send(plan, fold->partner, RABRED_BUF_ACC, give_off, give_len);
    rabred_plan_recv(plan, fold->partner, RABRED_BUF_TMP, keep_off, keep_len);
    rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, keep_off, keep_len, !is_even);

    rabred_plan_round(plan);
    if (RABRED_NODE_EXTRA == fold->kind) {
        rabred_plan_send(plan, fold->partner, RABRED_BUF_ACC, keep_off, keep_len);
    } else {
        rabred_plan_recv(plan, fold->partner, RABRED_BUF_ACC, give_off, give_len);
    }
}

void rabred_phase_unfold(rabred_plan_t *plan, const rabred_fold_t *fold, int64_t count)
{
    if (RABRED_NODE_BASE == fold->kind) {
        return;
    }
    rabred_plan_round(plan);
    if (RABRED_NODE_PROXY == fold->kind) {
        rabred_plan_send(plan, fold->partner, RABRED_BUF_ACC, 0, count);
    } else {
        rabred_plan_recv(plan, fold->partner, RABRED_BUF_ACC, 0, count);
    }
}

rabred_team_t rabred_team_of_fold(const rabred_fold_t *fold)
{
    rabred_team_t team = {fold, 0, fold->pof2, fold->vrank, fold->pof2, -1, -1};
    return team;
}

int rabred_team_real(const rabred_team_t *team, int member)
{
    if (member == team->subst_member) {
        return team->subst_rank;
    }
    return team->fold ? rabred_fold_real_rank(team->fold, member) : team->base + member;
}

static rabred_window_t on_grid(const rabred_team_t *team, rabred_window_t w)
{
    int scale = team->grid / team->size;
    rabred_window_t g = {w.first * scale, w.nblocks * scale};
    return g;
}

int64_t rabred_team_offset(const rabred_team_t *team, int64_t count, rabred_window_t w)
{
    return rabred_window_offset(count, team->grid, on_grid(team, w));
}

int64_t rabred_team_length(const rabred_team_t *team, int64_t count, rabred_window_t w)
{
    return rabred_window_length(count, team->grid, on_grid(team, w));
}

/* Steps first..steps-1 of the halving: each sends the window it gives
 * from ACC, receives the one it keeps into TMP and reduces it into ACC. */
static void halving_steps(rabred_plan_t *plan, const rabred_team_t *team,
                          const rabred_halving_t *h, int64_t count, int first)
{
    for (int s = first; s < h->steps; s++) {
        int peer_m = team->me ^ (1 << s);
        int peer = rabred_team_real(team, peer_m);
        int64_t keep_off = rabred_team_offset(team, count, h->after[s]);
        int64_t keep_len = rabred_team_length(team, count, h->after[s]);
        rabred_plan_round(plan);
        rabred_plan_send(plan, peer, RABRED_BUF_ACC, rabred_team_offset(team, count, h->given[s]),
                         rabred_team_length(team, count, h->given[s]));
        rabred_plan_recv(plan, peer, RABRED_BUF_TMP, keep_off, keep_len);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, keep_off, keep_len,
                           peer_m < team->me);
    }
}

void rabred_phase_reduce_scatter(rabred_plan_t *plan, const rabred_team_t *team,
                                 const rabred_halving_t *h, int64_t count)
{
    halving_steps(plan, team, h, count, 0);
}

/* May this rank start the halving from INPUT (no copy first)?  Not in
 * place (INPUT is ACC), not in a fold's pair (its ACC holds the pair's
 * half), and a team of two or more. */
static int input_direct(const rabred_plan_args_t *a, const rabred_fold_t *fold)
{
    return !a->in_place && RABRED_NODE_BASE == fold->kind && fold->pof2 > 1;
}

/* The first step from INPUT.  The rank whose data goes first (or any rank
 * when the op commutes: the executor then reduces in the cheaper order)
 * receives its peer's half straight into ACC and reduces its own input
 * into it; under a non-commutative op the other rank must put its own
 * input behind the peer's, and ompi_op_reduce only computes src (op) dst
 * in place, so it receives into TMP, copies its kept half of the input
 * into ACC and reduces TMP into that: half the copy the start with a copy
 * of the whole input pays. */
static void reduce_scatter_input(rabred_plan_t *plan, const rabred_team_t *team,
                                 const rabred_halving_t *h, int64_t count, int commutative)
{
    int peer_m = team->me ^ 1, mine_first = team->me < peer_m;
    int peer = rabred_team_real(team, peer_m);
    int64_t keep_off = rabred_team_offset(team, count, h->after[0]);
    int64_t keep_len = rabred_team_length(team, count, h->after[0]);
    rabred_plan_round(plan);
    rabred_plan_send(plan, peer, RABRED_BUF_INPUT, rabred_team_offset(team, count, h->given[0]),
                     rabred_team_length(team, count, h->given[0]));
    if (mine_first || commutative) {
        rabred_plan_recv(plan, peer, RABRED_BUF_ACC, keep_off, keep_len);
        rabred_plan_reduce(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, keep_off, keep_len,
                           mine_first);
    } else {
        rabred_plan_recv(plan, peer, RABRED_BUF_TMP, keep_off, keep_len);
        rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, keep_off, keep_len);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, keep_off, keep_len, 1);
    }
    halving_steps(plan, team, h, count, 1);
}

int rabred_phase_fold_reduce_scatter(rabred_plan_t *plan, const rabred_plan_args_t *a,
                                     const rabred_fold_t *fold, rabred_team_t *team,
                                     rabred_halving_t *h)
{
    int direct = input_direct(a, fold);
    if (!direct) {
        rabred_phase_copy_in(plan, a->count);
    }
    rabred_phase_fold_halves(plan, fold, a->count);
    if (RABRED_NODE_EXTRA == fold->kind) {
        return 0;
    }
    *team = rabred_team_of_fold(fold);
    rabred_halving_init(h, fold->pof2, fold->vrank);
    if (direct) {
        reduce_scatter_input(plan, team, h, a->count, a->commutative);
    } else {
        rabred_phase_reduce_scatter(plan, team, h, a->count);
    }
    return 1;
}

void rabred_phase_allgather(rabred_plan_t *plan, const rabred_team_t *team,
                            const rabred_halving_t *h, int64_t count)
{
    for (int s = h->steps - 1; s >= 0; s--) {
        int peer = rabred_team_real(team, team->me ^ (1 << s));
        rabred_plan_round(plan);
        rabred_plan_send(plan, peer, RABRED_BUF_ACC, rabred_team_offset(team, count, h->after[s]),
                         rabred_team_length(team, count, h->after[s]));
        rabred_plan_recv(plan, peer, RABRED_BUF_ACC, rabred_team_offset(team, count, h->given[s]),
                         rabred_team_length(team, count, h->given[s]));
    }
}

void rabred_phase_gather(rabred_plan_t *plan, const rabred_team_t *team,
                         const rabred_halving_t *h, int64_t count, int root_member)
{
    for (int s = h->steps - 1; s >= 0; s--) {
        int bit = 1 << s;
        int peer = rabred_team_real(team, team->me ^ bit);
        rabred_plan_round(plan);
        if ((team->me & bit) == (root_member & bit)) {
            rabred_plan_recv(plan, peer, RABRED_BUF_ACC,
                             rabred_team_offset(team, count, h->given[s]),
                             rabred_team_length(team, count, h->given[s]));
        } else {
            rabred_plan_send(plan, peer, RABRED_BUF_ACC,
                             rabred_team_offset(team, count, h->after[s]),
                             rabred_team_length(team, count, h->after[s]));
            return; /* this rank's blocks are with the root's side now */
        }
    }
}

void rabred_phase_pairwise_reduce_scatter(rabred_plan_t *plan, int p, int rank, int64_t count)
{
    int64_t mine_off = rabred_block_offset(count, p, rank);
    int64_t mine_len = rabred_block_length(count, p, rank);
    for (int i = 1; i < p; i++) {
        int to = (rank + i) % p, from = (rank - i + p) % p;
        rabred_plan_round(plan);
        rabred_plan_send(plan, to, RABRED_BUF_ACC, rabred_block_offset(count, p, to),
                         rabred_block_length(count, p, to));
        rabred_plan_recv(plan, from, RABRED_BUF_TMP, mine_off, mine_len);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, mine_off, mine_len, 1);
    }
}

void rabred_phase_ordered_reduce_scatter(rabred_plan_t *plan, int p, int rank, int64_t count)
{
    int64_t mine_off = rabred_block_offset(count, p, rank);
    int64_t mine_len = rabred_block_length(count, p, rank);
    for (int s = 1; s < p; s++) {
        rabred_plan_round(plan);
        if (rank + s < p) {
            int to = rank + s;
            rabred_plan_send(plan, to, RABRED_BUF_ACC, rabred_block_offset(count, p, to),
                             rabred_block_length(count, p, to));
        }
        for (int below = 0; s == rank && below < rank; below++) {
            rabred_plan_send(plan, below, RABRED_BUF_ACC, rabred_block_offset(count, p, below),
                             rabred_block_length(count, p, below));
        }
        int from = s <= rank ? rank - s : s;
        rabred_plan_recv(plan, from, RABRED_BUF_TMP, mine_off, mine_len);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, mine_off, mine_len, from < rank);
    }
}

void rabred_phase_bcast(rabred_plan_t *plan, int p, int rank, int64_t count)
{
    for (int dist = 1; dist < p; dist *= 2) {
        int sends = rank < dist && rank + dist < p, receives = rank >= dist && rank < 2 * dist;
        if (sends || receives) {
            rabred_plan_round(plan);
        }
        if (sends) {
            rabred_plan_send(plan, rank + dist, RABRED_BUF_ACC, 0, count);
        }
        if (receives) {
            rabred_plan_recv(plan, rank - dist, RABRED_BUF_ACC, 0, count);
        }
    }
}

void rabred_phase_ring_allgather(rabred_plan_t *plan, int p, int rank, int64_t count)
{
    for (int i = 0; i + 1 < p; i++) {
        int out = (rank - i + p) % p, in = (rank - i - 1 + p) % p;
        rabred_plan_round(plan);
        rabred_plan_send(plan, (rank + 1) % p, RABRED_BUF_ACC, rabred_block_offset(count, p, out),
                         rabred_block_length(count, p, out));
        rabred_plan_recv(plan, (rank - 1 + p) % p, RABRED_BUF_ACC,
                         rabred_block_offset(count, p, in), rabred_block_length(count, p, in));
    }
}

/* Direct reduce-scatter's receive slots.  Rank r reduces block r in rank
 * order: its own part, then the lower ranks in front from r-1 down to 0,
 * then the higher ones behind from r+1 up.  So peer j is r's
 * position-th operand, position = r - j below r and j above (1..p-1), and
 * its block lands in slot position - 1: slots of the block's length, in
 * TMP while they fit, then in TMP2. */
typedef struct {
    int64_t len; /* the receiver's block */
    int64_t per; /* slots of len in one temporary */
} direct_slots_t;

static direct_slots_t direct_slots(int64_t count, int p, int receiver)
{
    direct_slots_t d = {rabred_block_length(count, p, receiver), 0};
    d.per = d.len > 0 ? count / d.len : 0;
    return d;
}

static void direct_slot(direct_slots_t d, int position, rabred_buf_t *buf, int64_t *off)
{
    int64_t slot = position - 1;
    *buf = slot < d.per ? RABRED_BUF_TMP : RABRED_BUF_TMP2;
    *off = (slot < d.per ? slot : slot - d.per) * d.len;
}

int rabred_phase_direct_fits(int p, int64_t count)
{
    direct_slots_t d = direct_slots(count, p, 0); /* the largest block: the fewest slots */
    return p < 2 || 0 == d.len || 2 * d.per >= p - 1;
}

/* Step k of p - 1 (each a round joined to the one before, so all are
 * posted at once): block rank + k of INPUT to its owner, block rank from
 * rank - k into its slot.  One message per port per step, every rank's
 * k-th a shift: that is how the simulator, which runs a group round by
 * round, times the ports taking turns. */
static void direct_step(rabred_plan_t *plan, int p, int rank, int64_t count, int k)
{
    int to = (rank + k) % p, from = (rank - k + p) % p;
    direct_slots_t me = direct_slots(count, p, rank);
    rabred_buf_t buf;
    int64_t off;
    direct_slot(me, from < rank ? rank - from : from, &buf, &off);
    rabred_plan_send(plan, to, RABRED_BUF_INPUT, rabred_block_offset(count, p, to),
                     rabred_block_length(count, p, to));
    rabred_plan_recv(plan, from, buf, off, me.len);
}

void rabred_phase_direct_reduce_scatter(rabred_plan_t *plan, int p, int rank, int64_t count)
{
    if (!rabred_phase_direct_fits(p, count)) {
        rabred_phase_copy_in(plan, count);
        rabred_phase_ordered_reduce_scatter(plan, p, rank, count);
        return;
    }
    direct_slots_t me = direct_slots(count, p, rank);
    int64_t mine = rabred_block_offset(count, p, rank);
    rabred_plan_round(plan);
    rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, mine, me.len);
    for (int k = 1; k < p; k++) {
        if (k > 1) {
            rabred_plan_round_joined(plan);
        }
        direct_step(plan, p, rank, count, k);
    }
    /* the group's reductions, after all of it, in rank order */
    for (int position = 1; position < p; position++) {
        rabred_buf_t buf;
        int64_t off;
        direct_slot(me, position, &buf, &off);
        rabred_plan_reduce_from(plan, buf, off, RABRED_BUF_ACC, mine, me.len, position <= rank);
    }
}

void rabred_phase_direct_allgather(rabred_plan_t *plan, int p, int rank, int64_t count)
{
    int64_t mine = rabred_block_offset(count, p, rank), len = rabred_block_length(count, p, rank);
    for (int k = 1; k < p; k++) {
        int from = (rank - k + p) % p;
        if (1 == k) {
            rabred_plan_round(plan);
        } else {
            rabred_plan_round_joined(plan);
        }
        rabred_plan_send(plan, (rank + k) % p, RABRED_BUF_ACC, mine, len);
        rabred_plan_recv(plan, from, RABRED_BUF_ACC, rabred_block_offset(count, p, from),
                         rabred_block_length(count, p, from));
    }
}

/* Rank 0 takes a group of p - 1 joined rounds, round k receiving from
 * rank k; every other rank one round with its one message.  So all of
 * them are in flight at once, and a receiver's ports see one message per
 * step, as in the direct phases above. */
static void direct_fan_step(rabred_plan_t *plan, int rank, int k)
{
    if (0 == rank && k > 1) {
        rabred_plan_round_joined(plan);
    } else if (0 == rank || rank == k) {
        rabred_plan_round(plan);
    }
}

void rabred_phase_direct_gather(rabred_plan_t *plan, int p, int rank, int64_t count)
{
    for (int k = 1; k < p; k++) {
        if (0 != rank && rank != k) {
            continue;
        }
        direct_fan_step(plan, rank, k);
        int64_t off = rabred_block_offset(count, p, k), len = rabred_block_length(count, p, k);
        if (0 == rank) {
            rabred_plan_recv(plan, k, RABRED_BUF_ACC, off, len);
        } else {
            rabred_plan_send(plan, 0, RABRED_BUF_ACC, off, len);
        }
    }
}

void rabred_phase_direct_bcast(rabred_plan_t *plan, int p, int rank, int64_t count)
{
    for (int k = 1; k < p; k++) {
        if (0 != rank && rank != k) {
            continue;
        }
        direct_fan_step(plan, rank, k);
        if (0 == rank) {
            rabred_plan_send(plan, k, RABRED_BUF_ACC, 0, count);
        } else {
            rabred_plan_recv(plan, 0, RABRED_BUF_ACC, 0, count);
        }
    }
}

void rabred_phase_linear_reduce(rabred_plan_t *plan, int p, int rank, int root, int64_t count)
{
    rabred_plan_round(plan);
    if (rank != root) {
        rabred_plan_send(plan, root, RABRED_BUF_INPUT, 0, count);
        return;
    }
    rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, count);
    /* lower ranks from root-1 down go in front, higher ranks behind */
    for (int k = root - 1; k >= 0; k--) {
        rabred_plan_round(plan);
        rabred_plan_recv(plan, k, RABRED_BUF_TMP, 0, count);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, count, 1);
    }
    for (int k = root + 1; k < p; k++) {
        rabred_plan_round(plan);
        rabred_plan_recv(plan, k, RABRED_BUF_TMP, 0, count);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, count, 0);
    }
}

void rabred_phase_blocks_start(rabred_plan_t *plan, const rabred_plan_args_t *a,
                               rabred_blocks_t *b, rabred_team_t *team, rabred_halving_t *h)
{
    rabred_blocks_init(b, a->p, a->rank);
    *team = rabred_team_of_block(b);
    rabred_halving_init(h, team->size, team->me);
    rabred_phase_copy_in(plan, a->count);
    rabred_phase_blocks_reduce_up(plan, b, h, a->count);
}

void rabred_phase_tree_reduce(rabred_plan_t *plan, int p, int rank, int tree_root,
                              int64_t count)
{
    int t = (rank - tree_root + p) % p;
    rabred_bintree_t node;
    rabred_bintree_init(&node, p, t);
    rabred_buf_t mine = RABRED_BUF_INPUT;
    if (node.child[0] >= 0 || node.parent < 0) {
        rabred_plan_round(plan);
        rabred_plan_copy(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, 0, count);
        mine = RABRED_BUF_ACC;
    }
    for (int c = 0; c < 2; c++) {
        if (node.child[c] >= 0) {
            rabred_plan_round(plan);
            rabred_plan_recv(plan, (node.child[c] + tree_root) % p, RABRED_BUF_TMP, 0, count);
            rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, 0, count, 0);
        }
    }
    if (node.parent >= 0) {
        rabred_plan_round(plan);
        rabred_plan_send(plan, (node.parent + tree_root) % p, mine, 0, count);
    }
}

rabred_team_t rabred_team_of_block(const rabred_blocks_t *b)
{
    rabred_team_t team = {NULL, b->base[b->block], b->size[b->block], b->member, b->size[0],
                          -1, -1};
    return team;
}

/* Element range of grid window {first, nblocks} on block 0's grid. */
static void grid_range(const rabred_blocks_t *b, int64_t count, int first, int nblocks,
                       int64_t *off, int64_t *len)
{
    rabred_window_t w = {first, nblocks};
    *off = rabred_window_offset(count, b->size[0], w);
    *len = rabred_window_length(count, b->size[0], w);
}

void rabred_blocks_window(const rabred_blocks_t *b, int64_t count, int blk, int member,
                          int64_t *off, int64_t *len)
{
    grid_range(b, count, rabred_blocks_first(b, blk, member), b->size[0] / b->size[blk], off,
               len);
}

void rabred_phase_blocks_reduce_up(rabred_plan_t *plan, const rabred_blocks_t *b,
                                   const rabred_halving_t *h, int64_t count)
{
    rabred_team_t team = rabred_team_of_block(b);
    int blk = b->block, first = rabred_blocks_first(b, blk, b->member);
    int span = b->size[0] / b->size[blk];
    int64_t off, len;
    grid_range(b, count, first, span, &off, &len);

    rabred_phase_reduce_scatter(plan, &team, h, count);
    if (blk + 1 < b->count) { /* the next smaller block's part of my window */
        int from = b->base[blk + 1] + rabred_blocks_owner(b, blk + 1, first);
        rabred_plan_round(plan);
        rabred_plan_recv(plan, from, RABRED_BUF_TMP, off, len);
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, off, len, 0);
    }
    if (blk > 0) { /* hand my window up, cut to the larger block's windows */
        int up_span = b->size[0] / b->size[blk - 1];
        rabred_plan_round(plan);
        for (int g = first; g < first + span; g += up_span) {
            grid_range(b, count, g, up_span, &off, &len);
            rabred_plan_send(plan, b->base[blk - 1] + rabred_blocks_owner(b, blk - 1, g),
                             RABRED_BUF_ACC, off, len);
        }
    }
}

/* What position pos moves at one step of the segment chains: the segment
 * it sends to pos+1 (incoming 0) or receives from pos-1 (incoming 1).
 * Segment j's hop h runs at step start[j] - j + h, h = 0 .. 2 (p-1) - 1;
 * len is 0 when the segment has no hop at this step or is empty. */
typedef struct {
    int seg;
    int64_t off, len;
    int reduces; /* a partial sum (hop < p-1) to add, not a result to keep */
    int first;   /* hop 0: the chain's first rank sends its own input */
} chain_move_t;

static chain_move_t chain_move(int p, const int *start, int64_t count, int pos, int step,
                               int incoming)
{
    chain_move_t m;
    m.seg = (((pos - incoming - step) % p) + p) % p;
    int hop = step - (start[m.seg] - m.seg);
    int active = hop >= 0 && hop <= 2 * p - 3;
    m.off = rabred_block_offset(count, p, m.seg);
    m.len = active ? rabred_block_length(count, p, m.seg) : 0;
    m.reduces = active && hop < p - 1;
    m.first = active && 0 == hop;
    return m;
}

/* The steps of the chains: from the earliest start to the last hop. */
static void chain_steps(int p, const int *start, int *first, int *last)
{
    *first = *last = start[0];
    for (int j = 1; j < p; j++) {
        *first = start[j] - j < *first ? start[j] - j : *first;
        *last = start[j] - j > *last ? start[j] - j : *last;
    }
    *last += 2 * p - 3;
}

/* One step of position pos: one round, unless nothing moves. */
/* One step of the chains.  from_input: ACC holds nothing of the rank's
 * input; a chain's first rank sends its segment from INPUT, and a partial
 * is received into ACC and the rank's own segment reduced into it (each
 * rank adds its part to a segment once). */
static void chain_step(rabred_plan_t *plan, int p, const int *ring, int pos, const int *start,
                       int64_t count, int step, int from_input)
{
    chain_move_t out = chain_move(p, start, count, pos, step, 0);
    chain_move_t in = chain_move(p, start, count, pos, step, 1);
    if (0 == out.len && 0 == in.len) {
        return;
    }
    int left = ring[(pos - 1 + p) % p];
    rabred_plan_round(plan);
    rabred_plan_send(plan, ring[(pos + 1) % p],
                     from_input && out.first ? RABRED_BUF_INPUT : RABRED_BUF_ACC, out.off,
                     out.len);
    if (in.reduces && from_input) {
        rabred_plan_recv(plan, left, RABRED_BUF_ACC, in.off, in.len);
        rabred_plan_reduce(plan, RABRED_BUF_INPUT, RABRED_BUF_ACC, in.off, in.len, 0);
    } else if (in.reduces) {
        rabred_plan_recv(plan, left, RABRED_BUF_TMP, in.off, in.len);
        /* commutative only: the order within a chain is the ring's */
        rabred_plan_reduce(plan, RABRED_BUF_TMP, RABRED_BUF_ACC, in.off, in.len, 1);
    } else {
        rabred_plan_recv(plan, left, RABRED_BUF_ACC, in.off, in.len); /* the result */
    }
}

void rabred_phase_segment_chains(rabred_plan_t *plan, int p, const int *ring, int rank,
                                 const int *start, int64_t count, int from_input)
{
    int pos = 0, first, last;
    while (pos < p - 1 && ring[pos] != rank) {
        pos++;
    }
    from_input = from_input && p > 1;
    if (!from_input) {
        rabred_phase_copy_in(plan, count);
    }
    chain_steps(p, start, &first, &last);
    for (int step = first; p > 1 && step <= last; step++) {
        chain_step(plan, p, ring, pos, start, count, step, from_input);
    }
}

/* One position's clocks in rabred_chains_mean_elapsed, following the
 * simulator's rules for its plan. */
typedef struct {
    double post;    /* when its next round may be posted (the last round's end) */
    double cpu;     /* when its CPU is free (the last reduction's end) */
    double out_end; /* when this step's send ends */
    int reduced;    /* the segment the last round reduced, or -1 */
} chain_clock_t;

/* A round whose transfers touch the segment the previous round reduced
 * waits for that reduction (rabred_plan_can_post_early). */
static void clock_post(chain_clock_t *c, const chain_move_t *out, const chain_move_t *in)
{
    if (c->reduced >= 0 && ((out->len > 0 && out->seg == c->reduced) ||
                            (in->len > 0 && in->seg == c->reduced))) {
        c->post = c->cpu;
    }
}

/* The round's messages are done (its send at c->out_end, its receive at
 * in_end): then it reduces what it received if that is a partial sum. */
static void clock_finish(chain_clock_t *c, double in_end, const chain_move_t *out,
                         const chain_move_t *in, double gamma)
{
    double done = out->len > 0 ? c->out_end : 0.0;
    done = in->len > 0 && in_end > done ? in_end : done;
    double t = done > c->cpu ? done : c->cpu;
    c->cpu = t + (in->reduces ? (double)in->len * gamma : 0.0);
    c->post = t;
    c->reduced = in->reduces ? in->seg : -1;
}

/* One step for every position: post, run the messages, finish. */
static void clock_step(chain_clock_t *clk, int p, const int *start, int64_t count, int step,
                       const double model[3])
{
    for (int q = 0; q < p; q++) {
        chain_move_t out = chain_move(p, start, count, q, step, 0);
        chain_move_t in = chain_move(p, start, count, q, step, 1);
        clock_post(&clk[q], &out, &in);
    }
    for (int q = 0; q < p; q++) { /* q -> q+1 starts when both ends have posted it */
        chain_move_t out = chain_move(p, start, count, q, step, 0);
        const chain_clock_t *right = &clk[(q + 1) % p];
        double t = clk[q].post > right->post ? clk[q].post : right->post;
        clk[q].out_end = t + model[0] + (double)out.len * model[1];
    }
    for (int q = 0; q < p; q++) {
        chain_move_t out = chain_move(p, start, count, q, step, 0);
        chain_move_t in = chain_move(p, start, count, q, step, 1);
        if (out.len > 0 || in.len > 0) {
            clock_finish(&clk[q], clk[(q - 1 + p) % p].out_end, &out, &in, model[2]);
        }
    }
}

double rabred_chains_mean_elapsed(int p, const int *ring, const int *start, int64_t count,
                                  const rabred_arrival_t *arr)
{
    chain_clock_t *clk = malloc((size_t)p * sizeof(*clk));
    if (NULL == clk) {
        return -1.0;
    }
    double model[3] = {rabred_arrival_clean(arr->alpha), rabred_arrival_clean(arr->beta),
                       rabred_arrival_clean(arr->gamma)};
    for (int q = 0; q < p; q++) {
        double a = rabred_arrival_clean(arr->offset[ring[q]]);
        clk[q] = (chain_clock_t){a, a, 0.0, -1};
    }
    int first, last;
    chain_steps(p, start, &first, &last);
    for (int step = first; p > 1 && step <= last; step++) {
        clock_step(clk, p, start, count, step, model);
    }
    double sum = 0.0;
    for (int q = 0; q < p; q++) {
        sum += clk[q].cpu - rabred_arrival_clean(arr->offset[ring[q]]);
    }
    free(clk);
    return sum / p;
}
