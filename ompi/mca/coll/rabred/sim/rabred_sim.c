/*
 * The simulator's timing engine and its public entry points (rabred_sim.h).
 *
 * Compiles every rank's plan into a byte stream, then runs all p streams
 * against each other: posting each round's transfers, matching sends with
 * receives per (receiver, sender) pair in posting order, taking matched
 * messages from one queue in (ready time, send order), holding each rank's
 * ports, and running rounds' reductions.  The result is the run's time,
 * avg_elapsed and counts, and the problems only a run can show: lengths
 * that do not match, a deadlock, a message nobody receives.
 *
 * What the data checks need (contributions, run-length buffers, checks of
 * plans and results) is in rabred_sim_check.c, behind rabred_sim_internal.h:
 * pricing (cost_only) runs this file alone but for the plan checks, and a
 * reader of the timing model finds it here without the verification
 * around it.  The engine hands the checks its events (a send posted, a
 * message delivered, a round's local steps) only in full mode's first run.
 */
#include "sim/rabred_sim_internal.h"

#include "plan/rabred_nodes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- compiled plans ---------------------------------------------------- */

/* What the engine reads while it runs, compiled from the builder's plan
 * before the run: per rank one byte stream, each round a header (transfers,
 * may it be posted early, elements reduced) followed by its transfers
 * (peer, direction, one-way or not, length), all as varints.  Everything
 * that does not depend on timing is done once, while compiling: the checks
 * of peers and ranges, whether a send is one-way, whether a round may be
 * posted before the previous round's reductions run
 * (rabred_plan_can_post_early), the elements a round reduces.  The engine
 * reads each stream front to back, so no index is needed, and a ring's
 * p = 1024 plans take 10 MB instead of 160 MB of rabred_plan_t: memory,
 * not arithmetic, is what simulating O(p)-round plans spends its time on. */

