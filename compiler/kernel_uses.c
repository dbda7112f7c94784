/* kernel_uses.c - what a @cuda.jit kernel's typed code uses, for the
 * emitters: the flags of its table (UFN_KF_*), its static shared memory,
 * whether a device function touches numba.cuda (then it is thread code
 * only), and which host form the kernel gets - a block runner (in the
 * grid-stride form where it is legal), one split at its barriers, or the
 * thread entry on the runtime's engine
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
    bool lane;               /* cuda.laneid or lanemask_lt in a helper, or a helper's coordinates */
    bool laneid;             /* cuda.laneid or lanemask_lt in the kernel's own body */
    int exchanges;           /* warp functions that exchange between lanes (shuffles,
                                votes, activemask, syncwarp), helpers' included */
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
    case CU_LANEID: case CU_LANEMASK_LT:
        if (u->depth > 1)
            u->lane = true;
        else
            u->laneid = true;
        if (n->call.cuda == CU_LANEMASK_LT)
            u->flags |= UFN_KF_WARP;
        break;
    case CU_SYNCTHREADS: case CU_SYNCTHREADS_COUNT: case CU_SYNCTHREADS_AND: case CU_SYNCTHREADS_OR:
        u->flags |= UFN_KF_BARRIER;
        break;
    case CU_SYNCWARP: case CU_SHFL: case CU_SHFL_UP: case CU_SHFL_DOWN: case CU_SHFL_XOR:
    case CU_BALLOT: case CU_ALL: case CU_ANY: case CU_ACTIVEMASK:
        u->flags |= UFN_KF_WARP;
        u->exchanges++;
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

/* A barrier or a warp function that exchanges between lanes, or anything
 * that holds one (counting helpers' too): where the split runner splits. */
bool jit_has_barrier(const Node *s)
{
    Uses u = {.depth = 0};
    uses_node(&u, s);
    return (u.flags & UFN_KF_BARRIER) || u.exchanges;
}

static bool is_exchange(const Node *e)
{
    return e->kind == N_CALL && e->call.builtin == B_CUDA
           && ((e->call.cuda >= CU_SHFL && e->call.cuda <= CU_ACTIVEMASK) || e->call.cuda == CU_SYNCWARP);
}

/* The exchange in e evaluated whenever e is (not under a conditional
 * operator or a short-circuit): *found, or *bad where it stands elsewhere
 * or in an argument of another. */
static void find_exchange(const Node *e, const Node **found, bool *bad)
{
    if (!e)
        return;
    switch (e->kind) {
    case N_CALL:
        if (is_exchange(e)) {
            if (*found)
                *bad = true;
            *found = e;
            for (int i = 0; i < e->call.args.len; i++)
                *bad = *bad || jit_has_barrier(e->call.args.items[i]);
            return;
        }
        if (e->call.callee || (e->call.builtin == B_CUDA && e->call.cuda >= CU_SYNCTHREADS
                                && e->call.cuda <= CU_SYNCTHREADS_OR))
            *bad = *bad || jit_has_barrier(e);      /* a vote barrier, or a helper's warp function */
        for (int i = 0; i < e->call.args.len; i++)
            find_exchange(e->call.args.items[i], found, bad);
        return;
    case N_COMPARE:
        if (e->compare.tmps) {
            *bad = *bad || jit_has_barrier(e);
            return;
        }
        for (int i = 0; i <= e->compare.n; i++)
            find_exchange(e->compare.operands[i], found, bad);
        return;
    case N_UNARY: find_exchange(e->unary.operand, found, bad); return;
    case N_BINARY: find_exchange(e->binary.lhs, found, bad); find_exchange(e->binary.rhs, found, bad); return;
    case N_CAST: find_exchange(e->cast.operand, found, bad); return;
    case N_ATTR: find_exchange(e->attr.value, found, bad); return;
    case N_SUBSCRIPT:
        find_exchange(e->subscript.value, found, bad);
        for (int i = 0; i < e->subscript.index.len; i++)
            find_exchange(e->subscript.index.items[i], found, bad);
        return;
    case N_TUPLE:
        for (int i = 0; i < e->tuple.elts.len; i++)
            find_exchange(e->tuple.elts.items[i], found, bad);
        return;
    default:
        *bad = *bad || jit_has_barrier(e);
        return;
    }
}

const Node *jit_warp_call(const Node *s)
{
    const Node *found = NULL;
    bool bad = false;
    if (s->kind == N_EXPRSTMT)
        find_exchange(s->exprstmt.expr, &found, &bad);
    else if (s->kind == N_ASSIGN && s->assign.targets.len == 1
             && (s->assign.targets.items[0]->kind == N_NAME || s->assign.targets.items[0]->kind == N_SUBSCRIPT)) {
        find_exchange(s->assign.targets.items[0], &found, &bad);
        find_exchange(s->assign.value, &found, &bad);
    } else
        return NULL;
    return bad ? NULL : found;
}

