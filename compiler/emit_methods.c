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

/* ---- the device reduce kernel ------------------------------------------------------------ */

/* A T(T, T) signature of a ufunc with methods gets a reduce kernel, if
 * its identity lets reduce reorder it (0, 1, 'reorderable'): with
 * identity=None reduce keeps NumPy's order, on the host. */
bool has_reduce_kernel(const Instance *inst)
{
    return has_methods(inst->func) && inst->func->identity != ID_NONE && inst->args[0] == inst->args[1]
           && inst->args[0] == inst->ret;
}

const char *reduce_kernel_name(const Instance *inst)
{
    return kernel_c_name(inst, "reduce");
}

/* The reduce kernel's parameters, in ufn_abi.h's order (UFN_REDUCE_BLOCK). */
int reduce_kernel_params(const Instance *inst, bool restrict_, KernelParam *params)
{
    const char *t = c_elem_type(inst->ret), *r = restrict_ ? "__restrict__" : "";
    params[0] = (KernelParam){arena_printf("const %s *%s", t, r), "ufn_in"};
    params[1] = (KernelParam){"int64_t", "ufn_n"};
    params[2] = (KernelParam){"int64_t", "ufn_rows"};
    params[3] = (KernelParam){arena_printf("%s *%s", t, r), "ufn_out"};
    params[4] = (KernelParam){t, "ufn_init"};
    params[5] = (KernelParam){"int32_t", "ufn_has_init"};
    return 6;
}

/* Its shared memory: one value per thread of a block. */
unsigned reduce_kernel_shared(const Instance *inst)
{
    return (unsigned)(UFN_REDUCE_BLOCK * inst->ret->size);
}

/* ufn_o = lane (ufn_t + ufn_d)'s ufn_v, for any T: its bytes as 32-bit words,
 * each through the warp shuffle (nvcc turns the copies into moves). */
static void shuffle_down(Emitter *em, const char *t, int size)
{
    int words = (size + 3) / 4;
    emit_line(em, "uint32_t ufn_w[%d] = {0};", words);
    emit_line(em, "memcpy(ufn_w, &ufn_v, sizeof ufn_v);");
    emit_line(em, "for (int ufn_k = 0; ufn_k < %d; ufn_k++)", words);
    emit_line(em, "    ufn_w[ufn_k] = ufn_shfl_down_sync_u32(0xffffffffu, ufn_w[ufn_k], ufn_d);");
    emit_line(em, "%s ufn_o;", t);
    emit_line(em, "memcpy(&ufn_o, ufn_w, sizeof ufn_o);");
}

/* The block-tree reduction of ufn(7) METHODS, one launch per stage (the
 * runtime's reduce_device.c): each of rows rows of n contiguous elements is
 * reduced by gridDim.x blocks into gridDim.x partial results,
 * out[row * gridDim.x + block].  Thread g of a row's grid folds elements
 * g, g + S, g + 2S, ... (S threads in the row's grid) left to right; then the
 * block halves its values in shared memory down to one warp (value t with
 * value t + h), and the warp halves them with shuffles.  Threads whose g >= n
 * hold nothing: they are always the block's last ones, so "t + h holds a
 * value" is t + h < n - block * UFN_REDUCE_BLOCK.  With ufn_has_init (the
 * last stage) the result is f(initial, value). */
void reduce_kernel(Emitter *em, const Instance *inst)
{
    Type *ty = inst->ret;
    const char *t = c_elem_type(ty), *f = inst->cname;
    const char *acc = c_load(ty, "ufn_acc"), *v = c_load(ty, "ufn_v"), *o = c_load(ty, "ufn_o");
    KernelParam params[6];
    int n = reduce_kernel_params(inst, true, params);
    Buf b = {0};
    for (int i = 0; i < n; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", c_declaration(params[i].type, params[i].name));
    emit_line(em, "UFN_KERNEL %s(%s)", reduce_kernel_name(inst), b.data);
    buf_free(&b);
    emit_line(em, "{");
    em->indent++;
    emit_line(em, "UFN_SHARED_ARRAY(%s, ufn_s, UFN_REDUCE_BLOCK, 0);", t);
    emit_line(em, "uint32_t ufn_t = threadIdx.x;");
    emit_line(em, "int64_t ufn_step = (int64_t)gridDim.x * UFN_REDUCE_BLOCK;");
    emit_line(em, "int64_t ufn_live = ufn_n - (int64_t)blockIdx.x * UFN_REDUCE_BLOCK;   /* threads holding a value */");
    emit_line(em, "for (int64_t ufn_row = blockIdx.y; ufn_row < ufn_rows; ufn_row += gridDim.y) {");
    em->indent++;
    emit_line(em, "const %s *ufn_x = ufn_in + ufn_row * ufn_n;", t);
    emit_line(em, "int64_t ufn_g = (int64_t)blockIdx.x * UFN_REDUCE_BLOCK + ufn_t;");
    emit_line(em, "if (ufn_g < ufn_n) {");
    emit_line(em, "    %s ufn_acc = ufn_x[ufn_g];", t);
    emit_line(em, "    for (int64_t ufn_i = ufn_g + ufn_step; ufn_i < ufn_n; ufn_i += ufn_step)");
    emit_line(em, "        ufn_acc = %s(%s, %s);", f, acc, c_load(ty, "ufn_x[ufn_i]"));
    emit_line(em, "    UFN_STORE(%s, ufn_s + ufn_t, ufn_acc);", t);
    emit_line(em, "}");
    emit_line(em, "ufn_syncthreads();");
    emit_line(em, "for (uint32_t ufn_h = UFN_REDUCE_BLOCK / 2; ufn_h >= 32; ufn_h /= 2) {");
    emit_line(em, "    if (ufn_t < ufn_h && ufn_t + ufn_h < ufn_live) {");
    emit_line(em, "        %s ufn_acc = UFN_LOAD(%s, ufn_s + ufn_t), ufn_v = UFN_LOAD(%s, ufn_s + ufn_t + ufn_h);", t, t, t);
    emit_line(em, "        UFN_STORE(%s, ufn_s + ufn_t, %s(%s, %s));", t, f, acc, v);
    emit_line(em, "    }");
    emit_line(em, "    ufn_syncthreads();");
    emit_line(em, "}");
    emit_line(em, "if (ufn_t < 32) {");
    em->indent++;
    emit_line(em, "%s ufn_v = UFN_LOAD(%s, ufn_s + (ufn_t < ufn_live ? ufn_t : 0));", t, t);
    emit_line(em, "for (unsigned ufn_d = 16; ufn_d >= 1; ufn_d /= 2) {");
    em->indent++;
    shuffle_down(em, t, ty->size);
    emit_line(em, "if (ufn_t + ufn_d < ufn_live)");
    emit_line(em, "    ufn_v = %s(%s, %s);", f, v, o);
    em->indent--;
    emit_line(em, "}");
    emit_line(em, "if (ufn_t == 0)");
    emit_line(em, "    ufn_out[ufn_row * gridDim.x + blockIdx.x] = ufn_has_init ? %s(%s, %s) : ufn_v;", f,
              c_load(ty, "ufn_init"), v);
    em->indent--;
    emit_line(em, "}");
    emit_line(em, "ufn_syncthreads();   /* ufn_s is the next row's */");
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    emit_line(em, "}");
    emit_line(em, "%s", "");
}
