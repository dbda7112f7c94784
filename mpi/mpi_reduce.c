/* mpi_reduce.c - the rows each rank owns, and reductions across ranks.
 *
 * A reduction of a distributed array along its first dimension, in steps
 * that every rank takes together:
 *   1. each rank checks its own arguments;
 *   2. one MPI_Allreduce of a short vector - the status of step 1, dtype,
 *      rank count, shape past the first dimension, root, whether the rank
 *      has rows, each with its negation, under MPI_MAX - tells every rank
 *      the maximum and the minimum of each: whether anyone failed, whether
 *      the shards disagree (then an MPI_Allgather of the vectors names
 *      each rank's shard in the message), and which ranks have rows;
 *   3. each rank with rows folds them (ufn_fold: on its device, or its
 *      devices), and the result goes to MPI as it is (host memory; device
 *      memory when the MPI library takes it) or copied to the host;
 *   4. the ranks' results meet in MPI_Allreduce or MPI_Reduce with the
 *      ufunc's operator, not commutative, so in rank order: the order of
 *      the rows.  When some ranks have no rows, those with rows reduce
 *      among themselves (MPI_Comm_split) and the lowest of them
 *      broadcasts the result;
 *   5. the result becomes the caller's array, in local's memory.
 * Every failure after step 2 is agreed on (um_agree) before the next
 * collective, so no rank waits for one that gave up, and every rank
 * returns it.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"

int ufn_mpi_rows(int64_t n, MPI_Comm comm, int64_t *first, int64_t *count)
{
    static const char fn[] = "ufn_mpi_rows";
    if (!first || !count)
        return ufn_set_error(UFN_ERR_INVALID, "%s: a NULL pointer for the result", fn);
    if (n < 0)
        return ufn_set_error(UFN_ERR_SHAPE, "%s: a negative number of rows (%lld)", fn,
                             (long long)n);
    int up = 0, rank = 0, size = 1;
    MPI_Initialized(&up);
    if (!up)
        return ufn_set_error(UFN_ERR_MPI, "%s: MPI is not initialised (call MPI_Init first)", fn);
    int rc = MPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(comm, &size);
    if (rc != MPI_SUCCESS)
        return um_mpi_fail(rc, fn, "MPI_Comm_rank");
    ufn_block_range(n, size, rank, first, count);
    return UFN_OK;
}

/* ---- 1 and 2: the arguments, on every rank ---------------------------------------------- */

/* What a rank says about its call: MPI_MAX of the vector and of its
 * negation gives the maximum and the minimum of each entry. */
enum {
    V_FAILED,       /* -status of step 1, or 0 */
    V_DTYPE,
    V_NDIM,
    V_ROOT,
    V_HAS_ROWS,     /* 1 or 0: not compared */
    V_FIRST,        /* this rank if it has rows, else the rank count: the minimum is the
                       lowest rank with rows (not compared) */
    V_ROWS,         /* not compared */
    V_SHAPE,        /* dimensions 1, 2, ... */
    V_LEN = V_SHAPE + UFN_MAXDIMS - 1
};

typedef struct job {
    const char *fn;
    ufn_binary_ufunc f;
    const ufn_array *local;
    bool everyone;           /* allreduce: every rank gets the result */
    int root;                /* reduce: the rank that does */
    MPI_Comm inner;
    int rank, size;
    int64_t count;           /* elements of the result */
    bool any, all;           /* some ranks have rows; all have */
    int first;               /* the lowest rank with rows */
} job;

