/* emit_kernel_host.c - the host side of @cuda.jit kernels, in the host
 * stub: the host backend's entries into polar.cu's host build (the thread
 * entry NAME__jit__host behind a trampoline, and the block runner where
 * emit_kernel.c made one), the tables of ufn_abi.h (ufn_kparam, ufn_ksig,
 * ufn_kernel) and the launch entry of each kernel:
 *
 *     int add_kernel(ufn_launch launch, ufn_array *x, ufn_array *y, ufn_array *out)
 *
 * which hands everything to ufn_launch_kernel.  The simulator's trampolines
 * are emit_host.c's, as for every kernel form. */
#include "ufnc.h"

#include <string.h>

static const char *dtype_name(const Type *t)
{
    static const char *const names[] = {
        [TY_BOOL] = "UFN_BOOL", [TY_INT8] = "UFN_INT8", [TY_INT16] = "UFN_INT16", [TY_INT32] = "UFN_INT32",
        [TY_INT64] = "UFN_INT64", [TY_UINT8] = "UFN_UINT8", [TY_UINT16] = "UFN_UINT16",
        [TY_UINT32] = "UFN_UINT32", [TY_UINT64] = "UFN_UINT64", [TY_FLOAT32] = "UFN_FLOAT32",
        [TY_FLOAT64] = "UFN_FLOAT64", [TY_COMPLEX64] = "UFN_COMPLEX64", [TY_COMPLEX128] = "UFN_COMPLEX128",
    };
    return names[t->kind == TY_ARRAY ? t->elt->kind : t->kind];
}

static const char *flags_text(unsigned flags)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {UFN_KF_BARRIER, "UFN_KF_BARRIER"}, {UFN_KF_WARP, "UFN_KF_WARP"}, {UFN_KF_ATOMIC, "UFN_KF_ATOMIC"},
        {UFN_KF_PRINT, "UFN_KF_PRINT"}, {UFN_KF_DYN_SHARED, "UFN_KF_DYN_SHARED"},
    };
    Buf b = {0};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (flags & names[i].bit)
            buf_printf(&b, "%s%s", b.len ? " | " : "", names[i].name);
    const char *s = b.len ? arena_strndup(b.data, b.len) : "0";
    buf_free(&b);
    return s;
}

/* The host backend's two entries into polar.cu's host build. */
static void host_entries(Emitter *em, const Instance *inst)
{
    KernelParam params[MAX_KERNEL_PARAMS];
    int n = kernel_params(inst, KF_JIT, false, params);
    const char *kname = kernel_name(inst, KF_JIT);
    Buf decl = {0}, call = {0};
    for (int i = 0; i < n; i++) {
        buf_printf(&decl, "%s%s", i ? ", " : "", params[i].type);
        buf_printf(&call, "%s*(%s *)p[%d]", i ? ", " : "", params[i].type, i);
    }
    emit_line(em, "void %s(%s);", sim_c_symbol(kname, "host"), n ? decl.data : "void");
    emit_line(em, "static void %s(void **p) { %s%s(%s); }", sim_c_symbol(kname, "thread"), n ? "" : "(void)p; ",
              sim_c_symbol(kname, "host"), n ? call.data : "");
    if (jit_context(inst))
        emit_jit_context(em, inst);
    if (jit_has_block_runner(inst)) {
        const char *b = sim_c_symbol(kname, "blocks");
        emit_line(em, "void %s_baseline(void **, const ufn_kblocks *);", b);
        emit_line(em, "#if UFN_RUNNER_ISAS");
        emit_line(em, "void %s_avx2(void **, const ufn_kblocks *);", b);
        emit_line(em, "void %s_avx512(void **, const ufn_kblocks *);", b);
        emit_line(em, "#endif");
    }
    buf_free(&decl);
    buf_free(&call);
}

