/* parse_error.c - what a syntax error says.
 *
 * Bison finds the error and offers its detailed message ("syntax error,
 * unexpected X, expecting A or B"); the parser (grammar/ufn.y) keeps track
 * of the tokens around it (struct Parser).  From both, this file says what
 * went wrong as plainly as the context allows:
 *   - layout: "unexpected indent", "expected an indented block after 'if'
 *     statement on line 3" (CPython's words);
 *   - brackets: "expected ')' before end of file", mismatched and unmatched
 *     closers, with a note at the opener;
 *   - constructs outside ufn: "'lambda' is not supported in ufn", ...;
 *   - otherwise Bison's message, with keywords and operators quoted.
 * The missing ':' of "if x" is reported (and repaired) before the parser
 * sees the line, by the token glue in ufn.y. */
#include "ufnc.h"
#include "ufn.tab.h"

#include <string.h>

/* The parser's name of a token kind ("name", "def", "+"); NULL if none. */
static const char *name_of(const Parser *p, int kind)
{
    return kind >= 0 && kind < p->ntoken_names ? p->token_names[kind] : NULL;
}

/* Classes of tokens read as words ("unexpected name"); keywords and
 * operators are quoted ("unexpected ')'"). */
static const char *shown(const Parser *p, int kind)
{
    switch (kind) {
    case YYEOF: case YYerror: case YYUNDEF: case NAME: case INT: case FLOAT: case IMAG:
    case STRING: case NEWLINE: case INDENT: case DEDENT:
        return name_of(p, kind);
    default:
        return arena_printf("'%s'", name_of(p, kind));
    }
}

/* ---- reading Bison's message back ------------------------------------------------------ */

/* Bison names at most four expected tokens, and none when there are more. */
typedef struct Expected {
    int n;
    int kinds[8];
} Expected;

static int kind_named(const Parser *p, const char *name, size_t len)
{
    for (int k = 0; k < p->ntoken_names; k++) {
        const char *s = name_of(p, k);
        if (s && strlen(s) == len && memcmp(s, name, len) == 0)
            return k;
    }
    return YYUNDEF;
}

/* No token's name holds " or " (the keyword is "or" alone), so the list
 * splits on it. */
static Expected expected_in(const Parser *p, const char *msg)
{
    Expected e = {0};
    const char *s = strstr(msg, ", expecting ");
    if (!s)
        return e;
    for (s += strlen(", expecting "); e.n < 8; s += 4) {
        const char *end = strstr(s, " or ");
        size_t len = end ? (size_t)(end - s) : strlen(s);
        e.kinds[e.n++] = kind_named(p, s, len);
        if (!end)
            break;
        s = end;
    }
    return e;
}

static bool expects(const Expected *e, int kind)
{
    for (int i = 0; i < e->n; i++)
        if (e->kinds[i] == kind)
            return true;
    return false;
}

/* ---- classes of tokens ------------------------------------------------------------------- */

const char *block_owner(int kind)
{
    switch (kind) {
    case IF: return "'if' statement";
    case ELIF: return "'elif' statement";
    case ELSE: return "'else' statement";
    case WHILE: return "'while' statement";
    case FOR: return "'for' statement";
    case TRY: return "'try' statement";
    case EXCEPT: return "'except' statement";
    case FINALLY: return "'finally' statement";
    case WITH: return "'with' statement";
    case DEF: return "function definition";
    case CLASS: return "class definition";
    default: return NULL;
    }
}

/* Tokens after which '*' multiplies rather than unpacks. */
static bool ends_operand(int t)
{
    switch (t) {
    case NAME: case INT: case FLOAT: case IMAG: case STRING: case TRUE: case FALSE:
    case NONE: case RPAR: case RSQB: case RBRACE: case ELLIPSIS:
        return true;
    default:
        return false;
    }
}

/* Keywords that only start statements: seen inside brackets, on a line
 * after the opener, they mean the bracket was never closed. */
static bool starts_statement_only(int t)
{
    switch (t) {
    case DEF: case RETURN: case CLASS: case PASS: case BREAK: case CONTINUE:
    case IMPORT: case FROM: case GLOBAL: case NONLOCAL: case DEL: case ASSERT:
    case RAISE: case TRY: case EXCEPT: case FINALLY: case WHILE: case WITH: case ELIF:
        return true;
    default:
        return false;
    }
}

static bool is_closer(int t)
{
    return t == RPAR || t == RSQB || t == RBRACE;
}

static char closer_of(char opener)
{
    return opener == '(' ? ')' : opener == '[' ? ']' : '}';
}

/* ---- messages ---------------------------------------------------------------------------- */

/* Two operands in a row inside brackets: most often a missing comma. */
static bool missing_comma(const Parser *p)
{
    switch (p->tok) {
    case NAME: case INT: case FLOAT: case IMAG: case STRING: case TRUE: case FALSE: case NONE:
        return p->line_depth > 0 && ends_operand(p->prev);
    default:
        return false;
    }
}