static uint8_t *put_varint(uint8_t *out, uint64_t v)
{
    while (v >= 0x80) {
        *out++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *out++ = (uint8_t)v;
    return out;
}

static inline uint64_t get_varint(const uint8_t **in)
{
    const uint8_t *p = *in;
    uint64_t v = p[0];
    if (v < 0x80) { /* most values: peers and short lengths */
        *in = p + 1;
        return v;
    }
    v &= 0x7f;
    int shift = 7;
    do {
        v |= (uint64_t)(*++p & 0x7f) << shift;
        shift += 7;
    } while (*p & 0x80);
    *in = p + 1;
    return v;
}

/* Stream words: a round's header is nxfer << 3 | CW_LEADS | CW_FRESH |
 * CW_EARLY, a
 * transfer's peer << 3 | CW_FRESH | CW_SEND | CW_ONE_WAY.  With CW_FRESH a
 * varint value follows (the round's reduced elements, the transfer's
 * length); without it the value is the rank's last one of that kind (last
 * reduced, last received, last sent): plans repeat their lengths. */
#define CW_EARLY 1u
#define CW_ONE_WAY 1u
#define CW_SEND 2u
#define CW_FRESH_ROUND 2u
#define CW_LEADS_JOINED 4u /* the next round is joined to this one */
#define CW_ROUND_SHIFT 3
#define CW_FRESH_XFER 4u

/* Memory for the compiled plans: carved from chunks that double from 16 KB
 * to 4 MB (small calls stay small), freed at once. */
typedef struct chunk_s {
    struct chunk_s *next;
    size_t used, size;
    int64_t data[];
} chunk_t;

static void *arena_alloc(chunk_t **arena, size_t bytes)
{
    bytes = (bytes + 7) & ~(size_t)7;
    chunk_t *c = *arena;
    if (NULL == c || c->size - c->used < bytes) {
        size_t size = NULL == c ? (size_t)16 << 10 : c->size < ((size_t)4 << 20) ? 2 * c->size
                                                                                  : c->size;
        size = bytes > size ? bytes : size;
        c = malloc(sizeof(chunk_t) + size);
        if (NULL == c) {
            return NULL;
        }
        c->next = *arena;
        c->used = 0;
        c->size = size;
        *arena = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += bytes;
    return p;
}

static void arena_free(chunk_t *arena)
{
    while (arena) {
        chunk_t *next = arena->next;
        free(arena);
        arena = next;
    }
}

/* ---- a hash map from 64-bit keys to two ints --------------------------- */

/* Open addressing with linear probing; keys are never 0; removal shifts the
 * rest of the cluster back instead of leaving tombstones, so the table
 * stays short however many keys come and go. */
typedef struct {
    uint64_t key;
    int32_t a, b;
} slot_t;

typedef struct {
    slot_t *slots;
    uint32_t n, cap; /* cap: a power of two, at least 2 (n + 1) */
} map_t;

static inline uint32_t map_home(const map_t *map, uint64_t key)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (map->cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static inline slot_t *map_probe(const map_t *map, uint64_t key)
{
    uint32_t i = map_home(map, key);
    while (map->slots[i].key != key && 0 != map->slots[i].key) {
        i = (i + 1) & (map->cap - 1);
    }
    return &map->slots[i];
}

/* Doubles the table (map_reserve's slow path). */
static int map_grow(map_t *map)
{
    map_t bigger = {calloc(2 * (size_t)map->cap, sizeof(slot_t)), map->n, 2 * map->cap};
    if (NULL == bigger.slots) {
        return 0;
    }
    for (uint32_t i = 0; i < map->cap; i++) {
        if (map->slots[i].key) {
            *map_probe(&bigger, map->slots[i].key) = map->slots[i];
        }
    }
    free(map->slots);
    *map = bigger;
    return 1;
}

/* Room for one more key (call before map_probe when inserting). */
static inline int map_reserve(map_t *map)
{
    return 2 * (map->n + 1) <= map->cap || map_grow(map);
}

static int map_init(map_t *map)
{
    map->n = 0;
    map->cap = 64;
    map->slots = calloc(map->cap, sizeof(slot_t));
    return NULL != map->slots;
}

static void map_remove(map_t *map, slot_t *slot)
{
    uint32_t mask = map->cap - 1, hole = (uint32_t)(slot - map->slots);
    for (uint32_t i = (hole + 1) & mask; map->slots[i].key; i = (i + 1) & mask) {
        if (((i - map_home(map, map->slots[i].key)) & mask) >= ((i - hole) & mask)) {
            map->slots[hole] = map->slots[i];
            hole = i;
        }
    }
    map->slots[hole].key = 0;
    map->n--;
}

static void map_clear(map_t *map)
{
    if (map->n > 0) {
        memset(map->slots, 0, (size_t)map->cap * sizeof(slot_t));
        map->n = 0;
    }
}

/* ---- the engine -------------------------------------------------------- */

/* A rank's progress through its compiled plan; the first cache line is
 * what finishing a message touches. */
typedef struct {
    double done;     /* latest end of the current round's messages */
    double in_free, out_free; /* when the ports are free */
    double cpu_free; /* when the last reduction ends */
    int32_t pending; /* transfers of the current round not finished */
    int32_t round;   /* current round, nrounds when done */
    int32_t nrounds;
    int32_t xfer;    /* plan index of the current round's first transfer */
    const uint8_t *cur;  /* the current round's header */
    const uint8_t *next; /* the next round's, once the current one is posted */
    /* the stream's registers (CW_FRESH_*) */
    int64_t reduced; /* the current round's reduced elements */
    int64_t last_len[2]; /* last received and sent */
    int32_t nxfer;       /* the current round's transfers */
    int32_t last_xfer_round; /* its plan's last round with messages (-1: none) */
    int early;           /* the current round's CW_EARLY */
    /* A group of joined rounds is posted at once by the executor.  Where
     * latency overlaps (latency_overlaps), a round that leads a joined one
     * is done for its successor once its messages have left the ports,
     * their wire latency still in flight (the group's p - 1 steps of
     * allreduce direct pay one latency, not p - 1); group_end keeps the
     * group's last delivery, which its last round waits for. */
    int leads_joined;    /* the current round's CW_LEADS_JOINED */
    double group_end;
    /* fair_share: the group's messages counted done when they left the
     * ports and not yet delivered, and whether the group's last round
     * waits for them (its local steps read what they bring) */
    int32_t group_pending;
    int waiting_group;
} simrank_t;

/* A message, from its first posted half (send or receive) to its end.
 * Slots are pooled: no allocation per message. */
typedef struct {
    int32_t src, dst;
    int64_t len;       /* the sender's; the receiver's until the send is posted */
    double post;       /* when the first half was posted; then when ready */
    uint64_t seq;      /* send order: the tie-break that keeps runs deterministic */
    int32_t next;      /* in its mailbox, then in its ready group; free list */
    int32_t recv_xfer; /* receiver's transfer (plan index), for full mode */
    uint8_t sent, received, one_way;
    uint8_t detached;  /* fair_share: its sender left it when posting it */
    uint8_t released;  /* fair_share: its sender left it when the rest fitted the
                        * send buffer (flow_t.release_left) */
    uint8_t early_ends; /* fair_share: 1 its sender, 2 its receiver counted it done
                         * when it left the ports (a round leading a joined one) */
} msg_t;

/* A matched message; messages run in (ready, seq) order. */
typedef struct {
    double ready;
    uint64_t seq;
    int32_t msg;
} event_t;

/* Matched messages with the same ready time, in increasing seq. */
typedef struct {
    double ready;       /* NAN while unused */
    int32_t head, tail; /* head: next free group while unused */
    uint64_t tail_seq;
} group_t;

typedef struct {
    double ready;
    int32_t group;
} gref_t;

typedef struct {
    rabred_sim_ctx_t ctx; /* the call, the result being filled in, rc */
    const rabred_sim_model_t *model;
    simrank_t *ranks;
    rabred_sim_data_t *data; /* full mode: the ranks' plans and buffers */
    int with_data;           /* move data in this run (full mode, first model) */
    msg_t *msgs;
    int32_t nmsgs, capmsgs, freemsg;
    /* Posted halves waiting for the other half, per (receiver, sender)
     * pair, in posting order (MPI's non-overtaking rule): all sends or all
     * receives.  a: the first message; b: the last one, or ~last when they
     * are receives (so a probe tells the kind without reading a message). */
    map_t boxes;
    /* The queue of matched messages (see queue_push). */
    map_t group_of; /* ready time -> group (a) */
    group_t *groups;
    int32_t ngroups, capgroups, freegroup, last_group;
    gref_t *gheap; /* groups by ready time */
    int32_t ngheap, capgheap;
    event_t *heap; /* matched messages that fit no group */
    int32_t nheap, capheap;
    uint64_t seq;
    chunk_t *arena;
    /* compile scratch */
    rabred_plan_t plan; /* cost_only: one plan reused for every rank */
    uint32_t *seen, stamp; /* per peer: received from in this round */
    const uint8_t **code_of; /* each rank's compiled plan */
    double *node_free;       /* two levels: per node, when its out and in ports are free */
    uint8_t *code;         /* the rank being compiled */
    int32_t capcode;
    /* The call's node map as the builders get it: grouped once for all p
     * ranks (a layout per rank would otherwise group it again, O(p^2)). */
    const rabred_nodes_t *build_nodes;
    rabred_nodes_t grouped_nodes;
    rabred_node_groups_t node_groups;
    /* fair_share: each message slot's flow; per port (the ranks' out and
     * in ports, then the nodes' out and in links) its flows, listed; the
     * flows' ends and deliveries in time order */
    struct flow_s *flows;
    int32_t capflows;
    int32_t *port_head, *port_count;
    struct fevent_s *fheap;
    int32_t nfheap, capfheap;
} sim_t;

/* ---- the queue of matched messages ------------------------------------- */

/* Messages are taken in (ready, seq) order.  One binary heap of them all
 * costs O(lg p) mispredicted comparisons per message, most of a ring's
 * simulation time.  But ranks run in lockstep: hundreds of messages share
 * one ready time and mostly arrive in seq order.  So each distinct ready
 * time has a group, a FIFO that takes a message whose seq is above its
 * tail's; groups are found by hashing the time (or are the last one used)
 * and ordered by a small heap of the distinct times; a message that fits no
 * group's order goes to a heap of its own.  The next message is the smaller
 * of the earliest group's head and that heap's top: O(1) per message when
 * times repeat, and the very order of one heap. */

static inline int event_less(const event_t *a, const event_t *b)
{
    return a->ready < b->ready || (a->ready == b->ready && a->seq < b->seq);
}

static void heap_push(sim_t *s, event_t e)
{
    if (!rabred_sim_grow(&s->ctx, (void **)&s->heap, &s->capheap, s->nheap + 1,
                         sizeof(event_t))) {
        return;
    }
    int i = s->nheap++;
    while (i > 0 && event_less(&e, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = e;
}

static event_t heap_pop(sim_t *s)
{
    event_t top = s->heap[0], last = s->heap[--s->nheap];
    int i = 0, n = s->nheap;
    for (int c = 1; c < n; c = 2 * i + 1) {
        c += c + 1 < n && event_less(&s->heap[c + 1], &s->heap[c]);
        if (!event_less(&s->heap[c], &last)) {
            break;
        }
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n > 0) {
        s->heap[i] = last;
    }
    return top;
}

static void gheap_push(sim_t *s, gref_t g)
{
    if (!rabred_sim_grow(&s->ctx, (void **)&s->gheap, &s->capgheap, s->ngheap + 1,
                         sizeof(gref_t))) {
        return;
    }
    int i = s->ngheap++;
    while (i > 0 && g.ready < s->gheap[(i - 1) / 2].ready) {
        s->gheap[i] = s->gheap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->gheap[i] = g;
}

static void gheap_pop(sim_t *s)
{
    gref_t last = s->gheap[--s->ngheap];
    int i = 0, n = s->ngheap;
    for (int c = 1; c < n; c = 2 * i + 1) {
        c += c + 1 < n && s->gheap[c + 1].ready < s->gheap[c].ready;
        if (!(s->gheap[c].ready < last.ready)) {
            break;
        }
        s->gheap[i] = s->gheap[c];
        i = c;
    }
    if (n > 0) {
        s->gheap[i] = last;
    }
}

static inline uint64_t time_key(double t)
{
    uint64_t k;
    t += 0.0; /* -0 and +0 are one time */
    memcpy(&k, &t, sizeof(k));
    return k ^ 0x8000000000000000ULL; /* not 0: that would be -0 */
}

/* A new group for time `ready` holding m. */
static void group_new(sim_t *s, slot_t *slot, uint64_t key, double ready, int32_t m)
{
    int32_t gi = s->freegroup;
    if (gi >= 0) {
        s->freegroup = s->groups[gi].head;
    } else if (rabred_sim_grow(&s->ctx, (void **)&s->groups, &s->capgroups, s->ngroups + 1,
                               sizeof(group_t))) {
        gi = s->ngroups++;
    } else {
        return;
    }
    slot->key = key;
    slot->a = gi;
    s->group_of.n++;
    s->groups[gi] = (group_t){ready, m, m, s->msgs[m].seq};
    s->last_group = gi;
    gheap_push(s, (gref_t){ready, gi});
}

static inline void queue_push(sim_t *s, double ready, int32_t m)
{
    uint64_t seq = s->msgs[m].seq;
    group_t *g = s->last_group >= 0 ? &s->groups[s->last_group] : NULL;
    s->msgs[m].next = -1;
    if (NULL == g || g->ready != ready) {
        if (!map_reserve(&s->group_of)) {
            s->ctx.rc = RABRED_ERR_NOMEM;
            return;
        }
        uint64_t key = time_key(ready);
        slot_t *slot = map_probe(&s->group_of, key);
        if (0 == slot->key) {
            group_new(s, slot, key, ready, m);
            return;
        }
        s->last_group = slot->a;
        g = &s->groups[slot->a];
    }
    if (seq > g->tail_seq) {
        s->msgs[g->tail].next = m;
        g->tail = m;
        g->tail_seq = seq;
    } else {
        heap_push(s, (event_t){ready, seq, m});
    }
}

static inline int queue_empty(const sim_t *s)
{
    return 0 == s->ngheap && 0 == s->nheap;
}

static inline event_t queue_pop(sim_t *s)
{
    if (s->ngheap > 0) {
        int32_t gi = s->gheap[0].group;
        group_t *g = &s->groups[gi];
        event_t e = {g->ready, s->msgs[g->head].seq, g->head};
        if (0 == s->nheap || event_less(&e, &s->heap[0])) {
            g->head = s->msgs[e.msg].next;
            if (g->head >= 0) {
                __builtin_prefetch(&s->msgs[g->head]); /* most likely the next one */
            } else { /* the group is empty */
                map_remove(&s->group_of, map_probe(&s->group_of, time_key(g->ready)));
                gheap_pop(s);
                g->ready = NAN;
                g->head = s->freegroup;
                s->freegroup = gi;
            }
            return e;
        }
    }
    return heap_pop(s);
}

/* ---- message slots and mailboxes --------------------------------------- */

static inline int32_t msg_new(sim_t *s, int src, int dst)
{
    int32_t m = s->freemsg;
    if (m >= 0) {
        s->freemsg = s->msgs[m].next;
    } else {
        if (!rabred_sim_grow(&s->ctx, (void **)&s->msgs, &s->capmsgs, s->nmsgs + 1,
                             sizeof(msg_t))) {
            return -1;
        }
        m = s->nmsgs++;
    }
    s->msgs[m] = (msg_t){.src = src, .dst = dst, .next = -1};
    return m;
}

static inline uint64_t box_key(int dst, int src)
{
    return ((uint64_t)(uint32_t)dst << 32 | (uint32_t)src) + 1;
}

/* The mailbox of (dst, src): a half of the other kind waiting there is
 * taken out and returned; otherwise a new half is queued there.  -1 when
 * out of memory. */
static int32_t box_take(sim_t *s, int dst, int src, int sending)
{
    if (!map_reserve(&s->boxes)) {
        s->ctx.rc = RABRED_ERR_NOMEM;
        return -1;
    }
    uint64_t key = box_key(dst, src);
    slot_t *slot = map_probe(&s->boxes, key);
    int32_t m;
    if (0 != slot->key && (slot->b >= 0) != sending) {
        m = slot->a;
        slot->a = s->msgs[m].next;
        if (slot->a < 0) {
            map_remove(&s->boxes, slot);
        }
        return m;
    }
    if ((m = msg_new(s, src, dst)) < 0) {
        return -1;
    }
    if (0 == slot->key) {
        slot->key = key;
        slot->a = m;
        s->boxes.n++;
    } else {
        s->msgs[slot->b >= 0 ? slot->b : ~slot->b].next = m;
    }
    slot->b = sending ? m : ~m;
    return m;
}

/* ---- posting, matching, finishing -------------------------------------- */

/* The second half of m is posted at t: m may start at its ready time. */
static inline void match(sim_t *s, int32_t m, int64_t send_len, int64_t recv_len, double t)
{
    msg_t *msg = &s->msgs[m];
    if (recv_len != send_len) {
        rabred_sim_fail(&s->ctx, "rank %d receives %lld elements from rank %d, which sends %lld",
                        msg->dst, (long long)recv_len, msg->src, (long long)send_len);
    }
    msg->len = send_len;
    msg->post = msg->post > t ? msg->post : t;
    queue_push(s, msg->post, m);
}

/* With fair_share: does a send of `len` elements from rank to peer fit
 * the send buffer (of its link), so that its sender leaves it at once? */
static int leaves_at_once(const sim_t *s, int rank, int peer, int64_t len)
{
    const rabred_sim_model_t *m = s->model;
    if (!m->fair_share) {
        return 0;
    }
    const rabred_nodes_t *nodes = m->nodes;
    int inter = NULL != nodes && nodes->node_of[rank] != nodes->node_of[peer];
    return (double)len <= (inter ? m->inter_send_buffer : m->send_buffer);
}

/* Post one transfer of `rank` at time t (its stream word and length): one
 * half of a message, whose other half may be waiting in the mailbox.
 * Returns 1 when it is a send its rank need not wait for (fair_share's
 * sends that fit the send buffer), else 0. */
static int post_half(sim_t *s, int rank, uint64_t word, int64_t len, int32_t xi, double t)
{
    int sending = 0 != (word & CW_SEND), peer = (int)(word >> 3);
    int32_t m = box_take(s, sending ? peer : rank, sending ? rank : peer, sending);
    if (m < 0) {
        return 0;
    }
    msg_t *msg = &s->msgs[m];
    int second = sending ? msg->received : msg->sent;
    if (sending) {
        msg->sent = 1;
        msg->one_way = (uint8_t)(word & CW_ONE_WAY);
        msg->detached = (uint8_t)leaves_at_once(s, rank, peer, len);
        msg->released = 0;
        msg->seq = s->seq++;
        s->ctx.res->messages++;
        s->ctx.res->elements_sent += len;
        if (s->with_data) {
            s->ctx.rc = rabred_sim_data_send(s->data, rank, xi, m);
        }
    } else {
        msg->received = 1;
        msg->recv_xfer = xi;
    }
    int detached = sending && msg->detached;
    if (second) {
        match(s, m, sending ? len : msg->len, sending ? msg->len : len, t);
    } else {
        msg->len = len;
        msg->post = t;
    }
    return detached;
}

/* The current round's local steps from time t (data in full mode); returns
 * when they end, and moves the rank on to its next round. */
static double run_locals(sim_t *s, simrank_t *r, int rank, int32_t nxfer, double t)
{
    if (s->with_data) {
        s->ctx.rc = rabred_sim_data_locals(s->data, rank, r->round);
    }
    r->cur = r->next;
    r->xfer += nxfer;
    r->round++;
    return t + s->model->gamma * (double)r->reduced;
}

/* Post rounds of `rank` from time t until one has messages to wait for. */
static void advance(sim_t *s, int rank, double t)
{
    simrank_t *r = &s->ranks[rank];
    while (r->round < r->nrounds && RABRED_OK == s->ctx.rc && s->ctx.res->ok) {
        const uint8_t *in = r->cur;
        uint64_t head = get_varint(&in);
        int32_t nxfer = (int32_t)(head >> CW_ROUND_SHIFT);
        r->early = (int)(head & CW_EARLY);
        r->leads_joined = 0 != (head & CW_LEADS_JOINED);
        r->reduced = (head & CW_FRESH_ROUND) ? (int64_t)get_varint(&in) : r->reduced;
        r->done = t;
        r->nxfer = nxfer;
        int32_t waits = nxfer; /* transfers the round waits for */
        for (int32_t k = 0; k < nxfer && RABRED_OK == s->ctx.rc; k++) {
            uint64_t word = get_varint(&in);
            int send = 0 != (word & CW_SEND);
            if (word & CW_FRESH_XFER) {
                r->last_len[send] = (int64_t)get_varint(&in);
            }
            waits -= post_half(s, rank, word, r->last_len[send], r->xfer + k, t);
        }
        r->pending = waits;
        r->next = in;
        if (waits > 0) {
            __builtin_prefetch(in); /* needed again after the other ranks' turns */
            __builtin_prefetch(in + 64);
            return;
        }
        t = t > r->cpu_free ? t : r->cpu_free;
        t = run_locals(s, r, rank, nxfer, t);
        r->cpu_free = t;
    }
    r->done = t > r->cpu_free ? t : r->cpu_free;
}

/* The messages of a rank's round are all done: reduce, and post the next
 * round before the reduction when the plan allows it
 * (rabred_plan_can_post_early), so transfers overlap the reduction as in the
 * executor; the rank's CPU is busy until cpu_free either way. */
static void round_done(sim_t *s, int rank)
{
    simrank_t *r = &s->ranks[rank];
    if (!r->leads_joined) { /* a group's last round (or no group): every delivery */
        if (r->group_pending > 0) {
            r->waiting_group = 1; /* group_delivered calls again */
            return;
        }
        r->done = r->group_end > r->done ? r->group_end : r->done;
        r->group_end = 0;
    }
    double t = r->done > r->cpu_free ? r->done : r->cpu_free;
    int early = r->early;
    r->cpu_free = run_locals(s, r, rank, r->nxfer, t);
    advance(s, rank, early ? t : r->cpu_free);
}

/* A message between nodes (two-level model): it also waits for its
 * nodes' ports, holds them for its bytes' time, and costs the inter-node
 * terms.  Where a node's link is wider than one rank's (a leaf switch's
 * uplinks, shared by its hosts), a message alone takes its rank's time
 * (inter_rank_beta), and many take the node link's turns.  Returns its
 * end. */
static double node_ports(sim_t *s, const msg_t *msg, double start, double fa, double fb);

/* What a message between nodes holds its nodes' link for beyond its
 * bytes, where latency overlaps: its overhead (per-message work; a link
 * W rank-links wide takes W messages at a time, so 1/W of it).  A lone
 * message does not notice (its own port holds it as long); the messages
 * of a node's ranks queue behind each other's: on bench/scale's 4:1 fat
 * tree 768 messages of 8 B leave a leaf through its 4 uplinks in a step
 * of allreduce direct at p = 64, 3.7 us of SMPI's time, where their bytes
 * take 1.2. */
static double node_overhead(const rabred_sim_model_t *m)
{
    if (!m->latency_overlaps) {
        return 0.0;
    }
    double width = m->inter_rank_beta > m->inter_beta ? m->inter_rank_beta / m->inter_beta : 1.0;
    return m->inter_overhead / width;
}

static double node_ports(sim_t *s, const msg_t *msg, double start, double fa, double fb)
{
    const rabred_sim_model_t *m = s->model;
    double *out = &s->node_free[2 * m->nodes->node_of[msg->src]];
    double *in = &s->node_free[2 * m->nodes->node_of[msg->dst] + 1];
    double own = start + fb * m->inter_rank_beta * (double)msg->len;
    start = *out > start ? *out : start;
    start = *in > start ? *in : start;
    double bytes_time = fb * m->inter_beta * (double)msg->len;
    *out = *in = start + node_overhead(m) + bytes_time;
    double wire = start + bytes_time > own ? start + bytes_time : own;
    return wire + fa * m->inter_alpha;
}

/* When a sender is free of a message that ends at `end`: `buffered` (the
 * send buffer's bytes' time) before it, but not before `matched` (the
 * message matched, plus its latency).  Without a buffer, at the end. */
static inline double sender_released(double matched, double end, double buffered)
{
    double released = end - buffered;
    return buffered <= 0 ? end : released > matched ? released : matched;
}

/* One message ends: deliver it, and move on the ranks it completes. */
static void finish_message(sim_t *s, event_t e)
{
    msg_t *msg = &s->msgs[e.msg];
    int ends[2] = {msg->src, msg->dst};
    simrank_t *src = &s->ranks[msg->src], *dst = &s->ranks[msg->dst];
    double fa = msg->one_way ? s->model->f_alpha : 1.0, fb = msg->one_way ? s->model->f_beta : 1.0;
    int inter = NULL != s->node_free &&
                s->model->nodes->node_of[msg->src] != s->model->nodes->node_of[msg->dst];
    int portless = s->model->parallel_ports && !inter;
    double start = e.ready;
    if (!portless) {
        start = src->out_free > start ? src->out_free : start;
        start = dst->in_free > start ? dst->in_free : start;
    }
    double latency = fa * s->model->alpha, overhead = s->model->overhead;
    double end = start + latency + fb * s->model->beta * (double)msg->len;
    double buffered = s->model->send_buffer * fb * s->model->beta;
    if (inter) {
        const rabred_sim_model_t *m = s->model;
        latency = fa * m->inter_alpha;
        overhead = m->inter_overhead;
        end = node_ports(s, msg, start, fa, fb);
        buffered = m->inter_send_buffer * fb *
                   (m->inter_rank_beta > m->inter_beta ? m->inter_rank_beta : m->inter_beta);
    }
    /* overlapped latency: the ports are held for the overhead and the elements */
    overhead = overhead < latency ? overhead : latency;
    double left = portless ? start : s->model->latency_overlaps ? end - latency + overhead : end;
    if (!portless) {
        src->out_free = dst->in_free = left;
    }
    /* the send buffer frees a sender from its last round with messages
     * only (rabred_sim_model_t.send_buffer says why) */
    double released = src->round == src->last_xfer_round
                          ? sender_released(e.ready + latency, end, buffered)
                          : end;
    if (s->with_data) {
        s->ctx.rc = rabred_sim_data_deliver(s->data, msg->dst, msg->recv_xfer, e.msg);
    }
    msg->next = s->freemsg; /* the slot is free again */
    s->freemsg = e.msg;
    src->group_end = released > src->group_end ? released : src->group_end;
    dst->group_end = end > dst->group_end ? end : dst->group_end;
    released = src->leads_joined && left < released ? left : released;
    double received = dst->leads_joined ? left : end;
    src->done = released > src->done ? released : src->done;
    dst->done = received > dst->done ? received : dst->done;
    if (0 == --src->pending && RABRED_OK == s->ctx.rc) {
        round_done(s, ends[0]);
    }
    if (0 == --dst->pending && RABRED_OK == s->ctx.rc) {
        round_done(s, ends[1]);
    }
}

/* ---- fair sharing (rabred_sim_model_t.fair_share) ---------------------- */

/* A message in flight shares each port it uses equally with the others
 * there: its rate is the least of its ports' shares.  Its progress is the
 * fraction of it still to move; each port it uses has a time it would
 * take there alone (its rank's ports: latency, when the model holds it,
 * and its elements; between nodes also the nodes' link: its elements at
 * that link's speed).  When a flow joins or leaves a port, the others
 * there are brought up to date and given their new rate; an end event
 * of an older rate is void (its version is behind). */
enum { PORT_OUT, PORT_IN, PORT_NODE_OUT, PORT_NODE_IN, NPORTS };
enum { FLOW_END, FLOW_DELIVER, FLOW_RELEASE };

typedef struct flow_s {
    double left;          /* fraction still to move */
    double rate;          /* of the message per second, now */
    double since;         /* when `left` was brought up to date */
    double alone[2];      /* seconds alone: on the rank's ports, on the nodes' link (0: none) */
    double latency;       /* after the last element (latency not held) */
    double release_left;  /* the sender leaves when this fraction is left (the
                           * send buffer's share of it); 0: at the end */
    int32_t port[NPORTS]; /* -1: not used */
    int32_t prev[NPORTS], next[NPORTS];
    uint32_t version;
} flow_t;

typedef struct fevent_s {
    double t;
    int32_t msg, kind;
    uint32_t version;
} fevent_t;

static inline int fevent_less(const fevent_t *a, const fevent_t *b)
{
    return a->t < b->t || (a->t == b->t && (a->kind < b->kind ||
                                             (a->kind == b->kind && a->msg < b->msg)));
}

static void fheap_push(sim_t *s, fevent_t e)
{
    if (!rabred_sim_grow(&s->ctx, (void **)&s->fheap, &s->capfheap, s->nfheap + 1,
                         sizeof(fevent_t))) {
        return;
    }
    int i = s->nfheap++;
    while (i > 0 && fevent_less(&e, &s->fheap[(i - 1) / 2])) {
        s->fheap[i] = s->fheap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->fheap[i] = e;
}

static fevent_t fheap_pop(sim_t *s)
{
    fevent_t top = s->fheap[0], last = s->fheap[--s->nfheap];
    int i = 0, n = s->nfheap;
    for (int c = 1; c < n; c = 2 * i + 1) {
        c += c + 1 < n && fevent_less(&s->fheap[c + 1], &s->fheap[c]);
        if (!fevent_less(&s->fheap[c], &last)) {
            break;
        }
        s->fheap[i] = s->fheap[c];
        i = c;
    }
    if (n > 0) {
        s->fheap[i] = last;
    }
    return top;
}

/* The earliest ready time in the queue of matched messages (not empty). */
static inline double queue_top(const sim_t *s)
{
    double t = s->ngheap > 0 ? s->gheap[0].ready : INFINITY;
    return s->nheap > 0 && s->heap[0].ready < t ? s->heap[0].ready : t;
}

/* Flow f's rate now: the least of its ports' equal shares; a flow on no
 * rank port (a link without ports, rabred_sim_model_t.parallel_ports)
 * moves as if alone there. */
static double flow_rate(const sim_t *s, const flow_t *f)
{
    double rate = f->port[PORT_OUT] < 0 && f->alone[0] > 0 ? 1.0 / f->alone[0] : INFINITY;
    for (int k = 0; k < NPORTS; k += 2) {
        if (f->port[k] < 0 || !(f->alone[k / 2] > 0)) {
            continue;
        }
        int32_t out = s->port_count[f->port[k]], in = s->port_count[f->port[k + 1]];
        double share = 1.0 / (f->alone[k / 2] * (out > in ? out : in));
        rate = share < rate ? share : rate;
    }
    return rate;
}

/* Bring flow i up to time t, give it its rate now, and schedule its end. */
static void flow_rerate(sim_t *s, int32_t i, double t)
{
    flow_t *f = &s->flows[i];
    f->left = isinf(f->rate) ? 0.0 : fmax(0.0, f->left - (t - f->since) * f->rate);
    f->since = t;
    f->rate = flow_rate(s, f);
    f->version++;
    fheap_push(s, (fevent_t){t + (isinf(f->rate) ? 0.0 : f->left / f->rate), i, FLOW_END,
                             f->version});
    if (f->release_left > 0 && f->left > f->release_left && !isinf(f->rate)) {
        fheap_push(s, (fevent_t){t + (f->left - f->release_left) / f->rate, i, FLOW_RELEASE,
                                 f->version});
    }
}

/* The flows on a port all use it as the same kind k (the port numbers of
 * each kind are apart: rank out, rank in, node out, node in), so a port's
 * list runs through its flows' prev[k] and next[k]. */
static void port_rerate(sim_t *s, int32_t port, int k, double t)
{
    for (int32_t i = s->port_head[port]; i >= 0; i = s->flows[i].next[k]) {
        flow_rerate(s, i, t);
    }
}

static void port_link(sim_t *s, int32_t i, int k)
{
    flow_t *f = &s->flows[i];
    int32_t port = f->port[k], head = s->port_head[port];
    f->prev[k] = -1;
    f->next[k] = head;
    if (head >= 0) {
        s->flows[head].prev[k] = i;
    }
    s->port_head[port] = i;
    s->port_count[port]++;
}

static void port_unlink(sim_t *s, int32_t i, int k)
{
    const flow_t *f = &s->flows[i];
    if (f->prev[k] >= 0) {
        s->flows[f->prev[k]].next[k] = f->next[k];
    } else {
        s->port_head[f->port[k]] = f->next[k];
    }
    if (f->next[k] >= 0) {
        s->flows[f->next[k]].prev[k] = f->prev[k];
    }
    s->port_count[f->port[k]]--;
}

static void flow_left(sim_t *s, int32_t mi, double t, double arrive);

/* The share of a message left when its sender may leave it: a send larger
 * than the send buffer returns once the rest fits there (TCP's socket
 * buffer: a 4 MiB MPI_Send returned with 0.97 MB to go), in its rank's
 * last round with messages and outside a joined group, as
 * sender_released does when taking turns; 0: at its end. */
static double release_share(const sim_t *s, const msg_t *msg, int inter)
{
    const rabred_sim_model_t *m = s->model;
    const simrank_t *src = &s->ranks[msg->src];
    double buffer = inter ? m->inter_send_buffer : m->send_buffer;
    if (msg->detached || !(buffer > 0) || (double)msg->len <= buffer ||
        src->round != src->last_xfer_round || src->leads_joined) {
        return 0.0;
    }
    return buffer / (double)msg->len;
}

/* A matched message starts flowing at its ready time. */
static void flow_start(sim_t *s, event_t e)
{
    if (s->capflows < s->capmsgs) {
        int32_t old = s->capflows;
        if (!rabred_sim_grow(&s->ctx, (void **)&s->flows, &s->capflows, s->capmsgs,
                             sizeof(flow_t))) {
            return;
        }
        memset(&s->flows[old], 0, (size_t)(s->capflows - old) * sizeof(flow_t));
    }
    const rabred_sim_model_t *m = s->model;
    const msg_t *msg = &s->msgs[e.msg];
    flow_t *f = &s->flows[e.msg];
    const rabred_nodes_t *nodes = m->nodes;
    int p = s->ctx.call->p;
    int inter = NULL != nodes && nodes->node_of[msg->src] != nodes->node_of[msg->dst];
    double fa = msg->one_way ? m->f_alpha : 1.0, fb = msg->one_way ? m->f_beta : 1.0;
    double latency = fa * (inter ? m->inter_alpha : m->alpha);
    double own_beta = !inter ? m->beta : m->inter_rank_beta > 0 ? m->inter_rank_beta
                                                                : m->inter_beta;
    double overhead = inter ? m->inter_overhead : m->overhead;
    double held = !m->latency_overlaps ? latency : overhead < latency ? overhead : latency;
    f->alone[0] = held + fb * own_beta * (double)msg->len;
    f->alone[1] = inter ? node_overhead(m) + fb * m->inter_beta * (double)msg->len : 0.0;
    f->latency = latency - held;
    f->release_left = release_share(s, msg, inter);
    f->left = 1.0;
    f->rate = 0.0;
    f->since = e.ready;
    int portless = m->parallel_ports && !inter; /* as finish_message's */
    f->port[PORT_OUT] = portless ? -1 : msg->src;
    f->port[PORT_IN] = portless ? -1 : p + msg->dst;
    f->port[PORT_NODE_OUT] = inter ? 2 * p + nodes->node_of[msg->src] : -1;
    f->port[PORT_NODE_IN] = inter ? 2 * p + nodes->nnodes + nodes->node_of[msg->dst] : -1;
    for (int k = 0; k < NPORTS; k++) {
        if (f->port[k] >= 0) {
            port_link(s, e.msg, k);
        }
    }
    for (int k = 0; k < NPORTS; k++) {
        if (f->port[k] >= 0) {
            port_rerate(s, f->port[k], k, e.ready);
        }
    }
    if (portless) {
        /* on no port its rate is its own, and it holds nothing: a joined
         * round's next messages start at once, as taking turns */
        flow_rerate(s, e.msg, e.ready);
        flow_left(s, e.msg, e.ready, e.ready + f->alone[0] + f->latency);
    }
}

/* A message of a joined group that `rank` counted done early has
 * arrived: the group's last round may be waiting for it. */
static void group_delivered(sim_t *s, int rank)
{
    simrank_t *r = &s->ranks[rank];
    if (0 == --r->group_pending && r->waiting_group && RABRED_OK == s->ctx.rc) {
        r->waiting_group = 0;
        round_done(s, rank);
    }
}

/* One end of a message is done with it at t (its round may move on). */
static void end_done(sim_t *s, int rank, double t)
{
    simrank_t *r = &s->ranks[rank];
    r->done = t > r->done ? t : r->done;
    if (0 == --r->pending && RABRED_OK == s->ctx.rc) {
        round_done(s, rank);
    }
}

/* Message mi has arrived at t: deliver it, move its ranks on. */
static void flow_deliver(sim_t *s, int32_t mi, double t)
{
    msg_t *msg = &s->msgs[mi];
    int src = msg->src, dst = msg->dst, early = msg->early_ends;
    int waited = !msg->detached && !msg->released;
    if (s->with_data) {
        s->ctx.rc = rabred_sim_data_deliver(s->data, dst, msg->recv_xfer, mi);
    }
    msg->next = s->freemsg; /* the slot is free again */
    s->freemsg = mi;
    if (early & 1) {
        group_delivered(s, src);
    } else if (waited) {
        end_done(s, src, t);
    }
    if (early & 2) {
        group_delivered(s, dst);
    } else {
        end_done(s, dst, t);
    }
}

/* Message mi left its ports at t and arrives at `arrive`: an end whose
 * round leads a joined one is done with it now (the executor posts the
 * group at once, so the next step's messages follow it onto the ports
 * while its latency is in flight); the group's last round waits for it. */
static void flow_left(sim_t *s, int32_t mi, double t, double arrive)
{
    msg_t *msg = &s->msgs[mi];
    int ends[2] = {msg->src, msg->dst};
    msg->early_ends = (uint8_t)((!msg->detached && !msg->released && s->ranks[ends[0]].leads_joined
                                     ? 1
                                     : 0) |
                                (s->ranks[ends[1]].leads_joined ? 2 : 0));
    for (int k = 0; k < 2; k++) {
        simrank_t *r = &s->ranks[ends[k]];
        if (msg->early_ends & (1 << k)) {
            r->group_pending++;
            r->group_end = arrive > r->group_end ? arrive : r->group_end;
            end_done(s, ends[k], t);
        }
    }
}

/* Flow i's last element left at t: its ports are the others' again. */
static void flow_end(sim_t *s, int32_t i, double t)
{
    flow_t *f = &s->flows[i];
    for (int k = 0; k < NPORTS; k++) {
        if (f->port[k] >= 0) {
            port_unlink(s, i, k);
        }
    }
    for (int k = 0; k < NPORTS; k++) {
        if (f->port[k] >= 0) {
            port_rerate(s, f->port[k], k, t);
        }
    }
    int portless = f->port[PORT_OUT] < 0; /* it left at its start (flow_start) */
    if (f->latency > 0) {
        fheap_push(s, (fevent_t){t + f->latency, i, FLOW_DELIVER, 0});
        if (!portless) {
            flow_left(s, i, t, t + f->latency);
        }
    } else {
        flow_deliver(s, i, t);
    }
}

/* The run's events in time order: messages becoming ready, flows ending,
 * messages arriving. */
static void run_flows(sim_t *s)
{
    const rabred_nodes_t *nodes = s->model->nodes;
    int32_t nports = 2 * s->ctx.call->p + (NULL != nodes ? 2 * nodes->nnodes : 0);
    free(s->port_head);
    s->port_head = malloc(2 * (size_t)nports * sizeof(int32_t));
    if (NULL == s->port_head) {
        s->ctx.rc = RABRED_ERR_NOMEM;
        return;
    }
    s->port_count = s->port_head + nports;
    for (int32_t i = 0; i < nports; i++) {
        s->port_head[i] = -1;
        s->port_count[i] = 0;
    }
    s->nfheap = 0;
    while (RABRED_OK == s->ctx.rc && s->ctx.res->ok && (!queue_empty(s) || s->nfheap > 0)) {
        if (!queue_empty(s) && (0 == s->nfheap || queue_top(s) <= s->fheap[0].t)) {
            flow_start(s, queue_pop(s));
            continue;
        }
        fevent_t e = fheap_pop(s);
        if (FLOW_DELIVER == e.kind) {
            flow_deliver(s, e.msg, e.t);
        } else if (e.version != s->flows[e.msg].version) {
            continue; /* of an older rate */
        } else if (FLOW_RELEASE == e.kind) {
            s->msgs[e.msg].released = 1;
            end_done(s, s->msgs[e.msg].src, e.t);
        } else {
            flow_end(s, e.msg, e.t);
        }
    }
}

/* ---- compiling plans --------------------------------------------------- */

/* Marks the peers this rank receives from in the round being compiled. */
static void next_stamp(sim_t *s)
{
    if (0 == ++s->stamp) {
        memset(s->seen, 0, (size_t)s->ctx.call->p * sizeof(uint32_t));
        s->stamp = 1;
    }
}

/* Check `plan` of `rank` and compile it into the rank's byte stream. */
static void compile_rank(sim_t *s, int rank, const rabred_plan_t *plan)
{
    int64_t reduced = 0, last_len[2] = {0, 0}; /* the engine's registers */
    int32_t used = 0, last_xfer_round = -1;
    int alias = rabred_sim_input_is_acc(s->ctx.call, rank);
    for (int k = 0; k < plan->nrounds && RABRED_OK == s->ctx.rc; k++) {
        const rabred_round_t *rd = &plan->rounds[k];
        const rabred_xfer_t *xs = &plan->xfers[rd->first_xfer];
        if (!rabred_sim_check_round(&s->ctx, s->data, rank, plan, k) ||
            !rabred_sim_grow(&s->ctx, (void **)&s->code, &s->capcode,
                             used + 20 * ((int64_t)rd->nxfer + 1), 1)) {
            return;
        }
        next_stamp(s);
        last_xfer_round = rd->nxfer > 0 ? k : last_xfer_round;
        for (int a = 0; a < rd->nxfer; a++) {
            s->seen[xs[a].peer] = RABRED_XFER_RECV == xs[a].dir ? s->stamp : s->seen[xs[a].peer];
        }
        int64_t red = 0;
        for (int j = 0; j < rd->nlocal; j++) {
            const rabred_local_t *l = &plan->locals[rd->first_local + j];
            red += RABRED_LOCAL_REDUCE == l->kind ? l->len : 0;
        }
        int leads = k + 1 < plan->nrounds && plan->rounds[k + 1].joined;
        uint64_t head = (uint64_t)rd->nxfer << CW_ROUND_SHIFT |
                        (red != reduced ? CW_FRESH_ROUND : 0) |
                        (rabred_plan_can_post_early(plan, k, alias) ? CW_EARLY : 0) |
                        (leads ? CW_LEADS_JOINED : 0);
        uint8_t *out = put_varint(s->code + used, head);
        if (red != reduced) {
            out = put_varint(out, (uint64_t)(reduced = red));
        }
        for (int a = 0; a < rd->nxfer; a++) {
            int send = RABRED_XFER_SEND == xs[a].dir;
            uint64_t word = (uint64_t)xs[a].peer << 3 | (send ? CW_SEND : 0) |
                            (xs[a].len != last_len[send] ? CW_FRESH_XFER : 0) |
                            (send && s->seen[xs[a].peer] != s->stamp ? CW_ONE_WAY : 0);
            out = put_varint(out, word);
            if (xs[a].len != last_len[send]) {
                out = put_varint(out, (uint64_t)(last_len[send] = xs[a].len));
            }
        }
        used = (int32_t)(out - s->code);
    }
    uint8_t *code = arena_alloc(&s->arena, (size_t)used);
    if (NULL == code) {
        s->ctx.rc = RABRED_ERR_NOMEM;
        return;
    }
    memcpy(code, s->code, (size_t)used);
    s->code_of[rank] = code;
    s->ranks[rank].nrounds = plan->nrounds;
    s->ranks[rank].last_xfer_round = last_xfer_round;
}

/* ---- set-up, checks, tear-down ----------------------------------------- */

void rabred_sim_model_default(rabred_sim_model_t *model)
{
    model->alpha = model->beta = model->gamma = 1.0;
    model->f_alpha = model->f_beta = 1.0;
    model->arrival = NULL;
    model->nodes = NULL;
    model->inter_alpha = model->inter_beta = 1.0;
    model->latency_overlaps = 0;
    model->overhead = model->inter_overhead = 0;
    model->inter_rank_beta = 0;
    model->send_buffer = model->inter_send_buffer = 0;
    model->fair_share = 0;
    model->parallel_ports = 0;
}

static int setup_rank(sim_t *s, int rank)
{
    const rabred_sim_call_t *call = s->ctx.call;
    rabred_plan_t *plan = NULL != s->data ? rabred_sim_data_plan(s->data, rank) : &s->plan;
    rabred_plan_args_t args = {call->p, rank, call->root, call->count, call->commutative,
                               call->seg_count, call->arrival, rabred_sim_input_is_acc(call, rank),
                               s->build_nodes};
    int rc = rabred_plan_build(call->build, &args, plan);
    if (RABRED_OK != rc) {
        return rc;
    }
    if (plan->nrounds > s->ctx.res->max_rounds) {
        s->ctx.res->max_rounds = plan->nrounds;
    }
    compile_rank(s, rank, plan);
    if (RABRED_OK == s->ctx.rc && NULL != s->data) {
        s->ctx.rc = rabred_sim_data_setup_rank(s->data, rank);
    }
    return s->ctx.rc;
}

/* After a run: for each rank, the sender of the oldest send to it that met
 * no receive, or -1 (a new array, NULL when there is none). */
static int *unreceived_senders(sim_t *s)
{
    if (0 == s->boxes.n) {
        return NULL;
    }
    int *src = malloc((size_t)s->ctx.call->p * sizeof(int));
    uint64_t *seq = malloc((size_t)s->ctx.call->p * sizeof(uint64_t));
    for (int i = 0; NULL != src && NULL != seq && i < s->ctx.call->p; i++) {
        src[i] = -1;
    }
    for (uint32_t i = 0; NULL != src && NULL != seq && i < s->boxes.cap; i++) {
        const slot_t *b = &s->boxes.slots[i];
        const msg_t *m = b->key && b->b >= 0 ? &s->msgs[b->a] : NULL; /* sends waiting */
        if (NULL != m && (src[m->dst] < 0 || m->seq < seq[m->dst])) {
            src[m->dst] = m->src;
            seq[m->dst] = m->seq;
        }
    }
    if (NULL == src || NULL == seq) {
        s->ctx.rc = RABRED_ERR_NOMEM;
    }
    free(seq);
    return src;
}

/* What the run shows of rank: it finished, every send to it met a
 * receive, and (first run of full mode) its data is right. */
static void check_rank(sim_t *s, int rank, const int *unreceived)
{
    const simrank_t *r = &s->ranks[rank];
    if (r->round < r->nrounds) {
        rabred_sim_fail(&s->ctx, "deadlock: rank %d waits in round %d of %d", rank, r->round,
                        r->nrounds);
        return;
    }
    if (NULL != unreceived && unreceived[rank] >= 0) {
        rabred_sim_fail(&s->ctx, "rank %d never received a message from rank %d", rank,
                        unreceived[rank]);
        return;
    }
    if (s->with_data) {
        rabred_sim_check_data(&s->ctx, s->data, rank);
    }
}

static void teardown(sim_t *s)
{
    rabred_sim_data_free(s->data);
    arena_free(s->arena);
    rabred_plan_free(&s->plan);
    free(s->ranks);
    free(s->msgs);
    free(s->boxes.slots);
    free(s->group_of.slots);
    free(s->groups);
    free(s->gheap);
    free(s->heap);
    free(s->seen);
    free(s->code);
    free(s->code_of);
    free(s->node_free);
    free(s->flows);
    free(s->port_head);
    free(s->fheap);
    rabred_node_groups_free(&s->node_groups);
}

/* The call's node map, grouped here unless it already is; a map the
 * grouping refuses goes to the builders as it is, for them to refuse. */
static int group_nodes(sim_t *s)
{
    const rabred_nodes_t *nodes = s->ctx.call->nodes;
    s->build_nodes = nodes;
    if (NULL == nodes || NULL != nodes->groups) {
        return RABRED_OK;
    }
    int rc = rabred_node_groups_make(&s->node_groups, nodes, s->ctx.call->p);
    if (RABRED_OK == rc) {
        s->grouped_nodes = *nodes;
        s->grouped_nodes.groups = &s->node_groups;
        s->build_nodes = &s->grouped_nodes;
    }
    return RABRED_ERR_NOMEM == rc ? rc : RABRED_OK;
}

/* Builds, checks and compiles every rank's plan (and, in full mode, sets up
 * its buffers); res takes a problem found. */
static void setup(sim_t *s)
{
    const rabred_sim_call_t *call = s->ctx.call;
    s->ranks = calloc((size_t)call->p, sizeof(simrank_t));
    s->seen = calloc((size_t)call->p, sizeof(uint32_t));
    s->code_of = calloc((size_t)call->p, sizeof(uint8_t *));
    s->data = call->cost_only ? NULL : rabred_sim_data_new(call);
    int maps = map_init(&s->boxes) && map_init(&s->group_of);
    if (!maps || NULL == s->ranks || NULL == s->seen || NULL == s->code_of ||
        (!call->cost_only && NULL == s->data)) {
        s->ctx.rc = RABRED_ERR_NOMEM;
    }
    if (RABRED_OK == s->ctx.rc) {
        s->ctx.rc = group_nodes(s);
    }
    for (int i = 0; i < call->p && RABRED_OK == s->ctx.rc && s->ctx.res->ok; i++) {
        s->ctx.rc = setup_rank(s, i);
    }
}

/* Runs the compiled plans under s->model into the result: time, messages and
 * the checks.  Runs after the first start from a clean queue. */
static void run(sim_t *s)
{
    const rabred_sim_call_t *call = s->ctx.call;
    const double *arrival = s->model->arrival;
    for (int i = 0; i < call->p; i++) {
        simrank_t *r = &s->ranks[i];
        r->cur = r->next = s->code_of[i];
        r->round = r->xfer = r->pending = r->nxfer = r->early = 0;
        r->reduced = r->last_len[0] = r->last_len[1] = 0;
        r->done = r->in_free = r->out_free = r->cpu_free = 0.0;
    }
    free(s->node_free);
    s->node_free = NULL;
    const rabred_nodes_t *nodes = s->model->nodes;
    if (NULL != nodes) {
        for (int i = 0; i < call->p; i++) {
            if (NULL == nodes->node_of || nodes->node_of[i] < 0 ||
                nodes->node_of[i] >= nodes->nnodes) {
                s->ctx.rc = RABRED_ERR_ARG; /* a map the ports cannot follow */
                return;
            }
        }
        s->node_free = calloc(2 * (size_t)nodes->nnodes, sizeof(double));
        if (NULL == s->node_free) {
            s->ctx.rc = RABRED_ERR_NOMEM;
            return;
        }
    }
    for (int i = 0; i < call->p && RABRED_OK == s->ctx.rc; i++) {
        advance(s, i, arrival ? arrival[i] : 0.0);
    }
    if (s->model->fair_share) {
        run_flows(s);
    }
    while (!queue_empty(s) && RABRED_OK == s->ctx.rc && s->ctx.res->ok) {
        finish_message(s, queue_pop(s));
    }
    int *unreceived = unreceived_senders(s);
    double sum = 0.0;
    for (int i = 0; i < call->p && RABRED_OK == s->ctx.rc; i++) {
        check_rank(s, i, unreceived);
        double t = s->ranks[i].done;
        s->ctx.res->time = t > s->ctx.res->time ? t : s->ctx.res->time;
        sum += t - (arrival ? arrival[i] : 0.0);
    }
    free(unreceived);
    s->ctx.res->avg_elapsed = call->p > 0 ? sum / call->p : 0.0;
    /* a clean queue for the next model's run; slots are kept */
    for (int32_t m = 0; m < s->nmsgs; m++) {
        s->msgs[m].next = m + 1 < s->nmsgs ? m + 1 : -1;
    }
    s->freemsg = s->nmsgs > 0 ? 0 : -1;
    map_clear(&s->boxes);
    map_clear(&s->group_of);
    s->ngroups = s->ngheap = s->nheap = 0;
    s->freegroup = s->last_group = -1;
    s->seq = 0;
}

int rabred_simulate_models(const rabred_sim_call_t *call, const rabred_sim_model_t *models,
                           int nmodels, rabred_sim_result_t *res)
{
    for (int k = 0; k < nmodels; k++) {
        memset(&res[k], 0, sizeof(res[k]));
        res[k].ok = 1;
    }
    if (nmodels < 1 || call->p < 1 || call->count < 0 ||
        call->root >= call->p || NULL == call->build) {
        return RABRED_ERR_ARG;
    }
    sim_t s;
    memset(&s, 0, sizeof(s));
    s.ctx.call = call;
    s.model = &models[0];
    s.ctx.res = &res[0];
    s.freemsg = s.freegroup = s.last_group = -1;
    setup(&s);
    /* the data checks need one run: they do not depend on the timing */
    s.with_data = NULL != s.data;
    for (int k = 0; k < nmodels && RABRED_OK == s.ctx.rc && res[0].ok; k++) {
        s.model = &models[k];
        s.ctx.res = &res[k];
        s.ctx.res->max_rounds = res[0].max_rounds;
        run(&s);
        s.with_data = 0;
    }
    for (int k = 1; k < nmodels; k++) {
        if (!res[0].ok) { /* the plans are wrong under every model */
            res[k].ok = 0;
            memcpy(res[k].error, res[0].error, sizeof(res[k].error));
        }
    }
    teardown(&s);
    return s.ctx.rc;
}

int rabred_simulate(const rabred_sim_call_t *call, const rabred_sim_model_t *model,
                    rabred_sim_result_t *res)
{
    return rabred_simulate_models(call, model, 1, res);
}

