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
 * run one after another.  One that is a grid-stride loop gets the
 * grid-stride form of it (kernel_uses.c): per stride one loop over
 * consecutive i, across the threads, which the C compiler vectorises.  A kernel whose barriers stand where every thread
 * meets them (below, "splitting at barriers") gets a block runner split
 * into regions; its warp functions so placed split it too, each run with
 * the lanes of every warp in lock-step ("warp functions in lock-step").
 * Every other kernel runs as form (b): threads as fibers where there are
 * barriers or warp functions, else one after another. */
#include "ufnc.h"

#include <string.h>
/* A local's initial value in the runners: every local starts at zero. */
static const char *zero_of(const Type *t)
{
    return t->kind == TY_TUPLE || t->kind == TY_ARRAY || ty_is_complex(t) ? "{0}" : "0";
}

/* The per-thread context of a split kernel: its locals but the
 * rematerialised ones (kernel_uses.c).  The runner lays it out as arrays,
 * field f of thread l at ctx + offsetof(f) * threads + l * sizeof(f), so
 * that consecutive threads' values are consecutive. */
static bool in_context(const Instance *inst, const Var *v)
{
    return !v->param && v->type && !jit_remat_var(inst, v);
}

void emit_jit_context(Emitter *em, const Instance *inst)
{
    Buf fields = {0};
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        if (in_context(inst, v))
            buf_printf(&fields, " %s;", c_declaration(c_type(v->type), v->cname));
    }
    emit_line(em, "typedef struct {%s } %s;", fields.data ? fields.data : " char ufn_none;", jit_context(inst));
    buf_free(&fields);
}

/* The statements of a split kernel, region by region: each run of
 * statements without a barrier becomes a loop over the block's threads;
 * `vars` are the enclosing barrier loops' variables (their counters). */
typedef struct Split {
    const Instance *inst;
    const Var *vars[16];
    const char *vals[16];    /* a tuple loop's values ("ufn_uin0"); NULL: a range's counter */
    int depth;
    const Node *warp;        /* the warp function of the statement run in lock-step: */
    int phase;               /* 1 its arguments into the lanes' arrays, 2 its result and the statement */
    const Var *own[17];      /* counters of these loops read in them only: */
    int nown;                /* plain locals, in no context */
} Split;

static bool own_counter(const Split *sp, const Var *v)
{
    for (int i = 0; i < sp->nown; i++)
        if (sp->own[i] == v)
            return true;
    return false;
}

/* `for (int64_t NAMEd = lo, NAMEendd = hi; ...)` for a range() whose
 * bounds are the same in every thread (and a constant step). */
static void uniform_for(Emitter *em, const Node *s, const char *name, int d)
{
    const NodeList *a = &s->forstmt.iter->call.args;
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
    emit_line(em, "for (int64_t %s%d = %s, %send%d = %s; %s%d %s %send%d; %s%d += %s) {", name, d, lo.data, name, d,
              hi.data, name, d, down ? ">" : "<", name, d, name, d, step.data);
    buf_free(&lo);
    buf_free(&hi);
    buf_free(&step);
}

/* `{ const T NAMEind[n] = {...}; for (int NAMEd = 0; ...) {` for a loop over
 * a tuple whose values are the same in every thread; the caller closes both. */
static void uniform_tuple_for(Emitter *em, const Node *s, int d)
{
    const Node *it = s->forstmt.iter;
    const Type *t = it->type;
    Buf vals = {0};
    Buf *saved = em->out;
    em->out = &vals;
    for (int k = 0; k < t->nelts; k++) {
        emit_text(em, k ? ", " : "");
        if (it->kind == N_TUPLE)
            emit_expr(em, it->tuple.elts.items[k]);
        else {
            emit_expr(em, it);
            emit_text(em, ".f%d", k);
        }
    }
    em->out = saved;
    line_directive(em, s->loc);
    emit_line(em, "{");
    em->indent++;
    emit_line(em, "const %s ufn_uin%d[%d] = {%s};", c_type(t->elts[0]), d, t->nelts, vals.data);
    emit_line(em, "for (int ufn_u%d = 0; ufn_u%d < %d; ufn_u%d++) {", d, d, t->nelts, d);
    buf_free(&vals);
}

/* Does a piece of a region (its statements, its loop's variable) touch v? */
static void piece_refs(const Split *sp, const Node *const *stmts, int n, const Var *loopvar, const Var *v, bool *touch,
                       bool *written)
{
    bool r = false, w = v == loopvar;
    for (int d = 0; d < sp->depth; d++)
        w = w || sp->vars[d] == v;
    for (int i = 0; i < n; i++)
        jit_var_refs(stmts[i], v, &r, &w);
    *touch = r || w;
    *written = w;
}