/* A loop the split runner runs once per block around its regions: a range()
 * or a tuple whose values are the same for every thread of a block. */
static bool uniform_loop(const Node *s)
{
    if (s->kind != N_FOR)
        return false;
    const Node *it = s->forstmt.iter;
    if (it->kind == N_TUPLE) {
        for (int k = 0; k < it->tuple.elts.len; k++)
            if (!uniform(it->tuple.elts.items[k]))
                return false;
        return true;
    }
    if (it->kind != N_CALL || it->call.builtin != B_RANGE)
        return it->type && it->type->kind == TY_TUPLE && uniform(it);
    const NodeList *a = &it->call.args;
    for (int k = 0; k < a->len; k++)
        if (!uniform(a->items[k]))
            return false;
    return a->len < 3 || a->items[2]->kind == N_CONST;
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
        if (jit_is_barrier(s) || !jit_has_barrier(s) || jit_warp_call(s))
            continue;
        if (!uniform_loop(s))
            return false;
        if (escapes(&s->forstmt.body) || !splittable(&s->forstmt.body))
            return false;
    }
    return true;
}

static bool split_ok(const Instance *inst, const Uses *u)
{
    if (!(u->flags & (UFN_KF_BARRIER | UFN_KF_WARP)) || (u->flags & UFN_KF_DYN_SHARED) || u->lane)
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
    return !(u.flags & (UFN_KF_BARRIER | UFN_KF_WARP | UFN_KF_DYN_SHARED)) && !u.lane && !u.laneid && !u.shared;
}


/* ---- the grid-stride form ---------------------------------------------------------------- *
 * A kernel that is, besides assignments of grid-uniform values, one loop
 *
 *     start = cuda.grid(1); stride = cuda.gridsize(1)
 *     for i in range(start, n, stride):    # n uniform; cuda.grid(1) and
 *         body                             # cuda.gridsize(1) may stand inline
 *
 * covers, over blocks [b0, b1) of a 1-d launch, the indices
 * [b0*bdim + k*S, b1*bdim + k*S) for k = 0, 1, ... (S the grid's thread
 * count): its block runner runs each as one loop over consecutive i, each
 * thread's iterations in their
 * order, the threads' in an order CUDA leaves unspecified, so that the C
 * compiler vectorises across threads (kernels.md, loop interchange).  That
 * holds when no iteration sees another's locals: every local the body
 * reads it has assigned earlier in the same iteration (else the value
 * would come from another thread), and the body neither returns nor
 * breaks out of the loop nor reads the start or the thread coordinates. */

enum { GS_MAX_VARS = 64 };

typedef struct VarSet {
    const Var *v[GS_MAX_VARS];
    int n;
} VarSet;

static bool set_has(const VarSet *s, const Var *v)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == v)
            return true;
    return false;
}

static bool set_add(VarSet *s, const Var *v)
{
    if (set_has(s, v))
        return true;
    if (s->n == GS_MAX_VARS)
        return false;
    s->v[s->n++] = v;
    return true;
}

static const Var *local_of(const Node *e)
{
    return e && e->kind == N_NAME && e->name.sym && e->name.sym->kind == SYM_LOCAL ? e->name.sym->var : NULL;
}

static bool cuda_call_1(const Node *e, CudaFn fn)
{
    return e && e->kind == N_CALL && e->call.builtin == B_CUDA && e->call.cuda == (int)fn && e->call.args.len == 1
           && e->call.args.items[0]->kind == N_CONST && e->call.args.items[0]->konst.v.i == 1;
}

/* Same value for every thread of the grid: built from parameters,
 * constants, locals of `u`, blockDim, gridDim and gridsize(1). */
static bool grid_uniform(const Node *e, const VarSet *u)
{
    if (!e)
        return true;
    switch (e->kind) {
    case N_NAME: return uniform(e) || set_has(u, local_of(e)) || !local_of(e);
    case N_ATTR: return grid_uniform(e->attr.value, u);
    case N_CAST: return grid_uniform(e->cast.operand, u);
    case N_UNARY: return grid_uniform(e->unary.operand, u);
    case N_BINARY: return grid_uniform(e->binary.lhs, u) && grid_uniform(e->binary.rhs, u);
    case N_CALL:
        if (e->call.builtin == B_CUDA)
            return ((int)e->call.cuda >= CU_BDIM_X && (int)e->call.cuda <= CU_GDIM_Z) || cuda_call_1(e, CU_GRIDSIZE);
        if (e->call.callee || e->call.builtin == B_NONE)
            return false;
        for (int i = 0; i < e->call.args.len; i++)
            if (!grid_uniform(e->call.args.items[i], u))
                return false;
        return true;
    default: return uniform(e);
    }
}

