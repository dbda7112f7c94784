/* cuda_stage.c - host memory through a pinned staging ring.
 *
 * A ufunc over host arrays, and a large copy between pageable host memory
 * and the device, go through pinned buffers in chunks, on NSLOTS streams
 * (perf.md 2.2).  Chunk c uses slot c % NSLOTS; while the device copies
 * chunk c in, runs its kernel and copies it out on the slot's stream, the
 * host packs chunk c+1 into the next slot and unpacks the results of the
 * chunk that slot held before.  So copy-in, compute and copy-out of
 * different chunks overlap, and the host's packing overlaps them all.
 *
 *   pack     gathers the chunk's elements of each input, whatever its strides
 *            (broadcast, negative, non-contiguous), into a dense region of the
 *            slot's pinned buffer; gufunc operands are packed iteration by
 *            iteration, each iteration's core block C-contiguous
 *   compute  the contiguous kernel on the dense regions (a gufunc's kernel
 *            with dense strides)
 *   unpack   scatters each output region back into the caller's array
 *
 * A staging ring (cuda_stager) belongs to one device; idle rings wait in the
 * device's list, so concurrent calls each take their own.  Slot buffers grow
 * to the largest chunk seen and stay allocated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudrv.h"

#define NSLOTS 3
#define DEFAULT_STAGE ((size_t)16 << 20)
#define DIRECT_COPY ((size_t)1 << 20)   /* smaller copies skip the ring */
#define REGION_ALIGN 256
#define MIN_SLOT ((size_t)64 << 10)

typedef struct slot {
    CUstream stream;
    CUevent done;            /* recorded after the slot's last operation */
    unsigned char *pinned;
    size_t pinned_cap;
    CUdeviceptr dev;
    size_t dev_cap;
    bool busy;               /* work queued; results not yet taken */
    int64_t off, count;      /* the chunk in flight (plans) */
    void *dst;               /* where its bytes go (device-to-host copies) */
    size_t bytes;
} slot;

struct cuda_stager {
    cuda_stager *next;
    slot slots[NSLOTS];
    CUevent upstream;        /* work queued before a copy, on the caller's stream */
};

static size_t stage_override;        /* the test hook's value, 0 for none */
static size_t stage_default = DEFAULT_STAGE;
static pthread_once_t stage_once = PTHREAD_ONCE_INIT;
static char stage_error[128];

static void read_stage_env(void)
{
    const char *env = getenv("UFN_STAGE_BYTES");
    if (!env || !*env)
        return;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    if (!*end && !errno && *env != '-' && v >= 4096 && v <= ((size_t)1 << 40))
        stage_default = (size_t)v;
    else
        snprintf(stage_error, sizeof stage_error,
                 "UFN_STAGE_BYTES=%.40s is not a number of bytes (4096 to 2^40)", env);
}

const char *ufn_stage_config_error(void)
{
    pthread_once(&stage_once, read_stage_env);
    return stage_error[0] ? stage_error : NULL;
}

void ufn_cuda_set_stage_bytes(size_t bytes)
{
    __atomic_store_n(&stage_override, bytes, __ATOMIC_RELAXED);
}

size_t ufn_cuda_stage_bytes(void)
{
    size_t n = __atomic_load_n(&stage_override, __ATOMIC_RELAXED);
    if (n)
        return n;
    pthread_once(&stage_once, read_stage_env);
    return stage_default;
}

static size_t align_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

/* ---- rings and slots ------------------------------------------------------------- */

static void slot_free(cuda_backend *b, cuda_device *d, slot *s)
{
    if (s->pinned) {
        b->drv->cuMemFreeHost(s->pinned);
        cuda_trace(b, UFN_EV_FREE, "pinned", s->pinned_cap, d->ordinal);
    }
    if (s->dev)
        cuda_cache_free(b, d, s->dev, s->stream);
    if (s->stream)
        b->drv->cuStreamDestroy(s->stream);
    if (s->done)
        b->drv->cuEventDestroy(s->done);
    memset(s, 0, sizeof *s);
}

static void stager_free(cuda_backend *b, cuda_device *d, cuda_stager *st)
{
    for (int i = 0; i < NSLOTS; i++)
        slot_free(b, d, &st->slots[i]);
    if (st->upstream)
        b->drv->cuEventDestroy(st->upstream);
    free(st);
}

