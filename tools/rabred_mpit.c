/*
 * MPI_T in a few calls (see rabred_mpit.h): the buffer-length dance of the
 * get_info calls, handle allocation and typed reads in one place.
 */
#include "rabred_mpit.h"

#include <stdlib.h>
#include <string.h>

/* ---- control variables ------------------------------------------------ */

int rabred_mpit_cvar_find(const char *name, rabred_mpit_cvar_t *cv)
{
    char full[RABRED_MPIT_NAME_LEN];
    int len = sizeof(full), desc_len = 0, verbosity, bind, index, rc;
    cv->index = -1;
    cv->datatype = MPI_DATATYPE_NULL;
    cv->enumtype = MPI_T_ENUM_NULL;
    cv->scope = MPI_T_SCOPE_CONSTANT;
    cv->count = 0;
    cv->handle = MPI_T_CVAR_HANDLE_NULL;
    rc = MPI_T_cvar_get_index(name, &index);
    if (MPI_SUCCESS != rc) {
        return rc;
    }
    cv->index = index;
    return MPI_T_cvar_get_info(index, full, &len, &verbosity, &cv->datatype, &cv->enumtype, NULL,
                               &desc_len, &bind, &cv->scope);
}

int rabred_mpit_cvar_open(rabred_mpit_cvar_t *cv)
{
    if (cv->index < 0) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    int rc = MPI_T_cvar_handle_alloc(cv->index, NULL, &cv->handle, &cv->count);
    if (MPI_SUCCESS != rc) {
        cv->handle = MPI_T_CVAR_HANDLE_NULL;
        cv->count = 0;
    }
    return rc;
}

int rabred_mpit_cvar_read_only(const rabred_mpit_cvar_t *cv)
{
    return MPI_T_SCOPE_CONSTANT == cv->scope || MPI_T_SCOPE_READONLY == cv->scope;
}

/* Open MPI stores a bool as a C bool (one byte), not as an int. */
int rabred_mpit_cvar_read_int(const rabred_mpit_cvar_t *cv, int *value)
{
    int rc = MPI_T_ERR_INVALID;
    if (MPI_T_CVAR_HANDLE_NULL == cv->handle) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (1 != cv->count) {
        return MPI_T_ERR_INVALID;
    }
    if (MPI_INT == cv->datatype) {
        rc = MPI_T_cvar_read(cv->handle, value);
    } else if (MPI_C_BOOL == cv->datatype) {
        _Bool b = 0;
        rc = MPI_T_cvar_read(cv->handle, &b);
        if (MPI_SUCCESS == rc) {
            *value = b;
        }
    }
    return rc;
}

int rabred_mpit_cvar_write_int(const rabred_mpit_cvar_t *cv, int value)
{
    if (MPI_T_CVAR_HANDLE_NULL == cv->handle) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (1 != cv->count) {
        return MPI_T_ERR_INVALID;
    }
    if (MPI_INT == cv->datatype) {
        return MPI_T_cvar_write(cv->handle, &value);
    }
    if (MPI_C_BOOL == cv->datatype) {
        _Bool b = 0 != value;
        return MPI_T_cvar_write(cv->handle, &b);
    }
    return MPI_T_ERR_INVALID;
}

int rabred_mpit_cvar_read_string(const rabred_mpit_cvar_t *cv, char *buf, size_t size)
{
    char *all;
    int rc;
    if (size > 0) {
        buf[0] = '\0';
    }
    if (MPI_T_CVAR_HANDLE_NULL == cv->handle) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (MPI_CHAR != cv->datatype || cv->count < 0) {
        return MPI_T_ERR_INVALID;
    }
    /* count is the string's length; one more byte keeps it NUL-ended */
    if (NULL == (all = calloc((size_t)cv->count + 1, 1))) {
        return MPI_ERR_NO_MEM;
    }
    rc = MPI_T_cvar_read(cv->handle, all);
    if (MPI_SUCCESS == rc && size > 0) {
        strncpy(buf, all, size - 1);
        buf[size - 1] = '\0';
    }
    free(all);
    return rc;
}

int rabred_mpit_cvar_write_string(const rabred_mpit_cvar_t *cv, const char *value)
{
    if (MPI_T_CVAR_HANDLE_NULL == cv->handle) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (MPI_CHAR != cv->datatype) {
        return MPI_T_ERR_INVALID;
    }
    return MPI_T_cvar_write(cv->handle, value);
}