static int check_local(job *j, const ufn_array *out)
{
    const char *fn = j->fn;
    const ufn_array *a = j->local;
    if (!j->f || !a || !out)
        return ufn_set_error(UFN_ERR_INVALID, "%s: the %s is NULL", fn,
                             !j->f ? "ufunc" : !a ? "local array" : "output pointer");
    if (out->memory != UFN_MEM_NONE)
        return ufn_set_error(UFN_ERR_OUTPUT, "%s: the output must be passed empty: the result "
                             "is allocated in the memory of the local array", fn);
    if (a->memory != UFN_MEM_HOST && a->memory != UFN_MEM_DEVICE &&
        a->memory != UFN_MEM_SHARDED)
        return ufn_set_error(UFN_ERR_INVALID, "%s: the local array is empty (no memory)", fn);
    if (a->ndim < 1 || a->ndim > UFN_MAXDIMS)
        return ufn_set_error(UFN_ERR_NDIM, "%s: a %d-d array has no first dimension to spread "
                             "over ranks", fn, a->ndim);
    if (ufn_size(a) < 0)
        return ufn_set_error(UFN_ERR_SHAPE, "%s: the local array's shape is invalid", fn);
    if (!j->everyone && (j->root < 0 || j->root >= j->size))
        return ufn_set_error(UFN_ERR_INVALID, "%s: no rank %d to reduce to (%d ranks)", fn,
                             j->root, j->size);
    int st = ufn_mpi_cuda_aware();
    if (st < 0)
        return ufn_set_error(st, "%s: %s", fn, ufn_error());
    if ((st = ufn_combine_host(j->f, a->dtype, NULL, NULL, 0)) < 0) {
        const char *why = ufn_error(), *colon = strchr(why, ':');
        return ufn_set_error(st, "%s:%s", fn, colon ? colon + 1 : why);
    }
    j->count = 1;
    for (int d = 1; d < a->ndim; d++)
        j->count *= a->shape[d];
    if (j->count > INT_MAX)
        return ufn_set_error(UFN_ERR_OVERFLOW, "%s: a result of %lld elements is more than one "
                             "MPI call carries (%d)", fn, (long long)j->count, INT_MAX);
    return UFN_OK;
}

/* A shard's shape for a message: (rows, n1, ...) dtype. */
static void describe_shard(const int64_t *v, char *buf, size_t size)
{
    int n = snprintf(buf, size, "(%lld", (long long)v[V_ROWS]);
    for (int d = 1; d < v[V_NDIM] && n < (int)size; d++)
        n += snprintf(buf + n, size - (size_t)n, ", %lld", (long long)v[V_SHAPE + d - 1]);
    if (n < (int)size)
        snprintf(buf + n, size - (size_t)n, ") %s",
                 ufn_dtype_name((ufn_dtype)v[V_DTYPE]) ? ufn_dtype_name((ufn_dtype)v[V_DTYPE])
                                                       : "?");
}

/* The ranks' shards disagree: say how, from every rank's vector. */
static int disagree(const job *j, const int64_t *mine, const int64_t *lo, const int64_t *hi)
{
    if (lo[V_ROOT] != hi[V_ROOT])
        return ufn_set_error(UFN_ERR_INVALID, "%s: the ranks name different roots (%lld to "
                             "%lld)", j->fn, (long long)lo[V_ROOT], (long long)hi[V_ROOT]);
    int64_t *all = malloc(sizeof(int64_t) * V_LEN * (size_t)j->size);
    char list[400] = "";
    if (all && MPI_Allgather(mine, V_LEN, MPI_INT64_T, all, V_LEN, MPI_INT64_T, j->inner) ==
                   MPI_SUCCESS) {
        size_t n = 0;
        for (int r = 0; r < j->size && r < 8 && n < sizeof list; r++) {
            char shard[160];
            describe_shard(all + (size_t)r * V_LEN, shard, sizeof shard);
            n += (size_t)snprintf(list + n, sizeof list - n, "%srank %d has %s", r ? ", " : "",
                                  r, shard);
        }
        if (j->size > 8 && n < sizeof list)
            snprintf(list + n, sizeof list - n, ", ...");
    }
    free(all);
    return ufn_set_error(UFN_ERR_SHAPE, "%s: the ranks' local arrays disagree: every rank must "
                         "hold rows of one shape and dtype%s%s", j->fn, list[0] ? ": " : "",
                         list);
}

