/* mpi_op.c - MPI reduction operators made from binary ufuncs, and whether
 * the MPI library takes device pointers.
 *
 * MPI_Op_create takes a plain function, `void fn(void *in, void *inout,
 * int *len, MPI_Datatype *type)`, with no place for the ufunc it should
 * apply.  The datatype is that place: each operator comes with a datatype
 * of its own - one element of the dtype, MPI_Type_contiguous(1, <the MPI
 * type of the dtype>), committed - carrying the ufunc as an attribute, and
 * one function serves every operator by reading it back (a local call,
 * not a communication, so allowed inside an operator).  The element is
 * never MPI_BYTE: MPI may hand an operator pieces of a byte buffer that
 * end mid-element (scale-out.md 2.5), while *len counts whole elements of
 * a datatype of the element's size.
 *
 * The operator computes inout[i] = f(in[i], inout[i]) with the ufunc's host
 * loop (ufn_combine_host), whatever the backend: MPI hands operators host
 * memory (a CUDA-aware MPI copies device buffers to the host to reduce).
 * It cannot return an error; a failure is counted (ufn_mpi_op_failures),
 * and the reductions of mpi_reduce.c turn the count into a status.
 *
 * The reductions' operators are made once per ufunc, dtype and
 * commutativity, and kept until MPI_Finalize frees them.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>   /* MPIX_Query_cuda_support, when the cuda extension is built */
#endif

#include "mpi_int.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int type_key = MPI_KEYVAL_INVALID;
static atomic_ulong failures;

/* What a datatype's attribute says: the ufunc to apply. */
typedef struct binding {
    ufn_binary_ufunc f;
    ufn_dtype dtype;
} binding;

/* The MPI type of one element of each dtype. */
static MPI_Datatype element_type(ufn_dtype t)
{
    switch (t) {
    case UFN_BOOL: return MPI_UINT8_T;
    case UFN_INT8: return MPI_INT8_T;
    case UFN_INT16: return MPI_INT16_T;
    case UFN_INT32: return MPI_INT32_T;
    case UFN_INT64: return MPI_INT64_T;
    case UFN_UINT8: return MPI_UINT8_T;
    case UFN_UINT16: return MPI_UINT16_T;
    case UFN_UINT32: return MPI_UINT32_T;
    case UFN_UINT64: return MPI_UINT64_T;
    case UFN_FLOAT32: return MPI_FLOAT;
    case UFN_FLOAT64: return MPI_DOUBLE;
    case UFN_COMPLEX64: return MPI_C_FLOAT_COMPLEX;
    case UFN_COMPLEX128: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
    }
}

static void apply(void *in, void *inout, int *len, MPI_Datatype *type)
{
    binding *b = NULL;
    int found = 0;
    if (MPI_Type_get_attr(*type, type_key, &b, &found) != MPI_SUCCESS || !found || *len < 0 ||
        ufn_combine_host(b->f, b->dtype, in, inout, (size_t)*len) < 0)
        atomic_fetch_add(&failures, 1);
}

unsigned long ufn_mpi_op_failures(void)
{
    return atomic_load(&failures);
}

static int drop_binding(MPI_Datatype type, int key, void *value, void *extra)
{
    (void)type, (void)key, (void)extra;
    free(value);
    return MPI_SUCCESS;
}

/* ---- operators ------------------------------------------------------------------------ */

static int make(ufn_binary_ufunc f, ufn_dtype dtype, int commutative, ufn_mpi_op *out,
                const char *fn)
{
    MPI_Datatype element = element_type(dtype);
    if (element == MPI_DATATYPE_NULL)
        return ufn_set_error(UFN_ERR_DTYPE, "%s: invalid dtype %d", fn, (int)dtype);
    /* Is f a binary ufunc with a signature T(T, T) for dtype, and host
     * code for it?  (Asking costs nothing: zero elements.) */
    int st = ufn_combine_host(f, dtype, NULL, NULL, 0);
    if (st < 0) {
        const char *why = ufn_error(), *colon = strchr(why, ':');
        return ufn_set_error(st, "%s:%s", fn, colon ? colon + 1 : why);
    }
    pthread_mutex_lock(&lock);
    int rc = type_key != MPI_KEYVAL_INVALID
                 ? MPI_SUCCESS
                 : MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, drop_binding, &type_key, NULL);
    pthread_mutex_unlock(&lock);
    if (rc != MPI_SUCCESS)
        return um_mpi_fail(rc, fn, "MPI_Type_create_keyval");
    binding *b = malloc(sizeof *b);
    if (!b)
        return ufn_set_error(UFN_ERR_NOMEM, "%s: out of host memory", fn);
    *b = (binding){ f, dtype };
    MPI_Datatype type = MPI_DATATYPE_NULL;
    const char *call = "MPI_Type_contiguous";
    rc = MPI_Type_contiguous(1, element, &type);
    if (rc == MPI_SUCCESS && (call = "MPI_Type_commit", rc = MPI_Type_commit(&type)) == MPI_SUCCESS)
        call = "MPI_Type_set_attr", rc = MPI_Type_set_attr(type, type_key, b);
    if (rc != MPI_SUCCESS) {
        free(b);
        if (type != MPI_DATATYPE_NULL)
            MPI_Type_free(&type);
        return um_mpi_fail(rc, fn, call);
    }
    MPI_Op op;
    rc = MPI_Op_create(apply, commutative ? 1 : 0, &op);
    if (rc != MPI_SUCCESS) {
        MPI_Type_free(&type);   /* and with it the binding */
        return um_mpi_fail(rc, fn, "MPI_Op_create");
    }
    *out = (ufn_mpi_op){ op, type };
    return UFN_OK;
}

