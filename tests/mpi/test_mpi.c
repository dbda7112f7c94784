/* test_mpi - libufnmpi under mpirun (tests/mpi/run.sh runs it on 1, 2 and
 * 4 ranks on the host backend, on 2 and 3 with two simulated GPUs each).
 *
 * Every rank builds the same global arrays from the same generator, keeps
 * its own rows (ufn_mpi_rows) and reduces them across ranks; each result is
 * checked against the sequential answer, computed on every rank from the
 * whole array.  Then the failures: each must be the same status on every
 * rank, with a message, and no rank may hang.
 *
 * Output: rank 0 prints one line per case ("ok" or "FAIL"); a rank that
 * sees a failure prints what it saw, prefixed with its rank.  Exit status 0
 * when every rank passed every case, 1 otherwise.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ufn_mpi.h>

#include "mpi_nohost.h"
#include "mpi_ops.h"

enum { ROWS = 13, COLS = 5, BIG = 1 << 18 };

static int rank, size;
static int failures;           /* of the current case, on this rank */
static int failed_cases;       /* on every rank */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("    rank %d: ", rank);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    failures++;
}

/* A case ends on every rank at once: the worst of the ranks decides. */
static void verdict(const char *what)
{
    int any = 0;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s\n", any ? "FAIL " : "ok   ", what);
    fflush(stdout);
    failed_cases += any != 0;
    failures = 0;
}

#define CHECK_OK(call)                                                                  \
    do {                                                                                \
        int st_ = (call);                                                               \
        if (st_ != 0)                                                                   \
            fail("%s: %s: %s", #call, ufn_status_name(st_), ufn_error());               \
    } while (0)

/* A refusal: `want` on every rank, with a message containing `text`. */
static void refused(int st, int want, const char *text, const char *what)
{
    if (st != want)
        fail("%s: %s, expected %s (%s)", what, ufn_status_name(st), ufn_status_name(want),
             ufn_error());
    else if (!strstr(ufn_error(), text))
        fail("%s: the message \"%s\" does not say \"%s\"", what, ufn_error(), text);
}

/* ---- an MPI error on one rank ------------------------------------------------------------
 * MPI's profiling interface: these MPI_Allreduce and MPI_Reduce take the
 * place of MPI's for every caller in this program, the static libufnmpi
 * included, and call PMPI_Allreduce and PMPI_Reduce.  Armed (fail_rank is
 * a rank), the next reduction of ufunc data on that rank - a datatype of
 * the library's, not the MPI_INT or MPI_INT64_T of its agreements -
 * completes and then fails as MPI fails: through the communicator's error
 * handler, which would abort the job had the library not set
 * MPI_ERRORS_RETURN on its duplicate, then with the error code. */
static int fail_rank = -1;

static int injected(int rc, MPI_Datatype type, MPI_Comm comm)
{
    if (rc != MPI_SUCCESS || rank != fail_rank || type == MPI_INT || type == MPI_INT64_T)
        return rc;
    fail_rank = -1;
    MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
}

int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    return injected(PMPI_Allreduce(send, recv, count, type, op, comm), type, comm);
}

int MPI_Reduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    return injected(PMPI_Reduce(send, recv, count, type, op, root, comm), type, comm);
}

/* ---- data ------------------------------------------------------------------------------ */

static int64_t ints[ROWS][COLS];
static double reals[ROWS][COLS];
static float floats[ROWS][COLS];

static void make_data(void)
{
    uint64_t s = 12345;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            ints[r][c] = (int64_t)(s >> 40) - (1 << 23);
            reals[r][c] = (double)(s >> 11) * 0x1p-53 * 20 - 10;
            floats[r][c] = (float)reals[r][c] * (c % 2 ? 1 : -1);
        }
}

/* This rank's rows of a (ROWS, COLS) global array, as a host view. */
static ufn_array my_rows(void *base, ufn_dtype t, int64_t rows)
{
    int64_t first = 0, count = 0;
    if (ufn_mpi_rows(rows, MPI_COMM_WORLD, &first, &count) != 0)
        fail("ufn_mpi_rows: %s", ufn_error());
    int64_t shape[2] = { count, COLS };
    size_t row = COLS * (size_t)ufn_dtype_size(t);
    return ufn_host((char *)base + (size_t)first * row, t, 2, shape);
}

