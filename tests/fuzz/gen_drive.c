/* gen_drive.c - the files of one differential test (see gen.h):
 *
 *   DIR/m.ufn          the module
 *   DIR/main.c         calls every kernel on its inputs through the general
 *                      entry; also through the typed entry, on reversed
 *                      (negative-stride) views, into an empty output the
 *                      runtime allocates and on device arrays (copied there,
 *                      the result copied back), and says where those differ; then
 *                      prints every result, one per line:
 *                          <kernel> <operand> <index> <value>
 *   DIR/expected.txt   the same lines from the reference (gen_eval.c), each
 *                      with a last field 1 where Numba's CPU target is not
 *                      expected to agree (a documented difference), else 0
 *   DIR/numba_run.py   the module run by Numba on the CPU, printing the same
 *                      lines (run-diff.sh compares where the flag is 0)
 */
#include "gen.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define VEC_N 40        /* elements per vectorize call */
#define GU_M 5          /* loop items per gufunc call */

static const char *const c_types[G_NTYPES] = {"bool", "int8_t", "int32_t", "int64_t", "uint8_t", "uint64_t",
                                              "float", "double"};
static const char *const dtypes[G_NTYPES] = {"UFN_BOOL", "UFN_INT8", "UFN_INT32", "UFN_INT64", "UFN_UINT8",
                                             "UFN_UINT64", "UFN_FLOAT32", "UFN_FLOAT64"};
static const char *const np_types[G_NTYPES] = {"np.bool_", "np.int8", "np.int32", "np.int64", "np.uint8",
                                               "np.uint64", "np.float32", "np.float64"};
/* How ufnc spells a type in a typed entry's name. */
static const char *const entry_types[G_NTYPES] = {"bool", "int8", "int32", "int64", "uint8", "uint64",
                                                  "float32", "float64"};

void gen_format_value(char *buf, size_t size, GType t, GVal v)
{
    if (t == G_F32) {
        uint32_t bits;
        memcpy(&bits, &v.f32, 4);
        if (isnan(v.f32))
            snprintf(buf, size, "nan");
        else
            snprintf(buf, size, "f:%08" PRIx32, bits);
    } else if (t == G_F64) {
        uint64_t bits;
        memcpy(&bits, &v.f64, 8);
        if (isnan(v.f64))
            snprintf(buf, size, "nan");
        else
            snprintf(buf, size, "d:%016" PRIx64, bits);
    } else if (t == G_U64)
        snprintf(buf, size, "%" PRIu64, (uint64_t)v.i);
    else
        snprintf(buf, size, "%" PRId64, v.i);
}

/* ---- inputs --------------------------------------------------------------------------------------- */

static GVal input_value(GenRng *r, GType t)
{
    static const int64_t ints[] = {0, 1, -1, 2, 3, -2, 5, 7, 31, 32, 63, 64, 65, 100, 127, -128, 255, 256,
                                   2147483647, -2147483647 - 1, 4294967296ll, 9007199254740993ll,
                                   INT64_MAX, INT64_MIN, -1000000007};
    static const double floats[] = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -2.5, 3.0, 0.1, 1e-3,
                                    1e10, 3e9, -3e9, 1e16, 9.3e18, -9.3e18, 1e300, -1e300, 1e-310,
                                    3.5e38, 1e-45, INFINITY, -INFINITY, NAN};
    GVal v = {0};
    unsigned k = rng_below(r, 10);
    switch (t) {
    case G_BOOL: v.i = rng_below(r, 2); break;
    case G_I8: v.i = (int8_t)rng_u64(r); break;
    case G_U8: v.i = (uint8_t)rng_u64(r); break;
    case G_U64: {
        static const uint64_t u[] = {0, 1, 2, 63, 64, 255, 1ull << 31, 1ull << 32, 1ull << 53, (1ull << 53) + 1,
                                     INT64_MAX, 1ull << 63, (1ull << 63) + 1, UINT64_MAX, UINT64_MAX - 1};
        v.i = (int64_t)(k < 4 ? (uint64_t)rng_below(r, 11) : k < 8 ? u[rng_below(r, 15)] : rng_u64(r));
        break;
    }
    case G_I32:
        v.i = k < 5 ? (int64_t)rng_below(r, 21) - 10 : k < 8 ? (int32_t)ints[rng_below(r, 25)] : (int32_t)rng_u64(r);
        break;
    case G_I64:
        v.i = k < 5 ? (int64_t)rng_below(r, 21) - 10 : k < 8 ? ints[rng_below(r, 25)] : (int64_t)rng_u64(r);
        break;
    case G_F32:
    case G_F64: {
        double d;
        if (k < 4)
            d = ((double)rng_below(r, 81) - 40.0) / 4.0;
        else if (k < 8)
            d = floats[rng_below(r, sizeof floats / sizeof floats[0])];
        else
            d = ldexp((double)(int64_t)(rng_u64(r) >> 11) / 9007199254740992.0, (int)rng_below(r, 200) - 100);
        if (t == G_F32)
            v.f32 = (float)d;
        else
            v.f64 = d;
        break;
    }
    default: abort();
    }
    return v;
}

