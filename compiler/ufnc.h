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
 *   scope.c   the names of a module
 *   imports.c what an import statement names; finding other .ufn modules
 *   decorate.c  decorators, signature lists, a kernel's usable signatures
 *   jit.c     a @cuda.jit kernel's signatures: eager, --signature, lazy defaults
 *   check.c   the module level: statements, imported modules, the kernels
 *   instance.c  the instances to compile, typed (silently) to a fixpoint
 *   flow.c    locals used before they are assigned
 *   infer.c   typing one instance (typed clones per signature): statements
 *             here, infer_expr.c expressions, infer_call.c calls,
 *             infer_node.c what the three share, infer_cuda.c numba.cuda
 *             in kernels and device functions
 *   names.c   the C names of the generated code
 *   dump.c    -d types
 *   emit.c    the emitters' base: writing, #line, entry-point prototypes
 *   emit_expr.c, emit_body.c  the scalar bodies shared by polar.cu and the
 *             host stub: expressions, and types, statements, functions
 *   kernel_uses.c  what a @cuda.jit kernel's code uses; its host form
 *   emit_cuda.c, emit_host.c, emit_header.c  polar.cu, the host stub, polar.h
 *   emit_kernel.c, emit_kernel_host.c  @cuda.jit kernels in both
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

/* What the generated code and libufnrt agree on: the compiler reads the
 * same header, so the limits and dtypes below are the runtime's, not
 * copies (TypeKind is checked against ufn_dtype where it is defined). */
#include "ufn_abi.h"

/* Operands (inputs and outputs) of one ufunc: libufnrt's UFN_MAXARGS, an
 * internal constant of the runtime's (test_abi asserts they agree). */