/* ---- warp functions in lock-step ----------------------------------------------------------- *
 * A statement with a warp function (jit_warp_call) is two thread loops: the
 * first stores each thread's arguments in arrays (ufn_wmask, ufn_wval,
 * ufn_warg), the second computes each lane's result from its warp's - the
 * 32 consecutive threads around it - and runs the statement with it.  As
 * CUDA defines them: the lanes taking part are those of the mask that the
 * block has (a partial warp's others are inactive); a shuffle from a lane
 * outside the warp or not taking part gives the caller's own value. */

static void warp_arguments(Emitter *em, const Node *call)
{
    static const char *const names[] = {"ufn_wmask", "ufn_wval", "ufn_warg"};
    const NodeList *a = &call->call.args;
    for (int i = 0; i < a->len && i < 3; i++) {
        begin_line(em);
        emit_text(em, "%s[ufn_l] = ", names[i]);
        emit_expr(em, a->items[i]);
        emit_text(em, ";\n");
    }
}

/* The lane a shuffle reads, from its own lane and argument: -1 (its own
 * value) outside the warp, as the simulator's source_lane. */
static const char *shuffle_source(CudaFn fn)
{
    switch (fn) {
    case CU_SHFL: return "(int)(ufn_warg[ufn_l] & 31u)";
    case CU_SHFL_UP: return "ufn_warg[ufn_l] > 31u ? -1 : (int)ufn_lane - (int)ufn_warg[ufn_l]";
    case CU_SHFL_DOWN: return "ufn_warg[ufn_l] > 31u ? -1 : (int)ufn_lane + (int)ufn_warg[ufn_l]";
    default: return "ufn_warg[ufn_l] > 31u ? -1 : (int)(ufn_lane ^ ufn_warg[ufn_l])";
    }
}

static void warp_result(Emitter *em, const Node *s, const Node *call)
{
    CudaFn fn = (CudaFn)call->call.cuda;
    emit_line(em, "const uint32_t ufn_lane = (uint32_t)ufn_l & 31u;");
    emit_line(em, "const int64_t ufn_base = ufn_l - ufn_lane;   /* the warp's first thread */");
    emit_line(em, "const uint32_t ufn_have = ufn_nt - ufn_base >= 32 ? 0xffffffffu : (1u << (ufn_nt - ufn_base)) - 1u;");
    if (fn == CU_ACTIVEMASK) {
        em->warp_value = "ufn_have";
    } else if (fn >= CU_BALLOT) {
        emit_line(em, "const uint32_t ufn_in = ufn_wmask[ufn_l] & ufn_have;");
        emit_line(em, "uint32_t ufn_ballot = 0;");
        emit_line(em, "for (uint32_t ufn_k = 0; ufn_k < 32; ufn_k++)");
        emit_line(em, "    if ((ufn_in >> ufn_k & 1u) && ufn_wval[ufn_base + ufn_k] != 0)");
        emit_line(em, "        ufn_ballot |= 1u << ufn_k;");
        em->warp_value = fn == CU_BALLOT ? "(int32_t)ufn_ballot" : fn == CU_ALL ? "(ufn_ballot == ufn_in)" : "(ufn_ballot != 0)";
    } else {
        emit_line(em, "const uint32_t ufn_in = ufn_wmask[ufn_l] & ufn_have;");
        emit_line(em, "const int ufn_src = %s;", shuffle_source(fn));
        emit_line(em, "const %s ufn_got = ufn_src >= 0 && ufn_src < 32 && (ufn_in >> ufn_src & 1u) ? ufn_wval[ufn_base + ufn_src] : ufn_wval[ufn_l];",
                  c_type(call->type));
        em->warp_value = "ufn_got";
    }
    em->warp_call = call;
    emit_statement(em, s);
    em->warp_call = NULL;
    em->warp_value = NULL;
}

/* The two thread loops of a statement with a warp function, in a block
 * that holds the lanes' arrays (a block has at most 1024 threads). */
static void thread_loop(Emitter *em, const Split *sp, const Node *const *stmts, int n, const Var *loopvar);

