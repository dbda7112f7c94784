/* emit_cuda.c - polar.cu: the device code.  nvcc builds it for the GPU; the
 * sim backend compiles the very same file as C11 for the CPU.
 *
 * Per @vectorize signature two kernels, both grid-stride loops over 32-bit
 * indices (the runtime splits launches of 2^31 elements or more):
 *   __contig   every operand contiguous: 16-byte loads and stores when all
 *              pointers are aligned, then a scalar tail;
 *   __strided  broadcast or non-contiguous operands: the flat index is split
 *              over up to UFN_KMAXDIM loop dimensions (unrolled, so the
 *              by-value shape and strides stay in registers, never in local
 *              memory).
 * Per @guvectorize signature one kernel: a thread per loop iteration, calling
 * the body with array views of the core dimensions. */
#include "ufnc.h"

#include <string.h>

/* A load that uses the read-only data path where CUDA has one for the type. */
static const char *load(Type *t, const char *ptr, const char *index)
{
    if (ty_is_bool(t) || ty_is_complex(t))
        return c_load(t, arena_printf("%s[%s]", ptr, index));
    return arena_printf("__ldg(%s + %s)", ptr, index);
}

/* Move `lanes` elements of type t between registers and memory, 16 bytes at a
 * time when the run is that long. */
static void move(Emitter *em, const char *dir, Type *t, int lanes, const char *dst, const char *src)
{
    int bytes = lanes * t->size;
    if (bytes <= 16) {
        emit_line(em, "ufn_%s%d(%s, %s);", dir, bytes, dst, src);
        return;
    }
    int per = 16 / t->size;
    for (int i = 0; i < bytes / 16; i++)
        emit_line(em, "ufn_%s16((%s) + %d, (%s) + %d);", dir, dst, i * per, src, i * per);
}

