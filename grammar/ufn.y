/* ufn.y - the parser: Python 3's grammar, cut down to what ufn accepts.
 *
 * A pure parser over the scanner in ufn.l.  Every action is one constructor
 * call or a list push; the few error productions (parameters and layout ufn
 * refuses) report through one helper each.  Recovery is per statement
 * (`error NEWLINE`, then reporting again at once: a newline is a sure place
 * to start over), so one run reports several errors, and the module keeps
 * every statement that parsed.
 *
 * Statements outside the subset that start with their own keyword (class,
 * try, with, global, del, assert, raise, ...) are parsed loosely, token by
 * token, into N_UNSUPPORTED: the checker names them, the parser says
 * nothing.  Expressions outside the subset (lambda, comprehensions, dict
 * displays, starred, :=) are syntax errors with a message that names them
 * (compiler/parse_error.c).
 *
 * Precedence and associativity are spelled out by one nonterminal per level,
 * from test (a if c else b) down to atom, as in Python's own grammar. */

%code top {
#include <stdlib.h>
#include <string.h>
}

%code requires {
#include "ufnc.h"
typedef struct Parser Parser;
}

%code provides {
/* The scanner (grammar/ufn.l), as the parser and dump_tokens drive it. */
void *lex_open(const SrcFile *src);
void lex_close(void *scanner);
int lex_token(YYSTYPE *lval, Loc *lloc, void *scanner);
/* The innermost open bracket (or the one left open at end of input). */
bool lex_open_bracket(void *scanner, Loc *loc, char *ch);
/* The opener that the last closing bracket did not match. */
bool lex_mismatched_bracket(void *scanner, Loc *loc, char *ch);
bool lex_at_eof(void *scanner);
/* Close every open bracket, so that the next newline ends the line. */
void lex_forget_brackets(void *scanner);

/* What the parser knows of the tokens around it, kept up to date as the
 * scanner hands them out, for the messages of compiler/parse_error.c. */
struct Parser {
    void *scanner;
    const SrcFile *src;
    /* token_name() of each token kind (0..YYMAXUTOK; NULL where none):
     * handed to parse_error.c as data, so that it never calls back into
     * the parser. */
    const char *const *token_names;
    int ntoken_names;
    NodeList body;             /* the module's statements, as they parse */
    /* What the scanner handed out last, for messages that need context. */
    int tok, prev;             /* the lookahead, and the token before it */
    int tok_col;               /* the lookahead's column */
    bool starts_line;          /* the lookahead is the first on its line */
    int last_end_line;         /* where the token before the lookahead ended */
    /* The logical line the lookahead is on. */
    int line_first;            /* its first token */
    int first_line, first_col; /* and where that is */
    bool line_done;            /* a NEWLINE ended it: the next token starts one */
    int line_depth;            /* brackets open on it */
    bool line_colon;           /* a ':' outside brackets on this line */
    bool unmatched_closer;     /* the lookahead closes a bracket never opened */
    int line_errors;           /* diag_error_count() when this line began */
    int header, header_line;   /* first token and line of the last line ending in ':' */
    bool has_held;             /* a NEWLINE waits behind an inserted ':' */
    YYSTYPE held_value;
    Loc held_loc;
};

/* The parser's stack lives on the heap; this bounds how deep expressions
 * and blocks may nest (brackets stop at 200 in the scanner). */
#define PARSER_MAX_DEPTH 10000

/* compiler/parse_error.c: report a syntax error that Bison found, with
 * Bison's detailed message as a start. */
void syntax_error(Parser *p, Loc loc, const char *bison_msg);
/* "'if' statement", "function definition": what a block belongs to, for a
 * token that opens a line ending in ':'; NULL for the others. */
const char *block_owner(int kind);
}

%define api.pure full
%define api.location.type {Loc}
%locations
%define parse.error detailed
%define parse.lac full
%expect 0
%lex-param {Parser *p}
%parse-param {Parser *p}

%initial-action {
    @$ = (Loc){p->src, 1, 1, 1, 1};
}

