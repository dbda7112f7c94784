/* emit_kernel.c - @cuda.jit kernels in polar.cu.
 *
 * Per signature three things, all in the common subset of CUDA C++ and C11
 * (ufn_kernel.h):
 *
 *   NAME__body     the code of one thread, its coordinates (threadIdx,
 *                  blockIdx, blockDim, gridDim) a parameter, ufn_t: every
 *                  element access goes through UFN_BOUNDS and UFN_LOAD or
 *                  UFN_STORE, one statement per line after its #line, so
 *                  that the simulator's checks name the .ufn line;
 *   NAME__jit      the kernel: the body with CUDA's coordinates.  nvcc
 *                  builds it; the simulator compiles it as C; the host
 *                  backend compiles it once more with UFN_HOST_ENTRY as
 *                  NAME__jit__host, the thread entry (form b) the runtime
 *                  runs on its thread engine;
 *   NAME__jit__blocks  (host build only) the block runner (form a), where
 *                  the kernel allows one: a loop over the blocks and their
 *                  threads calling the body with the loop's coordinates,
 *                  which the C compiler inlines and can vectorise.
 *
 * A kernel gets a block runner when its code (helpers included) has no
 * barrier, warp function or lane id and no shared memory, and no helper
 * reads the thread coordinates: then its threads are independent and may
 * run one after another.  A kernel whose barriers stand where every thread
 * meets them (below, "splitting at barriers") gets a block runner split
 * into regions.  Every other kernel runs as form (b): threads as fibers
 * where there are barriers or warp functions, else one after another. */
#include "ufnc.h"

#include <string.h>

bool module_has_jit(const Module *m)
{
    for (int i = 0; i < m->nkernels; i++)
        if (m->kernels[i]->kind == FK_CUDA_KERNEL && m->kernels[i]->ninstances)
            return true;
    return false;
}

/* ---- what a body uses ------------------------------------------------------------------ */

typedef struct Uses {
    unsigned flags;          /* UFN_KF_* */
    bool coords;             /* reads threadIdx & co. (grid(), gridsize() too) */
    bool lane;               /* cuda.laneid */
    bool cuda;               /* any of numba.cuda */
    unsigned shared;         /* static shared bytes (the kernel's own body) */
    int depth;               /* 1 in the body walked first, more in its helpers */
    const Instance **seen;   /* the helpers walked, each once */
    int nseen, capseen;
} Uses;

static void uses_node(Uses *u, const Node *n);

static void uses_list(Uses *u, const NodeList *l)
{
    for (int i = 0; i < l->len; i++)
        uses_node(u, l->items[i]);
}

static void uses_instance(Uses *u, const Instance *inst)
{
    for (int i = 0; i < u->nseen; i++)
        if (u->seen[i] == inst)
            return;
    if (u->nseen == u->capseen) {
        u->capseen = u->capseen ? 2 * u->capseen : 16;
        const Instance **seen = arena_alloc(sizeof(Instance *) * (size_t)u->capseen);
        if (u->nseen)
            memcpy(seen, u->seen, sizeof(Instance *) * (size_t)u->nseen);
        u->seen = seen;
    }
    u->seen[u->nseen++] = inst;
    u->depth++;
    uses_list(u, &inst->body);
    u->depth--;
}

static void uses_cuda_fn(Uses *u, const Node *n)
{
    u->cuda = true;
    switch ((CudaFn)n->call.cuda) {
    case CU_TID_X: case CU_TID_Y: case CU_TID_Z: case CU_BID_X: case CU_BID_Y: case CU_BID_Z:
    case CU_BDIM_X: case CU_BDIM_Y: case CU_BDIM_Z: case CU_GDIM_X: case CU_GDIM_Y: case CU_GDIM_Z:
    case CU_GRID: case CU_GRIDSIZE:
        u->coords = true;
        /* a helper's coordinates are CUDA's, which a block runner has not */
        u->lane = u->lane || u->depth > 1;
        break;
    case CU_LANEID:
        u->lane = true;
        break;
    case CU_SYNCTHREADS: case CU_SYNCTHREADS_COUNT: case CU_SYNCTHREADS_AND: case CU_SYNCTHREADS_OR:
        u->flags |= UFN_KF_BARRIER;
        break;
    case CU_SYNCWARP: case CU_SHFL: case CU_SHFL_UP: case CU_SHFL_DOWN: case CU_SHFL_XOR:
    case CU_BALLOT: case CU_ALL: case CU_ANY: case CU_ACTIVEMASK: case CU_LANEMASK_LT:
        u->flags |= UFN_KF_WARP;
        break;
    case CU_SHARED_ARRAY:
        if (n->call.args.len == 1 && n->call.args.items[0]->konst.v.i == 0) {
            u->flags |= UFN_KF_DYN_SHARED;
        } else if (u->depth == 1) {
            uint64_t bytes = (uint64_t)n->type->elt->size;
            for (int i = 0; i < n->call.args.len; i++)
                bytes *= (uint64_t)n->call.args.items[i]->konst.v.i;
            u->shared += (unsigned)((bytes + 15) & ~(uint64_t)15);
        }
        break;
    case CU_LOCAL_ARRAY: case CU_WARPSIZE: case CU_THREADFENCE: case CU_THREADFENCE_BLOCK:
    case CU_THREADFENCE_SYSTEM:
        break;
    default:
        u->flags |= UFN_KF_ATOMIC;
        break;
    }
}