/* The result on the host (copied when it is on a device). */
static void *host_of(ufn_array *out, ufn_array *copy)
{
    if (out->memory == UFN_MEM_HOST)
        return out->data;
    *copy = (ufn_array){ 0 };
    CHECK_OK(ufn_copy_to_host(out, copy));
    return copy->data;
}

/* ---- results ------------------------------------------------------------------------------ */

static void test_rows(void)
{
    int64_t first = -1, count = -1, total = 0, expect_first = 0, expect_count = 0;
    CHECK_OK(ufn_mpi_rows(ROWS, MPI_COMM_WORLD, &first, &count));
    ufn_block_range(ROWS, size, rank, &expect_first, &expect_count);
    if (first != expect_first || count != expect_count)
        fail("rows %lld+%lld, expected %lld+%lld", (long long)first, (long long)count,
             (long long)expect_first, (long long)expect_count);
    MPI_Allreduce(&count, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (total != ROWS)
        fail("the ranks own %lld rows of %d", (long long)total, ROWS);
    verdict("ufn_mpi_rows: a block distribution of the rows over the ranks");
}

static void test_int_sum(void)
{
    ufn_array local = my_rows(ints, UFN_INT64, ROWS), out = { 0 };
    CHECK_OK(ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_WORLD));
    if (out.ndim != 1 || out.shape[0] != COLS || out.dtype != UFN_INT64)
        fail("result of %d dimensions, %lld elements", out.ndim, (long long)out.shape[0]);
    else
        for (int c = 0; c < COLS; c++) {
            int64_t want = 0;
            for (int r = 0; r < ROWS; r++)
                want += ints[r][c];
            if (((int64_t *)out.data)[c] != want)
                fail("column %d: %lld, expected %lld", c, (long long)((int64_t *)out.data)[c],
                     (long long)want);
        }
    ufn_free(&out);
    verdict("ufn_mpi_allreduce(plus): an exact int64 sum on every rank");
}

/* first(a, b) = a: the reduction of rows in order is row 0.  MPI reorders
 * the ranks of a commutative operator; this one must not be. */
static void test_order(void)
{
    for (int root = 0; root < size; root++) {
        ufn_array local = my_rows(ints, UFN_INT64, ROWS), out = { 0 };
        CHECK_OK(ufn_mpi_reduce(first, &local, &out, root, MPI_COMM_WORLD));
        if (rank != root && out.memory != UFN_MEM_NONE)
            fail("rank %d is not the root (%d) and got a result", rank, root);
        if (rank == root)
            for (int c = 0; c < COLS && out.data; c++)
                if (((int64_t *)out.data)[c] != ints[0][c])
                    fail("root %d, column %d: %lld, expected row 0's %lld", root, c,
                         (long long)((int64_t *)out.data)[c], (long long)ints[0][c]);
        ufn_free(&out);
    }
    verdict("ufn_mpi_reduce(first) to each root: the ranks combined in rank order");
}

static void test_logaddexp(void)
{
    ufn_array local = my_rows(reals, UFN_FLOAT64, ROWS), out = { 0 };
    CHECK_OK(ufn_mpi_allreduce(logaddexp, &local, &out, MPI_COMM_WORLD));
    for (int c = 0; c < COLS && out.data; c++) {
        double s = 0;
        for (int r = 0; r < ROWS; r++)
            s += exp(reals[r][c]);
        double got = ((double *)out.data)[c];
        if (!(fabs(got - log(s)) <= 1e-12 * fabs(log(s)) + 1e-13))
            fail("column %d: %.17g, expected %.17g", c, got, log(s));
    }
    ufn_free(&out);
    verdict("ufn_mpi_allreduce(logaddexp): a user's operator, float64");
}

/* max_abs of float32 rows held as `kind`: a device array, or sharded over
 * the rank's devices; the result comes back in the same memory. */