%code {
static int yylex(YYSTYPE *lval, Loc *lloc, Parser *p);

static void yyerror(const Loc *loc, Parser *p, const char *msg)
{
    syntax_error(p, *loc, msg);
}

/* Spans join their first and last symbol; an empty rule gets a zero-width
 * span where the symbol before it ended. */
static Loc loc_after(Loc l)
{
    return (Loc){l.file, l.end_line, l.end_col, l.end_line, l.end_col};
}
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                            \
    do {                                                                       \
        if (N)                                                                 \
            (Cur) = loc_join(YYRHSLOC(Rhs, 1), YYRHSLOC(Rhs, N));              \
        else                                                                   \
            (Cur) = loc_after(YYRHSLOC(Rhs, 0));                               \
    } while (0)

#define YYMAXDEPTH PARSER_MAX_DEPTH

static NodeList stray_block(Loc at, bool after_error, NodeList body);
static NodeList refused_param(Loc at, const char *what, const char *name, Loc name_loc);
static void refuse(Loc at, const char *what);
static const char *dotted(const char *outer, const char *inner);
static NodeList index_trailing_comma(Loc loc, NodeList index);
}

%union {
    Node *node;
    NodeList list;
    const char *id;
    Op op;
    bool flag;       /* INDENT: an error was reported on the line before it */
}

%token <id> NAME "name"
%token <node> INT "integer" FLOAT "float" IMAG "imaginary number" STRING "string"
%token NEWLINE "end of line"
%token <flag> INDENT "indent"
%token DEDENT "dedent"

%token FALSE "False" NONE "None" TRUE "True" AND "and" AS "as" ASSERT "assert"
       ASYNC "async" AWAIT "await" BREAK "break" CLASS "class" CONTINUE "continue"
       DEF "def" DEL "del" ELIF "elif" ELSE "else" EXCEPT "except"
       FINALLY "finally" FOR "for" FROM "from" GLOBAL "global" IF "if"
       IMPORT "import" IN "in" IS "is" LAMBDA "lambda" NONLOCAL "nonlocal"
       NOT "not" OR "or" PASS "pass" RAISE "raise" RETURN "return" TRY "try"
       WHILE "while" WITH "with" YIELD "yield"

%token LPAR "(" RPAR ")" LSQB "[" RSQB "]" LBRACE "{" RBRACE "}"
       COMMA "," COLON ":" SEMI ";" DOT "." ELLIPSIS "..." RARROW "->"
       PLUS "+" MINUS "-" STAR "*" SLASH "/" DSLASH "//" PERCENT "%"
       DSTAR "**" AT "@" LSHIFT "<<" RSHIFT ">>" AMPER "&" VBAR "|"
       CIRCUMFLEX "^" TILDE "~" LESS "<" GREATER ">" LESSEQUAL "<="
       GREATEREQUAL ">=" EQEQUAL "==" NOTEQUAL "!=" COLONEQUAL ":=" EQUAL "="
       PLUSEQUAL "+=" MINEQUAL "-=" STAREQUAL "*=" SLASHEQUAL "/="
       DSLASHEQUAL "//=" PERCENTEQUAL "%=" DSTAREQUAL "**=" ATEQUAL "@="
       LSHIFTEQUAL "<<=" RSHIFTEQUAL ">>=" AMPEREQUAL "&=" VBAREQUAL "|="
       CIRCUMFLEXEQUAL "^="

%type <list> stmts stmt simple_stmts small_stmts small_stmt suite elif_else else_suite
%type <list> decorators params param_list param import_names from_names from_list
%type <list> assign_chain test_items expr_items args elts subscripts subscript_list
%type <node> compound_stmt if_stmt while_stmt for_stmt funcdef decorator
%type <node> unsupported_simple unsupported_compound expr_stmt import_name from_name
%type <node> testlist targets test or_test and_test not_test comparison comparisons
%type <node> expr xor_expr and_expr shift_expr arith_expr term factor power primary atom
%type <node> strings arg subscript opt_test
%type <id> dotted_name
%type <op> augassign comp_op shift_op arith_op term_op

%start file

%%

/* ---- statements ------------------------------------------------------------------- */

file
    : %empty
    | file stmt                             { list_append(&p->body, $2); }
    ;