static void uses_node(Uses *u, const Node *n)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN: uses_list(u, &n->assign.targets); uses_node(u, n->assign.value); break;
    case N_EXPRSTMT: uses_node(u, n->exprstmt.expr); break;
    case N_IF: uses_node(u, n->ifstmt.cond); uses_list(u, &n->ifstmt.then); uses_list(u, &n->ifstmt.orelse); break;
    case N_WHILE: uses_node(u, n->whilestmt.cond); uses_list(u, &n->whilestmt.body); break;
    case N_FOR: uses_node(u, n->forstmt.iter); uses_list(u, &n->forstmt.body); break;
    case N_RETURN: uses_node(u, n->ret.value); break;
    case N_UNARY: uses_node(u, n->unary.operand); break;
    case N_BINARY: uses_node(u, n->binary.lhs); uses_node(u, n->binary.rhs); break;
    case N_BOOLOP: uses_node(u, n->boolop.lhs); uses_node(u, n->boolop.rhs); break;
    case N_COMPARE:
        for (int i = 0; i <= n->compare.n; i++)
            uses_node(u, n->compare.operands[i]);
        break;
    case N_IFEXP: uses_node(u, n->ifexp.cond); uses_node(u, n->ifexp.then); uses_node(u, n->ifexp.orelse); break;
    case N_CALL:
        if (n->call.builtin == B_CUDA)
            uses_cuda_fn(u, n);
        if (n->call.builtin == B_PRINT) {
            u->flags |= UFN_KF_PRINT;
            u->cuda = true;
        }
        if (n->call.callee)
            uses_instance(u, n->call.callee);
        uses_list(u, &n->call.args);
        break;
    case N_ATTR: uses_node(u, n->attr.value); break;
    case N_SUBSCRIPT: uses_node(u, n->subscript.value); uses_list(u, &n->subscript.index); break;
    case N_TUPLE: uses_list(u, &n->tuple.elts); break;
    case N_CAST: uses_node(u, n->cast.operand); break;
    default: break;
    }
}

static Uses uses_of(const Instance *inst)
{
    Uses u = {.depth = 0};
    uses_instance(&u, inst);
    return u;
}

bool instance_uses_cuda(const Instance *inst)
{
    return uses_of(inst).cuda;
}

unsigned jit_flags(const Instance *inst)
{
    return uses_of(inst).flags;
}

unsigned jit_static_shared(const Instance *inst)
{
    return uses_of(inst).shared;
}

typedef enum StorageFor { FOR_KERNEL, FOR_RUNNER } StorageFor;
static void storage_list(Emitter *em, const NodeList *l, unsigned *offset, StorageFor what);

/* ---- splitting at barriers ------------------------------------------------------------------ *
 * A kernel whose plain syncthreads() stand at the top of its body, or at
 * the top of for-range loops whose bounds are the same for every thread of
 * a block (built from parameters, constants, blockIdx, blockDim, gridDim),
 * themselves so placed, splits into regions between its barriers
 * (kernels.md 3.1, 3.2): the block runner runs each region for every
 * thread before the next, and every local lives per thread in a context
 * (NAME__ctx, one per thread in ufn_kblocks.ctx).  Not split: barriers
 * anywhere else, the vote barriers, returns, a break or continue of a
 * barrier loop, local arrays, parameters assigned in the body. */

static bool is_barrier(const Node *s)
{
    return s->kind == N_EXPRSTMT && s->exprstmt.expr->kind == N_CALL && s->exprstmt.expr->call.builtin == B_CUDA
           && s->exprstmt.expr->call.cuda == CU_SYNCTHREADS;
}