int ufn_mpi_op_create(ufn_binary_ufunc f, ufn_dtype dtype, int commutative, ufn_mpi_op *op)
{
    static const char fn[] = "ufn_mpi_op_create";
    if (!op)
        return ufn_set_error(UFN_ERR_INVALID, "%s: the operator pointer is NULL", fn);
    int up = 0;
    MPI_Initialized(&up);
    if (!up)
        return ufn_set_error(UFN_ERR_MPI, "%s: MPI is not initialised (call MPI_Init first)", fn);
    return make(f, dtype, commutative, op, fn);
}

int ufn_mpi_op_free(ufn_mpi_op *op)
{
    if (!op)
        return UFN_OK;
    int rc = MPI_SUCCESS;
    if (op->op != MPI_OP_NULL)
        rc = MPI_Op_free(&op->op);
    if (op->type != MPI_DATATYPE_NULL && rc == MPI_SUCCESS)
        rc = MPI_Type_free(&op->type);
    return rc == MPI_SUCCESS ? UFN_OK : um_mpi_fail(rc, "ufn_mpi_op_free", "MPI_Op_free");
}

/* ---- the reductions' operators, kept until MPI_Finalize --------------------------------- */

typedef struct kept {
    struct kept *next;
    ufn_binary_ufunc f;
    ufn_dtype dtype;
    int commutative;
    ufn_mpi_op op;
} kept;

static kept *cache;

static void free_cache(void)
{
    pthread_mutex_lock(&lock);
    kept *list = cache;
    cache = NULL;
    pthread_mutex_unlock(&lock);
    while (list) {
        kept *next = list->next;
        ufn_mpi_op_free(&list->op);
        free(list);
        list = next;
    }
    MPI_Type_free_keyval(&type_key);
}

int um_op(ufn_binary_ufunc f, ufn_dtype dtype, int commutative, ufn_mpi_op *op, const char *fn)
{
    pthread_mutex_lock(&lock);
    kept *k = cache;
    while (k && !(k->f == f && k->dtype == dtype && k->commutative == commutative))
        k = k->next;
    if (k)
        *op = k->op;
    pthread_mutex_unlock(&lock);
    if (k)
        return UFN_OK;
    static atomic_bool registered;
    if (!atomic_exchange(&registered, true)) {
        int st = um_at_finalize(free_cache, fn);
        if (st < 0)
            return st;
    }
    if (!(k = calloc(1, sizeof *k)))
        return ufn_set_error(UFN_ERR_NOMEM, "%s: out of host memory", fn);
    int st = make(f, dtype, commutative, &k->op, fn);
    if (st < 0) {
        free(k);
        return st;
    }
    k->f = f;
    k->dtype = dtype;
    k->commutative = commutative;
    pthread_mutex_lock(&lock);
    k->next = cache;
    cache = k;
    pthread_mutex_unlock(&lock);
    *op = k->op;
    return UFN_OK;
}

/* ---- device pointers ------------------------------------------------------------------------ */

int ufn_mpi_cuda_aware(void)
{
    const char *env = getenv("UFN_MPI_CUDA_AWARE");
    if (env && *env) {
        if (strcmp(env, "0") != 0 && strcmp(env, "1") != 0)
            return ufn_set_error(UFN_ERR_INVALID, "UFN_MPI_CUDA_AWARE=%.40s is neither 1 (pass "
                                 "device arrays to MPI) nor 0 (copy them to the host first)",
                                 env);
        return env[0] == '1';
    }
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_GPU_SUPPORT_CUDA)
    int yes = 0;
    return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS && yes;
#else
    return 0;
#endif
}
