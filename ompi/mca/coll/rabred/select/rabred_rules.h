/*
 * Rules files (coll_rabred_rules_file): parse, validate, prune, look up
 * (the writers, for rabred-tune, are in rabred_rules_write.h).  Pure C, no
 * MPI: unit-tested with valid, invalid and hostile input.
 *
 * Two formats, told apart by the first token that is not a comment:
 *
 * 1. Open MPI coll/tuned's classic dynamic rules format, unchanged
 *    (coll_tuned_dynamic_rules_filename):
 *        <number of collectives>
 *        <collective id>            2 allreduce, 11 reduce (others skipped)
 *        <number of comm sizes>
 *        <comm size>
 *        <number of message sizes>
 *        <msg size> <alg> <topo/fanout> <segsize>     one line per size
 *    A comm-size entry serves communicators from its size up to the next
 *    entry's; a msg-size entry serves sizes from its size up to the next
 *    one's; a first entry also serves all sizes below it (tuned's own
 *    reading).  Algorithm ids are tuned's and map onto rabred's through
 *    the table (rabred_alg_t.tuned_ids); an id with no rabred equivalent
 *    is reported and its cells use the built-in decision.
 *    Open MPI 5's optional first line `rule-file-version-2` is accepted;
 *    it allows a fifth number per line (max requests), which rabred ignores.
 *
 * 2. rabred's named format, one rule per line, first match wins:
 *        allreduce comm_size>=16 msg_size>=64K alg=binary_blocks
 *        allreduce msg_size>=1M commutative=yes alg=segmented_ring segsize=128K
 *        reduce comm_size=6 commutative=no alg=rabenseifner
 *    <collective> [condition ...] alg=<name> [segsize=<bytes>]
 *    conditions: comm_size and msg_size (bytes per rank, count * type
 *    size) with =, <, <=, >, >=; commutative=yes|no.  Sizes take K, M, G
 *    (powers of 1024).  alg is a table name, `auto` (built-in decision) or
 *    `previous` (the component rabred replaced).  `#` starts a comment.
 *
 * Any error rejects the whole file (a half-applied file is worse than
 * none); every message names the file, and the line when it is about one:
 * "rules.txt:4: ...".
 */
#ifndef RABRED_RULES_H
#define RABRED_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/rabred_table.h"

#define RABRED_RULES_MAX_BYTES (1 << 20) /* larger files are refused */
#define RABRED_RULES_MAX_RULES 10000
#define RABRED_RULES_MAX_LINE 4096    /* longer lines are refused (binary junk) */
#define RABRED_RULES_MAX_MESSAGES 20  /* errors (and, apart, warnings) reported per file */

/* coll/tuned's ids of the two collectives in classic files. */
#define RABRED_RULES_TUNED_ALLREDUCE 2
#define RABRED_RULES_TUNED_REDUCE 11

typedef struct {
    rabred_coll_t coll;
    int comm_min, comm_max;   /* inclusive; comm_max INT_MAX when open */
    int64_t msg_min, msg_max; /* inclusive bytes; msg_max INT64_MAX when open */
    int commutative;          /* -1 either, 0 non-commutative only, 1 commutative only */
    int alg_id;               /* table id, RABRED_ALG_AUTO or RABRED_ALG_PREVIOUS */
    int64_t segsize;          /* bytes; 0 = coll_rabred_segment_size */
    int line;                 /* where it came from, for messages */
} rabred_rule_t;

typedef struct {
    rabred_rule_t *rules; /* in match order */
    int n;
} rabred_rules_t;

typedef enum { RABRED_RULES_NOTE, RABRED_RULES_WARNING, RABRED_RULES_ERROR } rabred_rules_severity_t;

/* Receives each message, already prefixed "file:line: ". */
typedef void (*rabred_rules_report_fn)(void *ctx, rabred_rules_severity_t severity,
                                       const char *message);

/* Parse `len` bytes of `text` (need not be NUL-terminated; may hold any
 * bytes).  `name` is used in messages.  On success *out holds the rules and
 * RABRED_OK is returned; on any error every problem found is reported,
 * *out is empty and RABRED_ERR_ARG (or RABRED_ERR_NOMEM) is returned. */
int rabred_rules_parse(const char *text, size_t len, const char *name, rabred_rules_t *out,
                       rabred_rules_report_fn report, void *ctx);

/* Read and parse a file (refusing files over RABRED_RULES_MAX_BYTES). */
int rabred_rules_load(const char *path, rabred_rules_t *out, rabred_rules_report_fn report,
                      void *ctx);

void rabred_rules_free(rabred_rules_t *rules);

/* Is `rules` a list the functions below can walk (n >= 0, rules set when
 * n > 0)? */
int rabred_rules_usable(const rabred_rules_t *rules);

/* A rule's algorithm as rules files spell it: the table name, "auto",
 * "previous", or "?" for an id the table lacks. */
const char *rabred_rules_alg_name(rabred_coll_t coll, int alg_id);

/* The rules that can match a communicator of `comm_size` ranks, in order,
 * for one collective (done once per communicator, at module enable). */
int rabred_rules_prune(const rabred_rules_t *all, rabred_coll_t coll, int comm_size,
                       rabred_rules_t *out);

/* First rule of a pruned list matching a call, or NULL. */
const rabred_rule_t *rabred_rules_lookup(const rabred_rules_t *pruned, int64_t bytes,
                                         int commutative);

/* A 64-bit digest (FNV-1a) of what the rules decide: every field of every
 * rule in order, not the line numbers, so files that differ only in
 * comments, spacing or format (classic against its named rewrite) digest
 * alike, and an empty list digests like no file at all (both leave every
 * call to the built-in decision).  The component compares digests across
 * ranks (coll_rabred_agree.c).  rabred_digest folds `len` bytes into `h`;
 * start from RABRED_DIGEST_INIT. */
#define RABRED_DIGEST_INIT 0xcbf29ce484222325ULL
uint64_t rabred_digest(uint64_t h, const void *data, size_t len);
uint64_t rabred_rules_digest(uint64_t h, const rabred_rules_t *rules);

#endif /* RABRED_RULES_H */