void rabred_mpit_cvar_close(rabred_mpit_cvar_t *cv)
{
    if (MPI_T_CVAR_HANDLE_NULL != cv->handle) {
        MPI_T_cvar_handle_free(&cv->handle);
    }
    cv->handle = MPI_T_CVAR_HANDLE_NULL;
}

/* ---- enums ------------------------------------------------------------ */

int rabred_mpit_enum_items(MPI_T_enum et, rabred_mpit_item_t *items, int max, int *nitems)
{
    char enum_name[RABRED_MPIT_NAME_LEN];
    int len = sizeof(enum_name), n = 0;
    int rc = MPI_T_enum_get_info(et, &n, enum_name, &len);
    *nitems = MPI_SUCCESS == rc ? n : 0;
    for (int i = 0; i < *nitems && i < max; i++) {
        rabred_mpit_item_t *it = &items[i];
        len = sizeof(it->name);
        it->value = -1;
        it->name[0] = '\0';
        it->rc = MPI_T_enum_get_item(et, i, &it->value, it->name, &len);
    }
    return rc;
}

int rabred_mpit_enum_value(MPI_T_enum et, const char *name)
{
    rabred_mpit_item_t it;
    int n = 0;
    if (MPI_T_ENUM_NULL == et || MPI_SUCCESS != rabred_mpit_enum_items(et, NULL, 0, &n)) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int len = sizeof(it.name);
        if (MPI_SUCCESS == MPI_T_enum_get_item(et, i, &it.value, it.name, &len) &&
            0 == strcmp(it.name, name)) {
            return it.value;
        }
    }
    return -1;
}

/* ---- performance variables -------------------------------------------- */

static void pvar_clear(rabred_mpit_pvar_t *pv)
{
    pv->index = -1;
    pv->var_class = -1;
    pv->datatype = MPI_DATATYPE_NULL;
    pv->count = 0;
    pv->session = MPI_T_PVAR_SESSION_NULL;
    pv->handle = MPI_T_PVAR_HANDLE_NULL;
}

int rabred_mpit_pvar_describe(int index, char *name, int size, rabred_mpit_pvar_t *pv)
{
    int len = size, desc_len = 0, verbosity, bind, readonly, continuous, atomic, rc;
    MPI_T_enum et;
    pvar_clear(pv);
    if (size > 0) {
        name[0] = '\0';
    }
    rc = MPI_T_pvar_get_info(index, name, &len, &verbosity, &pv->var_class, &pv->datatype, &et,
                             NULL, &desc_len, &bind, &readonly, &continuous, &atomic);
    if (MPI_SUCCESS == rc) {
        pv->index = index;
    }
    return rc;
}

int rabred_mpit_pvar_find(const char *name, int var_class, rabred_mpit_pvar_t *pv)
{
    char full[RABRED_MPIT_NAME_LEN];
    int index, rc;
    pvar_clear(pv);
    rc = MPI_T_pvar_get_index(name, var_class, &index);
    return MPI_SUCCESS == rc ? rabred_mpit_pvar_describe(index, full, sizeof(full), pv) : rc;
}

int rabred_mpit_pvar_open(MPI_T_pvar_session session, rabred_mpit_pvar_t *pv)
{
    if (pv->index < 0) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    int rc = MPI_T_pvar_handle_alloc(session, pv->index, NULL, &pv->handle, &pv->count);
    if (MPI_SUCCESS == rc) {
        pv->session = session;
    } else {
        pv->handle = MPI_T_PVAR_HANDLE_NULL;
        pv->count = 0;
    }
    return rc;
}

static int pvar_read(const rabred_mpit_pvar_t *pv, MPI_Datatype want, void *value)
{
    if (MPI_T_PVAR_HANDLE_NULL == pv->handle) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (1 != pv->count || want != pv->datatype) {
        return MPI_T_ERR_INVALID;
    }
    return MPI_T_pvar_read(pv->session, pv->handle, value);
}

int rabred_mpit_pvar_read_counter(const rabred_mpit_pvar_t *pv, unsigned long long *value)
{
    return pvar_read(pv, MPI_UNSIGNED_LONG_LONG, value);
}

int rabred_mpit_pvar_read_timer(const rabred_mpit_pvar_t *pv, double *value)
{
    return pvar_read(pv, MPI_DOUBLE, value);
}

void rabred_mpit_pvar_close(rabred_mpit_pvar_t *pv)
{
    if (MPI_T_PVAR_HANDLE_NULL != pv->handle) {
        MPI_T_pvar_handle_free(pv->session, &pv->handle);
    }
    pv->handle = MPI_T_PVAR_HANDLE_NULL;
}