/* Bison's words, with the tokens quoted. */
static const char *generic_message(const Parser *p, const Expected *e)
{
    Buf b = {0};
    buf_printf(&b, "syntax error, unexpected %s", shown(p, p->tok));
    for (int i = 0; i < e->n; i++)
        buf_printf(&b, "%s%s", i ? " or " : ", expecting ", shown(p, e->kinds[i]));
    if (missing_comma(p))
        buf_puts(&b, "; perhaps you forgot a ','?");
    const char *m = arena_strndup(b.data, b.len);
    buf_free(&b);
    return m;
}

/* Expressions outside the subset, named by the token that starts them. */
static const char *unsupported_expression(const Parser *p)
{
    switch (p->tok) {
    case LAMBDA: return "'lambda' is not supported in ufn";
    case YIELD: return "'yield' is not supported in ufn";
    case AWAIT: return "'await' is not supported in ufn";
    case COLONEQUAL: return "assignment expressions (':=') are not supported in ufn";
    case LBRACE: return "dict and set displays are not supported in ufn";
    case DOT:
        return p->prev == FROM ? "relative imports are not supported in ufn" : NULL;
    case ELLIPSIS:
        return p->prev == FROM ? "relative imports are not supported in ufn"
                               : "'...' (Ellipsis) is not supported in ufn";
    case FOR:
    case ASYNC:
        return p->line_depth > 0 ? "comprehensions and generator expressions are not supported in ufn" : NULL;
    case STAR:
        if (p->prev == IMPORT)
            return "'from ... import *' is not supported in ufn";
        return ends_operand(p->prev) ? NULL : "starred expressions ('*x') are not supported in ufn";
    case DSTAR:
        return ends_operand(p->prev) ? NULL : "'**' unpacking is not supported in ufn";
    default: return NULL;
    }
}

/* A message that names the problem when the tokens around the error make
 * it plain; NULL to fall back on Bison's. */
static const char *specific_message(const Parser *p, const Expected *e)
{
    int t = p->tok;
    if (t == INDENT)
        return "unexpected indent";
    if (p->prev == NEWLINE && p->header) {
        const char *owner = block_owner(p->header);
        return owner ? arena_printf("expected an indented block after %s on line %d", owner, p->header_line)
                     : "expected an indented block";
    }
    if (t == NEWLINE && expects(e, COLON))
        return "expected ':'";
    if (t == EQUAL && p->line_depth == 0
        && (p->line_first == IF || p->line_first == ELIF || p->line_first == WHILE))
        return "cannot assign in a condition; did you mean '=='?";
    if (p->unmatched_closer)
        return arena_printf("unmatched %s", shown(p, t));
    return unsupported_expression(p);
}

/* Inside brackets opened on an earlier line, a token that cannot be there
 * and that starts a statement, or starts a line no deeper than the
 * statement with the bracket, means the bracket was never closed. */
static bool looks_like_next_statement(const Parser *p)
{
    return starts_statement_only(p->tok) || (p->starts_line && p->tok_col <= p->first_col);
}

/* The bracket cases come first: they are about an earlier token. */
static bool bracket_error(Parser *p, Loc loc)
{
    Loc open;
    char ch;
    if (is_closer(p->tok) && lex_mismatched_bracket(p->scanner, &open, &ch)) {
        diag_error(loc, "closing parenthesis %s does not match opening parenthesis '%c'", shown(p, p->tok), ch);
    } else if (!lex_open_bracket(p->scanner, &open, &ch)) {
        return false;
    } else if (lex_at_eof(p->scanner) && (p->tok == NEWLINE || p->tok == DEDENT || p->tok == YYEOF)) {
        diag_error(loc, "expected '%c' before end of file", closer_of(ch));
    } else if (loc.line > open.line && looks_like_next_statement(p)) {
        diag_error(loc, "expected '%c' before %s", closer_of(ch), shown(p, p->tok));
        /* Recovery skips to the end of the line; left open, the brackets
         * would make that wherever they happen to balance, often the end
         * of the file. */
        lex_forget_brackets(p->scanner);
        p->line_depth = 0;
    } else {
        return false;
    }
    diag_note(open, "to match this '%c'", ch);
    return true;
}

void syntax_error(Parser *p, Loc loc, const char *bison_msg)
{
    if (strncmp(bison_msg, "syntax error", 12) != 0) {       /* "memory exhausted" */
        diag_error(loc, "too deeply nested: more than %d levels of blocks and expressions", PARSER_MAX_DEPTH);
        return;
    }
    if (p->tok == YYUNDEF)          /* an invalid character, reported by the scanner */
        return;
    if (bracket_error(p, loc))
        return;
    Expected e = expected_in(p, bison_msg);
    const char *m = specific_message(p, &e);
    diag_error(loc, "%s", m ? m : generic_message(p, &e));
    Loc open;
    char ch;
    if (lex_open_bracket(p->scanner, &open, &ch) && loc.line > open.line && !missing_comma(p))
        diag_note(open, "to match this '%c'", ch);
}