typedef struct GridStride {
    VarSet uniform;          /* the prefix's locals: the same in every thread */
    const Var *start, *stride;
} GridStride;

/* Does every local that e reads have a value of this iteration (defs), or
 * one the same for all threads? */
static bool reads_ok(const Node *e, const VarSet *defs, const GridStride *g)
{
    if (!e)
        return true;
    switch (e->kind) {
    case N_NAME: {
        const Var *v = local_of(e);
        return !v || (v->param && !v->ndefs) || set_has(defs, v) || set_has(&g->uniform, v);
    }
    case N_CONST: case N_INT: case N_FLOAT: case N_IMAG: case N_STR: case N_TRUE: case N_FALSE: case N_NONE:
        return true;
    case N_ATTR: return reads_ok(e->attr.value, defs, g);
    case N_CAST: return reads_ok(e->cast.operand, defs, g);
    case N_UNARY: return reads_ok(e->unary.operand, defs, g);
    case N_BINARY: return reads_ok(e->binary.lhs, defs, g) && reads_ok(e->binary.rhs, defs, g);
    case N_BOOLOP: return reads_ok(e->boolop.lhs, defs, g) && reads_ok(e->boolop.rhs, defs, g);
    case N_IFEXP:
        return reads_ok(e->ifexp.cond, defs, g) && reads_ok(e->ifexp.then, defs, g)
               && reads_ok(e->ifexp.orelse, defs, g);
    case N_COMPARE:
        for (int i = 0; i <= e->compare.n; i++)
            if (!reads_ok(e->compare.operands[i], defs, g))
                return false;
        return true;
    case N_SUBSCRIPT:
        if (!reads_ok(e->subscript.value, defs, g))
            return false;
        for (int i = 0; i < e->subscript.index.len; i++)
            if (!reads_ok(e->subscript.index.items[i], defs, g))
                return false;
        return true;
    case N_TUPLE:
        for (int i = 0; i < e->tuple.elts.len; i++)
            if (!reads_ok(e->tuple.elts.items[i], defs, g))
                return false;
        return true;
    case N_CALL:
        if (e->call.builtin == B_CUDA && (int)e->call.cuda >= CU_TID_X && (int)e->call.cuda <= CU_GRIDSIZE)
            return false;            /* the thread's coordinates: it has none here */
        for (int i = 0; i < e->call.args.len; i++)
            if (!reads_ok(e->call.args.items[i], defs, g))
                return false;
        return true;
    default: return false;
    }
}

/* An assignment's target: the local it defines, or the element it writes. */
static bool target_ok(const Node *t, VarSet *defs, const GridStride *g)
{
    const Var *v = local_of(t);
    if (v)
        return !v->param && !set_has(&g->uniform, v) && v != g->start && set_add(defs, v);
    if (t->kind == N_TUPLE) {
        for (int i = 0; i < t->tuple.elts.len; i++)
            if (!target_ok(t->tuple.elts.items[i], defs, g))
                return false;
        return true;
    }
    return t->kind == N_SUBSCRIPT && reads_ok(t, defs, g);
}

/* Statements of the grid-stride loop's body (depth 0) or of loops in it. */
static bool body_ok(const NodeList *b, VarSet *defs, const GridStride *g, int depth)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        VarSet inner = *defs;
        switch (s->kind) {
        case N_ASSIGN:
            if (!reads_ok(s->assign.value, defs, g))
                return false;
            for (int k = 0; k < s->assign.targets.len; k++)
                if (!target_ok(s->assign.targets.items[k], defs, g))
                    return false;
            break;
        case N_EXPRSTMT:
            if (!reads_ok(s->exprstmt.expr, defs, g))
                return false;
            break;
        case N_IF:   /* what a branch assigns counts inside it only */
            if (!reads_ok(s->ifstmt.cond, defs, g) || !body_ok(&s->ifstmt.then, &inner, g, depth))
                return false;
            inner = *defs;
            if (!body_ok(&s->ifstmt.orelse, &inner, g, depth))
                return false;
            break;
        case N_WHILE:
            if (!reads_ok(s->whilestmt.cond, defs, g) || !body_ok(&s->whilestmt.body, &inner, g, depth + 1))
                return false;
            break;
        case N_FOR:
            if (!reads_ok(s->forstmt.iter, defs, g) || s->forstmt.orelse.len
                || !target_ok(s->forstmt.target, &inner, g) || !body_ok(&s->forstmt.body, &inner, g, depth + 1))
                return false;
            break;
        case N_BREAK:
            if (depth == 0)
                return false;
            break;
        case N_CONTINUE: case N_PASS:
            break;
        default:             /* return among them: it would end the thread's other iterations */
            return false;
        }
    }
    return true;
}

