/*
 * Unit tests of the rules files (no MPI): both formats, lookups at and
 * around every boundary, first-match order, the commutative key, every
 * validation error with its line number, hostile input (binary, NUL, long
 * lines, truncation, absurd counts, unterminated text, size and rule
 * limits), load errors, both writers with read-back, and a deterministic
 * fuzz loop.
 *
 * Classic files are also read by `oracle_*` below: a small reader written
 * here the way coll/tuned reads them (fscanf("%li"), one character thrown
 * away on failure, '#' to end of line, entry scan in file order).  The fuzz
 * loop checks that a file the oracle rejects is rejected, and that when
 * both accept they pick the same algorithm for every probe.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen, mkstemp */

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "select/rabred_rules.h"
#include "select/rabred_rules_write.h"
#include "rabred_test.h"

/* ------------------------------------------------------------------ */
/* Collecting messages                                                */

typedef struct {
    const char *name;
    int n[3]; /* per severity */
    int unprefixed;
    char text[32768];
    size_t used;
} msgs_t;

static void collect(void *ctx, rabred_rules_severity_t sev, const char *message)
{
    msgs_t *m = ctx;
    static const char tag[] = "NWE";
    int wrote;
    m->n[sev]++;
    m->unprefixed += 0 != strncmp(message, m->name, strlen(m->name));
    if (m->used + 1 < sizeof(m->text)) {
        wrote = snprintf(m->text + m->used, sizeof(m->text) - m->used, "%c %s\n", tag[sev],
                         message);
        m->used += wrote > 0 ? (size_t)wrote : 0;
        m->used = m->used < sizeof(m->text) ? m->used : sizeof(m->text) - 1;
    }
}

static void msgs_init(msgs_t *m, const char *name)
{
    memset(m, 0, sizeof(*m));
    m->name = name;
}

/* Is there a message of severity `sev` "name:line: ...needle..."? */
static int has_msg(const msgs_t *m, char sev, int line, const char *needle)
{
    char head[160];
    const char *p = m->text;
    if (line > 0) {
        snprintf(head, sizeof(head), "%c %s:%d: ", sev, m->name, line);
    } else {
        snprintf(head, sizeof(head), "%c %s: ", sev, m->name);
    }
    while (NULL != (p = strstr(p, head))) {
        const char *eol = strchr(p, '\n');
        const char *hit = strstr(p, needle);
        if (NULL != hit && (NULL == eol || hit < eol)) {
            return 1;
        }
        p += strlen(head);
    }
    return 0;
}

static int parse_str(const char *text, msgs_t *m, rabred_rules_t *out)
{
    return rabred_rules_parse(text, strlen(text), m->name, out, collect, m);
}

/* 1-based line of the first line holding `marker`. */
static int line_of(const char *text, const char *marker)
{
    const char *hit = strstr(text, marker);
    int line = 1;
    if (NULL == hit) {
        fprintf(stderr, "test bug: marker %s not found\n", marker);
        exit(2);
    }
    for (const char *p = text; p < hit; p++) {
        line += '\n' == *p;
    }
    return line;
}

static int id_of(rabred_coll_t coll, const char *name)
{
    const rabred_alg_t *alg = rabred_table_by_name(coll, name);
    if (NULL == alg) {
        fprintf(stderr, "test bug: no algorithm %s\n", name);
        exit(2);
    }
    return alg->id;
}

/* The rule rabred would use: prune for p, then look up.  Returns 1 and
 * fills *hit, or 0 when no rule matches. */
static int rule_at(const rabred_rules_t *all, rabred_coll_t coll, int p, int64_t bytes,
                   int commutative, rabred_rule_t *hit)
{
    rabred_rules_t pruned;
    const rabred_rule_t *r;
    int rc = rabred_rules_prune(all, coll, p, &pruned), found = 0;
    CHECK(RABRED_OK == rc, "prune failed: %d", rc);
    r = rabred_rules_lookup(&pruned, bytes, commutative);
    if (NULL != r) {
        *hit = *r;
        found = 1;
    }
    rabred_rules_free(&pruned);
    return found;
}

/* Algorithm id chosen, or -1 when no rule matches. */
static int alg_at(const rabred_rules_t *all, rabred_coll_t coll, int p, int64_t bytes,
                  int commutative)
{
    rabred_rule_t hit;
    return rule_at(all, coll, p, bytes, commutative, &hit) ? hit.alg_id : -1;
}

static int rules_equal(const rabred_rules_t *a, const rabred_rules_t *b)
{
    if (a->n != b->n) {
        return 0;
    }
    for (int i = 0; i < a->n; i++) {
        const rabred_rule_t *x = &a->rules[i], *y = &b->rules[i];
        if (x->coll != y->coll || x->comm_min != y->comm_min || x->comm_max != y->comm_max ||
            x->msg_min != y->msg_min || x->msg_max != y->msg_max ||
            x->commutative != y->commutative || x->alg_id != y->alg_id ||
            x->segsize != y->segsize) {
            return 0;
        }
    }
    return 1;
}

