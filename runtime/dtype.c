/* dtype.c - element types: sizes, names, kinds, NumPy's casting rules and
 * the element conversion used for temporaries.
 *
 * Conversion rules (the same as generated code): float to integer truncates
 * and saturates, NaN becomes 0; integer to narrower integer wraps (two's
 * complement); anything to bool is `!= 0` (NaN is true); complex to real
 * drops the imaginary part; real to complex has imaginary part 0.
 */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "ufnrt.h"

static const struct {
    const char *name;
    int size;
    ufn_kind kind;
} dtypes[UFN_NUM_DTYPES] = {
    [UFN_BOOL] = {"bool", 1, UFN_KIND_BOOL},
    [UFN_INT8] = {"int8", 1, UFN_KIND_INT},
    [UFN_INT16] = {"int16", 2, UFN_KIND_INT},
    [UFN_INT32] = {"int32", 4, UFN_KIND_INT},
    [UFN_INT64] = {"int64", 8, UFN_KIND_INT},
    [UFN_UINT8] = {"uint8", 1, UFN_KIND_UINT},
    [UFN_UINT16] = {"uint16", 2, UFN_KIND_UINT},
    [UFN_UINT32] = {"uint32", 4, UFN_KIND_UINT},
    [UFN_UINT64] = {"uint64", 8, UFN_KIND_UINT},
    [UFN_FLOAT32] = {"float32", 4, UFN_KIND_FLOAT},
    [UFN_FLOAT64] = {"float64", 8, UFN_KIND_FLOAT},
    [UFN_COMPLEX64] = {"complex64", 8, UFN_KIND_COMPLEX},
    [UFN_COMPLEX128] = {"complex128", 16, UFN_KIND_COMPLEX},
};

bool ufn_dtype_valid(int dtype)
{
    return dtype >= 0 && dtype < UFN_NUM_DTYPES;
}

int ufn_dtype_size(ufn_dtype dtype)
{
    return ufn_dtype_valid(dtype) ? dtypes[dtype].size : -1;
}

const char *ufn_dtype_name(ufn_dtype dtype)
{
    return ufn_dtype_valid(dtype) ? dtypes[dtype].name : NULL;
}

ufn_kind ufn_dtype_kind(ufn_dtype dtype)
{
    return dtypes[dtype].kind;
}

int ufn_dtype_align(ufn_dtype dtype)
{
    /* A complex number is aligned as its parts are, as in C and NumPy. */
    int size = dtypes[dtype].size;
    return dtypes[dtype].kind == UFN_KIND_COMPLEX ? size / 2 : size;
}

/* np.can_cast(from, to, 'safe'); tests/unit/runtime check it against NumPy. */
bool ufn_can_cast_safe(ufn_dtype from, ufn_dtype to)
{
    if (!ufn_dtype_valid(from) || !ufn_dtype_valid(to))
        return false;
    if (from == to)
        return true;
    ufn_kind fk = dtypes[from].kind, tk = dtypes[to].kind;
    int fs = dtypes[from].size, ts = dtypes[to].size;
    switch (fk) {
    case UFN_KIND_BOOL:
        return true;
    case UFN_KIND_INT:
    case UFN_KIND_UINT:
        if (tk == UFN_KIND_INT)
            return fk == UFN_KIND_INT ? ts >= fs : ts > fs;
        if (tk == UFN_KIND_UINT)
            return fk == UFN_KIND_UINT && ts >= fs;
        if (tk == UFN_KIND_FLOAT)
            return ts == 8 || fs <= 2;          /* float32 holds 16-bit integers */
        if (tk == UFN_KIND_COMPLEX)
            return ts == 16 || fs <= 2;
        return false;
    case UFN_KIND_FLOAT:
        if (tk == UFN_KIND_FLOAT)
            return ts >= fs;
        return tk == UFN_KIND_COMPLEX && ts >= 2 * fs;
    case UFN_KIND_COMPLEX:
        return tk == UFN_KIND_COMPLEX && ts >= fs;
    }
    return false;
}

/* np.can_cast(from, to, 'same_kind'): safe, or to a kind at least as high
 * (bool < unsigned < signed < float < complex). */
bool ufn_can_cast_same_kind(ufn_dtype from, ufn_dtype to)
{
    if (!ufn_dtype_valid(from) || !ufn_dtype_valid(to))
        return false;
    return ufn_can_cast_safe(from, to) || dtypes[from].kind <= dtypes[to].kind;
}