stmts
    : stmt
    | stmts stmt                            { $$ = $1; list_append(&$$, $2); }
    ;

stmt
    : simple_stmts
    | compound_stmt                         { $$ = list1($1); }
    | INDENT stmts DEDENT                   { $$ = stray_block(@1, $1, $2); }
    | error NEWLINE                         { $$ = (NodeList){0}; yyerrok; }
    ;

simple_stmts
    : small_stmts NEWLINE
    | small_stmts ";" NEWLINE
    ;

small_stmts
    : small_stmt
    | small_stmts ";" small_stmt            { $$ = $1; list_append(&$$, $3); }
    ;

small_stmt
    : expr_stmt                             { $$ = list1($1); }
    | "pass"                                { $$ = list1(new_node(N_PASS, @$)); }
    | "break"                               { $$ = list1(new_node(N_BREAK, @$)); }
    | "continue"                            { $$ = list1(new_node(N_CONTINUE, @$)); }
    | "return"                              { $$ = list1(new_return(@$, NULL)); }
    | "return" testlist                     { $$ = list1(new_return(@$, $2)); }
    | "import" import_names                 { $$ = $2; }
    | "from" dotted_name "import" from_names { $$ = list1(new_importfrom(@$, $2, $4)); }
    | unsupported_simple                    { $$ = list1($1); }
    ;

expr_stmt
    : testlist                              { $$ = new_exprstmt(@$, $1); }
    | assign_chain                          { $$ = new_assign_chain(@$, $1); }
    | test augassign testlist               { $$ = new_augassign(@$, $2, $1, $3); }
    ;

assign_chain
    : testlist "=" testlist                 { $$ = list1($1); list_push(&$$, $3); }
    | assign_chain "=" testlist             { $$ = $1; list_push(&$$, $3); }
    ;

augassign
    : "+="  { $$ = OP_ADD; }      | "-="  { $$ = OP_SUB; }
    | "*="  { $$ = OP_MUL; }      | "/="  { $$ = OP_DIV; }
    | "//=" { $$ = OP_FLOORDIV; } | "%="  { $$ = OP_MOD; }
    | "**=" { $$ = OP_POW; }      | "@="  { $$ = OP_MATMUL; }
    | "<<=" { $$ = OP_LSHIFT; }   | ">>=" { $$ = OP_RSHIFT; }
    | "&="  { $$ = OP_BITAND; }   | "|="  { $$ = OP_BITOR; }
    | "^="  { $$ = OP_BITXOR; }
    ;

import_names
    : import_name                           { $$ = list1($1); }
    | import_names "," import_name          { $$ = $1; list_push(&$$, $3); }
    ;

import_name
    : dotted_name                           { $$ = new_import(@$, $1, NULL); }
    | dotted_name "as" NAME                 { $$ = new_import(@$, $1, $3); }
    ;

dotted_name
    : NAME
    | dotted_name "." NAME                  { $$ = dotted($1, $3); }
    ;

from_names
    : from_list
    | "(" from_list opt_comma ")"           { $$ = $2; }
    ;

from_list
    : from_name                             { $$ = list1($1); }
    | from_list "," from_name               { $$ = $1; list_push(&$$, $3); }
    ;

from_name
    : NAME                                  { $$ = new_import_name(@$, $1, NULL); }
    | NAME "as" NAME                        { $$ = new_import_name(@$, $1, $3); }
    ;

/* ---- compound statements ------------------------------------------------------------ */

compound_stmt
    : if_stmt
    | while_stmt
    | for_stmt
    | funcdef
    | decorators funcdef                    { $$ = funcdef_decorate($2, $1); }
    | unsupported_compound
    | decorators unsupported_compound       { $$ = $2; }
    ;

suite
    : simple_stmts
    | NEWLINE INDENT stmts DEDENT           { $$ = $3; }
    ;

if_stmt
    : "if" test ":" suite elif_else         { $$ = new_if(@$, $2, $4, $5); }
    ;

elif_else
    : %empty                                { $$ = (NodeList){0}; }
    | "elif" test ":" suite elif_else       { $$ = list1(new_if(@$, $2, $4, $5)); }
    | "else" ":" suite                      { $$ = $3; }
    ;

