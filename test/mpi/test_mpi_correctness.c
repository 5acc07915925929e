/*
 * test_mpi_correctness.c -- MPI-level proof that coll/rabred's MPI_Allreduce
 * and MPI_Reduce give correct results AND that rabred (not another coll
 * component) served every call.
 *
 * How it proves "served by rabred": rabred exports, through the MPI tool
 * interface, one enum control variable per collective
 * (coll_rabred_<coll>_algorithm) and one counter performance variable per
 * (collective, algorithm) (coll_rabred_<coll>_<alg>_calls).  The program
 * reads the enum items at run time (so algorithms added later are tested
 * automatically), forces each item in turn with MPI_T_cvar_write, and around
 * every call checks that exactly one counter of that collective moved by one,
 * and that it is the forced algorithm's whenever the forced algorithm's
 * restrictions allow the call.  The chosen counter is also hashed per
 * communicator and compared across ranks: all ranks must pick the same one.
 *
 * How it proves "correct": every expected value is computed here, element by
 * element, by folding a pure generator over the ranks in rank order with a
 * sequential reference of the operation (modular arithmetic for integers,
 * exact small values for floating point).  Nothing is hard-coded.
 *
 * The final tally uses MPI_Gather and MPI_Bcast, which rabred does not
 * replace, so a broken rabred cannot hide its own failures.
 *
 * Flags: --quick (smaller matrix), --large (adds one allreduce and one reduce
 * of more than 2^31 bytes; meant for p = 2), --int8-wrap (adds int8/uint8 SUM
 * that wraps; run with --mca op ^avx, see gen_wrap8), --no-rabred (hidden:
 * no MPI_T at all, checks results of the stock collectives; validates the
 * references of this program), --nodes-interleaved (run under an
 * interleaved coll_rabred_node_map: the node-aware algorithms then serve
 * commutative ops only).
 */
#include <mpi.h>

#include <float.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rabred_mpit.h"

/* ------------------------------------------------------------------------ */
/* Global state, options and reporting                                       */
/* ------------------------------------------------------------------------ */

enum {
    MAX_FAIL_LINES = 12,      /* per rank and phase: enough to diagnose */
    LARGE_FIXED_COUNT = 262147, /* 2 MiB of doubles, odd: uneven blocks */
    ODD_COUNT = 1031,         /* prime: no block split is even */
    REPEAT_ALLREDUCE = 3000,
    REPEAT_REDUCE = 1000
};

static struct {
    bool quick, large, int8_wrap, no_rabred;
    int world_rank, world_size;
    long checks, failed;
    int fail_lines;           /* printed in the current phase */
    char phase[160];
} g;

/* Each phase (algorithm block, repeated calls, large) gets its own budget of
 * failure lines, so that early failures cannot hide later ones. */
static void start_phase(const char *name)
{
    snprintf(g.phase, sizeof g.phase, "%s", name);
    g.fail_lines = 0;
}

static void print_fail(const char *fmt, va_list ap)
{
    if (g.fail_lines == MAX_FAIL_LINES) {
        fprintf(stderr, "FAIL [rank %d] further failure lines of phase '%s' "
                "suppressed\n", g.world_rank, g.phase);
    }
    if (g.fail_lines++ >= MAX_FAIL_LINES) {
        return;
    }
    char line[1024];
    int used = snprintf(line, sizeof line, "FAIL [rank %d] ", g.world_rank);
    vsnprintf(line + used, sizeof line - (size_t)used - 1, fmt, ap);
    /* One write per line: stderr is unbuffered, and mpirun interleaves the
     * writes of different ranks. */
    strcat(line, "\n");
    fputs(line, stderr);
}

