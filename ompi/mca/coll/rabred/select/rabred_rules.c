/*
 * Rules files: parse, validate, prune, look up (see rabred_rules.h for the
 * two formats; the writers rabred-tune uses are in rabred_rules_write.c).
 * Pure C99, no MPI.
 *
 * How it works
 *
 *   1. The whole text is checked first: size, line length, NUL, control
 *      and non-ASCII bytes (the last allowed in comments).  After that both
 *      parsers work on plain ASCII, and every scan is bounded by `len`, so
 *      the text never needs a NUL terminator.
 *   2. The first token that is not a comment picks the format: a number or
 *      tuned's `rule-file-version-N` means classic, anything else named.
 *   3. Both parsers append to one vector of rabred_rule_t.  Each rule is a
 *      box (comm range x msg range x commutativity), so prune and lookup are
 *      one loop whatever the file looked like.
 *   4. Any ERROR rejects the file; parsing goes on after errors that leave
 *      the structure intact so one run reports several of them, up to
 *      RABRED_RULES_MAX_MESSAGES.
 *
 * The classic format as Open MPI's coll/tuned reads it (4.1, and 5.x's
 * optional version line), which rabred mirrors so that a file tuned accepts
 * means the same here:
 *
 *   - Tokens: tuned reads each number with fscanf("%li") and, when that
 *     fails, throws away one character and tries again; `#` throws away the
 *     rest of the line.  So any non-number is a separator and "64K" is 64.
 *     rabred reads the same numbers (sign, 0x hex, leading-0 octal, decimal)
 *     but warns about skipped text and octal, which are surely mistakes.
 *   - Layout: collective count (at most the 22 MPI collectives), then per
 *     collective: id, comm-size count, and per comm size: size, msg-size
 *     count, and per msg size: size, alg, topo/fan-in-out, segsize, plus max
 *     requests in version-2 files when a digit follows on the same line.
 *     Negative numbers, ids >= 22 and a first msg size other than 0 are
 *     errors for tuned, so they are here.  A repeated collective replaces
 *     the earlier block (tuned overwrites it); text after the last
 *     announced collective is ignored (warned).
 *   - Selection: tuned scans the entries in file order, stops at the first
 *     whose size exceeds the actual one and takes the entry before it, or
 *     the first entry when even that one is larger.  So entry i serves
 *     [max(size_0..size_i), max(size_0..size_i, size_i+1) - 1] (entry 0
 *     from 0, the last to the top): for ascending files the usual "largest
 *     entry <= actual".  That is how entries become ranges here; an entry
 *     whose range is empty is never used by tuned (warned).
 *   - Algorithms map through rabred_alg_t.tuned_ids; 0 is auto.  Ids rabred
 *     lacks are warned about and become auto.  The fan-in/out and max
 *     requests have no rabred meaning and are ignored; segsize is kept only
 *     for the algorithms that segment (the table's `segmented`).
 */
#include "select/rabred_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How many collectives coll/tuned has ids for (COLLTYPE in
 * coll_base_functions.h; allreduce's and reduce's are in rabred_rules.h). */
#define TUNED_NCOLLS 22

static const char *const tuned_coll_names[TUNED_NCOLLS] = {
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw",
    "barrier", "bcast", "exscan", "gather", "gatherv", "reduce", "reduce_scatter",
    "reduce_scatter_block", "scan", "scatter", "scatterv", "neighbor_allgather",
    "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"};

/* coll_tuned_<coll>_algorithm values in Open MPI 4.1, for messages about
 * ids rabred has no counterpart for. */
static const char *const tuned_allreduce_algs[] = {
    "ignore", "basic_linear", "nonoverlapping", "recursive_doubling",
    "ring", "segmented_ring", "rabenseifner"};
static const char *const tuned_reduce_algs[] = {
    "ignore", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary",
    "rabenseifner"};

static const char version_tag[] = "rule-file-version-";

/* ------------------------------------------------------------------ */
/* Small helpers                                                      */

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_blank(int c)
{
    return ' ' == c || '\t' == c || '\r' == c || '\v' == c || '\f' == c;
}
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int starts_with(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && 0 == memcmp(s, prefix, k);
}

static int token_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && 0 == memcmp(s, word, n);
}

/* A short printable copy of s[0..n) for messages: the text may hold
 * anything the user (or a fuzzer) wrote. */