/* Write with `writer` into memory, then parse that back. */
static int write_and_parse(int (*writer)(FILE *, const rabred_rules_t *),
                           const rabred_rules_t *rules, rabred_rules_t *back, char **text_out)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    msgs_t m;
    int rc;
    msgs_init(&m, "written");
    if (NULL == f) {
        return -1;
    }
    rc = writer(f, rules);
    fclose(f);
    if (RABRED_OK == rc) {
        rc = rabred_rules_parse(buf, size, "written", back, collect, &m);
        CHECK(0 == m.n[RABRED_RULES_ERROR], "written file rejected:\n%s%s", m.text, buf);
    }
    if (NULL != text_out) {
        *text_out = buf;
    } else {
        free(buf);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* The tuned oracle                                                   */

#define ORACLE_NCOLLS 22

typedef struct {
    long size, alg, seg;
} o_msg_t;

typedef struct {
    long size;
    long nmsg;
    o_msg_t *msg;
} o_comm_t;

typedef struct {
    int present;
    long ncomm;
    o_comm_t *comm;
} o_coll_t;

typedef struct {
    o_coll_t coll[ORACLE_NCOLLS];
} oracle_t;

/* tuned's token reader: a number, else drop one character and retry. */
static int o_next(FILE *f, long *v)
{
    for (;;) {
        int rc = fscanf(f, "%li", v), c;
        if (1 == rc) {
            return 0;
        }
        if (EOF == rc || EOF == (c = fgetc(f))) {
            return -1;
        }
        if ('#' == c) {
            while (EOF != (c = fgetc(f)) && '\n' != c) {
            }
        }
    }
}

static int o_digit_follows(FILE *f)
{
    int c;
    do {
        c = fgetc(f);
    } while (' ' == c || '\t' == c);
    if (EOF != c) {
        ungetc(c, f);
    }
    return c >= '0' && c <= '9';
}

static void o_free_coll(o_coll_t *c)
{
    for (long i = 0; i < c->ncomm && NULL != c->comm; i++) {
        free(c->comm[i].msg);
    }
    free(c->comm);
    memset(c, 0, sizeof(*c));
}

static void oracle_free(oracle_t *o)
{
    for (int i = 0; i < ORACLE_NCOLLS; i++) {
        o_free_coll(&o->coll[i]);
    }
}

/* A count tuned could allocate and then fill: more than the text's bytes
 * fails either way (calloc or end of file). */
static int o_count(FILE *f, long *v, size_t len)
{
    return 0 == o_next(f, v) && *v >= 0 && (unsigned long)*v <= len ? 0 : -1;
}

static int o_read_comm(FILE *f, o_comm_t *cm, int version, size_t len)
{
    long maxreq;
    if (0 != o_next(f, &cm->size) || cm->size < 0 || 0 != o_count(f, &cm->nmsg, len)) {
        return -1;
    }
    cm->msg = calloc((size_t)cm->nmsg + 1, sizeof(o_msg_t));
    for (long j = 0; j < cm->nmsg; j++) {
        o_msg_t *mm = &cm->msg[j];
        long fan;
        if (0 != o_next(f, &mm->size) || mm->size < 0 || 0 != o_next(f, &mm->alg) ||
            mm->alg < 0 || 0 != o_next(f, &fan) || fan < 0 || 0 != o_next(f, &mm->seg) ||
            mm->seg < 0) {
            return -1;
        }
        if (version > 1 && o_digit_follows(f) && (0 != o_next(f, &maxreq) || maxreq < 0)) {
            return -1;
        }
        if (0 == j && 0 != mm->size) {
            return -1;
        }
    }
    return 0;
}

/* 0: accepted; -1: rejected; -2: no number at all (rabred reads such a
 * text as an empty named file, on purpose). */
static int oracle_load(const char *text, size_t len, oracle_t *o)
{
    FILE *f = fmemopen((void *)text, len, "r");
    long ncoll, id;
    int version = 1, rc = -1;
    memset(o, 0, sizeof(*o));
    if (NULL == f) {
        return -2;
    }
    if (1 != fscanf(f, "rule-file-version-%d", &version)) {
        version = 1;
    }
    if (0 != o_next(f, &ncoll)) {
        fclose(f);
        return -2;
    }
    if (ncoll < 0 || ncoll > ORACLE_NCOLLS) {
        goto out;
    }
    for (long x = 0; x < ncoll; x++) {
        o_coll_t *c;
        if (0 != o_next(f, &id) || id < 0 || id >= ORACLE_NCOLLS) {
            goto out;
        }
        c = &o->coll[id];
        o_free_coll(c); /* a repeated collective replaces the earlier one */
        c->present = 1;
        if (0 != o_count(f, &c->ncomm, len)) {
            c->ncomm = 0;
            goto out;
        }
        c->comm = calloc((size_t)c->ncomm + 1, sizeof(o_comm_t));
        for (long i = 0; i < c->ncomm; i++) {
            if (0 != o_read_comm(f, &c->comm[i], version, len)) {
                goto out;
            }
        }
    }
    rc = 0;
out:
    fclose(f);
    if (0 != rc) {
        oracle_free(o);
    }
    return rc;
}

static const long *comm_size_of(void *v, long i) { return &((o_comm_t *)v)[i].size; }
static const long *msg_size_of(void *v, long i) { return &((o_msg_t *)v)[i].size; }

/* tuned's selection: the entry before the first one larger than `actual`
 * (the first entry when even it is larger). */
static long o_pick(long n, const long *size_of(void *, long), void *v, long actual)
{
    long best = 0;
    for (long i = 0; i < n && *size_of(v, i) <= actual; i++) {
        best = i;
    }
    return best;
}

/* tuned's algorithm for the call, 0 when no rule applies. */
static long oracle_select(const oracle_t *o, int coll_id, long p, long bytes, long *seg)
{
    const o_coll_t *c = &o->coll[coll_id];
    const o_comm_t *cm;
    const o_msg_t *mm;
    *seg = 0;
    if (!c->present || 0 == c->ncomm) {
        return 0;
    }
    cm = &c->comm[o_pick(c->ncomm, comm_size_of, c->comm, p)];
    if (0 == cm->nmsg) {
        return 0;
    }
    mm = &cm->msg[o_pick(cm->nmsg, msg_size_of, cm->msg, bytes)];
    *seg = mm->seg;
    return mm->alg;
}

/* rabred's reading of the same cell must agree with tuned's. */
static int oracle_agrees(const oracle_t *o, const rabred_rules_t *all, rabred_coll_t coll,
                         long p, long bytes)
{
    int tuned_coll = RABRED_COLL_ALLREDUCE == coll ? 2 : 11;
    long seg, tuned = oracle_select(o, tuned_coll, p, bytes, &seg);
    const rabred_alg_t *alg = tuned > 0 && tuned <= INT_MAX
                                  ? rabred_table_by_tuned_id(coll, (int)tuned) : NULL;
    int want = NULL != alg ? alg->id : RABRED_ALG_AUTO;
    int64_t want_seg = NULL != alg && alg->segmented ? seg : 0;
    rabred_rule_t hit;
    int found = rule_at(all, coll, (int)p, bytes, 1, &hit);
    int got = found ? hit.alg_id : RABRED_ALG_AUTO;
    int64_t got_seg = found ? hit.segsize : 0;
    return got == want && got_seg == want_seg;
}

/* Probe every entry boundary (and one either side) of both collectives. */
static int oracle_compare(const oracle_t *o, const rabred_rules_t *all)
{
    long ps[64], bs[64];
    int np = 0, nb = 0;
    ps[np++] = 1;
    ps[np++] = INT_MAX;
    bs[nb++] = 0;
    bs[nb++] = INT64_MAX;
    for (int k = 0; k < 2; k++) {
        const o_coll_t *c = &o->coll[0 == k ? 2 : 11];
        for (long i = 0; i < c->ncomm && np < 60; i++) {
            for (long d = -1; d <= 1; d++) {
                long v = c->comm[i].size + d; /* communicators have a rank at least */
                ps[np++] = v < 1 ? 1 : v > INT_MAX ? INT_MAX : v;
            }
            for (long j = 0; j < c->comm[i].nmsg && nb < 60; j++) {
                for (long d = -1; d <= 1; d++) {
                    long v = c->comm[i].msg[j].size;
                    bs[nb++] = v + d < 0 ? 0 : (d > 0 && v == LONG_MAX) ? v : v + d;
                }
            }
        }
    }
    for (int k = 0; k < 2; k++) {
        for (int a = 0; a < np; a++) {
            for (int b = 0; b < nb; b++) {
                if (!oracle_agrees(o, all, (rabred_coll_t)k, ps[a], bs[b])) {
                    fprintf(stderr, "  disagree: coll %d p %ld bytes %ld\n", k, ps[a], bs[b]);
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Sample files                                                       */

/* What an admin might have for coll/tuned: bcast rules too, comments,
 * both of tuned's chain reduces, segment sizes on every line. */
static const char realistic_classic[] =
    "# coll/tuned rules for the 2-socket nodes (coll_tuned_dynamic_rules_filename)\n"
    "3            # collectives\n"
    "7            # bcast\n"
    "2\n"
    "8            # comm size 8\n"
    "2\n"
    "0 6 0 0\n"
    "8192 7 0 65536\n"
    "64\n"
    "1\n"
    "0 6 0 0\n"
    "2            # allreduce\n"
    "3            # three comm sizes\n"
    "1            # comm size 1: the first entry serves smaller comms too\n"
    "2\n"
    "0 3 0 0      # recursive doubling\n"
    "4096 4 0 8192  # ring; its segsize means nothing to rabred\n"
    "16\n"
    "3\n"
    "0 3 0 0\n"
    "2048 6 0 0          # rabenseifner\n"
    "1048576 5 0 131072  # segmented ring, 128 KiB segments\n"
    "256\n"
    "2\n"
    "0 1 0 0             # basic linear\n"
    "65536 2 0 0         # nonoverlapping\n"
    "11           # reduce\n"
    "1\n"
    "0\n"
    "4\n"
    "0 5 0 0             # binomial\n"
    "16384 7 0 0         # rabenseifner\n"
    "262144 3 0 131072   # pipeline, 128 KiB segments\n"
    "4194304 2 1 32768   # chain of fan-out 1: rabred's pipeline too\n";

static const char header_named[] =
    "# the example of rabred_rules.h\n"
    "allreduce comm_size>=16 msg_size>=64K alg=binary_blocks\n"
    "allreduce msg_size>=1M commutative=yes alg=segmented_ring segsize=128K\n"
    "reduce comm_size=6 commutative=no alg=rabenseifner\n";

static const char *const classic_samples[] = {
    realistic_classic,
    "1\n2\n2\n4\n2\n0 3 0 0\n1024 6 0 0\n64\n1\n0 4 0 0\n",
    "rule-file-version-2\n1\n11\n1\n0\n2\n0 5 0 0 8\n4096 7 0 0\n",
    "2 2 1 0 1 0 5 0 65536 11 2 0 1 0 1 0 0 8 2 0 4 0 0 100 6 0 0\n",
};

static const char *const named_samples[] = {
    header_named,
    "allreduce msg_size<1K alg=recursive_doubling\n"
    "allreduce comm_size>4 comm_size<=8 commutative=no alg=binary_tree\n"
    "reduce msg_size>=2G alg=previous # giant\n"
    "reduce msg_size>=256K commutative=no alg=pipeline segsize=128K\n"
    "allreduce alg=auto\n",
};

/* ------------------------------------------------------------------ */
/* Tests: classic format                                              */

static void test_realistic_classic(void)
{
    const char *t = realistic_classic;
    msgs_t m;
    rabred_rules_t r;
    rabred_rule_t hit;
    int rd = id_of(RABRED_COLL_ALLREDUCE, "recursive_doubling");
    int ring = id_of(RABRED_COLL_ALLREDUCE, "pairwise_ring");
    int rab = id_of(RABRED_COLL_ALLREDUCE, "rabenseifner");
    int sring = id_of(RABRED_COLL_ALLREDUCE, "neighbor_ring");
    int lin = id_of(RABRED_COLL_ALLREDUCE, "linear");
    int tree = id_of(RABRED_COLL_ALLREDUCE, "binary_tree");
    int rbin = id_of(RABRED_COLL_REDUCE, "binomial");
    int rrab = id_of(RABRED_COLL_REDUCE, "rabenseifner");
    int rpipe = id_of(RABRED_COLL_REDUCE, "pipeline");
    msgs_init(&m, "tuned.rules");
    CHECK(RABRED_OK == parse_str(t, &m, &r), "realistic file rejected:\n%s", m.text);
    CHECK(11 == r.n, "%d rules", r.n);
    CHECK(has_msg(&m, 'N', line_of(t, "# bcast"), "bcast rules skipped"), "%s", m.text);
    CHECK(has_msg(&m, 'N', line_of(t, "its segsize"), "segment size 8192 ignored: pairwise_ring"),
          "%s", m.text);
    CHECK(0 == m.n[RABRED_RULES_WARNING] && 2 == m.n[RABRED_RULES_NOTE], "%s", m.text);
    CHECK(0 == m.unprefixed, "messages without the file name");
    /* comm sizes: [0..15] [16..255] [256..] */
    for (int p = 1; p <= 15; p++) {
        CHECK(rd == alg_at(&r, RABRED_COLL_ALLREDUCE, p, 4095, 1), "p=%d 4095", p);
        CHECK(ring == alg_at(&r, RABRED_COLL_ALLREDUCE, p, 4096, 0), "p=%d 4096", p);
    }
    CHECK(rd == alg_at(&r, RABRED_COLL_ALLREDUCE, 16, 2047, 1), "p=16 2047");
    CHECK(rab == alg_at(&r, RABRED_COLL_ALLREDUCE, 16, 2048, 1), "p=16 2048");
    CHECK(rab == alg_at(&r, RABRED_COLL_ALLREDUCE, 255, 1048575, 1), "p=255 1048575");
    CHECK(rule_at(&r, RABRED_COLL_ALLREDUCE, 255, 1048576, 1, &hit) && sring == hit.alg_id &&
              131072 == hit.segsize && line_of(t, "128 KiB") == hit.line,
          "segmented ring cell: alg %d seg %lld line %d", hit.alg_id, (long long)hit.segsize,
          hit.line);
    CHECK(rule_at(&r, RABRED_COLL_ALLREDUCE, 15, 1 << 20, 1, &hit) && 0 == hit.segsize,
          "ring keeps a segsize");
    CHECK(lin == alg_at(&r, RABRED_COLL_ALLREDUCE, 256, 65535, 1), "p=256 65535");
    CHECK(tree == alg_at(&r, RABRED_COLL_ALLREDUCE, 256, 65536, 1), "p=256 65536");
    CHECK(tree == alg_at(&r, RABRED_COLL_ALLREDUCE, INT_MAX, INT64_MAX, 0), "top corner");
    /* reduce: one comm entry (size 0) serves every communicator */
    CHECK(rbin == alg_at(&r, RABRED_COLL_REDUCE, 1, 16383, 0), "reduce 16383");
    CHECK(rrab == alg_at(&r, RABRED_COLL_REDUCE, 1000, 16384, 0), "reduce 16384");
    CHECK(rrab == alg_at(&r, RABRED_COLL_REDUCE, 7, 262143, 1), "reduce 262143");
    /* tuned's pipeline (3) and chain (2) are rabred's pipeline, segment sizes kept */
    CHECK(rule_at(&r, RABRED_COLL_REDUCE, 7, 262144, 0, &hit) && rpipe == hit.alg_id &&
              131072 == hit.segsize && line_of(t, "# pipeline") == hit.line,
          "pipeline cell: alg %d seg %lld", hit.alg_id, (long long)hit.segsize);
    CHECK(rule_at(&r, RABRED_COLL_REDUCE, 7, 4194304, 1, &hit) && rpipe == hit.alg_id &&
              32768 == hit.segsize && line_of(t, "# chain") == hit.line,
          "chain cell: alg %d seg %lld", hit.alg_id, (long long)hit.segsize);
    rabred_rules_free(&r);
    CHECK(NULL == r.rules && 0 == r.n, "free did not clear");
}

static void test_classic_scan_order(void)
{
    /* comm sizes 8, 4, 16: tuned takes entry 0 below 8, the "4" entry for
     * 8..15 (it scans in file order) and 16 from 16 up. */
    const char *t = "1\n2\n3\n8\n1\n0 1 0 0\n4 # out of order\n1\n0 3 0 0\n16\n1\n0 4 0 0\n";
    const char *d = "1\n2\n1\n0\n3\n0 1 0 0\n1024 3 0 0 # twice\n1024 4 0 0\n";
    msgs_t m;
    rabred_rules_t r;
    int lin = id_of(RABRED_COLL_ALLREDUCE, "linear"), rd = id_of(RABRED_COLL_ALLREDUCE,
                                                                 "recursive_doubling");
    int ring = id_of(RABRED_COLL_ALLREDUCE, "pairwise_ring");
    msgs_init(&m, "order");
    CHECK(RABRED_OK == parse_str(t, &m, &r), "%s", m.text);
    CHECK(lin == alg_at(&r, RABRED_COLL_ALLREDUCE, 7, 0, 1), "p=7");
    CHECK(rd == alg_at(&r, RABRED_COLL_ALLREDUCE, 8, 0, 1), "p=8");
    CHECK(rd == alg_at(&r, RABRED_COLL_ALLREDUCE, 15, 0, 1), "p=15");
    CHECK(ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 16, 0, 1), "p=16");
    CHECK(has_msg(&m, 'W', line_of(t, "out of order"), "below the earlier 8"), "%s", m.text);
    rabred_rules_free(&r);

    msgs_init(&m, "dup");
    CHECK(RABRED_OK == parse_str(d, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'W', line_of(d, "twice"), "never used"), "%s", m.text);
    CHECK(lin == alg_at(&r, RABRED_COLL_ALLREDUCE, 3, 1023, 1), "1023");
    CHECK(ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 3, 1024, 1), "1024: the later entry");
    CHECK(2 == r.n, "%d rules", r.n);
    rabred_rules_free(&r);
}

/* How numbers are read: version-2 max requests, text tuned skips, octal
 * and hex, all as coll/tuned reads them. */
static void test_classic_numbers(void)
{
    msgs_t m;
    rabred_rules_t r;
    int ring = id_of(RABRED_COLL_ALLREDUCE, "pairwise_ring");
    int rd = id_of(RABRED_COLL_ALLREDUCE, "recursive_doubling");
    int rbin = id_of(RABRED_COLL_REDUCE, "binomial");
    int rrab = id_of(RABRED_COLL_REDUCE, "rabenseifner");
    const char *stray = "1\n2\n1\n0\n2\n0 3 0 0\n64K 4 0 0 # K\n";
    const char *octal = "1\n2\n1\n0\n2\n0 3 0 0\n0100 4 0 0\n";
    const char *hex = "1\n2\n1\n0\n2\n0 3 0 0\n0x400 4 0 0\n";

    msgs_init(&m, "v2");
    CHECK(RABRED_OK == parse_str(classic_samples[2], &m, &r), "%s", m.text);
    CHECK(2 == r.n && rbin == alg_at(&r, RABRED_COLL_REDUCE, 4, 4095, 0) &&
              rrab == alg_at(&r, RABRED_COLL_REDUCE, 4, 4096, 0),
          "version 2 with max requests: %d rules\n%s", r.n, m.text);
    rabred_rules_free(&r);

    msgs_init(&m, "stray");
    CHECK(RABRED_OK == parse_str(stray, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'W', 7, "K is not a number"), "%s", m.text);
    CHECK(rd == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 63, 1) &&
              ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 64, 1),
          "64K must read as 64, as in tuned");
    rabred_rules_free(&r);

    msgs_init(&m, "octal");
    CHECK(RABRED_OK == parse_str(octal, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'W', 7, "octal (here 64)"), "%s", m.text);
    CHECK(ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 64, 1), "0100 is 64");
    rabred_rules_free(&r);

    /* a segment size on a cell whose algorithm does not segment is
     * dropped, with a note (tuned's files often carry one); on a segmented
     * one it is kept */
    const char *segs = "1\n2\n1\n0\n2\n0 4 0 32768\n1048576 5 0 16384\n";
    msgs_init(&m, "segs");
    CHECK(RABRED_OK == parse_str(segs, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'N', 6, "segment size 32768 ignored: pairwise_ring does not segment") &&
              0 == m.n[RABRED_RULES_WARNING],
          "%s", m.text);
    CHECK(2 == r.n && 0 == r.rules[0].segsize && 16384 == r.rules[1].segsize,
          "segment sizes kept: %lld %lld", r.n > 0 ? (long long)r.rules[0].segsize : -1LL,
          r.n > 1 ? (long long)r.rules[1].segsize : -1LL);
    rabred_rules_free(&r);

    msgs_init(&m, "hex");
    CHECK(RABRED_OK == parse_str(hex, &m, &r) && 0 == m.n[RABRED_RULES_WARNING], "%s", m.text);
    CHECK(ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 1024, 1) &&
              rd == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 1023, 1),
          "0x400 is 1024");
    rabred_rules_free(&r);
}

