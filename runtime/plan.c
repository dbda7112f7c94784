/* plan.c - simplifying the loop space of a plan.
 *
 * Most calls become one contiguous dimension: size-1 dimensions go, the
 * rest are ordered by stride so that the innermost moves fastest in memory
 * (a Fortran-ordered call is reversed), and neighbours that are contiguous
 * in every operand merge.  The ordering is NumPy's (nditer): a dimension
 * moves outward past another only when every operand that moves along both
 * agrees it has the larger stride.  Broadcast operands (stride 0) do not
 * take part in that vote, and merge with anything.
 */
#include <stdlib.h>

#include "ufnrt.h"

static int64_t iabs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* Should dimension a be outside dimension b?  1 yes, 0 no, -1 no operand says. */
static int outer_of(const ufn_plan *p, int a, int b)
{
    int verdict = -1;
    for (int k = 0; k < p->nargs; k++) {
        int64_t sa = iabs64(p->strides[k][a]), sb = iabs64(p->strides[k][b]);
        if (sa == 0 || sb == 0)
            continue;
        if (sa <= sb)
            return 0;
        verdict = 1;
    }
    return verdict;
}

void ufn_plan_simplify(ufn_plan *p)
{
    int nd = 0;
    int64_t n = 1;
    for (int d = 0; d < p->ndim; d++)
        n *= p->shape[d];
    p->n = n;
    p->contiguous = false;
    if (n == 0) {
        p->ndim = 1;
        p->shape[0] = 0;
        for (int k = 0; k < p->nargs; k++)
            p->strides[k][0] = 0;
        return;
    }

    /* Drop size-1 dimensions. */
    int keep[UFN_MAXDIMS];
    for (int d = 0; d < p->ndim; d++)
        if (p->shape[d] != 1)
            keep[nd++] = d;

    /* Order by stride, outermost first (stable insertion sort). */
    for (int i = 1; i < nd; i++) {
        int cur = keep[i], pos = i;
        for (int j = i - 1; j >= 0; j--) {
            int v = outer_of(p, cur, keep[j]);
            if (v == 0)
                break;
            if (v == 1)
                pos = j;
        }
        for (int j = i; j > pos; j--)
            keep[j] = keep[j - 1];
        keep[pos] = cur;
    }

    /* Apply the order, merging dimensions contiguous in every operand. */
    int64_t shape[UFN_MAXDIMS], old[p->nargs][UFN_MAXDIMS];
    for (int k = 0; k < p->nargs; k++)
        for (int d = 0; d < p->ndim; d++)
            old[k][d] = p->strides[k][d];
    int m = 0;
    for (int i = 0; i < nd; i++) {
        int d = keep[i];
        bool merge = m > 0;
        for (int k = 0; merge && k < p->nargs; k++)
            merge = p->strides[k][m - 1] == old[k][d] * p->shape[d];
        if (merge) {
            shape[m - 1] *= p->shape[d];
            for (int k = 0; k < p->nargs; k++)
                p->strides[k][m - 1] = old[k][d];
            continue;
        }
        shape[m] = p->shape[d];
        for (int k = 0; k < p->nargs; k++)
            p->strides[k][m] = old[k][d];
        m++;
    }
    p->ndim = m;
    for (int d = 0; d < m; d++)
        p->shape[d] = shape[d];

    if (p->ncore == 0) {
        bool contig = m <= 1;
        for (int k = 0; contig && m == 1 && k < p->nargs; k++)
            contig = p->strides[k][0] == 1;
        p->contiguous = contig;
    }
}
