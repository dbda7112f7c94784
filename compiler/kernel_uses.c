/* kernel_uses.c - what a @cuda.jit kernel's typed code uses, for the
 * emitters: the flags of its table (UFN_KF_*), its static shared memory,
 * whether a device function touches numba.cuda (then it is thread code
 * only), and which host form the kernel gets - a block runner, one split
 * at its barriers, or the thread entry on the runtime's engine
 * (emit_kernel.c writes them).  It reads typed bodies and writes nothing. */
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
    bool local_arrays;       /* cuda.local.array in the body walked first */
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
    case CU_LOCAL_ARRAY:
        u->local_arrays = u->local_arrays || u->depth == 1;
        break;
    case CU_WARPSIZE: case CU_THREADFENCE: case CU_THREADFENCE_BLOCK:
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

bool jit_is_barrier(const Node *s)
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
bool jit_has_barrier(const Node *s)
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
        if (jit_is_barrier(s) || !jit_has_barrier(s))
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
    if (has_return(&inst->body))
        return false;
    /* no local arrays: their storage would have to be per thread */
    return !u->local_arrays && splittable(&inst->body);
}

const char *jit_context(const Instance *inst)
{
    Uses u = uses_of(inst);
    return split_ok(inst, &u) ? sim_c_symbol(kernel_name(inst, KF_JIT), "ctx") : NULL;
}

bool jit_has_block_runner(const Instance *inst)
{
    Uses u = uses_of(inst);
    if (split_ok(inst, &u))
        return true;
    return !(u.flags & (UFN_KF_BARRIER | UFN_KF_WARP | UFN_KF_DYN_SHARED)) && !u.lane && !u.shared;
}