static int agree_arguments(job *j, int status)
{
    const ufn_array *a = j->local;
    int64_t v[2 * V_LEN] = { 0 }, m[2 * V_LEN];
    v[V_FAILED] = status < 0 ? -status : 0;
    v[V_FIRST] = j->size;
    if (status == UFN_OK) {
        v[V_DTYPE] = a->dtype;
        v[V_NDIM] = a->ndim;
        v[V_ROOT] = j->root;
        v[V_HAS_ROWS] = a->shape[0] > 0;
        v[V_FIRST] = a->shape[0] > 0 ? j->rank : j->size;
        v[V_ROWS] = a->shape[0];
        for (int d = 1; d < a->ndim; d++)
            v[V_SHAPE + d - 1] = a->shape[d];
    }
    for (int i = 0; i < V_LEN; i++)
        v[V_LEN + i] = -v[i];
    int rc = MPI_Allreduce(v, m, 2 * V_LEN, MPI_INT64_T, MPI_MAX, j->inner);
    if (rc != MPI_SUCCESS)
        return um_mpi_fail(rc, j->fn, "MPI_Allreduce (of the ranks' arguments)");
    const int64_t *hi = m, *lo = m + V_LEN;   /* lo holds minus the minimum */
    int64_t min[V_LEN];
    for (int i = 0; i < V_LEN; i++)
        min[i] = -lo[i];
    if (hi[V_FAILED]) {
        int worst = -(int)hi[V_FAILED];
        if (status == worst)
            return status;
        if (status < 0) {
            char mine[512];
            snprintf(mine, sizeof mine, "%s", ufn_error());
            return ufn_set_error(worst, "%s; and another rank failed with %s", mine,
                                 ufn_status_name(worst));
        }
        return ufn_set_error(worst, "%s: another rank's arguments were refused (%s)", j->fn,
                             ufn_status_name(worst));
    }
    for (int i = 0; i < V_LEN; i++)
        if (i != V_HAS_ROWS && i != V_FIRST && i != V_ROWS && hi[i] != min[i])
            return disagree(j, v, min, hi);
    j->any = hi[V_HAS_ROWS] == 1;
    j->all = min[V_HAS_ROWS] == 1;
    j->first = (int)min[V_FIRST];
    return UFN_OK;
}

/* ---- 3 to 5 -------------------------------------------------------------------------------- */

/* Buffers of one reduction. */
typedef struct buffers {
    ufn_array partial;       /* this rank's fold */
    ufn_array staged;        /* ... copied to the host */
    const void *send;
    void *recv;              /* host memory (malloc), or out's device memory */
    bool recv_device;
} buffers;

/* Step 3: the rank's own rows folded, and where MPI reads and writes. */
static int prepare(job *j, buffers *b, ufn_array *out, bool gets_result)
{
    const ufn_array *a = j->local;
    size_t bytes = (size_t)j->count * (size_t)ufn_dtype_size(a->dtype);
    int cuda = ufn_mpi_cuda_aware();
    int st = UFN_OK;
    if (a->shape[0] > 0) {
        st = ufn_fold(j->f, a, &b->partial);
        if (st == UFN_OK && b->partial.memory == UFN_MEM_DEVICE && !cuda)
            st = ufn_copy_to_host(&b->partial, &b->staged);
        if (st == UFN_OK && b->partial.memory == UFN_MEM_DEVICE && cuda)
            st = ufn_synchronize();   /* MPI does not see the device's queues */
        b->send = b->staged.data ? b->staged.data : b->partial.data;
    }
    if (st < 0)
        return st;
    /* A result in device memory is written there by MPI when it takes
     * device pointers; else it comes through the host. */
    b->recv_device = cuda && a->memory != UFN_MEM_HOST && gets_result;
    if (b->recv_device) {
        if ((st = ufn_device_array(a->dtype, a->ndim - 1, a->shape + 1, out)) < 0)
            return st;
        b->recv_device = out->memory == UFN_MEM_DEVICE;
        if (b->recv_device) {
            b->recv = out->data;
            return UFN_OK;
        }
        ufn_free(out);   /* the host backend: "device" memory is host memory */
    }
    if (!(b->recv = malloc(bytes ? bytes : 1)))
        return ufn_set_error(UFN_ERR_NOMEM, "%s: out of host memory (%zu bytes)", j->fn, bytes);
    return UFN_OK;
}