/* ---- conversion ------------------------------------------------------------------
 * Elements go through one of four canonical forms (int64, uint64, double,
 * double complex) in blocks, so that each inner loop is a plain typed loop. */

#define BLOCK 256

typedef union canon {
    int64_t i[BLOCK];
    uint64_t u[BLOCK];
    double f[BLOCK];
    double _Complex c[BLOCK];
} canon;

typedef enum { C_INT, C_UINT, C_FLOAT, C_COMPLEX } canon_kind;

static canon_kind canon_of(ufn_dtype t)
{
    switch (dtypes[t].kind) {
    case UFN_KIND_BOOL:
    case UFN_KIND_INT: return C_INT;
    case UFN_KIND_UINT: return C_UINT;
    case UFN_KIND_FLOAT: return C_FLOAT;
    case UFN_KIND_COMPLEX: return C_COMPLEX;
    }
    return C_INT;
}

#define READ(T, field, CONV)                                                           \
    for (size_t k = 0; k < n; k++, src += step) {                                      \
        T x;                                                                           \
        memcpy(&x, src, sizeof x);                                                     \
        buf->field[k] = CONV;                                                          \
    }                                                                                  \
    break

static void read_block(canon *buf, const char *src, ufn_dtype t, ptrdiff_t step, size_t n)
{
    switch (t) {
    case UFN_BOOL: READ(uint8_t, i, x != 0);
    case UFN_INT8: READ(int8_t, i, x);
    case UFN_INT16: READ(int16_t, i, x);
    case UFN_INT32: READ(int32_t, i, x);
    case UFN_INT64: READ(int64_t, i, x);
    case UFN_UINT8: READ(uint8_t, u, x);
    case UFN_UINT16: READ(uint16_t, u, x);
    case UFN_UINT32: READ(uint32_t, u, x);
    case UFN_UINT64: READ(uint64_t, u, x);
    case UFN_FLOAT32: READ(float, f, x);
    case UFN_FLOAT64: READ(double, f, x);
    case UFN_COMPLEX64: READ(float _Complex, c, x);
    case UFN_COMPLEX128: READ(double _Complex, c, x);
    default: memset(buf, 0, sizeof *buf); break;
    }
}

/* Saturating float to integer; NaN gives 0.  The bounds are powers of two,
 * exact in double, so the comparisons decide before any undefined cast. */
static int64_t f2i(double x, double lo, double hi_excl, int64_t min, int64_t max)
{
    if (isnan(x))
        return 0;
    if (x >= hi_excl)
        return max;
    if (x < lo)
        return min;
    return (int64_t)x;
}

static uint64_t f2u(double x, double hi_excl, uint64_t max)
{
    if (isnan(x) || x <= -1.0)
        return 0;
    if (x >= hi_excl)
        return max;
    return (uint64_t)x;
}

#define TWO(e) ((double)((uint64_t)1 << (e)))
#define WRITE(T, EXPR)                                                                 \
    for (size_t k = 0; k < n; k++, dst += step) {                                      \
        T y = (T)(EXPR);                                                               \
        memcpy(dst, &y, sizeof y);                                                     \
    }                                                                                  \
    return