static bool uniform(const Node *e)
{
    if (!e)
        return true;
    switch (e->kind) {
    case N_CONST: return true;
    case N_NAME: return e->name.sym && e->name.sym->kind == SYM_LOCAL && e->name.sym->var->param;
    case N_ATTR: return uniform(e->attr.value);
    case N_CAST: return uniform(e->cast.operand);
    case N_UNARY: return uniform(e->unary.operand);
    case N_BINARY: return uniform(e->binary.lhs) && uniform(e->binary.rhs);
    case N_CALL:
        if (e->call.builtin == B_CUDA)
            return e->call.cuda >= CU_BID_X && e->call.cuda <= CU_GDIM_Z;
        if (e->call.callee || e->call.builtin == B_NONE)
            return false;
        for (int i = 0; i < e->call.args.len; i++)
            if (!uniform(e->call.args.items[i]))
                return false;
        return true;
    default: return false;
    }
}

/* A barrier, or anything that holds one (counting helpers' too). */
static bool has_barrier(const Node *s)
{
    Uses u = {.depth = 0};
    uses_node(&u, s);
    return (u.flags & UFN_KF_BARRIER) != 0;
}

/* A break or continue of the loop whose body this is (not of a loop inside). */
static bool escapes(const NodeList *b)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        if (s->kind == N_BREAK || s->kind == N_CONTINUE || s->kind == N_RETURN)
            return true;
        if (s->kind == N_IF && (escapes(&s->ifstmt.then) || escapes(&s->ifstmt.orelse)))
            return true;
    }
    return false;
}

static bool has_return(const NodeList *b)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        if (s->kind == N_RETURN)
            return true;
        if ((s->kind == N_IF && (has_return(&s->ifstmt.then) || has_return(&s->ifstmt.orelse)))
            || (s->kind == N_FOR && has_return(&s->forstmt.body))
            || (s->kind == N_WHILE && has_return(&s->whilestmt.body)))
            return true;
    }
    return false;
}

static bool splittable(const NodeList *b)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        if (is_barrier(s) || !has_barrier(s))
            continue;
        if (s->kind != N_FOR || s->forstmt.iter->kind != N_CALL || s->forstmt.iter->call.builtin != B_RANGE)
            return false;
        const NodeList *a = &s->forstmt.iter->call.args;
        for (int k = 0; k < a->len; k++)
            if (!uniform(a->items[k]))
                return false;
        if (a->len == 3 && a->items[2]->kind != N_CONST)
            return false;
        if (escapes(&s->forstmt.body) || !splittable(&s->forstmt.body))
            return false;
    }
    return true;
}

static bool split_ok(const Instance *inst, const Uses *u)
{
    if (!(u->flags & UFN_KF_BARRIER) || (u->flags & (UFN_KF_WARP | UFN_KF_DYN_SHARED)) || u->lane)
        return false;
    for (int i = 0; i < inst->nvars; i++)
        if (inst->vars[i]->param && (inst->vars[i]->ndefs || inst->vars[i]->type != inst->args[i]))
            return false;
    Uses votes = {.depth = 0};
    for (int i = 0; i < inst->body.len; i++)
        uses_node(&votes, inst->body.items[i]);
    if (has_return(&inst->body))
        return false;
    /* no local arrays: their storage would have to be per thread */
    Buf scratch = {0};
    Emitter probe = {.out = &scratch};
    unsigned offset = 0;
    storage_list(&probe, &inst->body, &offset, FOR_KERNEL);
    bool locals = scratch.data && strstr(scratch.data, "ufn_local");
    buf_free(&scratch);
    return !locals && splittable(&inst->body);
}

const char *jit_context(const Instance *inst)
{
    Uses u = uses_of(inst);
    return split_ok(inst, &u) ? sim_c_symbol(kernel_name(inst, KF_JIT), "ctx") : NULL;
}

void emit_jit_context(Emitter *em, const Instance *inst)
{
    Buf fields = {0};
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        if (!v->param && v->type)
            buf_printf(&fields, " %s;", c_declaration(c_type(v->type), v->cname));
    }
    emit_line(em, "typedef struct {%s } %s;", fields.data ? fields.data : " char ufn_none;", jit_context(inst));
    buf_free(&fields);
}

bool jit_has_block_runner(const Instance *inst)
{
    Uses u = uses_of(inst);
    if (split_ok(inst, &u))
        return true;
    return !(u.flags & (UFN_KF_BARRIER | UFN_KF_WARP | UFN_KF_DYN_SHARED)) && !u.lane && !u.shared;
}

/* ---- numba.cuda in expressions ------------------------------------------------------------ */

/* The storage of a shared or local array (slot k of its function). */
static const char *storage(const Node *e)
{
    return arena_printf("ufn_%s%d", e->call.cuda == CU_SHARED_ARRAY ? "shared" : "local", e->call.slot);
}