static const char *quoted(char *buf, size_t cap, const char *s, size_t n)
{
    size_t k = 0, shown = n < 32 ? n : 32;
    for (size_t i = 0; i < shown && k + 4 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (shown < n && k + 4 <= cap) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

/* Does the algorithm cut messages into segments (and so take a segsize)? */
static int alg_segments(rabred_coll_t coll, int alg_id)
{
    const rabred_alg_t *alg = rabred_table_by_id(coll, alg_id);
    return NULL != alg && alg->segmented;
}

/* Public (rabred_rules.h): the writers name algorithms the same way. */
const char *rabred_rules_alg_name(rabred_coll_t coll, int alg_id)
{
    const rabred_alg_t *alg = rabred_table_by_id(coll, alg_id);
    if (RABRED_ALG_AUTO == alg_id) {
        return "auto";
    }
    if (RABRED_ALG_PREVIOUS == alg_id) {
        return "previous";
    }
    return NULL != alg ? alg->name : "?";
}

/* ------------------------------------------------------------------ */
/* Messages                                                           */

typedef struct {
    const char *name;
    rabred_rules_report_fn fn;
    void *ctx;
    int errors;  /* ERRORs so far: any rejects the file */
    int others;  /* NOTEs and WARNINGs so far */
    int gave_up; /* too many errors: stop parsing */
} reporter_t;

static void emit(reporter_t *rep, rabred_rules_severity_t sev, int line, const char *msg)
{
    char full[640];
    if (NULL == rep->fn) {
        return;
    }
    if (line > 0) {
        snprintf(full, sizeof(full), "%s:%d: %s", rep->name, line, msg);
    } else {
        snprintf(full, sizeof(full), "%s: %s", rep->name, msg);
    }
    rep->fn(rep->ctx, sev, full);
}

/* Report one message at `line` (0: about the whole file).  Errors and the
 * other messages are capped apart so a hostile file cannot flood the log. */
static void report(reporter_t *rep, rabred_rules_severity_t sev, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    int *count = RABRED_RULES_ERROR == sev ? &rep->errors : &rep->others;
    if (rep->gave_up) {
        return;
    }
    if (++*count > RABRED_RULES_MAX_MESSAGES) {
        if (RABRED_RULES_ERROR == sev) {
            rep->gave_up = 1;
            emit(rep, sev, line, "too many errors; the rest of the file was not checked");
        } else if (RABRED_RULES_MAX_MESSAGES + 1 == *count) {
            emit(rep, RABRED_RULES_NOTE, line, "further notes and warnings not shown");
        }
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    emit(rep, sev, line, msg);
}

/* ------------------------------------------------------------------ */
/* The rule vector both parsers fill                                  */

typedef struct {
    const char *text;
    size_t len;
    reporter_t rep;
    rabred_rule_t *rules;
    int n, cap;
    int nomem;
    int stop; /* out of memory or too many rules: stop parsing */
} parser_t;

static void add_rule(parser_t *ps, const rabred_rule_t *rule)
{
    if (ps->n == ps->cap) {
        int cap = ps->cap > 0 ? 2 * ps->cap : 16;
        rabred_rule_t *grown;
        if (ps->n >= RABRED_RULES_MAX_RULES) {
            report(&ps->rep, RABRED_RULES_ERROR, rule->line, "more than %d rules",
                   RABRED_RULES_MAX_RULES);
            ps->stop = 1;
            return;
        }
        cap = cap > RABRED_RULES_MAX_RULES ? RABRED_RULES_MAX_RULES : cap;
        grown = realloc(ps->rules, (size_t)cap * sizeof(*grown));
        if (NULL == grown) {
            report(&ps->rep, RABRED_RULES_ERROR, rule->line, "out of memory");
            ps->nomem = ps->stop = 1;
            return;
        }
        ps->rules = grown;
        ps->cap = cap;
    }
    ps->rules[ps->n++] = *rule;
}

/* ------------------------------------------------------------------ */
/* Whole-text checks                                                  */

/* Report the first bad byte of the line [start, end), if any. */
static void check_line(parser_t *ps, size_t start, size_t end, int line)
{
    int comment = 0;
    if (end - start > RABRED_RULES_MAX_LINE) {
        report(&ps->rep, RABRED_RULES_ERROR, line, "line longer than %d bytes",
               RABRED_RULES_MAX_LINE);
        return;
    }
    for (size_t i = start; i < end; i++) {
        unsigned char c = (unsigned char)ps->text[i];
        size_t col = i - start + 1;
        comment |= '#' == c;
        if (0 == c) {
            report(&ps->rep, RABRED_RULES_ERROR, line, "NUL byte in column %zu (binary file?)",
                   col);
            return;
        }
        if ((c < 0x20 && !is_blank(c)) || 0x7f == c) {
            report(&ps->rep, RABRED_RULES_ERROR, line,
                   "control byte 0x%02x in column %zu (binary file?)", c, col);
            return;
        }
        if (c >= 0x80 && !comment) {
            report(&ps->rep, RABRED_RULES_ERROR, line,
                   "non-ASCII byte 0x%02x in column %zu outside a comment", c, col);
            return;
        }
    }
}

static void check_text(parser_t *ps)
{
    size_t start = 0;
    for (int line = 1; start < ps->len && !ps->rep.gave_up; line++) {
        const char *nl = memchr(ps->text + start, '\n', ps->len - start);
        size_t end = NULL != nl ? (size_t)(nl - ps->text) : ps->len;
        check_line(ps, start, end, line);
        start = end + 1;
    }
}

typedef enum { FORMAT_EMPTY, FORMAT_CLASSIC, FORMAT_NAMED } format_t;

static format_t detect_format(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len) {
        char c = text[i];
        if ('#' == c) {
            while (i < len && '\n' != text[i]) {
                i++;
            }
        } else if (is_blank(c) || '\n' == c) {
            i++;
        } else if (is_digit(c) || starts_with(text + i, len - i, version_tag) ||
                   (('-' == c || '+' == c) && i + 1 < len && is_digit(text[i + 1]))) {
            return FORMAT_CLASSIC;
        } else {
            return FORMAT_NAMED;
        }
    }
    return FORMAT_EMPTY;
}

/* ------------------------------------------------------------------ */
/* Classic format: reading numbers the way coll/tuned does            */

typedef struct {
    parser_t *ps;
    size_t pos;
    int line;
    int last_line;   /* last line with a token, for "the file ends" */
    int warned_line; /* skipped text is reported once per line */
    int version;
} cursor_t;

static int number_starts(const char *t, size_t len, size_t i)
{
    return is_digit(t[i]) || (('-' == t[i] || '+' == t[i]) && i + 1 < len && is_digit(t[i + 1]));
}

static int digit_value(char c, int base)
{
    int d = is_digit(c) ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : 99;
    return d < base ? d : -1;
}

/* The number at cur->pos, as "%li" reads it: optional sign, then 0x hex,
 * leading-0 octal or decimal.  Returns 1, or -1 after reporting. */
static int scan_long(cursor_t *cur, int64_t *val)
{
    const char *t = cur->ps->text;
    size_t len = cur->ps->len, start = cur->pos, i = cur->pos;
    int neg = 0, base = 10, over = 0, d;
    uint64_t mag = 0;
    char q[48];
    if ('-' == t[i] || '+' == t[i]) {
        neg = '-' == t[i++];
    }
    if ('0' == t[i] && i + 2 < len && ('x' == t[i + 1] || 'X' == t[i + 1]) &&
        digit_value(t[i + 2], 16) >= 0) {
        base = 16;
        i += 2;
    } else if ('0' == t[i] && i + 1 < len && is_digit(t[i + 1])) {
        base = 8;
    }
    for (; i < len && (d = digit_value(t[i], base)) >= 0; i++) {
        over |= mag > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base;
        mag = over ? mag : mag * (uint64_t)base + (uint64_t)d;
    }
    cur->pos = i;
    while (i < len && is_digit(t[i])) { /* for the message: "08" is 0, then 8 */
        i++;
    }
    if (over) {
        report(&cur->ps->rep, RABRED_RULES_ERROR, cur->line, "number %s is too large",
               quoted(q, sizeof(q), t + start, i - start));
        return -1;
    }
    *val = neg ? -(int64_t)mag : (int64_t)mag;
    if (8 == base) {
        report(&cur->ps->rep, RABRED_RULES_WARNING, cur->line,
               "%s has a leading 0: coll/tuned reads such numbers as octal (here %lld), "
               "and so does rabred",
               quoted(q, sizeof(q), t + start, i - start), (long long)*val);
    }
    return 1;
}

/* Skip text that is not a number, as tuned does, saying so once a line:
 * tuned would silently read "64K" as 64. */
static int skip_stray(cursor_t *cur)
{
    const char *t = cur->ps->text;
    size_t len = cur->ps->len, start = cur->pos, i = cur->pos;
    char q[48];
    while (i < len && !is_blank(t[i]) && '\n' != t[i] && '#' != t[i] && !number_starts(t, len, i)) {
        i++;
    }
    cur->pos = i;
    if (starts_with(t + start, len - start, version_tag)) {
        report(&cur->ps->rep, RABRED_RULES_ERROR, cur->line,
               "rule-file-version must open the file: coll/tuned looks for it nowhere else");
        return -1;
    }
    if (cur->warned_line != cur->line) {
        cur->warned_line = cur->line;
        report(&cur->ps->rep, RABRED_RULES_WARNING, cur->line,
               "%s is not a number: skipped (coll/tuned skips it too, so 64K would be 64)",
               quoted(q, sizeof(q), t + start, i - start));
    }
    return 0;
}

/* The next number, skipping white space, comments and stray text.
 * Returns 1 (*line says where it was), 0 at the end, -1 after an error. */
static int next_number(cursor_t *cur, int64_t *val, int *line)
{
    const char *t = cur->ps->text;
    size_t len = cur->ps->len;
    while (cur->pos < len) {
        char c = t[cur->pos];
        if ('\n' == c) {
            cur->line++;
            cur->pos++;
        } else if (is_blank(c)) {
            cur->pos++;
        } else if ('#' == c) {
            cur->last_line = cur->line;
            while (cur->pos < len && '\n' != t[cur->pos]) {
                cur->pos++;
            }
        } else {
            cur->last_line = *line = cur->line;
            if (number_starts(t, len, cur->pos)) {
                return scan_long(cur, val);
            }
            if (skip_stray(cur) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* Version 2 files may hold a fifth number on a msg-size line: tuned takes
 * it when the next character after blanks on the same line is a digit. */
static int digit_follows_on_line(const cursor_t *cur)
{
    const char *t = cur->ps->text;
    size_t i = cur->pos;
    while (i < cur->ps->len && (' ' == t[i] || '\t' == t[i])) {
        i++;
    }
    return i < cur->ps->len && is_digit(t[i]);
}

/* A non-negative number for `what` (a phrase for the messages). */
static int read_field(cursor_t *cur, int64_t *val, int *line, const char *what)
{
    int rc = next_number(cur, val, line);
    if (0 == rc) {
        report(&cur->ps->rep, RABRED_RULES_ERROR, cur->last_line,
               "the file ends here, but %s should follow", what);
    } else if (rc > 0 && *val < 0) {
        report(&cur->ps->rep, RABRED_RULES_ERROR, *line, "%s is negative (%lld)", what,
               (long long)*val);
    }
    return 1 == rc && *val >= 0 ? 0 : -1;
}

/* A count: also refused when the rest of the file could not hold that
 * many entries, so an absurd count fails at once and allocates nothing. */
static int read_count(cursor_t *cur, int64_t *val, int *line, const char *what)
{
    if (read_field(cur, val, line, what) < 0) {
        return -1;
    }
    if ((uint64_t)*val > cur->ps->len - cur->pos) {
        report(&cur->ps->rep, RABRED_RULES_ERROR, *line,
               "%s is %lld, more than the rest of the file (%zu bytes) can hold", what,
               (long long)*val, cur->ps->len - cur->pos);
        return -1;
    }
    return 0;
}

/* The optional first line of Open MPI 5 files, read only at byte 0 (where
 * tuned's fscanf looks for it). */
static int read_version(cursor_t *cur)
{
    const char *t = cur->ps->text;
    size_t len = cur->ps->len, i = sizeof(version_tag) - 1;
    int64_t v = 0;
    cur->version = 1;
    if (!starts_with(t, len, version_tag)) {
        return 0;
    }
    while (i < len && (is_blank(t[i]) || '\n' == t[i])) {
        cur->line += '\n' == t[i++];
    }
    if (i >= len || !is_digit(t[i])) {
        report(&cur->ps->rep, RABRED_RULES_ERROR, cur->line, "rule-file-version- needs a number");
        return -1;
    }
    for (; i < len && is_digit(t[i]); i++) { /* saturates: any v > 2 reads as 2 */
        v = v < 1000 ? 10 * v + (t[i] - '0') : v;
    }
    if (v > 2) {
        report(&cur->ps->rep, RABRED_RULES_WARNING, cur->line,
               "rule-file-version-%lld: read as version 2, the newest this reader knows",
               (long long)v);
    }
    cur->pos = i;
    cur->version = (int)(v < 1 ? 1 : v);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Classic format: one collective's block                             */

typedef struct {
    int64_t size, alg, segsize;
    int line;
} msg_entry_t;

typedef struct {
    int64_t size;
    int line;
    int first, n; /* its msg entries: block.msg[first .. first + n) */
} comm_entry_t;

typedef struct {
    int keep; /* allreduce or reduce: entries are stored */
    rabred_coll_t coll;
    const char *name;
    comm_entry_t *comm;
    int ncomm, cap_comm;
    msg_entry_t *msg;
    int nmsg, cap_msg;
} block_t;

/* Room for element n (of `size` bytes) in the array v of capacity *cap.
 * Entries are capped like rules: every msg entry becomes one.  Returns the
 * array, moved or not, or NULL after reporting (v is then still valid). */
static void *grow(parser_t *ps, void *v, int *cap, int n, size_t size, int line)
{
    void *grown;
    int want = *cap > 0 ? 2 * *cap : 16;
    if (n < *cap) {
        return v;
    }
    if (n >= RABRED_RULES_MAX_RULES) {
        report(&ps->rep, RABRED_RULES_ERROR, line, "more than %d rules", RABRED_RULES_MAX_RULES);
        return NULL;
    }
    if (NULL == (grown = realloc(v, (size_t)want * size))) {
        report(&ps->rep, RABRED_RULES_ERROR, line, "out of memory");
        ps->nomem = 1;
        return NULL;
    }
    *cap = want;
    return grown;
}

static int read_msg_entry(cursor_t *cur, block_t *b, const char *where, int64_t j)
{
    static const char *const fields[] = {"the message size", "the algorithm",
                                         "the topo/fan-in-out", "the segment size"};
    int64_t v[4], maxreq;
    int lines[4], line;
    char what[200];
    for (int k = 0; k < 4; k++) {
        snprintf(what, sizeof(what), "%s of %s", fields[k], where);
        if (read_field(cur, &v[k], &lines[k], what) < 0) {
            return -1;
        }
    }
    snprintf(what, sizeof(what), "the max requests of %s", where);
    if (cur->version > 1 && digit_follows_on_line(cur) &&
        read_field(cur, &maxreq, &line, what) < 0) {
        return -1;
    }
    if (0 == j && 0 != v[0]) {
        report(&cur->ps->rep, RABRED_RULES_ERROR, lines[0],
               "the first message size must be 0 (coll/tuned refuses the file otherwise), not %lld",
               (long long)v[0]);
    }
    if (b->keep) {
        msg_entry_t *msg = grow(cur->ps, b->msg, &b->cap_msg, b->nmsg, sizeof(*msg), lines[0]);
        if (NULL == msg) {
            return -1;
        }
        b->msg = msg;
        b->msg[b->nmsg++] = (msg_entry_t){v[0], v[1], v[3], lines[0]};
    }
    return 0;
}

static int read_comm_entry(cursor_t *cur, block_t *b, int64_t i, int64_t ncomm)
{
    comm_entry_t ce = {0, 0, b->nmsg, 0};
    int64_t nmsg;
    int line;
    char what[160], where[160];
    snprintf(what, sizeof(what), "%s communicator size %lld of %lld", b->name,
             (long long)i + 1, (long long)ncomm);
    if (read_field(cur, &ce.size, &ce.line, what) < 0) {
        return -1;
    }
    if (ce.size > INT_MAX) {
        report(&cur->ps->rep, RABRED_RULES_ERROR, ce.line, "%s is %lld, beyond INT_MAX", what,
               (long long)ce.size);
        return -1;
    }
    snprintf(what, sizeof(what), "the number of message sizes of %s communicator size %lld",
             b->name, (long long)ce.size);
    if (read_count(cur, &nmsg, &line, what) < 0) {
        return -1;
    }
    for (int64_t j = 0; j < nmsg; j++) {
        snprintf(where, sizeof(where), "entry %lld of %lld for %s communicator size %lld",
                 (long long)j + 1, (long long)nmsg, b->name, (long long)ce.size);
        if (read_msg_entry(cur, b, where, j) < 0) {
            return -1;
        }
    }
    if (b->keep) {
        comm_entry_t *comm = grow(cur->ps, b->comm, &b->cap_comm, b->ncomm, sizeof(*comm), ce.line);
        if (NULL == comm) {
            return -1;
        }
        b->comm = comm;
        ce.n = b->nmsg - ce.first;
        b->comm[b->ncomm++] = ce;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Classic format: from entries to rules                              */

/* The sizes entry i of a tuned list serves, given run_max = the largest
 * size among entries 0..i and the next entry's size (NULL for the last):
 * see the file header.  lo > hi: tuned never selects the entry. */
static void tuned_range(int i, int64_t run_max, const int64_t *next, int64_t top, int64_t *lo,
                        int64_t *hi)
{
    *lo = 0 == i ? 0 : run_max;
    *hi = NULL == next ? top : max64(run_max, *next) - 1;
}

/* Warnings for entries out of ascending order and for unused ones. */
static void check_order(parser_t *ps, const char *what, int64_t size, int64_t prev_max, int i,
                        int64_t lo, int64_t hi, int line)
{
    if (i > 0 && size < prev_max) {
        report(&ps->rep, RABRED_RULES_WARNING, line,
               "%s %lld is below the earlier %lld: coll/tuned expects ascending sizes and scans "
               "them in file order",
               what, (long long)size, (long long)prev_max);
    }
    if (lo > hi) {
        report(&ps->rep, RABRED_RULES_WARNING, line,
               "%s %lld is never used: the next entry's size is not above it", what,
               (long long)size);
    }
}

static int map_tuned_alg(parser_t *ps, rabred_coll_t coll, int64_t id, int line)
{
    const char *const *names = RABRED_COLL_ALLREDUCE == coll ? tuned_allreduce_algs
                                                             : tuned_reduce_algs;
    int64_t nnames = RABRED_COLL_ALLREDUCE == coll
                         ? (int64_t)(sizeof(tuned_allreduce_algs) / sizeof(char *))
                         : (int64_t)(sizeof(tuned_reduce_algs) / sizeof(char *));
    const rabred_alg_t *alg = id <= INT_MAX ? rabred_table_by_tuned_id(coll, (int)id) : NULL;
    if (0 == id || NULL != alg) {
        return 0 == id ? RABRED_ALG_AUTO : alg->id;
    }
    if (id < nnames) {
        report(&ps->rep, RABRED_RULES_WARNING, line,
               "coll/tuned %s algorithm %lld (%s) has no rabred counterpart: the built-in "
               "decision serves these calls",
               rabred_coll_name(coll), (long long)id, names[id]);
    } else {
        report(&ps->rep, RABRED_RULES_WARNING, line,
               "%lld is not a coll/tuned %s algorithm (Open MPI 4.1 has 1 to %d): the built-in "
               "decision serves these calls",
               (long long)id, rabred_coll_name(coll), (int)nnames - 1);
    }
    return RABRED_ALG_AUTO;
}

static void emit_comm_entry(parser_t *ps, const block_t *b, const comm_entry_t *ce, int comm_lo,
                            int comm_hi)
{
    int64_t run_max = 0, lo, hi;
    for (int j = 0; j < ce->n && !ps->stop; j++) {
        const msg_entry_t *me = &b->msg[ce->first + j];
        int64_t prev_max = run_max;
        run_max = max64(run_max, me->size);
        tuned_range(j, run_max, j + 1 < ce->n ? &me[1].size : NULL, INT64_MAX, &lo, &hi);
        check_order(ps, "message size", me->size, prev_max, j, lo, hi, me->line);
        if (lo <= hi) {
            rabred_rule_t r = {b->coll, comm_lo, comm_hi, lo, hi, -1, 0, 0, me->line};
            r.alg_id = map_tuned_alg(ps, b->coll, me->alg, me->line);
            r.segsize = alg_segments(b->coll, r.alg_id) ? me->segsize : 0;
            if (me->segsize > 0 && 0 == r.segsize && RABRED_ALG_AUTO != r.alg_id) {
                report(&ps->rep, RABRED_RULES_NOTE, me->line,
                       "segment size %lld ignored: %s does not segment", (long long)me->segsize,
                       rabred_rules_alg_name(b->coll, r.alg_id));
            }
            add_rule(ps, &r);
        }
    }
}

static void emit_block(parser_t *ps, const block_t *b)
{
    int64_t run_max = 0, lo, hi;
    for (int i = 0; i < b->ncomm && !ps->stop; i++) {
        const comm_entry_t *ce = &b->comm[i];
        int64_t prev_max = run_max;
        run_max = max64(run_max, ce->size);
        tuned_range(i, run_max, i + 1 < b->ncomm ? &ce[1].size : NULL, INT_MAX, &lo, &hi);
        check_order(ps, "communicator size", ce->size, prev_max, i, lo, hi, ce->line);
        lo = lo < 1 ? 1 : lo; /* a communicator has a rank at least: size 0 never matches */
        if (lo <= hi) {
            emit_comm_entry(ps, b, ce, (int)lo, (int)hi);
        }
    }
}

/* A later block for the same collective replaces the earlier one. */
static void drop_rules_of(parser_t *ps, rabred_coll_t coll)
{
    int kept = 0;
    for (int i = 0; i < ps->n; i++) {
        if (ps->rules[i].coll != coll) {
            ps->rules[kept++] = ps->rules[i];
        }
    }
    ps->n = kept;
}

static int read_collective(cursor_t *cur, int64_t x, int64_t ncoll, int seen_line[RABRED_NCOLLS])
{
    parser_t *ps = cur->ps;
    block_t b = {0};
    int64_t id, ncomm;
    int line, count_line, rc = -1;
    char what[96];
    snprintf(what, sizeof(what), "collective id %lld of %lld", (long long)x + 1, (long long)ncoll);
    if (read_field(cur, &id, &line, what) < 0) {
        return -1;
    }
    if (id >= TUNED_NCOLLS) {
        report(&ps->rep, RABRED_RULES_ERROR, line,
               "collective id %lld: MPI has %d collectives (0 to %d)", (long long)id,
               TUNED_NCOLLS, TUNED_NCOLLS - 1);
        return -1;
    }
    b.keep = RABRED_RULES_TUNED_ALLREDUCE == id || RABRED_RULES_TUNED_REDUCE == id;
    b.coll = RABRED_RULES_TUNED_REDUCE == id ? RABRED_COLL_REDUCE : RABRED_COLL_ALLREDUCE;
    b.name = tuned_coll_names[id];
    snprintf(what, sizeof(what), "the number of communicator sizes of %s", b.name);
    if (read_count(cur, &ncomm, &count_line, what) < 0) {
        return -1;
    }
    for (int64_t i = 0; i < ncomm; i++) {
        if (read_comm_entry(cur, &b, i, ncomm) < 0) {
            goto done;
        }
    }
    rc = 0;
    if (!b.keep) {
        report(&ps->rep, RABRED_RULES_NOTE, line,
               "%s rules skipped: rabred serves only allreduce and reduce", b.name);
        goto done;
    }
    if (seen_line[b.coll] > 0) {
        report(&ps->rep, RABRED_RULES_WARNING, line,
               "%s again (first on line %d): this block replaces it, as in coll/tuned", b.name,
               seen_line[b.coll]);
        drop_rules_of(ps, b.coll);
    }
    seen_line[b.coll] = line;
    emit_block(ps, &b);
done:
    free(b.comm);
    free(b.msg);
    return rc;
}

static void parse_classic(parser_t *ps)
{
    cursor_t cur = {ps, 0, 1, 1, 0, 1};
    int seen_line[RABRED_NCOLLS] = {0};
    int64_t ncoll, extra;
    int line;
    if (read_version(&cur) < 0 ||
        read_count(&cur, &ncoll, &line, "the number of collectives") < 0) {
        return;
    }
    if (ncoll > TUNED_NCOLLS) {
        report(&ps->rep, RABRED_RULES_ERROR, line,
               "%lld collectives announced, but MPI has %d", (long long)ncoll, TUNED_NCOLLS);
        return;
    }
    for (int64_t x = 0; x < ncoll && !ps->stop && !ps->rep.gave_up; x++) {
        if (read_collective(&cur, x, ncoll, seen_line) < 0) {
            return;
        }
    }
    if (!ps->stop && 1 == next_number(&cur, &extra, &line)) {
        report(&ps->rep, RABRED_RULES_WARNING, line,
               "ignored: the file announced %lld collectives, and they ended before this line "
               "(coll/tuned ignores the rest too)",
               (long long)ncoll);
    }
}

/* ------------------------------------------------------------------ */
/* Named format                                                       */

typedef struct {
    rabred_coll_t coll;
    int64_t comm_lo, comm_hi, msg_lo, msg_hi; /* lo > hi: contradictory */
    int commutative, alg_id, line;
    int64_t segsize;
    int have_alg, have_commutative, have_segsize;
    int bad; /* an error on this line: no rule */
} named_rule_t;

typedef struct {
    const char *p, *end;
} span_t;

static int is_key_char(int c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || '_' == c;
}
static int is_op_char(int c) { return '<' == c || '>' == c || '=' == c || '!' == c; }
static int is_word_char(int c) { return !is_blank(c); }

static void skip_blanks(span_t *s)
{
    while (s->p < s->end && is_blank(*s->p)) {
        s->p++;
    }
}

static size_t take(span_t *s, int (*pred)(int), const char **tok)
{
    *tok = s->p;
    while (s->p < s->end && pred((unsigned char)*s->p)) {
        s->p++;
    }
    return (size_t)(s->p - *tok);
}

/* A size: digits and an optional K, M or G (powers of 1024).  Returns 0,
 * or -1 after reporting. */
static int parse_size(parser_t *ps, int line, const char *v, size_t n, int64_t *out)
{
    int64_t val = 0, unit = 1;
    size_t i = 0;
    char q[48];
    if (n > 0 && '-' == v[0]) {
        report(&ps->rep, RABRED_RULES_ERROR, line, "%s is negative", quoted(q, sizeof(q), v, n));
        return -1;
    }
    for (; i < n && is_digit(v[i]); i++) {
        if (val > (INT64_MAX - (v[i] - '0')) / 10) {
            report(&ps->rep, RABRED_RULES_ERROR, line, "%s is too large",
                   quoted(q, sizeof(q), v, n));
            return -1;
        }
        val = 10 * val + (v[i] - '0');
    }
    if (i + 1 == n) {
        unit = 'K' == v[i] ? 1 << 10 : 'M' == v[i] ? 1 << 20 : 'G' == v[i] ? 1 << 30 : 0;
    }
    if (0 == i || (i < n && (i + 1 != n || 0 == unit))) {
        report(&ps->rep, RABRED_RULES_ERROR, line,
               "%s is not a size (digits with an optional K, M or G)", quoted(q, sizeof(q), v, n));
        return -1;
    }
    if (val > INT64_MAX / unit) {
        report(&ps->rep, RABRED_RULES_ERROR, line, "%s is too large", quoted(q, sizeof(q), v, n));
        return -1;
    }
    *out = val * unit;
    return 0;
}

/* Narrow [lo, hi] by "op v"; returns -1 for an unknown operator. */
static int narrow(int64_t *lo, int64_t *hi, const char *op, size_t n, int64_t v)
{
    if (token_is(op, n, "=")) {
        *lo = max64(*lo, v);
        *hi = min64(*hi, v);
    } else if (token_is(op, n, "<")) {
        *hi = min64(*hi, v - 1); /* v >= 0: no overflow */
    } else if (token_is(op, n, "<=")) {
        *hi = min64(*hi, v);
    } else if (token_is(op, n, ">") && INT64_MAX == v) {
        *lo = 1; /* nothing is larger: empty */
        *hi = 0;
    } else if (token_is(op, n, ">")) {
        *lo = max64(*lo, v + 1);
    } else if (token_is(op, n, ">=")) {
        *lo = max64(*lo, v);
    } else {
        return -1;
    }
    return 0;
}

static void bad_operator(parser_t *ps, int line, const char *key, size_t klen, const char *op,
                         size_t oplen, const char *allowed)
{
    char q[48], k[48];
    report(&ps->rep, RABRED_RULES_ERROR, line, "bad operator %s after %s (use %s)",
           quoted(q, sizeof(q), op, oplen), quoted(k, sizeof(k), key, klen), allowed);
}

static int apply_size(parser_t *ps, named_rule_t *nr, int is_comm, const char *op, size_t oplen,
                      const char *v, size_t vlen)
{
    const char *key = is_comm ? "comm_size" : "msg_size";
    int64_t val;
    if (parse_size(ps, nr->line, v, vlen, &val) < 0) {
        return -1;
    }
    if (is_comm && val > INT_MAX) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line, "comm_size %lld is beyond INT_MAX",
               (long long)val);
        return -1;
    }
    if (narrow(is_comm ? &nr->comm_lo : &nr->msg_lo, is_comm ? &nr->comm_hi : &nr->msg_hi, op,
               oplen, val) < 0) {
        bad_operator(ps, nr->line, key, strlen(key), op, oplen, "=, <, <=, > or >=");
        return -1;
    }
    return 0;
}

/* "allreduce: recursive_doubling, ..., auto, previous" for messages. */
static void list_algs(rabred_coll_t coll, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < rabred_table_size(coll) && used < cap; i++) {
        used += (size_t)snprintf(buf + used, cap - used, "%s, ", rabred_table_at(coll, i)->name);
    }
    if (used < cap) {
        snprintf(buf + used, cap - used, "auto, previous");
    }
}

static int apply_alg(parser_t *ps, named_rule_t *nr, const char *v, size_t vlen)
{
    char name[64], q[48], known[400];
    const rabred_alg_t *alg;
    if (nr->have_alg) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line, "duplicate alg= (the first was alg=%s)",
               rabred_rules_alg_name(nr->coll, nr->alg_id));
        return -1;
    }
    snprintf(name, sizeof(name), "%.*s", (int)(vlen < 63 ? vlen : 63), v);
    alg = vlen < 63 ? rabred_table_by_name(nr->coll, name) : NULL;
    if (token_is(v, vlen, "auto") || token_is(v, vlen, "previous")) {
        nr->alg_id = 'a' == v[0] ? RABRED_ALG_AUTO : RABRED_ALG_PREVIOUS;
    } else if (NULL != alg) {
        nr->alg_id = alg->id;
    } else {
        list_algs(nr->coll, known, sizeof(known));
        report(&ps->rep, RABRED_RULES_ERROR, nr->line, "unknown %s algorithm %s (known: %s)",
               rabred_coll_name(nr->coll), quoted(q, sizeof(q), v, vlen), known);
        return -1;
    }
    nr->have_alg = 1;
    return 0;
}

static int apply_commutative(parser_t *ps, named_rule_t *nr, const char *v, size_t vlen)
{
    char q[48];
    int val = token_is(v, vlen, "yes") ? 1 : token_is(v, vlen, "no") ? 0 : -1;
    if (val < 0) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line, "commutative=%s: use yes or no",
               quoted(q, sizeof(q), v, vlen));
        return -1;
    }
    if (nr->have_commutative && val != nr->commutative) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line,
               "contradictory conditions: commutative=yes and commutative=no");
        return -1;
    }
    nr->commutative = val;
    nr->have_commutative = 1;
    return 0;
}

