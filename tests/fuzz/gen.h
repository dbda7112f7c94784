/* gen.h - a generator of random VALID .ufn modules, and a reference
 * interpreter of what it generates.
 *
 * The generator builds typed trees (kernels, helpers, statements,
 * expressions), typing each node itself by the rules ufnc documents
 * (Numba's CUDA typing), and prints them as a module that ufnc must accept
 * without a diagnostic.  It serves two tests:
 *
 *   fuzz_gen.c   libFuzzer's bytes are the generator's choices: every input
 *                is a valid module, so the checker and the emitters are
 *                exercised deeply, and an error from ufnc is a finding;
 *   ufngen.c     the differential test: a module, a C program calling its
 *                kernels on chosen inputs, the results the reference
 *                interpreter (gen_eval.c) expects, and a Python script that
 *                runs the same module with Numba on the CPU.
 *
 * Choices come from a byte string (fuzzing) or a seeded PRNG; an exhausted
 * byte string answers 0, and choice 0 is always the simplest (a leaf, the
 * end of a block), so generation terminates on any input.
 *
 * Everything here is self-contained C11 (no ufnc headers): the reference
 * must not share code with what it checks.
 */
#ifndef FUZZ_GEN_H
#define FUZZ_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- choices ------------------------------------------------------------------------ */

typedef struct GenRng {
    const uint8_t *data;     /* fuzz bytes, or NULL for the PRNG */
    size_t len, pos;
    uint64_t state;          /* xorshift64* */
} GenRng;

void rng_seed(GenRng *r, uint64_t seed);
void rng_bytes(GenRng *r, const uint8_t *data, size_t len);
unsigned rng_below(GenRng *r, unsigned n);   /* 0..n-1; 0 once bytes run out */
bool rng_chance(GenRng *r, unsigned percent);
uint64_t rng_u64(GenRng *r);

/* ---- types ------------------------------------------------------------------------------ */

/* Scalar types the generator uses.  Integer arithmetic happens in the
 * machine word (Numba's rule): uint64 when both operands are unsigned, else
 * int64; int8, int32 and uint8 appear in signatures, casts and operands. */
typedef enum GType { G_BOOL, G_I8, G_I32, G_I64, G_U8, G_U64, G_F32, G_F64, G_NTYPES } GType;

const char *gtype_name(GType t);       /* Numba's: "float32" */
bool gtype_is_int(GType t);            /* bool excluded */
bool gtype_is_unsigned(GType t);
bool gtype_is_float(GType t);

/* ---- the tree ---------------------------------------------------------------------------- */

typedef enum GExprKind {
    GE_CONST,      /* a literal (or np.float32(literal), math.inf, ...) */
    GE_LOCAL,      /* a local variable or parameter of the function */
    GE_GLOBAL,     /* a module constant */
    GE_UNARY,      /* op: '-', '+', '~', '!' (not) */
    GE_BINARY,     /* op: GOp */
    GE_COMPARE,    /* a chain: n operators, n + 1 operands */
    GE_BOOLOP,     /* and / or on bools */
    GE_IFEXP,
    GE_CALL,       /* a builtin or math function: fn */
    GE_HELPER,     /* a call of a helper: helper index */
    GE_INDEX,      /* array[i] or array[i, j]: a gufunc operand */
    GE_LEN         /* op 0: len(array), 1: array.shape[0], 2: array.shape[1] */
} GExprKind;

typedef enum GOp {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW,
    OP_SHL, OP_SHR, OP_AND, OP_OR, OP_XOR,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
    OP_NEG, OP_POS, OP_INV, OP_NOT,
    OP_LAND, OP_LOR
} GOp;

/* Builtins and math functions a kernel may call. */
typedef enum GFn {
    FN_ABS, FN_MIN, FN_MAX, FN_INT, FN_FLOAT, FN_BOOL, FN_ROUND,
    FN_NP_F32, FN_NP_F64, FN_NP_I64, FN_NP_I32, FN_NP_I8, FN_NP_U8, FN_NP_U64,
    FN_SQRT, FN_FABS, FN_FLOOR, FN_CEIL, FN_TRUNC, FN_COPYSIGN, FN_FMOD,
    FN_ISNAN, FN_ISINF, FN_ISFINITE,
    /* not correctly rounded: only where results are not compared exactly */
    FN_EXP, FN_LOG, FN_SIN, FN_COS, FN_TANH, FN_ATAN2, FN_HYPOT, FN_POWF,
    FN_COUNT
} GFn;

typedef union GVal {
    int64_t i;       /* bool, int8, int32, int64, uint8: sign- or zero-extended; uint64: its bits */
    float f32;
    double f64;
} GVal;

typedef struct GExpr GExpr;
struct GExpr {
    GExprKind kind;
    GType type;            /* the type ufnc gives it */
    int op;                /* GOp, or GFn for GE_CALL */
    int var;               /* GE_LOCAL / GE_GLOBAL / GE_HELPER / GE_INDEX, GE_LEN: array */
    GVal val;              /* GE_CONST; a float32 constant holds its double literal */
    int nargs;
    GExpr **args;          /* operands */
};