static void emit_view(Emitter *em, const Node *e)
{
    Type *t = e->type;
    const NodeList *dims = &e->call.args;
    const char *elt = c_elem_type(t->elt);
    if (e->call.cuda == CU_SHARED_ARRAY && dims->items[0]->konst.v.i == 0) {
        /* dynamic shared memory: every such array starts at the same byte */
        emit_text(em, "%s((%s *)ufn_dyn_shared(), (int64_t)(ufn_dyn_shared_bytes() / sizeof(%s)), 1)", c_maker(t),
                  elt, elt);
        return;
    }
    emit_text(em, "%s(%s", c_maker(t), storage(e));
    for (int i = 0; i < dims->len; i++)
        emit_text(em, ", %lld", (long long)dims->items[i]->konst.v.i);
    for (int i = 0; i < dims->len; i++) {          /* C order: element strides */
        long long s = 1;
        for (int k = i + 1; k < dims->len; k++)
            s *= dims->items[k]->konst.v.i;
        emit_text(em, ", %lld", s);
    }
    emit_text(em, ")");
}

static const char *const atomic_names[] = {
    [CU_ATOMIC_ADD] = "add", [CU_ATOMIC_SUB] = "sub", [CU_ATOMIC_MAX] = "max", [CU_ATOMIC_MIN] = "min",
    [CU_ATOMIC_NANMAX] = "nanmax", [CU_ATOMIC_NANMIN] = "nanmin", [CU_ATOMIC_EXCH] = "exch",
    [CU_ATOMIC_AND] = "and", [CU_ATOMIC_OR] = "or", [CU_ATOMIC_XOR] = "xor", [CU_ATOMIC_INC] = "inc",
    [CU_ATOMIC_DEC] = "dec", [CU_ATOMIC_CAS] = "cas",
};

static void emit_atomic(Emitter *em, const Node *e)
{
    const NodeList *a = &e->call.args;
    const Node *elem = a->items[0];
    CudaFn fn = (CudaFn)e->call.cuda;
    /* on integers nanmax and nanmin are max and min */
    if (!ty_is_float(e->type) && (fn == CU_ATOMIC_NANMAX || fn == CU_ATOMIC_NANMIN))
        fn = fn == CU_ATOMIC_NANMAX ? CU_ATOMIC_MAX : CU_ATOMIC_MIN;
    emit_text(em, "ufn_atomic_%s_%s(&", atomic_names[fn], type_tag(e->type));
    emit_element(em, elem->subscript.value, &elem->subscript.index);
    for (int i = 1; i < a->len; i++) {
        emit_text(em, ", ");
        emit_expr(em, a->items[i]);
    }
    emit_text(em, ")");
}

/* A coordinate: the body's parameter, or CUDA's own in a device function. */
static void coord(Emitter *em, const char *field, const char *cuda, char axis)
{
    if (em->coords)
        emit_text(em, "%s.%s.%c", em->coords, field, axis);
    else
        emit_text(em, "%s.%c", cuda, axis);
}

static void emit_grid(Emitter *em, const Node *e)
{
    bool size = e->call.cuda == CU_GRIDSIZE;
    int n = (int)e->call.args.items[0]->konst.v.i;
    if (n > 1)
        emit_text(em, "%s(", c_maker(e->type));
    for (int i = 0; i < n; i++) {
        char axis = "xyz"[i];
        emit_text(em, "%s((int64_t)", i ? ", " : "");
        if (size) {
            coord(em, "bdim", "blockDim", axis);
            emit_text(em, " * ");
            coord(em, "gdim", "gridDim", axis);
        } else {
            coord(em, "bid", "blockIdx", axis);
            emit_text(em, " * ");
            coord(em, "bdim", "blockDim", axis);
            emit_text(em, " + ");
            coord(em, "tid", "threadIdx", axis);
        }
        emit_text(em, ")");
    }
    if (n > 1)
        emit_text(em, ")");
}

static void emit_args_of(Emitter *em, const char *fn, const NodeList *args, const char *defaults)
{
    emit_text(em, "%s(", fn);
    for (int i = 0; i < args->len; i++) {
        if (i)
            emit_text(em, ", ");
        emit_expr(em, args->items[i]);
    }
    if (!args->len && defaults)
        emit_text(em, "%s", defaults);
    emit_text(em, ")");
}

/* print(a, b): one printf, Numba's formats (%lld, %llu, %f after a
 * conversion to double, %s), items joined by spaces. */