static int apply_segsize(parser_t *ps, named_rule_t *nr, const char *v, size_t vlen)
{
    if (nr->have_segsize) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line, "duplicate segsize=");
        return -1;
    }
    nr->have_segsize = 1;
    return parse_size(ps, nr->line, v, vlen, &nr->segsize);
}

/* One key<op>value item, already split.  Returns 0 or -1 (reported). */
static int apply_item(parser_t *ps, named_rule_t *nr, const char *key, size_t klen,
                      const char *op, size_t oplen, const char *v, size_t vlen)
{
    char q[48];
    int is_eq = token_is(op, oplen, "=");
    if (token_is(key, klen, "comm_size") || token_is(key, klen, "msg_size")) {
        return apply_size(ps, nr, 'c' == key[0], op, oplen, v, vlen);
    }
    if (!token_is(key, klen, "alg") && !token_is(key, klen, "commutative") &&
        !token_is(key, klen, "segsize")) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line,
               "unknown key %s (use comm_size, msg_size, commutative, alg or segsize)",
               quoted(q, sizeof(q), key, klen));
        return -1;
    }
    if (!is_eq) {
        bad_operator(ps, nr->line, key, klen, op, oplen, "=");
        return -1;
    }
    if ('a' == key[0]) {
        return apply_alg(ps, nr, v, vlen);
    }
    return 'c' == key[0] ? apply_commutative(ps, nr, v, vlen) : apply_segsize(ps, nr, v, vlen);
}

