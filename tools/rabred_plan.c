/*
 * rabred-plan: look at rabred's algorithms without MPI.
 *
 *   rabred-plan --alg NAME -p P --count N [--root R] [--coll allreduce|reduce]
 *               [--noncommutative] [--segment ELEMS] [--arrival T0,T1,...]
 *               [--cost | --alpha A --beta B --gamma G] [--svg FILE]
 *   rabred-plan --list | --help
 *
 * Default: every rank's plan, round by round, then one line saying whether
 * the simulator verified the call.  --cost prices the call term by term
 * (alpha, beta and gamma coefficients, the last two in units of n = count
 * elements) so the numbers read like the papers' formulas; model values give
 * one completion time instead.  --svg draws the data flow in the style of
 * Rabenseifner's (2004) Fig. 1 (rabred_plan_svg.c).  --arrival gives every rank's
 * arrival offset: the simulator starts each rank then, and arrival-aware
 * builders (Proficz 2018) plan with the offsets and the model.
 *
 * Everything comes from the algorithm table, the plan builders and the
 * simulator: no algorithm is named here, so new table entries show up
 * without touching this file.
 *
 * Exit status: 0 success, 1 the plans failed to verify (or could not be
 * simulated or drawn), 2 bad command line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/rabred_nodes.h"
#include "plan/rabred_plan.h"
#include "sim/rabred_sim.h"
#include "algorithms/rabred_table.h"
#include "rabred_plan_svg.h"

#define PROG "rabred-plan"
#ifndef PACKAGE_VERSION /* configure defines it */
#define PACKAGE_VERSION "?"
#endif
#define MAX_P 1024      /* what the simulator's tests cover */
#define MAX_SVG_P 32    /* beyond this a column is narrower than its labels */
#define LEGIBLE_SVG_P 16
#define MAX_COUNT ((int64_t)1 << 62)

enum { EXIT_VERIFY = 1, EXIT_USAGE = 2 };

typedef struct {
    const char *alg_name, *svg;
    int p, root, root_set, coll, commutative, cost, list, help;
    int64_t count, seg;
    int count_set, p_set, model_set;
    double model[3]; /* alpha, beta, gamma given on the command line */
    double *arrival; /* --arrival: one offset per rank, or NULL */
    int narrival;
    rabred_arrival_t plan_for; /* what arrival-aware builders get */
    const char *nodes_spec;    /* --nodes, or NULL */
    int32_t node_of[MAX_P];
    rabred_nodes_t node_map;
    const rabred_nodes_t *nodes; /* &node_map with --nodes, else NULL */
    const rabred_alg_t *alg;
} opts_t;

/* ---- messages ---------------------------------------------------------- */

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(" PROG " --help for usage)\n");
    va_end(ap);
    return EXIT_USAGE;
}

static void print_help(void)
{
    printf("usage: " PROG " --alg NAME -p P --count N [options]\n"
           "       " PROG " --list | --help | --version\n\n"
           "Shows, verifies, prices and draws one rabred plan (no MPI needed).\n\n"
           "  --alg NAME         algorithm (see --list)\n"
           "  -p P               number of ranks, 1..%d\n"
           "  --count N          elements per rank, >= 0\n"
           "  --coll C           allreduce (default) or reduce\n"
           "  --root R           root rank of reduce (default 0)\n"
           "  --noncommutative   the op may not be reordered: results must be in rank order\n"
           "  --segment ELEMS    elements per segment for pipelined algorithms (0: none)\n"
           "  --arrival T0,T1,.. each rank's arrival offset (p values >= 0, in the model's\n"
           "                     time unit): ranks start then, arrival-aware algorithms plan\n"
           "                     with them (and --alpha/--beta/--gamma, default 1 each);\n"
           "                     the model line adds the mean elapsed time\n"
           "  --nodes SPEC       which ranks share a node, for the node-aware algorithms:\n"
           "                     block:L (L consecutive ranks per node), cyclic:N (rank r\n"
           "                     on node r mod N) or list:A,B,... (a node label per rank)\n"
           "  --cost             print 'alpha=A beta=B gamma=G': the simulated time with only\n"
           "                     that term on (beta, gamma per element / count: units of n)\n"
           "  --alpha A --beta B --gamma G\n"
           "                     print 'time=T' under this model (beta, gamma per element;\n"
           "                     terms not given are 0)\n"
           "  --svg FILE         draw the data flow as SVG (p <= %d; legible up to %d)\n"
           "  --list             every algorithm: restrictions, description, cost formula\n"
           "  --help             this text\n\n"
           "Without --cost, model values or --svg, prints every rank's plan round by\n"
           "round.  Exit status: 0 ok, 1 plans fail to verify, 2 bad arguments.\n",
           MAX_P, MAX_SVG_P, LEGIBLE_SVG_P);
}

