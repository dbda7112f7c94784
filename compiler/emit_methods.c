/* emit_methods.c - the methods of a binary ufunc (DESIGN 7): for a
 * @vectorize function of two parameters with a T(T, T) signature, the
 * entries NAME_reduce, NAME_accumulate and NAME_outer, which hand the
 * ufunc's table to libufnrt's ufn_reduce, ufn_accumulate and ufn_outer
 * (runtime/reduce.c, methods.c).  Which ufuncs have them, and their names,
 * are names.c's (has_methods, method_word). */
#include "ufnc.h"

#include <string.h>

static bool is_param(const Node *e, const Node *param)
{
    return e->kind == N_NAME && strcmp(e->name.id, param->name.id) == 0;
}

/* Is the body `return x + y` (or y + x) of its two parameters, a docstring
 * aside?  Then the ufunc is NumPy's add, and its float reduce sums
 * pairwise as np.add.reduce does (the runtime's order, reduce.c). */
bool is_sum_body(const Func *f)
{
    const NodeList *params = &f->def->funcdef.params, *body = &f->def->funcdef.body;
    if (params->len != 2)
        return false;
    const Node *ret = NULL;
    for (int i = 0; i < body->len; i++) {
        const Node *s = body->items[i];
        if (s->kind == N_EXPRSTMT && i == 0 && f->def->funcdef.docstring)
            continue;
        if (ret || s->kind != N_RETURN)
            return false;
        ret = s;
    }
    const Node *e = ret ? ret->ret.value : NULL;
    if (!e || e->kind != N_BINARY || e->binary.op != OP_ADD)
        return false;
    const Node *x = params->items[0], *y = params->items[1];
    return (is_param(e->binary.lhs, x) && is_param(e->binary.rhs, y))
           || (is_param(e->binary.lhs, y) && is_param(e->binary.rhs, x));
}

static void method_proto(Buf *b, const Func *f, Method m)
{
    static const char *const params[NUM_METHODS] = {
        [M_REDUCE] = "const ufn_array *a, const ufn_reduce_opts *opts, ufn_array *out",
        [M_ACCUMULATE] = "const ufn_array *a, int axis, ufn_array *out",
        [M_OUTER] = "const ufn_array *a, const ufn_array *b, ufn_array *out",
    };
    buf_printf(b, "int %s(%s)", f->method_cnames[m], params[m]);
}

void method_protos(Buf *b, const Func *f)
{
    for (int m = 0; m < NUM_METHODS; m++) {
        method_proto(b, f, (Method)m);
        buf_puts(b, ";\n");
    }
}

void method_entries(Emitter *em, const Func *f)
{
    static const char *const calls[NUM_METHODS] = {
        [M_REDUCE] = "ufn_reduce(&%s, a, opts, out)",
        [M_ACCUMULATE] = "ufn_accumulate(&%s, a, axis, out)",
        [M_OUTER] = "ufn_outer(&%s, a, b, out)",
    };
    for (int m = 0; m < NUM_METHODS; m++) {
        Buf b = {0};
        method_proto(&b, f, (Method)m);
        emit_line(em, "%s", b.data);
        emit_line(em, "{");
        emit_line(em, "    return %s;", arena_printf(calls[m], func_c_symbol(f, "func")));
        emit_line(em, "}");
        emit_line(em, "%s", "");
        buf_free(&b);
    }
}