static void warp_step(Emitter *em, Split *sp, const Node *s, const Node *call)
{
    CudaFn fn = (CudaFn)call->call.cuda;
    const NodeList *a = &call->call.args;
    line_directive(em, s->loc);
    if (fn == CU_SYNCWARP) {   /* (its mask has no effect on what the lanes compute) */
        emit_line(em, "/* syncwarp(): every lane has run the region above */");
        return;
    }
    emit_line(em, "{   /* %s: the lanes of each warp in lock-step */", cuda_fns[fn].name);
    em->indent++;
    if (a->len >= 1)
        emit_line(em, "uint32_t ufn_wmask[1024];");
    if (a->len >= 2)
        emit_line(em, "%s ufn_wval[1024];", c_type(fn >= CU_BALLOT ? a->items[1]->type : call->type));
    if (a->len >= 3)
        emit_line(em, "uint32_t ufn_warg[1024];");
    sp->warp = call;
    if (a->len) {
        sp->phase = 1;
        thread_loop(em, sp, &s, 1, NULL);
    }
    sp->phase = 2;
    thread_loop(em, sp, &s, 1, NULL);
    sp->phase = 0;
    sp->warp = NULL;
    em->indent--;
    emit_line(em, "}");
}

/* Where a per-thread local lives between the pieces of a region: in the
 * context (ufn_c_NAME[ufn_l]), or, in the strip form, in the strip's
 * arrays (ufn_r_NAME[ufn_r][ufn_s]), which the C compiler keeps in
 * registers. */
static const char *slot(const Var *v, bool strip)
{
    return arena_printf(strip ? "ufn_r_%s[ufn_r][ufn_s]" : "ufn_c_%s[ufn_l]", v->cname);
}

/* The code of one thread in a thread loop, its coordinates in ufn_tl: the
 * rematerialised locals computed, the others the piece touches loaded and
 * the assigned ones stored back; plain locals in between, which the C
 * compiler keeps in registers.  `loopvar`, if any, takes the interchanged
 * loop's counter ufn_v0. */
static void lane_body(Emitter *em, const Split *sp, const Node *const *stmts, int n, const Var *loopvar, bool strip)
{
    const Instance *inst = sp->inst;
    const char *coords = em->coords;
    em->coords = "ufn_tl";
    /* a strip's thread is its run's first (ufn_q) plus its lane in the run */
    em->lane_id = strip ? "((ufn_q + (uint32_t)ufn_s) & 31u)" : "((uint32_t)ufn_l & 31u)";
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        bool touch, written;
        piece_refs(sp, stmts, n, loopvar, v, &touch, &written);
        if ((!v->param && v->type && jit_remat_var(inst, v)) || (touch && own_counter(sp, v)))
            emit_line(em, "%s %s = %s;", c_type(v->type), v->cname, zero_of(v->type));
        else if (in_context(inst, v) && touch)
            emit_line(em, "%s %s = %s;", c_type(v->type), v->cname, slot(v, strip));
    }
    for (int i = 0; i < inst->body.len; i++)
        if (jit_remat_stmt(inst, inst->body.items[i]))
            emit_statement(em, inst->body.items[i]);
    line_reset(em);
    for (int d = 0; d < sp->depth; d++)
        if (sp->vals[d])
            emit_line(em, "%s = %s[ufn_u%d];", sp->vars[d]->cname, sp->vals[d], d);
        else
            emit_line(em, "%s = (%s)ufn_u%d;", sp->vars[d]->cname, c_type(sp->vars[d]->type), d);
    if (loopvar)
        emit_line(em, "%s = (%s)ufn_v0;", loopvar->cname, c_type(loopvar->type));
    if (sp->phase == 1)
        warp_arguments(em, sp->warp);
    else if (sp->phase == 2)
        warp_result(em, stmts[0], sp->warp);
    else
        for (int i = 0; i < n; i++)
            if (!jit_remat_stmt(inst, stmts[i]))
                emit_statement(em, stmts[i]);
    line_reset(em);
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        bool touch, written;
        piece_refs(sp, stmts, n, loopvar, v, &touch, &written);
        if (in_context(inst, v) && written && !own_counter(sp, v) && sp->phase != 1)
            emit_line(em, "%s = %s;", slot(v, strip), v->cname);
    }
    em->coords = coords;
    em->lane_id = NULL;
}

/* One loop over the block's threads, consecutive threadIdx.x innermost so
 * that the C compiler vectorises across them (under omp simd unless the
 * kernel has atomics: threads between two barriers are unordered). */