/* Step 4. */
static int communicate(job *j, buffers *b, const ufn_mpi_op *op)
{
    int count = (int)j->count, rc;
    const char *call;
    if (j->all) {
        call = j->everyone ? "MPI_Allreduce" : "MPI_Reduce";
        rc = j->everyone ? MPI_Allreduce(b->send, b->recv, count, op->type, op->op, j->inner)
                         : MPI_Reduce(b->send, b->recv, count, op->type, op->op, j->root,
                                      j->inner);
    } else {
        bool has = j->local->shape[0] > 0;
        MPI_Comm some;
        call = "MPI_Comm_split";
        rc = MPI_Comm_split(j->inner, has ? 0 : MPI_UNDEFINED, j->rank, &some);
        if (rc == MPI_SUCCESS && has) {
            call = "MPI_Allreduce";
            rc = MPI_Allreduce(b->send, b->recv, count, op->type, op->op, some);
            MPI_Comm_free(&some);
        }
        if (rc == MPI_SUCCESS) {
            call = "MPI_Bcast";
            rc = MPI_Bcast(b->recv, count, op->type, j->first, j->inner);
        }
    }
    return rc == MPI_SUCCESS ? UFN_OK : um_mpi_fail(rc, j->fn, call);
}

/* Step 5: the result as the caller's array, in local's memory. */
static int deliver(const job *j, const buffers *b, ufn_array *out)
{
    if (b->recv_device)
        return UFN_OK;   /* written in place */
    const ufn_array *a = j->local;
    ufn_array r = ufn_host(b->recv, a->dtype, a->ndim - 1, a->shape + 1);
    return a->memory == UFN_MEM_HOST ? ufn_copy_to_host(&r, out) : ufn_to_device(&r, out);
}

static int reduce(const char *fn, ufn_binary_ufunc f, const ufn_array *local, ufn_array *out,
                  bool everyone, int root, MPI_Comm comm)
{
    job j = { .fn = fn, .f = f, .local = local, .everyone = everyone, .root = everyone ? 0 : root };
    int st = um_inner(comm, &j.inner, fn);
    if (st < 0)
        return st;
    MPI_Comm_rank(j.inner, &j.rank);
    MPI_Comm_size(j.inner, &j.size);
    st = agree_arguments(&j, check_local(&j, out));
    if (st < 0)
        return st;
    if (!j.any) {   /* ufn_fold says it in NumPy's words */
        ufn_array none = { 0 };
        ufn_fold(f, local, &none);
        const char *why = ufn_error(), *colon = strchr(why, ':');
        return ufn_set_error(UFN_ERR_SHAPE, "%s:%s", fn, colon ? colon + 1 : why);
    }
    bool gets_result = everyone || j.rank == root;
    buffers b = { .partial = { 0 }, .staged = { 0 } };
    ufn_mpi_op op;
    st = prepare(&j, &b, out, gets_result);
    if (st == UFN_OK)
        st = um_op(f, local->dtype, 0, &op, fn);
    st = um_agree(j.inner, st, fn, "the reduction could not start");
    if (st == UFN_OK) {
        unsigned long failed = ufn_mpi_op_failures();
        st = communicate(&j, &b, &op);
        if (st == UFN_OK && ufn_mpi_op_failures() != failed)
            st = ufn_set_error(UFN_ERR_MPI, "%s: the MPI operator made from the ufunc failed "
                               "(%lu times)", fn, ufn_mpi_op_failures() - failed);
        if (st == UFN_OK && gets_result)
            st = deliver(&j, &b, out);
        st = um_agree(j.inner, st, fn, "the reduction failed");
    }
    if (st < 0)
        ufn_free(out);
    if (!b.recv_device)
        free(b.recv);
    ufn_free(&b.staged);
    ufn_free(&b.partial);
    return st;
}

int ufn_mpi_reduce(ufn_binary_ufunc f, const ufn_array *local, ufn_array *out, int root,
                   MPI_Comm comm)
{
    return reduce("ufn_mpi_reduce", f, local, out, false, root, comm);
}

int ufn_mpi_allreduce(ufn_binary_ufunc f, const ufn_array *local, ufn_array *out,
                      MPI_Comm comm)
{
    return reduce("ufn_mpi_allreduce", f, local, out, true, 0, comm);
}