typedef enum GStmtKind {
    GS_ASSIGN,     /* var = e */
    GS_AUG,        /* var op= e */
    GS_UNPACK,     /* vars[0], vars[1] = helper(...) (a tuple-returning helper) */
    GS_IF,         /* if e: body else: orelse (orelse may hold one GS_IF: elif) */
    GS_FOR,        /* for var in range(args...): body */
    GS_FOR_ARRAY,  /* for var in array: body */
    GS_WHILE,      /* var = 0; while var < e: var += 1; body */
    GS_BREAK,
    GS_CONTINUE,
    GS_RETURN,     /* e may be NULL (gufuncs) */
    GS_STORE,      /* array[e] = e2, or array[e, e3] = e2 */
    GS_PASS
} GStmtKind;

typedef struct GStmt GStmt;
typedef struct GBlock {
    GStmt **items;
    int len;
} GBlock;

struct GStmt {
    GStmtKind kind;
    int var, var2;         /* target locals; GS_STORE / GS_FOR_ARRAY: the array */
    int op;                /* GS_AUG */
    GExpr *e, *e2, *e3;    /* value; GS_FOR: start, stop, step (NULL when absent) */
    GBlock body, orelse;
};

typedef struct GVar {
    char name[16];
    GType type;
    bool array;            /* a gufunc operand */
    bool output;           /* a gufunc output */
    bool param;
} GVar;

typedef enum GFuncKind { GF_VECTORIZE, GF_GUVECTORIZE, GF_HELPER } GFuncKind;

typedef struct GFunc {
    GFuncKind kind;
    char name[16];
    int decorator;         /* helpers: 0 @jit, 1 @njit, 2 @cuda.jit(device=True) */
    int nparams;           /* the first nparams vars */
    GVar vars[48];
    int nvars;
    GType ret;             /* vectorize and helpers */
    GType rexpr;           /* vectorize: the type of every returned expression (cast to ret) */
    GType ret2;            /* helpers returning a pair */
    bool pair;
    int layout;            /* guvectorize: which layout (gen.c's table) */
    GBlock body;
    bool inexact;          /* calls a function that is not correctly rounded */
} GFunc;

typedef struct GGlobal {
    char name[16];
    GType type;
    GVal val;
    GExpr *init;           /* the constant expression */
} GGlobal;

typedef struct GenOptions {
    int max_kernels;       /* 1.. */
    int max_helpers;       /* 0.. */
    int max_depth;         /* expression depth */
    int max_stmts;         /* statements per block */
    bool exact_only;       /* only correctly rounded operations (the differential test) */
    bool gufuncs;
} GenOptions;

typedef struct GenProgram {
    GFunc funcs[12];       /* helpers first, then kernels */
    int nfuncs;
    GGlobal globals[8];
    int nglobals;
    struct GenArena *arena;
} GenProgram;

void gen_default_options(GenOptions *o);
/* A new program (free it with gen_free). */
GenProgram *gen_program(GenRng *r, const GenOptions *o);
void gen_free(GenProgram *p);

/* The module's text: malloc'ed, NUL-terminated; *len receives its length. */
char *gen_print_ufn(const GenProgram *p, size_t *len);

/* The gufunc layouts the generator knows.  Core dimensions are named n
 * (index 0) and m (index 1). */
typedef struct GLayout {
    const char *text;      /* '(m,n),(n)->(m)' */
    int nin, nout;
    int ndims[4];          /* per operand: 0 ("()"), 1 or 2 core dimensions */
    int dims[4][2];        /* per operand: which name each core dimension has */
    const char *order;     /* the names in order of first appearance: "mn" */
} GLayout;
extern const GLayout gen_layouts[];
extern const int gen_nlayouts;

/* ---- the reference interpreter (gen_eval.c) ---------------------------------------------- */

/* What one kernel computes for one element (vectorize) or one row
 * (guvectorize).  numba_differs is set when the result depends on a rule
 * ufnc chose where Numba's CPU target does something else, something
 * undefined or raises (numba-semantics.md 3.3, 3.5): float -> int out of
 * range, shifts by >= 64, INT64_MIN // -1, integer powers beyond 2**53,
 * 0.0 ** -n; and for the whole row when such a value decided a branch. */
typedef struct GEvalResult {
    GVal ret;
    bool numba_differs;
} GEvalResult;

/* Run vectorize kernel f on args[] (one value per parameter). */
GEvalResult gen_eval_vectorize(const GenProgram *p, const GFunc *f, const GVal *args);
/* Run guvectorize kernel f on one row: arrays[k] holds operand k (its core
 * shape in C order; sizes[] gives the dimensions n and m; one value for "()"
 * operands), differs[k] a flag per element (all false for inputs); outputs
 * and their flags are written in place. */
void gen_eval_guvectorize(const GenProgram *p, const GFunc *f, GVal **arrays, bool **differs, const int *sizes);

/* The value of a module constant (its initialiser folded by the rules). */
GVal gen_eval_const(const GenProgram *p, const GExpr *e);

/* ---- the differential test's files (gen_drive.c) ------------------------------------------------ */

/* Write DIR/<module>.ufn, DIR/main.c (calls each kernel on its inputs and
 * prints every result), DIR/expected.txt (the reference's results) and
 * DIR/numba_run.py (the same with Numba).  0 or -1. */
int gen_write_test(const GenProgram *p, GenRng *r, const char *dir, const char *module);

/* How main.c, numba_run.py and expected.txt print a value: ints in decimal,
 * floats as the hex of their bits, every NaN as "nan". */
void gen_format_value(char *buf, size_t size, GType t, GVal v);

#endif