static void thread_loop(Emitter *em, const Split *sp, const Node *const *stmts, int n, const Var *loopvar)
{
    emit_line(em, "for (uint32_t ufn_z = 0; ufn_z < ufn_t.bdim.z; ufn_z++)");
    emit_line(em, "    for (uint32_t ufn_y = 0; ufn_y < ufn_t.bdim.y; ufn_y++) {");
    em->indent += 2;
    if (!(jit_flags(sp->inst) & UFN_KF_ATOMIC))
        emit_line(em, "_Pragma(\"omp simd\")");
    /* 64-bit signed counters: the C compiler sees ufn_l step by one */
    emit_line(em, "for (int64_t ufn_x = 0; ufn_x < (int64_t)ufn_t.bdim.x; ufn_x++) {");
    em->indent++;
    emit_line(em, "const int64_t ufn_l = ((int64_t)ufn_z * ufn_t.bdim.y + ufn_y) * ufn_t.bdim.x + ufn_x;");
    emit_line(em, "ufn_kthread ufn_tl = ufn_t;");
    emit_line(em, "ufn_tl.tid = make_uint3((unsigned)ufn_x, ufn_y, ufn_z);");
    lane_body(em, sp, stmts, n, loopvar, false);
    em->indent--;
    emit_line(em, "}");
    em->indent -= 2;
    emit_line(em, "    }");
}

/* The strip form of an interchanged loop (jit_strip: its body only reads
 * memory and assigns locals): the block's threads in strips of
 * STRIP_ROWS runs of STRIP_LANES consecutive threads, the loop inside each
 * strip, the strip's locals in arrays that the C compiler keeps in vector
 * registers across the loop's iterations (one vector per local and run),
 * instead of a load and a store of each per iteration; a value the runs
 * share (a row of a shared tile) is loaded once per iteration for all.
 * Each thread still runs the iterations in order.  Four runs of 16: the
 * accumulators of a 16x16 block's tile fit AVX2's 16 registers, AVX-512's
 * with room.  A block whose x extent is not a multiple of the lanes, or
 * whose thread count is not one of the strip's, takes the interchanged
 * form. */
enum { STRIP_LANES = 16, STRIP_ROWS = 4 };

static bool strip_var(const Split *sp, const Node *loop, const Var *v, bool *written)
{
    bool touch;
    piece_refs(sp, (const Node *const *)loop->forstmt.body.items, loop->forstmt.body.len,
               loop->forstmt.target->name.sym->var, v, &touch, written);
    return touch && in_context(sp->inst, v) && !own_counter(sp, v);
}

/* Copies between the context and the strip's arrays, before or after the loop. */
static void strip_copy(Emitter *em, const Split *sp, const Node *loop, bool in)
{
    const Instance *inst = sp->inst;
    bool any = false;
    for (int i = 0; i < inst->nvars; i++) {
        bool written;
        any = any || (strip_var(sp, loop, inst->vars[i], &written) && (in || written));
    }
    if (!any)
        return;
    emit_line(em, "for (int ufn_r = 0; ufn_r < %d; ufn_r++)", STRIP_ROWS);
    emit_line(em, "    for (int ufn_s = 0; ufn_s < %d; ufn_s++) {", STRIP_LANES);
    emit_line(em, "        const int64_t ufn_l = (int64_t)ufn_l0 + %d * ufn_r + ufn_s;", STRIP_LANES);
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        bool written;
        if (strip_var(sp, loop, v, &written) && in)
            emit_line(em, "        %s = %s;", slot(v, true), slot(v, false));
        else if (strip_var(sp, loop, v, &written) && written)
            emit_line(em, "        %s = %s;", slot(v, false), slot(v, true));
    }
    emit_line(em, "    }");
}

static void strip_loop(Emitter *em, const Split *sp, const Node *loop)
{
    const Instance *inst = sp->inst;
    const int n = STRIP_LANES * STRIP_ROWS;
    emit_line(em, "/* strip-mined: per strip of %d runs of %d threads, this loop inside, their locals in registers */",
              STRIP_ROWS, STRIP_LANES);
    emit_line(em, "for (uint32_t ufn_l0 = 0; ufn_l0 < ufn_nt; ufn_l0 += %d) {", n);
    em->indent++;
    for (int i = 0; i < inst->nvars; i++) {
        bool written;
        if (strip_var(sp, loop, inst->vars[i], &written))
            emit_line(em, "%s ufn_r_%s[%d][%d];", c_type(inst->vars[i]->type), inst->vars[i]->cname, STRIP_ROWS,
                      STRIP_LANES);
    }
    strip_copy(em, sp, loop, true);
    uniform_for(em, loop, "ufn_v", 0);
    em->indent++;
    emit_line(em, "for (int ufn_r = 0; ufn_r < %d; ufn_r++) {", STRIP_ROWS);
    em->indent++;
    if (!(jit_flags(inst) & UFN_KF_ATOMIC))
        emit_line(em, "_Pragma(\"omp simd\")");
    emit_line(em, "for (int ufn_s = 0; ufn_s < %d; ufn_s++) {", STRIP_LANES);
    em->indent++;
    emit_line(em, "const uint32_t ufn_q = ufn_l0 + %du * (uint32_t)ufn_r;   /* the run's first thread */", STRIP_LANES);
    emit_line(em, "const int64_t ufn_x = (int64_t)(ufn_q %% ufn_t.bdim.x) + ufn_s;");
    emit_line(em, "ufn_kthread ufn_tl = ufn_t;");
    emit_line(em, "ufn_tl.tid = make_uint3((unsigned)ufn_x, ufn_q / ufn_t.bdim.x %% ufn_t.bdim.y, ufn_q / ufn_t.bdim.x / ufn_t.bdim.y);");
    lane_body(em, sp, (const Node *const *)loop->forstmt.body.items, loop->forstmt.body.len,
              loop->forstmt.target->name.sym->var, true);
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    emit_line(em, "}");
    strip_copy(em, sp, loop, false);
    em->indent--;
    emit_line(em, "}");
}