#define UFN_MAX_OPERANDS 32
#define UFN_CORE_MAXDIMS UFN_KMAXCORE   /* core dimensions of one operand */

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
unsigned arena_generation(void);                /* how many resets so far */

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
void diag_note(Loc loc, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* An error with no source position: "ufnc: error: message". */
void diag_fatal(const char *fmt, ...) PRINTF_LIKE(1, 2);
int diag_error_count(void);
int diag_warning_count(void);

typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;
void diag_init(FILE *out, ColorMode color, bool werror, bool no_warnings);
void diag_reset(void);                       /* zero the counts (tests, fuzzing) */
/* A warning, always of a named group ("spill", diag.c's table): its
 * option ends the message, [-Wspill], and -Wno-spill, -Werror=spill,
 * -Wno-error=spill apply. */
void diag_warning_group(Loc loc, const char *group, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Apply one of those options; false if it names no known group. */
bool diag_warning_option(const char *opt);
/* The names of the groups, "spill, implicit-signature, ...". */
const char *diag_warning_names(void);
/* Hold every diagnostic from now on, until diag_flush prints them sorted:
 * by file (in the order they first appear), line and column, each with
 * its notes; those without a place last, in the order they came. */
void diag_hold(void);
void diag_flush(void);
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
typedef struct MathFn MathFn;

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

/* What an attribute of a value reads: the checker decides it, so that the
 * emitters never compare attribute names. */
typedef enum AttrKind {
    ATTR_NONE,             /* as parsed (or a module's name: math.pi) */
    ATTR_REAL,             /* z.real of a complex number */
    ATTR_IMAG,             /* z.imag */
    ATTR_SHAPE,            /* a.shape of an array: a tuple of int64 */
    ATTR_STRIDES,          /* a.strides: in bytes, as NumPy's */
    ATTR_SIZE,             /* a.size: the number of elements */
    ATTR_EXTENT            /* a.shape[k] for a constant k: attr.axis */
} AttrKind;

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
            int builtin;            /* a Builtin, or B_NONE for a helper */
            const MathFn *math;     /* B_MATH, B_CMATH: the math.def row for these arguments */
            Instance *callee;       /* a helper instance, or NULL */
            int cuda;               /* B_CUDA: the CudaFn */
            int slot;               /* cuda.shared/local.array: its storage, numbered per
                                       function in source order (infer_cuda.c) */
        } call;
        struct { const char *name; Node *value; } keyword;
        struct {
            Node *value;
            const char *attr;
            AttrKind which;         /* checker: what it reads */
            int axis;               /* ATTR_EXTENT */
        } attr;
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

/* The -d ast dump: one node per line, indented, with kinds, names, values and
 * line:col; the type of each typed node too (-d types dumps the checker's
 * typed bodies with it).  Stable, for golden tests. */
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

#define TYPE_IS_DTYPE(t, d) ((int)(t) == (int)(d))
_Static_assert(TYPE_IS_DTYPE(TY_BOOL, UFN_BOOL) && TYPE_IS_DTYPE(TY_INT8, UFN_INT8)
                   && TYPE_IS_DTYPE(TY_INT16, UFN_INT16) && TYPE_IS_DTYPE(TY_INT32, UFN_INT32)
                   && TYPE_IS_DTYPE(TY_INT64, UFN_INT64) && TYPE_IS_DTYPE(TY_UINT8, UFN_UINT8)
                   && TYPE_IS_DTYPE(TY_UINT16, UFN_UINT16) && TYPE_IS_DTYPE(TY_UINT32, UFN_UINT32)
                   && TYPE_IS_DTYPE(TY_UINT64, UFN_UINT64) && TYPE_IS_DTYPE(TY_FLOAT32, UFN_FLOAT32)
                   && TYPE_IS_DTYPE(TY_FLOAT64, UFN_FLOAT64) && TYPE_IS_DTYPE(TY_COMPLEX64, UFN_COMPLEX64)
                   && TYPE_IS_DTYPE(TY_COMPLEX128, UFN_COMPLEX128),
               "a scalar type's kind is its ufn_dtype");

#define NUM_SCALAR_TYPES (TY_COMPLEX128 + 1)

struct Type {
    TypeKind kind;
    int size;              /* bytes of a scalar; 0 otherwise */
    const char *name;      /* Numba's spelling: "float32", "UniTuple(float32 x 2)", "array(float32, 1d, A)"
                              (its C spelling is names.c's c_type) */
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
/* np.can_cast(from, to, 'safe') for two scalar types: no value changes. */
bool ty_can_cast_safe(const Type *from, const Type *to);

const char *type_name(const Type *t);
void types_reset(void);                /* forget derived types (done by itself after arena_reset) */

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
    bool lazy;             /* a lazy kernel's default signature: dropped, not an error,
                              when the kernel does not type for it (jit.c) */
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

typedef enum ModuleId {
    MOD_MATH, MOD_CMATH, MOD_NUMPY, MOD_NUMBA, MOD_CUDA,
    /* the namespaces inside numba.cuda: cuda.atomic, cuda.shared,
     * cuda.local, and the four dim3 values threadIdx, blockIdx, blockDim,
     * gridDim, whose .x .y .z are values (CudaFn) */
    MOD_CUDA_ATOMIC, MOD_CUDA_SHARED, MOD_CUDA_LOCAL,
    MOD_CUDA_TID, MOD_CUDA_BID, MOD_CUDA_BDIM, MOD_CUDA_GDIM
} ModuleId;
typedef enum DecoratorId { DEC_VECTORIZE, DEC_GUVECTORIZE, DEC_JIT, DEC_NJIT, DEC_CUDA_JIT } DecoratorId;

/* How a math function types its result (compiler/math.def explains each). */
typedef enum MathKind {
    MK_FLOAT, MK_ROUND, MK_PRED, MK_POW, MK_LDEXP,
    CK_COMPLEX, CK_REAL, CK_PRED, CK_RECT, CK_POLAR
} MathKind;

struct MathFn {
    const char *name;         /* Python name */
    int nargs;
    MathKind kind;
    const char *cname[2];     /* float32 / complex64 version, float64 / complex128 version */
};

extern const MathFn math_fns[];
extern const int num_math_fns;
extern const MathFn cmath_fns[];
extern const int num_cmath_fns;

/* Functions a kernel may call that are not defs of a module. */
typedef enum Builtin {
    B_NONE = 0,
    B_ABS, B_MIN, B_MAX, B_ROUND, B_INT, B_FLOAT, B_BOOL, B_COMPLEX, B_LEN,
    B_RANGE, B_POW,
    B_CONJUGATE,              /* z.conjugate() */
    B_CAST,                   /* np.float32(x), numba.int64(x): BuiltinRef.cast */
    B_MATH,                   /* math.sqrt, np.sqrt: BuiltinRef.fn is a row of math_fns */
    B_CMATH,                  /* cmath.exp: a row of cmath_fns */
    B_CUDA,                   /* cuda.grid, cuda.threadIdx.x, ...: BuiltinRef.cuda */
    B_PRINT,                  /* print() in a @cuda.jit kernel: strings and scalars */
    B_UNSUPPORTED             /* print, enumerate, zip, sum, ...: named in the error */
} Builtin;

/* What a builtin name refers to: the builtin, and for a math function its
 * row (the first of its name: the checker picks the row for the number of
 * arguments), for a cast the type. */
/* What @cuda.jit kernels use of numba.cuda (infer_cuda.c types them,
 * emit_kernel.c spells them): X(id, Python name, namespace, arguments:
 * -1 for a value such as threadIdx.x, else the fewest, the most). */
#define CUDA_FNS(X)                                                              \
    X(CU_TID_X, "x", MOD_CUDA_TID, -1, -1) X(CU_TID_Y, "y", MOD_CUDA_TID, -1, -1)   \
    X(CU_TID_Z, "z", MOD_CUDA_TID, -1, -1)                                       \
    X(CU_BID_X, "x", MOD_CUDA_BID, -1, -1) X(CU_BID_Y, "y", MOD_CUDA_BID, -1, -1)   \
    X(CU_BID_Z, "z", MOD_CUDA_BID, -1, -1)                                       \
    X(CU_BDIM_X, "x", MOD_CUDA_BDIM, -1, -1) X(CU_BDIM_Y, "y", MOD_CUDA_BDIM, -1, -1) \
    X(CU_BDIM_Z, "z", MOD_CUDA_BDIM, -1, -1)                                     \
    X(CU_GDIM_X, "x", MOD_CUDA_GDIM, -1, -1) X(CU_GDIM_Y, "y", MOD_CUDA_GDIM, -1, -1) \
    X(CU_GDIM_Z, "z", MOD_CUDA_GDIM, -1, -1)                                     \
    X(CU_LANEID, "laneid", MOD_CUDA, -1, -1)                                     \
    X(CU_WARPSIZE, "warpsize", MOD_CUDA, -1, -1)                                 \
    X(CU_GRID, "grid", MOD_CUDA, 1, 1)                                           \
    X(CU_GRIDSIZE, "gridsize", MOD_CUDA, 1, 1)                                   \
    X(CU_SYNCTHREADS, "syncthreads", MOD_CUDA, 0, 0)                             \
    X(CU_SYNCTHREADS_COUNT, "syncthreads_count", MOD_CUDA, 1, 1)                 \
    X(CU_SYNCTHREADS_AND, "syncthreads_and", MOD_CUDA, 1, 1)                     \
    X(CU_SYNCTHREADS_OR, "syncthreads_or", MOD_CUDA, 1, 1)                       \
    X(CU_SYNCWARP, "syncwarp", MOD_CUDA, 0, 1)                                   \
    X(CU_THREADFENCE, "threadfence", MOD_CUDA, 0, 0)                             \
    X(CU_THREADFENCE_BLOCK, "threadfence_block", MOD_CUDA, 0, 0)                 \
    X(CU_THREADFENCE_SYSTEM, "threadfence_system", MOD_CUDA, 0, 0)               \
    X(CU_SHFL, "shfl_sync", MOD_CUDA, 3, 3)                                      \
    X(CU_SHFL_UP, "shfl_up_sync", MOD_CUDA, 3, 3)                                \
    X(CU_SHFL_DOWN, "shfl_down_sync", MOD_CUDA, 3, 3)                            \
    X(CU_SHFL_XOR, "shfl_xor_sync", MOD_CUDA, 3, 3)                              \
    X(CU_BALLOT, "ballot_sync", MOD_CUDA, 2, 2)                                  \
    X(CU_ALL, "all_sync", MOD_CUDA, 2, 2)                                        \
    X(CU_ANY, "any_sync", MOD_CUDA, 2, 2)                                        \
    X(CU_ACTIVEMASK, "activemask", MOD_CUDA, 0, 0)                               \
    X(CU_LANEMASK_LT, "lanemask_lt", MOD_CUDA, 0, 0)                             \
    X(CU_ATOMIC_ADD, "add", MOD_CUDA_ATOMIC, 3, 3)                               \
    X(CU_ATOMIC_SUB, "sub", MOD_CUDA_ATOMIC, 3, 3)                               \
    X(CU_ATOMIC_MAX, "max", MOD_CUDA_ATOMIC, 3, 3)                               \
    X(CU_ATOMIC_MIN, "min", MOD_CUDA_ATOMIC, 3, 3)                               \
    X(CU_ATOMIC_NANMAX, "nanmax", MOD_CUDA_ATOMIC, 3, 3)                         \
    X(CU_ATOMIC_NANMIN, "nanmin", MOD_CUDA_ATOMIC, 3, 3)                         \
    X(CU_ATOMIC_EXCH, "exch", MOD_CUDA_ATOMIC, 3, 3)                             \
    X(CU_ATOMIC_AND, "and_", MOD_CUDA_ATOMIC, 3, 3)                              \
    X(CU_ATOMIC_OR, "or_", MOD_CUDA_ATOMIC, 3, 3)                                \
    X(CU_ATOMIC_XOR, "xor", MOD_CUDA_ATOMIC, 3, 3)                               \
    X(CU_ATOMIC_INC, "inc", MOD_CUDA_ATOMIC, 3, 3)                               \
    X(CU_ATOMIC_DEC, "dec", MOD_CUDA_ATOMIC, 3, 3)                               \
    X(CU_ATOMIC_CAS, "cas", MOD_CUDA_ATOMIC, 4, 4)                               \
    X(CU_ATOMIC_COMPARE_AND_SWAP, "compare_and_swap", MOD_CUDA_ATOMIC, 3, 3)     \
    X(CU_SHARED_ARRAY, "array", MOD_CUDA_SHARED, 1, 2)                           \
    X(CU_LOCAL_ARRAY, "array", MOD_CUDA_LOCAL, 1, 2)

typedef enum CudaFn {
#define X(id, name, ns, min, max) id,
    CUDA_FNS(X)
#undef X
    NUM_CUDA_FNS
} CudaFn;

typedef struct CudaFnInfo {
    const char *name;
    ModuleId ns;
    int min, max;             /* arguments; -1: a value, not a call */
} CudaFnInfo;
extern const CudaFnInfo cuda_fns[];

typedef struct BuiltinRef {
    Builtin id;
    const MathFn *fn;
    Type *cast;
    CudaFn cuda;              /* B_CUDA */
} BuiltinRef;

/* The row of math function `name` (B_MATH: math_fns, B_CMATH: cmath_fns)
 * taking nargs arguments: math.log has one row for log(x) and one for
 * log(x, base).  NULL if none. */
const MathFn *math_row(Builtin table, const char *name, int nargs);

/* A Python builtin by name (abs, min, ...), or B_NONE. */
Builtin builtin_lookup(const char *name);
/* How a builtin is spelled in messages: "abs", "math.sqrt", "np.float32". */
const char *builtin_name(BuiltinRef b);
/* Resolve `module.attr` into *out; false if the module has no such name
 * that ufnc supports. */
bool module_attr(ModuleId mod, const char *attr, Loc loc, Sym *out);
const char *module_name(ModuleId mod);

/* ==== check: scope.c, imports.c, decorate.c, check.c, instance.c, flow.c, infer*.c, names.c ==== */

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
    const char *cname;     /* in generated C (names.c) */
    const char *arg_cname; /* a parameter the body widens: the C parameter it arrives in */
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
        BuiltinRef builtin;
        DecoratorId decorator;
    };
};