/* Counts one check; prints the formatted detail line when it failed. */
static bool expect(bool ok, const char *fmt, ...)
{
    g.checks++;
    if (!ok) {
        va_list ap;
        g.failed++;
        va_start(ap, fmt);
        print_fail(fmt, ap);
        va_end(ap);
    }
    return ok;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", g.world_rank,
                bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Value model: an element is up to MAX_FIELDS scalar fields at fixed        */
/* offsets.  Integers are kept as 64-bit patterns wrapped to the field width */
/* (sign-extended for signed types), so reference arithmetic is exactly the  */
/* modular arithmetic of the narrow C type.  Reals are kept in long double   */
/* and rounded to the field's precision after every step.                    */
/* ------------------------------------------------------------------------ */

enum { MAX_FIELDS = 4 };
typedef enum { F_SINT, F_UINT, F_BOOL, F_REAL } field_kind;
typedef struct { size_t offset, size; field_kind kind; } field_desc;
typedef struct { uint64_t bits; long double real; } scalar_t;
typedef struct { scalar_t f[MAX_FIELDS]; } value_t;
#define LDBL_VALUE_BYTES (LDBL_MANT_DIG == 64 ? 10 : sizeof(long double))

/* Which operations a type takes part in (op_desc.classes must intersect). */
enum {
    CLS_ARITH = 1u << 0,    /* SUM PROD MIN MAX */
    CLS_LOGIC = 1u << 1,    /* LAND LOR LXOR */
    CLS_BITS = 1u << 2,     /* BAND BOR BXOR */
    CLS_LOC = 1u << 3,      /* MINLOC MAXLOC */
    CLS_FIELDSUM = 1u << 4, /* commutative user op: field-wise sum */
    CLS_INTERVAL = 1u << 5, /* non-commutative user op */
    CLS_MATRIX = 1u << 6,   /* non-commutative user op */
    CLS_WRAP8 = 1u << 7,    /* --int8-wrap */
    CLS_FPORDER = 1u << 8   /* order-dependent double sums */
};

typedef struct {
    const char *name;
    MPI_Datatype dt;               /* predefined, or built at start-up */
    MPI_Datatype (*build)(void);   /* constructor of derived types */
    unsigned classes;
    bool check_gaps;               /* bytes outside the fields must survive */
    size_t extent;
    int nfields;
    field_desc field[MAX_FIELDS];
} type_desc;

static uint64_t width_mask(size_t size)
{
    return size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
}

static long double round_to_field(const field_desc *f, long double v)
{
    if (f->size == sizeof(float)) {
        return (float)v;
    }
    return f->size == sizeof(double) ? (long double)(double)v : v;
}

static scalar_t normalize(const field_desc *f, scalar_t s)
{
    uint64_t mask = width_mask(f->size);
    if (f->kind == F_REAL) {
        s.real = round_to_field(f, s.real);
        return s;
    }
    s.bits &= mask;
    if (f->kind == F_SINT && f->size < 8 && (s.bits >> (8 * f->size - 1)))
        s.bits |= ~mask;
    return s;
}

static uint64_t load_uint(const unsigned char *p, size_t size)
{
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    switch (size) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static void store_uint(unsigned char *p, size_t size, uint64_t v)
{
    uint8_t u8 = (uint8_t)v; uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

static scalar_t load_scalar(const field_desc *f, const unsigned char *elem)
{
    const unsigned char *p = elem + f->offset;
    scalar_t s = {0, 0.0L};
    if (f->kind != F_REAL) {
        s.bits = load_uint(p, f->size);
        return normalize(f, s);
    }
    if (f->size == sizeof(float)) {
        float v; memcpy(&v, p, sizeof v); s.real = v;
    } else if (f->size == sizeof(double)) {
        double v; memcpy(&v, p, sizeof v); s.real = v;
    } else {
        memcpy(&s.real, p, sizeof s.real);
    }
    return s;
}

static void store_scalar(const field_desc *f, unsigned char *elem, scalar_t s)
{
    unsigned char *p = elem + f->offset;
    if (f->kind != F_REAL) {
        store_uint(p, f->size, s.bits);
    } else if (f->size == sizeof(float)) {
        float v = (float)s.real; memcpy(p, &v, sizeof v);
    } else if (f->size == sizeof(double)) {
        double v = (double)s.real; memcpy(p, &v, sizeof v);
    } else {
        /* Only the value bytes: x86's 80-bit long double has 6 padding
         * bytes that a store leaves undefined, and send buffers are compared
         * bytewise; the padding keeps the buffer's fill. */
        memcpy(p, &s.real, LDBL_VALUE_BYTES);
    }
}

static value_t load_value(const type_desc *t, const void *buf, size_t i)
{
    const unsigned char *elem = (const unsigned char *)buf + i * t->extent;
    value_t v;
    memset(&v, 0, sizeof v);
    for (int k = 0; k < t->nfields; k++)
        v.f[k] = load_scalar(&t->field[k], elem);
    return v;
}

static void store_value(const type_desc *t, void *buf, size_t i,
                        const value_t *v)
{
    unsigned char *elem = (unsigned char *)buf + i * t->extent;
    for (int k = 0; k < t->nfields; k++)
        store_scalar(&t->field[k], elem, v->f[k]);
}

static bool values_equal(const type_desc *t, const value_t *a,
                         const value_t *b)
{
    for (int k = 0; k < t->nfields; k++) {
        bool same = t->field[k].kind == F_REAL
                        ? a->f[k].real == b->f[k].real
                        : a->f[k].bits == b->f[k].bits;
        if (!same)
            return false;
    }
    return true;
}

static void format_value(const type_desc *t, const value_t *v, char *out,
                         size_t len)
{
    size_t used = (size_t)snprintf(out, len, "{");
    for (int k = 0; k < t->nfields && used < len; k++) {
        const char *sep = k ? ", " : "";
        const scalar_t *s = &v->f[k];
        if (t->field[k].kind == F_REAL)
            used += (size_t)snprintf(out + used, len - used, "%s%.21Lg", sep,
                                     s->real);
        else if (t->field[k].kind == F_SINT)
            used += (size_t)snprintf(out + used, len - used, "%s%" PRId64,
                                     sep, (int64_t)s->bits);
        else
            used += (size_t)snprintf(out + used, len - used, "%s%" PRIu64,
                                     sep, s->bits);
    }
    if (used < len)
        snprintf(out + used, len - used, "}");
}

/* ------------------------------------------------------------------------ */
/* Types                                                                     */
/* ------------------------------------------------------------------------ */

/* C layouts of the MINLOC/MAXLOC pair types (checked against MPI extents). */
struct int_int { int v; int i; };
struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct short_int { short v; int i; };
struct ldouble_int { long double v; int i; };

/* Derived types: padding inside and at the end, and a strided vector with
 * a hole in the middle and a resized tail, so that a collective that copies
 * whole extents instead of the type map overwrites the canary bytes. */
struct padded { int a; double d; signed char c; };
struct interval { int lo, hi, ok; };
enum { VECTOR_STRIDE = 3, VECTOR_EXTENT = 40 }; /* doubles at 0 and 24 */
static const int64_t MATRIX_PRIME = 2147483647; /* 2^31 - 1 */

static MPI_Datatype commit_resized(MPI_Datatype inner, MPI_Aint extent)
{
    MPI_Datatype t;
    MPI_Type_create_resized(inner, 0, extent, &t);
    MPI_Type_free(&inner);
    MPI_Type_commit(&t);
    return t;
}

static MPI_Datatype build_vector_gap(void)
{
    MPI_Datatype v;
    MPI_Type_vector(2, 1, VECTOR_STRIDE, MPI_DOUBLE, &v);
    return commit_resized(v, VECTOR_EXTENT);
}

static MPI_Datatype build_struct_pad(void)
{
    int lens[3] = {1, 1, 1};
    MPI_Aint offs[3] = {offsetof(struct padded, a), offsetof(struct padded, d),
                        offsetof(struct padded, c)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_SIGNED_CHAR};
    MPI_Datatype s;
    MPI_Type_create_struct(3, lens, offs, types, &s);
    return commit_resized(s, sizeof(struct padded));
}

static MPI_Datatype build_int_tuple(int n)
{
    MPI_Datatype t;
    MPI_Type_contiguous(n, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}
static MPI_Datatype build_interval(void) { return build_int_tuple(3); }
static MPI_Datatype build_matrix(void) { return build_int_tuple(4); }

#define INTS (CLS_ARITH | CLS_LOGIC | CLS_BITS)
#define SCALAR(nm, dt, ctype, kind, cls)                                      \
    { nm, dt, NULL, cls, false, sizeof(ctype), 1,                             \
      {{0, sizeof(ctype), kind}} }
#define PAIR(nm, dt, st, kind)                                                \
    { nm, dt, NULL, CLS_LOC, false, sizeof(struct st), 2,                     \
      {{offsetof(struct st, v), sizeof(((struct st *)0)->v), kind},           \
       {offsetof(struct st, i), sizeof(int), F_SINT}} }
#define INT_FIELD(n) {(n) * sizeof(int), sizeof(int), F_SINT}

static type_desc TYPES[] = {
    SCALAR("int8", MPI_INT8_T, int8_t, F_SINT, INTS | CLS_WRAP8),
    SCALAR("uint8", MPI_UINT8_T, uint8_t, F_UINT, INTS | CLS_WRAP8),
    SCALAR("int16", MPI_INT16_T, int16_t, F_SINT, INTS),
    SCALAR("uint16", MPI_UINT16_T, uint16_t, F_UINT, INTS),
    SCALAR("int32", MPI_INT32_T, int32_t, F_SINT, INTS),
    SCALAR("uint32", MPI_UINT32_T, uint32_t, F_UINT, INTS),
    SCALAR("int64", MPI_INT64_T, int64_t, F_SINT, INTS),
    SCALAR("uint64", MPI_UINT64_T, uint64_t, F_UINT, INTS),
    SCALAR("float", MPI_FLOAT, float, F_REAL, CLS_ARITH),
    SCALAR("double", MPI_DOUBLE, double, F_REAL,
           CLS_ARITH | CLS_FIELDSUM | CLS_FPORDER),
    SCALAR("long_double", MPI_LONG_DOUBLE, long double, F_REAL, CLS_ARITH),
    SCALAR("c_bool", MPI_C_BOOL, _Bool, F_BOOL, CLS_LOGIC),
    SCALAR("byte", MPI_BYTE, unsigned char, F_UINT, CLS_BITS),
    PAIR("2int", MPI_2INT, int_int, F_SINT),
    PAIR("float_int", MPI_FLOAT_INT, float_int, F_REAL),
    PAIR("double_int", MPI_DOUBLE_INT, double_int, F_REAL),
    PAIR("long_int", MPI_LONG_INT, long_int, F_SINT),
    PAIR("short_int", MPI_SHORT_INT, short_int, F_SINT),
    PAIR("long_double_int", MPI_LONG_DOUBLE_INT, ldouble_int, F_REAL),
    {"vector_gap", MPI_DATATYPE_NULL, build_vector_gap, CLS_FIELDSUM, true,
     VECTOR_EXTENT, 2,
     {{0, 8, F_REAL}, {VECTOR_STRIDE * 8, 8, F_REAL}}},
    {"struct_pad", MPI_DATATYPE_NULL, build_struct_pad, CLS_FIELDSUM, true,
     sizeof(struct padded), 3,
     {{offsetof(struct padded, a), sizeof(int), F_SINT},
      {offsetof(struct padded, d), sizeof(double), F_REAL},
      {offsetof(struct padded, c), 1, F_SINT}}},
    {"interval", MPI_DATATYPE_NULL, build_interval, CLS_INTERVAL, false,
     sizeof(struct interval), 3, {INT_FIELD(0), INT_FIELD(1), INT_FIELD(2)}},
    {"matrix2x2", MPI_DATATYPE_NULL, build_matrix, CLS_MATRIX, false,
     4 * sizeof(int), 4,
     {INT_FIELD(0), INT_FIELD(1), INT_FIELD(2), INT_FIELD(3)}},
};
enum { NTYPES = sizeof(TYPES) / sizeof(TYPES[0]) };

static type_desc *type_by_name(const char *name)
{
    for (int t = 0; t < NTYPES; t++)
        if (strcmp(TYPES[t].name, name) == 0)
            return &TYPES[t];
    fprintf(stderr, "internal error: unknown type %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return NULL;
}

static const type_desc *type_by_handle(MPI_Datatype dt)
{
    for (int t = 0; t < NTYPES; t++)
        if (TYPES[t].dt == dt)
            return &TYPES[t];
    return NULL;
}

/* Builds derived types and checks that every C layout above matches the
 * extent MPI uses as the element stride. */
static void setup_types(void)
{
    for (int t = 0; t < NTYPES; t++) {
        MPI_Aint lb, extent;
        if (TYPES[t].build != NULL)
            TYPES[t].dt = TYPES[t].build();
        MPI_Type_get_extent(TYPES[t].dt, &lb, &extent);
        expect(lb == 0 && (size_t)extent == TYPES[t].extent,
               "type %s: MPI lb/extent %ld/%ld, C layout expects 0/%zu",
               TYPES[t].name, (long)lb, (long)extent, TYPES[t].extent);
    }
}

static void free_types(void)
{
    for (int t = 0; t < NTYPES; t++)
        if (TYPES[t].build != NULL)
            MPI_Type_free(&TYPES[t].dt);
}

/* ------------------------------------------------------------------------ */
/* Reference operations (a is the lower ranks' partial result)               */
/* ------------------------------------------------------------------------ */

typedef scalar_t (*scalar_fn)(field_kind k, scalar_t a, scalar_t b);
typedef value_t (*value_fn)(const type_desc *t, const value_t *a,
                            const value_t *b);

/* Integer and real parts are both updated; normalize() keeps the one that
 * matters for the field, which keeps these free of kind switches. */
static scalar_t s_sum(field_kind k, scalar_t a, scalar_t b)
{
    (void)k;
    a.bits += b.bits;
    a.real += b.real;
    return a;
}

static scalar_t s_prod(field_kind k, scalar_t a, scalar_t b)
{
    (void)k;
    a.bits *= b.bits;
    a.real *= b.real;
    return a;
}

static bool scalar_less(field_kind k, scalar_t a, scalar_t b)
{
    if (k == F_REAL)
        return a.real < b.real;
    if (k == F_SINT)
        return (int64_t)a.bits < (int64_t)b.bits;
    return a.bits < b.bits;
}

static scalar_t s_min(field_kind k, scalar_t a, scalar_t b)
{
    return scalar_less(k, b, a) ? b : a;
}

static scalar_t s_max(field_kind k, scalar_t a, scalar_t b)
{
    return scalar_less(k, a, b) ? b : a;
}

static scalar_t from_bits(uint64_t bits)
{
    scalar_t s = {bits, (long double)bits};
    return s;
}

static scalar_t s_land(field_kind k, scalar_t a, scalar_t b)
{
    (void)k;
    return from_bits(a.bits != 0 && b.bits != 0);
}

static scalar_t s_lor(field_kind k, scalar_t a, scalar_t b)
{
    (void)k;
    return from_bits(a.bits != 0 || b.bits != 0);
}

static scalar_t s_lxor(field_kind k, scalar_t a, scalar_t b)
{
    (void)k;
    return from_bits((a.bits != 0) != (b.bits != 0));
}

static scalar_t s_band(field_kind k, scalar_t a, scalar_t b)
{
    (void)k;
    return from_bits(a.bits & b.bits);
}

static scalar_t s_bor(field_kind k, scalar_t a, scalar_t b)
{
    (void)k;
    return from_bits(a.bits | b.bits);
}

static scalar_t s_bxor(field_kind k, scalar_t a, scalar_t b)
{
    (void)k;
    return from_bits(a.bits ^ b.bits);
}

/* MPI_MINLOC/MAXLOC: best value wins, on ties the lowest index wins. */
static value_t loc_pick(const type_desc *t, const value_t *a,
                        const value_t *b, bool want_max)
{
    field_kind k = t->field[0].kind;
    bool a_less = scalar_less(k, a->f[0], b->f[0]);
    bool b_less = scalar_less(k, b->f[0], a->f[0]);
    bool take_a = want_max ? b_less : a_less;
    if (!a_less && !b_less)
        take_a = (int64_t)a->f[1].bits <= (int64_t)b->f[1].bits;
    return take_a ? *a : *b;
}

static value_t v_minloc(const type_desc *t, const value_t *a, const value_t *b)
{
    return loc_pick(t, a, b, false);
}

static value_t v_maxloc(const type_desc *t, const value_t *a, const value_t *b)
{
    return loc_pick(t, a, b, true);
}

/* [a.lo, a.hi] followed by [b.lo, b.hi] is valid only if they are adjacent
 * in this order: any reordering or duplicated/missing rank clears ok. */
static value_t v_interval(const type_desc *t, const value_t *a,
                          const value_t *b)
{
    value_t r = *a;
    int64_t a_hi = (int64_t)a->f[1].bits, b_lo = (int64_t)b->f[0].bits;
    (void)t;
    r.f[1] = b->f[1];
    r.f[2] = from_bits(a->f[2].bits && b->f[2].bits && a_hi + 1 == b_lo);
    return r;
}

/* 2x2 matrix product mod 2^31-1, row-major: does not commute. */
static value_t v_matrix(const type_desc *t, const value_t *a, const value_t *b)
{
    value_t r = *a;
    (void)t;
    for (int row = 0; row < 2; row++) {
        for (int col = 0; col < 2; col++) {
            uint64_t x = a->f[2 * row].bits * b->f[col].bits % MATRIX_PRIME;
            uint64_t y = a->f[2 * row + 1].bits * b->f[2 + col].bits
                         % MATRIX_PRIME;
            r.f[2 * row + col] = from_bits((x + y) % MATRIX_PRIME);
        }
    }
    return r;
}

/* ------------------------------------------------------------------------ */
/* Value generators: pure functions of (rank, element index, field) chosen   */
/* so that no narrow type overflows (except gen_wrap8, on purpose) and       */
/* every floating-point result is exact.                                     */
/* ------------------------------------------------------------------------ */

typedef scalar_t (*gen_fn)(field_kind k, int rank, uint64_t i, int field,
                           int p);

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t hash3(int rank, uint64_t i, int field)
{
    return mix64(mix64(i * 8 + (uint64_t)field) ^ ((uint64_t)rank << 40));
}

static scalar_t from_int(int64_t v)
{
    scalar_t s = {(uint64_t)v, (long double)v};
    return s;
}

/* In [-2, 2] (signed, halves for reals) or [0, 3]: |sum| <= 3p. */
static scalar_t gen_sum(field_kind k, int rank, uint64_t i, int field, int p)
{
    int64_t v = (int64_t)(((uint64_t)rank * 7 + i * 3 + (uint64_t)field) % 5);
    scalar_t s = from_int(k == F_SINT || k == F_REAL ? v - 2 : v % 4);
    (void)p;
    if (k == F_REAL)
        s.real = s.real * 0.5L;
    return s;
}

/* Signs and one factor 2 (or 3) per element: |product| <= 3;
 * reals: powers of two, exact. */
static scalar_t gen_prod(field_kind k, int rank, uint64_t i, int field, int p)
{
    static const long double real_factors[4] = {1.0L, -1.0L, 2.0L, 0.5L};
    bool special = (uint64_t)rank == (i + (uint64_t)field) % (uint64_t)p;
    bool negative = ((uint64_t)rank + i) % 3 == 0;
    if (k == F_REAL)
        return (scalar_t){0, real_factors[((uint64_t)rank + i) % 4]};
    if (k == F_UINT)
        return from_int(special ? 3 : 1);
    return from_int((special ? 2 : 1) * (negative ? -1 : 1));
}

/* Full-width bit patterns for integers (exercises sign handling). */
static scalar_t gen_minmax(field_kind k, int rank, uint64_t i, int field,
                           int p)
{
    uint64_t h = hash3(rank, i, field);
    scalar_t s = {h, ((long double)(h % 2001) - 1000.0L) * 0.25L};
    (void)k; (void)p;
    return s;
}

/* Per element pattern: i%4 == 0 all true, 1 one false, 2 all false,
 * 3 one true -- covers both results of LAND, LOR and LXOR.  True values
 * other than 1 check that any non-zero counts as true. */
static scalar_t gen_logic(field_kind k, int rank, uint64_t i, int field,
                          int p)
{
    bool chosen = (uint64_t)rank == (i + (uint64_t)field) % (uint64_t)p;
    bool truth[4] = {true, !chosen, false, chosen};
    int64_t nonzero = k == F_BOOL ? 1 : 1 + ((int64_t)rank + (int64_t)i) % 3;
    return from_int(truth[i % 4] ? nonzero : 0);
}

/* Dense bits for BAND (each set with probability 7/8) and sparse bits for
 * BOR (1/8), so that neither result is all zeros or all ones. */
static uint64_t biased_bits(int rank, uint64_t i, int field, bool dense)
{
    uint64_t a = hash3(rank, i, 3 * field), b = hash3(rank, i, 3 * field + 1);
    uint64_t c = hash3(rank, i, 3 * field + 2);
    return dense ? a | b | c : a & b & c;
}

static scalar_t gen_band(field_kind k, int rank, uint64_t i, int field, int p)
{
    (void)k; (void)p;
    return from_bits(biased_bits(rank, i, field, true));
}

static scalar_t gen_bor(field_kind k, int rank, uint64_t i, int field, int p)
{
    (void)k; (void)p;
    return from_bits(biased_bits(rank, i, field, false));
}

static scalar_t gen_bxor(field_kind k, int rank, uint64_t i, int field, int p)
{
    (void)k; (void)p;
    return from_bits(hash3(rank, i, field));
}

/* Value in {-2..2} (frequent ties), index field in [-500, 499] and not
 * monotone in rank, so "lowest index wins" is really exercised. */
static scalar_t gen_loc(field_kind k, int rank, uint64_t i, int field, int p)
{
    uint64_t h = hash3(rank, i, field);
    (void)k; (void)p;
    return from_int(field == 0 ? (int64_t)(h % 5) - 2
                               : (int64_t)(h % 1000) - 500);
}

static scalar_t gen_fieldsum(field_kind k, int rank, uint64_t i, int field,
                             int p)
{
    scalar_t s = from_int((int64_t)(hash3(rank, i, field) % 41) - 20);
    (void)p;
    if (k == F_REAL)
        s.real *= 0.5L;
    return s;
}

static scalar_t gen_interval(field_kind k, int rank, uint64_t i, int field,
                             int p)
{
    (void)k; (void)i; (void)p;
    return from_int(field == 2 ? 1 : rank);
}

static scalar_t gen_matrix(field_kind k, int rank, uint64_t i, int field,
                           int p)
{
    (void)k; (void)p;
    return from_bits(hash3(rank, i, field) % MATRIX_PRIME);
}

/* Values that DO wrap int8/uint8 sums.  Open MPI 4.1.4's op/avx component
 * saturates 8-bit SUM instead of wrapping (upstream bug), so --int8-wrap is
 * run with `--mca op ^avx`; the expected value is the modular sum. */
static scalar_t gen_wrap8(field_kind k, int rank, uint64_t i, int field,
                          int p)
{
    (void)k; (void)field; (void)p;
    return from_int(100 + 37 * (int64_t)rank + 11 * (int64_t)(i % 23));
}

/* Mix of +-1e16, 1 and fractions, scaled per rank: the double sum depends
 * on the association order, so bitwise agreement is a real property. */
static scalar_t gen_fporder(field_kind k, int rank, uint64_t i, int field,
                            int p)
{
    uint64_t h = hash3(rank, i, field);
    long double choice[4] = {1e16L, 1.0L, -1e16L,
                             (long double)(h % 1000003) / 1000003.0L * 3.7L};
    long double scale = 1.0L + (long double)rank / 7.0L;
    (void)k; (void)p;
    return (scalar_t){0, (long double)(double)(choice[((uint64_t)rank + i) % 4]
                                               * scale)};
}

/* ------------------------------------------------------------------------ */
/* Operations                                                                */
/* ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    MPI_Op op;                  /* predefined, or created at start-up */
    MPI_User_function *user_fn; /* user ops only */
    bool commute;
    unsigned classes;
    gen_fn gen;
    scalar_fn per_field;        /* field-wise ops ... */
    value_fn whole;             /* ... or whole-element ops */
} op_desc;

enum {
    OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_LAND, OP_LOR, OP_LXOR, OP_BAND,
    OP_BOR, OP_BXOR, OP_MINLOC, OP_MAXLOC, OP_FIELDSUM, OP_INTERVAL,
    OP_MATRIX, OP_WRAP8, OP_FPORDER, NOPS
};

static void user_fieldsum(void *in, void *inout, int *len, MPI_Datatype *dt);
static void user_interval(void *in, void *inout, int *len, MPI_Datatype *dt);
static void user_matrix(void *in, void *inout, int *len, MPI_Datatype *dt);

#define PREDEF(nm, op, cls, gen, fn, whole)                                   \
    { nm, op, NULL, true, cls, gen, fn, whole }
#define USER(nm, fn, commute, cls, gen, per_field, whole)                     \
    { nm, MPI_OP_NULL, fn, commute, cls, gen, per_field, whole }

static op_desc OPS[NOPS] = {
    [OP_SUM] = PREDEF("SUM", MPI_SUM, CLS_ARITH, gen_sum, s_sum, NULL),
    [OP_PROD] = PREDEF("PROD", MPI_PROD, CLS_ARITH, gen_prod, s_prod, NULL),
    [OP_MIN] = PREDEF("MIN", MPI_MIN, CLS_ARITH, gen_minmax, s_min, NULL),
    [OP_MAX] = PREDEF("MAX", MPI_MAX, CLS_ARITH, gen_minmax, s_max, NULL),
    [OP_LAND] = PREDEF("LAND", MPI_LAND, CLS_LOGIC, gen_logic, s_land, NULL),
    [OP_LOR] = PREDEF("LOR", MPI_LOR, CLS_LOGIC, gen_logic, s_lor, NULL),
    [OP_LXOR] = PREDEF("LXOR", MPI_LXOR, CLS_LOGIC, gen_logic, s_lxor, NULL),
    [OP_BAND] = PREDEF("BAND", MPI_BAND, CLS_BITS, gen_band, s_band, NULL),
    [OP_BOR] = PREDEF("BOR", MPI_BOR, CLS_BITS, gen_bor, s_bor, NULL),
    [OP_BXOR] = PREDEF("BXOR", MPI_BXOR, CLS_BITS, gen_bxor, s_bxor, NULL),
    [OP_MINLOC] = PREDEF("MINLOC", MPI_MINLOC, CLS_LOC, gen_loc, NULL,
                         v_minloc),
    [OP_MAXLOC] = PREDEF("MAXLOC", MPI_MAXLOC, CLS_LOC, gen_loc, NULL,
                         v_maxloc),
    [OP_FIELDSUM] = USER("user_fieldsum", user_fieldsum, true, CLS_FIELDSUM,
                         gen_fieldsum, s_sum, NULL),
    [OP_INTERVAL] = USER("user_interval(noncommutative)", user_interval,
                         false, CLS_INTERVAL, gen_interval, NULL, v_interval),
    [OP_MATRIX] = USER("user_matrix(noncommutative)", user_matrix, false,
                       CLS_MATRIX, gen_matrix, NULL, v_matrix),
    [OP_WRAP8] = PREDEF("SUM(wrapping)", MPI_SUM, CLS_WRAP8, gen_wrap8, s_sum,
                        NULL),
    [OP_FPORDER] = PREDEF("SUM(order-dependent)", MPI_SUM, CLS_FPORDER,
                          gen_fporder, s_sum, NULL),
};

static value_t combine(const op_desc *op, const type_desc *t,
                       const value_t *a, const value_t *b)
{
    value_t r;
    if (op->whole != NULL) {
        r = op->whole(t, a, b);
    } else {
        memset(&r, 0, sizeof r);
        for (int k = 0; k < t->nfields; k++)
            r.f[k] = op->per_field(t->field[k].kind, a->f[k], b->f[k]);
    }
    for (int k = 0; k < t->nfields; k++)
        r.f[k] = normalize(&t->field[k], r.f[k]);
    return r;
}

static value_t gen_value(const op_desc *op, const type_desc *t, int rank,
                         uint64_t i, int p)
{
    value_t v;
    memset(&v, 0, sizeof v);
    for (int k = 0; k < t->nfields; k++)
        v.f[k] = normalize(&t->field[k],
                           op->gen(t->field[k].kind, rank, i, k, p));
    return v;
}

/* The sequential reference: contributions folded in rank order. */
static value_t expected_value(const op_desc *op, const type_desc *t,
                              uint64_t i, int p)
{
    value_t acc = gen_value(op, t, 0, i, p);
    for (int r = 1; r < p; r++) {
        value_t next = gen_value(op, t, r, i, p);
        acc = combine(op, t, &acc, &next);
    }
    return acc;
}

/* Contributions and expected results depend only on (op, type, p, rank,
 * salt), not on the algorithm, root or in-place mode: each array is
 * generated once and reused by every call (generation dominated the run
 * time otherwise).  rank == EXPECTED selects the reduced values. */
enum { CACHE_SLOTS = 4096, CACHE_WAYS = 4, EXPECTED = -1 };
typedef struct {
    const op_desc *op;
    const type_desc *type;
    int p, rank, n;
    uint64_t salt;
    value_t *v;
} cache_entry;
static cache_entry g_cache[CACHE_SLOTS];

static const value_t *cached_values(const op_desc *op, const type_desc *t,
                                    int p, int rank, uint64_t salt, int count)
{
    uint64_t key = ((uint64_t)(op - OPS) << 48) ^ ((uint64_t)(t - TYPES) << 40)
                   ^ ((uint64_t)p << 20) ^ (uint64_t)(rank + 1);
    size_t home = mix64(key ^ mix64(salt)) % (CACHE_SLOTS - CACHE_WAYS + 1);
    cache_entry *e = &g_cache[home];
    for (int way = 0; way < CACHE_WAYS; way++) {
        cache_entry *w = &g_cache[home + (size_t)way];
        if (w->op == op && w->type == t && w->p == p && w->rank == rank
            && w->salt == salt) {
            e = w;
            break;
        }
        if (w->op == NULL || w->n < e->n)
            e = w;   /* otherwise evict the smallest: cheapest to redo */
    }
    if (e->op != op || e->type != t || e->p != p || e->rank != rank
        || e->salt != salt)
        *e = (cache_entry){op, t, p, rank, 0, salt, e->v};
    if (count > e->n) {
        e->v = realloc(e->v, (size_t)count * sizeof *e->v);
        if (e->v == NULL)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int i = e->n; i < count; i++)
            e->v[i] = rank == EXPECTED
                          ? expected_value(op, t, salt + (uint64_t)i, p)
                          : gen_value(op, t, rank, salt + (uint64_t)i, p);
        e->n = count;
    }
    return e->v;
}

static void free_cache(void)
{
    for (int k = 0; k < CACHE_SLOTS; k++)
        free(g_cache[k].v);
}

/* MPI user-function semantics: inoutvec[i] = invec[i] op inoutvec[i]. */
static void apply_user_op(const op_desc *op, const void *in, void *inout,
                          int len, MPI_Datatype dt)
{
    const type_desc *t = type_by_handle(dt);
    if (t == NULL) {
        expect(false, "%s called with a datatype this test never passed "
               "(the collective changed the datatype)", op->name);
        return;
    }
    for (int i = 0; i < len; i++) {
        value_t a = load_value(t, in, (size_t)i);
        value_t b = load_value(t, inout, (size_t)i);
        value_t r = combine(op, t, &a, &b);
        store_value(t, inout, (size_t)i, &r);
    }
}

static void user_fieldsum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    apply_user_op(&OPS[OP_FIELDSUM], in, inout, *len, *dt);
}

static void user_interval(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    apply_user_op(&OPS[OP_INTERVAL], in, inout, *len, *dt);
}

static void user_matrix(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    apply_user_op(&OPS[OP_MATRIX], in, inout, *len, *dt);
}

static void setup_ops(void)
{
    for (int o = 0; o < NOPS; o++)
        if (OPS[o].user_fn != NULL)
            MPI_Op_create(OPS[o].user_fn, OPS[o].commute, &OPS[o].op);
}

static void free_ops(void)
{
    for (int o = 0; o < NOPS; o++)
        if (OPS[o].user_fn != NULL)
            MPI_Op_free(&OPS[o].op);
}

/* ------------------------------------------------------------------------ */
/* rabred's MPI_T interface: algorithm cvars and per-algorithm counters      */
/* ------------------------------------------------------------------------ */

typedef enum { COLL_ALLREDUCE, COLL_REDUCE, NCOLLS } coll_id;
static const char *const COLL_NAMES[NCOLLS] = {"allreduce", "reduce"};
enum { MAX_ALGS = 32, NAME_LEN = 128 };

typedef struct {
    char name[NAME_LEN];
    int value;                 /* enum value written to the cvar */
    bool has_pvar;             /* every item except auto */
    rabred_mpit_pvar_t pvar;
} alg_item;

typedef struct {
    rabred_mpit_cvar_t cvar;
    int nalgs, current, auto_idx, previous_idx;
    alg_item alg[MAX_ALGS];
} coll_ctl;

static coll_ctl g_ctl[NCOLLS];
static MPI_T_pvar_session g_session;

static bool not_loaded(const char *what, const char *name, int rc)
{
    if (g.world_rank == 0)
        fprintf(stderr,
                "ERROR: rabred is not loaded/selected: MPI_T %s '%s' not "
                "usable (error %d). Run with --mca coll rabred,... and make "
                "sure mca_coll_rabred.so is on mca_base_component_path.\n",
                what, name, rc);
    return expect(false, "rabred MPI_T %s '%s' missing", what, name);
}

static int find_item(const coll_ctl *ctl, const char *name)
{
    for (int a = 0; a < ctl->nalgs; a++)
        if (strcmp(ctl->alg[a].name, name) == 0)
            return a;
    return -1;
}

static bool read_enum_items(coll_ctl *ctl, MPI_T_enum et, const char *cvar)
{
    rabred_mpit_item_t items[MAX_ALGS];
    int num;
    if (rabred_mpit_enum_items(et, items, MAX_ALGS, &num) != MPI_SUCCESS
        || num < 1 || num > MAX_ALGS)
        return not_loaded("enum of control variable", cvar, num);
    ctl->nalgs = num;
    for (int a = 0; a < num; a++) {
        alg_item *it = &ctl->alg[a];
        if (items[a].rc != MPI_SUCCESS)
            continue;
        it->value = items[a].value;
        snprintf(it->name, sizeof it->name, "%s", items[a].name);
    }
    ctl->auto_idx = find_item(ctl, "auto");
    ctl->previous_idx = find_item(ctl, "previous");
    return expect(ctl->auto_idx >= 0 && ctl->previous_idx >= 0,
                  "%s: enum lacks the 'auto' or 'previous' item", cvar);
}

static bool attach_cvar(coll_id c)
{
    char name[NAME_LEN];
    rabred_mpit_cvar_t *cv = &g_ctl[c].cvar;
    int rc;
    snprintf(name, sizeof name, "coll_rabred_%s_algorithm", COLL_NAMES[c]);
    rc = rabred_mpit_cvar_find(name, cv);
    if (cv->index < 0)
        return not_loaded("control variable", name, rc);
    if (!expect(rc == MPI_SUCCESS && cv->datatype == MPI_INT
                    && cv->enumtype != MPI_T_ENUM_NULL,
                "cvar %s: get_info rc %d, must be an int enum", name, rc))
        return false;
    if (!read_enum_items(&g_ctl[c], cv->enumtype, name))
        return false;
    rc = rabred_mpit_cvar_open(cv);
    return expect(rc == MPI_SUCCESS && cv->count == 1,
                  "cvar %s: handle_alloc rc %d count %d", name, rc, cv->count);
}

static bool attach_pvars(coll_id c)
{
    coll_ctl *ctl = &g_ctl[c];
    bool ok = true;
    for (int a = 0; a < ctl->nalgs; a++) {
        char name[2 * NAME_LEN];
        rabred_mpit_pvar_t *pv = &ctl->alg[a].pvar;
        int rc;
        if (a == ctl->auto_idx)
            continue;
        snprintf(name, sizeof name, "coll_rabred_%s_%s_calls", COLL_NAMES[c],
                 ctl->alg[a].name);
        rc = rabred_mpit_pvar_find(name, MPI_T_PVAR_CLASS_COUNTER, pv);
        if (rc == MPI_SUCCESS)
            rc = rabred_mpit_pvar_open(g_session, pv);
        if (rc != MPI_SUCCESS) {
            ok = not_loaded("performance variable", name, rc);
            continue;
        }
        ctl->alg[a].has_pvar = expect(pv->count == 1, "pvar %s count %d", name, pv->count);
    }
    return ok;
}

/* One line per collective in the log: which items this run iterates. */
static void print_items(coll_id c)
{
    char line[MAX_ALGS * (NAME_LEN + 1)] = "";
    if (g.world_rank != 0)
        return;
    for (int a = 0; a < g_ctl[c].nalgs; a++) {
        strcat(line, " ");
        strcat(line, g_ctl[c].alg[a].name);
    }
    printf("rabred %s algorithms:%s\n", COLL_NAMES[c], line);
}

static bool setup_mpi_t(void)
{
    int provided;
    bool ok = true;
    if (g.no_rabred) {
        for (int c = 0; c < NCOLLS; c++) {
            g_ctl[c].nalgs = 1;
            g_ctl[c].auto_idx = g_ctl[c].previous_idx = -1;
            strcpy(g_ctl[c].alg[0].name, "stock-open-mpi");
        }
        return true;
    }
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&g_session);
    for (int c = 0; c < NCOLLS && ok; c++) {
        ok = attach_cvar((coll_id)c) && attach_pvars((coll_id)c);
        if (ok)
            print_items((coll_id)c);
    }
    return ok;
}

/* Every rank writes the same value, then a barrier: rabred reads the cvar
 * at call time, and no rank may start the next call under the old value. */
static void force_algorithm(coll_id c, int item)
{
    coll_ctl *ctl = &g_ctl[c];
    int value = ctl->alg[item].value, readback = -1, rc = MPI_SUCCESS;
    ctl->current = item;
    if (g.no_rabred)
        return;
    rc = rabred_mpit_cvar_write_int(&ctl->cvar, value);
    if (rc == MPI_SUCCESS)
        rc = rabred_mpit_cvar_read_int(&ctl->cvar, &readback);
    expect(rc == MPI_SUCCESS && readback == value,
           "cannot force %s algorithm %s: cvar write/read rc %d, read %d",
           COLL_NAMES[c], ctl->alg[item].name, rc, readback);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void snapshot_counters(coll_id c, unsigned long long *out)
{
    coll_ctl *ctl = &g_ctl[c];
    for (int a = 0; a < ctl->nalgs; a++) {
        out[a] = 0;
        if (ctl->alg[a].has_pvar
            && rabred_mpit_pvar_read_counter(&ctl->alg[a].pvar, &out[a])
                   != MPI_SUCCESS)
            expect(false, "MPI_T_pvar_read of %s %s failed", COLL_NAMES[c],
                   ctl->alg[a].name);
    }
}

static void force_auto(coll_id c)
{
    force_algorithm(c, g.no_rabred ? 0 : g_ctl[c].auto_idx);
}

/* ------------------------------------------------------------------------ */
/* Communicators and one test case                                           */
/* ------------------------------------------------------------------------ */

typedef struct {
    char name[32];
    MPI_Comm comm;
    int rank, size;
    uint64_t served_hash;      /* which counters moved, compared across ranks */
} comm_desc;

typedef struct {
    coll_id coll;
    const op_desc *op;
    const type_desc *type;
    int count, root;
    bool inplace;
    comm_desc *comm;
    uint64_t salt;             /* shifts element indices: fresh values */
} case_t;

static int pow2_floor(int p)
{
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    return q;
}

static void describe(const case_t *c, char *out, size_t len)
{
    const coll_ctl *ctl = &g_ctl[c->coll];
    char root[16] = "-";
    if (c->coll == COLL_REDUCE)
        snprintf(root, sizeof root, "%d", c->root);
    snprintf(out, len,
             "%s alg=%s op=%s type=%s count=%d root=%s inplace=%d "
             "comm=%s(p=%d) comm_rank=%d salt=%" PRIu64,
             COLL_NAMES[c->coll], ctl->alg[ctl->current].name, c->op->name,
             c->type->name, c->count, root, (int)c->inplace, c->comm->name,
             c->comm->size, c->comm->rank, c->salt);
}

typedef struct {
    const char *name;
    bool needs_count_ge_pof2, needs_commutative;
    bool needs_count_ge_p;
} known_alg;

/* Restrictions of the algorithms this test knows (the component's table,
 * rabred_table.c).  For any other item we cannot know when it falls back,
 * so only "exactly one counter moved" is required of it.  The node-aware
 * ones serve every call when each node's ranks are consecutive (one node
 * here, or coll_rabred_node_map block:L); under an interleaved map
 * (--nodes-interleaved: cyclic:N) only commutative ops. */
static known_alg KNOWN_ALGS[] = {
    {"previous", false, false, false},
    {"recursive_doubling", false, false, false},
    {"rabenseifner", true, false, false},
    {"pairwise_ring", false, true, false},
    {"linear", false, false, false},
    {"binary_tree", false, false, false},
    {"binary_blocks", false, false, false},
    {"bruck", false, true, false},
    {"neighbor_ring", false, true, false},
    {"sorted_linear_tree", false, true, false},
    {"prereduced_ring", false, true, false},
    {"prereduced_scatter", false, true, false},
    {"node_lanes", false, false, false},
    {"node_leaders", false, false, false},
    {"node_lanes_ring", false, true, false},
    {"binomial", false, false, false},
    {"pairwise_gather", false, true, false},
    {"pipeline", false, false, false},
    {"node_chain", false, false, false},
    {"direct", false, false, true},
    {"node_leaders_direct", false, false, false},
};

static void nodes_interleaved(void)
{
    for (size_t k = 0; k < sizeof KNOWN_ALGS / sizeof KNOWN_ALGS[0]; k++)
        if (strncmp(KNOWN_ALGS[k].name, "node_", 5) == 0) /* node_lanes_ring already */
            KNOWN_ALGS[k].needs_commutative = true;
}

static bool forced_must_serve(const char *alg, const case_t *c)
{
    for (size_t k = 0; k < sizeof KNOWN_ALGS / sizeof KNOWN_ALGS[0]; k++) {
        const known_alg *a = &KNOWN_ALGS[k];
        if (strcmp(a->name, alg) != 0)
            continue;
        return (!a->needs_count_ge_pof2
                || c->count >= pow2_floor(c->comm->size))
               && (!a->needs_count_ge_p || c->count >= c->comm->size)
               && (!a->needs_commutative || c->op->commute);
    }
    return false;
}

/* NULL if serving this call with item `served` obeys the rules. */
static const char *served_violation(const case_t *c, int served)
{
    const coll_ctl *ctl = &g_ctl[c->coll];
    if (ctl->current == ctl->auto_idx)
        return served == ctl->previous_idx && c->comm->size >= 2
                   ? "auto must not forward to the previous component"
                   : NULL;
    if (!forced_must_serve(ctl->alg[ctl->current].name, c))
        return NULL;
    return served == ctl->current
               ? NULL
               : "the forced algorithm allows this call but did not serve it";
}

static void check_counters(const case_t *c, const unsigned long long *before,
                           const unsigned long long *after, const char *what)
{
    const coll_ctl *ctl = &g_ctl[c->coll];
    int moved = 0, served = -1;
    unsigned long long delta = 0;
    const char *why;
    if (g.no_rabred)
        return;
    for (int a = 0; a < ctl->nalgs; a++) {
        if (after[a] != before[a]) {
            moved++;
            served = a;
            delta = after[a] - before[a];
        }
    }
    /* Open MPI returns before reaching any component when count == 0. */
    if (c->count == 0 && moved == 0)
        return;
    if (!expect(moved == 1 && delta == 1,
                "%s: %d %s_*_calls counters moved, the last (%s) by %llu; "
                "want exactly one, by 1%s", what, moved, COLL_NAMES[c->coll],
                served >= 0 ? ctl->alg[served].name : "-", delta,
                moved == 0 ? ": rabred did not serve this call (not "
                             "selected on this communicator?)" : ""))
        return;
    c->comm->served_hash = mix64(c->comm->served_hash ^ (uint64_t)served);
    why = c->count == 0 ? NULL : served_violation(c, served);
    expect(why == NULL, "%s: served by '%s': %s", what, ctl->alg[served].name,
           why ? why : "");
}

/* All ranks of a communicator must have seen the same sequence of serving
 * algorithms (otherwise they ran different algorithms). MPI_Allgather is not
 * served by rabred. */
static void compare_served_hashes(comm_desc *cm, const char *block)
{
    uint64_t *all = xmalloc((size_t)cm->size * sizeof *all);
    int first_diff = -1;
    MPI_Allgather(&cm->served_hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T,
                  cm->comm);
    for (int r = 0; r < cm->size && first_diff < 0; r++)
        if (all[r] != all[0])
            first_diff = r;
    expect(first_diff < 0, "%s on comm %s: rank %d chose different algorithms "
           "than rank 0 in the same calls", block, cm->name, first_diff);
    cm->served_hash = 0;
    free(all);
}

/* ------------------------------------------------------------------------ */
/* Buffers, one call, result checks                                          */
/* ------------------------------------------------------------------------ */

enum { SEND_CANARY = 0x5A, RECV_CANARY = 0xA5, MAX_GAP_EXTENT = 64 };

typedef struct {
    unsigned char *data;      /* this rank's contribution */
    unsigned char *recv;      /* separate receive buffer, or NULL */
    unsigned char *pristine;  /* copy of data when data is a send buffer */
    const void *sendbuf;      /* as passed to MPI */
    void *recvbuf;
    unsigned char *result;    /* where this rank's result lands, or NULL */
    size_t bytes;
} bufs_t;

static void fill_contribution(const case_t *c, unsigned char *buf,
                              int canary, size_t bytes)
{
    const value_t *mine = cached_values(c->op, c->type, c->comm->size,
                                        c->comm->rank, c->salt, c->count);
    memset(buf, canary, bytes);
    for (int i = 0; i < c->count; i++)
        store_value(c->type, buf, (size_t)i, &mine[i]);
}

/* In place: allreduce everywhere, reduce at the root; a reduce non-root
 * then passes recvbuf = NULL, which MPI allows (insignificant there). */
static void prepare_buffers(const case_t *c, bufs_t *b)
{
    bool gets_result = c->coll == COLL_ALLREDUCE || c->comm->rank == c->root;
    memset(b, 0, sizeof *b);
    b->bytes = (size_t)c->count * c->type->extent;
    b->data = xmalloc(b->bytes);
    if (c->inplace && gets_result) {
        fill_contribution(c, b->data, RECV_CANARY, b->bytes);
        b->sendbuf = MPI_IN_PLACE;
        b->recvbuf = b->result = b->data;
        return;
    }
    fill_contribution(c, b->data, SEND_CANARY, b->bytes);
    b->pristine = xmalloc(b->bytes);
    memcpy(b->pristine, b->data, b->bytes);
    b->sendbuf = b->data;
    if (c->inplace)
        return;
    b->recv = xmalloc(b->bytes);
    memset(b->recv, RECV_CANARY, b->bytes);
    b->recvbuf = b->recv;
    b->result = gets_result ? b->recv : NULL;
}

static void release_buffers(bufs_t *b)
{
    free(b->data);
    free(b->recv);
    free(b->pristine);
}

static bool call_checked(const case_t *c, const void *sendbuf, void *recvbuf,
                         const char *what)
{
    unsigned long long before[MAX_ALGS], after[MAX_ALGS];
    int rc;
    if (!g.no_rabred)
        snapshot_counters(c->coll, before);
    if (c->coll == COLL_ALLREDUCE)
        rc = MPI_Allreduce(sendbuf, recvbuf, c->count, c->type->dt, c->op->op,
                           c->comm->comm);
    else
        rc = MPI_Reduce(sendbuf, recvbuf, c->count, c->type->dt, c->op->op,
                        c->root, c->comm->comm);
    if (!g.no_rabred) {
        snapshot_counters(c->coll, after);
        check_counters(c, before, after, what);
    }
    return expect(rc == MPI_SUCCESS, "%s: returned error %d", what, rc);
}

static void check_sendbuf(const bufs_t *b, const char *what)
{
    size_t at = 0;
    if (b->pristine == NULL)
        return;
    while (at < b->bytes && b->data[at] == b->pristine[at])
        at++;
    expect(at == b->bytes, "%s: send buffer modified at byte %zu", what, at);
}

/* Bytes of the receive buffer outside the type map must keep the canary. */
static void check_gaps(const case_t *c, const bufs_t *b, const char *what)
{
    const type_desc *t = c->type;
    bool in_field[MAX_GAP_EXTENT] = {false};
    size_t bad = b->bytes;
    if (!t->check_gaps || t->extent > MAX_GAP_EXTENT)
        return;
    for (int k = 0; k < t->nfields; k++)
        for (size_t j = 0; j < t->field[k].size; j++)
            in_field[t->field[k].offset + j] = true;
    for (size_t at = 0; at < b->bytes && bad == b->bytes; at++)
        if (!in_field[at % t->extent] && b->result[at] != RECV_CANARY)
            bad = at;
    expect(bad == b->bytes, "%s: gap byte %zu (element %zu, offset %zu) "
           "overwritten: 0x%02x", what, bad, bad / t->extent,
           bad % t->extent, bad < b->bytes ? b->result[bad] : 0);
}

static void check_exact(const case_t *c, const bufs_t *b, const char *what)
{
    const value_t *want;
    if (b->result == NULL)
        return;
    want = cached_values(c->op, c->type, c->comm->size, EXPECTED, c->salt,
                         c->count);
    for (int i = 0; i < c->count; i++) {
        value_t got = load_value(c->type, b->result, (size_t)i);
        if (!values_equal(c->type, &got, &want[i])) {
            char gs[256], ws[256];
            format_value(c->type, &got, gs, sizeof gs);
            format_value(c->type, &want[i], ws, sizeof ws);
            expect(false, "%s: first bad index %d: got %s expected %s", what,
                   i, gs, ws);
            return;
        }
    }
    expect(true, "%s", what);
    check_gaps(c, b, what);
}

static void run_case(const case_t *c)
{
    bufs_t b;
    char what[320];
    describe(c, what, sizeof what);
    prepare_buffers(c, &b);
    if (call_checked(c, b.sendbuf, b.recvbuf, what)) {
        check_sendbuf(&b, what);
        check_exact(c, &b, what);
    }
    release_buffers(&b);
}

/* ------------------------------------------------------------------------ */
/* Sweeps: (op, type) pairs x counts x roots x {not in place, in place}      */
/* ------------------------------------------------------------------------ */

enum { MAX_LIST = 64, MAX_PAIRS = 160 };
typedef struct { int n; int v[MAX_LIST]; } int_list;
typedef struct { const op_desc *op; const type_desc *type; } pair_t;
typedef struct { int op; const char *type; } pair_spec;

typedef struct {
    const pair_t *pairs;
    int npairs;
    int_list counts, roots;
    comm_desc *comm;
} sweep_t;

static void list_add(int_list *l, int v)
{
    for (int k = 0; k < l->n; k++)
        if (l->v[k] == v)
            return;
    if (v >= 0 && l->n < MAX_LIST)
        l->v[l->n++] = v;
}

/* Counts around the power-of-two fold: p'-1 (rabenseifner must fall back),
 * p' (smallest it takes), p, p+1, a prime and 0 (no-op). */
static int_list standard_counts(int p, bool with_zero)
{
    int_list l = {0, {0}};
    int q = pow2_floor(p);
    if (with_zero)
        list_add(&l, 0);
    list_add(&l, 1);
    if (q > 1)
        list_add(&l, q - 1);
    list_add(&l, q);
    list_add(&l, p);
    list_add(&l, p + 1);
    list_add(&l, ODD_COUNT);
    return l;
}

/* {0, middle, last}, or every root (evenly sampled beyond MAX_LIST). */
static int_list roots_for(int p, bool all)
{
    int_list l = {0, {0}};
    if (!all) {
        list_add(&l, 0);
        list_add(&l, p / 2);
        list_add(&l, p - 1);
        return l;
    }
    for (int k = 0; k < p && k < MAX_LIST; k++)
        list_add(&l, p <= MAX_LIST ? k : (int)((long)k * p / MAX_LIST));
    return l;
}

static int pairs_for_classes(unsigned classes, pair_t *out)
{
    int n = 0;
    for (int o = 0; o < NOPS; o++) {
        if (!(OPS[o].classes & classes))
            continue;
        for (int t = 0; t < NTYPES && n < MAX_PAIRS; t++)
            if (TYPES[t].classes & OPS[o].classes)
                out[n++] = (pair_t){&OPS[o], &TYPES[t]};
    }
    return n;
}

static int pairs_from_spec(const pair_spec *spec, int n, pair_t *out)
{
    for (int k = 0; k < n; k++)
        out[k] = (pair_t){&OPS[spec[k].op], type_by_name(spec[k].type)};
    return n;
}

static void run_sweep(coll_id coll, const sweep_t *s)
{
    int nroots = coll == COLL_REDUCE ? s->roots.n : 1;
    for (int k = 0; k < s->npairs; k++)
        for (int n = 0; n < s->counts.n; n++)
            for (int r = 0; r < nroots; r++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    case_t c = {coll, s->pairs[k].op, s->pairs[k].type,
                                s->counts.v[n], s->roots.v[r],
                                inplace == 1, s->comm, 0};
                    run_case(&c);
                }
}

/* ------------------------------------------------------------------------ */
/* Test blocks                                                               */
/* ------------------------------------------------------------------------ */

typedef struct { comm_desc world, dup, half, reversed; } comms_t;

enum {
    MAIN_CLASSES = CLS_ARITH | CLS_LOGIC | CLS_BITS | CLS_LOC | CLS_FIELDSUM
                   | CLS_INTERVAL | CLS_MATRIX
};

/* Ops whose results depend most on data placement and order. */
static const pair_spec SMALL_SET[] = {
    {OP_SUM, "int32"}, {OP_INTERVAL, "interval"}, {OP_MATRIX, "matrix2x2"},
    {OP_MAXLOC, "double_int"}, {OP_FIELDSUM, "struct_pad"},
};
static const pair_spec ROOT_SET[] = {
    {OP_INTERVAL, "interval"}, {OP_MINLOC, "2int"}, {OP_SUM, "uint16"},
};
enum {
    SMALL_N = sizeof SMALL_SET / sizeof SMALL_SET[0],
    ROOT_N = sizeof ROOT_SET / sizeof ROOT_SET[0]
};

/* Every op on every type it allows, at roots 0, middle, last. */
static void run_full_matrix(coll_id coll, comm_desc *world)
{
    pair_t pairs[MAX_PAIRS];
    sweep_t s = {pairs, pairs_for_classes(MAIN_CLASSES, pairs),
                 standard_counts(world->size, true),
                 roots_for(world->size, false), world};
    if (g.quick) {
        s.counts = (int_list){0, {0}};
        list_add(&s.counts, 0);
        list_add(&s.counts, pow2_floor(world->size));
        list_add(&s.counts, world->size + 1);
        s.roots = (int_list){1, {world->size - 1}};
    }
    run_sweep(coll, &s);
    if (g.int8_wrap) {
        s.npairs = pairs_for_classes(CLS_WRAP8, pairs);
        s.counts = standard_counts(world->size, false);
        run_sweep(coll, &s);
    }
}

/* One large odd count (SUM of doubles only) at the last root. */
static void run_large_fixed(coll_id coll, comm_desc *world)
{
    pair_t pair = {&OPS[OP_SUM], type_by_name("double")};
    sweep_t s = {&pair, 1, {1, {LARGE_FIXED_COUNT}},
                 {1, {world->size - 1}}, world};
    run_sweep(coll, &s);
}

/* dup, split halves and a rank-reversed split: rabred must serve these too,
 * and the reversed one checks that rank order means comm rank order. */
static void run_comm_variants(coll_id coll, comms_t *cm)
{
    comm_desc *variants[3] = {&cm->dup, &cm->half, &cm->reversed};
    pair_t pairs[SMALL_N];
    int npairs = pairs_from_spec(SMALL_SET, g.quick ? 2 : SMALL_N, pairs);
    for (int v = 0; v < 3; v++) {
        int p = variants[v]->size;
        sweep_t s = {pairs, npairs, standard_counts(p, true), {0, {0}},
                     variants[v]};
        list_add(&s.roots, 0);
        list_add(&s.roots, p - 1);
        run_sweep(coll, &s);
    }
}

static void run_root_sweep(comm_desc *world)
{
    pair_t pairs[ROOT_N];
    int p = world->size, q = pow2_floor(p);
    sweep_t s = {pairs, pairs_from_spec(ROOT_SET, g.quick ? 1 : ROOT_N, pairs),
                 {0, {0}}, roots_for(p, true), world};
    list_add(&s.counts, q > 1 ? q - 1 : 1);
    list_add(&s.counts, p + 1);
    if (!g.quick)
        list_add(&s.counts, ODD_COUNT);
    run_sweep(COLL_REDUCE, &s);
}

/* Runs the call once; returns a copy of this rank's result, or NULL. */
static double *result_copy(const case_t *c, const char *what)
{
    bufs_t b;
    double *copy = NULL;
    prepare_buffers(c, &b);
    if (call_checked(c, b.sendbuf, b.recvbuf, what)) {
        check_sendbuf(&b, what);
        if (b.result != NULL) {
            copy = xmalloc(b.bytes);
            memcpy(copy, b.result, b.bytes);
        }
    }
    release_buffers(&b);
    return copy;
}

/* The order-dependent sum cannot be predicted bit for bit, but it must be
 * within rounding of the exact sum: catches garbage and lost terms. */
static void check_fp_close(const case_t *c, const double *got,
                           const char *what)
{
    int p = c->comm->size;
    for (int i = 0; i < c->count; i++) {
        long double exact = 0.0L, magnitude = 0.0L, err;
        for (int r = 0; r < p; r++) {
            long double x =
                gen_value(c->op, c->type, r, (uint64_t)i, p).f[0].real;
            exact += x;
            magnitude += x < 0 ? -x : x;
        }
        err = (long double)got[i] - exact;
        if ((err < 0 ? -err : err) > (p + 1) * DBL_EPSILON * magnitude) {
            expect(false, "%s: index %d got %.17g, exact sum %.21Lg (error "
                   "beyond rounding)", what, i, got[i], exact);
            return;
        }
    }
    expect(true, "%s", what);
}

/* MPI_Bcast is not served by rabred; every rank takes part even when its
 * own call failed, so that a failure cannot turn into a hang. */
static void check_same_bits_everywhere(const case_t *c, const double *mine,
                                       const char *what)
{
    size_t bytes = (size_t)c->count * sizeof(double);
    unsigned char *ref = xmalloc(bytes);
    memset(ref, 0, bytes);
    if (c->comm->rank == 0 && mine != NULL)
        memcpy(ref, mine, bytes);
    MPI_Bcast(ref, (int)bytes, MPI_BYTE, 0, c->comm->comm);
    expect(mine != NULL && memcmp(ref, mine, bytes) == 0,
           "%s: result bits differ from those of comm rank 0", what);
    free(ref);
}

/* Bitwise reproducibility: identical on every rank (allreduce), and the
 * same inputs twice give the same bits (both collectives). */
static void run_fp_order(coll_id coll, comm_desc *world)
{
    int_list counts = {0, {0}};
    list_add(&counts, world->size);
    list_add(&counts, ODD_COUNT);
    for (int n = 0; n < counts.n; n++) {
        case_t c = {coll, &OPS[OP_FPORDER], type_by_name("double"),
                    counts.v[n], world->size - 1, false, world, 0};
        char what[320];
        double *first, *second;
        describe(&c, what, sizeof what);
        first = result_copy(&c, what);
        second = result_copy(&c, what);
        if (first != NULL && second != NULL) {
            expect(memcmp(first, second, (size_t)c.count * sizeof(double))
                       == 0,
                   "%s: the same inputs twice gave different bits", what);
            check_fp_close(&c, first, what);
        }
        if (coll == COLL_ALLREDUCE)
            check_same_bits_everywhere(&c, first, what);
        free(first);
        free(second);
    }
}

static void compare_all_served(comms_t *cm, const char *block)
{
    if (g.no_rabred)
        return;
    compare_served_hashes(&cm->world, block);
    compare_served_hashes(&cm->dup, block);
    compare_served_hashes(&cm->half, block);
    compare_served_hashes(&cm->reversed, block);
}

/* ------------------------------------------------------------------------ */
/* Absolute addresses: MPI_BOTTOM                                            */
/* ------------------------------------------------------------------------ */

/* Open MPI's MPI_BOTTOM is a null pointer, yet a real buffer when the
 * datatype's displacement is the array's own address (MPI_Get_address): a
 * component must not take a null receive buffer for "none given".  Open
 * MPI refuses predefined ops on derived types, hence a user sum, which
 * finds the ints at the type's lower bound (count elements of one int). */
static void absolute_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(*dt, &lb, &extent);
    const int *a = (const int *)((const char *)in + lb);
    int *b = (int *)((char *)inout + lb);
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

static const op_desc ABSOLUTE_SUM = {"absolute_sum", MPI_OP_NULL, absolute_sum, true,
                                     0, NULL, NULL, NULL};

/* One call with every buffer at MPI_BOTTOM: in place for allreduce and at
 * the reduce root, MPI_BOTTOM as the send buffer elsewhere. */
static void run_bottom_case(coll_id coll, comm_desc *cm, MPI_Op op, int count, int root)
{
    int p = cm->size, rank = cm->rank;
    int *v = xmalloc((size_t)count * sizeof *v);
    for (int i = 0; i < count; i++)
        v[i] = 1000 * rank + i;
    MPI_Aint addr;
    MPI_Get_address(v, &addr);
    int one = 1;
    MPI_Datatype at_v;
    MPI_Type_create_hindexed(1, &one, &addr, MPI_INT, &at_v);
    MPI_Type_commit(&at_v);
    case_t c = {coll, &ABSOLUTE_SUM, NULL, count, root, true, cm, 0};
    char what[160];
    snprintf(what, sizeof what, "%s MPI_BOTTOM count=%d root=%d comm=%s",
             COLL_NAMES[coll], count, root, cm->name);
    unsigned long long before[MAX_ALGS], after[MAX_ALGS];
    snapshot_counters(coll, before);
    bool gets_result = coll == COLL_ALLREDUCE || rank == root;
    int rc = coll == COLL_ALLREDUCE
                 ? MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, count, at_v, op, cm->comm)
                 : MPI_Reduce(gets_result ? MPI_IN_PLACE : MPI_BOTTOM,
                              gets_result ? MPI_BOTTOM : NULL, count, at_v, op, root,
                              cm->comm);
    snapshot_counters(coll, after);
    if (expect(rc == MPI_SUCCESS, "%s: error %d", what, rc)) {
        check_counters(&c, before, after, what);
        int bad = -1, want = 0;
        for (int i = 0; i < count && bad < 0; i++) {
            want = gets_result ? 1000 * (p * (p - 1) / 2) + p * i : 1000 * rank + i;
            if (v[i] != want)
                bad = i;
        }
        expect(bad < 0, "%s: element %d is %d, want %d", what, bad, bad < 0 ? 0 : v[bad], want);
    }
    MPI_Type_free(&at_v);
    free(v);
}

static void run_bottom(coll_id coll, comm_desc *world)
{
    MPI_Op op;
    MPI_Op_create(absolute_sum, 1, &op);
    int p = world->size, counts[] = {1, pow2_floor(p), p + 1, ODD_COUNT};
    int roots[] = {0, p - 1};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        for (int r = 0; r < (coll == COLL_REDUCE ? 2 : 1); r++)
            run_bottom_case(coll, world, op, counts[k], roots[r]);
    MPI_Op_free(&op);
}

static void run_block(coll_id coll, int item, comms_t *cm)
{
    char block[160];
    snprintf(block, sizeof block, "%s alg=%s", COLL_NAMES[coll],
             g_ctl[coll].alg[item].name);
    start_phase(block);
    force_algorithm(coll, item);
    run_full_matrix(coll, &cm->world);
    run_large_fixed(coll, &cm->world);
    run_comm_variants(coll, cm);
    if (coll == COLL_REDUCE)
        run_root_sweep(&cm->world);
    run_fp_order(coll, &cm->world);
    run_bottom(coll, &cm->world);
    compare_all_served(cm, block);
}

/* Thousands of small back-to-back calls under auto, each checked: catches
 * leaks of state between calls (tags, buffers, request reuse). */
static void run_repeated(comms_t *cm)
{
    static const pair_spec ROTATION[] = {
        {OP_SUM, "int64"}, {OP_MAX, "int32"}, {OP_BXOR, "uint16"},
        {OP_INTERVAL, "interval"},
    };
    enum { NROT = sizeof ROTATION / sizeof ROTATION[0] };
    int reps[NCOLLS] = {REPEAT_ALLREDUCE, REPEAT_REDUCE};
    pair_t pairs[NROT];
    pairs_from_spec(ROTATION, NROT, pairs);
    start_phase("repeated calls");
    for (int coll = 0; coll < NCOLLS; coll++) {
        int n = g.quick ? reps[coll] / 10 : reps[coll];
        force_auto((coll_id)coll);
        for (int k = 0; k < n; k++) {
            case_t c = {(coll_id)coll, pairs[k % NROT].op,
                        pairs[k % NROT].type, 1 + k % 8,
                        k % cm->world.size, k % 2 == 1, &cm->world,
                        (uint64_t)k * 16 + 1};
            run_case(&c);
        }
        compare_all_served(cm, "repeated calls");
    }
}

/* ------------------------------------------------------------------------ */
/* --large: more than 2^31 bytes in one call (offsets must be size_t)        */
/* ------------------------------------------------------------------------ */

static double large_value(int rank, size_t i)
{
    return (double)(i % 7) + (double)(rank % 3);  /* small: sums exact */
}

/* What a large buffer must hold: this rank's contribution (send buffers)
 * or the sum over p ranks, in closed form. */
typedef struct { int rank, p; bool reduced; double rank_part; } large_ref;

static large_ref make_large_ref(const case_t *c, bool reduced)
{
    large_ref ref = {c->comm->rank, c->comm->size, reduced, 0.0};
    for (int r = 0; r < ref.p; r++)
        ref.rank_part += (double)(r % 3);
    return ref;
}

static double large_want(const large_ref *ref, size_t i)
{
    return ref->reduced ? (double)ref->p * (double)(i % 7) + ref->rank_part
                        : large_value(ref->rank, i);
}

static void fill_large(double *buf, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = large_value(rank, i);
}

static void check_large(const double *buf, size_t n, const case_t *c,
                        bool reduced, const char *what)
{
    large_ref ref = make_large_ref(c, reduced);
    size_t bad = 0;
    while (bad < n && buf[bad] == large_want(&ref, bad))
        bad++;
    expect(bad == n, "%s: %s index %zu got %.17g expected %.17g", what,
           reduced ? "result" : "send buffer", bad, bad < n ? buf[bad] : 0.0,
           large_want(&ref, bad));
}

/* Allreduce in place (one 2 GiB buffer per rank), then reduce not in place
 * (two at the root, one elsewhere). */
static void run_large(comm_desc *world)
{
    const size_t n = ((size_t)1 << 28) + 5; /* 2 GiB + 40 bytes of doubles */
    double *data = xmalloc(n * sizeof *data), *result = NULL;
    case_t c = {COLL_ALLREDUCE, &OPS[OP_SUM], type_by_name("double"), (int)n,
                world->size - 1, true, world, 0};
    char what[320];
    bool is_root = world->rank == c.root;
    start_phase("large");
    force_auto(COLL_ALLREDUCE);
    describe(&c, what, sizeof what);
    fill_large(data, n, world->rank);
    if (call_checked(&c, MPI_IN_PLACE, data, what))
        check_large(data, n, &c, true, what);

    c.coll = COLL_REDUCE;
    c.inplace = false;
    force_auto(COLL_REDUCE);
    describe(&c, what, sizeof what);
    fill_large(data, n, world->rank);
    if (is_root)
        result = xmalloc(n * sizeof *result);
    if (call_checked(&c, data, result, what)) {
        check_large(data, n, &c, false, what);
        if (is_root)
            check_large(result, n, &c, true, what);
    }
    free(result);
    free(data);
}

/* ------------------------------------------------------------------------ */
/* Set-up, tally, main                                                       */
/* ------------------------------------------------------------------------ */

static void make_comm(comm_desc *d, MPI_Comm comm, const char *name)
{
    d->comm = comm;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->size);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->served_hash = 0;
}