while_stmt
    : "while" test ":" suite else_suite     { $$ = new_while(@$, $2, $4, $5); }
    ;

for_stmt
    : "for" targets "in" testlist ":" suite else_suite
                                            { $$ = new_for(@$, $2, $4, $6, $7); }
    ;

else_suite
    : %empty                                { $$ = (NodeList){0}; }
    | "else" ":" suite                      { $$ = $3; }
    ;

/* A for loop's targets stop before 'in': expressions without comparisons. */
targets
    : expr
    | expr_items                            { $$ = new_tuple(@$, $1); }
    | expr_items expr                       { list_push(&$1, $2); $$ = new_tuple(@$, $1); }
    ;

expr_items
    : expr ","                              { $$ = list1($1); }
    | expr_items expr ","                   { $$ = $1; list_push(&$$, $2); }
    ;

decorators
    : decorator                             { $$ = list1($1); }
    | decorators decorator                  { $$ = $1; list_push(&$$, $2); }
    ;

decorator
    : "@" test NEWLINE                      { $$ = $2; }
    ;

funcdef
    : "def" NAME "(" params ")" returns ":" suite
                                            { $$ = new_funcdef(@$, $2, @2, $4, $8); }
    ;

params
    : %empty                                { $$ = (NodeList){0}; }
    | param_list
    | param_list ","
    ;

param_list
    : param
    | param_list "," param                  { $$ = $1; list_append(&$$, $3); }
    ;

/* Only plain names; the rest is parsed to say what it is. */
param
    : NAME                                  { $$ = list1(new_name(@$, $1)); }
    | NAME "=" test                         { $$ = refused_param(@2, "default parameter values are", $1, @1); }
    | NAME ":" test                         { $$ = refused_param(@2, "parameter annotations are", $1, @1); }
    | NAME ":" test "=" test                { $$ = refused_param(@2, "parameter annotations are", $1, @1); }
    | "*" NAME                              { $$ = refused_param(@1, "'*args' parameters are", $2, @2); }
    | "**" NAME                             { $$ = refused_param(@1, "'**kwargs' parameters are", $2, @2); }
    | "*"                                   { $$ = refused_param(@1, "keyword-only parameters ('*') are", NULL, @1); }
    | "/"                                   { $$ = refused_param(@1, "positional-only parameters ('/') are", NULL, @1); }
    ;

returns
    : %empty
    | "->" test                             { refuse(@$, "return annotations are"); }
    ;

/* ---- statements outside the subset, parsed loosely ------------------------------------- */

unsupported_simple
    : "global" loose                        { $$ = new_unsupported(@$, "a 'global' statement"); }
    | "nonlocal" loose                      { $$ = new_unsupported(@$, "a 'nonlocal' statement"); }
    | "del" loose                           { $$ = new_unsupported(@$, "a 'del' statement"); }
    | "assert" loose                        { $$ = new_unsupported(@$, "an 'assert' statement"); }
    | "raise" loose                         { $$ = new_unsupported(@$, "a 'raise' statement"); }
    | "yield" loose                         { $$ = new_unsupported(@$, "a 'yield' statement"); }
    | "await" loose                         { $$ = new_unsupported(@$, "an 'await' expression"); }
    ;

unsupported_compound
    : "class" loose ":" suite               { $$ = new_unsupported(@$, "a 'class' definition"); }
    | "with" loose ":" suite                { $$ = new_unsupported(@$, "a 'with' statement"); }
    | "async" loose ":" suite               { $$ = new_unsupported(@$, "an 'async' statement"); }
    | "try" ":" suite handlers              { $$ = new_unsupported(@$, "a 'try' statement"); }
    ;

handlers
    : handler
    | handlers handler
    ;

handler
    : "except" loose ":" suite
    | "else" ":" suite
    | "finally" ":" suite
    ;

/* Any tokens up to the end of the line, a ';' or a ':' outside brackets. */
loose
    : %empty
    | loose loose_token
    | loose "(" loose_nested ")"
    | loose "[" loose_nested "]"
    | loose "{" loose_nested "}"
    ;