typedef enum FuncKind {
    FK_PLAIN,              /* no decorator: not compiled unless called (then an error) */
    FK_VECTORIZE,          /* a ufunc: one kernel per signature */
    FK_GUVECTORIZE,        /* a gufunc */
    FK_DEVICE,             /* @cuda.jit(device=True) */
    FK_JIT,                /* @jit / @njit helper, callable from kernels */
    FK_CUDA_KERNEL         /* @cuda.jit kernel, launched explicitly (jit.c) */
} FuncKind;

typedef struct Module Module;
typedef struct CheckOptions CheckOptions;

/* @vectorize(..., identity=...), as Numba reads it. */
typedef enum Identity {
    ID_NONE,                   /* None, the default */
    ID_ZERO,                   /* 0 (or False) */
    ID_ONE,                    /* 1 (or True) */
    ID_REORDERABLE             /* 'reorderable' */
} Identity;

/* The methods of a binary ufunc with T(T, T) signatures (DESIGN 7). */
typedef enum Method { M_REDUCE, M_ACCUMULATE, M_OUTER, NUM_METHODS } Method;

struct Func {
    Node *def;
    const char *name;          /* the Python name */
    FuncKind kind;
    Module *module;            /* where it is defined */
    const char *target;        /* target= of the decorator, or NULL */
    Signature **sigs;          /* ufuncs and gufuncs */
    int nsigs;
    bool default_sigs;         /* @vectorize without signatures: ufnc chose them */
    bool lazy;                 /* @cuda.jit without signatures: the default set (jit.c) */
    Layout *layout;            /* gufuncs */
    Instance **instances;      /* kernels: one per usable signature; helpers: per argument types */
    int ninstances;
    bool too_many;             /* instance.c refused more instances (reported) */
    const char *public_name;   /* the C name in the header (with --prefix) */
    const char **param_cnames; /* kernels: the entry points' operand parameters (names.c) */
    const char **core_cnames;  /* gufuncs: the typed entries' core dimension parameters */
    Identity identity;         /* ufuncs */
    const char *method_cnames[NUM_METHODS];  /* NAME_reduce, ...; NULL: no methods (names.c) */
};