static void device_case(const char *kind, const char *cuda_aware)
{
    setenv("UFN_MPI_CUDA_AWARE", cuda_aware, 1);
    ufn_array host = my_rows(floats, UFN_FLOAT32, ROWS), local = { 0 }, out = { 0 };
    ufn_array copy = { 0 };
    CHECK_OK(strcmp(kind, "sharded") == 0 ? ufn_to_device_sharded(&host, &local)
                                          : ufn_to_device(&host, &local));
    CHECK_OK(ufn_mpi_allreduce(max_abs, &local, &out, MPI_COMM_WORLD));
    if (out.memory == UFN_MEM_HOST && strcmp(ufn_backend(), "host") != 0)
        fail("a %s array's result is in host memory", kind);
    const float *got = out.data ? host_of(&out, &copy) : NULL;
    for (int c = 0; c < COLS && got; c++) {
        float want = 0;
        for (int r = 0; r < ROWS; r++)
            want = fmaxf(want, fabsf(floats[r][c]));
        if (got[c] != want)
            fail("%s, column %d: %g, expected %g", kind, c, got[c], want);
    }
    ufn_free(&copy);
    ufn_free(&out);
    ufn_free(&local);
    unsetenv("UFN_MPI_CUDA_AWARE");
    char what[160];
    snprintf(what, sizeof what, "ufn_mpi_allreduce(max_abs) of a %s array, %s", kind,
             cuda_aware[0] == '1' ? "device pointers given to MPI (UFN_MPI_CUDA_AWARE=1)"
                                  : "through host memory");
    verdict(what);
}

/* Whether MPI takes device pointers: asked of the MPI library (Debian's
 * Open MPI says no; a CUDA-aware one yes), or told by UFN_MPI_CUDA_AWARE. */
static void test_cuda_aware(void)
{
    int asked = ufn_mpi_cuda_aware();
    if (asked != 0 && asked != 1)
        fail("ufn_mpi_cuda_aware() = %d: %s", asked, ufn_error());
    setenv("UFN_MPI_CUDA_AWARE", "1", 1);
    if (ufn_mpi_cuda_aware() != 1)
        fail("UFN_MPI_CUDA_AWARE=1 is not obeyed");
    setenv("UFN_MPI_CUDA_AWARE", "0", 1);
    if (ufn_mpi_cuda_aware() != 0)
        fail("UFN_MPI_CUDA_AWARE=0 is not obeyed");
    setenv("UFN_MPI_CUDA_AWARE", "2", 1);
    refused(ufn_mpi_cuda_aware(), UFN_ERR_INVALID, "UFN_MPI_CUDA_AWARE=2 is neither",
            "UFN_MPI_CUDA_AWARE=2");
    unsetenv("UFN_MPI_CUDA_AWARE");
    if (rank == 0)
        printf("      (this MPI library %s device pointers)\n", asked == 1 ? "takes" : "does not take");
    verdict("ufn_mpi_cuda_aware: the MPI library's answer, or UFN_MPI_CUDA_AWARE's");
}

/* Some ranks have no rows (1 row over every rank): they take no part, and
 * still receive the result. */
static void test_empty_ranks(void)
{
    ufn_array local = my_rows(ints, UFN_INT64, 1), out = { 0 };
    CHECK_OK(ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_WORLD));
    for (int c = 0; c < COLS && out.data; c++)
        if (((int64_t *)out.data)[c] != ints[0][c])
            fail("column %d: %lld, expected %lld", c, (long long)((int64_t *)out.data)[c],
                 (long long)ints[0][c]);
    ufn_free(&out);
    int root = size - 1;
    local = my_rows(ints, UFN_INT64, 1);
    CHECK_OK(ufn_mpi_reduce(first, &local, &out, root, MPI_COMM_WORLD));
    if ((rank == root) != (out.memory != UFN_MEM_NONE))
        fail("reduce to rank %d: rank %d %s a result", root, rank, out.data ? "got" : "lacks");
    else if (rank == root && ((int64_t *)out.data)[0] != ints[0][0])
        fail("reduce to rank %d: %lld", root, (long long)((int64_t *)out.data)[0]);
    ufn_free(&out);
    verdict("one row over every rank: ranks without rows receive the result");
}

/* An operator used by the program's own MPI calls, on a message large
 * enough for MPI to cut into segments (each a whole number of elements). */