/* An idle ring of device d (entered), or a new one. */
static int stager_get(cuda_backend *b, cuda_device *d, cuda_stager **out)
{
    pthread_mutex_lock(&d->lock);
    cuda_stager *st = d->idle;
    if (st)
        d->idle = st->next;
    pthread_mutex_unlock(&d->lock);
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st)
            return ufn_fail(UFN_ERR_NOMEM, "out of memory for a staging ring");
        CUresult r = b->drv->cuEventCreate(&st->upstream, CU_EVENT_DISABLE_TIMING);
        if (r == CUDA_SUCCESS && !st->upstream)
            r = UFN_CUDA_NO_RESULT;
        if (r != CUDA_SUCCESS) {
            free(st);
            return ufn_cudrv_fail(b->drv, r, "cuEventCreate");
        }
    }
    st->next = NULL;
    *out = st;
    return 0;
}

static void stager_put(cuda_device *d, cuda_stager *st)
{
    pthread_mutex_lock(&d->lock);
    st->next = d->idle;
    d->idle = st;
    pthread_mutex_unlock(&d->lock);
}

void cuda_stage_release(cuda_backend *b, cuda_device *d)
{
    pthread_mutex_lock(&d->lock);
    cuda_stager *list = d->idle;
    d->idle = NULL;
    pthread_mutex_unlock(&d->lock);
    while (list) {
        cuda_stager *next = list->next;
        stager_free(b, d, list);
        list = next;
    }
}

/* Make the slot ready for a chunk of `pinned` host and `dev` device bytes. */
static int slot_reserve(cuda_backend *b, cuda_device *d, slot *s, size_t pinned, size_t dev)
{
    const ufn_cudrv *drv = b->drv;
    CUresult r;
    if (!s->stream) {
        r = drv->cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING);
        if (r == CUDA_SUCCESS && !s->stream)
            r = UFN_CUDA_NO_RESULT;
        if (r != CUDA_SUCCESS) {
            s->stream = NULL;
            return ufn_cudrv_fail(drv, r, "cuStreamCreate (staging)");
        }
    }
    if (!s->done) {
        r = drv->cuEventCreate(&s->done, CU_EVENT_DISABLE_TIMING);
        if (r == CUDA_SUCCESS && !s->done)
            r = UFN_CUDA_NO_RESULT;
        if (r != CUDA_SUCCESS) {
            s->done = NULL;
            return ufn_cudrv_fail(drv, r, "cuEventCreate (staging)");
        }
    }
    if (pinned > s->pinned_cap) {
        size_t cap = align_up(pinned > MIN_SLOT ? pinned : MIN_SLOT, MIN_SLOT);
        if (s->pinned) {
            drv->cuMemFreeHost(s->pinned);
            cuda_trace(b, UFN_EV_FREE, "pinned", s->pinned_cap, d->ordinal);
            s->pinned = NULL;
            s->pinned_cap = 0;
        }
        void *p = NULL;
        r = drv->cuMemAllocHost(&p, cap);
        if (r == CUDA_SUCCESS && !p)
            r = UFN_CUDA_NO_RESULT;
        if (r != CUDA_SUCCESS)
            return ufn_cudrv_fail(drv, r, "cuMemAllocHost(%zu bytes) for staging", cap);
        s->pinned = p;
        s->pinned_cap = cap;
        cuda_trace(b, UFN_EV_ALLOC, "pinned", cap, d->ordinal);
    }
    if (dev > s->dev_cap) {
        size_t cap = align_up(dev > MIN_SLOT ? dev : MIN_SLOT, MIN_SLOT);
        if (s->dev) {
            cuda_cache_free(b, d, s->dev, s->stream);
            s->dev = 0;
            s->dev_cap = 0;
        }
        int status = cuda_cache_alloc(b, d, cap, s->stream, &s->dev);
        if (status)
            return status;
        s->dev_cap = cap;
    }
    return 0;
}

/* After a failure: wait for whatever is queued on the ring's streams, drop
 * the results.  Every stream, not only the busy slots': a chunk that failed
 * half-way (its inputs queued, its launch or event refused) is not marked
 * busy, and its copies still read the pinned buffer that the ring's next
 * user will pack into. */
static void abandon(cuda_backend *b, cuda_stager *st)
{
    for (int i = 0; i < NSLOTS; i++) {
        if (st->slots[i].stream)
            b->drv->cuStreamSynchronize(st->slots[i].stream);
        st->slots[i].busy = false;
    }
}

/* ---- moving elements --------------------------------------------------------------- */

