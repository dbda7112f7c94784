/* ufnc.h - the compiler's one internal header, in pipeline order.
 *
 *   util.c    arena, interned names, growable buffers, die()
 *   source.c  source files and locations
 *   diag.c    user diagnostics (gcc-shaped) with recovery
 *   indent.c  INDENT/DEDENT and bracket logic of the scanner, in plain C
 *   lex.c     the values of literals, for the scanner
 *   lex       grammar/ufn.l: the reentrant flex scanner (lex_dump.c: -d tokens)
 *   parse     grammar/ufn.y: the pure bison parser, building the AST
 *             (parse_error.c: what a syntax error message says)
 *   ast.c     node constructors and the -d ast dump
 *   types.c   the type table
 *   sig.c     Numba type-signature strings and NumPy layout strings
 *   builtins.c  Python builtins, math/cmath (compiler/math.def), numpy names
 *   fold.c    module-level constants, evaluated at compile time
 *   check.c   the module level: imports, decorators, instances, C names
 *   infer.c   type inference of one instance (typed clones per signature):
 *             statements here, infer_expr.c expressions, infer_call.c calls
 *   flow.c    locals used before they are assigned
 *   dump.c    -d types
 *   emit_body.c  the scalar bodies shared by every generated file
 *   emit_cuda.c, emit_host.c, emit_header.c  polar.cu, the host stub, polar.h
 *   options.c the command line
 *   build.c   from the checked module to the output files
 *   driver.c  running tools, temporary files, atomic outputs, -MD
 *   nvcc_report.c  nvcc's and ptxas's messages mapped back to the .ufn
 *   main.c    the passes, in one screen
 *
 * Memory: the compiler allocates everything from one arena and never frees a
 * single node or string; the process exits (or the fuzz harness calls
 * arena_reset) when a compilation is done.  Allocation never returns NULL.
 * Names are interned, so two names are equal exactly when their pointers are.
 */
#ifndef UFNC_H
#define UFNC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UFNC_VERSION "0.1.0"

#define UFN_MAX_OPERANDS 32   /* arguments of a ufunc (libufnrt's UFN_MAXARGS) */
#define UFN_CORE_MAXDIMS 8    /* core dimensions (libufnrt's UFN_KMAXCORE) */

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ==== util.c ============================================================== */

void *arena_alloc(size_t size);                 /* zeroed */
char *arena_strndup(const char *s, size_t len);
char *arena_printf(const char *fmt, ...) PRINTF_LIKE(1, 2);
void arena_reset(void);                         /* frees everything (fuzzing, tests) */

const char *intern(const char *s, size_t len);
const char *intern_cstr(const char *s);

/* Internal invariants: a bug in ufnc, never a user error. */
_Noreturn void die_at(const char *file, int line, const char *fmt, ...) PRINTF_LIKE(3, 4);
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
#define unreachable() die("unreachable")

/* A growable byte buffer on the heap, for emitters and messages. */
typedef struct Buf {
    char *data;   /* always NUL-terminated when non-NULL */
    size_t len, cap;
} Buf;