/* ---- text helpers -------------------------------------------------------------------------------------- */

static void c_literal(FILE *f, GType t, GVal v)
{
    if (t == G_F32 || t == G_F64) {
        double d = t == G_F32 ? (double)v.f32 : v.f64;
        if (isnan(d))
            fprintf(f, "NAN");
        else if (isinf(d))
            fprintf(f, d < 0 ? "-INFINITY" : "INFINITY");
        else
            fprintf(f, "%a%s", d, t == G_F32 ? "f" : "");
    } else if (t == G_U64)
        fprintf(f, "%" PRIu64 "ULL", (uint64_t)v.i);
    else if (v.i == INT64_MIN)
        fprintf(f, "INT64_MIN");
    else
        fprintf(f, "%" PRId64 "%s", v.i, t == G_I64 ? "LL" : "");
}

static void py_literal(FILE *f, GType t, GVal v)
{
    if (t == G_F32 || t == G_F64) {
        double d = t == G_F32 ? (double)v.f32 : v.f64;
        if (isnan(d))
            fprintf(f, "float('nan')");
        else if (isinf(d))
            fprintf(f, d < 0 ? "float('-inf')" : "float('inf')");
        else
            fprintf(f, "float.fromhex('%a')", d);
    } else if (t == G_U64)
        fprintf(f, "%" PRIu64, (uint64_t)v.i);
    else
        fprintf(f, "%" PRId64, v.i);
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        perror(path);
    return f;
}

/* ---- per-kernel data ---------------------------------------------------------------------------------------- */

typedef struct KData {
    const GFunc *f;
    int rows;                  /* vectorize: VEC_N elements; gufunc: GU_M loop items */
    int sizes[2];              /* gufunc: the core dimensions n and m */
    GVal *in[8];               /* per operand: rows * its core size values */
    bool *differs[8];          /* per element: Numba is not expected to agree */
} KData;

/* Core dimensions of operand op (0 for vectorize and "()" operands). */
static int core_ndim(const KData *k, int op)
{
    return k->f->kind == GF_VECTORIZE ? 0 : gen_layouts[k->f->layout].ndims[op];
}

static int core_extent(const KData *k, int op, int axis)
{
    return axis < core_ndim(k, op) ? k->sizes[gen_layouts[k->f->layout].dims[op][axis]] : 1;
}

static int operand_len(const KData *k, int op)
{
    return core_extent(k, op, 0) * core_extent(k, op, 1);
}

