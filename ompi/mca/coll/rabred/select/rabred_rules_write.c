/*
 * Rules files, writing (see rabred_rules_write.h): rabred-tune's output in
 * rabred's named format and in coll/tuned's classic format.  The parsers
 * are in rabred_rules.c, and the component calls only those.  Pure C99,
 * no MPI.
 */
#include "select/rabred_rules_write.h"

#include <limits.h>
#include <stdint.h>

/* What the parser can produce: a writer refuses anything else, so what it
 * writes always reads back. */
static int rule_writable(const rabred_rule_t *r)
{
    const rabred_alg_t *alg;
    if ((RABRED_COLL_ALLREDUCE != r->coll && RABRED_COLL_REDUCE != r->coll) ||
        r->comm_min < 0 || r->comm_min > r->comm_max || r->msg_min < 0 ||
        r->msg_min > r->msg_max || r->commutative < -1 || r->commutative > 1 || r->segsize < 0) {
        return 0;
    }
    if (RABRED_ALG_AUTO == r->alg_id || RABRED_ALG_PREVIOUS == r->alg_id) {
        return 0 == r->segsize;
    }
    alg = rabred_table_by_id(r->coll, r->alg_id);
    return NULL != alg && (0 == r->segsize || alg->segmented) &&
           !((alg->restrictions & RABRED_NEEDS_COMMUTATIVE) && 0 == r->commutative);
}

static int all_writable(const rabred_rules_t *rules)
{
    if (!rabred_rules_usable(rules)) {
        return 0;
    }
    for (int i = 0; i < rules->n; i++) {
        if (!rule_writable(&rules->rules[i])) {
            return 0;
        }
    }
    return 1;
}

static int finish_write(FILE *f)
{
    return 0 == fflush(f) && !ferror(f) ? RABRED_OK : RABRED_ERR_ARG;
}

/* Bytes with a K, M or G suffix when exact, for people reading the file. */
static const char *size_text(char *buf, size_t cap, int64_t v)
{
    static const char units[] = "GMK";
    for (int u = 0; u < 3; u++) {
        int64_t unit = (int64_t)1 << (10 * (3 - u));
        if (v > 0 && 0 == v % unit) {
            snprintf(buf, cap, "%lld%c", (long long)(v / unit), units[u]);
            return buf;
        }
    }
    snprintf(buf, cap, "%lld", (long long)v);
    return buf;
}

static const char *number_text(char *buf, size_t cap, int64_t v, int suffixes)
{
    if (suffixes) {
        return size_text(buf, cap, v);
    }
    snprintf(buf, cap, "%lld", (long long)v);
    return buf;
}

/* Communicator sizes stay plain numbers: "comm_size>=1K" reads oddly. */
static void write_bounds(FILE *f, const char *key, int64_t lo, int64_t hi, int64_t top,
                         int suffixes)
{
    char a[32], b[32];
    const char *los = number_text(a, sizeof(a), lo, suffixes);
    const char *his = number_text(b, sizeof(b), hi, suffixes);
    if (lo == hi) {
        fprintf(f, " %s=%s", key, los);
        return;
    }
    if (lo > 0) {
        fprintf(f, " %s>=%s", key, los);
    }
    if (hi < top) {
        fprintf(f, " %s<=%s", key, his);
    }
}

int rabred_rules_write_named(FILE *f, const rabred_rules_t *rules)
{
    char seg[32];
    if (NULL == f || !all_writable(rules)) {
        return RABRED_ERR_ARG;
    }
    fprintf(f, "# rabred rules (named format): the first matching line wins\n");
    for (int i = 0; i < rules->n; i++) {
        const rabred_rule_t *r = &rules->rules[i];
        fputs(rabred_coll_name(r->coll), f);
        write_bounds(f, "comm_size", r->comm_min, r->comm_max, INT_MAX, 0);
        write_bounds(f, "msg_size", r->msg_min, r->msg_max, INT64_MAX, 1);
        if (r->commutative >= 0) {
            fprintf(f, " commutative=%s", r->commutative ? "yes" : "no");
        }
        fprintf(f, " alg=%s", rabred_rules_alg_name(r->coll, r->alg_id));
        if (r->segsize > 0) {
            fprintf(f, " segsize=%s", size_text(seg, sizeof(seg), r->segsize));
        }
        fputc('\n', f);
    }
    return finish_write(f);
}

/* Classic writer.  A collective's rules form groups of equal comm range;
 * the groups ascend, and so do the msg ranges inside each.  Gaps become
 * tuned-id-0 cells, which read back as auto: the same decision a rule-less
 * call gets.  Walkers count (f == NULL) or write the entries. */

static int same_comm(const rabred_rule_t *a, const rabred_rule_t *b)
{
    return a->comm_min == b->comm_min && a->comm_max == b->comm_max;
}

static int group_end(const rabred_rules_t *rules, int i, int end)
{
    int j = i + 1;
    while (j < end && same_comm(&rules->rules[i], &rules->rules[j])) {
        j++;
    }
    return j;
}