/* Restriction bits as words; bits this file does not know yet still show. */
static void format_restrictions(unsigned r, char *out, size_t size)
{
    static const struct { unsigned bit; const char *text; } known[] = {
        {RABRED_NEEDS_COMMUTATIVE, "commutative op only"},
        {RABRED_NEEDS_COUNT_GE_POF2, "count >= p'"},
        {RABRED_NEEDS_COUNT_GE_P, "count >= p"},
        {RABRED_NEEDS_ORDERED_NODES, "non-commutative op: consecutive ranks per node"},
    };
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (r & known[i].bit) {
            used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s",
                                     used ? ", " : "", known[i].text);
            r &= ~known[i].bit;
        }
    }
    if (r) {
        snprintf(out + used, used < size ? size - used : 0, "%sother (0x%x)", used ? ", " : "",
                 r);
    } else if (0 == used) {
        snprintf(out, size, "none");
    }
}

/* text after `first` (or the indent), word-wrapped to 79 columns */
static void print_wrapped(const char *first, const char *text)
{
    const int indent = 23;
    printf("  %-20s ", first);
    for (const char *s = text; *s;) {
        int take = rabred_plan_line_take(s, 79 - indent);
        printf("%.*s\n", take, s);
        for (s += take; ' ' == *s; s++) {
        }
        if (*s) {
            printf("%*s", indent, "");
        }
    }
}

static void print_list(void)
{
    for (int c = 0; c < RABRED_NCOLLS; c++) {
        printf("%s%s algorithms:\n", c ? "\n" : "", rabred_coll_name((rabred_coll_t)c));
        for (int i = 0; i < rabred_table_size((rabred_coll_t)c); i++) {
            const rabred_alg_t *a = rabred_table_at((rabred_coll_t)c, i);
            char restr[160];
            format_restrictions(a->restrictions, restr, sizeof(restr));
            char cost[512];
            snprintf(cost, sizeof(cost), "cost: %s", a->formula);
            printf("  %-20s restrictions: %s\n", a->name, restr);
            print_wrapped("", a->description);
            print_wrapped("", cost);
        }
    }
}

/* "name, name, ..." of one collective's algorithms, for error messages. */
static void alg_names(rabred_coll_t coll, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < rabred_table_size(coll) && used < size; i++) {
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "",
                                 rabred_table_at(coll, i)->name);
    }
}

/* ---- command line ------------------------------------------------------ */

static int parse_i64(const char *flag, const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || ERANGE == errno || v < lo || v > hi) {
        return usage_error("%s: expected an integer in %lld..%lld, got '%s'", flag,
                           (long long)lo, (long long)hi, text);
    }
    *out = v;
    return 0;
}

static int parse_model(const char *flag, const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || ERANGE == errno || !isfinite(v) || v < 0) {
        return usage_error("%s: expected a number >= 0, got '%s'", flag, text);
    }
    *out = v;
    return 0;
}

/* "t0,t1,...": numbers >= 0, kept in o->arrival (freed at exit by the OS). */
static int parse_arrival(const char *flag, const char *text, opts_t *o)
{
    int n = 1;
    for (const char *c = text; *c; c++) {
        n += ',' == *c;
    }
    double *v = realloc(o->arrival, (size_t)n * sizeof(double));
    if (NULL == v) {
        return usage_error("%s: out of memory", flag);
    }
    o->arrival = v;
    o->narrival = 0;
    for (const char *c = text; o->narrival < n; c++) {
        char *end;
        errno = 0;
        v[o->narrival] = strtod(c, &end);
        if (end == c || (*end != ',' && *end != '\0') || ERANGE == errno ||
            !isfinite(v[o->narrival]) || v[o->narrival] < 0) {
            return usage_error("%s: expected comma-separated numbers >= 0, got '%s'", flag, text);
        }
        o->narrival++;
        c = end;
    }
    return 0;
}

static int parse_coll(const char *text, int *coll)
{
    for (int c = 0; c < RABRED_NCOLLS; c++) {
        if (0 == strcmp(text, rabred_coll_name((rabred_coll_t)c))) {
            *coll = c;
            return 0;
        }
    }
    return usage_error("--coll: expected allreduce or reduce, got '%s'", text);
}