/* Where an instance is in its typing. */
typedef enum InstanceState {
    I_NEW,            /* made by the instance pass, not typed */
    I_TYPED,          /* silently typed: its variables' and return types are known */
    I_DONE            /* typed body built, or failed with errors reported (infer_bodies) */
} InstanceState;

/* A helper call in an instance's body, as its last silent typing saw it:
 * the instance pass makes the callee when it does not exist yet. */
typedef struct Call {
    Func *func;
    Type **args;
    int nargs;
    Loc loc;
    Instance *callee;          /* NULL until the instance pass makes it */
} Call;

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
    const char *cname;         /* the C function of the scalar body (names.c) */
    const char *out_cname;     /* a ufunc's output operand in its kernels (names.c) */
    const char *entry_cname;   /* a kernel signature's typed entry point (names.c) */
    const char *depth_cname;   /* a recursive helper's hidden first parameter, its depth (names.c) */
    Signature *sig;            /* kernels */
    int index;                 /* position in func->instances */
    InstanceState state;
    bool failed;
    bool recursive;            /* calls itself, directly or not */
    bool probe_failed;         /* the last silent pass met an error (lazy kernels drop such
                                  a candidate signature instead of reporting it) */
    int nslots;                /* cuda.shared/local.array calls in the body */
    /* instance.c's */
    bool dirty;                /* to be typed (again) */
    Call *calls;               /* helper calls of the last silent typing, in order */
    int ncalls, capcalls;
    Instance **reach;          /* a kernel instance: the helpers first reached from it, callees first */
    int nreach;
    int walk;                  /* the walk over the calls */
};

typedef struct Scope Scope;