const Node *jit_grid_stride(const Instance *inst)
{
    Uses u = uses_of(inst);
    if (!jit_has_block_runner(inst) || jit_context(inst) || u.local_arrays || (u.flags & UFN_KF_PRINT))
        return NULL;
    GridStride g = {.start = NULL};
    const NodeList *b = &inst->body;
    int last = b->len - 1;
    if (last >= 1 && b->items[last]->kind == N_RETURN && !b->items[last]->ret.value)
        last--;                                      /* a bare return at the end */
    for (int i = 0; i < last; i++) {
        const Node *s = b->items[i];
        const Var *v = s->kind == N_ASSIGN && s->assign.targets.len == 1 ? local_of(s->assign.targets.items[0]) : NULL;
        if (!v || v->param || v->ndefs != 1)
            return NULL;
        if (cuda_call_1(s->assign.value, CU_GRID) && !g.start)
            g.start = v;
        else if (!grid_uniform(s->assign.value, &g.uniform) || !set_add(&g.uniform, v))
            return NULL;
        if (cuda_call_1(s->assign.value, CU_GRIDSIZE))
            g.stride = v;
    }
    const Node *loop = last >= 0 ? b->items[last] : NULL;
    if (!loop || loop->kind != N_FOR || loop->forstmt.orelse.len || loop->forstmt.iter->kind != N_CALL
        || loop->forstmt.iter->call.builtin != B_RANGE || loop->forstmt.iter->call.args.len != 3)
        return NULL;
    const NodeList *a = &loop->forstmt.iter->call.args;
    const Var *lo = local_of(a->items[0]), *step = local_of(a->items[2]);
    if (!(cuda_call_1(a->items[0], CU_GRID) || (lo && lo == g.start))
        || !(cuda_call_1(a->items[2], CU_GRIDSIZE) || (step && step == g.stride))
        || !grid_uniform(a->items[1], &g.uniform))
        return NULL;
    VarSet defs = {.n = 0};
    if (!target_ok(loop->forstmt.target, &defs, &g) || !body_ok(&loop->forstmt.body, &defs, &g, 0))
        return NULL;
    return loop;
}

/* The prefix's statements the grid-stride runner runs once: the uniform
 * ones (not the start's). */
bool jit_grid_stride_uniform(const Node *s)
{
    return s->kind == N_ASSIGN && !cuda_call_1(s->assign.value, CU_GRID);
}

/* ---- a split kernel's locals ---------------------------------------------------------------- *
 * The split runner keeps a local per thread in the context, except the
 * rematerialised ones: a local assigned once, before the first barrier,
 * a value of the thread's coordinates, parameters, constants, static
 * shared arrays and such locals (tx = cuda.threadIdx.x, row from
 * cuda.grid(2), sa = cuda.shared.array(...)).  Each region computes those
 * again, so the C compiler sees tx as the lane's index and vectorises the
 * accesses through it as consecutive.  And it reads which locals a
 * statement touches, for the loads and stores around a region. */

static bool thread_pure(const Node *e, const VarSet *remat)
{
    switch (e->kind) {
    case N_CONST: return true;
    case N_NAME: return uniform(e) || set_has(remat, local_of(e)) || !local_of(e);
    case N_ATTR: return thread_pure(e->attr.value, remat);
    case N_CAST: return thread_pure(e->cast.operand, remat);
    case N_UNARY: return thread_pure(e->unary.operand, remat);
    case N_BINARY: return thread_pure(e->binary.lhs, remat) && thread_pure(e->binary.rhs, remat);
    case N_SUBSCRIPT:   /* a tuple's field, not memory */
        return e->subscript.value->type && e->subscript.value->type->kind == TY_TUPLE
               && thread_pure(e->subscript.value, remat) && e->subscript.index.len == 1
               && e->subscript.index.items[0]->kind == N_CONST;
    case N_CALL:
        if (e->call.builtin != B_CUDA)
            return false;
        if (e->call.cuda == CU_SHARED_ARRAY)
            return !(e->call.args.len == 1 && e->call.args.items[0]->konst.v.i == 0);
        if ((int)e->call.cuda > CU_GRIDSIZE)
            return false;
        for (int i = 0; i < e->call.args.len; i++)
            if (e->call.args.items[i]->kind != N_CONST)
                return false;
        return e->call.cuda != CU_LANEID;
    default: return false;
    }
}