void buf_putc(Buf *b, char c);
void buf_puts(Buf *b, const char *s);
void buf_putn(Buf *b, const char *s, size_t n);
void buf_printf(Buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_free(Buf *b);

/* ==== source.c ============================================================= */

typedef struct SrcFile {
    const char *name;        /* as given on the command line or found by import */
    const char *text;        /* NUL-terminated contents */
    size_t len;
    int nlines;
    const int *line_start;   /* byte offset of each line (index 0 = line 1) */
} SrcFile;

/* A source position: 1-based line and column (bytes; a tab counts as one
 * column in the position and expands in the caret line), and where the span
 * ends (exclusive).  A small value, copied freely. */
typedef struct Loc {
    const SrcFile *file;
    int line, col;
    int end_line, end_col;
} Loc;

SrcFile *src_from_memory(const char *name, const char *text, size_t len);
SrcFile *src_read(const char *path);          /* NULL (and errno) on failure */
/* The text of line `line` without its newline; *len receives the length. */
const char *src_line(const SrcFile *f, int line, int *len);
Loc loc_join(Loc a, Loc b);                   /* from the start of a to the end of b */

/* ==== diag.c ================================================================ */

/* User diagnostics: "file:line:col: error: message", the source line and a
 * caret line under the span.  Errors are counted; compilation continues to
 * report more, up to a limit (diag_set_error_limit). */
void diag_error(Loc loc, const char *fmt, ...) PRINTF_LIKE(2, 3);
void diag_warning(Loc loc, const char *fmt, ...) PRINTF_LIKE(2, 3);
void diag_note(Loc loc, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* An error with no source position: "ufnc: error: message". */
void diag_fatal(const char *fmt, ...) PRINTF_LIKE(1, 2);
int diag_error_count(void);
int diag_warning_count(void);

typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;
void diag_init(FILE *out, ColorMode color, bool werror, bool no_warnings);
void diag_reset(void);                       /* zero the counts (tests, fuzzing) */
/* A warning of a named group ("spill"): its option ends the message,
 * [-Wspill], and -Wno-spill, -Werror=spill, -Wno-error=spill apply. */
void diag_warning_group(Loc loc, const char *group, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Apply one of those options; false if it names no known group. */
bool diag_warning_option(const char *opt);
/* After the n-th error (0: never), say so and call stop(), which must not
 * return (-fmax-errors). */
void diag_set_error_limit(int n, void (*stop)(void));

/* ==== indent.c ============================================================== */

/* The layout logic of the scanner, kept out of flex so it can be unit tested.
 * At the first token of each logical line the scanner reports the line's
 * indentation; the tracker answers with the INDENT/DEDENT tokens to emit. */
#define INDENT_MAX_DEPTH 100

typedef struct Indenter {
    int stack[INDENT_MAX_DEPTH];   /* indentation columns; stack[0] == 0 */
    int depth;                     /* entries in use (>= 1) */
    int pending_dedents;           /* DEDENTs still to hand out */
    int brackets;                  /* open ( [ { : newlines are ignored inside */
} Indenter;

typedef enum IndentResult {
    INDENT_SAME,       /* same level: no token */
    INDENT_OPEN,       /* deeper: emit one INDENT */
    INDENT_CLOSE,      /* shallower: pending_dedents holds how many DEDENTs */
    INDENT_BAD_DEDENT, /* "unindent does not match any outer indentation level" */
    INDENT_TOO_DEEP    /* more than INDENT_MAX_DEPTH levels */
} IndentResult;

void indent_init(Indenter *in);
/* The scanner calls this for lines that hold a token, never for blank or
 * comment-only lines, nor inside brackets.  After INDENT_BAD_DEDENT the
 * outermost of the blocks the line would close stays open, now at the new
 * column (so the lines that follow at that column do not each report an
 * error), and pending_dedents closes the ones inside it; after
 * INDENT_TOO_DEEP nothing changes. */
IndentResult indent_line(Indenter *in, int column);
/* At end of input: how many DEDENTs close the open blocks. */
int indent_finish(Indenter *in);

/* ==== ast.c ================================================================= */

typedef struct Type Type;
typedef struct Node Node;
typedef struct Sym Sym;
typedef struct Func Func;
typedef struct Instance Instance;
typedef struct Var Var;

typedef struct NodeList {
    Node **items;
    int len, cap;
} NodeList;

void list_push(NodeList *l, Node *n);
NodeList list1(Node *n);                        /* a list of one node */
void list_append(NodeList *l, NodeList more);   /* push every node of more */

#define NODE_KINDS(X)                                                          \
    /* statements */                                                           \
    X(N_MODULE, "module")          /* body */                                  \
    X(N_FUNCDEF, "def")            /* funcdef */                               \
    X(N_IMPORT, "import")          /* import: module [as alias] */             \
    X(N_IMPORTFROM, "from-import") /* importfrom */                            \
    X(N_ASSIGN, "assign")          /* targets = value */                       \
    X(N_AUGASSIGN, "augassign")    /* target op= value */                      \
    X(N_EXPRSTMT, "expr-stmt")     /* an expression statement (docstrings) */  \
    X(N_IF, "if")                  /* elif is an N_IF alone in orelse */       \
    X(N_WHILE, "while")                                                        \
    X(N_FOR, "for")                                                            \
    X(N_BREAK, "break")                                                        \
    X(N_CONTINUE, "continue")                                                  \
    X(N_RETURN, "return")                                                      \
    X(N_PASS, "pass")                                                          \
    X(N_UNSUPPORTED, "unsupported") /* a statement outside the subset */      \
    /* expressions */                                                          \
    X(N_NAME, "name")                                                          \
    X(N_INT, "int")                                                            \
    X(N_FLOAT, "float")                                                        \
    X(N_IMAG, "imag")              /* 2j */                                    \
    X(N_STR, "str")                                                            \
    X(N_TRUE, "True")                                                          \
    X(N_FALSE, "False")                                                        \
    X(N_NONE, "None")                                                          \
    X(N_UNARY, "unary")                                                        \
    X(N_BINARY, "binary")                                                      \
    X(N_BOOLOP, "boolop")          /* and / or */                              \
    X(N_COMPARE, "compare")        /* a < b <= c: a chain */                   \
    X(N_IFEXP, "ifexp")            /* a if c else b */                         \
    X(N_CALL, "call")                                                          \
    X(N_KEYWORD, "keyword")        /* name=value inside a call */              \
    X(N_ATTR, "attr")              /* value.attr */                            \
    X(N_SUBSCRIPT, "subscript")    /* value[i, j] */                           \
    X(N_SLICE, "slice")            /* lo:hi:step inside a subscript */         \
    X(N_TUPLE, "tuple")                                                        \
    X(N_LIST, "list")                                                          \
    /* inserted by the checker */                                              \
    X(N_CAST, "cast")              /* operand converted to node->type */       \
    X(N_CONST, "const")            /* a folded constant of node->type */

typedef enum NodeKind {
#define X(k, s) k,
    NODE_KINDS(X)
#undef X
    NUM_NODE_KINDS
} NodeKind;

extern const char *const node_kind_names[];

#define UNARY_OPS(X) X(OP_NEG, "-") X(OP_POS, "+") X(OP_NOT, "not") X(OP_INVERT, "~")
#define BINARY_OPS(X)                                                          \
    X(OP_ADD, "+") X(OP_SUB, "-") X(OP_MUL, "*") X(OP_DIV, "/")                \
    X(OP_FLOORDIV, "//") X(OP_MOD, "%") X(OP_POW, "**") X(OP_MATMUL, "@")       \
    X(OP_LSHIFT, "<<") X(OP_RSHIFT, ">>") X(OP_BITAND, "&") X(OP_BITOR, "|")    \
    X(OP_BITXOR, "^")
#define BOOL_OPS(X) X(OP_AND, "and") X(OP_OR, "or")
#define COMPARE_OPS(X)                                                         \
    X(OP_LT, "<") X(OP_LE, "<=") X(OP_GT, ">") X(OP_GE, ">=") X(OP_EQ, "==")    \
    X(OP_NE, "!=") X(OP_IS, "is") X(OP_ISNOT, "is not") X(OP_IN, "in")          \
    X(OP_NOTIN, "not in")

typedef enum Op {
#define X(k, s) k,
    UNARY_OPS(X) BINARY_OPS(X) BOOL_OPS(X) COMPARE_OPS(X)
#undef X
    NUM_OPS
} Op;

extern const char *const op_names[];   /* the operator as written: "//" */

/* An AST node: a tagged union with a common header.  The parser fills the
 * syntax fields; the checker builds a typed clone per instantiation, with
 * `type` set on every expression and explicit N_CAST nodes where values
 * change type, so that the code generators never infer types. */
/* What the parser builds (the checker may rely on it):
 *   - Every node has a location; an expression in parentheses keeps the
 *     location of the expression, a parenthesised tuple spans the parentheses.
 *   - A function's docstring stays in its body as the first N_EXPRSTMT (as in
 *     Python's ast) and is also copied to funcdef.docstring.
 *   - elif is an N_IF alone in the orelse of the N_IF before it.
 *   - Tuples: `x, y = f(a)` has one target, an N_TUPLE; `a = b = e` has two
 *     targets.  `return a, b` returns an N_TUPLE.  `for i, j in ...` has an
 *     N_TUPLE target.  Targets are not validated: any expression may appear
 *     (an attribute, a call, a literal); the checker rejects what it must.
 *   - Subscripts: subscript.index holds the comma-separated items, so
 *     `a[i, j]` has two, `a[i]` one, `a[1:2]` one N_SLICE, `float32[:, ::1]`
 *     two N_SLICEs.  `a[(i, j)]` has one item, an N_TUPLE, and so has `a[i,]`.
 *   - Decorators are the expressions after '@', in source order.
 *   - Adjacent string literals are joined into one N_STR.
 *   - Unary minus on a literal stays an N_UNARY: `-1` is (- (int 1)).
 *   - N_UNSUPPORTED is a statement the parser skipped loosely (try, class,
 *     with, global, ...); the parser reports nothing for it.
 *   - No expression is taller than AST_MAX_HEIGHT (parse_file drops the
 *     statement, with an error), so a pass may recurse over expressions. */
#define AST_MAX_HEIGHT 1000

struct Node {
    NodeKind kind;
    Loc loc;
    Type *type;                 /* set by the checker on expressions */
    int height;                 /* expressions: 1 + the tallest operand (constructors) */
    union {
        struct { NodeList body; } module;
        struct {
            const char *name;
            NodeList params;        /* N_NAME nodes */
            NodeList decorators;    /* expressions after '@' */
            NodeList body;
            const char *docstring;  /* NULL when absent */
            Loc name_loc;
        } funcdef;
        struct { const char *module; const char *alias; } import;   /* alias may be NULL */
        struct {
            const char *module;     /* dotted name */
            NodeList names;         /* N_NAME nodes; .name.alias set for "as" */
        } importfrom;
        struct { NodeList targets; Node *value; } assign;     /* a = b = value */
        struct { Op op; Node *target; Node *value; } augassign;
        struct { Node *expr; } exprstmt;
        struct { Node *cond; NodeList then, orelse; } ifstmt;
        struct { Node *cond; NodeList body, orelse; } whilestmt;
        struct { Node *target; Node *iter; NodeList body, orelse; } forstmt;
        struct { Node *value; } ret;                          /* value may be NULL */
        struct { const char *what; } unsupported;             /* "a 'try' statement" */

        struct {
            const char *id;
            const char *alias;      /* import lists only */
            Sym *sym;               /* checker */
        } name;
        struct { uint64_t value; bool too_big; } intlit;      /* too_big: >= 2**64 */
        struct { double value; } floatlit;                    /* also N_IMAG */
        struct {                                              /* decoded */
            const char *value;      /* UTF-8 of the code points; a bytes literal's bytes */
            size_t len;             /* may hold NUL bytes; value[len] == '\0' */
            bool bytes;             /* b'...' */
        } str;
        struct { Op op; Node *operand; } unary;
        struct { Op op; Node *lhs, *rhs; } binary;
        struct { Op op; Node *lhs, *rhs; Var *tmp; } boolop;   /* tmp: checker */
        struct {
            int n;                  /* number of operators */
            Op *ops;                /* n */
            Node **operands;        /* n + 1 */
            /* checker: each link i compares operands i and i+1 converted to
             * link_types[i]; a middle operand that is not a plain name or
             * constant is evaluated once into tmps[i-1]. */
            Type **link_types;
            Var **tmps;
        } compare;
        struct { Node *cond, *then, *orelse; } ifexp;
        struct {
            Node *func;
            NodeList args;
            NodeList kwargs;        /* N_KEYWORD */
            /* checker: */
            int builtin;            /* a Builtin, or 0 */
            Instance *callee;       /* a helper instance, or NULL */
        } call;
        struct { const char *name; Node *value; } keyword;
        struct { Node *value; const char *attr; } attr;
        struct { Node *value; NodeList index; } subscript;
        struct { Node *lo, *hi, *step; } slice;               /* each may be NULL */
        struct { NodeList elts; } tuple;                      /* also N_LIST */
        struct { Node *operand; } cast;
        struct {                                              /* N_CONST */
            union { int64_t i; uint64_t u; double f; double c[2]; } v;
            bool weak;              /* a Python number (literal or module constant) */
        } konst;
    };
};

/* Constructors: kind and location first, everything else zeroed. */
Node *new_node(NodeKind kind, Loc loc);
Node *new_name(Loc loc, const char *id);
Node *new_int(Loc loc, uint64_t value, bool too_big);
Node *new_float(Loc loc, double value);
Node *new_imag(Loc loc, double value);
Node *new_str(Loc loc, const char *value, size_t len);
Node *new_unary(Loc loc, Op op, Node *operand);
Node *new_binary(Loc loc, Op op, Node *lhs, Node *rhs);
Node *new_boolop(Loc loc, Op op, Node *lhs, Node *rhs);
Node *new_compare(Loc loc, Node *first);               /* then compare_push */
void compare_push(Node *cmp, Op op, Node *operand);
Node *new_ifexp(Loc loc, Node *cond, Node *then, Node *orelse);
Node *new_call(Loc loc, Node *func);                   /* then call_push_arg */
void call_push_arg(Node *call, Node *arg);             /* N_KEYWORD goes to kwargs */
Node *new_keyword(Loc loc, const char *name, Node *value);
Node *new_attr(Loc loc, Node *value, const char *attr);
Node *new_subscript(Loc loc, Node *value, NodeList index);
Node *new_slice(Loc loc, Node *lo, Node *hi, Node *step);
Node *new_tuple(Loc loc, NodeList elts);
Node *new_list(Loc loc, NodeList elts);
Node *new_funcdef(Loc loc, const char *name, Loc name_loc, NodeList params, NodeList body);
Node *new_import(Loc loc, const char *module, const char *alias);
Node *new_importfrom(Loc loc, const char *module, NodeList names);
Node *new_assign(Loc loc, NodeList targets, Node *value);
Node *new_augassign(Loc loc, Op op, Node *target, Node *value);
Node *new_exprstmt(Loc loc, Node *expr);
Node *new_if(Loc loc, Node *cond, NodeList then, NodeList orelse);
Node *new_while(Loc loc, Node *cond, NodeList body, NodeList orelse);
Node *new_for(Loc loc, Node *target, Node *iter, NodeList body, NodeList orelse);
Node *new_return(Loc loc, Node *value);
Node *new_unsupported(Loc loc, const char *what);
Node *new_module(Loc loc, NodeList body);
/* Helpers of the grammar's actions. */
Node *new_import_name(Loc loc, const char *id, const char *alias);   /* from x import id as alias */
Node *new_call_args(Loc loc, Node *func, NodeList args);  /* call_push_arg for each */
Node *new_assign_chain(Loc loc, NodeList exprs);   /* a = b = value: the last is the value */
Node *funcdef_decorate(Node *def, NodeList decorators);
Node *str_concat(Node *a, Node *b);                 /* 'a' 'b': a new N_STR */
/* "np.zeros" for a name or a chain of attributes on a name, as messages
 * quote it; NULL for any other expression. */
const char *dotted_name(const Node *e);

/* Drop, with an error, the statements of body (and of the blocks in it)
 * whose expressions are taller than AST_MAX_HEIGHT: a + b + ... with
 * thousands of terms parses without a deep parser stack, but would take as
 * many frames in every recursive pass after. */
void ast_limit_height(NodeList *body);

/* Set by the checker so that the dump shows types; NULL until then. */
extern const char *(*ast_type_namer)(const Type *t);

/* The -d ast dump: one node per line, indented, with kinds, names, values and
 * line:col; types too once checked.  Stable, for golden tests. */
void ast_dump(FILE *out, const Node *n);
/* Pieces of the dumps: an N_STR as a C-like literal ("a\n", b"\x00"), and
 * the shortest decimal form that reads back as the same double. */
void ast_print_str(FILE *out, const Node *str);
void ast_print_double(FILE *out, double v);

/* ==== lex.c ================================================================== */

/* The scanner's literals, in plain C.  Each takes the token's text and
 * location, reports what is wrong with it, and still returns a node so that
 * parsing goes on. */
typedef enum StrForm {
    STR_CLOSED,        /* 'abc' */
    STR_OPEN,          /* 'abc  (unterminated: runs to the end of line or file) */
    STR_FSTRING        /* f'abc' (refused; decoded like a plain string) */
} StrForm;

Node *lex_int(const char *text, size_t len, int base, Loc loc);   /* N_INT */
Node *lex_float(const char *text, size_t len, Loc loc);           /* N_FLOAT */
Node *lex_imag(const char *text, size_t len, Loc loc);            /* N_IMAG: 2j */
Node *lex_bad_number(const char *text, size_t len, Loc loc);      /* reports; N_INT 0 */
Node *lex_string(const char *text, size_t len, Loc loc, StrForm form);  /* N_STR */
/* Non-ASCII bytes where a name or token should be: report them; true when
 * the text is name-like enough to go on as a NAME. */
bool lex_non_ascii(const char *text, size_t len, Loc loc);
/* A comment (or a blank line) the scanner skips: Python reads the whole file
 * as UTF-8, so bytes that are not are reported there too, once per comment. */
void lex_comment(const char *text, size_t len, Loc loc);

/* ==== types.c ================================================================ */

/* Scalar kinds come first, in the order of ufn_dtype, so that a scalar
 * type's kind is its runtime dtype. */
typedef enum TypeKind {
    TY_BOOL, TY_INT8, TY_INT16, TY_INT32, TY_INT64,
    TY_UINT8, TY_UINT16, TY_UINT32, TY_UINT64,
    TY_FLOAT32, TY_FLOAT64, TY_COMPLEX64, TY_COMPLEX128,
    TY_NONE,      /* Python None / void: no value */
    TY_TUPLE,     /* a fixed tuple of values (device-function results, a.shape) */
    TY_ARRAY      /* a gufunc operand: elt, ndim, layout */
} TypeKind;

#define NUM_SCALAR_TYPES (TY_COMPLEX128 + 1)

struct Type {
    TypeKind kind;
    int size;              /* bytes of a scalar; 0 otherwise */
    const char *name;      /* Numba's spelling: "float32", "UniTuple(float32 x 2)", "array(float32, 1d, A)" */
    const char *cname;     /* the C type: "float", "int64_t", "ufn_c64", "ufn_tup2_f32_i64", "ufn_view_f32_1" */
    const char *suffix;    /* short tag for C names: "f32", "i64", "t2_f32_f32", "a1_f32" */
    int nelts;             /* tuple */
    Type **elts;
    Type *elt;             /* array element */
    int ndim;              /* array */
    char layout;           /* array: 'A' any, 'C' or 'F' contiguous */
};

/* Types are unique: compare them with ==. */
Type *ty_scalar(TypeKind kind);
Type *ty_none(void);
Type *ty_tuple(int n, Type *const *elts);
Type *ty_array(Type *elt, int ndim, char layout);
/* A scalar type by Numba name or alias ("float32", "f4", "intp", "double"...); NULL if unknown. */
Type *ty_by_name(const char *name);

bool ty_is_scalar(const Type *t);
bool ty_is_bool(const Type *t);
bool ty_is_int(const Type *t);       /* signed or unsigned, not bool */
bool ty_is_signed(const Type *t);
bool ty_is_unsigned(const Type *t);
bool ty_is_float(const Type *t);
bool ty_is_complex(const Type *t);
bool ty_is_numeric(const Type *t);   /* bool, int, float or complex */
int ty_bits(const Type *t);

/* NumPy's np.promote_types for two scalar types. */
Type *ty_promote_numpy(Type *a, Type *b);
/* Numba's typing of arithmetic between two scalars: integers (and bools)
 * compute in int64, or uint64 when both are unsigned; integers meeting a
 * float or complex follow NumPy's promotion. */
Type *ty_arith(Type *a, Type *b);
/* The type a variable gets when assigned values of both types (Numba's
 * unification); NULL if they cannot unify. */
Type *ty_unify(Type *a, Type *b);
/* May a value of type `from` convert implicitly to `to` (in returns,
 * stores and arguments)?  Complex to real never can. */
bool ty_can_convert(Type *from, Type *to);

const char *type_name(const Type *t);
void types_reset(void);                /* forget derived types (arena_reset calls it) */

/* ==== sig.c ================================================================= */

/* A Numba type signature: 'float32(float32, float32)', '(float32[:], float32[:])',
 * 'void(f8[:, :], f8[:])'.  Parsed by a grammar of its own (never eval'd);
 * errors point at the column inside the string. */
typedef struct Signature {
    const char *text;      /* the string as written */
    Loc loc;               /* the string literal */
    Type *ret;             /* NULL when the return type is omitted */
    int nargs;
    Type **args;           /* scalars, or arrays for gufuncs */
} Signature;

/* A NumPy gufunc layout: '(m,n),(n,p)->(m,p)', '(i)->()', '(3)->(3)'. */
typedef struct Layout {
    const char *text;
    Loc loc;
    int nin, nout;
    int *ndim;             /* per operand (inputs then outputs): core dimensions */
    int **dims;            /* per operand: indices into names[] */
    int nnames;
    const char **names;    /* distinct dimension names in order of first appearance */
    int64_t *fixed;        /* per name: the fixed size for a number, else -1 */
} Layout;

/* Parse the string literal `str` (an N_STR node); NULL after an error. */
Signature *sig_parse(const Node *str);
Layout *layout_parse(const Node *str);
/* The location of byte `offset` of the string literal's contents. */
Loc str_loc(const Node *str, int offset, int len);

/* ==== lex / parse (grammar/) ===================================================== */

/* Parse a whole file.  Syntax errors are reported through diag_error and the
 * parser recovers at statement level; the returned module holds what parsed.
 * Never NULL. */
Node *parse_file(const SrcFile *src);
/* The -d tokens dump: one token per line, for golden tests:
 *   3:5-3:6 NAME x        a span start-end (end exclusive)
 *   4:5 INDENT            zero-width tokens show only where they are
 *   4:5-4:11 return       keywords and operators as written
 * Literals show their value (INT 42, FLOAT 0.5, IMAG 2, STRING "a\n"). */
void dump_tokens(FILE *out, const SrcFile *src);
/* The printable name of a parser token kind, as messages show it: "name",
 * "def", "+", "end of line".  NULL for a kind that does not exist. */
const char *token_name(int kind);

/* ==== builtins.c ============================================================== */

typedef enum ModuleId { MOD_MATH, MOD_CMATH, MOD_NUMPY, MOD_NUMBA, MOD_CUDA } ModuleId;
typedef enum DecoratorId { DEC_VECTORIZE, DEC_GUVECTORIZE, DEC_JIT, DEC_NJIT, DEC_CUDA_JIT } DecoratorId;

/* Functions a kernel may call that are not defs of a module. */
typedef enum Builtin {
    B_NONE = 0,
    B_ABS, B_MIN, B_MAX, B_ROUND, B_INT, B_FLOAT, B_BOOL, B_COMPLEX, B_LEN,
    B_RANGE, B_POW,
    B_UNSUPPORTED,            /* print, enumerate, zip, sum, ...: named in the error */
    B_CAST = 0x100,           /* + TypeKind: np.float32(x), numba.int64(x) */
    B_MATH = 0x200,           /* + index into math_fns: math.sqrt, np.sqrt */
    B_CMATH = 0x400           /* + index into cmath_fns */
} Builtin;

/* How a math function types its result (compiler/math.def explains each). */
typedef enum MathKind {
    MK_FLOAT, MK_ROUND, MK_PRED, MK_POW, MK_LDEXP,
    CK_COMPLEX, CK_REAL, CK_PRED, CK_RECT, CK_POLAR
} MathKind;

typedef struct MathFn {
    const char *name;         /* Python name */
    int nargs;
    MathKind kind;
    const char *cname[2];     /* float32 / complex64 version, float64 / complex128 version */
} MathFn;

extern const MathFn math_fns[];
extern const int num_math_fns;
extern const MathFn cmath_fns[];
extern const int num_cmath_fns;

/* The row of a math (cmath) function for a number of arguments: math.log
 * has one row for log(x) and one for log(x, base).  -1 if none. */
int math_row(const MathFn *fns, int n, const char *name, int nargs);

/* A Python builtin by name (abs, min, ...), or B_NONE. */
int builtin_lookup(const char *name);
/* How a builtin is spelled in messages: "abs", "math.sqrt", "np.float32". */
const char *builtin_name(int b);
/* Resolve `module.attr` into *out; false if the module has no such name
 * that ufnc supports. */
bool module_attr(ModuleId mod, const char *attr, Loc loc, Sym *out);
const char *module_name(ModuleId mod);

/* ==== check: check.c, infer.c, builtins.c, fold.c ================================== */

/* A compile-time value: module constants and folded literals. */
typedef struct Value {
    Type *type;            /* a scalar type; NULL for a module-level string, which
                            * Python allows and kernels cannot use */
    bool weak;             /* a Python number (int, float, bool, complex: a literal or
                            * computed from them), not a NumPy scalar such as the
                            * result of a cast (NEP 50's "weak" values) */
    union {
        int64_t i;         /* signed ints and bool */
        uint64_t u;        /* unsigned ints */
        double f;          /* floats (float32 values are rounded to float) */
        double c[2];       /* complex: real, imaginary */
    };
} Value;

typedef enum SymKind {
    SYM_LOCAL,       /* a variable of the function being typed */
    SYM_CONST,       /* a module constant, folded */
    SYM_FUNC,        /* a def of this or an imported module */
    SYM_MODULE,      /* math, cmath, numpy, numba, numba.cuda */
    SYM_BUILTIN,     /* abs, min, range, math.sqrt, np.float32, ... */
    SYM_DECORATOR    /* vectorize, guvectorize, jit, njit, cuda.jit */
} SymKind;


struct Var {
    const char *name;      /* as in the source */
    const char *cname;     /* in generated C */
    Type *type;            /* unified over every assignment */
    Loc loc;               /* first assignment (or the parameter) */
    bool param;
    bool temp;             /* made by the checker */
    bool failed;           /* an assignment to it was an error (reported): its uses stay quiet */
    int ndefs;             /* places that bind it: assignments and loop headers */
    bool nonneg;           /* only bound by a range() counting up from a constant >= 0:
                              an index needs no wrap-around for negative values */
};

struct Sym {
    SymKind kind;
    const char *name;
    Loc loc;               /* where it was bound */
    union {
        Var *var;
        Value value;
        Func *func;
        ModuleId module;
        int builtin;       /* a Builtin */
        DecoratorId decorator;
    };
};

typedef enum FuncKind {
    FK_PLAIN,              /* no decorator: not compiled unless called (then an error) */
    FK_VECTORIZE,          /* a ufunc: one kernel per signature */
    FK_GUVECTORIZE,        /* a gufunc */
    FK_DEVICE,             /* @cuda.jit(device=True) */
    FK_JIT,                /* @jit / @njit helper, callable from kernels */
    FK_CUDA_KERNEL         /* @cuda.jit kernel: outside the subset */
} FuncKind;

typedef struct Module Module;

struct Func {
    Node *def;
    const char *name;          /* the Python name */
    FuncKind kind;
    Module *module;            /* where it is defined */
    const char *target;        /* target= of the decorator, or NULL */
    Signature **sigs;          /* ufuncs and gufuncs */
    int nsigs;
    bool default_sigs;         /* @vectorize without signatures: ufnc chose them */
    Layout *layout;            /* gufuncs */
    Instance **instances;      /* kernels: one per signature; helpers: per argument types */
    int ninstances;
    const char *public_name;   /* the C name in the header (with --prefix) */
};

/* Where an instance is in its typing (check.c instantiate). */
typedef enum InstanceState {
    I_FRESH,          /* made, not typed */
    I_INFERRING,      /* silent passes running: a call now is a recursion */
    I_INFERRED,       /* types known, body not built */
    I_FINALIZING,     /* the final pass running (errors reported) */
    I_DONE            /* typed body built, or failed with errors reported */
} InstanceState;

/* One typed copy of a function: a kernel signature, or a helper for one
 * tuple of argument types.  The checker fills everything; the emitters only
 * read it. */
struct Instance {
    Func *func;
    int nargs;
    Type **args;
    Type *ret;                 /* declared, or inferred (helpers); TY_NONE for gufuncs */
    Var **vars;                /* parameters first, then locals */
    int nvars;
    NodeList body;             /* typed statements */
    const char *cname;         /* the C function of the scalar body */
    Signature *sig;            /* kernels */
    int index;                 /* position in func->instances */
    int state;                 /* an InstanceState */
    bool failed;
    bool recursive;            /* calls itself, directly or not */
};

typedef struct Scope Scope;

struct Module {
    const char *name;          /* C-safe module name: "polar" */
    Scope *globals;            /* module-level names */
    const SrcFile *src;
    Node *ast;
    Func **funcs;              /* every def, in source order */
    int nfuncs;
    Func **kernels;            /* @vectorize and @guvectorize, in source order */
    int nkernels;
    Instance **helpers;        /* helper instances, callees before callers */
    int nhelpers;
    const char **deps;         /* every .ufn read (for -MD), this one first */
    int ndeps;
    bool recursive;            /* some helper recurses: device code needs a stack */
};

/* fold.c: evaluate module-level constant expressions with Python's rules. */
typedef bool (*NameResolver)(void *ctx, const Node *expr, Sym *out);
/* True with *out set if `e` is a constant expression; otherwise false, after
 * an error saying why when `report` is set. */
bool fold_const(const Node *e, NameResolver resolve, void *ctx, bool report, Value *out);
/* Convert a constant with the generated code's rules (float to int
 * truncates and saturates, NaN becomes 0; narrowing ints wrap). */
Value value_cast(Value v, Type *to);

typedef struct CheckOptions {
    const char *module_name;   /* C-safe; defaults from the file name */
    const char *prefix;        /* prepended to public names ("" if none) */
    const char **include_dirs; /* for import of other .ufn modules */
    int ninclude_dirs;
    bool numpy_literals;       /* --literals=numpy: a Python number meeting a float32
                                  takes float32 (NEP 50) instead of promoting (Numba) */
} CheckOptions;

/* check.c internals shared with infer.c */
typedef struct Checker Checker;
Sym *scope_lookup(Scope *s, const char *name);
/* A module-level name or dotted module attribute (math.pi) of module m. */
bool resolve_global(Module *m, const Node *e, Sym *out);
/* The helper instance of `f` for these argument types: inferred (silent) in
 * a tentative pass, finalised (typed body, errors reported) in a final one.
 * NULL if `f` cannot be called from a kernel (an error was reported when
 * `final`). */
Instance *instantiate(Checker *ck, Func *f, Type **args, int nargs, bool final, Loc call);
const CheckOptions *checker_options(const Checker *ck);
/* infer.c: type one instance's body.  `final` reports errors and builds the
 * typed body; otherwise only variable types and the return type widen. */
void infer_instance(Checker *ck, Instance *inst, bool final);
/* flow.c: report (once per variable) a local that is used where no
 * assignment to it can have run, as Numba does. */
void check_assigned_before_use(const Instance *inst);
/* A C identifier for a Python name, renamed if it would clash with C, CUDA
 * or a function the generated code uses. */
const char *c_safe_name(const char *name);
bool is_reserved_c_name(const char *name);

/* The suffix of a kernel signature's typed entry point: "float32", or
 * "int32_float64" when the inputs differ (DESIGN 3). */
const char *typed_entry_suffix(const Func *f, const Signature *sig);

/* infer.c, infer_expr.c, infer_call.c: typing one instance.  The state of
 * one pass over a body, and the functions the three files share. */
typedef struct Infer {
    Checker *ck;
    Instance *inst;
    Module *mod;            /* the module the function is defined in */
    bool final;             /* report errors and build the typed body */
    bool changed;           /* a variable or the return type widened */
    int loops;              /* nesting of loops, for break/continue */
    int ntemps;
} Infer;

const char *infer_fname(Infer *cx);
Node *infer_fail(Infer *cx, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
Node *infer_unknown(Node *e);
Var *infer_find_var(Infer *cx, const char *name);
Var *infer_new_temp(Infer *cx, Type *t);
Node *infer_typed(Node *n, Type *t);
bool infer_is_literal(const Node *e);
Value infer_literal_value(const Node *e);
Node *infer_const(Loc loc, Value v);
bool infer_is_weak(const Node *e);
void infer_narrow(Infer *cx, Node **l, Node **r);
Node *infer_cast(Node *e, Type *t);
Node *infer_truth(Infer *cx, Node *e);
bool infer_resolve(Infer *cx, const Node *e, Sym *out);
Node *infer_name(Infer *cx, Node *e);
Node *infer_binary(Infer *cx, Node *e, Node *l, Node *r);
bool infer_is_simple(const Node *e);
Node *infer_call(Infer *cx, Node *e);
Node *infer_mkcall(Node *e, int b, NodeList *args, Type *t);
Node *infer_arity(Infer *cx, Node *e, const char *name, int min, int max, int n);
Node *infer_expr(Infer *cx, Node *e);
void infer_mark_failed(Infer *cx, Node *t);

/* Check a parsed module: resolve names, read decorators, fold constants and
 * type every kernel signature and every helper it calls.  Errors go through
 * diag; the result is meaningful only when diag_error_count() is 0. */
Module *check_module(Node *ast, const SrcFile *src, const CheckOptions *opt);

/* ==== emit: emit_body.c, emit_cuda.c, emit_host.c, emit_header.c ========================= */

typedef struct EmitOptions {
    bool cuda, host, sim;          /* which targets the object carries */
    bool line_directives;          /* #line back to the .ufn in generated C */
    const char *fatbin_path;       /* embedded with .incbin; NULL without cuda */
    size_t fatbin_size;
    const char *output_name;       /* the generated file's name, for #line resets */
} EmitOptions;

/* A writer of generated C: the text, its line count (for #line) and the
 * current indentation. */
typedef struct Emitter {
    Buf *out;
    const EmitOptions *opt;
    Module *mod;
    int indent;
    int loop_depth;                /* for unique loop counters */
    bool in_recursive;             /* emitting a recursive helper: it has ufn_depth */
    const char *file_name;         /* of the generated file, for #line resets */
} Emitter;

void emit_line(Emitter *em, const char *fmt, ...) PRINTF_LIKE(2, 3);   /* indented, with newline */
void emit_text(Emitter *em, const char *fmt, ...) PRINTF_LIKE(2, 3);   /* as is */
/* Types (tuple structs, array views) and scalar bodies shared by every
 * generated file: the one body that both compilers build. */
void emit_body_types(Emitter *em);
void emit_bodies(Emitter *em);
/* The C spelling of a typed expression / a load of one element. */
void emit_expr(Emitter *em, const Node *e);
/* polar.cu, the host stub, polar.h */
void emit_cuda(Buf *out, Module *m, const EmitOptions *opt);
void emit_host(Buf *out, Module *m, const EmitOptions *opt);
void emit_header(Buf *out, Module *m, const EmitOptions *opt);
/* s as a C string literal, quotes included ("a\\\"b"). */
const char *c_string_literal(const char *s);
/* Names shared by the emitters. */
const char *kernel_name(const Instance *inst, const char *variant);   /* "polar__f__f32__contig" */
const char *host_loop_name(const Instance *inst);
void emit_view_makers(Emitter *em);
/* The argument expression of operand k of a gufunc body: a view built from
 * `ptr`, the core dimension sizes (by name index) and core strides. */
const char *gufunc_view(const Instance *inst, int k, const char *ptr, const char *const *core_dims,
                        const char *core_strides);
/* Public prototypes (without ';'), shared by the header and the host stub. */
void entry_general_proto(Buf *b, const Func *f);
void entry_typed_proto(Buf *b, const Func *f, const Instance *inst);
const char *public_param(const Func *f, int k);
const char *core_param(const Func *f, int d);
const char *describe_kernel(const Func *f);

/* ==== driver.c ================================================================ */

typedef struct DriverOptions {
    const char *nvcc;              /* --nvcc, $NVCC, $CUDA_HOME/bin/nvcc, PATH; NULL: find it */
    const char *cc;                /* --cc, $CC, cc */
    const char **nvcc_extra;       /* -Xnvcc arguments */
    int nnvcc_extra;
    const char *arch;              /* --arch=sm_80,sm_90; NULL: the default list */
    int opt_level;                 /* -O0..-O3 */
    bool fast_math;
    bool verbose;                  /* -v: print every tool command */
    bool keep;                     /* --keep: keep the temporary directory */
} DriverOptions;

/* Exit statuses (DESIGN 1). */
enum { EXIT_OK = 0, EXIT_SOURCE = 1, EXIT_USAGE = 2, EXIT_TOOL = 3 };

/* A private temporary directory, removed on every exit and on SIGINT, SIGTERM
 * and SIGHUP (with any output being written).  Returns its path. */
const char *driver_tempdir(const DriverOptions *opt);
/* Write a file whole: into a temporary next to `path`, then rename(2), so
 * `path` is either the complete new file or untouched.  0 or -1 (reported). */
int write_file_atomic(const char *path, const char *data, size_t len);
int copy_file_atomic(const char *path, const char *src);
/* The outputs a run writes are claimed first; a failed run discards them
 * (and a signal does) so no older, stale output is left (DESIGN 1).  Only
 * regular files are removed. */
void driver_claim_output(const char *path);
void driver_discard_outputs(void);
/* Run a tool (argv[0] is looked up in PATH) inside directory `dir` (NULL:
 * here); -v shows "(cd dir && ...)".  Returns its exit status, or -1 if it
 * could not run (reported). */
int run_tool_in(const DriverOptions *opt, const char *dir, const char *const *argv);
/* The same, with the tool's standard output and error appended to `out`
 * (for nvcc, whose report ufnc reads: nvcc_report.c).  Every tool runs with
 * TMPDIR set to the private directory, once there is one. */
int run_tool_capture(const DriverOptions *opt, const char *dir, const char *const *argv, Buf *out);
/* The nvcc to use, or NULL (with *why set) when there is none. */
const char *find_nvcc(const DriverOptions *opt, const char **why);
/* GPU architectures are numbers: 90 for sm_90. */
#define MAX_ARCHS 64
/* Every sm_75+ that `nvcc --list-gpu-code` names, into archs[MAX_ARCHS]:
 * the count, 0 when the query fails. */
int default_archs(const DriverOptions *opt, const char *nvcc, int *archs);
/* An --arch list ("sm_80,compute_90"): the count, or 0 with *error set. */
int parse_archs(const char *list, int *archs, const char **error);
/* nvcc's -gencode arguments: SASS for each, and PTX of the newest. */
const char **gencode_args(const int *archs, int n, int *nargs);
/* Write the embedded support headers (ufn.h, ufn_abi.h, ...) into dir. */
int write_support_headers(const char *dir);
/* A make rule "targets: deps" as gcc writes it: the targets as given
 * (quote them with make_quote first where gcc would: -MQ and the default
 * targets), the dependencies quoted, lines wrapped at column 72, and with
 * `phony` a rule "dep:" for each dependency but the first (-MP). */
void depfile_text(Buf *out, const char *const *targets, int ntargets, const char *const *deps, int ndeps,
                  bool phony);
const char *make_quote(const char *name);

/* ==== nvcc_report.c ============================================================ */

/* What nvcc printed (ptxas's resource usage included), in ufnc's terms.
 * After a successful build: nvcc's messages go to `out`, less the
 * resource usage unless `show_usage`; each kernel or helper that ptxas
 * spilled gets a -Wspill warning at its name, naming the architectures
 * (a recursive helper's stack is not a spill to warn of). */
void nvcc_report_built(FILE *out, const Module *m, const char *text, bool show_usage);
/* After a failed build (exit `status`): nvcc's messages to `out` (less the
 * resource usage), then an error at each function they name (or one for
 * the module) naming the failed architectures (none known: all of them),
 * and what to do. */
void nvcc_report_failed(FILE *out, const Module *m, const char *text, int status, const int *failed,
                        int nfailed, const int *all, int nall);

/* ==== options.c, build.c, main.c ================================================= */

typedef enum OutputKind { OUT_OBJECT, OUT_CU, OUT_C, OUT_H, OUT_PTX } OutputKind;

typedef struct Options {
    const char *input;
    const char *output;            /* -o (default FILE.o) */
    OutputKind kind;               /* from the output's extension */
    const char *header;            /* -H (default next to the object) */
    bool cuda, host, sim;          /* --target */
    bool targets_given;
    const char *prefix;            /* --prefix */
    const char *module_name;       /* --module-name (default: from the input) */
    const char **include_dirs;     /* -I */
    int ninclude_dirs;
    bool md, mp;                   /* -MD / -MMD, -MP */
    const char *mf;                /* -MF, or the output's name with .d (with -MD) */
    const char **mt;               /* -MT, repeatable: written as given */
    int nmt;
    const char **mq;               /* -MQ, repeatable: quoted for make */
    int nmq;
    const char *dump;              /* -d tokens|ast|types */
    ColorMode color;
    bool werror, no_warnings;
    int max_errors;                /* -fmax-errors (0: no limit) */
    bool line_directives;
    bool numpy_literals;           /* --literals=numpy */
    DriverOptions drv;
} Options;

/* Parse the command line; exits with EXIT_USAGE (after a message) on misuse
 * and with 0 for --help and --version. */
void parse_options(int argc, char **argv, Options *opt);
/* From the checked module to the requested output files. */
/* Claim (driver_claim_output) every file the run will write: the output,
 * the header, the dependency file. */
void claim_outputs(const Options *opt);
int build_outputs(Module *m, const Options *opt);
/* -d types: every instance with its variables and typed body. */
void dump_types(FILE *out, const Module *m);

#endif /* UFNC_H */