static void make_comms(comms_t *cm)
{
    int p = g.world_size, r = g.world_rank, color = r < (p + 1) / 2 ? 0 : 1;
    MPI_Comm dup, half, reversed;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, color, r, &half);
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - r, &reversed);
    make_comm(&cm->world, MPI_COMM_WORLD, "world");
    make_comm(&cm->dup, dup, "dup");
    make_comm(&cm->half, half, color == 0 ? "split_half0" : "split_half1");
    make_comm(&cm->reversed, reversed, "split_reversed");
}

static void free_comms(comms_t *cm)
{
    MPI_Comm_free(&cm->dup.comm);
    MPI_Comm_free(&cm->half.comm);
    MPI_Comm_free(&cm->reversed.comm);
}

static void run_all(void)
{
    comms_t cm;
    make_comms(&cm);
    for (int coll = 0; coll < NCOLLS; coll++)
        for (int item = 0; item < g_ctl[coll].nalgs; item++)
            run_block((coll_id)coll, item, &cm);
    run_repeated(&cm);
    if (g.large)
        run_large(&cm.world);
    free_comms(&cm);
}

static bool parse_args(int argc, char **argv)
{
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--quick") == 0)
            g.quick = true;
        else if (strcmp(argv[k], "--large") == 0)
            g.large = true;
        else if (strcmp(argv[k], "--int8-wrap") == 0)
            g.int8_wrap = true;
        else if (strcmp(argv[k], "--no-rabred") == 0)
            g.no_rabred = true;
        else if (strcmp(argv[k], "--nodes-interleaved") == 0)
            nodes_interleaved();
        else {
            if (g.world_rank == 0)
                fprintf(stderr, "unknown argument '%s'\nusage: %s [--quick] "
                        "[--large] [--int8-wrap (with --mca op ^avx)] "
                        "[--nodes-interleaved]\n",
                        argv[k], argv[0]);
            return false;
        }
    }
    return true;
}

/* MPI_Gather and MPI_Bcast, not rabred's collectives, carry the tally. */
static long final_tally(void)
{
    long mine[2] = {g.checks, g.failed}, total[2] = {0, 0};
    long *all = xmalloc(2 * (size_t)g.world_size * sizeof *all);
    MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    if (g.world_rank == 0) {
        for (int r = 0; r < g.world_size; r++) {
            total[0] += all[2 * r];
            total[1] += all[2 * r + 1];
        }
        printf("test_mpi_correctness p=%d: %ld checks, %ld failed\n",
               g.world_size, total[0], total[1]);
        fflush(stdout);
    }
    MPI_Bcast(&total[1], 1, MPI_LONG, 0, MPI_COMM_WORLD);
    free(all);
    return total[1];
}

int main(int argc, char **argv)
{
    long failed;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.world_size);
    if (!parse_args(argc, argv)) {
        MPI_Finalize();
        return 2;
    }
    /* Errors come back as return codes and are reported per call. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    start_phase("setup");
    setup_types();
    setup_ops();
    if (setup_mpi_t())
        run_all();
    failed = final_tally();
    free_cache();
    free_ops();
    free_types();
    if (!g.no_rabred)
        MPI_T_finalize();
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