/* Blocks: repeated, trailing text, unknown ids, empty lists, others. */
static void test_classic_blocks(void)
{
    msgs_t m;
    rabred_rules_t r;
    int ring = id_of(RABRED_COLL_ALLREDUCE, "pairwise_ring");
    const char *twice = "2\n2\n1\n0\n1\n0 3 0 0\n2 # again\n1\n0\n1\n0 4 0 0\n";
    const char *trailing = "1\n2\n1\n0\n1\n0 3 0 0\n5 # extra\n";
    const char *unknown = "1\n2\n1\n0\n1\n0 9 0 0 # nine\n";
    const char *empty_msgs = "1\n2\n2\n0\n0\n16\n1\n0 4 0 0\n";

    msgs_init(&m, "twice");
    CHECK(RABRED_OK == parse_str(twice, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'W', line_of(twice, "again"), "first on line 2"), "%s", m.text);
    CHECK(1 == r.n && ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 0, 1), "later block wins");
    rabred_rules_free(&r);

    msgs_init(&m, "trailing");
    CHECK(RABRED_OK == parse_str(trailing, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'W', 7, "announced 1 collectives"), "%s", m.text);
    rabred_rules_free(&r);

    msgs_init(&m, "unknown");
    CHECK(RABRED_OK == parse_str(unknown, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'W', 6, "9 is not a coll/tuned allreduce algorithm"), "%s", m.text);
    CHECK(RABRED_ALG_AUTO == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 0, 1), "unknown -> auto");
    rabred_rules_free(&r);

    msgs_init(&m, "empty_msgs"); /* tuned: no msg rules = its fixed decision */
    CHECK(RABRED_OK == parse_str(empty_msgs, &m, &r), "%s", m.text);
    CHECK(-1 == alg_at(&r, RABRED_COLL_ALLREDUCE, 15, 0, 1) &&
              ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 16, 0, 1),
          "comm entry without msg entries");
    rabred_rules_free(&r);

    msgs_init(&m, "zero");
    CHECK(RABRED_OK == parse_str("0\n", &m, &r) && 0 == r.n, "zero collectives");
    msgs_init(&m, "bcast_only");
    CHECK(RABRED_OK == parse_str("1\n7\n1\n0\n1\n0 6 0 0\n", &m, &r) && 0 == r.n &&
              1 == m.n[RABRED_RULES_NOTE],
          "bcast only: %s", m.text);
}