static void kernel_tables(Emitter *em, const Func *f)
{
    int n = kernel_nops(f);
    for (int k = 0; k < f->ninstances; k++) {
        const Instance *inst = f->instances[k];
        Buf b = {0};
        for (int i = 0; i < n; i++) {
            Type *t = inst->args[i];
            if (t->kind == TY_ARRAY)
                buf_printf(&b, "%s{.dtype = %s, .ndim = %d, .layout = UFN_LAYOUT_%c}", i ? ", " : "", dtype_name(t),
                           t->ndim, t->layout);
            else
                buf_printf(&b, "%s{.dtype = %s, .ndim = 0}", i ? ", " : "", dtype_name(t));
        }
        emit_line(em, "static const ufn_kparam %s[] = {%s};", sim_c_symbol(kernel_name(inst, KF_JIT), "params"),
                  n ? b.data : "{.ndim = 0}");
        buf_free(&b);
    }
    emit_line(em, "static const ufn_ksig %s[] = {", func_c_symbol(f, "sigs"));
    for (int k = 0; k < f->ninstances; k++) {
        const Instance *inst = f->instances[k];
        const char *kname = kernel_name(inst, KF_JIT);
        emit_line(em, "    {.signature = %s, .params = %s, .kernel = %s,", c_string_literal(jit_signature_text(inst->sig)),
                  sim_c_symbol(kname, "params"), c_string_literal(kname));
        emit_line(em, "     .static_shared = %u, .flags = %s,", jit_static_shared(inst), flags_text(jit_flags(inst)));
        if (em->opt->host) {
            if (jit_has_block_runner(inst)) {
                const char *b = sim_c_symbol(kname, "blocks");
                emit_line(em, "#if UFN_RUNNER_ISAS");
                emit_line(em, "     .host_blocks = {%s_baseline, %s_avx2, %s_avx512},", b, b, b);
                emit_line(em, "#else");
                emit_line(em, "     .host_blocks = {%s_baseline},", b);
                emit_line(em, "#endif");
            }
            if (jit_context(inst))
                emit_line(em, "     .host_ctx_bytes = sizeof(%s),", jit_context(inst));
            emit_line(em, "     .host_thread = %s,", sim_c_symbol(kname, "thread"));
        }
        emit_line(em, "    },");
    }
    emit_line(em, "};");
    Buf names = {0};
    for (int i = 0; i < n; i++)
        buf_printf(&names, "%s%s", i ? ", " : "", c_string_literal(f->def->funcdef.params.items[i]->name.id));
    emit_line(em, "static const char *const %s[] = {%s};", func_c_symbol(f, "param_names"), n ? names.data : "NULL");
    buf_free(&names);
    emit_line(em, "static const ufn_kernel %s = {", func_c_symbol(f, "kernel"));
    emit_line(em, "    .name = %s, .module = &%s, .nparams = %d, .param_names = %s,", c_string_literal(f->public_name),
              module_c_symbol(f->module, "module"), n, func_c_symbol(f, "param_names"));
    emit_line(em, "    .nsigs = %d, .sigs = %s,", f->ninstances, func_c_symbol(f, "sigs"));
    emit_line(em, "};");
    emit_line(em, "%s", "");
}

void emit_jit_tables(Emitter *em)
{
    Module *m = em->mod;
    if (!module_has_jit(m))
        return;
    emit_line(em, "/* ---- @cuda.jit kernels ---- */");
    emit_line(em, "%s", "");
    if (em->opt->host) {
        emit_line(em, "/* the host backend runs %s.cu's host build: a thread entry, a block runner", m->name);
        emit_line(em, " * per ISA where the compiler builds them (UFN_RUNNER_VARIANTS there) */");
        emit_line(em, "#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))");
        emit_line(em, "#define UFN_RUNNER_ISAS 1");
        emit_line(em, "#else");
        emit_line(em, "#define UFN_RUNNER_ISAS 0");
        emit_line(em, "#endif");
        for (int i = 0; i < m->nkernels; i++)
            if (m->kernels[i]->kind == FK_CUDA_KERNEL)
                for (int k = 0; k < m->kernels[i]->ninstances; k++)
                    host_entries(em, m->kernels[i]->instances[k]);
        emit_line(em, "%s", "");
    }
    for (int i = 0; i < m->nkernels; i++)
        if (m->kernels[i]->kind == FK_CUDA_KERNEL && m->kernels[i]->ninstances)
            kernel_tables(em, m->kernels[i]);
}

void emit_jit_entries(Emitter *em)
{
    Module *m = em->mod;
    for (int i = 0; i < m->nkernels; i++) {
        Func *f = m->kernels[i];
        if (f->kind != FK_CUDA_KERNEL || !f->ninstances)
            continue;
        int n = kernel_nops(f);
        Buf proto = {0}, args = {0};
        entry_general_proto(&proto, f);
        for (int k = 0; k < n; k++)
            buf_printf(&args, "%s%s", k ? ", " : "", f->param_cnames[k]);
        emit_line(em, "%s", proto.data);
        emit_line(em, "{");
        emit_line(em, "    ufn_array *ufn_args[] = {%s};", n ? args.data : "NULL");
        emit_line(em, "    return ufn_launch_kernel(&%s, &launch, ufn_args);", func_c_symbol(f, "kernel"));
        emit_line(em, "}");
        emit_line(em, "%s", "");
        buf_free(&proto);
        buf_free(&args);
    }
}