/* An interchanged loop: the loop outside, a thread loop over its body
 * inside (a thread's iterations still in order); the strip form where it
 * applies. */
static void interchanged(Emitter *em, Split *sp, const Node *s)
{
    const Var *k = s->forstmt.target->name.sym->var;
    bool own = jit_loop_local(sp->inst, s);
    if (own)
        sp->own[sp->nown++] = k;
    bool strip = jit_strip(sp->inst, s);
    if (strip) {
        emit_line(em, "if (ufn_t.bdim.x %% %d == 0 && ufn_nt %% %d == 0) {", STRIP_LANES, STRIP_LANES * STRIP_ROWS);
        em->indent++;
        strip_loop(em, sp, s);
        em->indent--;
        emit_line(em, "} else {");
        em->indent++;
    }
    uniform_for(em, s, "ufn_v", 0);
    em->indent++;
    emit_line(em, "/* interchanged: this loop outside, the threads inside */");
    thread_loop(em, sp, (const Node *const *)s->forstmt.body.items, s->forstmt.body.len, k);
    em->indent--;
    emit_line(em, "}");
    if (strip) {
        em->indent--;
        emit_line(em, "}");
    }
    sp->nown -= own;
}

/* A region: runs of statements as thread loops, and each loop that
 * jit_interchange allows turned inside out - the loop outside, a thread
 * loop over its body inside (a thread's iterations still in order). */
static void split_region(Emitter *em, Split *sp, const NodeList *b, int from, int to)
{
    int run = from;
    for (int i = from; i <= to; i++) {
        const Node *s = i < to ? b->items[i] : NULL;
        if (s && !jit_interchange(sp->inst, s))
            continue;
        if (run < i)
            thread_loop(em, sp, (const Node *const *)&b->items[run], i - run, NULL);
        run = i + 1;
        if (!s)
            break;
        interchanged(em, sp, s);
    }
}

static void split_block(Emitter *em, Split *sp, const NodeList *b)
{
    int start = 0;
    for (int i = 0; i <= b->len; i++) {
        const Node *s = i < b->len ? b->items[i] : NULL;
        if (s && !jit_is_barrier(s) && !jit_has_barrier(s))
            continue;
        if (start < i)
            split_region(em, sp, b, start, i);
        start = i + 1;
        if (!s)
            break;
        if (jit_is_barrier(s)) {
            line_directive(em, s->loc);
            emit_line(em, "/* syncthreads(): every thread has run the region above */");
            continue;
        }
        if (jit_warp_call(s)) {
            warp_step(em, sp, s, jit_warp_call(s));
            continue;
        }
        /* a barrier loop: its counter is the block's, its body split again */
        int d = sp->depth;
        if (d >= 16)
            die("barrier loops nested too deeply");
        bool tuple = s->forstmt.iter->type && s->forstmt.iter->type->kind == TY_TUPLE;
        if (tuple)
            uniform_tuple_for(em, s, d);
        else
            uniform_for(em, s, "ufn_u", d);
        em->indent++;
        sp->vals[sp->depth] = tuple ? arena_printf("ufn_uin%d", d) : NULL;
        sp->vars[sp->depth++] = s->forstmt.target->name.sym->var;
        bool own = jit_loop_local(sp->inst, s);
        if (own)
            sp->own[sp->nown++] = s->forstmt.target->name.sym->var;
        split_block(em, sp, &s->forstmt.body);
        sp->nown -= own;
        sp->depth--;
        em->indent--;
        emit_line(em, "}");
        if (tuple) {
            em->indent--;
            emit_line(em, "}");
        }
    }
}

/* NAME__blocks_baseline, _avx2 and _avx512: the runner NAME__run built
 * for each ISA (UFN_RUNNER_VARIANTS, emit_jit_kernels), which the host
 * stub's table lists (emit_kernel_host.c). */
