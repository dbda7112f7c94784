/* broadcast.c - NumPy broadcasting for ufuncs and gufuncs.
 *
 * Core dimensions are bound first, by name, from the trailing dimensions of
 * each operand (inputs, then the outputs the caller gave), and checked
 * against fixed sizes and earlier bindings; they never broadcast.  Then the
 * remaining (loop) dimensions of the inputs broadcast together: shapes are
 * right-aligned and a 1 stretches.  Given outputs take part as in NumPy:
 * they may add dimensions to the loop shape but are never stretched
 * themselves.  Messages are NumPy's where it has one.
 */
#include <stdio.h>
#include <string.h>

#include "ufnrt.h"

static int core_ndim(const ufn_func *f, int k)
{
    return f->core_ndim ? f->core_ndim[k] : 0;
}

/* "(3,4)", "(5,)", "()" into buf. */
static const char *shape_str(char *buf, size_t cap, int ndim, const int64_t *shape)
{
    size_t len = 0;
    buf[len++] = '(';
    for (int d = 0; d < ndim && len + 24 < cap; d++)
        len += (size_t)snprintf(buf + len, cap - len, d ? ",%lld" : "%lld", (long long)shape[d]);
    if (ndim == 1 && len + 2 < cap)
        buf[len++] = ',';
    buf[len++] = ')';
    buf[len] = '\0';
    return buf;
}

static const char *operand_name(const ufn_func *f, int k, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s operand %d", k < f->nin ? "Input" : "Output",
             k < f->nin ? k : k - f->nin);
    return buf;
}

static int fail_broadcast(const ufn_func *f, ufn_shapes *s, int status)
{
    char msg[768], sh[200];
    size_t len = 0;
    if (f->ncore == 0) {
        len = (size_t)snprintf(msg, sizeof msg, "operands could not be broadcast together "
                               "with shapes");
        for (int k = 0; k < f->nin + f->nout; k++) {
            const ufn_array *a = s->arg[k];
            if (a && len < sizeof msg)
                len += (size_t)snprintf(msg + len, sizeof msg - len, " %s",
                                        shape_str(sh, sizeof sh, a->ndim, a->shape));
        }
    } else {
        len = (size_t)snprintf(msg, sizeof msg, "operands could not be broadcast together "
                               "with remapped shapes [original->remapped]:");
        for (int k = 0; k < f->nin + f->nout; k++) {
            const ufn_array *a = s->arg[k];
            if (!a || len >= sizeof msg)
                continue;
            len += (size_t)snprintf(msg + len, sizeof msg - len, " %s",
                                    shape_str(sh, sizeof sh, a->ndim, a->shape));
            if (len < sizeof msg)
                len += (size_t)snprintf(msg + len, sizeof msg - len, "->%s",
                                        shape_str(sh, sizeof sh, a->ndim - core_ndim(f, k),
                                                  a->shape));
        }
    }
    return ufn_fail(status, "%s", msg);
}

/* Broadcast operand k's loop dimensions into s->ndim/s->shape; false if
 * they do not fit. */
static bool merge_loop_shape(ufn_shapes *s, const ufn_array *a, int lnd)
{
    if (lnd > s->ndim) {
        int shift = lnd - s->ndim;
        memmove(s->shape + shift, s->shape, (size_t)s->ndim * sizeof s->shape[0]);
        for (int d = 0; d < shift; d++)
            s->shape[d] = 1;
        s->ndim = lnd;
    }
    for (int d = 0; d < lnd; d++) {
        int64_t v = a->shape[d], *r = &s->shape[s->ndim - lnd + d];
        if (*r == 1)
            *r = v;
        else if (v != 1 && v != *r)
            return false;
    }
    return true;
}

int ufn_broadcast(const ufn_func *f, ufn_shapes *s)
{
    int nargs = f->nin + f->nout;
    char who[48], sh[200], sh2[200];
    for (int j = 0; j < f->ncore; j++)
        s->core_size[j] = f->core_fixed ? f->core_fixed[j] : -1;

    /* Core dimensions: enough of them, bound by name, consistent. */
    int off = 0;
    for (int k = 0; k < nargs; off += core_ndim(f, k), k++) {
        const ufn_array *a = s->arg[k];
        int cn = core_ndim(f, k);
        if (!a || cn == 0)
            continue;
        int status = k < f->nin ? UFN_ERR_CORE_DIM : UFN_ERR_OUTPUT;
        if (a->ndim < cn)
            return ufn_fail(status, "%s does not have enough dimensions (has %d, gufunc core "
                            "with signature %s requires %d)", operand_name(f, k, who, sizeof who),
                            a->ndim, f->layout, cn);
        for (int j = 0; j < cn; j++) {
            int name = f->core_dims[off + j];
            int64_t v = a->shape[a->ndim - cn + j];
            if (s->core_size[name] < 0) {
                s->core_size[name] = v;
            } else if (s->core_size[name] != v) {
                return ufn_fail(status, "%s has a mismatch in its core dimension %d, with gufunc "
                                "signature %s (size %lld is different from %lld)",
                                operand_name(f, k, who, sizeof who), j, f->layout, (long long)v,
                                (long long)s->core_size[name]);
            }
        }
    }

    /* Outputs passed empty need every core dimension bound by now. */
    off = 0;
    for (int k = 0; k < nargs; off += core_ndim(f, k), k++) {
        if (k < f->nin || s->arg[k])
            continue;
        for (int j = 0; j < core_ndim(f, k); j++)
            if (s->core_size[f->core_dims[off + j]] < 0)
                return ufn_fail(UFN_ERR_CORE_DIM, "Output operand %d has core dimension %d "
                                "unspecified, with gufunc signature %s", k - f->nin, j, f->layout);
    }

    /* Loop dimensions of the inputs. */
    s->ndim = 0;
    for (int k = 0; k < f->nin; k++) {
        const ufn_array *a = s->arg[k];
        if (!merge_loop_shape(s, a, a->ndim - core_ndim(f, k)))
            return fail_broadcast(f, s, UFN_ERR_SHAPE);
    }
    int in_ndim = s->ndim;
    int64_t in_shape[UFN_MAXDIMS];
    memcpy(in_shape, s->shape, sizeof in_shape);

    /* Given outputs may extend the loop shape, never be stretched. */
    for (int k = f->nin; k < nargs; k++) {
        const ufn_array *a = s->arg[k];
        if (a && !merge_loop_shape(s, a, a->ndim - core_ndim(f, k)))
            return fail_broadcast(f, s, UFN_ERR_OUTPUT);
    }
    for (int k = f->nin; k < nargs; k++) {
        const ufn_array *a = s->arg[k];
        if (!a)
            continue;
        int lnd = a->ndim - core_ndim(f, k);
        bool same = lnd == s->ndim;
        for (int d = 0; same && d < lnd; d++)
            same = a->shape[d] == s->shape[d];
        if (!same)
            return ufn_fail(UFN_ERR_OUTPUT, "non-broadcastable output operand with shape %s "
                            "doesn't match the broadcast shape %s",
                            shape_str(sh, sizeof sh, lnd, a->shape),
                            shape_str(sh2, sizeof sh2, in_ndim, in_shape));
    }

    s->n = 1;
    for (int d = 0; d < s->ndim; d++)
        if (__builtin_mul_overflow(s->n, s->shape[d], &s->n))
            return ufn_fail(UFN_ERR_OVERFLOW, "the broadcast shape %s has more elements than "
                            "int64 can count", shape_str(sh, sizeof sh, s->ndim, s->shape));
    return UFN_OK;
}