/* "UFN_KERNEL name(params)": emit.c's description of the kernel. */
static void kernel_header(Emitter *em, const Instance *inst, KernelForm form)
{
    KernelParam params[MAX_KERNEL_PARAMS];
    int n = kernel_params(inst, form, true, params);
    Buf b = {0};
    for (int i = 0; i < n; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", c_declaration(params[i].type, params[i].name));
    emit_line(em, "UFN_KERNEL %s(%s)", kernel_name(inst, form), b.data);
    buf_free(&b);
}

static void ufunc_contig(Emitter *em, const Instance *inst)
{
    int nops = inst->nargs + 1;
    /* Lanes enough for a full 16-byte move of the narrowest operand; wider
     * operands move 16 bytes several times (float32 -> float64: 4 lanes,
     * one 16-byte load, two 16-byte stores).  Complex128 gets no lanes. */
    int minsize = 16, maxsize = 0;
    for (int k = 0; k < nops; k++) {
        int size = operand_type(inst, k)->size;
        minsize = size < minsize ? size : minsize;
        maxsize = size > maxsize ? size : maxsize;
    }
    int lanes = maxsize >= 16 ? 1 : 16 / minsize;
    kernel_header(em, inst, KF_CONTIG);
    const char *out = kernel_operand(inst, nops - 1);
    emit_line(em, "{");
    em->indent++;
    emit_line(em, "uint32_t ufn_first = UFN_FIRST_INDEX(), ufn_step = UFN_GRID_STRIDE(), ufn_done = 0;");
    if (lanes > 1) {
        Buf cond = {0};
        for (int k = 0; k < nops; k++) {
            Type *t = operand_type(inst, k);
            int bytes = lanes * t->size;
            buf_printf(&cond, "%sufn_aligned(%s, %d)", k ? " && " : "", kernel_operand(inst, k), bytes > 16 ? 16 : bytes);
        }
        emit_line(em, "/* %d elements per step: 16-byte loads and stores (or narrower for narrower types) */", lanes);
        emit_line(em, "if (%s) {", cond.data);
        buf_free(&cond);
        em->indent++;
        emit_line(em, "uint32_t ufn_nvec = ufn_n / %d;", lanes);
        emit_line(em, "for (uint32_t ufn_v = ufn_first; ufn_v < ufn_nvec; ufn_v += ufn_step) {");
        em->indent++;
        for (int k = 0; k < nops; k++) {
            Type *t = operand_type(inst, k);
            emit_line(em, "%s ufn_lane%d[%d];", c_elem_type(t), k, lanes);
        }
        for (int k = 0; k < inst->nargs; k++) {
            Type *t = operand_type(inst, k);
            const char *nm = kernel_operand(inst, k);
            move(em, "load", t, lanes, arena_printf("ufn_lane%d", k), arena_printf("%s + %d * ufn_v", nm, lanes));
        }
        emit_line(em, "#pragma unroll");
        emit_line(em, "for (int ufn_l = 0; ufn_l < %d; ufn_l++)", lanes);
        Buf call = {0};
        for (int k = 0; k < inst->nargs; k++)
            buf_printf(&call, "%s%s", k ? ", " : "", c_load(operand_type(inst, k), arena_printf("ufn_lane%d[ufn_l]", k)));
        emit_line(em, "    ufn_lane%d[ufn_l] = %s(%s);", nops - 1, inst->cname, call.data ? call.data : "");
        buf_free(&call);
        move(em, "store", inst->ret, lanes, arena_printf("%s + %d * ufn_v", out, lanes), arena_printf("ufn_lane%d", nops - 1));
        em->indent--;
        emit_line(em, "}");
        emit_line(em, "ufn_done = ufn_nvec * %d;", lanes);
        em->indent--;
        emit_line(em, "}");
    }
    emit_line(em, "#pragma unroll 1");
    emit_line(em, "for (uint32_t ufn_i = ufn_done + ufn_first; ufn_i < ufn_n; ufn_i += ufn_step)");
    Buf call = {0};
    for (int k = 0; k < inst->nargs; k++)
        buf_printf(&call, "%s%s", k ? ", " : "", load(operand_type(inst, k), kernel_operand(inst, k), "ufn_i"));
    emit_line(em, "    %s[ufn_i] = %s(%s);", out, inst->cname, call.data ? call.data : "");
    buf_free(&call);
    em->indent--;
    emit_line(em, "}");
    emit_line(em, "%s", "");
}

/* The unrolled split of the flat index i into per-operand offsets o0..ok. */
static void offsets(Emitter *em, int nops, const char *const *strides)
{
    Buf decl = {0};
    for (int k = 0; k < nops; k++)
        buf_printf(&decl, "%sufn_o%d = 0", k ? ", " : "", k);
    emit_line(em, "int64_t %s;", decl.data ? decl.data : "ufn_none = 0");
    buf_free(&decl);
    emit_line(em, "uint32_t ufn_r = ufn_i;");
    emit_line(em, "#pragma unroll");
    emit_line(em, "for (int ufn_d = UFN_KMAXDIM - 1; ufn_d > 0; ufn_d--) {");
    em->indent++;
    emit_line(em, "if (ufn_d < ufn_it.ndim) {");
    em->indent++;
    emit_line(em, "uint32_t ufn_q = ufn_r / ufn_it.shape[ufn_d], ufn_k = ufn_r - ufn_q * ufn_it.shape[ufn_d];");
    for (int k = 0; k < nops; k++)
        emit_line(em, "ufn_o%d += (int64_t)ufn_k * %s.s[ufn_d];", k, strides[k]);
    emit_line(em, "ufn_r = ufn_q;");
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    emit_line(em, "}");
    for (int k = 0; k < nops; k++)
        emit_line(em, "ufn_o%d += (int64_t)ufn_r * %s.s[0];", k, strides[k]);
}

static void ufunc_strided(Emitter *em, const Instance *inst)
{
    int nops = inst->nargs + 1;
    const char *strides[UFN_MAX_OPERANDS + 1];
    for (int k = 0; k < nops; k++)
        strides[k] = arena_printf("ufn_s%d", k);
    kernel_header(em, inst, KF_STRIDED);
    emit_line(em, "{");
    em->indent++;
    emit_line(em, "for (uint32_t ufn_i = UFN_FIRST_INDEX(); ufn_i < ufn_it.n; ufn_i += UFN_GRID_STRIDE()) {");
    em->indent++;
    offsets(em, nops, strides);
    /* an input whose pointer is NULL is a scalar passed by value, in its strides (ufn_abi.h) */
    Buf call = {0};
    for (int k = 0; k < inst->nargs; k++) {
        Type *t = operand_type(inst, k);
        const char *nm = kernel_operand(inst, k);
        buf_printf(&call, "%s%s ? %s : ufn_kscalar_%s(%s)", k ? ", " : "", nm, load(t, nm, arena_printf("ufn_o%d", k)),
                   type_tag(t), strides[k]);
    }
    emit_line(em, "%s[ufn_o%d] = %s(%s);", kernel_operand(inst, nops - 1), nops - 1, inst->cname, call.data ? call.data : "");
    buf_free(&call);
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    emit_line(em, "}");
    emit_line(em, "%s", "");
}

static void gufunc_kernel(Emitter *em, const Instance *inst)
{
    Func *f = inst->func;
    int nops = inst->nargs;
    const char *strides[UFN_MAX_OPERANDS];
    for (int k = 0; k < nops; k++)
        strides[k] = arena_printf("ufn_loop%d", k);
    kernel_header(em, inst, KF_GUFUNC);
    emit_line(em, "{");
    em->indent++;
    emit_line(em, "for (uint32_t ufn_i = UFN_FIRST_INDEX(); ufn_i < ufn_it.n; ufn_i += UFN_GRID_STRIDE()) {");
    em->indent++;
    offsets(em, nops, strides);
    const char *dims[UFN_CORE_MAXDIMS];
    for (int d = 0; d < f->layout->nnames; d++)
        dims[d] = arena_printf("ufn_core.dim[%d]", d);
    Buf call = {0};
    for (int k = 0; k < nops; k++) {
        const char *nm = kernel_operand(inst, k);
        buf_printf(&call, "%s%s", k ? ", " : "",
                   gufunc_view(inst, k, arena_printf("(%s + ufn_o%d)", nm, k), dims, arena_printf("ufn_core%d.s", k)));
    }
    emit_line(em, "%s(%s);", inst->cname, call.data);
    buf_free(&call);
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    emit_line(em, "}");
    emit_line(em, "%s", "");
}

void emit_cuda(Buf *out, Module *m, const EmitOptions *opt)
{
    Emitter em = {.out = out, .opt = opt, .mod = m, .file_name = opt->output_name};
    emit_line(&em, "/* %s.cu - generated by ufnc %s from %s.  DO NOT EDIT.", m->name, UFNC_VERSION, m->src->name);
    emit_line(&em, " *");
    emit_line(&em, " * The device code of module %s.  nvcc builds it for the GPU; the sim backend", m->name);
    emit_line(&em, " * compiles this same file as C11 for the CPU (see ufn_kernel.h).  Each scalar");
    emit_line(&em, " * body below is what the host loops run too.  #line directives point back at");
    emit_line(&em, " * the .ufn source. */");
    emit_line(&em, "#include \"ufn_kernel.h\"");
    emit_line(&em, "%s", "");
    emit_body_types(&em);
    emit_bodies(&em);
    emit_line(&em, "/* ---- kernels ---- */");
    emit_line(&em, "%s", "");
    /* the host backend's build of this file is for @cuda.jit kernels only */
    bool jit = module_has_jit(m);
    if (jit)
        emit_line(&em, "#if !defined(UFN_HOST_ENTRY)");
    for (int i = 0; i < m->nkernels; i++) {
        Func *f = m->kernels[i];
        for (int k = 0; k < f->ninstances && f->kind != FK_CUDA_KERNEL; k++) {
            Instance *inst = f->instances[k];
            emit_line(&em, "/* %s: %s */", f->name, inst->sig->text);
            KernelForm forms[MAX_KERNEL_FORMS];
            for (int j = 0, n = kernel_forms(f, forms); j < n; j++)
                switch (forms[j]) {
                case KF_CONTIG: ufunc_contig(&em, inst); break;
                case KF_STRIDED: ufunc_strided(&em, inst); break;
                case KF_GUFUNC: gufunc_kernel(&em, inst); break;
                case KF_JIT: break;
                }
            if (has_reduce_kernel(inst))
                reduce_kernel(&em, inst);
        }
    }
    if (jit)
        emit_line(&em, "#endif");
    emit_jit_kernels(&em);
}