static void runner_variants(Emitter *em, const char *kname)
{
    emit_line(em, "UFN_RUNNER_VARIANTS(%s, %s)", sim_c_symbol(kname, "run"), sim_c_symbol(kname, "blocks"));
}

/* The code of a split runner: the parameters, the shared arrays, the
 * context, and per block the regions. */
static void split_code(Emitter *em, const Instance *inst)
{
    const char *ctx = jit_context(inst);
    emit_line(em, "ufn_kthread ufn_t;");
    emit_line(em, "ufn_t.gdim = make_uint3(ufn_b->grid[0], ufn_b->grid[1], ufn_b->grid[2]);");
    emit_line(em, "ufn_t.bdim = make_uint3(ufn_b->block[0], ufn_b->block[1], ufn_b->block[2]);");
    emit_line(em, "ufn_t.tid = make_uint3(0, 0, 0);   /* each thread loop's ufn_tl has the thread's */");
    /* never taken (the runtime refuses such blocks, CUDA's limits): it tells
     * the C compiler that a thread index fits an int32, so that tx, an index
     * through it and its wrap-around are affine in the lane and vectorise */
    emit_line(em, "if (ufn_t.bdim.x > 1024 || ufn_t.bdim.y > 1024 || ufn_t.bdim.z > 64)");
    emit_line(em, "    return;");
    emit_line(em, "const uint32_t ufn_nt = ufn_t.bdim.x * ufn_t.bdim.y * ufn_t.bdim.z;");
    emit_line(em, "/* the context as arrays, a local's values of consecutive threads side by side */");
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        if (in_context(inst, v))
            emit_line(em, "%s *ufn_c_%s = (%s *)(void *)(ufn_b->ctx + offsetof(%s, %s) * ufn_nt);", c_type(v->type),
                      v->cname, c_type(v->type), ctx, v->cname);
    }
    emit_line(em, "for (uint64_t ufn_blk = ufn_b->first; ufn_blk < ufn_b->end; ufn_blk++) {");
    em->indent++;
    emit_line(em, "ufn_t.bid = make_uint3((unsigned)(ufn_blk %% ufn_b->grid[0]), (unsigned)(ufn_blk / ufn_b->grid[0] %% ufn_b->grid[1]),");
    emit_line(em, "                       (unsigned)(ufn_blk / ufn_b->grid[0] / ufn_b->grid[1]));");
    emit_line(em, "memset(ufn_b->ctx, 0, sizeof(%s) * ufn_nt);   /* every local starts at zero */", ctx);
    Split sp = {.inst = inst};
    split_block(em, &sp, &inst->body);
    em->indent--;
    emit_line(em, "}");
}

static void load_params(Emitter *em, const KernelParam *params, int n)
{
    for (int i = 0; i < n; i++)
        emit_line(em, "%s = *(%s *)ufn_p[%d];", c_declaration(params[i].type, params[i].name), params[i].type, i);
}

/* Does the runner's code depend on the arrays' extents being small?  Then
 * it gets a copy for any extents. */
static bool needs_wide_copy(Emitter *em, const Instance *inst)
{
    Buf small = {0}, wide = {0};
    Buf *saved = em->out;
    int indent = em->indent;
    em->out = &small;
    em->small_extents = true;
    split_code(em, inst);
    em->out = &wide;
    em->small_extents = false;
    split_code(em, inst);
    em->out = saved;
    em->indent = indent;
    bool differ = strcmp(small.data, wide.data) != 0;
    buf_free(&small);
    buf_free(&wide);
    return differ;
}

/* Form (a) with regions: the locals per thread in the context.  Its
 * indices are plain arithmetic where jit_index_plain bounds them; where
 * that takes every array's extents below UFN_SMALL_EXTENT, the runner
 * checks them and runs a copy without that premise when they are not. */