/* Is [start, end) one collective's grid? */
static int grid_ok(const rabred_rules_t *rules, int start, int end)
{
    for (int i = start; i < end; i++) {
        const rabred_rule_t *r = &rules->rules[i], *prev = i > start ? r - 1 : NULL;
        if (r->commutative >= 0) {
            return 0;
        }
        if (NULL != prev && same_comm(prev, r) && r->msg_min <= prev->msg_max) {
            return 0;
        }
        if (NULL != prev && !same_comm(prev, r) && r->comm_min <= prev->comm_max) {
            return 0;
        }
    }
    return 1;
}

static int tuned_id_of(const rabred_rule_t *r)
{
    const rabred_alg_t *alg = rabred_table_by_id(r->coll, r->alg_id);
    return NULL != alg ? alg->tuned_ids[0] : 0;
}

static void write_cell(FILE *f, int64_t msg_lo, const rabred_rule_t *r)
{
    int id = NULL != r ? tuned_id_of(r) : 0;
    const char *name = NULL != r ? rabred_rules_alg_name(r->coll, r->alg_id) : "gap: auto";
    fprintf(f, "%lld %d 0 %lld   # %s%s\n", (long long)msg_lo, id,
            NULL != r ? (long long)r->segsize : 0LL, name,
            NULL != r && 0 == id && RABRED_ALG_AUTO != r->alg_id
                ? " (no coll/tuned id: 0, tuned's own decision)"
                : "");
}

static int walk_msg(FILE *f, const rabred_rules_t *rules, int start, int end)
{
    int64_t next = 0;
    int count = 0, open_top = 1;
    for (int i = start; i < end; i++) {
        const rabred_rule_t *r = &rules->rules[i];
        if (r->msg_min > next) {
            count++;
            if (NULL != f) {
                write_cell(f, next, NULL);
            }
        }
        count++;
        if (NULL != f) {
            write_cell(f, r->msg_min, r);
        }
        open_top = r->msg_max < INT64_MAX;
        next = open_top ? r->msg_max + 1 : next;
    }
    if (open_top && NULL != f) {
        write_cell(f, next, NULL);
    }
    return count + open_top;
}

static void write_comm_entry(FILE *f, const rabred_rules_t *rules, int64_t comm_lo, int start,
                             int end)
{
    fprintf(f, "%lld   # communicator size\n", (long long)comm_lo);
    fprintf(f, "%d   # message sizes\n", start < end ? walk_msg(NULL, rules, start, end) : 1);
    if (start < end) {
        walk_msg(f, rules, start, end);
    } else {
        write_cell(f, 0, NULL);
    }
}

static int walk_comm(FILE *f, const rabred_rules_t *rules, int start, int end)
{
    int64_t next = 0;
    int count = 0;
    for (int i = start; i < end; i = group_end(rules, i, end)) {
        const rabred_rule_t *r = &rules->rules[i];
        if (r->comm_min > next) {
            count++;
            if (NULL != f) {
                write_comm_entry(f, rules, next, 0, 0);
            }
        }
        count++;
        if (NULL != f) {
            write_comm_entry(f, rules, r->comm_min, i, group_end(rules, i, end));
        }
        next = (int64_t)r->comm_max + 1;
    }
    if (next <= INT_MAX && NULL != f) {
        write_comm_entry(f, rules, next, 0, 0);
    }
    return count + (next <= INT_MAX);
}

/* Splits the rules into one run per collective and returns how many;
 * -1 when a collective's rules are not together or break the grid. */
static int collective_runs(const rabred_rules_t *rules, int starts[RABRED_NCOLLS + 1])
{
    int nruns = 0, seen[RABRED_NCOLLS] = {0};
    for (int i = 0; i < rules->n; i++) {
        rabred_coll_t c = rules->rules[i].coll;
        if (0 == i || c != rules->rules[i - 1].coll) {
            if (seen[c]) {
                return -1;
            }
            seen[c] = 1;
            starts[nruns++] = i;
        }
    }
    starts[nruns] = rules->n;
    for (int k = 0; k < nruns; k++) {
        if (!grid_ok(rules, starts[k], starts[k + 1])) {
            return -1;
        }
    }
    return nruns;
}

int rabred_rules_write_classic(FILE *f, const rabred_rules_t *rules)
{
    int starts[RABRED_NCOLLS + 1], nruns;
    if (NULL == f || !all_writable(rules) || (nruns = collective_runs(rules, starts)) < 0) {
        return RABRED_ERR_ARG;
    }
    fprintf(f, "# coll/tuned dynamic rules (classic format), written by rabred\n");
    fprintf(f, "%d   # collectives\n", nruns);
    for (int k = 0; k < nruns; k++) {
        rabred_coll_t c = rules->rules[starts[k]].coll;
        int id = RABRED_COLL_REDUCE == c ? RABRED_RULES_TUNED_REDUCE : RABRED_RULES_TUNED_ALLREDUCE;
        fprintf(f, "%d   # %s\n", id, rabred_coll_name(c));
        fprintf(f, "%d   # communicator sizes\n", walk_comm(NULL, rules, starts[k], starts[k + 1]));
        walk_comm(f, rules, starts[k], starts[k + 1]);
    }
    return finish_write(f);
}