static void test_op_create(void)
{
    static double in[BIG], sum[BIG];
    for (int i = 0; i < BIG; i++)
        in[i] = (double)(rank + 1) * i;
    ufn_mpi_op op = { MPI_OP_NULL, MPI_DATATYPE_NULL };
    CHECK_OK(ufn_mpi_op_create(plus, UFN_FLOAT64, 1, &op));
    unsigned long before = ufn_mpi_op_failures();
    int rc = MPI_Allreduce(in, sum, BIG, op.type, op.op, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        fail("MPI_Allreduce with the operator: %d", rc);
    double ranks = (double)size * (size + 1) / 2;
    for (int i = 0; i < BIG && rc == MPI_SUCCESS; i++)
        if (sum[i] != ranks * i) {
            fail("element %d: %g, expected %g", i, sum[i], ranks * i);
            break;
        }
    if (ufn_mpi_op_failures() != before)
        fail("the operator failed %lu times", ufn_mpi_op_failures() - before);
    CHECK_OK(ufn_mpi_op_free(&op));
    if (op.op != MPI_OP_NULL || op.type != MPI_DATATYPE_NULL)
        fail("ufn_mpi_op_free left the handles set");
    /* refused: a dtype f has no loop for, a module without host code */
    refused(ufn_mpi_op_create(plus, UFN_FLOAT32, 1, &op), UFN_ERR_DTYPE, "no signature",
            "plus on float32");
    refused(ufn_mpi_op_create(nohost_plus, UFN_FLOAT64, 1, &op), UFN_ERR_NO_CODE,
            "ufn_mpi_op_create: nohost_plus: the module has no host code", "no host code");
    refused(ufn_mpi_op_create(dot, UFN_FLOAT64, 1, &op), UFN_ERR_INVALID,
            "is not a binary ufunc", "a gufunc");
    verdict("ufn_mpi_op_create: an MPI_Op for MPI_Allreduce, 2 MiB per rank");
}

/* ---- failures, the same on every rank ---------------------------------------------------- */

static void test_disagree(void)
{
    /* rank 1 holds rows of 4 columns, the others of 5 */
    int64_t shape[2] = { 2, rank == 1 ? COLS - 1 : COLS };
    ufn_array local = ufn_host(reals, UFN_FLOAT64, 2, shape), out = { 0 };
    int st = ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_WORLD);
    if (size > 1 && out.memory != UFN_MEM_NONE)
        fail("a refused reduction left a result");
    if (size > 1)
        refused(st, UFN_ERR_SHAPE, "rank 1 has (2, 4) float64", "shapes differ");
    ufn_free(&out);
    /* the same to a root: every rank fails, the root included */
    st = ufn_mpi_reduce(plus, &local, &out, 0, MPI_COMM_WORLD);
    if (size > 1)
        refused(st, UFN_ERR_SHAPE, "rank 1 has (2, 4) float64", "shapes differ, reduce");
    if (size > 1 && out.memory != UFN_MEM_NONE)
        fail("a refused reduce left a result");
    ufn_free(&out);
    /* and the dtype */
    int64_t rows[2] = { 2, COLS };
    local = ufn_host(rank == size - 1 ? (void *)ints : (void *)reals,
                     rank == size - 1 ? UFN_INT64 : UFN_FLOAT64, 2, rows);
    st = ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_WORLD);
    if (size > 1)
        refused(st, UFN_ERR_SHAPE, "int64", "dtypes differ");
    ufn_free(&out);
    verdict("shards that disagree (allreduce, reduce): UFN_ERR_SHAPE on every rank, each rank's "
            "shard named");
}

static void test_refused(void)
{
    ufn_array local = my_rows(reals, UFN_FLOAT64, ROWS), out = { 0 };
    /* rank 0 passes a result array that is not empty */
    int64_t n = 1;
    double one = 0;
    ufn_array full = ufn_host(&one, UFN_FLOAT64, 1, &n);
    int st = ufn_mpi_allreduce(plus, &local, rank == 0 ? &full : &out, MPI_COMM_WORLD);
    refused(st, UFN_ERR_OUTPUT, rank == 0 ? "must be passed empty" : "another rank's arguments",
            "one rank's output refused");
    refused(ufn_mpi_reduce(plus, &local, &out, size, MPI_COMM_WORLD), UFN_ERR_INVALID,
            "no rank", "a root out of range");
    refused(ufn_mpi_allreduce(nohost_plus, &local, &out, MPI_COMM_WORLD), UFN_ERR_NO_CODE,
            "ufn_mpi_allreduce: nohost_plus: the module has no host code", "an operator without host code");
    refused(ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_NULL), UFN_ERR_INVALID,
            "MPI_COMM_NULL", "MPI_COMM_NULL");
    int64_t none_shape[2] = { 0, COLS };
    ufn_array none = ufn_host(reals, UFN_FLOAT64, 2, none_shape);
    refused(ufn_mpi_allreduce(plus, &none, &out, MPI_COMM_WORLD), UFN_ERR_SHAPE,
            "ufn_mpi_allreduce:", "no rows on any rank");
    setenv("UFN_MPI_CUDA_AWARE", "yes", 1);
    refused(ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_WORLD), UFN_ERR_INVALID,
            "UFN_MPI_CUDA_AWARE=yes", "UFN_MPI_CUDA_AWARE=yes");
    unsetenv("UFN_MPI_CUDA_AWARE");
    /* and the next call works */
    CHECK_OK(ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_WORLD));
    ufn_free(&out);
    verdict("refused arguments: the same status on every rank, and no rank hangs");
}