static void remat_set(const Instance *inst, VarSet *set)
{
    set->n = 0;
    const NodeList *b = &inst->body;
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        if (jit_is_barrier(s) || jit_has_barrier(s))
            return;
        const Var *v = s->kind == N_ASSIGN && s->assign.targets.len == 1 ? local_of(s->assign.targets.items[0]) : NULL;
        /* (the checker's temporaries of tuple unpacking count no definition) */
        if (!v || v->param || v->ndefs > 1 || (v->ndefs == 0 && !v->temp) || !thread_pure(s->assign.value, set))
            continue;
        bool other = false;   /* read before, or assigned elsewhere */
        for (int k = 0; k < b->len && !other; k++) {
            bool r = false, w = false;
            if (k != i)
                jit_var_refs(b->items[k], v, &r, &w);
            other = w || (k < i && r);
        }
        if (!other && !set_add(set, v))
            return;
    }
}

bool jit_remat_var(const Instance *inst, const Var *v)
{
    VarSet set;
    remat_set(inst, &set);
    return set_has(&set, v);
}

bool jit_remat_stmt(const Instance *inst, const Node *s)
{
    return s->kind == N_ASSIGN && s->assign.targets.len == 1 && local_of(s->assign.targets.items[0])
           && jit_remat_var(inst, local_of(s->assign.targets.items[0]));
}

static void refs_list(const NodeList *l, const Var *v, bool *r, bool *w)
{
    for (int i = 0; i < l->len; i++)
        jit_var_refs(l->items[i], v, r, w);
}

/* Whether n reads v (*r) or assigns it (*w), ORed in; the checker's
 * temporaries of and/or and comparison chains count as both. */
void jit_var_refs(const Node *n, const Var *v, bool *r, bool *w)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_NAME:
        if (local_of(n) == v)
            *r = true;
        break;
    case N_ASSIGN:
        for (int i = 0; i < n->assign.targets.len; i++) {
            const Node *t = n->assign.targets.items[i];
            if (local_of(t) == v)
                *w = true;
            else if (t->kind == N_TUPLE)
                for (int k = 0; k < t->tuple.elts.len; k++)
                    jit_var_refs(t->tuple.elts.items[k], v, w, w);
            else
                jit_var_refs(t, v, r, w);
        }
        jit_var_refs(n->assign.value, v, r, w);
        break;
    case N_EXPRSTMT: jit_var_refs(n->exprstmt.expr, v, r, w); break;
    case N_IF: jit_var_refs(n->ifstmt.cond, v, r, w); refs_list(&n->ifstmt.then, v, r, w); refs_list(&n->ifstmt.orelse, v, r, w); break;
    case N_WHILE: jit_var_refs(n->whilestmt.cond, v, r, w); refs_list(&n->whilestmt.body, v, r, w); break;
    case N_FOR:
        if (local_of(n->forstmt.target) == v)
            *w = true;
        jit_var_refs(n->forstmt.iter, v, r, w);
        refs_list(&n->forstmt.body, v, r, w);
        break;
    case N_RETURN: jit_var_refs(n->ret.value, v, r, w); break;
    case N_UNARY: jit_var_refs(n->unary.operand, v, r, w); break;
    case N_BINARY: jit_var_refs(n->binary.lhs, v, r, w); jit_var_refs(n->binary.rhs, v, r, w); break;
    case N_BOOLOP:
        if (n->boolop.tmp == v)
            *r = *w = true;
        jit_var_refs(n->boolop.lhs, v, r, w);
        jit_var_refs(n->boolop.rhs, v, r, w);
        break;
    case N_COMPARE:
        for (int i = 0; i <= n->compare.n; i++)
            jit_var_refs(n->compare.operands[i], v, r, w);
        for (int i = 0; n->compare.tmps && i < n->compare.n; i++)
            if (n->compare.tmps[i] == v)
                *r = *w = true;
        break;
    case N_IFEXP:
        jit_var_refs(n->ifexp.cond, v, r, w);
        jit_var_refs(n->ifexp.then, v, r, w);
        jit_var_refs(n->ifexp.orelse, v, r, w);
        break;
    case N_CALL: refs_list(&n->call.args, v, r, w); break;
    case N_ATTR: jit_var_refs(n->attr.value, v, r, w); break;
    case N_SUBSCRIPT: jit_var_refs(n->subscript.value, v, r, w); refs_list(&n->subscript.index, v, r, w); break;
    case N_TUPLE: refs_list(&n->tuple.elts, v, r, w); break;
    case N_CAST: jit_var_refs(n->cast.operand, v, r, w); break;
    default: break;
    }
}

/* A loop of a region that the split runner turns inside out - the loop
 * outside, the threads inside: a for-range loop with the same bounds in
 * every thread, nothing that leaves it, in a kernel without print (whose
 * lines would come in another order). */