static void emit_print(Emitter *em, const Node *e)
{
    const NodeList *a = &e->call.args;
    Buf fmt = {0};
    for (int i = 0; i < a->len; i++) {
        const Node *x = a->items[i];
        const char *f = x->kind == N_STR || ty_is_bool(x->type) ? "%s"
                        : ty_is_float(x->type)                  ? "%f"
                        : ty_is_unsigned(x->type)               ? "%llu"
                                                                : "%lld";
        buf_printf(&fmt, "%s%s", i ? " " : "", f);
    }
    buf_puts(&fmt, "\n");
    emit_text(em, "printf(%s", c_string_literal(fmt.data));
    buf_free(&fmt);
    for (int i = 0; i < a->len; i++) {
        const Node *x = a->items[i];
        emit_text(em, ", ");
        if (x->kind == N_STR) {
            emit_text(em, "%s", c_string_literal(x->str.value));
            continue;
        }
        if (ty_is_bool(x->type)) {
            emit_operand(em, x);
            emit_text(em, " ? \"True\" : \"False\"");
            continue;
        }
        emit_text(em, "(%s)", ty_is_float(x->type) ? "double" : ty_is_unsigned(x->type) ? "unsigned long long" : "long long");
        emit_operand(em, x);
    }
    emit_text(em, ")");
}

void emit_cuda_call(Emitter *em, const Node *e)
{
    if (e->call.builtin == B_PRINT) {
        emit_print(em, e);
        return;
    }
    CudaFn fn = (CudaFn)e->call.cuda;
    const NodeList *a = &e->call.args;
    static const struct { const char *field, *cuda; } dims[] = {
        {"tid", "threadIdx"}, {"bid", "blockIdx"}, {"bdim", "blockDim"}, {"gdim", "gridDim"}};
    if (fn <= CU_GDIM_Z) {
        emit_text(em, "(int32_t)");
        coord(em, dims[(fn - CU_TID_X) / 3].field, dims[(fn - CU_TID_X) / 3].cuda, "xyz"[(fn - CU_TID_X) % 3]);
        return;
    }
    switch (fn) {
    case CU_LANEID: emit_text(em, "(int32_t)ufn_laneid()"); return;
    case CU_WARPSIZE: emit_text(em, "(int32_t)warpSize"); return;
    case CU_GRID:
    case CU_GRIDSIZE: emit_grid(em, e); return;
    case CU_SYNCTHREADS: emit_text(em, "ufn_syncthreads()"); return;
    case CU_SYNCTHREADS_COUNT: emit_args_of(em, "ufn_syncthreads_count", a, NULL); return;
    case CU_SYNCTHREADS_AND: emit_args_of(em, "ufn_syncthreads_and", a, NULL); return;
    case CU_SYNCTHREADS_OR: emit_args_of(em, "ufn_syncthreads_or", a, NULL); return;
    case CU_SYNCWARP: emit_args_of(em, "ufn_syncwarp", a, "0xffffffffu"); return;
    case CU_THREADFENCE: emit_text(em, "ufn_threadfence()"); return;
    case CU_THREADFENCE_BLOCK: emit_text(em, "ufn_threadfence_block()"); return;
    case CU_THREADFENCE_SYSTEM: emit_text(em, "ufn_threadfence_system()"); return;
    case CU_SHFL: emit_args_of(em, arena_printf("ufn_shfl_sync_%s", type_tag(e->type)), a, NULL); return;
    case CU_SHFL_UP: emit_args_of(em, arena_printf("ufn_shfl_up_sync_%s", type_tag(e->type)), a, NULL); return;
    case CU_SHFL_DOWN: emit_args_of(em, arena_printf("ufn_shfl_down_sync_%s", type_tag(e->type)), a, NULL); return;
    case CU_SHFL_XOR: emit_args_of(em, arena_printf("ufn_shfl_xor_sync_%s", type_tag(e->type)), a, NULL); return;
    case CU_BALLOT:
        emit_text(em, "(int32_t)");
        emit_args_of(em, "ufn_ballot_sync", a, NULL);
        return;
    case CU_ALL:
    case CU_ANY:
        emit_text(em, "(");
        emit_args_of(em, fn == CU_ALL ? "ufn_all_sync" : "ufn_any_sync", a, NULL);
        emit_text(em, " != 0)");
        return;
    case CU_ACTIVEMASK: emit_text(em, "(uint32_t)ufn_activemask()"); return;
    case CU_LANEMASK_LT: emit_text(em, "(uint32_t)ufn_lanemask_lt()"); return;
    case CU_SHARED_ARRAY:
    case CU_LOCAL_ARRAY: emit_view(em, e); return;
    default: emit_atomic(em, e); return;
    }
}

/* ---- the kernels ---------------------------------------------------------------------------- */

/* The storage of the body's shared and local arrays, by slot. */
static void storage_of(Emitter *em, const Node *n, unsigned *offset, StorageFor what);

static void storage_list(Emitter *em, const NodeList *l, unsigned *offset, StorageFor what)
{
    for (int i = 0; i < l->len; i++)
        storage_of(em, l->items[i], offset, what);
}