/* Splits "key<op>value" (blanks allowed around the operator).  Returns 0,
 * -1 for an error after which the item still had a clear end, -2 for a
 * syntax error after which the rest of the line cannot be trusted. */
static int parse_item(parser_t *ps, span_t *s, named_rule_t *nr)
{
    const char *key, *op, *v, *word;
    size_t klen, oplen, vlen;
    char q[48];
    span_t rest = *s;
    size_t wlen = take(&rest, is_word_char, &word);
    klen = take(s, is_key_char, &key);
    skip_blanks(s);
    oplen = take(s, is_op_char, &op);
    skip_blanks(s);
    vlen = take(s, is_word_char, &v);
    if (0 == klen || 0 == oplen || 0 == vlen) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line,
               "expected key<op>value such as msg_size>=64K or alg=ring, found %s",
               quoted(q, sizeof(q), word, wlen));
        return -2;
    }
    return apply_item(ps, nr, key, klen, op, oplen, v, vlen);
}

/* Checks that need the whole line, then the rule is kept. */
static void finish_named_rule(parser_t *ps, named_rule_t *nr)
{
    const rabred_alg_t *alg = rabred_table_by_id(nr->coll, nr->alg_id);
    int ok = 1;
    if (!nr->have_alg) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line,
               "no alg=: each rule names an algorithm, auto or previous");
        return;
    }
    int no_comm = nr->comm_lo > nr->comm_hi || nr->comm_hi < 1; /* no communicator is empty */
    if (no_comm || nr->msg_lo > nr->msg_hi) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line,
               "contradictory conditions: no %s satisfies them",
               no_comm ? "communicator size" : "message size");
        ok = 0;
    }
    if (NULL == alg && nr->have_segsize) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line,
               "segsize= with alg=%s: only a named algorithm takes a segment size",
               rabred_rules_alg_name(nr->coll, nr->alg_id));
        ok = 0;
    }
    if (NULL != alg && (alg->restrictions & RABRED_NEEDS_COMMUTATIVE) && 0 == nr->commutative) {
        report(&ps->rep, RABRED_RULES_ERROR, nr->line,
               "%s needs a commutative operation, so a commutative=no rule could never use it",
               alg->name);
        ok = 0;
    }
    if (!ok) {
        return;
    }
    if (nr->segsize > 0 && !alg_segments(nr->coll, nr->alg_id)) {
        report(&ps->rep, RABRED_RULES_WARNING, nr->line,
               "segsize= ignored: %s does not segment", alg->name);
        nr->segsize = 0;
    }
    rabred_rule_t r = {nr->coll, (int)nr->comm_lo, (int)nr->comm_hi, nr->msg_lo, nr->msg_hi,
                       nr->commutative, nr->alg_id, nr->segsize, nr->line};
    add_rule(ps, &r);
}