bool jit_interchange(const Instance *inst, const Node *s)
{
    if (s->kind != N_FOR || s->forstmt.orelse.len || s->forstmt.iter->kind != N_CALL
        || s->forstmt.iter->call.builtin != B_RANGE || (jit_flags(inst) & UFN_KF_PRINT))
        return false;
    const NodeList *a = &s->forstmt.iter->call.args;
    for (int k = 0; k < a->len; k++)
        if (!uniform(a->items[k]))
            return false;
    if (a->len == 3 && (a->items[2]->kind != N_CONST || a->items[2]->konst.v.i == 0))
        return false;
    return !escapes(&s->forstmt.body) && !has_return(&s->forstmt.body) && !jit_has_barrier(s);
}

/* Is a for loop's variable its own - bound by its header only, read by
 * nothing outside it?  Then the split runner keeps it in no context. */
static bool refs_outside(const NodeList *b, const Node *loop, const Var *v)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        bool r = false, w = false;
        if (s == loop)
            continue;
        if (s->kind == N_FOR) {
            jit_var_refs(s->forstmt.iter, v, &r, &w);
            if (local_of(s->forstmt.target) == v || r || refs_outside(&s->forstmt.body, loop, v))
                return true;
        } else if (s->kind == N_WHILE) {
            jit_var_refs(s->whilestmt.cond, v, &r, &w);
            if (r || refs_outside(&s->whilestmt.body, loop, v))
                return true;
        } else if (s->kind == N_IF) {
            jit_var_refs(s->ifstmt.cond, v, &r, &w);
            if (r || refs_outside(&s->ifstmt.then, loop, v) || refs_outside(&s->ifstmt.orelse, loop, v))
                return true;
        } else {
            jit_var_refs(s, v, &r, &w);
            if (r || w)
                return true;
        }
    }
    return false;
}

bool jit_loop_local(const Instance *inst, const Node *loop)
{
    const Var *v = local_of(loop->forstmt.target);
    return v && !v->param && v->ndefs == 1 && !refs_outside(&inst->body, loop, v);
}

/* ---- the strip form of an interchanged loop ---------------------------------------------- *
 * An interchanged loop whose body does nothing but read memory and assign
 * locals (no store, atomic, print or device function call) runs, in the
 * split runner, per strip of threads with the loop inside the strip: its
 * locals stay in registers across the loop's iterations (emit_kernel.c). */
static bool effect_free(const Node *e)
{
    if (!e)
        return true;
    switch (e->kind) {
    case N_NAME: case N_CONST: case N_INT: case N_FLOAT: case N_IMAG: case N_STR: case N_TRUE: case N_FALSE: case N_NONE:
        return true;
    case N_ATTR: return effect_free(e->attr.value);
    case N_CAST: return effect_free(e->cast.operand);
    case N_UNARY: return effect_free(e->unary.operand);
    case N_BINARY: return effect_free(e->binary.lhs) && effect_free(e->binary.rhs);
    case N_BOOLOP: return effect_free(e->boolop.lhs) && effect_free(e->boolop.rhs);
    case N_IFEXP: return effect_free(e->ifexp.cond) && effect_free(e->ifexp.then) && effect_free(e->ifexp.orelse);
    case N_COMPARE:
        for (int i = 0; i <= e->compare.n; i++)
            if (!effect_free(e->compare.operands[i]))
                return false;
        return true;
    case N_SUBSCRIPT:
        for (int i = 0; i < e->subscript.index.len; i++)
            if (!effect_free(e->subscript.index.items[i]))
                return false;
        return effect_free(e->subscript.value);
    case N_TUPLE:
        for (int i = 0; i < e->tuple.elts.len; i++)
            if (!effect_free(e->tuple.elts.items[i]))
                return false;
        return true;
    case N_CALL:   /* math and the thread's coordinates; no device function */
        if (e->call.callee || e->call.builtin == B_NONE
            || (e->call.builtin == B_CUDA && ((int)e->call.cuda > CU_GRIDSIZE || e->call.cuda == CU_LANEID)))
            return false;
        for (int i = 0; i < e->call.args.len; i++)
            if (!effect_free(e->call.args.items[i]))
                return false;
        return true;
    default: return false;
    }
}

static bool local_target(const Node *t)
{
    if (t->kind == N_TUPLE) {
        for (int i = 0; i < t->tuple.elts.len; i++)
            if (!local_target(t->tuple.elts.items[i]))
                return false;
        return true;
    }
    const Var *v = local_of(t);
    return v && !v->param;
}