loose_nested
    : %empty
    | loose_nested loose_token
    | loose_nested ":"
    | loose_nested "(" loose_nested ")"
    | loose_nested "[" loose_nested "]"
    | loose_nested "{" loose_nested "}"
    ;

loose_token
    : NAME | INT | FLOAT | IMAG | STRING
    | "False" | "None" | "True" | "and" | "as" | "assert" | "async" | "await"
    | "break" | "class" | "continue" | "def" | "del" | "elif" | "else" | "except"
    | "finally" | "for" | "from" | "global" | "if" | "import" | "in" | "is"
    | "lambda" | "nonlocal" | "not" | "or" | "pass" | "raise" | "return" | "try"
    | "while" | "with" | "yield"
    | "," | "." | "..." | "->" | "+" | "-" | "*" | "/" | "//" | "%" | "**" | "@"
    | "<<" | ">>" | "&" | "|" | "^" | "~" | "<" | ">" | "<=" | ">=" | "==" | "!="
    | ":=" | "=" | "+=" | "-=" | "*=" | "/=" | "//=" | "%=" | "**=" | "@="
    | "<<=" | ">>=" | "&=" | "|=" | "^="
    ;

/* ---- expressions, loosest first ------------------------------------------------------- */

/* A bare tuple: return a, b / x, y = ... */
testlist
    : test
    | test_items                            { $$ = new_tuple(@$, $1); }
    | test_items test                       { list_push(&$1, $2); $$ = new_tuple(@$, $1); }
    ;

test_items
    : test ","                              { $$ = list1($1); }
    | test_items test ","                   { $$ = $1; list_push(&$$, $2); }
    ;

test
    : or_test
    | or_test "if" or_test "else" test      { $$ = new_ifexp(@$, $3, $1, $5); }
    ;

or_test
    : and_test
    | or_test "or" and_test                 { $$ = new_boolop(@$, OP_OR, $1, $3); }
    ;

and_test
    : not_test
    | and_test "and" not_test               { $$ = new_boolop(@$, OP_AND, $1, $3); }
    ;

not_test
    : comparison
    | "not" not_test                        { $$ = new_unary(@$, OP_NOT, $2); }
    ;

comparison
    : expr
    | comparisons
    ;

/* 0 < a < 1 is one N_COMPARE with two operators. */
comparisons
    : expr comp_op expr                     { $$ = new_compare(@$, $1); compare_push($$, $2, $3); }
    | comparisons comp_op expr              { $$ = $1; compare_push($$, $2, $3); }
    ;

comp_op
    : "<"  { $$ = OP_LT; } | ">"  { $$ = OP_GT; } | "==" { $$ = OP_EQ; }
    | ">=" { $$ = OP_GE; } | "<=" { $$ = OP_LE; } | "!=" { $$ = OP_NE; }
    | "in" { $$ = OP_IN; } | "not" "in" { $$ = OP_NOTIN; }
    | "is" { $$ = OP_IS; } | "is" "not" { $$ = OP_ISNOT; }
    ;

expr
    : xor_expr
    | expr "|" xor_expr                     { $$ = new_binary(@$, OP_BITOR, $1, $3); }
    ;

xor_expr
    : and_expr
    | xor_expr "^" and_expr                 { $$ = new_binary(@$, OP_BITXOR, $1, $3); }
    ;

and_expr
    : shift_expr
    | and_expr "&" shift_expr               { $$ = new_binary(@$, OP_BITAND, $1, $3); }
    ;

shift_expr
    : arith_expr
    | shift_expr shift_op arith_expr        { $$ = new_binary(@$, $2, $1, $3); }
    ;

shift_op
    : "<<" { $$ = OP_LSHIFT; } | ">>" { $$ = OP_RSHIFT; }
    ;

arith_expr
    : term
    | arith_expr arith_op term              { $$ = new_binary(@$, $2, $1, $3); }
    ;

arith_op
    : "+" { $$ = OP_ADD; } | "-" { $$ = OP_SUB; }
    ;

term
    : factor
    | term term_op factor                   { $$ = new_binary(@$, $2, $1, $3); }
    ;