static void make_data(const GenProgram *p, GenRng *r, const GFunc *f, KData *k)
{
    memset(k, 0, sizeof *k);
    k->f = f;
    int nops = f->kind == GF_VECTORIZE ? f->nparams + 1 : f->nparams;
    if (f->kind == GF_VECTORIZE)
        k->rows = VEC_N;
    else {
        k->rows = GU_M;
        k->sizes[0] = 1 + (int)rng_below(r, 6);
        k->sizes[1] = 1 + (int)rng_below(r, 4);
    }
    for (int op = 0; op < nops; op++) {
        int len = operand_len(k, op);
        k->in[op] = calloc((size_t)(k->rows * len), sizeof(GVal));
        k->differs[op] = calloc((size_t)(k->rows * len), sizeof(bool));
        if (!k->in[op] || !k->differs[op])
            abort();
        bool is_out = f->kind == GF_VECTORIZE ? op == f->nparams : f->vars[op].output;
        GType t = op < f->nparams ? f->vars[op].type : f->ret;
        if (!is_out)
            for (int i = 0; i < k->rows * len; i++)
                k->in[op][i] = input_value(r, t);
    }
    /* the reference results */
    for (int row = 0; row < k->rows; row++) {
        if (f->kind == GF_VECTORIZE) {
            GVal args[8];
            for (int op = 0; op < f->nparams; op++)
                args[op] = k->in[op][row];
            GEvalResult res = gen_eval_vectorize(p, f, args);
            k->in[f->nparams][row] = res.ret;
            k->differs[f->nparams][row] = res.numba_differs;
        } else {
            GVal *arrays[8];
            bool *flags[8];
            for (int op = 0; op < nops; op++) {
                arrays[op] = k->in[op] + row * operand_len(k, op);
                flags[op] = k->differs[op] + row * operand_len(k, op);
            }
            gen_eval_guvectorize(p, f, arrays, flags, k->sizes);
        }
    }
}

static GType op_type(const KData *k, int op)
{
    return op < k->f->nparams ? k->f->vars[op].type : k->f->ret;
}

static bool op_output(const KData *k, int op)
{
    return k->f->kind == GF_VECTORIZE ? op == k->f->nparams : k->f->vars[op].output;
}

static int nops(const KData *k)
{
    return k->f->kind == GF_VECTORIZE ? k->f->nparams + 1 : k->f->nparams;
}

/* ---- expected.txt ------------------------------------------------------------------------------------------- */

static void write_expected(FILE *out, const KData *k)
{
    char buf[64];
    for (int op = 0; op < nops(k); op++) {
        if (!op_output(k, op))
            continue;
        int len = operand_len(k, op);
        for (int i = 0; i < k->rows * len; i++) {
            gen_format_value(buf, sizeof buf, op_type(k, op), k->in[op][i]);
            fprintf(out, "%s %d %d %s %d\n", k->f->name, op, i, buf, k->differs[op][i] ? 1 : 0);
        }
    }
}

/* ---- main.c ----------------------------------------------------------------------------------------------- */

static void c_array(FILE *out, const KData *k, int op, const char *name)
{
    int len = operand_len(k, op), total = k->rows * len;
    GType t = op_type(k, op);
    fprintf(out, "    static %s%s %s[%d] = {", op_output(k, op) ? "" : "const ", c_types[t], name, total);
    if (!op_output(k, op))
        for (int i = 0; i < total; i++) {
            fprintf(out, i % 4 ? " " : "\n        ");
            c_literal(out, t, k->in[op][i]);
            fprintf(out, ",");
        }
    fprintf(out, "};\n");
}

static const char *suffix(const KData *k, char *buf, size_t size)
{
    const GFunc *f = k->f;
    int nin = f->kind == GF_VECTORIZE ? f->nparams : gen_layouts[f->layout].nin;
    bool same = true;
    for (int i = 1; i < nin; i++)
        same = same && f->vars[i].type == f->vars[0].type;
    buf[0] = '\0';
    for (int i = 0; i < (same ? 1 : nin); i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, size - l, "%s%s", i ? "_" : "", entry_types[f->vars[i].type]);
    }
    return buf;
}

/* The shape and strides of operand op: (rows, core...) in C order, or with
 * the loop axis running backwards (a gufunc's core stays in order). */
static void shape_text(FILE *out, const KData *k, int op, const char *name, bool reversed, const char *data)
{
    int len = operand_len(k, op), nd = core_ndim(k, op), total = k->rows * len;
    fprintf(out, "    ufn_array %s = ufn_host_strided((void *)(%s + %d), %s, %d, (int64_t[]){%d", name, data,
            reversed ? total - len : 0, dtypes[op_type(k, op)], 1 + nd, k->rows);
    for (int d = 0; d < nd; d++)
        fprintf(out, ", %d", core_extent(k, op, d));
    fprintf(out, "}, (int64_t[]){%s%d", reversed ? "-" : "", len);
    for (int d = 0; d < nd; d++)
        fprintf(out, ", %d", d + 1 < nd ? core_extent(k, op, d + 1) : 1);
    fprintf(out, "});\n");
}