typedef enum {
    O_ALG, O_P, O_COUNT, O_ROOT, O_COLL, O_NONCOMM, O_SEG, O_COST, O_SVG, O_ALPHA, O_BETA,
    O_GAMMA, O_LIST, O_HELP, O_ARRIVAL, O_VERSION, O_NODES
} opt_id_t;

static const struct {
    const char *name, *alias;
    opt_id_t id;
    int has_arg;
} options[] = {
    {"--alg", NULL, O_ALG, 1},         {"-p", "--p", O_P, 1},
    {"--count", "-n", O_COUNT, 1},     {"--root", NULL, O_ROOT, 1},
    {"--coll", NULL, O_COLL, 1},       {"--noncommutative", NULL, O_NONCOMM, 0},
    {"--segment", NULL, O_SEG, 1},     {"--cost", NULL, O_COST, 0},
    {"--svg", NULL, O_SVG, 1},         {"--alpha", NULL, O_ALPHA, 1},
    {"--beta", NULL, O_BETA, 1},       {"--gamma", NULL, O_GAMMA, 1},
    {"--list", NULL, O_LIST, 0},       {"--help", "-h", O_HELP, 0},
    {"--arrival", NULL, O_ARRIVAL, 1},  {"--version", NULL, O_VERSION, 0},
    {"--nodes", NULL, O_NODES, 1},
};

static int apply_option(opts_t *o, opt_id_t id, const char *flag, const char *v)
{
    int64_t x = 0;
    int rc = 0;
    switch (id) {
    case O_ALG: o->alg_name = v; break;
    case O_P: rc = parse_i64(flag, v, 1, MAX_P, &x); o->p = (int)x; o->p_set = 1; break;
    case O_COUNT: rc = parse_i64(flag, v, 0, MAX_COUNT, &o->count); o->count_set = 1; break;
    case O_ROOT: rc = parse_i64(flag, v, 0, MAX_P - 1, &x); o->root = (int)x; o->root_set = 1;
        break;
    case O_COLL: rc = parse_coll(v, &o->coll); break;
    case O_NONCOMM: o->commutative = 0; break;
    case O_SEG: rc = parse_i64(flag, v, 0, MAX_COUNT, &o->seg); break;
    case O_COST: o->cost = 1; break;
    case O_SVG: o->svg = v; break;
    case O_ALPHA: case O_BETA: case O_GAMMA:
        rc = parse_model(flag, v, &o->model[id - O_ALPHA]);
        o->model_set = 1;
        break;
    case O_LIST: o->list = 1; break;
    case O_HELP: o->help = 1; break;
    case O_VERSION: o->help = 2; break; /* help 2: the version */
    case O_ARRIVAL: rc = parse_arrival(flag, v, o); break;
    case O_NODES: o->nodes_spec = v; break;
    }
    return rc;
}

/* Accepts "--flag value" and "--flag=value". */
static int parse_args(int argc, char **argv, opts_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *eq = strchr(arg, '=');
        size_t len = eq && arg[0] == '-' ? (size_t)(eq - arg) : strlen(arg);
        size_t k, n = sizeof(options) / sizeof(options[0]);
        for (k = 0; k < n; k++) {
            const char *a = options[k].alias;
            if ((strlen(options[k].name) == len && 0 == strncmp(arg, options[k].name, len)) ||
                (a && strlen(a) == len && 0 == strncmp(arg, a, len))) {
                break;
            }
        }
        if (k == n) {
            return usage_error("unknown argument '%s'", arg);
        }
        const char *value = NULL;
        if (options[k].has_arg) {
            value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (NULL == value) {
                return usage_error("%s needs a value", options[k].name);
            }
        } else if (eq) {
            return usage_error("%s takes no value", options[k].name);
        }
        int rc = apply_option(o, options[k].id, options[k].name, value);
        if (rc) {
            return rc;
        }
    }
    return 0;
}

static int unknown_alg(const opts_t *o)
{
    char names[1024];
    rabred_coll_t coll = (rabred_coll_t)o->coll;
    rabred_coll_t other = RABRED_COLL_ALLREDUCE == coll ? RABRED_COLL_REDUCE
                                                        : RABRED_COLL_ALLREDUCE;
    char hint[96] = "";
    alg_names(coll, names, sizeof(names));
    if (NULL != rabred_table_by_name(other, o->alg_name)) {
        snprintf(hint, sizeof(hint), "\n(%s is a %s algorithm: add --coll %s)", o->alg_name,
                 rabred_coll_name(other), rabred_coll_name(other));
    }
    return usage_error("unknown %s algorithm '%s'; valid: %s%s", rabred_coll_name(coll),
                       o->alg_name, names, hint);
}