term_op
    : "*" { $$ = OP_MUL; } | "/" { $$ = OP_DIV; } | "//" { $$ = OP_FLOORDIV; }
    | "%" { $$ = OP_MOD; } | "@" { $$ = OP_MATMUL; }
    ;

/* -x**2 is -(x**2), and 2**-1 is allowed: ** binds tighter than a unary
 * operator on its left, looser on its right. */
factor
    : power
    | "+" factor                            { $$ = new_unary(@$, OP_POS, $2); }
    | "-" factor                            { $$ = new_unary(@$, OP_NEG, $2); }
    | "~" factor                            { $$ = new_unary(@$, OP_INVERT, $2); }
    ;

power
    : primary
    | primary "**" factor                   { $$ = new_binary(@$, OP_POW, $1, $3); }
    ;

primary
    : atom
    | primary "." NAME                      { $$ = new_attr(@$, $1, $3); }
    | primary "(" ")"                       { $$ = new_call(@$, $1); }
    | primary "(" args opt_comma ")"        { $$ = new_call_args(@$, $1, $3); }
    | primary "[" subscripts "]"            { $$ = new_subscript(@$, $1, $3); }
    ;

args
    : arg                                   { $$ = list1($1); }
    | args "," arg                          { $$ = $1; list_push(&$$, $3); }
    ;

arg
    : test
    | NAME "=" test                         { $$ = new_keyword(@$, $1, $3); }
    ;

subscripts
    : subscript_list
    | subscript_list ","                    { $$ = index_trailing_comma(@$, $1); }
    ;

subscript_list
    : subscript                             { $$ = list1($1); }
    | subscript_list "," subscript          { $$ = $1; list_push(&$$, $3); }
    ;

subscript
    : test
    | opt_test ":" opt_test                 { $$ = new_slice(@$, $1, $3, NULL); }
    | opt_test ":" opt_test ":" opt_test    { $$ = new_slice(@$, $1, $3, $5); }
    ;

opt_test
    : %empty                                { $$ = NULL; }
    | test
    ;

opt_comma
    : %empty
    | ","
    ;

atom
    : NAME                                  { $$ = new_name(@$, $1); }
    | INT
    | FLOAT
    | IMAG
    | strings
    | "True"                                { $$ = new_node(N_TRUE, @$); }
    | "False"                               { $$ = new_node(N_FALSE, @$); }
    | "None"                                { $$ = new_node(N_NONE, @$); }
    | "(" ")"                               { $$ = new_tuple(@$, (NodeList){0}); }
    | "(" test ")"                          { $$ = $2; }
    | "(" test_items ")"                    { $$ = new_tuple(@$, $2); }
    | "(" test_items test ")"               { list_push(&$2, $3); $$ = new_tuple(@$, $2); }
    | "[" "]"                               { $$ = new_list(@$, (NodeList){0}); }
    | "[" elts opt_comma "]"                { $$ = new_list(@$, $2); }
    ;

/* 'a' 'b' is 'ab'. */
strings
    : STRING
    | strings STRING                        { $$ = str_concat($1, $2); }
    ;

elts
    : test                                  { $$ = list1($1); }
    | elts "," test                         { $$ = $1; list_push(&$$, $3); }
    ;

%%

/* ---- helpers of the actions ----------------------------------------------------------- */

/* An indented block where no block may start.  The line before it may have
 * been a header with an error ("if x y:"); that was reported already, and
 * its block is kept as plain statements. */
static NodeList stray_block(Loc at, bool after_error, NodeList body)
{
    if (!after_error)
        diag_error(at, "unexpected indent");
    return body;
}

static void refuse(Loc at, const char *what)
{
    diag_error(at, "%s not supported in ufn", what);
}

/* The parameter's name is kept so that the function's body still checks. */
static NodeList refused_param(Loc at, const char *what, const char *name, Loc name_loc)
{
    refuse(at, what);
    return name ? list1(new_name(name_loc, name)) : (NodeList){0};
}

static const char *dotted(const char *outer, const char *inner)
{
    return intern_cstr(arena_printf("%s.%s", outer, inner));
}