static void storage_of(Emitter *em, const Node *n, unsigned *offset, StorageFor what)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_ASSIGN: storage_list(em, &n->assign.targets, offset, what); storage_of(em, n->assign.value, offset, what); break;
    case N_EXPRSTMT: storage_of(em, n->exprstmt.expr, offset, what); break;
    case N_IF: storage_list(em, &n->ifstmt.then, offset, what); storage_list(em, &n->ifstmt.orelse, offset, what); break;
    case N_WHILE: storage_list(em, &n->whilestmt.body, offset, what); break;
    case N_FOR: storage_list(em, &n->forstmt.body, offset, what); break;
    case N_CALL: {
        CudaFn fn = (CudaFn)n->call.cuda;
        if (n->call.builtin != B_CUDA || (fn != CU_SHARED_ARRAY && fn != CU_LOCAL_ARRAY))
            break;
        const NodeList *d = &n->call.args;
        long long count = 1;
        for (int i = 0; i < d->len; i++)
            count *= d->items[i]->konst.v.i;
        const char *elt = c_elem_type(n->type->elt);
        if (fn == CU_LOCAL_ARRAY)
            emit_line(em, "%s %s[%lld];", elt, storage(n), count);
        else if (count) {
            if (what == FOR_RUNNER)   /* the block's shared memory, which the runtime hands over */
                emit_line(em, "%s *%s = (%s *)(ufn_b->shared + %u);", elt, storage(n), elt, *offset);
            else
                emit_line(em, "UFN_SHARED_ARRAY(%s, %s, %lld, %u);", elt, storage(n), count, *offset);
            *offset += (unsigned)(((unsigned long long)count * (unsigned)n->type->elt->size + 15) & ~15ull);
        }
        break;
    }
    default: break;
    }
}

void emit_array_storage(Emitter *em, const Instance *inst)
{
    unsigned offset = 0;
    storage_list(em, &inst->body, &offset, FOR_KERNEL);
}

/* The statements of a split kernel, region by region: each run of
 * statements without a barrier becomes a loop over the block's threads;
 * `loops` are the enclosing barrier loops' variables (their counters). */
typedef struct Split {
    const Instance *inst;
    const Var *vars[16];
    int depth;
} Split;

static void split_region(Emitter *em, Split *sp, const NodeList *b, int from, int to)
{
    emit_line(em, "for (uint32_t ufn_l = 0; ufn_l < ufn_nt; ufn_l++) {");
    em->indent++;
    emit_line(em, "ufn_t.tid = make_uint3(ufn_l %% ufn_t.bdim.x, ufn_l / ufn_t.bdim.x %% ufn_t.bdim.y, ufn_l / (ufn_t.bdim.x * ufn_t.bdim.y));");
    /* the thread's locals from its context, and back after the region:
     * plain locals in between, which the C compiler keeps in registers */
    const Instance *inst = sp->inst;
    for (int i = 0; i < inst->nvars; i++)
        if (!inst->vars[i]->param && inst->vars[i]->type)
            emit_line(em, "%s = ufn_ctx[ufn_l].%s;", c_declaration(c_type(inst->vars[i]->type), inst->vars[i]->cname),
                      inst->vars[i]->cname);
    for (int d = 0; d < sp->depth; d++)
        emit_line(em, "%s = (%s)ufn_u%d;", sp->vars[d]->cname, c_type(sp->vars[d]->type), d);
    for (int i = from; i < to; i++)
        emit_statement(em, b->items[i]);
    line_reset(em);
    for (int i = 0; i < inst->nvars; i++)
        if (!inst->vars[i]->param && inst->vars[i]->type)
            emit_line(em, "ufn_ctx[ufn_l].%s = %s;", inst->vars[i]->cname, inst->vars[i]->cname);
    em->indent--;
    emit_line(em, "}");
}

static void split_block(Emitter *em, Split *sp, const NodeList *b)
{
    int start = 0;
    for (int i = 0; i <= b->len; i++) {
        const Node *s = i < b->len ? b->items[i] : NULL;
        if (s && !is_barrier(s) && !has_barrier(s))
            continue;
        if (start < i)
            split_region(em, sp, b, start, i);
        start = i + 1;
        if (!s)
            break;
        if (is_barrier(s)) {
            line_directive(em, s->loc);
            emit_line(em, "/* syncthreads(): every thread has run the region above */");
            continue;
        }
        /* a barrier loop: its counter is the block's, its body split again */
        const NodeList *a = &s->forstmt.iter->call.args;
        int d = sp->depth;
        if (d >= 16)
            die("barrier loops nested too deeply");
        Buf lo = {0}, hi = {0}, step = {0};
        Buf *saved = em->out;
        em->out = &lo;
        if (a->len >= 2) emit_expr(em, a->items[0]); else emit_text(em, "0");
        em->out = &hi;
        emit_expr(em, a->len >= 2 ? a->items[1] : a->items[0]);
        em->out = &step;
        if (a->len == 3) emit_expr(em, a->items[2]); else emit_text(em, "1");
        em->out = saved;
        bool down = a->len == 3 && a->items[2]->konst.v.i < 0;
        line_directive(em, s->loc);
        emit_line(em, "for (int64_t ufn_u%d = %s, ufn_uend%d = %s; ufn_u%d %s ufn_uend%d; ufn_u%d += %s) {", d, lo.data, d,
                  hi.data, d, down ? ">" : "<", d, d, step.data);
        buf_free(&lo);
        buf_free(&hi);
        buf_free(&step);
        em->indent++;
        sp->vars[sp->depth++] = s->forstmt.target->name.sym->var;
        split_block(em, sp, &s->forstmt.body);
        sp->depth--;
        em->indent--;
        emit_line(em, "}");
    }
}