static void split_runner(Emitter *em, const Instance *inst, const char *kname, const KernelParam *params, int n)
{
    emit_line(em, "#if defined(UFN_HOST_ENTRY)");
    emit_jit_context(em, inst);
    em->bounds = inst;
    bool wide = needs_wide_copy(em, inst);
    const char *any = arena_printf("%s_any", sim_c_symbol(kname, "run"));
    if (wide) {
        emit_line(em, "/* the block runner below for arrays of any extents */");
        emit_line(em, "UFN_RUNNER void %s(void **ufn_p, const ufn_kblocks *ufn_b)", any);
        emit_line(em, "{");
        em->indent++;
        load_params(em, params, n);
        emit_array_storage(em, inst, true);
        em->small_extents = false;
        split_code(em, inst);
        em->indent--;
        line_reset(em);
        emit_line(em, "}");
    }
    emit_line(em, "/* the host's block runner, split at the barriers: each region for every thread in turn */");
    emit_line(em, "UFN_RUNNER void %s(void **ufn_p, const ufn_kblocks *ufn_b)", sim_c_symbol(kname, "run"));
    emit_line(em, "{");
    em->indent++;
    load_params(em, params, n);
    if (wide) {
        Buf cond = {0};
        for (int i = 0; i < inst->nvars; i++) {
            const Var *v = inst->vars[i];
            if (v->param && v->type && v->type->kind == TY_ARRAY)
                for (int d = 0; d < v->type->ndim; d++)
                    buf_printf(&cond, "%s%s.shape[%d] >= ((int64_t)1 << %d)", cond.len ? " || " : "", v->cname, d,
                               UFN_SMALL_EXTENT_BITS);
        }
        emit_line(em, "if (%s) {   /* indices below assume smaller extents */", cond.data ? cond.data : "0");
        emit_line(em, "    %s(ufn_p, ufn_b);", any);
        emit_line(em, "    return;");
        emit_line(em, "}");
        buf_free(&cond);
    }
    /* static shared arrays at the offsets the kernel itself uses */
    emit_array_storage(em, inst, true);
    em->small_extents = wide;
    split_code(em, inst);
    em->small_extents = false;
    em->bounds = NULL;
    em->indent--;
    line_reset(em);
    emit_line(em, "}");
    runner_variants(em, kname);
    emit_line(em, "#endif");
}

/* Form (a): the threads of each block in turn, as loops around the body;
 * `fallback`: the grid-stride runner's form for 2-d and 3-d launches. */
static void plain_runner(Emitter *em, const char *kname, const char *body, const KernelParam *params, int n,
                         bool fallback)
{
    Buf call = {0};
    for (int i = 0; i < n; i++)
        buf_printf(&call, ", %s", params[i].name);
    emit_line(em, "/* the host's block runner: the threads of each block in turn */");
    if (fallback)
        emit_line(em, "static void %s(void **ufn_p, const ufn_kblocks *ufn_b)", sim_c_symbol(kname, "threads"));
    else
        emit_line(em, "UFN_RUNNER void %s(void **ufn_p, const ufn_kblocks *ufn_b)", sim_c_symbol(kname, "run"));
    emit_line(em, "{");
    em->indent++;
    for (int i = 0; i < n; i++)
        emit_line(em, "%s = *(%s *)ufn_p[%d];", c_declaration(params[i].type, params[i].name), params[i].type, i);
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
    buf_free(&call);
}

/* Form (a) for a grid-stride kernel (kernel_uses.c): the uniform
 * statements before the loop, then for each stride k the iterations of
 * the runner's blocks as one loop over consecutive i (the threads' k-th),
 * so a thread's run in their order, each iteration with
 * fresh locals (none is read before the iteration assigns it).  Without
 * atomics `omp simd` may run iterations of distinct threads at once, as
 * CUDA's unordered threads allow. */