/* A classic text that must be refused with an error "name:line: needle". */
static void expect_error(const char *name, const char *text, size_t len, int line,
                         const char *needle)
{
    msgs_t m;
    rabred_rules_t r = {(rabred_rule_t *)&r, 99};
    int rc;
    msgs_init(&m, name);
    rc = rabred_rules_parse(text, len, name, &r, collect, &m);
    CHECK(RABRED_ERR_ARG == rc && NULL == r.rules && 0 == r.n, "%s: rc %d n %d", name, rc, r.n);
    CHECK(has_msg(&m, 'E', line, needle), "%s: want line %d \"%s\", got:\n%s", name, line,
          needle, m.text);
    CHECK(0 == m.unprefixed, "%s: message without the file name", name);
}

static void expect_error_str(const char *name, const char *text, int line, const char *needle)
{
    expect_error(name, text, strlen(text), line, needle);
}

static void test_classic_errors(void)
{
    char big[200];
    expect_error_str("first0", "1\n2\n1\n0\n1\n5 3 0 0\n", 6, "first message size must be 0");
    expect_error_str("id22", "1\n22\n0\n", 2, "collective id 22");
    memset(big, '#', sizeof(big));
    memcpy(big, "23\n", 3);
    big[sizeof(big) - 1] = '\0';
    expect_error_str("ncoll23", big, 1, "23 collectives announced");
    expect_error_str("negcount", "-1\n", 1, "negative");
    expect_error_str("ncoll2^40", "1099511627776\n2\n", 1, "more than the rest of the file");
    expect_error_str("ncomm2^40", "1\n2\n1099511627776\n0 1\n0 1 0 0\n", 3,
                     "more than the rest of the file");
    expect_error_str("nmsg2^40", "1\n11\n1\n0\n1099511627776\n", 5, "more than the rest");
    expect_error_str("negalg", "1\n2\n1\n0\n1\n0 -3 0 0\n", 6, "the algorithm of entry 1");
    expect_error_str("truncated", "1\n2\n1\n0\n3\n0 3 0 0\n1024 4 0 0\n\n\n", 7,
                     "ends here, but the message size of entry 3 of 3");
    expect_error_str("truncated_comm", "1\n2\n2\n0\n1\n0 3 0 0\n# end\n", 7,
                     "communicator size 2 of 2");
    expect_error_str("intmax", "1\n2\n1\n3000000000\n1\n0 1 0 0\n", 4, "beyond INT_MAX");
    expect_error_str("overflow", "1\n2\n1\n0\n1\n0 99999999999999999999 0 0\n", 6, "too large");
    expect_error_str("version_late", "# hi\nrule-file-version-2\n0\n", 2, "must open the file");
    expect_error_str("version_nan", "rule-file-version-x\n0\n", 1, "needs a number");
}

/* ------------------------------------------------------------------ */
/* Tests: named format                                                */

static void test_named_header_example(void)
{
    msgs_t m;
    rabred_rules_t r;
    rabred_rule_t hit;
    int bb = id_of(RABRED_COLL_ALLREDUCE, "binary_blocks");
    int sr = id_of(RABRED_COLL_ALLREDUCE, "neighbor_ring");
    int rr = id_of(RABRED_COLL_REDUCE, "rabenseifner");
    msgs_init(&m, "named");
    CHECK(RABRED_OK == parse_str(header_named, &m, &r) && 3 == r.n, "%s", m.text);
    CHECK(0 == m.n[0] + m.n[1] + m.n[2], "unexpected messages:\n%s", m.text);
    CHECK(-1 == alg_at(&r, RABRED_COLL_ALLREDUCE, 16, 65535, 1), "16 / 64K-1");
    CHECK(bb == alg_at(&r, RABRED_COLL_ALLREDUCE, 16, 65536, 1), "16 / 64K");
    CHECK(bb == alg_at(&r, RABRED_COLL_ALLREDUCE, 16, 1 << 20, 1), "first match wins");
    CHECK(-1 == alg_at(&r, RABRED_COLL_ALLREDUCE, 15, 65536, 1), "15 / 64K");
    CHECK(-1 == alg_at(&r, RABRED_COLL_ALLREDUCE, 15, (1 << 20) - 1, 1), "15 / 1M-1");
    CHECK(rule_at(&r, RABRED_COLL_ALLREDUCE, 15, 1 << 20, 1, &hit) && sr == hit.alg_id &&
              131072 == hit.segsize && 3 == hit.line,
          "15 / 1M commutative");
    CHECK(-1 == alg_at(&r, RABRED_COLL_ALLREDUCE, 15, 1 << 20, 0), "15 / 1M non-commutative");
    CHECK(rr == alg_at(&r, RABRED_COLL_REDUCE, 6, 0, 0), "reduce 6 non-commutative");
    CHECK(-1 == alg_at(&r, RABRED_COLL_REDUCE, 6, 0, 1), "reduce 6 commutative");
    CHECK(-1 == alg_at(&r, RABRED_COLL_REDUCE, 5, 0, 0) && -1 == alg_at(&r, RABRED_COLL_REDUCE,
                                                                       7, 0, 0),
          "reduce 5 and 7");
    rabred_rules_free(&r);
}

static void test_named_syntax(void)
{
    const char *t =
        "allreduce comm_size>4 comm_size<=8 alg = ring   # blanks around = are fine\r\n"
        "allreduce comm_size<3 msg_size=0 alg=linear\n"
        "allreduce msg_size >= 2G alg=previous\n"
        "allreduce commutative=no msg_size>1K alg=binary_tree\n"
        "allreduce alg=auto\n"
        "reduce msg_size<1M alg=ring\n"
        "reduce alg=binary_blocks\n";
    msgs_t m;
    rabred_rules_t r;
    int ring = id_of(RABRED_COLL_ALLREDUCE, "pairwise_ring"), lin = id_of(RABRED_COLL_ALLREDUCE, "linear");
    int tree = id_of(RABRED_COLL_ALLREDUCE, "binary_tree");
    msgs_init(&m, "syntax");
    CHECK(RABRED_OK == parse_str(t, &m, &r) && 7 == r.n, "%s", m.text);
    CHECK(RABRED_ALG_AUTO == alg_at(&r, RABRED_COLL_ALLREDUCE, 4, 0, 1), "p=4 is not > 4");
    CHECK(ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 5, 0, 1), "p=5");
    CHECK(ring == alg_at(&r, RABRED_COLL_ALLREDUCE, 8, 0, 0), "p=8");
    CHECK(RABRED_ALG_AUTO == alg_at(&r, RABRED_COLL_ALLREDUCE, 9, 0, 1), "p=9");
    CHECK(lin == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 0, 1), "p=2 bytes=0");
    CHECK(RABRED_ALG_AUTO == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 1, 1), "p=2 bytes=1");
    CHECK(RABRED_ALG_PREVIOUS == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, 2LL << 30, 1), "2G");
    CHECK(RABRED_ALG_AUTO == alg_at(&r, RABRED_COLL_ALLREDUCE, 2, (2LL << 30) - 1, 1), "2G-1");
    CHECK(tree == alg_at(&r, RABRED_COLL_ALLREDUCE, 9, 1025, 0), "non-commutative > 1K");
    CHECK(RABRED_ALG_AUTO == alg_at(&r, RABRED_COLL_ALLREDUCE, 9, 1024, 0), "= 1K");
    CHECK(RABRED_ALG_AUTO == alg_at(&r, RABRED_COLL_ALLREDUCE, 9, 1025, 1), "commutative");
    CHECK(id_of(RABRED_COLL_REDUCE, "pairwise_gather") == alg_at(&r, RABRED_COLL_REDUCE, 3, (1 << 20) - 1, 1),
          "reduce 1M-1");
    CHECK(id_of(RABRED_COLL_REDUCE, "binary_blocks") == alg_at(&r, RABRED_COLL_REDUCE, 3,
                                                                1 << 20, 1),
          "reduce 1M");
    rabred_rules_free(&r);
}

static void test_named_order_and_warnings(void)
{
    const char *shadow = "allreduce alg=linear\nallreduce msg_size<1K alg=ring\n";
    const char *seg = "allreduce alg=ring segsize=64K\n";
    msgs_t m;
    rabred_rules_t r;
    rabred_rule_t hit;
    msgs_init(&m, "shadow");
    CHECK(RABRED_OK == parse_str(shadow, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'W', 2, "the rule on line 1"), "%s", m.text);
    CHECK(id_of(RABRED_COLL_ALLREDUCE, "linear") == alg_at(&r, RABRED_COLL_ALLREDUCE, 4, 10, 1),
          "first match wins");
    rabred_rules_free(&r);
    msgs_init(&m, "seg");
    CHECK(RABRED_OK == parse_str(seg, &m, &r), "%s", m.text);
    CHECK(has_msg(&m, 'W', 1, "ring does not segment"), "%s", m.text);
    CHECK(rule_at(&r, RABRED_COLL_ALLREDUCE, 4, 0, 1, &hit) && 0 == hit.segsize, "seg dropped");
    rabred_rules_free(&r);
}