static void write_kernel_call(FILE *out, const KData *k)
{
    const GFunc *f = k->f;
    const char *kn = f->name;
    int no = nops(k);
    fprintf(out, "\n/* %s */\nstatic void run_%s(void)\n{\n", kn, kn);
    for (int op = 0; op < no; op++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", op);
        c_array(out, k, op, name);
        if (op_output(k, op)) {
            fprintf(out, "    static %s t%d[%d], s%d[%d];\n", c_types[op_type(k, op)], op,
                    k->rows * operand_len(k, op), op, k->rows * operand_len(k, op));
            fprintf(out, "    memset(d%d, 0xa5, sizeof d%d); memset(t%d, 0x5a, sizeof t%d); memset(s%d, 0x3c, sizeof s%d);\n",
                    op, op, op, op, op, op);
        }
    }
    /* 1. the general entry, contiguous */
    for (int op = 0; op < no; op++) {
        char name[16], data[16];
        snprintf(name, sizeof name, "a%d", op);
        snprintf(data, sizeof data, "d%d", op);
        shape_text(out, k, op, name, false, data);
    }
    fprintf(out, "    int st = %s(", kn);
    for (int op = 0; op < no; op++)
        fprintf(out, "%s&a%d", op ? ", " : "", op);
    fprintf(out, ");\n    if (st) {\n        printf(\"%s error %%s\\n\", ufn_error());\n        return;\n    }\n", kn);
    /* 2. the typed entry */
    char sfx[128];
    fprintf(out, "    st = %s_%s(%d", kn, suffix(k, sfx, sizeof sfx), k->rows);
    if (f->kind == GF_GUVECTORIZE)          /* core sizes, in order of first appearance */
        for (const char *c = gen_layouts[f->layout].order; *c; c++)
            fprintf(out, ", %d", k->sizes[*c == 'm']);
    for (int op = 0; op < no; op++)
        fprintf(out, ", %s%d", op_output(k, op) ? "t" : "d", op);
    fprintf(out, ");\n    if (st)\n        printf(\"%s typed-error %%s\\n\", ufn_error());\n", kn);
    for (int op = 0; op < no; op++)
        if (op_output(k, op))
            fprintf(out, "    if (!st && !same(t%d, d%d, sizeof d%d, %d))\n        printf(\"%s typed-differs %d\\n\");\n",
                    op, op, op, (int)op_type(k, op), kn, op);
    /* 3. every operand reversed: the strided kernels */
    for (int op = 0; op < no; op++) {
        char name[16], data[16];
        snprintf(name, sizeof name, "r%d", op);
        snprintf(data, sizeof data, "%s%d", op_output(k, op) ? "s" : "d", op);
        shape_text(out, k, op, name, true, data);
    }
    fprintf(out, "    st = %s(", kn);
    for (int op = 0; op < no; op++)
        fprintf(out, "%s&r%d", op ? ", " : "", op);
    fprintf(out, ");\n    if (st)\n        printf(\"%s strided-error %%s\\n\", ufn_error());\n", kn);
    /* reversed inputs, reversed outputs: the same elements in the same places */
    for (int op = 0; op < no; op++)
        if (op_output(k, op))
            fprintf(out, "    if (!st && !same(s%d, d%d, sizeof d%d, %d))\n        printf(\"%s strided-differs %d\\n\");\n",
                    op, op, op, (int)op_type(k, op), kn, op);
    /* 4. outputs allocated by the runtime */
    for (int op = 0; op < no; op++)
        if (op_output(k, op))
            fprintf(out, "    ufn_array e%d = {0};\n", op);
    fprintf(out, "    st = %s(", kn);
    for (int op = 0; op < no; op++)
        fprintf(out, "%s&%c%d", op ? ", " : "", op_output(k, op) ? 'e' : 'a', op);
    fprintf(out, ");\n    if (st)\n        printf(\"%s alloc-error %%s\\n\", ufn_error());\n", kn);
    for (int op = 0; op < no; op++)
        if (op_output(k, op)) {
            fprintf(out, "    if (!st && (!e%d.data || !same(e%d.data, d%d, sizeof d%d, %d)))\n", op, op, op, op,
                    (int)op_type(k, op));
            fprintf(out, "        printf(\"%s alloc-differs %d\\n\");\n", kn, op);
            fprintf(out, "    ufn_free(&e%d);\n", op);
        }
    /* 5. device arrays: inputs copied to the device, outputs allocated there
     * and copied back (on sim the kernels run on device memory, no staging) */
    for (int op = 0; op < no; op++)
        fprintf(out, "    ufn_array v%d = {0};\n", op);
    fprintf(out, "    st = 0");
    for (int op = 0; op < no; op++)
        if (!op_output(k, op))
            fprintf(out, " || ufn_to_device(&a%d, &v%d)", op, op);
    fprintf(out, ";\n    if (st)\n        printf(\"%s device-error %%s\\n\", ufn_error());\n", kn);
    fprintf(out, "    else if ((st = %s(", kn);
    for (int op = 0; op < no; op++)
        fprintf(out, "%s&v%d", op ? ", " : "", op);
    fprintf(out, ")))\n        printf(\"%s device-error %%s\\n\", ufn_error());\n", kn);
    for (int op = 0; op < no; op++)
        if (op_output(k, op)) {
            fprintf(out, "    if (!st) {\n        ufn_array h = {0};\n");
            fprintf(out, "        if (v%d.memory != UFN_MEM_DEVICE && strcmp(ufn_backend(), \"host\"))\n", op);
            fprintf(out, "            printf(\"%s device-output-not-on-device %d\\n\");\n", kn, op);
            fprintf(out, "        if (ufn_copy_to_host(&v%d, &h))\n", op);
            fprintf(out, "            printf(\"%s device-copy-error %%s\\n\", ufn_error());\n", kn);
            fprintf(out, "        else if (!same(h.data, d%d, sizeof d%d, %d))\n", op, op, (int)op_type(k, op));
            fprintf(out, "            printf(\"%s device-differs %d\\n\");\n", kn, op);
            fprintf(out, "        ufn_free(&h);\n    }\n");
        }
    for (int op = 0; op < no; op++)
        fprintf(out, "    ufn_free(&v%d);\n", op);
    /* the results */
    for (int op = 0; op < no; op++)
        if (op_output(k, op))
            fprintf(out, "    for (int i = 0; i < %d; i++)\n        show(\"%s\", %d, i, %d, &d%d[i]);\n",
                    k->rows * operand_len(k, op), kn, op, (int)op_type(k, op), op);
    fprintf(out, "}\n");
}