static bool locals_only(const NodeList *b)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i];
        switch (s->kind) {
        case N_ASSIGN:
            for (int k = 0; k < s->assign.targets.len; k++)
                if (!local_target(s->assign.targets.items[k]))
                    return false;
            if (!effect_free(s->assign.value))
                return false;
            break;
        case N_IF:
            if (!effect_free(s->ifstmt.cond) || !locals_only(&s->ifstmt.then) || !locals_only(&s->ifstmt.orelse))
                return false;
            break;
        case N_WHILE:
            if (!effect_free(s->whilestmt.cond) || !locals_only(&s->whilestmt.body))
                return false;
            break;
        case N_FOR:
            if (s->forstmt.orelse.len || !local_target(s->forstmt.target) || !effect_free(s->forstmt.iter)
                || !locals_only(&s->forstmt.body))
                return false;
            break;
        case N_BREAK: case N_CONTINUE: case N_PASS:   /* of a loop inside: jit_interchange */
            break;
        default: return false;
        }
    }
    return true;
}

bool jit_strip(const Instance *inst, const Node *loop)
{
    return jit_interchange(inst, loop) && locals_only(&loop->forstmt.body);
}

/* ---- indices that are never negative ----------------------------------------------------- *
 * The split runner writes an array index as plain C arithmetic - without
 * the wrap-around of a negative index and without the wrapping int64
 * helpers - when its value provably lies in [0, BOUND_LIMIT): the same
 * value, which the C compiler sees as affine in the lane and vectorises.
 * The rule, in this one place: an integer constant >= 0; the thread's
 * coordinates within CUDA's limits (the runtime refuses larger launches);
 * an array's extent where the runner checked it is below
 * UFN_SMALL_EXTENT (`small`); a local with one definition, by its value
 * (before it, the local is 0); a range() counter counting up by a
 * constant from a bounded start to a bounded end; sums, products, and //
 * and % by a positive constant of bounded values.  Anything else is
 * unbounded. */
#define BOUND_LIMIT ((uint64_t)1 << 62)

/* The statement that defines v (its only one), or NULL. */
static const Node *def_of(const NodeList *b, const Var *v)
{
    for (int i = 0; i < b->len; i++) {
        const Node *s = b->items[i], *d = NULL;
        switch (s->kind) {
        case N_ASSIGN:
            if (s->assign.targets.len == 1 && local_of(s->assign.targets.items[0]) == v)
                return s;
            break;
        case N_FOR:
            if (local_of(s->forstmt.target) == v)
                return s;
            d = def_of(&s->forstmt.body, v);
            break;
        case N_WHILE: d = def_of(&s->whilestmt.body, v); break;
        case N_IF: d = def_of(&s->ifstmt.then, v) ? def_of(&s->ifstmt.then, v) : def_of(&s->ifstmt.orelse, v); break;
        default: break;
        }
        if (d)
            return d;
    }
    return NULL;
}

typedef struct Range {      /* lo <= value <= hi; ok: bounded */
    uint64_t lo, hi;
    bool ok;
} Range;

static const Range UNBOUNDED = {0, 0, false};

static Range upto(uint64_t hi)
{
    return (Range){0, hi, hi < BOUND_LIMIT};
}

static Range range_of(const Instance *inst, const Node *e, bool small, int depth);

/* The values of an integer type that are below BOUND_LIMIT: below this. */
static uint64_t type_limit(const Type *t)
{
    int bits = ty_bits(t) - (ty_is_signed(t) ? 1 : 0);
    return bits >= 62 ? BOUND_LIMIT : (uint64_t)1 << bits;
}

static Range coord_range(const Node *e)
{
    switch (e->call.cuda) {
    case CU_TID_X: case CU_TID_Y: return upto(1023);
    case CU_TID_Z: return upto(63);
    case CU_BDIM_X: case CU_BDIM_Y: return (Range){1, 1024, true};
    case CU_BDIM_Z: return (Range){1, 64, true};
    case CU_BID_X: case CU_BID_Y: case CU_BID_Z: return upto((uint64_t)1 << 31);
    case CU_GDIM_X: case CU_GDIM_Y: case CU_GDIM_Z: return (Range){1, (uint64_t)1 << 31, true};
    case CU_LANEID: return upto(31);
    case CU_WARPSIZE: return (Range){32, 32, true};
    case CU_GRID: return upto((uint64_t)1 << 42);
    case CU_GRIDSIZE: return (Range){1, (uint64_t)1 << 42, true};
    default: return UNBOUNDED;
    }
}

/* Field k of a tuple-valued local: of cuda.grid(n), or of a tuple display. */
static Range field_range(const Instance *inst, const Node *t, int64_t k, bool small, int depth)
{
    const Var *v = local_of(t);
    const Node *d = v && !v->param && v->ndefs <= 1 ? def_of(&inst->body, v) : NULL;
    if (!d || d->kind != N_ASSIGN)
        return UNBOUNDED;
    const Node *x = d->assign.value;
    if (x->kind == N_CALL && x->call.builtin == B_CUDA && (x->call.cuda == CU_GRID || x->call.cuda == CU_GRIDSIZE))
        return coord_range(x);
    if (x->kind == N_TUPLE && k >= 0 && k < x->tuple.elts.len)
        return range_of(inst, x->tuple.elts.items[k], small, depth + 1);
    return UNBOUNDED;
}

