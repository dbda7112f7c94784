/* mpi_int.h - libufnmpi's internal header.  Its files, from the bottom:
 *
 *   mpi_comm.c     the library's own duplicate of each communicator (with
 *                  MPI_ERRORS_RETURN), MPI failures as statuses, agreement
 *                  of every rank on one status, the cleanup at MPI_Finalize
 *   mpi_op.c       MPI operators and datatypes made from binary ufuncs, and
 *                  whether the MPI library takes device pointers
 *   mpi_reduce.c   the distribution of rows over ranks, and the reductions
 *
 * Failures are reported with libufnrt's ufn_set_error, so that a program
 * reads every message with ufn_error().
 */
#ifndef UFN_MPI_INT_H
#define UFN_MPI_INT_H

#include "ufn_mpi.h"

/* ---- mpi_comm.c ------------------------------------------------------------------- */

/* The library's duplicate of comm (made on first use: collective). */
int um_inner(MPI_Comm comm, MPI_Comm *inner, const char *fn);
/* A failed MPI call (rc) as UFN_ERR_MPI, with MPI's own words. */
int um_mpi_fail(int rc, const char *fn, const char *call);
/* Every rank's status, agreed: the worst (most negative) on every rank.
 * A rank whose own status is fine gets `others` as its message, with the
 * status's name.  Returns the agreed status (UFN_OK when all were). */
int um_agree(MPI_Comm inner, int status, const char *fn, const char *others);
/* Run `cleanup` once, at the beginning of MPI_Finalize (an attribute of
 * MPI_COMM_SELF, deleted first thing there). */
int um_at_finalize(void (*cleanup)(void), const char *fn);

/* ---- mpi_op.c ------------------------------------------------------------------- */

/* The operator of (f, dtype), made once and kept until MPI_Finalize;
 * commutative ones are cached apart from the others. */
int um_op(ufn_binary_ufunc f, ufn_dtype dtype, int commutative, ufn_mpi_op *op,
          const char *fn);

#endif /* UFN_MPI_INT_H */