static void write_main(FILE *out, const char *module, KData *ks, int nk)
{
    fprintf(out, "/* main.c - written by tests/fuzz/gen_drive.c: calls every kernel of %s.ufn. */\n", module);
    fprintf(out, "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdio.h>\n"
                 "#include <string.h>\n#include \"%s.h\"\n\n", module);
    fprintf(out, "/* one result: ints in decimal, floats as their bits, any NaN as nan */\n"
                 "static void show(const char *k, int op, int i, int t, const void *p)\n{\n"
                 "    printf(\"%%s %%d %%d \", k, op, i);\n"
                 "    switch (t) {\n"
                 "    case 0: printf(\"%%d\\n\", (int)*(const bool *)p); break;\n"
                 "    case 1: printf(\"%%d\\n\", (int)*(const int8_t *)p); break;\n"
                 "    case 2: printf(\"%%d\\n\", (int)*(const int32_t *)p); break;\n"
                 "    case 3: printf(\"%%lld\\n\", (long long)*(const int64_t *)p); break;\n"
                 "    case 4: printf(\"%%d\\n\", (int)*(const uint8_t *)p); break;\n"
                 "    case 5: printf(\"%%llu\\n\", (unsigned long long)*(const uint64_t *)p); break;\n"
                 "    case 6: { float v; uint32_t b; memcpy(&v, p, 4); memcpy(&b, p, 4);\n"
                 "        if (isnan(v)) printf(\"nan\\n\"); else printf(\"f:%%08x\\n\", (unsigned)b); break; }\n"
                 "    default: { double v; uint64_t b; memcpy(&v, p, 8); memcpy(&b, p, 8);\n"
                 "        if (isnan(v)) printf(\"nan\\n\"); else printf(\"d:%%016llx\\n\", (unsigned long long)b); break; }\n"
                 "    }\n}\n\n");
    fprintf(out, "/* whether two calls' results agree: bit for bit, but any NaN is any NaN\n"
                 " * (the sign and payload of a NaN are not specified: ufn(7)) */\n"
                 "static int same(const void *a, const void *b, size_t size, int t)\n{\n"
                 "    if (t < 6)\n        return !memcmp(a, b, size);\n"
                 "    size_t w = t == 6 ? 4 : 8;\n"
                 "    for (size_t i = 0; i < size; i += w) {\n"
                 "        const char *x = (const char *)a + i, *y = (const char *)b + i;\n"
                 "        int nans = w == 4 ? isnan(*(const float *)x) && isnan(*(const float *)y)\n"
                 "                          : isnan(*(const double *)x) && isnan(*(const double *)y);\n"
                 "        if (!nans && memcmp(x, y, w))\n            return 0;\n"
                 "    }\n    return 1;\n}\n");
    for (int i = 0; i < nk; i++)
        write_kernel_call(out, &ks[i]);
    fprintf(out, "\nint main(void)\n{\n");
    for (int i = 0; i < nk; i++)
        fprintf(out, "    run_%s();\n", ks[i].f->name);
    fprintf(out, "    return 0;\n}\n");
}