/* a[i,] indexes with the tuple (i,), unlike a[i]; a[i, j,] is a[i, j]. */
static NodeList index_trailing_comma(Loc loc, NodeList index)
{
    return index.len == 1 ? list1(new_tuple(loc, index)) : index;
}

/* ---- the scanner, as the parser sees it ----------------------------------------------- */

static bool is_opener(int t) { return t == LPAR || t == LSQB || t == LBRACE; }
static bool is_closer(int t) { return t == RPAR || t == RSQB || t == RBRACE; }

/* Keep track of the logical line, for messages: its first token, its
 * brackets, whether it has a ':' outside them, and whether it ended in ':'. */
static void track_line(Parser *p, int t, Loc loc)
{
    if (t == NEWLINE) {
        p->header = p->prev == COLON ? p->line_first : 0;
        p->header_line = p->first_line;
        p->line_done = true;
        return;
    }
    if (t == INDENT || t == DEDENT || t == YYEOF)
        return;
    if (p->line_done || !p->line_first) {
        p->line_done = false;
        p->line_first = t;
        p->first_line = loc.line;
        p->first_col = loc.col;
        p->line_depth = 0;
        p->line_colon = false;
        p->line_errors = diag_error_count();
    }
    p->unmatched_closer = is_closer(t) && p->line_depth == 0;
    if (is_opener(t))
        p->line_depth++;
    else if (is_closer(t) && p->line_depth > 0)
        p->line_depth--;
    else if (t == COLON && p->line_depth == 0)
        p->line_colon = true;
}

static bool is_compound(int t)
{
    return block_owner(t) || t == ASYNC;
}

/* "if x" at the end of a line: say so, and hand the parser the ':' it
 * lacks, so that the block below still parses as the if's and its elif and
 * else lines do not each report an error too. */
static bool lacks_colon(const Parser *p, int t)
{
    return t == NEWLINE && !p->line_done && is_compound(p->line_first)
        && !p->line_colon && p->line_depth == 0;
}

static int next_token(YYSTYPE *lval, Loc *lloc, Parser *p)
{
    if (p->has_held) {
        p->has_held = false;
        *lval = p->held_value;
        *lloc = p->held_loc;
        return NEWLINE;
    }
    int t = lex_token(lval, lloc, p->scanner);
    if (!lacks_colon(p, t))
        return t;
    diag_error(*lloc, "expected ':'");
    p->has_held = true;
    p->held_value = *lval;
    p->held_loc = *lloc;
    lloc->end_line = lloc->line;
    lloc->end_col = lloc->col;
    return COLON;
}

static int yylex(YYSTYPE *lval, Loc *lloc, Parser *p)
{
    int t = next_token(lval, lloc, p);
    p->prev = p->tok;
    p->tok = t;
    p->starts_line = lloc->line > p->last_end_line;
    p->tok_col = lloc->col;
    p->last_end_line = lloc->end_line;
    track_line(p, t, *lloc);
    if (t == INDENT)
        lval->flag = diag_error_count() > p->line_errors;
    return t;
}

/* ---- names of tokens ------------------------------------------------------------------ */

const char *token_name(int kind)
{
    if (kind < 0 || kind > YYMAXUTOK)
        return NULL;
    yysymbol_kind_t k = YYTRANSLATE(kind);
    if (k == YYSYMBOL_YYUNDEF && kind != YYUNDEF)
        return NULL;
    return yysymbol_name(k);
}

/* ---- the entry point ------------------------------------------------------------------ */

/* The names of every token kind, made once. */
static const char *const *token_names(void)
{
    static const char *names[YYMAXUTOK + 1];
    if (!names[YYEOF])
        for (int k = 0; k <= YYMAXUTOK; k++)
            names[k] = token_name(k);
    return names;
}

Node *parse_file(const SrcFile *src)
{
    Parser p = {.src = src, .token_names = token_names(), .ntoken_names = YYMAXUTOK + 1};
    p.scanner = lex_open(src);
    yyparse(&p);
    lex_close(p.scanner);
    ast_limit_height(&p.body);
    int last_len;
    src_line(src, src->nlines, &last_len);
    Loc whole = {src, 1, 1, src->nlines, last_len + 1};
    return new_module(whole, p.body);
}