/* Cross-checks the options once they are all known. */
static int check_args(opts_t *o)
{
    if (NULL == o->alg_name || !o->p_set || !o->count_set) {
        return usage_error("--alg, -p and --count are required");
    }
    o->alg = rabred_table_by_name((rabred_coll_t)o->coll, o->alg_name);
    if (NULL == o->alg) {
        return unknown_alg(o);
    }
    if (RABRED_COLL_ALLREDUCE == o->coll && o->root_set) {
        return usage_error("--root only applies to --coll reduce");
    }
    if (o->root >= o->p) {
        return usage_error("--root %d is out of range for p=%d (0..%d)", o->root, o->p, o->p - 1);
    }
    if (o->cost && o->model_set) {
        return usage_error("--cost and --alpha/--beta/--gamma are alternatives: give one");
    }
    if (o->svg && o->p > MAX_SVG_P) {
        return usage_error("--svg draws at most %d ranks (p=%d); a column would be narrower than "
                           "its labels", MAX_SVG_P, o->p);
    }
    if (o->svg && 0 == o->count) {
        return usage_error("--svg needs --count >= 1: there is no data to draw");
    }
    if (o->arrival && o->narrival != o->p) {
        return usage_error("--arrival has %d offsets; p=%d needs one per rank", o->narrival, o->p);
    }
    if (o->nodes_spec) {
        if (RABRED_OK != rabred_nodes_parse(o->nodes_spec, o->p, o->node_of, &o->node_map.nnodes)) {
            return usage_error("--nodes '%s': expected block:L or cyclic:N (1..p) or list: with "
                               "p node labels in 0..p-1 (p=%d)", o->nodes_spec, o->p);
        }
        o->node_map.node_of = o->node_of;
        o->nodes = &o->node_map;
    }
    if (o->arrival && o->cost) {
        return usage_error("--arrival and --cost do not mix (offsets are times, not terms): "
                           "give --alpha/--beta/--gamma");
    }
    /* the builders' model: the one given, else 1 per message, element, reduction */
    o->plan_for.offset = o->arrival;
    o->plan_for.alpha = o->model_set ? o->model[0] : 1.0;
    o->plan_for.beta = o->model_set ? o->model[1] : 1.0;
    o->plan_for.gamma = o->model_set ? o->model[2] : 1.0;
    return 0;
}

/* ---- plans and the simulator ------------------------------------------- */

/* "reduce rabenseifner: p=7 count=1000 root=3, non-commutative op" */
static void describe_call(const opts_t *o, char *out, size_t size)
{
    char root[32] = "", seg[48] = "";
    if (RABRED_COLL_REDUCE == o->coll) {
        snprintf(root, sizeof(root), " root=%d", o->root);
    }
    if (o->seg > 0) {
        snprintf(seg, sizeof(seg), " segment=%lld", (long long)o->seg);
    }
    snprintf(out, size, "%s %s: p=%d count=%lld%s%s, %s op%s",
             rabred_coll_name((rabred_coll_t)o->coll), o->alg->name, o->p, (long long)o->count,
             root, seg, o->commutative ? "commutative" : "non-commutative",
             o->arrival ? ", arrival offsets given" : "");
}

static rabred_plan_args_t plan_args(const opts_t *o, int rank)
{
    rabred_plan_args_t a = {o->p, rank, RABRED_COLL_REDUCE == o->coll ? o->root : -1, o->count,
                            o->commutative, o->seg, o->arrival ? &o->plan_for : NULL, 0,
                            o->nodes};
    return a;
}

/* Builds all p plans; on failure says which rank and frees what it built. */
static rabred_plan_t *build_plans(const opts_t *o)
{
    rabred_plan_t *plans = calloc((size_t)o->p, sizeof(*plans));
    if (NULL == plans) {
        fprintf(stderr, PROG ": out of memory\n");
        return NULL;
    }
    for (int r = 0; r < o->p; r++) {
        rabred_plan_args_t a = plan_args(o, r);
        rabred_plan_init(&plans[r]);
        int rc = rabred_plan_build(o->alg->build, &a, &plans[r]);
        if (RABRED_OK != rc) {
            fprintf(stderr, PROG ": building rank %d's plan failed (%s)\n", r,
                    RABRED_ERR_NOMEM == rc ? "out of memory" : "arguments refused");
            for (int k = 0; k <= r; k++) {
                rabred_plan_free(&plans[k]);
            }
            free(plans);
            return NULL;
        }
    }
    return plans;
}