static void parse_named_line(parser_t *ps, size_t start, size_t end, int line)
{
    const char *hash = memchr(ps->text + start, '#', end - start);
    span_t s = {ps->text + start, NULL != hash ? hash : ps->text + end};
    named_rule_t nr = {RABRED_COLL_ALLREDUCE, 0, INT_MAX, 0, INT64_MAX, -1, RABRED_ALG_AUTO,
                       line, 0, 0, 0, 0, 0};
    const char *word;
    size_t wlen;
    char q[48];
    skip_blanks(&s);
    if (s.p == s.end) {
        return;
    }
    wlen = take(&s, is_word_char, &word);
    if (!token_is(word, wlen, "allreduce") && !token_is(word, wlen, "reduce")) {
        report(&ps->rep, RABRED_RULES_ERROR, line,
               "unknown collective %s (rabred serves allreduce and reduce)",
               quoted(q, sizeof(q), word, wlen));
        return;
    }
    nr.coll = 'a' == word[0] ? RABRED_COLL_ALLREDUCE : RABRED_COLL_REDUCE;
    for (skip_blanks(&s); s.p < s.end; skip_blanks(&s)) {
        int rc = parse_item(ps, &s, &nr);
        nr.bad |= rc < 0;
        if (rc < -1) {
            break;
        }
    }
    if (!nr.bad) {
        finish_named_rule(ps, &nr);
    }
}

