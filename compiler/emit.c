/* emit.c - what every generated file is written with: an Emitter (the
 * text, indentation, #line directives back to the .ufn), C string
 * literals, and the public prototypes of a kernel's entry points, which the
 * header declares and the host stub defines with the very same text.
 * emit_cuda.c, emit_host.c and emit_header.c sit side by side on this base
 * (the first two on emit_body.c's scalar bodies too); every name comes
 * from names.c. */
#include "ufnc.h"

#include <string.h>

/* ---- writing ----------------------------------------------------------------------- */

void emit_text(Emitter *em, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(em->out, fmt, ap);
    va_end(ap);
}

void emit_line(Emitter *em, const char *fmt, ...)
{
    for (int i = 0; i < em->indent; i++)
        buf_puts(em->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(em->out, fmt, ap);
    va_end(ap);
    buf_putc(em->out, '\n');
}

static int out_lines(const Emitter *em)
{
    int n = 1;
    for (size_t i = 0; i < em->out->len; i++)
        n += em->out->data[i] == '\n';
    return n;
}

/* s as a C string literal, quotes included. */
const char *c_string_literal(const char *s)
{
    Buf b = {0};
    buf_putc(&b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            buf_putc(&b, '\\');
        if ((unsigned char)*s < 32)
            buf_printf(&b, "\\%03o", (unsigned char)*s);
        else
            buf_putc(&b, *s);
    }
    buf_putc(&b, '"');
    const char *r = arena_strndup(b.data, b.len);
    buf_free(&b);
    return r;
}

/* File names are quoted: a path may hold '"' or '\\'. */
void line_directive(Emitter *em, Loc loc)
{
    if (em->opt->line_directives && loc.file)
        emit_text(em, "#line %d %s\n", loc.line, c_string_literal(loc.file->name));
}

/* Back to the generated file's own numbering after #line directives. */
void line_reset(Emitter *em)
{
    if (em->opt->line_directives && em->file_name)
        emit_text(em, "#line %d %s\n", out_lines(em) + 1, c_string_literal(em->file_name));
}

void begin_line(Emitter *em)
{
    for (int i = 0; i < em->indent; i++)
        buf_puts(em->out, "    ");
}

const char *lane_rows_name(const Var *v)
{
    return arena_printf("ufn_rows_%s", v->cname);
}

/* An array parameter in a lane body: lane 0's view is the parameter, lane
 * l's the same view l rows further on (emit_lanes.c). */
static const char *lane_view(const Emitter *em, const Var *v)
{
    if (!strcmp(em->lane, "[0]"))
        return v->cname;
    const char *index = arena_strndup(em->lane + 1, strlen(em->lane) - 2);   /* "[ufn_l]" */
    return arena_printf("%s(%s, %s, %s)", c_row_maker(v->type), v->cname, lane_rows_name(v), index);
}

const char *var_ref(const Emitter *em, const Var *v)
{
    if (em->lane && v->param && v->type && v->type->kind == TY_ARRAY)
        return lane_view(em, v);
    return em->lane ? arena_printf("%s%s", v->cname, em->lane) : v->cname;
}

const char *c_load(const Type *t, const char *lvalue)
{
    return t->kind == TY_BOOL ? arena_printf("(%s != 0)", lvalue) : lvalue;
}

/* ---- a kernel's operands ---------------------------------------------------------------- */

Type *operand_type(const Instance *inst, int k)
{
    return k < inst->nargs ? inst->args[k] : inst->ret;
}

/* ---- kernels ------------------------------------------------------------------------------ */

static const char *const form_names[] = {[KF_CONTIG] = "contig", [KF_STRIDED] = "strided", [KF_GUFUNC] = "gufunc",
                                         [KF_JIT] = "jit"};

int kernel_forms(const Func *f, KernelForm *forms)
{
    if (f->kind == FK_CUDA_KERNEL) {
        forms[0] = KF_JIT;
        return 1;
    }
    if (f->kind == FK_VECTORIZE) {
        forms[0] = KF_CONTIG;
        forms[1] = KF_STRIDED;
        return 2;
    }
    forms[0] = KF_GUFUNC;
    return 1;
}

const char *kernel_name(const Instance *inst, KernelForm form)
{
    return kernel_c_name(inst, form_names[form]);
}

const char *kernel_operand(const Instance *inst, int k)
{
    return k < inst->nargs ? inst->vars[k]->cname : inst->out_cname;
}

/* Operand k's pointer: a ufunc's inputs are const, and in the kernels'
 * own definitions restrict (the runtime never aliases a ufunc's operands). */
static const char *pointer(const Instance *inst, KernelForm form, int k, bool restrict_)
{
    Type *t = operand_type(inst, k);
    bool ufunc = form != KF_GUFUNC;
    return arena_printf("%s%s *%s", ufunc && k < inst->nargs ? "const " : "",
                        c_elem_type(t->kind == TY_ARRAY ? t->elt : t), ufunc && restrict_ ? "__restrict__" : "");
}

int kernel_params(const Instance *inst, KernelForm form, bool restrict_, KernelParam *params)
{
    int n = 0, nops = kernel_nops(inst->func);
    switch (form) {
    case KF_JIT:
        /* a @cuda.jit kernel: its parameters as they are, arrays as views
         * passed by value (ufn_abi.h) */
        (void)restrict_;
        for (int k = 0; k < nops; k++)
            params[n++] = (KernelParam){c_type(inst->args[k]), inst->vars[k]->arg_cname && inst->vars[k]->type != inst->args[k]
                                                                   ? inst->vars[k]->arg_cname
                                                                   : inst->vars[k]->cname};
        break;
    case KF_CONTIG:
        params[n++] = (KernelParam){"uint32_t", "ufn_n"};
        for (int k = 0; k < nops; k++)
            params[n++] = (KernelParam){pointer(inst, form, k, restrict_), kernel_operand(inst, k)};
        break;
    case KF_STRIDED:
        params[n++] = (KernelParam){"ufn_kiter", "ufn_it"};
        for (int k = 0; k < nops; k++) {
            params[n++] = (KernelParam){pointer(inst, form, k, restrict_), kernel_operand(inst, k)};
            params[n++] = (KernelParam){"ufn_kstrides", arena_printf("ufn_s%d", k)};
        }
        break;
    case KF_GUFUNC:
        params[n++] = (KernelParam){"ufn_kiter", "ufn_it"};
        params[n++] = (KernelParam){"ufn_kcore", "ufn_core"};
        for (int k = 0; k < nops; k++) {
            params[n++] = (KernelParam){pointer(inst, form, k, restrict_), kernel_operand(inst, k)};
            params[n++] = (KernelParam){"ufn_kstrides", arena_printf("ufn_loop%d", k)};
            params[n++] = (KernelParam){"ufn_kstrides", arena_printf("ufn_core%d", k)};
        }
        break;
    }
    return n;
}

const char *c_declaration(const char *type, const char *name)
{
    size_t n = strlen(type);
    return arena_printf("%s%s%s", type, n && type[n - 1] == '*' ? "" : " ", name);
}

/* ---- entry points ---------------------------------------------------------------------------- */

/* The C element type of a public pointer: the dtype's C type, with complex
 * numbers as ufn.h's structs. */
static const char *public_ctype(Type *t)
{
    if (t->kind == TY_ARRAY)
        t = t->elt;
    switch (t->kind) {
    case TY_COMPLEX64: return "ufn_complex64";
    case TY_COMPLEX128: return "ufn_complex128";
    default: return c_type(t);
    }
}

void entry_general_proto(Buf *b, const Func *f)
{
    if (f->kind == FK_CUDA_KERNEL) {
        /* the launch first, as Numba writes kernel[blocks, threads](...) */
        buf_printf(b, "int %s(ufn_launch launch", f->public_name);
        for (int k = 0; k < kernel_nops(f); k++)
            buf_printf(b, ", ufn_array *%s", f->param_cnames[k]);
        buf_puts(b, ")");
        return;
    }
    buf_printf(b, "int %s(", f->public_name);
    for (int k = 0; k < kernel_nops(f); k++)
        buf_printf(b, "%s%sufn_array *%s", k ? ", " : "", k < kernel_nin(f) ? "const " : "", f->param_cnames[k]);
    buf_puts(b, ")");
}

void entry_typed_proto(Buf *b, const Func *f, const Instance *inst)
{
    buf_printf(b, "int %s(size_t n", inst->entry_cname);
    if (f->kind == FK_GUVECTORIZE)
        for (int d = 0; d < f->layout->nnames; d++)
            if (f->layout->fixed[d] < 0)
                buf_printf(b, ", size_t %s", f->core_cnames[d]);
    for (int k = 0; k < kernel_nops(f); k++) {
        Type *t = k < inst->nargs ? inst->args[k] : inst->ret;
        buf_printf(b, ", %s%s *%s", k < kernel_nin(f) ? "const " : "", public_ctype(t), f->param_cnames[k]);
    }
    buf_puts(b, ")");
}

/* "@vectorize(['float32(float32, float32)']) def gpu_arctan2(y, x)" */
const char *describe_kernel(const Func *f)
{
    Buf b = {0};
    if (f->kind == FK_CUDA_KERNEL && f->lazy)
        buf_puts(&b, "@cuda.jit def ");
    else
        buf_printf(&b, "@%s([", f->kind == FK_GUVECTORIZE ? "guvectorize" : f->kind == FK_CUDA_KERNEL ? "cuda.jit" : "vectorize");
    for (int k = 0; k < f->nsigs && !(f->kind == FK_CUDA_KERNEL && f->lazy); k++)
        buf_printf(&b, "%s'%s'", k ? ", " : "", f->sigs[k]->text);
    if (!(f->kind == FK_CUDA_KERNEL && f->lazy)) {
        buf_puts(&b, "]");
        if (f->kind == FK_GUVECTORIZE)
            buf_printf(&b, ", '%s'", f->layout->text);
        buf_puts(&b, ") def ");
    }
    buf_printf(&b, "%s(", f->name);
    for (int i = 0; i < f->def->funcdef.params.len; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", f->def->funcdef.params.items[i]->name.id);
    buf_puts(&b, ")");
    const char *s = arena_strndup(b.data, b.len);
    buf_free(&b);
    return s;
}