/* An MPI call that fails on the last rank, in the middle of a reduction
 * (allreduce, then reduce to rank 0): UFN_ERR_MPI on every rank, no abort,
 * the failing rank naming the call, the others saying another rank failed,
 * no result left anywhere; and the next reduction works. */
static void test_mpi_error(void)
{
    ufn_array local = my_rows(reals, UFN_FLOAT64, ROWS), out = { 0 };
    bool me = rank == size - 1;
    const char *mine[2] = { "ufn_mpi_allreduce: MPI_Allreduce failed: ",
                            "ufn_mpi_reduce: MPI_Reduce failed: " };
    for (int k = 0; k < 2; k++) {
        fail_rank = size - 1;
        int st = k == 0 ? ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_WORLD)
                        : ufn_mpi_reduce(plus, &local, &out, 0, MPI_COMM_WORLD);
        refused(st, UFN_ERR_MPI, me ? mine[k] : "the reduction failed (UFN_ERR_MPI on another rank)",
                k == 0 ? "MPI_Allreduce failed on the last rank" : "MPI_Reduce failed on the last rank");
        if (me && fail_rank != -1)
            fail("%s: no reduction of ufunc data reached MPI on this rank", k ? "reduce" : "allreduce");
        if (out.memory != UFN_MEM_NONE)
            fail("a failed reduction left a result");
        fail_rank = -1;
        ufn_free(&out);
    }
    CHECK_OK(ufn_mpi_allreduce(plus, &local, &out, MPI_COMM_WORLD));
    ufn_free(&out);
    verdict("an MPI error on one rank: UFN_ERR_MPI on every rank, no abort");
}

/* The library talks on a duplicate of the program's communicator, with
 * its own error handler; the program's stays as it was, and freeing the
 * program's communicator frees the duplicate. */
static void test_communicators(void)
{
    MPI_Errhandler h;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h);
    if (h != MPI_ERRORS_ARE_FATAL)
        fail("MPI_COMM_WORLD's error handler was changed");
    MPI_Errhandler_free(&h);
    MPI_Comm odd;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &odd);
    int64_t shape[2] = { rank % 2 ? 1 : 2, COLS };
    ufn_array local = ufn_host(ints[rank], UFN_INT64, 2, shape), out = { 0 };
    for (int i = 0; i < 3; i++) {
        CHECK_OK(ufn_mpi_allreduce(first, &local, &out, odd));
        for (int c = 0; c < COLS && out.data; c++)
            if (((int64_t *)out.data)[c] != ints[rank % 2][c])
                fail("column %d: %lld, expected %lld", c, (long long)((int64_t *)out.data)[c],
                     (long long)ints[rank % 2][c]);
        ufn_free(&out);
    }
    MPI_Comm_free(&odd);
    verdict("a communicator of the program's: used, then freed with the library's duplicate");
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("test_mpi: %d ranks, the %s backend, %d device(s) each\n", size, ufn_backend(),
               ufn_device_count());
    make_data();
    test_rows();
    test_int_sum();
    test_order();
    test_logaddexp();
    test_cuda_aware();
    device_case("device", "0");
    device_case("device", "1");
    device_case("sharded", "0");
    device_case("sharded", "1");
    test_empty_ranks();
    test_op_create();
    test_disagree();
    test_refused();
    test_mpi_error();
    test_communicators();
    if (rank == 0)
        printf("test_mpi: %d case(s) failed\n", failed_cases);
    MPI_Finalize();
    return failed_cases != 0;
}