/* segsize= stays with the algorithms the table marks segmented (the
 * segmented ring and the pipeline) and is dropped, with a warning, from
 * the others. */
static void test_named_segsize(void)
{
    const char *t = "reduce msg_size>=256K alg=pipeline segsize=128K\n"
                    "allreduce alg=segmented_ring segsize=1M\n"
                    "reduce alg=binomial segsize=64K\n";
    int pipe = id_of(RABRED_COLL_REDUCE, "pipeline"), bin = id_of(RABRED_COLL_REDUCE, "binomial");
    msgs_t m;
    rabred_rules_t r;
    rabred_rule_t hit;
    msgs_init(&m, "segsize");
    CHECK(RABRED_OK == parse_str(t, &m, &r) && 3 == r.n, "%s", m.text);
    CHECK(1 == m.n[RABRED_RULES_WARNING] && has_msg(&m, 'W', 3, "binomial does not segment"),
          "%s", m.text);
    CHECK(rule_at(&r, RABRED_COLL_REDUCE, 8, 256 << 10, 0, &hit) && pipe == hit.alg_id &&
              131072 == hit.segsize && 1 == hit.line,
          "pipeline: alg %d seg %lld", hit.alg_id, (long long)hit.segsize);
    CHECK(rule_at(&r, RABRED_COLL_ALLREDUCE, 8, 0, 1, &hit) && (1 << 20) == hit.segsize,
          "segmented ring: seg %lld", (long long)hit.segsize);
    CHECK(rule_at(&r, RABRED_COLL_REDUCE, 8, (256 << 10) - 1, 1, &hit) && bin == hit.alg_id &&
              0 == hit.segsize,
          "binomial: alg %d seg %lld", hit.alg_id, (long long)hit.segsize);
    rabred_rules_free(&r);
}

static void test_named_errors(void)
{
    static const struct {
        const char *line, *needle;
    } bad[] = {
        {"bcast alg=ring", "unknown collective bcast"},
        {"allreduce foo=1 alg=ring", "unknown key foo"},
        {"allreduce msg_size=>1K alg=ring", "bad operator =>"},
        {"allreduce msg_size>=1X alg=ring", "1X is not a size"},
        {"allreduce msg_size>=99999999999999999999 alg=ring", "too large"},
        {"allreduce msg_size>=17179869184G alg=ring", "too large"},
        {"allreduce comm_size>=3000000000 alg=ring", "beyond INT_MAX"},
        {"allreduce msg_size>=-1 alg=ring", "-1 is negative"},
        {"allreduce alg=nosuch", "unknown allreduce algorithm nosuch (known: "},
        {"allreduce msg_size>=1K", "no alg="},
        {"allreduce alg=ring alg=linear", "duplicate alg="},
        {"allreduce msg_size>=1M msg_size<1K alg=ring", "no message size satisfies"},
        {"allreduce comm_size=4 comm_size=5 alg=ring", "no communicator size satisfies"},
        {"allreduce commutative=no alg=ring", "ring needs a commutative operation"},
        {"allreduce alg=auto segsize=64K", "segsize= with alg=auto"},
        {"allreduce alg=previous segsize=0", "segsize= with alg=previous"},
        {"reduce alg=bruck", "unknown reduce algorithm bruck"},
        {"allreduce commutative=maybe alg=ring", "use yes or no"},
        {"allreduce msg_size 5 alg=ring", "expected key<op>value"},
        {"allreduce alg<ring", "bad operator <"},
    };
    char text[4096];
    size_t used = 0;
    msgs_t m;
    rabred_rules_t r;
    int n = (int)(sizeof(bad) / sizeof(bad[0]));
    used += (size_t)snprintf(text, sizeof(text), "allreduce alg=ring   # line 1 is fine\n");
    for (int i = 0; i < n; i++) {
        used += (size_t)snprintf(text + used, sizeof(text) - used, "%s\n", bad[i].line);
    }
    /* no communicator has fewer than one rank (apart: the list above is
     * at the parser's cap of 20 errors) */
    expect_error_str("no_comm_lt1", "allreduce comm_size<1 alg=ring\n", 1,
                     "no communicator size satisfies");
    expect_error_str("no_comm_0", "reduce comm_size=0 alg=binomial\n", 1,
                     "no communicator size satisfies");
    msgs_init(&m, "errors.rules");
    CHECK(RABRED_ERR_ARG == parse_str(text, &m, &r) && NULL == r.rules, "errors accepted");
    for (int i = 0; i < n; i++) {
        CHECK(has_msg(&m, 'E', i + 2, bad[i].needle), "line %d (%s): want \"%s\"", i + 2,
              bad[i].line, bad[i].needle);
    }
    CHECK(n == m.n[RABRED_RULES_ERROR], "%d errors for %d bad lines:\n%s",
          m.n[RABRED_RULES_ERROR], n, m.text);
    /* every single bad line alone is refused too */
    for (int i = 0; i < n; i++) {
        expect_error_str("one", bad[i].line, 1, bad[i].needle);
    }
}

static void test_error_cap(void)
{
    char text[4096] = "";
    msgs_t m;
    rabred_rules_t r;
    for (int i = 0; i < 100; i++) {
        strcat(text, "bogus\n");
    }
    msgs_init(&m, "cap");
    CHECK(RABRED_ERR_ARG == parse_str(text, &m, &r), "bogus accepted");
    CHECK(RABRED_RULES_MAX_MESSAGES + 1 == m.n[RABRED_RULES_ERROR], "%d errors",
          m.n[RABRED_RULES_ERROR]);
    CHECK(NULL != strstr(m.text, "too many errors"), "no cap message");
    CHECK(has_msg(&m, 'E', RABRED_RULES_MAX_MESSAGES, "unknown collective"), "%s", m.text);
}

/* ------------------------------------------------------------------ */
/* Tests: hostile input                                               */

static void test_hostile(void)
{
    static const char nul[] = "allreduce alg=ring\n\0\0\0";
    static const char high[] = "allreduce alg=ring \xc3\xa9\n";
    static const char high_comment[] = "# caf\xc3\xa9 rules\nallreduce alg=ring # \xff\n";
    char *buf;
    msgs_t m;
    rabred_rules_t r;

    msgs_init(&m, "empty");
    CHECK(RABRED_OK == rabred_rules_parse(NULL, 0, "empty", &r, collect, &m) && 0 == r.n,
          "NULL, 0");
    CHECK(RABRED_OK == parse_str("", &m, &r) && 0 == r.n, "empty text");
    CHECK(RABRED_OK == parse_str("# only\n   # comments\n\n\t\n", &m, &r) && 0 == r.n, "comments");
    CHECK(0 == m.n[0] + m.n[1] + m.n[2], "messages for empty input");
    CHECK(RABRED_ERR_ARG == rabred_rules_parse("x", 1, "n", NULL, NULL, NULL), "NULL out");
    CHECK(RABRED_ERR_ARG == rabred_rules_parse(NULL, 3, "n", &r, NULL, NULL), "NULL text");

    expect_error_str("binary", "\x01\x02" "abc\n", 1, "control byte 0x01");
    expect_error("nul", nul, sizeof(nul) - 1, 2, "NUL byte in column 1");
    expect_error_str("high", high, 1, "non-ASCII byte 0xc3 in column 20");
    msgs_init(&m, "high_comment");
    CHECK(RABRED_OK == parse_str(high_comment, &m, &r) && 1 == r.n, "%s", m.text);
    rabred_rules_free(&r);

    buf = malloc(RABRED_RULES_MAX_BYTES + 2);
    memset(buf, 'a', RABRED_RULES_MAX_LINE + 1);
    buf[RABRED_RULES_MAX_LINE + 1] = '\0';
    expect_error_str("longline", buf, 1, "longer than 4096 bytes");
    memset(buf, ' ', RABRED_RULES_MAX_BYTES + 1);
    for (int i = 100; i < RABRED_RULES_MAX_BYTES; i += 100) {
        buf[i] = '\n';
    }
    msgs_init(&m, "max");
    CHECK(RABRED_OK == rabred_rules_parse(buf, RABRED_RULES_MAX_BYTES, "max", &r, collect, &m) &&
              0 == r.n,
          "exactly the byte limit: %s", m.text);
    expect_error("toolarge", buf, RABRED_RULES_MAX_BYTES + 1, 0, "larger than the");
    free(buf);
}