/* A local: by its one definition; 0 before it runs. */
static Range local_range(const Instance *inst, const Var *v, bool small, int depth)
{
    const Node *d = !v->param && v->ndefs == 1 ? def_of(&inst->body, v) : NULL;
    Range r = UNBOUNDED;
    if (d && d->kind == N_ASSIGN)
        r = range_of(inst, d->assign.value, small, depth + 1);
    else if (d && d->kind == N_FOR && d->forstmt.iter->kind == N_CALL && d->forstmt.iter->call.builtin == B_RANGE) {
        const NodeList *a = &d->forstmt.iter->call.args;
        if (a->len == 3 && (a->items[2]->kind != N_CONST || a->items[2]->konst.v.i <= 0))
            return UNBOUNDED;
        Range lo = a->len >= 2 ? range_of(inst, a->items[0], small, depth + 1) : upto(0);
        Range hi = range_of(inst, a->items[a->len >= 2 ? 1 : 0], small, depth + 1);
        r = (Range){lo.lo, lo.hi > hi.hi ? lo.hi : hi.hi, lo.ok && hi.ok};
    }
    r.lo = 0;
    r.ok = r.ok && v->type && ty_is_int(v->type) && r.hi < type_limit(v->type);
    return r;
}

static Range range_in(const Instance *inst, const Node *e, bool small, int depth);

/* Its range, where it fits e's own type. */
static Range range_of(const Instance *inst, const Node *e, bool small, int depth)
{
    Range r = range_in(inst, e, small, depth);
    r.ok = r.ok && r.hi < type_limit(e->type);   /* (range_in checks e is an integer) */
    return r;
}

static Range range_in(const Instance *inst, const Node *e, bool small, int depth)
{
    if (!e || depth > 16 || !e->type || !ty_is_int(e->type))
        return UNBOUNDED;
    Range a, b;
    switch (e->kind) {
    case N_CONST: {
        uint64_t c = ty_is_signed(e->type) && e->konst.v.i < 0 ? UINT64_MAX : e->konst.v.u;
        return (Range){c, c, c < BOUND_LIMIT};
    }
    case N_NAME: {
        const Var *v = local_of(e);
        return v ? local_range(inst, v, small, depth) : UNBOUNDED;
    }
    case N_ATTR:
        return small && e->attr.which == ATTR_EXTENT ? upto(UFN_SMALL_EXTENT - 1) : UNBOUNDED;
    case N_CAST:
        a = range_of(inst, e->cast.operand, small, depth + 1);
        a.ok = a.ok && a.hi < type_limit(e->type);
        return a;
    case N_CALL:
        return e->call.builtin == B_CUDA ? coord_range(e) : UNBOUNDED;
    case N_SUBSCRIPT:
        if (!e->subscript.value->type || e->subscript.value->type->kind != TY_TUPLE || e->subscript.index.len != 1
            || e->subscript.index.items[0]->kind != N_CONST)
            return UNBOUNDED;
        return field_range(inst, e->subscript.value, e->subscript.index.items[0]->konst.v.i, small, depth);
    case N_BINARY:
        a = range_of(inst, e->binary.lhs, small, depth + 1);
        b = range_of(inst, e->binary.rhs, small, depth + 1);
        if (!a.ok || !b.ok)
            return UNBOUNDED;
        switch (e->binary.op) {
        case OP_ADD: return (Range){a.lo + b.lo, a.hi + b.hi, a.hi + b.hi < BOUND_LIMIT};
        case OP_SUB: return (Range){a.lo - b.hi, a.hi - b.lo, a.lo >= b.hi};
        case OP_MUL:
            return (Range){a.lo * b.lo, a.hi * b.hi, b.hi == 0 || a.hi < BOUND_LIMIT / b.hi};
        case OP_FLOORDIV:   /* by a positive constant */
            return (Range){a.lo / (b.lo ? b.lo : 1), a.hi / (b.lo ? b.lo : 1), e->binary.rhs->kind == N_CONST && b.lo > 0};
        case OP_MOD:
            return (Range){0, b.lo - 1, e->binary.rhs->kind == N_CONST && b.lo > 0};
        default: return UNBOUNDED;
        }
    default: return UNBOUNDED;
    }
}

bool jit_index_plain(const Instance *inst, const Node *e, bool small)
{
    return range_of(inst, e, small, 0).ok;
}