static void stride_runner(Emitter *em, const Instance *inst, const char *kname, const KernelParam *params, int n)
{
    const Node *loop = jit_grid_stride(inst);
    const NodeList *b = &inst->body;
    const Var *target = loop->forstmt.target->name.sym->var;
    emit_line(em, "/* the host's block runner, grid-stride form: per stride, the blocks' iterations as one loop over i */");
    emit_line(em, "UFN_RUNNER void %s(void **ufn_p, const ufn_kblocks *ufn_b)", sim_c_symbol(kname, "run"));
    emit_line(em, "{");
    em->indent++;
    emit_line(em, "if (ufn_b->grid[1] != 1 || ufn_b->grid[2] != 1 || ufn_b->block[1] != 1 || ufn_b->block[2] != 1) {");
    emit_line(em, "    %s(ufn_p, ufn_b);   /* grid(1) repeats along y and z */", sim_c_symbol(kname, "threads"));
    emit_line(em, "    return;");
    emit_line(em, "}");
    for (int i = 0; i < n; i++)
        emit_line(em, "%s = *(%s *)ufn_p[%d];", c_declaration(params[i].type, params[i].name), params[i].type, i);
    emit_line(em, "ufn_kthread ufn_t;");
    emit_line(em, "ufn_t.gdim = make_uint3(ufn_b->grid[0], 1, 1);");
    emit_line(em, "ufn_t.bdim = make_uint3(ufn_b->block[0], 1, 1);");
    emit_line(em, "ufn_t.tid = ufn_t.bid = make_uint3(0, 0, 0);   /* the loop reads neither */");
    int nprefix = 0;
    for (int i = 0; i < b->len && b->items[i] != loop; i++, nprefix++)
        if (jit_grid_stride_uniform(b->items[i])) {
            const Var *v = b->items[i]->assign.targets.items[0]->name.sym->var;
            emit_line(em, "%s %s = %s;", c_type(v->type), v->cname, zero_of(v->type));
        }
    for (int i = 0; i < nprefix; i++)
        if (jit_grid_stride_uniform(b->items[i]))
            emit_statement(em, b->items[i]);
    line_reset(em);
    Buf end = {0};
    Buf *saved = em->out;
    em->out = &end;
    emit_expr(em, loop->forstmt.iter->call.args.items[1]);
    em->out = saved;
    emit_line(em, "const int64_t ufn_gstep = (int64_t)ufn_t.bdim.x * ufn_t.gdim.x, ufn_gend = %s;", end.data);
    emit_line(em, "const int64_t ufn_gspan = (int64_t)(ufn_b->end - ufn_b->first) * ufn_t.bdim.x;");
    buf_free(&end);
    emit_line(em, "for (int64_t ufn_g0 = (int64_t)ufn_b->first * ufn_t.bdim.x; ufn_g0 < ufn_gend; ufn_g0 += ufn_gstep) {");
    em->indent++;
    emit_line(em, "const int64_t ufn_g1 = ufn_gend - ufn_g0 < ufn_gspan ? ufn_gend : ufn_g0 + ufn_gspan;");
    if (!(jit_flags(inst) & UFN_KF_ATOMIC))
        emit_line(em, "_Pragma(\"omp simd\")");
    emit_line(em, "for (int64_t ufn_gi = ufn_g0; ufn_gi < ufn_g1; ufn_gi++) {");
    em->indent++;
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        bool prefix = false;
        for (int k = 0; k < nprefix; k++)
            prefix = prefix || b->items[k]->assign.targets.items[0]->name.sym->var == v;
        if (v->param || !v->type || prefix)
            continue;
        emit_line(em, "%s %s = %s;", c_type(v->type), v->cname, zero_of(v->type));
    }
    emit_line(em, "%s = (%s)ufn_gi;", target->cname, c_type(target->type));
    for (int i = 0; i < loop->forstmt.body.len; i++)
        emit_statement(em, loop->forstmt.body.items[i]);
    line_reset(em);
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    emit_line(em, "}");
    em->indent--;
    emit_line(em, "}");
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
              jit_context(inst) && (jit_flags(inst) & UFN_KF_WARP)
                  ? " (host: a block runner split at its barriers and warp functions, each warp's lanes in lock-step)"
              : jit_context(inst)           ? " (host: a block runner split at its barriers)"
              : jit_grid_stride(inst)      ? " (host: a block runner, grid-stride form)"
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
    } else if (jit_grid_stride(inst)) {
        em->coords = "ufn_t";
        emit_line(em, "#if defined(UFN_HOST_ENTRY)");
        plain_runner(em, kname, body, params, n, true);
        stride_runner(em, inst, kname, params, n);
        runner_variants(em, kname);
        emit_line(em, "#endif");
        em->coords = NULL;
    } else if (jit_has_block_runner(inst)) {
        emit_line(em, "#if defined(UFN_HOST_ENTRY)");
        plain_runner(em, kname, body, params, n, false);
        runner_variants(em, kname);
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
    emit_line(em, "#if defined(UFN_HOST_ENTRY)");
    emit_line(em, "/* Each block runner is built for the baseline, AVX2 and AVX-512; libufnrt");
    emit_line(em, " * picks one by the CPU (UFN_HOST_ISA overrides), as for the ufuncs' loops. */");
    emit_line(em, "#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))");
    emit_line(em, "#define UFN_RUNNER static inline __attribute__((always_inline))");
    emit_line(em, "#define UFN_RUNNER_VARIANTS(run, name) \\");
    emit_line(em, "    void name##_baseline(void **p, const ufn_kblocks *b) { run(p, b); } \\");
    emit_line(em, "    __attribute__((target(\"avx2,fma\"))) void name##_avx2(void **p, const ufn_kblocks *b) { run(p, b); } \\");
    emit_line(em, "    __attribute__((target(\"avx512f,avx512dq,avx512vl,avx512bw,avx2,fma\"))) \\");
    emit_line(em, "    void name##_avx512(void **p, const ufn_kblocks *b) { run(p, b); }");
    emit_line(em, "#else");
    emit_line(em, "#define UFN_RUNNER static inline");
    emit_line(em, "#define UFN_RUNNER_VARIANTS(run, name) void name##_baseline(void **p, const ufn_kblocks *b) { run(p, b); }");
    emit_line(em, "#endif");
    emit_line(em, "#endif");
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