/* The text is read through len only: no terminator, junk after it. */
static void test_unterminated(void)
{
    static const char full[] = "allreduce alg=ring\nallreduce alg=linearXXX garbage \x01";
    size_t len = strlen("allreduce alg=ring\nallreduce alg=linear");
    char *exact = malloc(len);
    msgs_t m;
    rabred_rules_t r;
    memcpy(exact, full, len); /* no NUL anywhere: ASan / valgrind catch overreads */
    msgs_init(&m, "exact");
    CHECK(RABRED_OK == rabred_rules_parse(exact, len, "exact", &r, collect, &m) && 2 == r.n &&
              id_of(RABRED_COLL_ALLREDUCE, "linear") == r.rules[1].alg_id,
          "%s", m.text);
    rabred_rules_free(&r);
    free(exact);
    {
        static const char classic[] = "1\n2\n1\n0\n1\n0 3 0 0 # no newline";
        size_t n = sizeof(classic) - 1;
        char *c = malloc(n);
        memcpy(c, classic, n);
        msgs_init(&m, "classic_exact");
        CHECK(RABRED_OK == rabred_rules_parse(c, n, "classic_exact", &r, collect, &m) && 1 == r.n,
              "%s", m.text);
        rabred_rules_free(&r);
        msgs_init(&m, "classic_cut");
        CHECK(RABRED_ERR_ARG == rabred_rules_parse(c, 16, "classic_cut", &r, collect, &m) &&
                  has_msg(&m, 'E', 6, "the segment size of entry 1"),
              "cut: %s", m.text);
        free(c);
    }
}

static void test_rule_limit(void)
{
    size_t cap = 40 * (RABRED_RULES_MAX_RULES + 2) + 64, used;
    char *buf = malloc(cap);
    msgs_t m;
    rabred_rules_t r;
    /* named: MAX rules are fine, one more is refused */
    used = 0;
    for (int i = 0; i <= RABRED_RULES_MAX_RULES; i++) {
        if (RABRED_RULES_MAX_RULES == i) {
            msgs_init(&m, "limit");
            CHECK(RABRED_OK == rabred_rules_parse(buf, used, "limit", &r, collect, &m) &&
                      RABRED_RULES_MAX_RULES == r.n,
                  "exactly the limit: %d", r.n);
            rabred_rules_free(&r);
        }
        used += (size_t)snprintf(buf + used, cap - used, "allreduce msg_size=%d alg=ring\n", i);
    }
    msgs_init(&m, "limit");
    CHECK(RABRED_ERR_ARG == rabred_rules_parse(buf, used, "limit", &r, collect, &m) &&
              has_msg(&m, 'E', RABRED_RULES_MAX_RULES + 1, "more than 10000 rules"),
          "named: %.300s", m.text);
    /* classic: one collective with MAX + 1 message sizes */
    used = (size_t)snprintf(buf, cap, "1\n2\n1\n0\n%d\n", RABRED_RULES_MAX_RULES + 1);
    for (int i = 0; i <= RABRED_RULES_MAX_RULES; i++) {
        used += (size_t)snprintf(buf + used, cap - used, "%d 4 0 0\n", i);
    }
    msgs_init(&m, "climit");
    CHECK(RABRED_ERR_ARG == rabred_rules_parse(buf, used, "climit", &r, collect, &m) &&
              NULL != strstr(m.text, "more than 10000 rules"),
          "classic: %.300s", m.text);
    free(buf);
}

/* ------------------------------------------------------------------ */
/* Tests: load                                                        */

static char *temp_file(const char *content, size_t len)
{
    const char *dir = getenv("TMPDIR");
    char *path = malloc(4096);
    int fd;
    snprintf(path, 4096, "%s/test_rules_XXXXXX", NULL != dir ? dir : "/tmp");
    fd = mkstemp(path);
    if (fd < 0 || (len > 0 && write(fd, content, len) != (ssize_t)len)) {
        fprintf(stderr, "cannot make a temporary file: %s\n", strerror(errno));
        exit(2);
    }
    close(fd);
    return path;
}

static void test_load(void)
{
    msgs_t m;
    rabred_rules_t r, direct;
    char *path = temp_file(header_named, strlen(header_named)), *big;
    msgs_init(&m, path);
    CHECK(RABRED_OK == rabred_rules_load(path, &r, collect, &m), "%s", m.text);
    msgs_init(&m, "direct");
    CHECK(RABRED_OK == parse_str(header_named, &m, &direct) && rules_equal(&r, &direct),
          "load differs from parse");
    rabred_rules_free(&r);
    rabred_rules_free(&direct);
    unlink(path);
    free(path);

    msgs_init(&m, "/nonexistent/rabred.rules");
    CHECK(RABRED_ERR_ARG == rabred_rules_load(m.name, &r, collect, &m) && NULL == r.rules,
          "missing file");
    CHECK(NULL != strstr(m.text, "E /nonexistent/rabred.rules: cannot open: ") &&
              NULL != strstr(m.text, strerror(ENOENT)),
          "%s", m.text);
    msgs_init(&m, "/");
    CHECK(RABRED_ERR_ARG == rabred_rules_load("/", &r, collect, &m) &&
              1 == m.n[RABRED_RULES_ERROR] && NULL != strstr(m.text, "not a regular file"),
          "directory: %s", m.text);
    /* a FIFO nobody writes to: refused at once (reading it would wait for
     * a writer forever: an MPI_Init that never returns) */
    char fifo[] = "/tmp/rabred-rules-fifo-XXXXXX";
    int tmp = mkstemp(fifo);
    if (tmp >= 0) {
        close(tmp);
        unlink(fifo);
    }
    if (tmp >= 0 && 0 == mkfifo(fifo, 0600)) {
        msgs_init(&m, fifo);
        CHECK(RABRED_ERR_ARG == rabred_rules_load(fifo, &r, collect, &m) && NULL == r.rules &&
                  NULL != strstr(m.text, "not a regular file"),
              "FIFO: %s", m.text);
        unlink(fifo);
    } else {
        CHECK(0, "cannot make a FIFO to test with: %s", strerror(errno));
    }

    big = malloc(RABRED_RULES_MAX_BYTES + 10);
    memset(big, '\n', RABRED_RULES_MAX_BYTES + 10);
    path = temp_file(big, RABRED_RULES_MAX_BYTES + 10);
    msgs_init(&m, path);
    CHECK(RABRED_ERR_ARG == rabred_rules_load(path, &r, collect, &m) &&
              NULL != strstr(m.text, "larger than the"),
          "big file: %s", m.text);
    unlink(path);
    free(path);
    free(big);
}

/* ------------------------------------------------------------------ */
/* Tests: prune and lookup                                            */

static void test_prune_lookup(void)
{
    rabred_rule_t rules[] = {
        {RABRED_COLL_ALLREDUCE, 4, 8, 0, 99, 1, 3, 0, 1},
        {RABRED_COLL_REDUCE, 0, INT_MAX, 0, INT64_MAX, -1, 1, 0, 2},
        {RABRED_COLL_ALLREDUCE, 0, INT_MAX, 100, 100, -1, 4, 0, 3},
        {RABRED_COLL_ALLREDUCE, 8, 8, 0, INT64_MAX, 0, 5, 0, 4},
    };
    rabred_rules_t all = {rules, 4}, pruned;
    CHECK(RABRED_OK == rabred_rules_prune(&all, RABRED_COLL_ALLREDUCE, 8, &pruned) &&
              3 == pruned.n && 1 == pruned.rules[0].line && 3 == pruned.rules[1].line &&
              4 == pruned.rules[2].line,
          "prune keeps order");
    CHECK(1 == rabred_rules_lookup(&pruned, 99, 1)->line, "commutative 99");
    CHECK(4 == rabred_rules_lookup(&pruned, 99, 0)->line, "non-commutative 99");
    CHECK(3 == rabred_rules_lookup(&pruned, 100, 0)->line, "100");
    CHECK(4 == rabred_rules_lookup(&pruned, 101, 0)->line, "101 non-commutative");
    CHECK(NULL == rabred_rules_lookup(&pruned, 101, 1), "101 commutative");
    CHECK(1 == rabred_rules_lookup(&pruned, 0, 7)->line, "any non-zero is commutative");
    rabred_rules_free(&pruned);
    CHECK(RABRED_OK == rabred_rules_prune(&all, RABRED_COLL_ALLREDUCE, 3, &pruned) &&
              1 == pruned.n,
          "p=3");
    rabred_rules_free(&pruned);
    CHECK(RABRED_OK == rabred_rules_prune(&all, RABRED_COLL_ALLREDUCE, 9, &pruned) &&
              1 == pruned.n && 3 == pruned.rules[0].line,
          "p=9");
    rabred_rules_free(&pruned);
    all.n = 0;
    CHECK(RABRED_OK == rabred_rules_prune(&all, RABRED_COLL_REDUCE, 9, &pruned) && 0 == pruned.n &&
              NULL == rabred_rules_lookup(&pruned, 0, 1),
          "empty");
    CHECK(RABRED_ERR_ARG == rabred_rules_prune(NULL, RABRED_COLL_REDUCE, 9, &pruned), "NULL");
    CHECK(NULL == rabred_rules_lookup(NULL, 0, 1), "NULL lookup");
}

/* ------------------------------------------------------------------ */
/* Tests: digest                                                      */

static uint64_t digest_of(const char *text)
{
    msgs_t m;
    rabred_rules_t r;
    msgs_init(&m, "digest");
    if (RABRED_OK != parse_str(text, &m, &r)) {
        fprintf(stderr, "test bug: digest sample refused:\n%s", m.text);
        exit(2);
    }
    uint64_t h = rabred_rules_digest(RABRED_DIGEST_INIT, &r);
    rabred_rules_free(&r);
    return h;
}

/* The ranks compare digests to be sure they decide alike: the digest must
 * follow what the rules decide, and only that. */