/* n elements of `size` bytes from src (step sstep bytes) to dst (dstep). */
static void copy_strided(unsigned char *dst, ptrdiff_t dstep, const unsigned char *src,
                         ptrdiff_t sstep, int64_t n, size_t size)
{
    if (dstep == (ptrdiff_t)size && sstep == (ptrdiff_t)size) {
        memcpy(dst, src, (size_t)n * size);
        return;
    }
    switch (size) {
#define COPY(bytes)                                              \
    case bytes:                                                  \
        for (int64_t i = 0; i < n; i++, dst += dstep, src += sstep) \
            memcpy(dst, src, bytes);                             \
        return;
        COPY(1)
        COPY(2)
        COPY(4)
        COPY(8)
        COPY(16)
#undef COPY
    default:
        for (int64_t i = 0; i < n; i++, dst += dstep, src += sstep)
            memcpy(dst, src, size);
    }
}

/* One operand's layout in the staged (dense) form. */
typedef struct staged {
    int ncore;
    int64_t core_shape[UFN_KMAXCORE];
    int64_t core_elems;      /* elements per iteration */
    size_t per_iter;         /* bytes per iteration */
    size_t offset;           /* of its region in the slot buffers */
    bool scalar;             /* an input broadcast to every iteration: by value */
} staged;

/* A core block between the dense buffer and the caller's array. */
static void move_core(bool gather, unsigned char *buf, unsigned char *host, const staged *o,
                      const int64_t *core_strides, size_t size)
{
    int nd = o->ncore;
    int64_t idx[UFN_KMAXCORE] = { 0 };
    int64_t inner = o->core_shape[nd - 1];
    ptrdiff_t step = (ptrdiff_t)(core_strides[nd - 1] * (int64_t)size);
    for (;;) {
        int64_t off = 0;
        for (int j = 0; j < nd - 1; j++)
            off += idx[j] * core_strides[j];
        unsigned char *h = host + off * (int64_t)size;
        if (gather)
            copy_strided(buf, (ptrdiff_t)size, h, step, inner, size);
        else
            copy_strided(h, step, buf, (ptrdiff_t)size, inner, size);
        buf += (size_t)inner * size;
        int j = nd - 2;
        while (j >= 0 && ++idx[j] == o->core_shape[j])
            idx[j--] = 0;
        if (j < 0)
            return;
    }
}

/* Iterations [off, off+count) of operand k between the dense buffer and the
 * caller's array (gather: into the buffer). */
static void move_chunk(bool gather, const ufn_plan *p, int k, const staged *o,
                       unsigned char *buf, int64_t off, int64_t count)
{
    int nd = p->ndim > 0 ? p->ndim : 1;
    const int64_t one = 1;
    const int64_t *shape = p->ndim > 0 ? p->shape : &one;
    const int64_t zero[1] = { 0 };
    const int64_t *strides = p->ndim > 0 ? p->strides[k] : zero;
    size_t size = (size_t)p->elsize[k];
    if (o->core_elems == 0)
        return;

    int64_t idx[UFN_MAXDIMS];
    for (int dim = nd - 1; dim >= 0; dim--) {
        idx[dim] = off % shape[dim];
        off /= shape[dim];
    }
    ptrdiff_t step = (ptrdiff_t)(strides[nd - 1] * (int64_t)size);
    while (count > 0) {
        int64_t run = shape[nd - 1] - idx[nd - 1];
        if (run > count)
            run = count;
        int64_t eoff = 0;
        for (int dim = 0; dim < nd; dim++)
            eoff += idx[dim] * strides[dim];
        unsigned char *host = (unsigned char *)p->data[k] + eoff * (int64_t)size;
        if (o->ncore == 0) {
            if (gather)
                copy_strided(buf, (ptrdiff_t)size, host, step, run, size);
            else
                copy_strided(host, step, buf, (ptrdiff_t)size, run, size);
        } else {
            for (int64_t i = 0; i < run; i++)
                move_core(gather, buf + (size_t)i * o->per_iter, host + i * step, o,
                          p->core_strides[k], size);
        }
        buf += (size_t)run * o->per_iter;
        count -= run;
        idx[nd - 1] += run;
        for (int dim = nd - 1; dim > 0 && idx[dim] == shape[dim]; dim--) {
            idx[dim] = 0;
            idx[dim - 1]++;
        }
    }
}

/* ---- plans over host arrays ------------------------------------------------------------ */

typedef struct job {
    const ufn_plan *p;
    cuda_kernel *kernel;
    bool gufunc, contig;
    int nin;
    staged op[UFN_MAXARGS];
    size_t region;           /* bytes of one chunk, all operands */
} job;