/* ---- numba_run.py --------------------------------------------------------------------------------------------- */

static void write_numba(FILE *out, const char *module, KData *ks, int nk)
{
    fprintf(out, "# numba_run.py - written by tests/fuzz/gen_drive.c: %s.ufn run by Numba on the CPU.\n", module);
    fprintf(out, "import math, os, re, sys, warnings\nimport numpy as np\n\n"
                 "def fmt(v):\n"
                 "    if v.dtype == np.float32 or v.dtype == np.float64:\n"
                 "        if np.isnan(v): return 'nan'\n"
                 "        if v.dtype == np.float32: return 'f:%%08x' %% int(np.array(v).view(np.uint32))\n"
                 "        return 'd:%%016x' %% int(np.array(v).view(np.uint64))\n"
                 "    return str(int(v))\n\n"
                 "def call_rows(fn, args, rows):\n"
                 "    \"\"\"Call fn on every row; where Numba raises (0.0 ** -1 and int ** huge do,\n"
                 "    even under the numpy error model) row by row: which rows raised.\"\"\"\n"
                 "    bad = set()\n"
                 "    with np.errstate(all='ignore'):\n"
                 "        try:\n"
                 "            fn(*args)\n"
                 "        except (ZeroDivisionError, OverflowError):\n"
                 "            for i in range(rows):\n"
                 "                try:\n"
                 "                    fn(*[a[i:i + 1] for a in args])\n"
                 "                except (ZeroDivisionError, OverflowError):\n"
                 "                    bad.add(i)\n"
                 "    return bad\n\n"
                 "def show(lines, name, first, outs, rows, bad):\n"
                 "    for j, o in enumerate(outs):\n"
                 "        per_row = o.size // rows\n"
                 "        for i, v in enumerate(o.reshape(-1)):\n"
                 "            if i // per_row not in bad:\n"
                 "                lines.append('%%s %%d %%d %%s' %% (name, first + j, i, fmt(v)))\n\n"
                 "def run(here):\n"
                 "    src = open(os.path.join(here, '%s.ufn')).read()\n"
                 "    # helpers run as CPU functions with the numpy error model, which\n"
                 "    # vectorize kernels use (x // 0 == 0, no ZeroDivisionError)\n"
                 "    for d in ('@cuda.jit(device=True)', '@njit', '@jit'):\n"
                 "        src = src.replace(d + '\\n', '@njit(error_model=\"numpy\")\\n')\n"
                 "    # math.fmod is CUDA's; the CPU target has np.fmod, the same for floats\n"
                 "    src = src.replace('math.fmod(', 'np.fmod(')\n"
                 "    # no silent fallback to object mode (Python's semantics)\n"
                 "    src = re.sub(r\"(@g?u?vectorize\\(\\[[^]]*\\](, '[^']*')?)\\)\", r\"\\1, nopython=True)\", src)\n"
                 "    ns = {}\n"
                 "    lines = []\n"
                 "    try:\n"
                 "        with warnings.catch_warnings():\n"
                 "            warnings.simplefilter('ignore')\n"
                 "            exec(compile(src, '%s.ufn', 'exec'), ns)\n"
                 "    except Exception as e:\n"
                 "        return ['module numba-error %%s' %% str(e).splitlines()[0]]\n",
            module, module);
    for (int i = 0; i < nk; i++) {
        const KData *k = &ks[i];
        const GFunc *f = k->f;
        int first_out = -1;
        fprintf(out, "    try:\n        args = []\n");
        for (int op = 0; op < nops(k); op++) {
            GType t = op_type(k, op);
            int len = operand_len(k, op), total = k->rows * len, nd = core_ndim(k, op);
            char shape[64];
            snprintf(shape, sizeof shape, "(%d%s", k->rows, nd ? "" : ",)");
            for (int d = 0; d < nd; d++) {
                size_t l = strlen(shape);
                snprintf(shape + l, sizeof shape - l, ", %d%s", core_extent(k, op, d), d + 1 == nd ? ")" : "");
            }
            if (op_output(k, op)) {
                if (first_out < 0)
                    first_out = op;
                fprintf(out, "        args.append(np.zeros(%s, dtype=%s))\n", shape, np_types[t]);
                continue;
            }
            fprintf(out, "        args.append(np.array([");
            for (int j = 0; j < total; j++) {
                if (j)
                    fprintf(out, ", ");
                py_literal(out, t, k->in[op][j]);
            }
            fprintf(out, "], dtype=%s).reshape%s)\n", np_types[t], shape);
        }
        fprintf(out, "        bad = call_rows(ns['%s'], args, %d)\n", f->name, k->rows);
        fprintf(out, "        show(lines, '%s', %d, args[%d:], %d, bad)\n", f->name, first_out, first_out, k->rows);
        fprintf(out, "    except Exception as e:\n"
                     "        lines.append('%s numba-error %%s: %%s' %% (type(e).__name__, str(e).splitlines()[0] if str(e) else ''))\n",
                f->name);
    }
    fprintf(out, "    return lines\n\n"
                 "if __name__ == '__main__':\n"
                 "    for d in sys.argv[1:]:\n"
                 "        with open(os.path.join(d, 'numba.txt'), 'w') as f:\n"
                 "            for line in run(d):\n"
                 "                f.write(line + '\\n')\n");
}