static void test_digest(void)
{
    const char *base = "allreduce comm_size>=4 msg_size>=64K alg=ring\nreduce alg=binomial\n";
    const char *changed[] = {
        "allreduce comm_size>=5 msg_size>=64K alg=ring\nreduce alg=binomial\n",
        "allreduce comm_size>=4 msg_size>=64K alg=bruck\nreduce alg=binomial\n",
        "allreduce comm_size>=4 msg_size>=64K alg=segmented_ring\nreduce alg=binomial\n",
        "allreduce comm_size>=4 msg_size>=64K commutative=yes alg=ring\nreduce alg=binomial\n",
        "reduce alg=binomial\nallreduce comm_size>=4 msg_size>=64K alg=ring\n", /* order */
        "allreduce comm_size>=4 msg_size>=64K alg=ring\n",
    };
    rabred_rules_t none = {NULL, 0};
    uint64_t h = digest_of(base), empty = rabred_rules_digest(RABRED_DIGEST_INIT, &none);
    CHECK(h == digest_of("# the same rules\n\n  allreduce  msg_size>=65536   comm_size>=4 "
                         "alg=ring  # a comment\nreduce alg=binomial\n"),
          "comments, spacing, line numbers and the order of conditions changed the digest");
    for (size_t i = 0; i < sizeof(changed) / sizeof(changed[0]); i++) {
        CHECK(h != digest_of(changed[i]), "digest unchanged by a different rule set:\n%s",
              changed[i]);
    }
    CHECK(digest_of(changed[2]) != digest_of("allreduce comm_size>=4 msg_size>=64K "
                                             "alg=segmented_ring segsize=32K\nreduce alg=binomial\n"),
          "a segment size did not change the digest");
    CHECK(h == digest_of("allreduce comm_size>=4 msg_size>=64K alg=ring segsize=32K\n"
                         "reduce alg=binomial\n"),
          "a segment size the ring ignores (dropped with a note) changed the digest");
    CHECK(empty != h, "no rules digest like some rules");
    CHECK(empty == rabred_rules_digest(RABRED_DIGEST_INIT, NULL), "NULL rules: not as none");
    CHECK(RABRED_DIGEST_INIT == rabred_digest(RABRED_DIGEST_INIT, "x", 0), "0 bytes changed h");
    CHECK(rabred_digest(RABRED_DIGEST_INIT, "ab", 2) != rabred_digest(RABRED_DIGEST_INIT, "ba", 2),
          "byte order not digested");

    /* a classic file and its named rewrite decide alike, and digest alike */
    msgs_t m;
    rabred_rules_t classic, named;
    msgs_init(&m, "realistic");
    CHECK(RABRED_OK == parse_str(realistic_classic, &m, &classic), "%s", m.text);
    CHECK(RABRED_OK == write_and_parse(rabred_rules_write_named, &classic, &named, NULL),
          "named rewrite of the classic sample");
    CHECK(rabred_rules_digest(RABRED_DIGEST_INIT, &classic) ==
              rabred_rules_digest(RABRED_DIGEST_INIT, &named),
          "a classic file and its named rewrite digest differently");
    rabred_rules_free(&classic);
    rabred_rules_free(&named);
}

/* ------------------------------------------------------------------ */
/* Tests: writers                                                     */

static void test_write_named(void)
{
    for (size_t s = 0; s < sizeof(named_samples) / sizeof(named_samples[0]); s++) {
        msgs_t m;
        rabred_rules_t r, back;
        msgs_init(&m, "sample");
        CHECK(RABRED_OK == parse_str(named_samples[s], &m, &r), "%s", m.text);
        CHECK(RABRED_OK == write_and_parse(rabred_rules_write_named, &r, &back, NULL) &&
                  rules_equal(&r, &back),
              "named sample %zu does not read back", s);
        rabred_rules_free(&r);
        rabred_rules_free(&back);
    }
}

static void test_write_classic_roundtrip(void)
{
    msgs_t m;
    rabred_rules_t r, back, again;
    oracle_t o;
    char *text = NULL;
    msgs_init(&m, "realistic");
    CHECK(RABRED_OK == parse_str(realistic_classic, &m, &r), "%s", m.text);
    CHECK(RABRED_OK == write_and_parse(rabred_rules_write_classic, &r, &back, &text) &&
              rules_equal(&r, &back),
          "classic write/read differs:\n%s", text);
    CHECK(0 == oracle_load(text, strlen(text), &o), "tuned would refuse:\n%s", text);
    CHECK(oracle_compare(&o, &back), "tuned reads the written file differently");
    oracle_free(&o);
    free(text);
    /* the named writer takes the same rules, and back again */
    CHECK(RABRED_OK == write_and_parse(rabred_rules_write_named, &back, &again, NULL) &&
              rules_equal(&back, &again),
          "classic rules through the named writer");
    rabred_rules_free(&r);
    rabred_rules_free(&back);
    rabred_rules_free(&again);

    /* communicator sizes from 0 (tuned accepts them): size 0 matches no
     * communicator, and what is accepted survives the named round trip
     * (it once wrote comm_size=0, which the named parser refuses) */
    static const char from_zero[] = "1\n2\n2\n"
                                    "0\n1\n0 3 0 0\n"   /* comm size 0: recursive doubling */
                                    "1\n1\n0 4 0 0\n";  /* from 1: ring */
    text = NULL;
    msgs_init(&m, "from zero");
    CHECK(RABRED_OK == parse_str(from_zero, &m, &r) && 1 == r.n && 1 == r.rules[0].comm_min,
          "comm sizes from 0: %d rules, first from %d (%s)", r.n, r.n ? r.rules[0].comm_min : -1,
          m.text);
    CHECK(RABRED_OK == write_and_parse(rabred_rules_write_named, &r, &back, &text) &&
              rules_equal(&r, &back),
          "comm sizes from 0 through the named writer:\n%s", text ? text : "");
    free(text);
    rabred_rules_free(&r);
    rabred_rules_free(&back);
}

/* A grid with holes and an algorithm tuned lacks: holes and binary_blocks
 * come back as auto, which is what a call without a rule gets anyway. */
static void test_write_classic_gaps(void)
{
    int ring = id_of(RABRED_COLL_ALLREDUCE, "pairwise_ring"), bb = id_of(RABRED_COLL_ALLREDUCE,
                                                                "binary_blocks");
    int sr = id_of(RABRED_COLL_ALLREDUCE, "neighbor_ring");
    rabred_rule_t rules[] = {
        {RABRED_COLL_REDUCE, 0, INT_MAX, 0, INT64_MAX, -1, RABRED_ALG_PREVIOUS, 0, 1},
        {RABRED_COLL_ALLREDUCE, 4, 7, 100, 199, -1, ring, 0, 2},
        {RABRED_COLL_ALLREDUCE, 4, 7, 500, 599, -1, sr, 4096, 3},
        {RABRED_COLL_ALLREDUCE, 8, INT_MAX, 0, INT64_MAX, -1, bb, 0, 4},
    };
    rabred_rules_t in = {rules, 4}, back;
    rabred_rule_t hit;
    char *text = NULL;
    oracle_t o;
    CHECK(RABRED_OK == write_and_parse(rabred_rules_write_classic, &in, &back, &text), "gaps");
    CHECK(ring == alg_at(&back, RABRED_COLL_ALLREDUCE, 4, 100, 1) &&
              ring == alg_at(&back, RABRED_COLL_ALLREDUCE, 7, 199, 0),
          "ring cell:\n%s", text);
    CHECK(rule_at(&back, RABRED_COLL_ALLREDUCE, 5, 550, 1, &hit) && sr == hit.alg_id &&
              4096 == hit.segsize,
          "segmented ring cell");
    for (int p = 1; p <= 12; p++) {
        int64_t probes[] = {0, 99, 200, 499, 600, INT64_MAX};
        for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++) {
            CHECK(RABRED_ALG_AUTO == alg_at(&back, RABRED_COLL_ALLREDUCE, p, probes[k], 1),
                  "hole p=%d bytes=%lld:\n%s", p, (long long)probes[k], text);
        }
        CHECK(RABRED_ALG_AUTO == alg_at(&back, RABRED_COLL_REDUCE, p, 0, 1), "previous -> 0");
    }
    CHECK(NULL != strstr(text, "binary_blocks (no coll/tuned id"), "%s", text);
    CHECK(0 == oracle_load(text, strlen(text), &o) && oracle_compare(&o, &back),
          "tuned reads it otherwise:\n%s", text);
    oracle_free(&o);
    free(text);
    rabred_rules_free(&back);
}

static long written_bytes(int (*writer)(FILE *, const rabred_rules_t *), rabred_rule_t *rules,
                          int n, int *rc)
{
    rabred_rules_t in = {rules, n};
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    *rc = writer(f, &in);
    fclose(f);
    free(buf);
    return (long)size;
}

/* Rules a writer must refuse (writing nothing): the classic one also
 * needs tuned's grid, the named one only rules the parser could produce. */