static void free_plans(rabred_plan_t *plans, int p)
{
    for (int r = 0; plans && r < p; r++) {
        rabred_plan_free(&plans[r]);
    }
    free(plans);
}

/* Runs the simulator; prints the problem and returns nonzero when the call
 * cannot be simulated or the plans are wrong. */
static int simulate(const opts_t *o, double alpha, double beta, double gamma,
                    rabred_sim_result_t *res)
{
    rabred_sim_model_t model;
    rabred_sim_model_default(&model);
    model.alpha = alpha;
    model.beta = beta;
    model.gamma = gamma;
    model.arrival = o->arrival;
    rabred_sim_call_t call = {o->alg->build, o->p, RABRED_COLL_REDUCE == o->coll ? o->root : -1,
                              o->count, o->commutative, 0, o->seg, 0,
                              o->arrival ? &o->plan_for : NULL, o->nodes};
    int rc = rabred_simulate(&call, &model, res);
    if (RABRED_OK != rc) {
        fprintf(stderr, PROG ": the simulation could not run (%s)\n",
                RABRED_ERR_NOMEM == rc ? "out of memory" : "arguments refused");
        return EXIT_VERIFY;
    }
    if (!res->ok) {
        fprintf(stderr, PROG ": NOT verified: %s\n", res->error);
        return EXIT_VERIFY;
    }
    return 0;
}

/* --cost: one term at a time.  beta and gamma are simulated per element and
 * divided by n afterwards, which is exact in binary where 1/n is not. */
static int print_cost(const opts_t *o)
{
    rabred_sim_result_t res;
    double t[3];
    for (int term = 0; term < 3; term++) {
        int rc = simulate(o, 0 == term, 1 == term, 2 == term, &res);
        if (rc) {
            return rc;
        }
        t[term] = term && o->count ? res.time / (double)o->count : res.time;
    }
    printf("alpha=%g beta=%g gamma=%g\n", t[0], t[1], t[2]);
    return 0;
}

static int print_time(const opts_t *o)
{
    rabred_sim_result_t res;
    int rc = simulate(o, o->model[0], o->model[1], o->model[2], &res);
    if (0 == rc && o->arrival) {
        printf("time=%g mean_elapsed=%g\n", res.time, res.avg_elapsed);
    } else if (0 == rc) {
        printf("time=%g\n", res.time);
    }
    return rc;
}

static int print_verified(const opts_t *o)
{
    rabred_sim_result_t res;
    int rc = simulate(o, 1, 1, 1, &res);
    if (rc) {
        return rc;
    }
    char who[64];
    if (RABRED_COLL_REDUCE == o->coll) {
        snprintf(who, sizeof(who), "the root's (rank %d)", o->root);
    } else {
        snprintf(who, sizeof(who), "every rank's");
    }
    /* The simulator checks rank order only for non-commutative calls. */
    printf("verified: %s result holds ranks 0..%d exactly once (%s)\n", who, o->p - 1,
           o->commutative ? "commutative op: order not checked" : "in rank order");
    return 0;
}

/* ---- the plan listing -------------------------------------------------- */