struct Module {
    const char *name;          /* C-safe module name: "polar" */
    const CheckOptions *opt;   /* of the whole compilation */
    Scope *globals;            /* module-level names */
    const SrcFile *src;
    Node *ast;
    Func **funcs;              /* every def, in source order */
    int nfuncs;
    Func **kernels;            /* @vectorize and @guvectorize, in source order */
    int nkernels;
    Instance **helpers;        /* helper instances reached from the kernels, callees first */
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

struct CheckOptions {
    const char *module_name;   /* C-safe; defaults from the file name */
    const char *prefix;        /* prepended to public names ("" if none) */
    const char **include_dirs; /* for import of other .ufn modules */
    int ninclude_dirs;
    bool numpy_literals;       /* --literals=numpy: a Python number meeting a float32
                                  takes float32 (NEP 50) instead of promoting (Numba) */
    const char **signatures;   /* --signature KERNEL=SIG, repeatable (jit.c) */
    int nsignatures;
};

/* scope.c: a module's names */
Scope *scope_new(void);
Sym *scope_lookup(Scope *s, const char *name);
Sym *scope_bind(Scope *s, Sym sym);          /* NULL or the old one after an error */
/* A module-level name or dotted module attribute (math.pi) of module m,
 * or a Python builtin. */
bool resolve_global(Module *m, const Node *e, Sym *out);

/* imports.c: what import statements name */
bool std_module(const char *name, ModuleId *id);           /* math, cmath, numpy, numba */
/* A Python module kernels cannot use (os, random, ...): reported, true. */
bool refuse_python_module(Loc loc, const char *mod);
void import_stmt(Module *m, Node *s);                      /* import math [as m] */
/* A .ufn module by its dotted name: next to `from`, in dirs, in the
 * standard library ufnc carries; *path receives where. NULL if none. */
SrcFile *find_ufn_module(const Module *from, const char *name, const char *const *dirs, int ndirs,
                         const char **path);
bool is_embedded_path(const char *path);                    /* the standard library's */
/* Bind the names of `from mod import a, b as c`: from a standard module
 * (other NULL) or from a loaded .ufn module. */
void import_names(Module *m, Node *s, const Module *other);

/* decorate.c: a function's decorator; a kernel's usable signatures */
void decorate(Module *m, Func *f, Node *dec);
/* The signatures of kernel f that fit its def and layout and take input
 * types no earlier one takes (the others are reported): their number, in
 * usable[] (room for f->nsigs). */
int kernel_signatures(const Func *f, Signature **usable);
/* A kernel's operands (inputs, then outputs: a ufunc's return value), as
 * its decorator says. */
int kernel_nin(const Func *f);
int kernel_nops(const Func *f);

/* jit.c: a @cuda.jit kernel's signatures - those its decorator lists,
 * those --signature adds, and for a lazy kernel (no signature) the default
 * set: each parameter's ndim read from the body, one signature per dtype of
 * JIT_DEFAULT_DTYPES with every parameter of that dtype. */
/* After decorate.c read the decorator's signature strings into f->sigs. */
void decorate_cuda_kernel(Module *m, Func *f, Node *dec);
bool jit_signature_ok(const Func *f, const Signature *sig);
/* The text of a signature as Numba writes it: "void(float32[:], int64)". */
const char *jit_signature_text(const Signature *sig);

/* check.c: the module level - names, imports, constants, decorators - and
 * the list of kernels.  Errors go through diag; the passes below run only
 * when there were none. */
Module *check_module(Node *ast, const SrcFile *src, const CheckOptions *opt);

/* instance.c: every instance to compile, typed silently to a fixpoint;
 * m->helpers and each kernel instance's reach, in the order to type them. */
void make_instances(Module *m);

/* flow.c: report (once per variable) a local that is used where no
 * assignment to it can have run, as Numba does; for every instance that
 * make_instances reached. */
void check_flow(Module *m);

/* infer_cuda.c: numba.cuda inside a @cuda.jit kernel or device function */
typedef struct Infer Infer;
Node *infer_cuda_value(Infer *cx, Node *e, CudaFn fn);    /* cuda.threadIdx.x, cuda.laneid */
/* cuda.grid(1), cuda.atomic.add(...), print(...) in a kernel: the
 * arguments typed by infer_expr.c, but for string literals and dtype names
 * (float32), which come as written; keyword arguments as N_KEYWORDs. */
Node *infer_cuda_call(Infer *cx, Node *e, CudaFn fn, NodeList *args, NodeList *kwargs);
Node *infer_print(Infer *cx, Node *e, NodeList *args);

/* infer.c, infer_expr.c, infer_call.c, infer_node.c: typing instances.
 * infer_silent types one instance's variables and return type (the
 * instance pass runs it until nothing changes); infer_bodies then types
 * every reached instance once more, reporting errors and building the typed
 * bodies, callees first. */
void infer_silent(Instance *inst);
void infer_bodies(Module *m);
bool can_fall_off_end(const Func *f);          /* the end of its body can be reached */
/* The instance of f for these argument types, if made. */
Instance *find_instance(const Func *f, Type *const *args, int nargs);

/* The state of one pass over a body, and the functions the typing files share. */
struct Infer {
    Instance *inst;
    Module *mod;            /* the module the function is defined in */
    bool final;             /* report errors and build the typed body */
    bool changed;           /* a variable or the return type widened */
    int loops;              /* nesting of loops, for break/continue */
    int ntemps;
};

const char *infer_fname(Infer *cx);
Node *infer_fail(Infer *cx, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
Node *infer_unknown(Node *e);
Var *infer_find_var(Infer *cx, const char *name);
Var *infer_add_var(Instance *inst, const char *name, Loc loc);
Var *infer_new_temp(Infer *cx, Type *t);
Node *infer_typed(Node *n, Type *t);
bool infer_is_literal(const Node *e);
Value infer_literal_value(const Node *e);
Node *infer_const(Loc loc, Value v);
bool infer_is_weak(const Node *e);
void infer_narrow(Infer *cx, Node **l, Node **r);
Node *infer_cast(Node *e, Type *t);
bool infer_resolve(Infer *cx, const Node *e, Sym *out);
bool infer_is_simple(const Node *e);
const char *infer_opname(Op op);
Node *infer_binary(Infer *cx, Node *e, Node *l, Node *r);
Node *infer_mkcall(Node *e, int b, NodeList *args, Type *t);
Node *infer_arity(Infer *cx, Node *e, const char *name, int min, int max, int n);
/* infer_expr.c */
Node *infer_expr(Infer *cx, Node *e);
Node *infer_truth(Infer *cx, Node *e);
Node *infer_name(Infer *cx, Node *e);
/* infer_call.c: a call with its arguments typed */
Node *infer_helper_call(Infer *cx, Node *e, Func *f, NodeList *args);
Node *infer_builtin_call(Infer *cx, Node *e, BuiltinRef b, NodeList *args);

/* names.c: the C names of the generated code */
/* A name that C, CUDA, the C library, the headers' macros, the runtime or
 * the implementation may use: never a public name as it is. */
bool is_reserved_c_name(const char *name);
/* The C type of a type: "float", "int64_t", "ufn_c64", "ufn_tup2_f32_i64",
 * "ufn_view_f32_1"; and its short tag in C names: "f32", "t2_f32_i64". */
const char *c_type(const Type *t);
const char *type_tag(const Type *t);
/* The function that builds a tuple or an array view: "ufn_tup2_f32_f32_make". */
const char *c_maker(const Type *t);
const char *c_row_maker(const Type *t);     /* ufn_view_f32_1_row */
/* The C type of a scalar in memory (array elements, operands): c_type,
 * but uint8_t for a bool, whose bytes may hold anything. */
const char *c_elem_type(const Type *t);
/* Names spelled from an instance's C name: a kernel ("polar__f__f32__contig"
 * for variant "contig") and a host loop ("polar__f__f32__host"). */
const char *kernel_c_name(const Instance *inst, const char *variant);
const char *host_loop_c_name(const Instance *inst);
/* A body's divider copy ("polar__f__f32__divider"; emit_expr.c, has_divider_copy). */
const char *divider_c_name(const Instance *inst);
/* The storage of a cuda.shared/local.array call: "ufn_shared0", "ufn_local1". */
const char *storage_c_name(const Node *call);
/* The simulator's symbols of a kernel: its trampoline (what "sim",
 * "polar__f__f32__contig__sim") and the sizes of its parameters ("sizes"). */
const char *sim_c_symbol(const char *kernel, const char *what);
/* The tables of a kernel ("polar__f__loops") and of the module ("polar__module"). */
const char *func_c_symbol(const Func *f, const char *what);
const char *module_c_symbol(const Module *m, const char *what);
const char *header_guard(const Module *m);         /* "POLAR_UFN_H" */
/* The C-safe name of an imported module: "lib_geometry" for lib.geometry. */
const char *module_c_name(const char *dotted);
/* The suffix of a kernel signature's typed entry point: "float32", or
 * "int32_float64" when the inputs differ (DESIGN 3). */
const char *typed_entry_suffix(const Func *f, const Signature *sig);
/* The pass: the C names of every reached instance (functions, variables)
 * and the public names of the kernels (--prefix), reported when C cannot
 * take them. */
void name_module(Module *m);

/* ==== emit: emit.c, emit_expr.c, emit_body.c, emit_cuda.c, emit_host.c, emit_header.c ==== */

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
    const char *depth_cname;       /* emitting a recursive helper: its depth parameter */
    const char *file_name;         /* of the generated file, for #line resets */
    const char *lane;              /* a lane body (emit_lanes.c): the index every variable
                                      takes, "[ufn_l]" or "[0]"; NULL otherwise */
    bool host_stub;                /* writing the host stub, not polar.cu */
    const char *coords;            /* in a @cuda.jit body: the thread's coordinates (ufn_t) */
    bool checks;                   /* a @cuda.jit body: UFN_BOUNDS, UFN_LOAD, UFN_STORE around
                                      every element access (ufn_kernel.h) */
    const char *lane_id;           /* a split runner's thread loop: the lane, a uint32_t */
    const Node *warp_call;         /* a split runner's warp function, already computed: */
    const char *warp_value;        /* its value, written instead of the call */
    const Instance *bounds;        /* a split runner: the kernel whose indices may be written
                                      as plain arithmetic (jit_index_plain); NULL elsewhere */
    bool small_extents;            /* ... in the runner's copy for extents < UFN_SMALL_EXTENT */
    const Instance *body;          /* the scalar body being written (emit_function_body), or NULL */
    bool divider_copy;             /* ... as its divider copy (emit_expr.c, has_divider_copy) */
} Emitter;

/* emit.c: the base every generated file is written with. */
void emit_line(Emitter *em, const char *fmt, ...) PRINTF_LIKE(2, 3);   /* indented, with newline */
void emit_text(Emitter *em, const char *fmt, ...) PRINTF_LIKE(2, 3);   /* as is */
void begin_line(Emitter *em);                                          /* the indentation */
/* #line to the .ufn (EmitOptions.line_directives), and back to the file's own lines. */
void line_directive(Emitter *em, Loc loc);
void line_reset(Emitter *em);
/* s as a C string literal, quotes included ("a\\\"b"). */
const char *c_string_literal(const char *s);
/* The value of scalar `lvalue` of type t read from memory: a bool's byte
 * compared with 0, so that every bool in a body is 0 or 1. */
const char *c_load(const Type *t, const char *lvalue);
/* A variable of a body as the code reads it: its C name, with the lane's
 * index in a lane body. */
const char *var_ref(const Emitter *em, const Var *v);
/* In a lane body an array parameter is the view of the block's first row
 * and this distance between rows, in elements (emit_lanes.c). */
const char *lane_rows_name(const Var *v);
/* Operand k of a kernel instance: an input, or an output (a ufunc's
 * return value). */
Type *operand_type(const Instance *inst, int k);
/* The kernels of a kernel instance, in ufn_abi.h's forms: a ufunc's
 * contiguous and strided kernels, a gufunc's one.  (A @cuda.jit kernel would
 * be one more form here, with its parameters below: polar.cu defines each
 * kernel and the host stub declares it for the simulator from this one
 * description.) */
typedef enum KernelForm { KF_CONTIG, KF_STRIDED, KF_GUFUNC, KF_JIT } KernelForm;
#define MAX_KERNEL_FORMS 2
#define MAX_KERNEL_PARAMS (2 + 3 * UFN_MAX_OPERANDS)
typedef struct KernelParam {
    const char *type;              /* "const float *", "ufn_kstrides" */
    const char *name;              /* in the kernel's definition */
} KernelParam;
int kernel_forms(const Func *f, KernelForm *forms);                 /* how many, into forms[] */
const char *kernel_name(const Instance *inst, KernelForm form);     /* names.c's, for the form */
/* A kernel's parameters in ufn_abi.h's order (restrict_: as the kernel
 * defines them, with __restrict__ pointers); how many. */
int kernel_params(const Instance *inst, KernelForm form, bool restrict_, KernelParam *params);
const char *c_declaration(const char *type, const char *name);       /* "float *x", "int n" */
const char *kernel_operand(const Instance *inst, int k);            /* operand k's pointer in a kernel */
/* Public prototypes (without ';'), shared by the header and the host stub. */
void entry_general_proto(Buf *b, const Func *f);
/* emit_methods.c: reduce, accumulate and outer of binary ufuncs (which
 * have them, and their words: names.c). */
bool has_methods(const Func *f);
const char *method_word(Method m);
bool is_sum_body(const Func *f);
void method_protos(Buf *b, const Func *f);
void method_entries(Emitter *em, const Func *f);
/* ... and the device reduce kernel of each T(T, T) signature (ufn_abi.h's
 * kernel_reduce): whether it has one, its name, parameters, shared bytes,
 * and its definition in polar.cu. */
bool has_reduce_kernel(const Instance *inst);
const char *reduce_kernel_name(const Instance *inst);
int reduce_kernel_params(const Instance *inst, bool restrict_, KernelParam *params);
unsigned reduce_kernel_shared(const Instance *inst);
void reduce_kernel(Emitter *em, const Instance *inst);
/* emit_lanes.c: a gufunc body run on several rows at once, lane by lane. */
#define HOST_LANES 16
#define HOST_PREFETCH_BLOCKS 4     /* blocks of rows read ahead (emit_lane_prefetch) */
/* emit_host.c: a ufunc's contiguous host loop runs in blocks of HOST_BLOCK
 * elements and asks for its inputs HOST_BLOCKS_AHEAD blocks on. */
#define HOST_BLOCK 256
#define HOST_BLOCKS_AHEAD 4
bool lanes_apply(const Instance *inst);
void emit_simple_stmt(Emitter *em, const Node *s);   /* emit_body.c */
void emit_lane_function(Emitter *em, const Instance *inst);
/* In the host loop, at the block of rows starting at t: ask for the input
 * rows of a block further on. */
void emit_lane_prefetch(Emitter *em, const Instance *inst);
const char *lanes_c_name(const Instance *inst);
void entry_typed_proto(Buf *b, const Func *f, const Instance *inst);
const char *describe_kernel(const Func *f);     /* "@vectorize([...]) def f(x)" */

/* emit_expr.c: the C spelling of a typed expression, of one as an operand
 * (parenthesised unless it is an atom), and of a conversion. */
void emit_expr(Emitter *em, const Node *e);
void emit_operand(Emitter *em, const Node *e);
void emit_element(Emitter *em, const Node *base, const NodeList *idx);   /* an array element, as an lvalue */
void emit_cast_to(Emitter *em, const Node *e, Type *to);
/* Whether a body gets a divider copy: a second C function whose divisions
 * by a constant keep `/`, called from the loops that evaluate math functions. */
bool has_divider_copy(const Module *m, const Instance *inst);

/* emit_body.c: the types (tuple structs, array views and their makers) and
 * the scalar bodies shared by polar.cu and the host stub. */
void emit_body_types(Emitter *em);
void emit_bodies(Emitter *em);
/* An instance's locals (each starting at zero) and its statements. */
void emit_function_body(Emitter *em, const Instance *inst);
/* The storage of its shared and local arrays: declarations in a kernel
 * body, or (runner) pointers into a block runner's shared memory. */
void emit_array_storage(Emitter *em, const Instance *inst, bool runner);
void emit_statement(Emitter *em, const Node *s);             /* one typed statement */
/* The argument expression of operand k of a gufunc body: a view built from
 * `ptr`, the core dimension sizes (by name index) and core strides. */
const char *gufunc_view(const Instance *inst, int k, const char *ptr, const char *const *core_dims,
                        const char *core_strides);

/* kernel_uses.c: what a @cuda.jit kernel's typed code uses (and its
 * helpers'), read by the emitters. */
bool module_has_jit(const Module *m);
bool instance_uses_cuda(const Instance *inst);                /* or a helper it calls does */
unsigned jit_flags(const Instance *inst);                     /* UFN_KF_* */
unsigned jit_static_shared(const Instance *inst);             /* bytes */
bool jit_has_block_runner(const Instance *inst);              /* form (a) */
/* Form (a) split at barriers: its per-thread context struct, "NAME__ctx"
 * (polar.cu's host build and the host stub both declare it), or NULL. */
const char *jit_context(const Instance *inst);
bool jit_is_barrier(const Node *s);                           /* a plain syncthreads() statement */
bool jit_has_barrier(const Node *s);                          /* one or a warp exchange, or a statement
                                                                 holding one: where a split runner splits */
/* The one warp function of a statement that a split runner runs in lock-step
 * (an assignment or expression statement evaluating it unconditionally),
 * or NULL. */
const Node *jit_warp_call(const Node *s);
/* Form (a) as one loop over a block's grid-stride iterations: the loop
 * `for i in range(cuda.grid(1), n, cuda.gridsize(1))`, or NULL; and which
 * statements before it the runner runs once per block. */
const Node *jit_grid_stride(const Instance *inst);
bool jit_grid_stride_uniform(const Node *s);
/* The split runner's locals computed again in every region, not kept per
 * thread (their one statement, before the first barrier); which locals a
 * statement reads or assigns; and its loops run outside the threads. */
bool jit_remat_var(const Instance *inst, const Var *v);
bool jit_remat_stmt(const Instance *inst, const Node *s);
void jit_var_refs(const Node *n, const Var *v, bool *reads, bool *writes);
bool jit_interchange(const Instance *inst, const Node *s);
bool jit_loop_local(const Instance *inst, const Node *loop);     /* its variable read in it only */
bool jit_strip(const Instance *inst, const Node *loop);          /* interchanged, strip-mined */
/* An array index provably in [0, 2**62): plain C arithmetic gives its value
 * (kernel_uses.c); `small`: where every array's extent is below this. */
#define UFN_SMALL_EXTENT_BITS 40
#define UFN_SMALL_EXTENT ((uint64_t)1 << UFN_SMALL_EXTENT_BITS)
bool jit_index_plain(const Instance *inst, const Node *index, bool small);
/* emit_kernel.c: @cuda.jit kernels in polar.cu - per signature a body
 * (the thread's code, its coordinates a parameter), the kernel calling it,
 * and for the host backend a block runner where the kernel allows one. */
void emit_jit_kernels(Emitter *em);
void emit_jit_context(Emitter *em, const Instance *inst);
/* emit_kernel_host.c: their host side in the host stub - prototypes,
 * the host thread entries, the tables and the launch entry points. */
void emit_jit_tables(Emitter *em);
void emit_jit_entries(Emitter *em);

/* emit_cuda.c, emit_host.c, emit_header.c: polar.cu, the host stub, polar.h */
void emit_cuda(Buf *out, Module *m, const EmitOptions *opt);
void emit_host(Buf *out, Module *m, const EmitOptions *opt);
void emit_header(Buf *out, Module *m, const EmitOptions *opt);

/* ==== driver.c ================================================================ */

typedef struct DriverOptions {
    const char *nvcc;              /* --nvcc, $NVCC, $CUDA_HOME/bin/nvcc, PATH; NULL: find it */
    const char *cc;                /* --cc, $CC, cc */
    const char **nvcc_extra;       /* -Xnvcc arguments */
    int nnvcc_extra;
    const char *arch;              /* --arch=sm_80,sm_90; NULL: the default list */
    int opt_level;                 /* -O0..-O3 (-O: 1) */
    bool fast_math;
    bool debug;                    /* -g: nvcc -lineinfo, cc -g */
    bool verbose;                  /* -v: print every tool command */
    bool keep;                     /* --keep: keep the temporary directory */
    bool no_cache;                 /* --no-cache: no device-code cache (cache.c) */
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
/* A tool's `--version` text (words: the command, as for CC="ccache cc"),
 * asked once per run; NULL if it does not answer. */
const char *tool_version(const DriverOptions *opt, const char *const *words);
/* The nvcc to use, or NULL (with *why set) when there is none. */
const char *find_nvcc(const DriverOptions *opt, const char **why);
/* GPU architectures are numbers: 90 for sm_90. */
#define MAX_ARCHS 64
/* Every sm_75+ that `nvcc --list-gpu-code` names, into archs[MAX_ARCHS]:
 * the count, 0 when the query fails. */
int default_archs(const DriverOptions *opt, const char *nvcc, int *archs);
/* An --arch list ("sm_80,compute_90"): the count, or 0 with *error set. */
int parse_archs(const char *list, int *archs, const char **error);
/* nvcc's all-major: keep the oldest and each sm_X0 of archs; the count. */
int major_archs(int *archs, int n);
/* --arch=native: each GPU's architecture, asked of the CUDA driver; the
 * count, or 0 with *why set (no driver, no GPU). */
int native_archs(int *archs, const char **why);
/* nvcc's -gencode arguments: SASS for each, and PTX of the newest; one
 * PTX per nvcc front end (driver.c front_end_of). */
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

/* ==== cache.c ================================================================== */

/* The cache directory: $UFN_CACHE_DIR, $XDG_CACHE_HOME/ufnc or
 * ~/.cache/ufnc; NULL with --no-cache (or no home). */
const char *cache_dir(const DriverOptions *opt);
/* The key of a tool's run, as 64 hex digits: ufnc's version and support
 * headers, the tool's version text, argv (with `tmp`, the private
 * directory, written as one placeholder) and each input file (names in
 * tmp, NULL-terminated).  false if an input cannot be read. */
bool cache_key(char hex[65], const char *tool_version, const char *const *argv, const char *tmp,
               const char *const *inputs);
/* A hit writes the output to out_path and appends what the tool said to
 * `report`; a missing or damaged entry is a miss (false). */
bool cache_get(const char *dir, const char *hex, const char *out_path, Buf *report);
/* Store an output and what the tool said, atomically; on any failure
 * nothing is stored, and false (the build does not depend on the cache). */
bool cache_put(const char *dir, const char *hex, const char *payload_path, const char *report, size_t rlen);
void cache_sha256(const void *data, size_t len, unsigned char out[32]);

/* ==== jobs.c =================================================================== */

/* The threads nvcc may use for `want` architectures: 0 (every CPU)
 * outside a parallel make; under make -jN, 1 plus the jobserver slots free
 * now (taken until jobs_release), or 1 when make's jobserver cannot be
 * reached (make 4.3 recipes without '+'). */
int jobs_threads(int want);
void jobs_release(void);                     /* async-signal-safe */

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
    const char **defines;          /* -D, ignored with a warning */
    int ndefines;
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
    const char **signatures;       /* --signature KERNEL=SIG, repeatable */
    int nsignatures;
    DriverOptions drv;
} Options;

/* Parse the command line; exits with EXIT_USAGE (after a message) on misuse
 * and with 0 for --help and --version. */
void parse_options(int argc, char **argv, Options *opt);
/* Warn of the options accepted and ignored (-D), once diagnostics work. */
void options_note_ignored(const Options *opt);
/* From the checked module to the requested output files. */
/* Claim (driver_claim_output) every file the run will write: the output,
 * the header, the dependency file. */
void claim_outputs(const Options *opt);
int build_outputs(Module *m, const Options *opt);
/* -d types: every instance with its variables and typed body. */
void dump_types(FILE *out, const Module *m);

#endif /* UFNC_H */
