/* indent.c - INDENT and DEDENT, the way CPython's tokenizer computes them.
 *
 * A stack holds the indentation columns of the open blocks.  A deeper line
 * opens one block; a shallower line closes every block deeper than it and
 * must land exactly on an outer level.  The scanner (grammar/ufn.l) feeds
 * the column of each logical line's first token and hands out the DEDENTs
 * one per call; this file knows nothing of flex. */
#include "ufnc.h"

#include <string.h>

void indent_init(Indenter *in)
{
    memset(in, 0, sizeof *in);
    in->depth = 1;          /* stack[0] == 0: the module's own level */
}

static int top(const Indenter *in)
{
    return in->stack[in->depth - 1];
}

IndentResult indent_line(Indenter *in, int column)
{
    if (column == top(in))
        return INDENT_SAME;
    if (column > top(in)) {
        if (in->depth == INDENT_MAX_DEPTH)
            return INDENT_TOO_DEEP;
        in->stack[in->depth++] = column;
        return INDENT_OPEN;
    }
    int closed = 0;
    while (in->depth > 1 && top(in) > column) {
        in->depth--;
        closed++;
    }
    if (top(in) == column) {
        in->pending_dedents += closed;
        return INDENT_CLOSE;
    }
    /* Between two levels: keep the outermost of the closed blocks open,
     * now at this column, and close only the ones inside it. */
    in->stack[in->depth++] = column;
    in->pending_dedents += closed - 1;
    return INDENT_BAD_DEDENT;
}

int indent_finish(Indenter *in)
{
    int closed = in->depth - 1;
    in->depth = 1;
    in->pending_dedents += closed;
    return closed;
}
