/*
 * MPI_T in a few calls, for the programs that drive rabred through its
 * control variables (coll_rabred_<coll>_algorithm, coll_rabred_segment_size,
 * ...) and read its performance variables (coll_rabred_<coll>_<alg>_calls,
 * coll_rabred_arrival_exchanges, coll_rabred_arrival_exchange_seconds):
 * rabred-tune, rabred_bench and the MPI tests.  Needs only <mpi.h>, no
 * part of the component.
 *
 * Every function returns MPI_SUCCESS or an MPI error code (that of the MPI_T
 * call that failed, or MPI_T_ERR_INVALID for a variable of the wrong type
 * or size, MPI_ERR_NO_MEM); none prints or exits: the callers say what went
 * wrong in their own words.  The caller initialises MPI_T
 * (MPI_T_init_thread) and creates the pvar session.
 */
#ifndef RABRED_MPIT_H
#define RABRED_MPIT_H

#include <stddef.h>

#include <mpi.h>

#define RABRED_MPIT_NAME_LEN 128 /* enum item names kept, with their NUL */

/* ---- control variables ------------------------------------------------ */

typedef struct {
    int index;                /* -1: no control variable of that name */
    MPI_Datatype datatype;    /* MPI_INT, MPI_C_BOOL (Open MPI's bools), MPI_CHAR (strings) */
    MPI_T_enum enumtype;      /* MPI_T_ENUM_NULL: not an enum */
    int scope;                /* MPI_T_SCOPE_* */
    int count;                /* elements, once open (1, or a string's length) */
    MPI_T_cvar_handle handle; /* MPI_T_CVAR_HANDLE_NULL until open */
} rabred_mpit_cvar_t;

/* Looks up control variable `name`: index, datatype, enum and scope, no
 * handle yet.  cv->index stays -1 when MPI_T has no variable by that name
 * (a component that is not loaded registers none); the error is then
 * MPI_T_cvar_get_index's, else MPI_T_cvar_get_info's. */
int rabred_mpit_cvar_find(const char *name, rabred_mpit_cvar_t *cv);

/* Allocates the handle of a variable found (bound to no MPI object) and
 * sets cv->count. */
int rabred_mpit_cvar_open(rabred_mpit_cvar_t *cv);

/* MPI_T refuses writes to CONSTANT and READONLY variables (Open MPI also to
 * variables registered without MCA_BASE_VAR_FLAG_SETTABLE). */
int rabred_mpit_cvar_read_only(const rabred_mpit_cvar_t *cv);

/* An open single int or bool variable (bools as 0 or 1). */
int rabred_mpit_cvar_read_int(const rabred_mpit_cvar_t *cv, int *value);
int rabred_mpit_cvar_write_int(const rabred_mpit_cvar_t *cv, int value);

/* An open string variable into buf (size bytes, truncated, NUL-ended; ""
 * on any error). */
int rabred_mpit_cvar_read_string(const rabred_mpit_cvar_t *cv, char *buf, size_t size);
/* Writes an open string variable (it must be settable). */
int rabred_mpit_cvar_write_string(const rabred_mpit_cvar_t *cv, const char *value);

/* Frees the handle, if any (safe on a variable never found or opened). */
void rabred_mpit_cvar_close(rabred_mpit_cvar_t *cv);

/* ---- enums ------------------------------------------------------------ */

typedef struct {
    int rc; /* MPI_T_enum_get_item's result: value and name hold only when MPI_SUCCESS */
    int value;
    char name[RABRED_MPIT_NAME_LEN];
} rabred_mpit_item_t;

/* The items of `et` in the enum's order, at most `max` of them; *nitems is
 * how many the enum has (it may exceed max).  Fails only when
 * MPI_T_enum_get_info does (*nitems = 0); an item that cannot be read has
 * its own rc. */
int rabred_mpit_enum_items(MPI_T_enum et, rabred_mpit_item_t *items, int max, int *nitems);

/* The value of the item called `name`, or -1 (also for an unreadable
 * enum); for enums whose values are >= 0, as Open MPI's are. */
int rabred_mpit_enum_value(MPI_T_enum et, const char *name);

/* ---- performance variables -------------------------------------------- */

typedef struct {
    int index;                  /* -1: not found */
    int var_class;              /* MPI_T_PVAR_CLASS_* */
    MPI_Datatype datatype;      /* rabred: MPI_UNSIGNED_LONG_LONG counters, MPI_DOUBLE timer */
    int count;                  /* elements, once open */
    MPI_T_pvar_session session; /* the session it is open in */
    MPI_T_pvar_handle handle;   /* MPI_T_PVAR_HANDLE_NULL until open */
} rabred_mpit_pvar_t;

/* Looks up performance variable `name` of class `var_class`
 * (MPI_T_PVAR_CLASS_COUNTER, _TIMER, ...); no handle yet. */
int rabred_mpit_pvar_find(const char *name, int var_class, rabred_mpit_pvar_t *pv);

/* Performance variable number `index` (0 .. MPI_T_pvar_get_num - 1), for
 * scans: its name into name (size bytes, truncated), class and datatype. */
int rabred_mpit_pvar_describe(int index, char *name, int size, rabred_mpit_pvar_t *pv);

/* Allocates the handle of a variable found or described, in `session`
 * (bound to no MPI object), and sets pv->count.  Open MPI counts from the
 * allocation on: allocate once, use differences. */
int rabred_mpit_pvar_open(MPI_T_pvar_session session, rabred_mpit_pvar_t *pv);

/* One open counter (MPI_UNSIGNED_LONG_LONG) or timer (MPI_DOUBLE). */
int rabred_mpit_pvar_read_counter(const rabred_mpit_pvar_t *pv, unsigned long long *value);
int rabred_mpit_pvar_read_timer(const rabred_mpit_pvar_t *pv, double *value);

/* Frees the handle, if any (before its session is freed). */
void rabred_mpit_pvar_close(rabred_mpit_pvar_t *pv);

#endif /* RABRED_MPIT_H */