/* ---- the whole test ------------------------------------------------------------------------------------------------ */

int gen_write_test(const GenProgram *p, GenRng *r, const char *dir, const char *module)
{
    KData ks[12];
    int nk = 0;
    for (int i = 0; i < p->nfuncs; i++)
        if (p->funcs[i].kind != GF_HELPER)
            make_data(p, r, &p->funcs[i], &ks[nk++]);
    char name[256];
    snprintf(name, sizeof name, "%s.ufn", module);
    FILE *fu = open_in(dir, name), *fm = open_in(dir, "main.c"), *fe = open_in(dir, "expected.txt"),
         *fp = open_in(dir, "numba_run.py");
    int rc = fu && fm && fe && fp ? 0 : -1;
    if (!rc) {
        size_t len;
        char *text = gen_print_ufn(p, &len);
        fwrite(text, 1, len, fu);
        free(text);
        write_main(fm, module, ks, nk);
        for (int i = 0; i < nk; i++)
            write_expected(fe, &ks[i]);
        write_numba(fp, module, ks, nk);
    }
    FILE *all[] = {fu, fm, fe, fp};
    for (int i = 0; i < 4; i++)
        if (all[i] && fclose(all[i]) != 0)
            rc = -1;
    for (int i = 0; i < nk; i++)
        for (int op = 0; op < 8; op++) {
            free(ks[i].in[op]);
            free(ks[i].differs[op]);
        }
    return rc;
}