/* Write n canonical values of form `ck` as dtype t. */
static void write_block(char *dst, ufn_dtype t, ptrdiff_t step, const canon *buf, canon_kind ck,
                        size_t n)
{
    if (ck == C_COMPLEX && dtypes[t].kind != UFN_KIND_COMPLEX) {
        /* Bool sees both parts; everything else sees the real part. */
        if (t == UFN_BOOL) {
            WRITE(uint8_t, buf->c[k] != 0);
        }
        canon tmp;
        for (size_t k = 0; k < n; k++)
            tmp.f[k] = creal(buf->c[k]);
        write_block(dst, t, step, &tmp, C_FLOAT, n);
        return;
    }
    switch (ck) {
    case C_INT:
        switch (t) {
        case UFN_BOOL: WRITE(uint8_t, buf->i[k] != 0);
        case UFN_INT8: WRITE(int8_t, (uint8_t)buf->i[k]);
        case UFN_INT16: WRITE(int16_t, (uint16_t)buf->i[k]);
        case UFN_INT32: WRITE(int32_t, (uint32_t)buf->i[k]);
        case UFN_INT64: WRITE(int64_t, buf->i[k]);
        case UFN_UINT8: WRITE(uint8_t, buf->i[k]);
        case UFN_UINT16: WRITE(uint16_t, buf->i[k]);
        case UFN_UINT32: WRITE(uint32_t, buf->i[k]);
        case UFN_UINT64: WRITE(uint64_t, buf->i[k]);
        case UFN_FLOAT32: WRITE(float, buf->i[k]);
        case UFN_FLOAT64: WRITE(double, buf->i[k]);
        case UFN_COMPLEX64: WRITE(float _Complex, (float)buf->i[k]);
        case UFN_COMPLEX128: WRITE(double _Complex, (double)buf->i[k]);
        case UFN_NUM_DTYPES: return;
        }
        return;
    case C_UINT:
        switch (t) {
        case UFN_BOOL: WRITE(uint8_t, buf->u[k] != 0);
        case UFN_INT8: WRITE(int8_t, (uint8_t)buf->u[k]);
        case UFN_INT16: WRITE(int16_t, (uint16_t)buf->u[k]);
        case UFN_INT32: WRITE(int32_t, (uint32_t)buf->u[k]);
        case UFN_INT64: WRITE(int64_t, buf->u[k]);
        case UFN_UINT8: WRITE(uint8_t, buf->u[k]);
        case UFN_UINT16: WRITE(uint16_t, buf->u[k]);
        case UFN_UINT32: WRITE(uint32_t, buf->u[k]);
        case UFN_UINT64: WRITE(uint64_t, buf->u[k]);
        case UFN_FLOAT32: WRITE(float, buf->u[k]);
        case UFN_FLOAT64: WRITE(double, buf->u[k]);
        case UFN_COMPLEX64: WRITE(float _Complex, (float)buf->u[k]);
        case UFN_COMPLEX128: WRITE(double _Complex, (double)buf->u[k]);
        case UFN_NUM_DTYPES: return;
        }
        return;
    case C_FLOAT:
        switch (t) {
        case UFN_BOOL: WRITE(uint8_t, buf->f[k] != 0);
        case UFN_INT8: WRITE(int8_t, f2i(buf->f[k], -TWO(7), TWO(7), INT8_MIN, INT8_MAX));
        case UFN_INT16: WRITE(int16_t, f2i(buf->f[k], -TWO(15), TWO(15), INT16_MIN, INT16_MAX));
        case UFN_INT32: WRITE(int32_t, f2i(buf->f[k], -TWO(31), TWO(31), INT32_MIN, INT32_MAX));
        case UFN_INT64: WRITE(int64_t, f2i(buf->f[k], -TWO(63), TWO(63), INT64_MIN, INT64_MAX));
        case UFN_UINT8: WRITE(uint8_t, f2u(buf->f[k], TWO(8), UINT8_MAX));
        case UFN_UINT16: WRITE(uint16_t, f2u(buf->f[k], TWO(16), UINT16_MAX));
        case UFN_UINT32: WRITE(uint32_t, f2u(buf->f[k], TWO(32), UINT32_MAX));
        case UFN_UINT64: WRITE(uint64_t, f2u(buf->f[k], 2.0 * TWO(63), UINT64_MAX));
        case UFN_FLOAT32: WRITE(float, buf->f[k]);
        case UFN_FLOAT64: WRITE(double, buf->f[k]);
        case UFN_COMPLEX64: WRITE(float _Complex, (float)buf->f[k]);
        case UFN_COMPLEX128: WRITE(double _Complex, buf->f[k]);
        case UFN_NUM_DTYPES: return;
        }
        return;
    case C_COMPLEX:
        if (t == UFN_COMPLEX64) {
            WRITE(float _Complex, buf->c[k]);
        }
        WRITE(double _Complex, buf->c[k]);
    }
}

void ufn_convert(void *dst, ufn_dtype dt, ptrdiff_t dstep, const void *src, ufn_dtype st,
                 ptrdiff_t sstep, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (dt == st) {
        size_t size = (size_t)dtypes[dt].size;
        if (dstep == (ptrdiff_t)size && sstep == (ptrdiff_t)size) {
            memmove(d, s, n * size);
            return;
        }
        for (size_t k = 0; k < n; k++, d += dstep, s += sstep)
            memmove(d, s, size);
        return;
    }
    canon buf;
    canon_kind ck = canon_of(st);
    while (n > 0) {
        size_t m = n < BLOCK ? n : BLOCK;
        read_block(&buf, s, st, sstep, m);
        write_block(d, dt, dstep, &buf, ck, m);
        d += (ptrdiff_t)m * dstep;
        s += (ptrdiff_t)m * sstep;
        n -= m;
    }
}