/* Form (a) with regions: the locals per thread in the context. */
static void split_runner(Emitter *em, const Instance *inst, const char *kname, const KernelParam *params, int n)
{
    const char *ctx = jit_context(inst);
    emit_line(em, "#if defined(UFN_HOST_ENTRY)");
    emit_jit_context(em, inst);
    emit_line(em, "/* the host's block runner, split at the barriers: each region for every thread in turn */");
    emit_line(em, "void %s(void **ufn_p, const ufn_kblocks *ufn_b)", sim_c_symbol(kname, "blocks"));
    emit_line(em, "{");
    em->indent++;
    for (int i = 0; i < n; i++)
        emit_line(em, "%s = *(%s *)ufn_p[%d];", c_declaration(params[i].type, params[i].name), params[i].type, i);
    emit_line(em, "%s *ufn_ctx = (%s *)ufn_b->ctx;", ctx, ctx);
    /* static shared arrays at the offsets the kernel itself uses */
    unsigned offset = 0;
    storage_list(em, &inst->body, &offset, FOR_RUNNER);
    emit_line(em, "ufn_kthread ufn_t;");
    emit_line(em, "ufn_t.gdim = make_uint3(ufn_b->grid[0], ufn_b->grid[1], ufn_b->grid[2]);");
    emit_line(em, "ufn_t.bdim = make_uint3(ufn_b->block[0], ufn_b->block[1], ufn_b->block[2]);");
    emit_line(em, "uint32_t ufn_nt = ufn_t.bdim.x * ufn_t.bdim.y * ufn_t.bdim.z;");
    emit_line(em, "for (uint64_t ufn_blk = ufn_b->first; ufn_blk < ufn_b->end; ufn_blk++) {");
    em->indent++;
    emit_line(em, "ufn_t.bid = make_uint3((unsigned)(ufn_blk %% ufn_b->grid[0]), (unsigned)(ufn_blk / ufn_b->grid[0] %% ufn_b->grid[1]),");
    emit_line(em, "                       (unsigned)(ufn_blk / ufn_b->grid[0] / ufn_b->grid[1]));");
    emit_line(em, "memset(ufn_ctx, 0, sizeof *ufn_ctx * ufn_nt);   /* every local starts at zero */");
    Split sp = {.inst = inst};
    split_block(em, &sp, &inst->body);
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    line_reset(em);
    emit_line(em, "}");
    emit_line(em, "#endif");
}

static void emit_params(Buf *b, const Instance *inst, const char *first)
{
    KernelParam params[MAX_KERNEL_PARAMS];
    int n = kernel_params(inst, KF_JIT, false, params);
    buf_puts(b, first ? first : "");
    for (int i = 0; i < n; i++)
        buf_printf(b, "%s%s", i || first ? ", " : "", c_declaration(params[i].type, params[i].name));
    if (!n && !first)
        buf_puts(b, "void");
}

