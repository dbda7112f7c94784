/* lex_dump.c - the -d tokens dump: the scanner's output, one token a line.
 *
 *   1:1-1:4 def
 *   1:5-1:13 NAME gpu_sqrt
 *   2:5 INDENT
 *   2:12-2:13 INT 42
 *
 * A span prints as start-end (end exclusive); a zero-width token (INDENT,
 * DEDENT, the NEWLINE owed at end of input, EOF) only where it is.
 * Diagnostics go to their own stream as the scanner meets them. */
#include "ufnc.h"
#include "ufn.tab.h"

#include <inttypes.h>

static void dump_loc(FILE *out, Loc l)
{
    if (l.end_line == l.line && l.end_col == l.col)
        fprintf(out, "%d:%d", l.line, l.col);
    else
        fprintf(out, "%d:%d-%d:%d", l.line, l.col, l.end_line, l.end_col);
}

static void dump_value(FILE *out, int tok, const YYSTYPE *v)
{
    switch (tok) {
    case NAME: fprintf(out, "NAME %s", v->id); break;
    case INT:
        if (v->node->intlit.too_big)
            fputs("INT too-big", out);
        else
            fprintf(out, "INT %" PRIu64, v->node->intlit.value);
        break;
    case FLOAT: fputs("FLOAT ", out); ast_print_double(out, v->node->floatlit.value); break;
    case IMAG: fputs("IMAG ", out); ast_print_double(out, v->node->floatlit.value); break;
    case STRING: fputs("STRING ", out); ast_print_str(out, v->node); break;
    case NEWLINE: fputs("NEWLINE", out); break;
    case INDENT: fputs("INDENT", out); break;
    case DEDENT: fputs("DEDENT", out); break;
    case YYEOF: fputs("EOF", out); break;
    default: fputs(token_name(tok), out); break;
    }
}

void dump_tokens(FILE *out, const SrcFile *src)
{
    void *scanner = lex_open(src);
    for (;;) {
        YYSTYPE v;
        Loc l;
        int tok = lex_token(&v, &l, scanner);
        dump_loc(out, l);
        fputc(' ', out);
        dump_value(out, tok, &v);
        fputc('\n', out);
        if (tok == YYEOF)
            break;
    }
    lex_close(scanner);
}