/* Wait for the slot's chunk and scatter its outputs. */
static int slot_finish(cuda_backend *b, const job *j, slot *s)
{
    if (!s->busy)
        return 0;
    s->busy = false;
    CUresult r = b->drv->cuEventSynchronize(s->done);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuEventSynchronize (staging)");
    if (j)
        for (int k = j->nin; k < j->p->nargs; k++)
            move_chunk(false, j->p, k, &j->op[k], s->pinned + j->op[k].offset, s->off, s->count);
    return 0;
}

static int run_chunk(cuda_backend *b, cuda_device *d, const job *j, slot *s, int64_t off,
                     int64_t count)
{
    const ufn_cudrv *drv = b->drv;
    const ufn_plan *p = j->p;
    for (int k = 0; k < j->nin; k++)
        if (!j->op[k].scalar)
            move_chunk(true, p, k, &j->op[k], s->pinned + j->op[k].offset, off, count);
    for (int k = 0; k < j->nin; k++) {
        size_t bytes = (size_t)count * j->op[k].per_iter;
        if (bytes == 0 || j->op[k].scalar)
            continue;
        uint64_t t0 = ufn_trace_clock();
        CUresult r = drv->cuMemcpyHtoDAsync(s->dev + j->op[k].offset, s->pinned + j->op[k].offset,
                                            bytes, s->stream);
        if (r != CUDA_SUCCESS)
            return ufn_cudrv_fail(drv, r, "cuMemcpyHtoDAsync(%zu bytes, staging)", bytes);
        cuda_trace_since(b, UFN_EV_H2D, p->func->name, bytes, d->ordinal, t0);
    }

    cuda_params a;
    cuda_params_init(&a, j->gufunc ? CUDA_GUFUNC : j->contig ? CUDA_CONTIG : CUDA_STRIDED,
                     p->nargs);
    a.n = a.it.n = a.it.shape[0] = (uint32_t)count;
    a.it.ndim = 1;
    for (int c = 0; j->gufunc && c < p->ncore; c++)
        a.core.dim[c] = p->core_size[c];
    for (int k = 0; k < p->nargs; k++) {
        if (j->op[k].scalar) {
            cuda_params_by_value(&a, k, p->data[k], p->elsize[k]);
            continue;
        }
        a.ptr[k] = (void *)(uintptr_t)(s->dev + j->op[k].offset);
        a.loop[k].s[0] = j->op[k].core_elems;
        int64_t stride = 1;   /* each iteration's core block is C-contiguous */
        for (int c = j->op[k].ncore - 1; c >= 0; c--) {
            a.cstr[k].s[c] = stride;
            stride *= j->op[k].core_shape[c];
        }
    }
    int status = cuda_launch(b, d, j->kernel, a.n, a.params, s->stream);
    if (status)
        return status;

    for (int k = j->nin; k < p->nargs; k++) {
        size_t bytes = (size_t)count * j->op[k].per_iter;
        if (bytes == 0)
            continue;
        uint64_t t0 = ufn_trace_clock();
        CUresult r = drv->cuMemcpyDtoHAsync(s->pinned + j->op[k].offset, s->dev + j->op[k].offset,
                                            bytes, s->stream);
        if (r != CUDA_SUCCESS)
            return ufn_cudrv_fail(drv, r, "cuMemcpyDtoHAsync(%zu bytes, staging)", bytes);
        cuda_trace_since(b, UFN_EV_D2H, p->func->name, bytes, d->ordinal, t0);
    }
    CUresult r = drv->cuEventRecord(s->done, s->stream);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(drv, r, "cuEventRecord (staging)");
    s->busy = true;
    s->off = off;
    s->count = count;
    return 0;
}