static void emit_kernel(Emitter *em, const Instance *inst)
{
    const Func *f = inst->func;
    const char *kname = kernel_name(inst, KF_JIT);
    const char *body = kernel_c_name(inst, "body");
    KernelParam params[MAX_KERNEL_PARAMS];
    int n = kernel_params(inst, KF_JIT, false, params);
    Buf decl = {0}, call = {0};
    emit_params(&decl, inst, "ufn_kthread ufn_t");
    for (int i = 0; i < n; i++)
        buf_printf(&call, ", %s", params[i].name);
    emit_line(em, "/* %s:%d: @cuda.jit def %s, '%s'%s */", f->def->loc.file ? f->def->loc.file->name : "?",
              f->def->loc.line, f->name, jit_signature_text(inst->sig),
              jit_context(inst)           ? " (host: a block runner split at its barriers)"
              : jit_has_block_runner(inst) ? " (host: a block runner)"
                                           : " (host: the thread entry on the runtime's engine)");
    emit_line(em, "UFN_KBODY void %s(%s)", body, decl.data);
    emit_line(em, "{");
    em->indent++;
    em->coords = "ufn_t";
    em->checks = true;
    emit_function_body(em, inst);
    em->checks = false;
    em->coords = NULL;
    em->indent--;
    line_reset(em);
    emit_line(em, "}");
    Buf kdecl = {0};
    emit_params(&kdecl, inst, NULL);
    emit_line(em, "UFN_JIT_KERNEL UFN_KNAME(%s)(%s)", kname, kdecl.data);
    emit_line(em, "{");
    emit_line(em, "    %s(ufn_kthis()%s);", body, call.data ? call.data : "");
    emit_line(em, "}");
    if (jit_context(inst)) {
        em->coords = "ufn_t";
        split_runner(em, inst, kname, params, n);
        em->coords = NULL;
    } else if (jit_has_block_runner(inst)) {
        emit_line(em, "#if defined(UFN_HOST_ENTRY)");
        emit_line(em, "/* the host's block runner: the threads of each block in turn */");
        emit_line(em, "void %s(void **ufn_p, const ufn_kblocks *ufn_b)", sim_c_symbol(kname, "blocks"));
        emit_line(em, "{");
        em->indent++;
        for (int i = 0; i < n; i++) {
            const char *t = params[i].type;
            emit_line(em, "%s = *(%s *)ufn_p[%d];", c_declaration(t, params[i].name), t, i);
        }
        emit_line(em, "ufn_kthread ufn_t;");
        emit_line(em, "ufn_t.gdim = make_uint3(ufn_b->grid[0], ufn_b->grid[1], ufn_b->grid[2]);");
        emit_line(em, "ufn_t.bdim = make_uint3(ufn_b->block[0], ufn_b->block[1], ufn_b->block[2]);");
        emit_line(em, "for (uint64_t ufn_blk = ufn_b->first; ufn_blk < ufn_b->end; ufn_blk++) {");
        emit_line(em, "    ufn_t.bid = make_uint3((unsigned)(ufn_blk %% ufn_b->grid[0]), (unsigned)(ufn_blk / ufn_b->grid[0] %% ufn_b->grid[1]),");
        emit_line(em, "                           (unsigned)(ufn_blk / ufn_b->grid[0] / ufn_b->grid[1]));");
        emit_line(em, "    for (unsigned ufn_z = 0; ufn_z < ufn_t.bdim.z; ufn_z++)");
        emit_line(em, "        for (unsigned ufn_y = 0; ufn_y < ufn_t.bdim.y; ufn_y++)");
        emit_line(em, "            for (unsigned ufn_x = 0; ufn_x < ufn_t.bdim.x; ufn_x++) {");
        emit_line(em, "                ufn_t.tid = make_uint3(ufn_x, ufn_y, ufn_z);");
        emit_line(em, "                %s(ufn_t%s);", body, call.data ? call.data : "");
        emit_line(em, "            }");
        emit_line(em, "}");
        em->indent--;
        emit_line(em, "}");
        emit_line(em, "#endif");
    }
    emit_line(em, "%s", "");
    buf_free(&decl);
    buf_free(&kdecl);
    buf_free(&call);
}

void emit_jit_kernels(Emitter *em)
{
    Module *m = em->mod;
    if (!module_has_jit(m))
        return;
    emit_line(em, "/* ---- @cuda.jit kernels ---- */");
    emit_line(em, "%s", "");
    emit_line(em, "/* A thread's coordinates, a parameter of each kernel body: the kernel");
    emit_line(em, " * passes CUDA's, a host block runner its loop counters. */");
    emit_line(em, "typedef struct { uint3 tid, bid, bdim, gdim; } ufn_kthread;");
    emit_line(em, "UFN_KBODY ufn_kthread ufn_kthis(void)");
    emit_line(em, "{");
    emit_line(em, "    ufn_kthread t;");
    emit_line(em, "    t.tid = make_uint3(threadIdx.x, threadIdx.y, threadIdx.z);");
    emit_line(em, "    t.bid = make_uint3(blockIdx.x, blockIdx.y, blockIdx.z);");
    emit_line(em, "    t.bdim = make_uint3(blockDim.x, blockDim.y, blockDim.z);");
    emit_line(em, "    t.gdim = make_uint3(gridDim.x, gridDim.y, gridDim.z);");
    emit_line(em, "    return t;");
    emit_line(em, "}");
    emit_line(em, "%s", "");
    for (int i = 0; i < m->nkernels; i++)
        if (m->kernels[i]->kind == FK_CUDA_KERNEL)
            for (int k = 0; k < m->kernels[i]->ninstances; k++)
                emit_kernel(em, m->kernels[i]->instances[k]);
}