static int digits(int64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* One aligned line: "round k" (first line of a round only), the verb,
 * "from -> to", the range and a note. */
static void print_step(int round, const char *verb, const char *from, const char *to,
                       int64_t off, int64_t len, int w, const char *note)
{
    char label[24] = "";
    if (round >= 0) {
        snprintf(label, sizeof(label), "round %d", round);
    }
    printf("  %-9s %-7s %5s -> %-5s [%*lld, %*lld)%s%s\n", label, verb, from, to, w,
           (long long)off, w, (long long)(off + len), note ? "  " : "", note ? note : "");
}

static void print_round(const rabred_plan_t *plan, int k, int w)
{
    const rabred_round_t *rd = &plan->rounds[k];
    int first = k;
    if (0 == rd->nxfer && 0 == rd->nlocal) {
        printf("  round %-3d (nothing)\n", k);
    }
    /* receives first: the executor posts them before the sends */
    for (int dir = RABRED_XFER_RECV; dir <= RABRED_XFER_SEND; dir++) {
        for (int i = 0; i < rd->nxfer; i++) {
            const rabred_xfer_t *x = &plan->xfers[rd->first_xfer + i];
            char peer[16];
            if (x->dir != dir) {
                continue;
            }
            snprintf(peer, sizeof(peer), "P%d", (int)x->peer);
            int recv = RABRED_XFER_RECV == dir;
            /* a joined round is posted together with the one before */
            const char *note = first >= 0 && rd->joined ? "joined to the round before" : NULL;
            const char *buf = rabred_plan_buf_name(x->buf);
            print_step(first, recv ? "recv" : "send", recv ? peer : buf, recv ? buf : peer, x->off,
                       x->len, w, note);
            first = -1;
        }
    }
    for (int i = 0; i < rd->nlocal; i++) {
        const rabred_local_t *l = &plan->locals[rd->first_local + i];
        int reduce = RABRED_LOCAL_REDUCE == l->kind;
        char note[64];
        snprintf(note, sizeof(note), "%s", reduce ? (l->src_first ? "src first" : "dst first") : "");
        if (l->src_off != l->off) { /* from a receive slot (rabred_plan_reduce_from) */
            snprintf(note + strlen(note), sizeof(note) - strlen(note), "%sfrom %s[%lld]",
                     reduce ? ", " : "", rabred_plan_buf_name(l->src), (long long)l->src_off);
        }
        print_step(first, reduce ? "reduce" : "copy", rabred_plan_buf_name(l->src),
                   rabred_plan_buf_name(l->dst), l->off, l->len, w, '\0' != note[0] ? note : NULL);
        first = -1;
    }
}

static int print_plans(const opts_t *o)
{
    rabred_plan_t *plans = build_plans(o);
    if (NULL == plans) {
        return EXIT_VERIFY;
    }
    int w = digits(o->count);
    char what[160];
    describe_call(o, what, sizeof(what));
    printf("%s\n", what);
    for (int r = 0; r < o->p; r++) {
        printf("\nrank %d: %d round%s\n", r, (int)plans[r].nrounds,
               1 == plans[r].nrounds ? "" : "s");
        for (int k = 0; k < plans[r].nrounds; k++) {
            print_round(&plans[r], k, w);
        }
    }
    printf("\n");
    free_plans(plans, o->p);
    return 0;
}

/* ---- the picture (rabred_plan_svg.c) ------------------------------------ */

static int draw(const opts_t *o)
{
    char what[160];
    if (o->p > LEGIBLE_SVG_P) {
        fprintf(stderr, PROG ": warning: p=%d: the picture is legible up to p=%d\n", o->p,
                LEGIBLE_SVG_P);
    }
    rabred_plan_t *plans = build_plans(o);
    if (NULL == plans) {
        fprintf(stderr, PROG ": cannot analyse the plans (out of memory?)\n");
        return EXIT_VERIFY;
    }
    describe_call(o, what, sizeof(what));
    rabred_plan_svg_t svg = {.path = o->svg,
                             .title = what,
                             .description = o->alg->description,
                             .coll = (rabred_coll_t)o->coll,
                             .p = o->p,
                             .root = o->root,
                             .count = o->count,
                             .plans = plans};
    int rc = rabred_plan_svg_draw(&svg) ? EXIT_VERIFY : 0;
    free_plans(plans, o->p);
    return rc;
}

int main(int argc, char **argv)
{
    opts_t o;
    memset(&o, 0, sizeof(o));
    o.commutative = 1;
    int rc = parse_args(argc, argv, &o);
    if (rc || o.help || o.list) {
        if (0 == rc) {
            2 == o.help ? (void)printf(PROG " %s\n", PACKAGE_VERSION)
            : o.help    ? print_help()
                        : print_list();
        }
        return rc;
    }
    rc = check_args(&o);
    if (rc) {
        return rc;
    }
    rabred_call_t call = {o.p, o.count, o.commutative, o.nodes};
    const char *why = rabred_alg_violation(o.alg, &call);
    if (why) {
        fprintf(stderr, PROG ": note: %s %s %s; the selection layer would not choose it for "
                        "this call\n", rabred_coll_name((rabred_coll_t)o.coll), o.alg->name, why);
    }
    if (o.cost) {
        return print_cost(&o);
    }
    if (o.model_set) {
        return print_time(&o);
    }
    rc = o.svg ? draw(&o) : print_plans(&o);
    return rc ? rc : print_verified(&o);
}