/* Does rule a match every call rule b matches? */
static int covers(const rabred_rule_t *a, const rabred_rule_t *b)
{
    return a->coll == b->coll && a->comm_min <= b->comm_min && a->comm_max >= b->comm_max &&
           a->msg_min <= b->msg_min && a->msg_max >= b->msg_max &&
           (a->commutative < 0 || a->commutative == b->commutative);
}

/* First match wins, so a rule covered by an earlier one is dead. */
static void warn_shadowed(parser_t *ps)
{
    for (int i = 1; i < ps->n; i++) {
        for (int j = 0; j < i; j++) {
            if (covers(&ps->rules[j], &ps->rules[i])) {
                report(&ps->rep, RABRED_RULES_WARNING, ps->rules[i].line,
                       "never used: the rule on line %d matches every call this one would",
                       ps->rules[j].line);
                break;
            }
        }
    }
}

static void parse_named(parser_t *ps)
{
    size_t start = 0;
    for (int line = 1; start < ps->len && !ps->stop && !ps->rep.gave_up; line++) {
        const char *nl = memchr(ps->text + start, '\n', ps->len - start);
        size_t end = NULL != nl ? (size_t)(nl - ps->text) : ps->len;
        parse_named_line(ps, start, end, line);
        start = end + 1;
    }
    if (0 == ps->rep.errors) {
        warn_shadowed(ps);
    }
}

