/* dispatch.c - choosing a ufunc's signature ("loop") from the input dtypes.
 *
 * NumPy's rule, with NumPy's argument order (Numba's guvectorize tests the
 * cast the wrong way round): the first loop, in declaration order, whose
 * input types every input matches exactly; failing that, the first loop that
 * every input can be cast to safely (np.can_cast(input, loop_type, 'safe')).
 *
 * Weak scalars (UFN_WEAK, the ufn_scalar_*() values) follow NEP 50: they do
 * not take part in the choice except by kind - a weak bool fits any loop, a
 * weak integer an integer, float or complex loop, a weak float a float or
 * complex loop, a weak complex only a complex loop - and a weak integer
 * must fit the chosen integer type ("Python integer 300 out of bounds for
 * uint8").  When every input is weak they are chosen by their own dtypes.
 */
#include <stdio.h>
#include <string.h>

#include "ufnrt.h"

bool ufn_is_weak(const ufn_array *a)
{
    return (a->flags & UFN_WEAK) != 0;
}

static bool weak_fits(ufn_dtype have, ufn_dtype loop)
{
    ufn_kind hk = ufn_dtype_kind(have), lk = ufn_dtype_kind(loop);
    switch (hk) {
    case UFN_KIND_BOOL: return true;
    case UFN_KIND_INT:
    case UFN_KIND_UINT: return lk != UFN_KIND_BOOL;
    case UFN_KIND_FLOAT: return lk == UFN_KIND_FLOAT || lk == UFN_KIND_COMPLEX;
    case UFN_KIND_COMPLEX: return lk == UFN_KIND_COMPLEX;
    }
    return false;
}

static bool matches(const ufn_func *f, const ufn_loop *lp, const ufn_array *const *in,
                    bool all_weak, bool safe)
{
    for (int k = 0; k < f->nin; k++) {
        ufn_dtype have = in[k]->dtype, want = lp->types[k];
        bool ok;
        if (ufn_is_weak(in[k]) && !all_weak)
            ok = weak_fits(have, want);
        else
            ok = safe ? ufn_can_cast_safe(have, want) : have == want;
        if (!ok)
            return false;
    }
    return true;
}

/* A weak integer's value must fit an integer loop type. */
static int check_weak_value(const ufn_array *a, ufn_dtype want, int k)
{
    ufn_kind hk = ufn_dtype_kind(a->dtype), wk = ufn_dtype_kind(want);
    if ((hk != UFN_KIND_INT && hk != UFN_KIND_UINT) ||
        (wk != UFN_KIND_INT && wk != UFN_KIND_UINT))
        return UFN_OK;
    /* Read the value as int64 or uint64. */
    unsigned char buf[8];
    bool neg = false;
    uint64_t mag;
    ufn_dtype wide = hk == UFN_KIND_INT ? UFN_INT64 : UFN_UINT64;
    ufn_convert(buf, wide, 0, ufn_array_ptr(a), a->dtype, 0, 1);
    if (hk == UFN_KIND_INT) {
        int64_t v;
        memcpy(&v, buf, 8);
        neg = v < 0;
        mag = neg ? (uint64_t)-(v + 1) + 1 : (uint64_t)v;
    } else {
        memcpy(&mag, buf, 8);
    }
    int bits = ufn_dtype_size(want) * 8;
    bool fits;
    if (wk == UFN_KIND_UINT)
        fits = !neg && (bits == 64 || mag < ((uint64_t)1 << bits));
    else if (neg)
        fits = mag <= ((uint64_t)1 << (bits - 1));
    else
        fits = mag < ((uint64_t)1 << (bits - 1));
    if (fits)
        return UFN_OK;
    return ufn_fail(UFN_ERR_OVERFLOW, "input %d: Python integer %s%llu out of bounds for %s", k,
                    neg ? "-" : "", (unsigned long long)mag, ufn_dtype_name(want));
}

int ufn_choose_loop(const ufn_func *f, const ufn_array *const *in)
{
    bool all_weak = true;
    for (int k = 0; k < f->nin; k++)
        all_weak = all_weak && ufn_is_weak(in[k]);
    int chosen = -1;
    for (int round = 0; round < 2 && chosen < 0; round++)
        for (int l = 0; l < f->nloops && chosen < 0; l++)
            if (matches(f, &f->loops[l], in, all_weak, round == 1))
                chosen = l;
    if (chosen >= 0) {
        for (int k = 0; k < f->nin; k++)
            if (ufn_is_weak(in[k]) && !all_weak) {
                int st = check_weak_value(in[k], f->loops[chosen].types[k], k);
                if (st < 0)
                    return st;
            }
        return chosen;
    }
    char msg[1024];
    size_t len = (size_t)snprintf(msg, sizeof msg, "no signature matches the input types (");
    for (int k = 0; k < f->nin && len < sizeof msg; k++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s%s", k ? ", " : "",
                                ufn_is_weak(in[k]) && !all_weak ? "weak " : "",
                                ufn_dtype_name(in[k]->dtype));
    if (len < sizeof msg)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "); the signatures are:");
    for (int l = 0; l < f->nloops && len < sizeof msg; l++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %s", l ? "," : "",
                                f->loops[l].signature ? f->loops[l].signature : "?");
    return ufn_fail(UFN_ERR_DTYPE, "%s", msg);
}