/* The dense layout of every operand, and the iterations of one chunk. */
static int64_t plan_job(job *j, const ufn_plan *p)
{
    const ufn_func *f = p->func;
    j->p = p;
    j->gufunc = f->layout != NULL;
    j->contig = !j->gufunc && p->loop->kernel_contig != NULL;
    j->nin = f->nin;
    size_t per_iter = 0;
    int first = 0;   /* index of operand k's first core dimension in f->core_dims */
    for (int k = 0; k < p->nargs; k++) {
        staged *o = &j->op[k];
        memset(o, 0, sizeof *o);
        o->core_elems = 1;
        if (j->gufunc) {
            o->ncore = p->core_ndim[k];
            for (int c = 0; c < o->ncore; c++) {
                o->core_shape[c] = f->core_dims ? p->core_size[f->core_dims[first + c]] : 0;
                o->core_elems *= o->core_shape[c];
            }
            first += f->core_ndim ? f->core_ndim[k] : o->ncore;
        }
        o->per_iter = (size_t)o->core_elems * (size_t)p->elsize[k];
        /* a ufunc input with stride 0 everywhere (a scalar such as
         * gaussian_pdf(x, 0.0, 1.0)) does not cross the bus at all: the
         * strided kernel gets it by value */
        o->scalar = !j->gufunc && k < j->nin && p->n > 1;
        for (int dim = 0; dim < p->ndim && o->scalar; dim++)
            o->scalar = p->strides[k][dim] == 0 || p->shape[dim] == 1;
        if (o->scalar)
            j->contig = false;
        else
            per_iter += o->per_iter;
    }
    int64_t m = per_iter ? (int64_t)(ufn_cuda_stage_bytes() / per_iter) : p->n;
    if (m < 1)
        m = 1;
    if (m > p->n)
        m = p->n;
    if (m > ufn_cuda_split_limit() - 1)
        m = ufn_cuda_split_limit() - 1;
    size_t offset = 0;
    for (int k = 0; k < p->nargs; k++) {
        j->op[k].offset = offset;
        offset += j->op[k].scalar ? 0 : align_up((size_t)m * j->op[k].per_iter, REGION_ALIGN);
    }
    j->region = offset;
    return m;
}

int cuda_execute_host(cuda_backend *b, const ufn_plan *p)
{
    const char *name = p->func && p->func->name ? p->func->name : "ufunc";
    if (!p->func || !p->loop || p->nargs < 1 || p->nargs > UFN_MAXARGS || p->ndim < 0 ||
        p->ndim > UFN_MAXDIMS || p->func->nin > p->nargs ||
        (p->func->layout && p->ncore > UFN_KMAXCORE))
        return ufn_fail(UFN_ERR_INVALID, "%s: a malformed plan", name);
    if (p->n == 0)
        return 0;
    job j;
    int64_t m = plan_job(&j, p);
    const char *kname = j.contig ? p->loop->kernel_contig : p->loop->kernel_strided;

    cuda_device *d;
    int status = cuda_enter_device(b, p->device, &d);
    if (status)
        return status;
    cuda_stager *st = NULL;
    status = cuda_kernel_get(b, d, p->func->module, kname, &j.kernel);
    if (status == 0)
        status = stager_get(b, d, &st);
    if (status) {
        cuda_leave(b);
        return status;
    }
    int64_t c = 0;
    for (int64_t off = 0; off < p->n && status == 0; off += m, c++) {
        slot *s = &st->slots[c % NSLOTS];
        int64_t count = p->n - off < m ? p->n - off : m;
        status = slot_finish(b, &j, s);
        if (status == 0)
            status = slot_reserve(b, d, s, j.region, j.region);
        if (status == 0)
            status = run_chunk(b, d, &j, s, off, count);
    }
    for (int i = 0; i < NSLOTS && status == 0; i++)
        status = slot_finish(b, &j, &st->slots[(c + i) % NSLOTS]);
    if (status == 0)
        status = cuda_depth_check(b, j.kernel, NULL, name);
    if (status)
        abandon(b, st);
    stager_put(d, st);
    cuda_leave(b);
    return status;
}

/* ---- copies of pageable host memory ------------------------------------------------------ */

/* Make the ring's streams wait for the work queued on `after` so far. */
static int follow(cuda_backend *b, cuda_stager *st, CUstream after)
{
    CUresult r = b->drv->cuEventRecord(st->upstream, after);
    for (int i = 0; i < NSLOTS && r == CUDA_SUCCESS; i++)
        if (st->slots[i].stream)
            r = b->drv->cuStreamWaitEvent(st->slots[i].stream, st->upstream, 0);
    return r == CUDA_SUCCESS ? 0 : ufn_cudrv_fail(b->drv, r, "cuStreamWaitEvent (staging)");
}

/* Finish a device-to-host chunk: wait, then copy it out of pinned memory. */
static int copy_finish(cuda_backend *b, slot *s)
{
    if (!s->busy)
        return 0;
    s->busy = false;
    CUresult r = b->drv->cuEventSynchronize(s->done);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuEventSynchronize (staging)");
    if (s->dst)
        memcpy(s->dst, s->pinned, s->bytes);
    return 0;
}