/* ------------------------------------------------------------------ */
/* Public: parse, load, free                                          */

int rabred_rules_parse(const char *text, size_t len, const char *name, rabred_rules_t *out,
                       rabred_rules_report_fn report_fn, void *ctx)
{
    parser_t ps;
    memset(&ps, 0, sizeof(ps));
    ps.text = text;
    ps.len = len;
    ps.rep = (reporter_t){NULL != name ? name : "rules", report_fn, ctx, 0, 0, 0};
    if (NULL != out) {
        out->rules = NULL;
        out->n = 0;
    }
    if (NULL == out || (NULL == text && len > 0)) {
        return RABRED_ERR_ARG;
    }
    if (len > RABRED_RULES_MAX_BYTES) {
        report(&ps.rep, RABRED_RULES_ERROR, 0, "%zu bytes: larger than the %d-byte limit", len,
               RABRED_RULES_MAX_BYTES);
        return RABRED_ERR_ARG;
    }
    check_text(&ps);
    if (0 == ps.rep.errors) {
        format_t format = detect_format(text, len);
        if (FORMAT_CLASSIC == format) {
            parse_classic(&ps);
        } else if (FORMAT_NAMED == format) {
            parse_named(&ps);
        }
    }
    if (ps.rep.errors > 0 || ps.nomem) {
        free(ps.rules);
        return ps.nomem ? RABRED_ERR_NOMEM : RABRED_ERR_ARG;
    }
    out->rules = ps.rules;
    out->n = ps.n;
    return RABRED_OK;
}

