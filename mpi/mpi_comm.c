/* mpi_comm.c - libufnmpi's communicators, MPI failures and agreement.
 *
 * A library that communicates on the program's communicator would mix its
 * messages with the program's and inherit its error handler, which is
 * MPI_ERRORS_ARE_FATAL unless the program changed it.  So, as
 * MPI_Comm_dup exists for ("a parallel library call with a duplicate
 * communication space"), each communicator gets a duplicate of the
 * library's own on first use, with MPI_ERRORS_RETURN, kept as an attribute
 * of the program's communicator: freeing that one frees ours, and
 * whatever is left is freed at the beginning of MPI_Finalize (an attribute
 * of MPI_COMM_SELF, which MPI deletes there first).
 *
 * A collective that fails on one rank must fail on all, or the others
 * would wait forever or go on with a wrong answer: um_agree makes every
 * rank return the worst status of any.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- MPI failures ------------------------------------------------------------------- */

int um_mpi_fail(int rc, const char *fn, const char *call)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return ufn_set_error(UFN_ERR_MPI, "%s: %s failed: %s", fn, call, text);
}

int um_agree(MPI_Comm inner, int status, const char *fn, const char *others)
{
    int worst = status;
    int rc = MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MIN, inner);
    if (rc != MPI_SUCCESS)
        return um_mpi_fail(rc, fn, "MPI_Allreduce (of every rank's status)");
    if (worst == status)
        return worst;
    char mine[512];
    snprintf(mine, sizeof mine, "%s", status < 0 ? ufn_error() : "");
    if (status < 0)
        return ufn_set_error(worst, "%s; and another rank failed with %s", mine,
                             ufn_status_name(worst));
    return ufn_set_error(worst, "%s: %s (%s on another rank)", fn, others,
                         ufn_status_name(worst));
}

/* ---- MPI_Finalize ----------------------------------------------------------------------- */

static void (*cleanups[4])(void);
static int ncleanups;
static int self_key = MPI_KEYVAL_INVALID;

static int run_cleanups(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    for (int i = ncleanups - 1; i >= 0; i--)
        cleanups[i]();
    ncleanups = 0;
    MPI_Comm_free_keyval(&self_key);
    return MPI_SUCCESS;
}

int um_at_finalize(void (*cleanup)(void), const char *fn)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&lock);
    if (self_key == MPI_KEYVAL_INVALID) {
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_cleanups, &self_key, NULL);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL);
    }
    if (rc == MPI_SUCCESS && ncleanups < (int)(sizeof cleanups / sizeof cleanups[0]))
        cleanups[ncleanups++] = cleanup;
    pthread_mutex_unlock(&lock);
    return rc == MPI_SUCCESS ? UFN_OK : um_mpi_fail(rc, fn, "MPI_Comm_set_attr(MPI_COMM_SELF)");
}

/* ---- the library's communicators -------------------------------------------------------- */

typedef struct inner_rec {
    struct inner_rec *next;
    MPI_Comm user, inner;
} inner_rec;

static int comm_key = MPI_KEYVAL_INVALID;
static inner_rec *inners;            /* every live duplicate */

/* The program's communicator is freed (or MPI_Finalize is freeing what is
 * left): free our duplicate with it. */
static int free_inner(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    inner_rec *r = value;
    pthread_mutex_lock(&lock);
    for (inner_rec **p = &inners; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    MPI_Comm_free(&r->inner);
    free(r);
    return MPI_SUCCESS;
}

static void free_inners(void)
{
    for (;;) {
        pthread_mutex_lock(&lock);
        inner_rec *r = inners;
        pthread_mutex_unlock(&lock);
        if (!r)
            break;
        MPI_Comm_delete_attr(r->user, comm_key);   /* calls free_inner */
    }
    MPI_Comm_free_keyval(&comm_key);
}

static int make_key(const char *fn)
{
    pthread_mutex_lock(&lock);
    bool need = comm_key == MPI_KEYVAL_INVALID;
    int rc = need ? MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_inner, &comm_key, NULL)
                  : MPI_SUCCESS;
    pthread_mutex_unlock(&lock);
    if (rc != MPI_SUCCESS)
        return um_mpi_fail(rc, fn, "MPI_Comm_create_keyval");
    return need ? um_at_finalize(free_inners, fn) : UFN_OK;
}

int um_inner(MPI_Comm comm, MPI_Comm *inner, const char *fn)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (!up || down)
        return ufn_set_error(UFN_ERR_MPI, "%s: MPI is %s", fn,
                             down ? "finalised already" : "not initialised (call MPI_Init first)");
    if (comm == MPI_COMM_NULL)
        return ufn_set_error(UFN_ERR_INVALID, "%s: the communicator is MPI_COMM_NULL", fn);
    int st = make_key(fn);
    if (st < 0)
        return st;
    inner_rec *r = NULL;
    int found = 0;
    int rc = MPI_Comm_get_attr(comm, comm_key, &r, &found);
    if (rc != MPI_SUCCESS)
        return um_mpi_fail(rc, fn, "MPI_Comm_get_attr");
    if (found) {
        *inner = r->inner;
        return UFN_OK;
    }
    if (!(r = calloc(1, sizeof *r)))
        return ufn_set_error(UFN_ERR_NOMEM, "%s: out of host memory", fn);
    r->user = comm;
    rc = MPI_Comm_dup(comm, &r->inner);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(r->inner, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) {
        pthread_mutex_lock(&lock);
        r->next = inners;
        inners = r;
        pthread_mutex_unlock(&lock);
        rc = MPI_Comm_set_attr(comm, comm_key, r);
        if (rc != MPI_SUCCESS) {
            free_inner(comm, comm_key, r, NULL);
            return um_mpi_fail(rc, fn, "MPI_Comm_set_attr");
        }
    }
    if (rc != MPI_SUCCESS) {
        if (r->inner != MPI_COMM_NULL)
            MPI_Comm_free(&r->inner);
        free(r);
        return um_mpi_fail(rc, fn, "MPI_Comm_dup");
    }
    *inner = r->inner;
    return UFN_OK;
}