static int staged_copy(cuda_backend *b, cuda_device *d, bool h2d, void *host, CUdeviceptr dev,
                       size_t bytes, CUstream after)
{
    const ufn_cudrv *drv = b->drv;
    cuda_stager *st;
    int status = stager_get(b, d, &st);
    if (status)
        return status;
    size_t chunk = ufn_cuda_stage_bytes();
    if (chunk > bytes)
        chunk = bytes;
    /* Create the slots' streams first, so that they all follow `after`. */
    for (int i = 0; i < NSLOTS && status == 0; i++)
        status = slot_reserve(b, d, &st->slots[i], 0, 0);
    if (status == 0)
        status = follow(b, st, after);
    size_t off = 0;
    for (int c = 0; off < bytes && status == 0; c++) {
        slot *s = &st->slots[c % NSLOTS];
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        status = copy_finish(b, s);
        if (status == 0)
            status = slot_reserve(b, d, s, len, 0);
        if (status)
            break;
        CUresult r;
        uint64_t t0 = ufn_trace_clock();
        if (h2d) {
            memcpy(s->pinned, (unsigned char *)host + off, len);
            s->dst = NULL;
            r = drv->cuMemcpyHtoDAsync(dev + off, s->pinned, len, s->stream);
        } else {
            s->dst = (unsigned char *)host + off;
            s->bytes = len;
            r = drv->cuMemcpyDtoHAsync(s->pinned, dev + off, len, s->stream);
        }
        if (r == CUDA_SUCCESS)
            r = drv->cuEventRecord(s->done, s->stream);
        if (r != CUDA_SUCCESS) {
            status = ufn_cudrv_fail(drv, r, "%s(%zu bytes, staging)",
                                    h2d ? "cuMemcpyHtoDAsync" : "cuMemcpyDtoHAsync", len);
            break;
        }
        s->busy = true;
        cuda_trace_since(b, h2d ? UFN_EV_H2D : UFN_EV_D2H, NULL, len, d->ordinal, t0);
        off += len;
    }
    for (int i = 0; i < NSLOTS && status == 0; i++)
        status = copy_finish(b, &st->slots[i]);
    if (status)
        abandon(b, st);
    stager_put(d, st);
    return status;
}

/* Is p page-locked host memory (cuMemAllocHost, cuMemHostRegister)?  The
 * driver says so; of pageable memory it knows nothing (an error). */
static bool page_locked(cuda_backend *b, const void *p)
{
    unsigned type = 0;
    CUresult r = b->drv->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                               (CUdeviceptr)(uintptr_t)p);
    return r == CUDA_SUCCESS && type == CU_MEMORYTYPE_HOST;
}

int cuda_stage_h2d(cuda_backend *b, cuda_device *d, CUdeviceptr dst, const void *src,
                   size_t bytes, CUstream after)
{
    if (bytes >= DIRECT_COPY)
        return staged_copy(b, d, true, (void *)src, dst, bytes, after);
    /* From pageable memory the driver copies to its own staging buffer
     * before returning, so the caller may reuse `src` at once.  Page-locked
     * memory it reads only when the copy runs: wait for it then. */
    uint64_t t0 = ufn_trace_clock();
    CUresult r = b->drv->cuMemcpyHtoDAsync(dst, src, bytes, after);
    if (r == CUDA_SUCCESS && page_locked(b, src))
        r = b->drv->cuStreamSynchronize(after);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuMemcpyHtoDAsync(%zu bytes)", bytes);
    cuda_trace_since(b, UFN_EV_H2D, NULL, bytes, d->ordinal, t0);
    return 0;
}

int cuda_stage_d2h(cuda_backend *b, cuda_device *d, void *dst, CUdeviceptr src, size_t bytes,
                   CUstream after)
{
    if (bytes >= DIRECT_COPY)
        return staged_copy(b, d, false, dst, src, bytes, after);
    uint64_t t0 = ufn_trace_clock();
    CUresult r = b->drv->cuMemcpyDtoHAsync(dst, src, bytes, after);
    if (r == CUDA_SUCCESS)
        r = b->drv->cuStreamSynchronize(after);
    if (r != CUDA_SUCCESS)
        return ufn_cudrv_fail(b->drv, r, "cuMemcpyDtoHAsync(%zu bytes)", bytes);
    cuda_trace_since(b, UFN_EV_D2H, NULL, bytes, d->ordinal, t0);
    return 0;
}