int rabred_rules_load(const char *path, rabred_rules_t *out, rabred_rules_report_fn report_fn,
                      void *ctx)
{
    reporter_t rep = {NULL != path ? path : "(null)", report_fn, ctx, 0, 0, 0};
    FILE *f;
    char *buf;
    size_t n;
    int err, rc;
    if (NULL != out) {
        out->rules = NULL;
        out->n = 0;
    }
    if (NULL == path || NULL == out) {
        return RABRED_ERR_ARG;
    }
    /* Without blocking: opening a FIFO for reading waits for a writer (an
     * MPI_Init that never returns); only a regular file is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        err = errno;
        report(&rep, RABRED_RULES_ERROR, 0, "cannot open: %s", strerror(err));
        return RABRED_ERR_ARG;
    }
    if (0 != fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        report(&rep, RABRED_RULES_ERROR, 0,
               "not a regular file (a directory, FIFO, socket or device): refused");
        return RABRED_ERR_ARG;
    }
    if (NULL == (f = fdopen(fd, "rb"))) {
        err = errno;
        close(fd);
        report(&rep, RABRED_RULES_ERROR, 0, "cannot open: %s", strerror(err));
        return RABRED_ERR_ARG;
    }
    /* Read one byte more than allowed: a file that grows while it is read
     * is refused the same way, without trusting its size. */
    if (NULL == (buf = malloc((size_t)RABRED_RULES_MAX_BYTES + 1))) {
        fclose(f);
        report(&rep, RABRED_RULES_ERROR, 0, "out of memory");
        return RABRED_ERR_NOMEM;
    }
    errno = 0;
    n = fread(buf, 1, (size_t)RABRED_RULES_MAX_BYTES + 1, f);
    err = ferror(f) ? (0 != errno ? errno : EIO) : 0;
    fclose(f);
    if (0 != err) {
        report(&rep, RABRED_RULES_ERROR, 0, "cannot read: %s", strerror(err));
        rc = RABRED_ERR_ARG;
    } else if (n > RABRED_RULES_MAX_BYTES) {
        report(&rep, RABRED_RULES_ERROR, 0, "larger than the %d-byte limit for rules files",
               RABRED_RULES_MAX_BYTES);
        rc = RABRED_ERR_ARG;
    } else {
        rc = rabred_rules_parse(buf, n, path, out, report_fn, ctx);
    }
    free(buf);
    return rc;
}

void rabred_rules_free(rabred_rules_t *rules)
{
    if (NULL != rules) {
        free(rules->rules);
        rules->rules = NULL;
        rules->n = 0;
    }
}

/* ------------------------------------------------------------------ */
/* Public: prune and lookup                                           */

int rabred_rules_usable(const rabred_rules_t *rules)
{
    return NULL != rules && rules->n >= 0 && (0 == rules->n || NULL != rules->rules);
}

int rabred_rules_prune(const rabred_rules_t *all, rabred_coll_t coll, int comm_size,
                       rabred_rules_t *out)
{
    int n = 0;
    if (NULL != out) {
        out->rules = NULL;
        out->n = 0;
    }
    if (!rabred_rules_usable(all) || NULL == out || (int)coll < 0 || coll >= RABRED_NCOLLS) {
        return RABRED_ERR_ARG;
    }
    for (int i = 0; i < all->n; i++) {
        const rabred_rule_t *r = &all->rules[i];
        n += r->coll == coll && r->comm_min <= comm_size && comm_size <= r->comm_max;
    }
    if (0 == n) {
        return RABRED_OK;
    }
    if (NULL == (out->rules = malloc((size_t)n * sizeof(*out->rules)))) {
        return RABRED_ERR_NOMEM;
    }
    for (int i = 0; i < all->n; i++) {
        const rabred_rule_t *r = &all->rules[i];
        if (r->coll == coll && r->comm_min <= comm_size && comm_size <= r->comm_max) {
            out->rules[out->n++] = *r;
        }
    }
    return RABRED_OK;
}

const rabred_rule_t *rabred_rules_lookup(const rabred_rules_t *pruned, int64_t bytes,
                                         int commutative)
{
    int want = 0 != commutative;
    if (!rabred_rules_usable(pruned)) {
        return NULL;
    }
    for (int i = 0; i < pruned->n; i++) {
        const rabred_rule_t *r = &pruned->rules[i];
        if (r->msg_min <= bytes && bytes <= r->msg_max &&
            (r->commutative < 0 || r->commutative == want)) {
            return r;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Digest                                                             */

uint64_t rabred_digest(uint64_t h, const void *data, size_t len)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ bytes[i]) * 0x100000001b3ULL; /* FNV-1a's 64-bit prime */
    }
    return h;
}

uint64_t rabred_rules_digest(uint64_t h, const rabred_rules_t *rules)
{
    int64_t n = NULL != rules ? rules->n : 0;
    h = rabred_digest(h, &n, sizeof(n));
    for (int64_t i = 0; i < n; i++) {
        const rabred_rule_t *r = &rules->rules[i];
        /* widened into one array: no struct padding gets digested */
        int64_t fields[] = {r->coll,    r->comm_min,    r->comm_max, r->msg_min,
                            r->msg_max, r->commutative, r->alg_id,   r->segsize};
        h = rabred_digest(h, fields, sizeof(fields));
    }
    return h;
}
