/* ufn_mpi.h - ufunc calls across the ranks of an MPI job (libufnmpi).
 *
 * Built with libufnrt when an MPI is installed (Open MPI from Debian's
 * openmpi-bin and libopenmpi-dev; any MPI 3 should do).  Compile with the
 * MPI's compiler and link both libraries:
 *
 *     mpicc main.c layer.o $(pkg-config --cflags --libs ufn-mpi)
 *
 * The model: every array is distributed by its first dimension, in the
 * block distribution of ufn_block_range over the ranks of a communicator in
 * rank order - rank r owns `count` rows from row `first`, as ufn_mpi_rows
 * says - and each rank holds its rows as an ordinary array: host, device or
 * sharded over the rank's own GPUs.  Element-wise calls and gufuncs over
 * local rows need no communication: call the ufuncs on the local arrays.
 * What crosses ranks is a reduction along the first dimension,
 * ufn_mpi_reduce and ufn_mpi_allreduce, with an MPI operator made from the
 * ufunc itself (ufn_mpi_op_create), so any binary ufunc - a user's
 * logaddexp or max_abs - reduces across ranks as it does across rows.
 *
 * Initialising MPI is the program's (MPI_Init or MPI_Init_thread, before
 * any call here; MPI_Finalize after the last).  On first use of a
 * communicator the library duplicates it for itself (MPI_Comm_dup, a
 * collective call) and sets MPI_ERRORS_RETURN on the duplicate, so an MPI
 * failure is a status, UFN_ERR_MPI, not an abort.  The reductions are
 * collective: every rank of the communicator calls them in the same order,
 * and every rank returns the same status - when one rank's arguments are
 * refused, its shard's shape differs from the others', or an MPI call or
 * the operator fails on one rank, every rank fails, each with a message
 * (ufn_error()) that says why.  Calls from several threads of one rank at
 * once need MPI_THREAD_MULTIPLE (MPI_Init_thread), as any MPI call does.
 * See ufn(3), section MPI.
 */
#ifndef UFN_MPI_H
#define UFN_MPI_H

#include <mpi.h>

#include "ufn.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* The rows of an n-row array that the calling rank owns: `count` rows from
 * row `first` (ufn_block_range over the ranks of comm). */
int ufn_mpi_rows(int64_t n, MPI_Comm comm, int64_t *first, int64_t *count);

/* An MPI reduction operator made from a binary ufunc for one dtype: `op`
 * computes inout[i] = f(in[i], inout[i]) with f's host loop
 * (ufn_combine_host), on elements of the committed datatype `type` (one
 * element of the dtype: never MPI_BYTE, whose pieces MPI may split
 * mid-element).  Pass both to MPI_Reduce, MPI_Allreduce, MPI_Scan...; the
 * operator reads which ufunc to apply from the datatype, so it is used
 * with `type` only.  f must be associative; `commutative` (0 or 1) allows
 * MPI to reorder the ranks' contributions too.  An operator cannot return
 * an error to MPI: a failure of f (a module without host code) is counted,
 * and the reductions below report it; a program that calls MPI itself
 * checks ufn_mpi_op_failures(). */
typedef struct ufn_mpi_op {
    MPI_Op op;
    MPI_Datatype type;
} ufn_mpi_op;

int ufn_mpi_op_create(ufn_binary_ufunc f, ufn_dtype dtype, int commutative, ufn_mpi_op *op);
int ufn_mpi_op_free(ufn_mpi_op *op);
/* How many times an operator made here failed, in this process. */
unsigned long ufn_mpi_op_failures(void);

/* Reduce the distributed array whose rows this rank holds in `local` along
 * its first dimension with f: each rank folds its own rows (ufn_fold), then
 * the ranks' results are combined in rank order by MPI with f's operator
 * (not commutative: the order of the rows is kept).  `out` is passed empty
 * and receives the result - the array's shape without its first dimension
 * - in host memory when `local` is a host array, else in device memory on
 * the default device (UFN_DEVICE): on every rank (allreduce), or on `root`
 * only (reduce; elsewhere out stays empty).  Every rank's local array must have
 * the same dtype and the same shape but for its first dimension; ranks
 * with no rows take no part, and with no rows anywhere the reduction has
 * no identity (UFN_ERR_SHAPE).  Device results go to MPI as device
 * pointers when the MPI library takes them (ufn_mpi_cuda_aware), else
 * through host memory.  The result of a float sum depends on the number of
 * ranks (and of devices), as MPI's own reductions do. */
int ufn_mpi_reduce(ufn_binary_ufunc f, const ufn_array *local, ufn_array *out, int root,
                   MPI_Comm comm);
int ufn_mpi_allreduce(ufn_binary_ufunc f, const ufn_array *local, ufn_array *out,
                      MPI_Comm comm);

/* Does the MPI library take device pointers (CUDA-aware)?  Open MPI says
 * so through MPIX_Query_cuda_support(), MPICH through
 * MPIX_GPU_query_support(); UFN_MPI_CUDA_AWARE=1 or 0 overrides the answer
 * (1 for an MPI that cannot be asked, such as MVAPICH2-GDR with
 * MV2_USE_CUDA=1).  Call after MPI_Init. */
int ufn_mpi_cuda_aware(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* UFN_MPI_H */