#define A RABRED_COLL_ALLREDUCE
#define R RABRED_COLL_REDUCE
#define ANY (-1) /* commutative or not */
#define TOP INT_MAX
#define INF INT64_MAX
static void test_writers_refuse(void)
{
    const int ring = id_of(A, "pairwise_ring");
    static struct {
        const char *why;
        int n, named_ok;
        rabred_rule_t r[3];
    } cases[] = {
        {"commutative", 1, 1, {{A, 0, TOP, 0, INF, 1, 0, 0, 1}}},
        {"overlapping msg ranges", 2, 1,
         {{A, 0, TOP, 0, 100, ANY, 0, 0, 1}, {A, 0, TOP, 100, INF, ANY, 0, 0, 2}}},
        {"descending comm groups", 2, 1,
         {{A, 8, TOP, 0, INF, ANY, 0, 0, 1}, {A, 0, 7, 0, INF, ANY, 0, 0, 2}}},
        {"a collective in two runs", 3, 1,
         {{A, 0, TOP, 0, 5, ANY, 0, 0, 1}, {R, 0, TOP, 0, INF, ANY, 0, 0, 2},
          {A, 0, TOP, 6, INF, ANY, 0, 0, 3}}},
        {"unknown algorithm", 1, 0, {{A, 0, TOP, 0, INF, ANY, 99, 0, 1}}},
        {"segsize on ring", 1, 0, {{A, 0, TOP, 0, INF, ANY, -2, 4096, 1}}},
        {"empty comm range", 1, 0, {{A, 5, 4, 0, INF, ANY, 0, 0, 1}}},
        {"segsize on auto", 1, 0, {{A, 0, TOP, 0, INF, ANY, 0, 1, 1}}},
        {"ring for non-commutative ops", 1, 0, {{A, 0, TOP, 0, INF, 0, -2, 0, 1}}},
    };
    int rc;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (int k = 0; k < cases[i].n; k++) { /* -2: ring, whose id the table owns */
            cases[i].r[k].alg_id = -2 == cases[i].r[k].alg_id ? ring : cases[i].r[k].alg_id;
        }
        CHECK(0 == written_bytes(rabred_rules_write_classic, cases[i].r, cases[i].n, &rc) &&
                  RABRED_ERR_ARG == rc,
              "classic writer took: %s", cases[i].why);
        CHECK((written_bytes(rabred_rules_write_named, cases[i].r, cases[i].n, &rc) > 0) ==
                      cases[i].named_ok &&
                  (RABRED_OK == rc) == cases[i].named_ok,
              "named writer on %s: %d", cases[i].why, rc);
    }
}
#undef A
#undef R
#undef ANY
#undef TOP
#undef INF

/* A full disk, a missing stream, missing rules. */
static void test_writers_io(void)
{
    rabred_rule_t one = {RABRED_COLL_ALLREDUCE, 0, INT_MAX, 0, INT64_MAX, -1, 0, 0, 1};
    rabred_rules_t in = {&one, 1};
    FILE *full = fopen("/dev/full", "w");
    if (NULL != full) {
        CHECK(RABRED_ERR_ARG == rabred_rules_write_named(full, &in), "write error unseen");
        fclose(full);
    }
    CHECK(RABRED_ERR_ARG == rabred_rules_write_classic(NULL, &in), "NULL file");
    CHECK(RABRED_ERR_ARG == rabred_rules_write_named(stdout, NULL), "NULL rules");
}

/* ------------------------------------------------------------------ */
/* Fuzzing                                                            */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static char random_char(void)
{
    static const char texty[] = "0123456789    \n\n\t#-+=<>!KMGx.abcdefgilmnoprsuyz_";
    return (rng() & 3) ? texty[rng() % (sizeof(texty) - 1)] : (char)(rng() & 0xff);
}

/* Same rule as rabred's: the first token that is not a comment. */
static int looks_classic(const char *t, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if ('#' == t[i]) {
            while (i < len && '\n' != t[i]) {
                i++;
            }
        } else if (' ' == t[i] || '\t' == t[i] || '\r' == t[i] || '\v' == t[i] ||
                   '\f' == t[i] || '\n' == t[i]) {
            i++;
        } else {
            return (t[i] >= '0' && t[i] <= '9') ||
                   (len - i >= 18 && 0 == memcmp(t + i, "rule-file-version-", 18)) ||
                   (('-' == t[i] || '+' == t[i]) && i + 1 < len && t[i + 1] >= '0' &&
                    t[i + 1] <= '9');
        }
    }
    return 0;
}

static size_t mutate(char *buf, size_t len, size_t cap)
{
    int ops = 1 + (int)(rng() % 4);
    for (int k = 0; k < ops; k++) {
        size_t at = len > 0 ? (size_t)(rng() % len) : 0;
        switch (rng() % 6) {
        case 0: /* replace */
            if (len > 0) {
                buf[at] = random_char();
            }
            break;
        case 1: /* insert */
            if (len + 1 < cap) {
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = random_char();
                len++;
            }
            break;
        case 2: /* delete */
            if (len > 0) {
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
            }
            break;
        case 3: /* truncate */
            len = at;
            break;
        case 4: /* bump a digit */
            if (len > 0 && buf[at] >= '0' && buf[at] <= '9') {
                buf[at] = (char)('0' + rng() % 10);
            }
            break;
        default: /* a big number */
            if (len + 24 < cap) {
                char num[24];
                uint64_t value = rng(); /* apart: call order is then fixed */
                uint64_t shift = rng() % 64;
                int n = snprintf(num, sizeof(num), " %llu ", (unsigned long long)(value >> shift));
                memmove(buf + at + n, buf + at, len - at);
                memcpy(buf + at, num, (size_t)n);
                len += (size_t)n;
            }
        }
    }
    return len;
}

static long fuzz_ok, fuzz_refused, fuzz_compared;

static void fuzz_one(const char *text, size_t len)
{
    msgs_t m;
    rabred_rules_t r, back;
    oracle_t o;
    int rc, orc;
    msgs_init(&m, "fuzz");
    rc = rabred_rules_parse(text, len, "fuzz", &r, collect, &m);
    CHECK((RABRED_OK == rc && 0 == m.n[RABRED_RULES_ERROR]) ||
              (RABRED_ERR_ARG == rc && m.n[RABRED_RULES_ERROR] > 0 && NULL == r.rules && 0 == r.n),
          "rc %d with %d errors", rc, m.n[RABRED_RULES_ERROR]);
    CHECK(0 == m.unprefixed, "message without the file name");
    if (RABRED_OK != rc) {
        fuzz_refused++;
    } else {
        fuzz_ok++;
        CHECK(RABRED_OK == write_and_parse(rabred_rules_write_named, &r, &back, NULL) &&
                  rules_equal(&r, &back),
              "accepted rules do not survive the named writer");
        rabred_rules_free(&back);
    }
    if (looks_classic(text, len) && -2 != (orc = oracle_load(text, len, &o))) {
        CHECK(0 == orc || RABRED_OK != rc, "tuned refuses, rabred accepts:\n%.*s", (int)len, text);
        if (0 == orc && RABRED_OK == rc) {
            fuzz_compared++;
            CHECK(oracle_compare(&o, &r), "tuned and rabred disagree on:\n%.*s", (int)len, text);
        }
        oracle_free(&o);
    }
    rabred_rules_free(&r);
}

static void test_fuzz(void)
{
    enum { CAP = 4096 };
    char *buf = malloc(CAP);
    for (int i = 0; i < 2000; i++) { /* random bytes and random text */
        size_t len = (size_t)(rng() % 200);
        for (size_t k = 0; k < len; k++) {
            buf[k] = (i & 1) ? (char)(rng() & 0xff) : random_char();
        }
        fuzz_one(buf, len);
    }
    for (int i = 0; i < 4000; i++) { /* mutations of valid files */
        const char *seed = 0 == (i & 1) ? classic_samples[(i / 2) % 4] : named_samples[(i / 2) % 2];
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        fuzz_one(buf, mutate(buf, len, CAP));
    }
    printf("fuzz: %ld accepted, %ld refused, %ld compared with the tuned oracle\n", fuzz_ok,
           fuzz_refused, fuzz_compared);
    CHECK(fuzz_ok > 100 && fuzz_refused > 100 && fuzz_compared > 100,
          "the fuzz loop does not reach both outcomes");
    free(buf);
}

/* The samples themselves: tuned and rabred agree on every one. */
static void test_oracle_on_samples(void)
{
    for (size_t s = 0; s < sizeof(classic_samples) / sizeof(classic_samples[0]); s++) {
        msgs_t m;
        rabred_rules_t r;
        oracle_t o;
        msgs_init(&m, "sample");
        CHECK(RABRED_OK == parse_str(classic_samples[s], &m, &r), "sample %zu: %s", s, m.text);
        CHECK(0 == oracle_load(classic_samples[s], strlen(classic_samples[s]), &o),
              "oracle refuses sample %zu", s);
        CHECK(oracle_compare(&o, &r), "sample %zu read differently", s);
        oracle_free(&o);
        rabred_rules_free(&r);
    }
}

int main(void)
{
    test_realistic_classic();
    test_classic_scan_order();
    test_classic_numbers();
    test_classic_blocks();
    test_classic_errors();
    test_named_header_example();
    test_named_syntax();
    test_named_order_and_warnings();
    test_named_segsize();
    test_named_errors();
    test_error_cap();
    test_hostile();
    test_unterminated();
    test_rule_limit();
    test_load();
    test_prune_lookup();
    test_digest();
    test_write_named();
    test_write_classic_roundtrip();
    test_write_classic_gaps();
    test_writers_refuse();
    test_writers_io();
    test_oracle_on_samples();
    test_fuzz();
    return rabred_test_summary("test_rules");
}
