/* build.c - from a checked module to the output files: the generated C,
 * nvcc for the fatbin, cc for the simulator's kernels and the host stub,
 * one relocatable object, the header and the dependency file. */
#include "ufnc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct Build {
    const Options *opt;
    Module *mod;
    const char *tmp;          /* the private directory; tools run inside it */
    const char *nvcc;
    int archs[MAX_ARCHS];     /* --arch, or every one nvcc builds */
    int narchs;
} Build;

/* Run a tool inside the temporary directory, so that no temporary path ends
 * up in an output (two compilations give byte-identical objects). */
static int run_in(Build *b, const char *const *argv)
{
    return run_tool_in(&b->opt->drv, b->tmp, argv);
}

typedef struct Argv {
    const char *items[256];
    int n;
} Argv;

static void arg(Argv *a, const char *s)
{
    if (a->n >= 255)
        die("too many tool arguments");
    a->items[a->n++] = s;
    a->items[a->n] = NULL;
}

/* ---- steps: timed for -v, and cached (cache.c) ---------------------------------- */

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A tool's run that the cache may answer: the key is known once the
 * inputs are written and the command is made. */
typedef struct Step {
    const char *what;              /* "nvcc", "cc (host)": for -v */
    const char *dir;               /* the cache's; NULL: not cached */
    char key[65];
    double start;
} Step;

/* Look the step up; true on a hit (`output` written in the private
 * directory, the tool's report appended to `report`). */
static bool step_begin(Build *b, Step *s, const char *what, const char *version, const char *const *argv,
                       const char *const *inputs, const char *output, Buf *report)
{
    s->what = what;
    s->start = seconds();
    s->dir = version ? cache_dir(&b->opt->drv) : NULL;
    if (s->dir && !cache_key(s->key, version, argv, b->tmp, inputs))
        s->dir = NULL;
    if (!s->dir || !cache_get(s->dir, s->key, arena_printf("%s/%s", b->tmp, output), report))
        return false;
    if (b->opt->drv.verbose)
        fprintf(stderr, "ufnc: %s: %.2f s, from the cache (%s/%s)\n", what, seconds() - s->start, s->dir, s->key);
    return true;
}

/* After a run of the tool: store a good output, say how long it took. */
static void step_end(Build *b, Step *s, bool good, const char *output, const Buf *report)
{
    bool stored = good && s->dir &&
                  cache_put(s->dir, s->key, arena_printf("%s/%s", b->tmp, output),
                            report && report->data ? report->data : "", report ? report->len : 0);
    if (b->opt->drv.verbose)
        fprintf(stderr, "ufnc: %s: %.2f s%s\n", s->what, seconds() - s->start, stored ? ", stored in the cache" : "");
}

static int write_temp(Build *b, const char *name, const Buf *text)
{
    char *path = arena_printf("%s/%s", b->tmp, name);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(text->data, 1, text->len, f) != text->len || fclose(f) != 0) {
        diag_fatal("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int tool_failed(const char *what, int status)
{
    if (status >= 0)
        diag_fatal("%s failed (exit status %d)", what, status);
    return EXIT_TOOL;
}

static void opt_flag(Argv *a, int level)
{
    arg(a, arena_printf("-O%d", level));
}

static int need_nvcc(Build *b)
{
    const char *why = NULL;
    b->nvcc = find_nvcc(&b->opt->drv, &why);
    if (!b->nvcc) {
        diag_fatal("%s; build without CUDA code with --target=host,sim", why);
        return EXIT_TOOL;
    }
    const char *arch = b->opt->drv.arch;
    const char *err = NULL;
    if (arch && !strcmp(arch, "native")) {
        if (!(b->narchs = native_archs(b->archs, &err))) {
            diag_fatal("--arch=native: %s; name the architectures instead, e.g. --arch=sm_90", err);
            return EXIT_TOOL;
        }
    } else if (arch && strcmp(arch, "all") && strcmp(arch, "all-major")) {
        if (!(b->narchs = parse_archs(arch, b->archs, &err))) {
            diag_fatal("%s", err);
            return EXIT_USAGE;
        }
    } else if (!(b->narchs = default_archs(&b->opt->drv, b->nvcc, b->archs))) {
        diag_fatal("'%s --list-gpu-code' failed: cannot tell which GPUs this nvcc supports", b->nvcc);
        return EXIT_TOOL;
    } else if (arch && !strcmp(arch, "all-major"))
        b->narchs = major_archs(b->archs, b->narchs);
    return 0;
}

/* -Xnvcc --resource-usage: the user wants ptxas's report as nvcc prints it. */
static bool user_wants_usage(const DriverOptions *d)
{
    for (int i = 0; i < d->nnvcc_extra; i++)
        if (!strcmp(d->nvcc_extra[i], "--resource-usage") || !strcmp(d->nvcc_extra[i], "-res-usage"))
            return true;
    return false;
}

static void nvcc_common(Build *b, Argv *a, bool ptxas)
{
    const DriverOptions *d = &b->opt->drv;
    arg(a, b->nvcc);
    arg(a, "-Iinclude");
    if (d->fast_math)
        arg(a, "-DUFN_FAST_MATH");      /* ufn_libm.h: the vendor's math functions */
    opt_flag(a, d->opt_level);
    arg(a, arena_printf("-Xptxas=-O%d", d->opt_level));
    /* ptxas's report of each function's registers, stack and spills, read
     * by nvcc_report.c: a spill is a warning that names the function and
     * the architectures (-Wspill), not an error (an error failed ordinary
     * float64 code on sm_90 and later, issue 13).  -ptx runs no ptxas. */
    if (ptxas)
        arg(a, "--resource-usage");
    if (d->debug)
        arg(a, "-lineinfo");            /* not -G, which turns the optimiser off */
    /* No contraction of a*b+c into an fma unless the source asks
     * (DESIGN 9): the host and sim code are compiled with
     * -ffp-contract=off, and the GPU must give their bits.  Fast math
     * trades that away (--use_fast_math implies --fmad=true). */
    if (d->fast_math)
        arg(a, "--use_fast_math");
    else
        arg(a, "--fmad=false");
    for (int i = 0; i < d->nnvcc_extra; i++)
        arg(a, d->nvcc_extra[i]);
}

/* Run nvcc (argv) inside the private directory, its report captured. */
static int run_nvcc(Build *b, const char *const *argv, Buf *report)
{
    return run_tool_capture(&b->opt->drv, b->tmp, argv, report);
}

/* Which architectures make nvcc fail: it builds them in parallel and its
 * messages do not say which failed (ptxas's name no architecture), so each
 * is built alone, once a build of them all has failed. */
static int failing_archs(Build *b, const char *cu, int *failed)
{
    int n = 0;
    for (int i = 0; i < b->narchs; i++) {
        Argv a = {0};
        nvcc_common(b, &a, true);
        arg(&a, "-cubin");
        arg(&a, arena_printf("-arch=sm_%d", b->archs[i]));
        arg(&a, "-o");
        arg(&a, arena_printf("probe_sm_%d.cubin", b->archs[i]));
        arg(&a, cu);
        Buf ignored = {0};
        if (run_nvcc(b, a.items, &ignored) != 0)
            failed[n++] = b->archs[i];
        buf_free(&ignored);
    }
    return n;
}

/* nvcc may exit 0 and leave no fatbin, an empty one or garbage (a broken
 * toolkit, a wrapper script): embedding that would give an object whose
 * GPU code fails only when a program runs.  The header: magic 0xBA55ED50,
 * version 1, header size 16, then the size of what follows. */
static int check_fatbin(Build *b, const char *name, size_t *size)
{
    const char *path = arena_printf("%s/%s", b->tmp, name);
    unsigned char h[16];
    FILE *f = fopen(path, "rb");
    struct stat st;
    const char *why = NULL;
    if (!f || fstat(fileno(f), &st) != 0)
        why = "wrote no fatbin";
    else if (st.st_size == 0)
        why = "wrote an empty fatbin";
    else if (st.st_size < 16 || fread(h, 1, 16, f) != 16 ||
             (h[0] | h[1] << 8 | h[2] << 16 | (unsigned long)h[3] << 24) != 0xBA55ED50u)
        why = arena_printf("wrote %ld bytes that are not a fatbin", (long)st.st_size);
    else {
        unsigned long long body = 0;
        for (int i = 15; i >= 8; i--)
            body = body << 8 | h[i];
        unsigned hsize = (unsigned)(h[6] | h[7] << 8);
        if (hsize != 16 || body + hsize != (unsigned long long)st.st_size)
            why = arena_printf("wrote a fatbin of %ld bytes whose header says %llu", (long)st.st_size, body + hsize);
    }
    if (f)
        fclose(f);
    if (why) {
        diag_fatal("nvcc exited with status 0 but %s (%s): the toolkit at %s looks broken", why, name, b->nvcc);
        return EXIT_TOOL;
    }
    *size = (size_t)st.st_size;
    return 0;
}

static int build_fatbin(Build *b, const char *cu, const char *fatbin, size_t *size)
{
    int count;
    const char **gencode = gencode_args(b->archs, b->narchs, &count);
    Argv a = {0};
    nvcc_common(b, &a, true);
    arg(&a, "--fatbin");
    for (int i = 0; i < count; i++)
        arg(&a, gencode[i]);
    arg(&a, "-o");
    arg(&a, fatbin);
    arg(&a, cu);
    Buf report = {0};
    Step step;
    const char *nvcc_words[] = {b->nvcc, NULL};
    const char *inputs[] = {cu, NULL};
    bool hit = step_begin(b, &step, "nvcc", tool_version(&b->opt->drv, nvcc_words), a.items, inputs, fatbin,
                          &report);
    int st = 0;
    if (!hit) {
        /* the architectures in parallel, as many as make's jobserver (or
         * the CPUs) allow; last, so that the cache's key leaves it out */
        int threads = jobs_threads(b->narchs);
        arg(&a, "--threads");
        arg(&a, arena_printf("%d", threads));
        st = run_nvcc(b, a.items, &report);
        jobs_release();
        if (st != 0)
            step_end(b, &step, false, fatbin, &report);
    }
    const char *text = report.data ? report.data : "";
    if (st == 0) {
        st = check_fatbin(b, fatbin, size);
        if (!hit)
            step_end(b, &step, st == 0, fatbin, &report);
        if (st == 0) {
            nvcc_report_built(stderr, b->mod, text, user_wants_usage(&b->opt->drv));
            st = diag_error_count() ? EXIT_SOURCE : 0;      /* -Werror=spill */
        }
    } else if (st > 0) {
        int failed[MAX_ARCHS], nfailed = 0;
        if (b->narchs == 1)
            failed[nfailed++] = b->archs[0];
        else
            nfailed = failing_archs(b, cu, failed);
        nvcc_report_failed(stderr, b->mod, text, st, failed, nfailed, b->archs, b->narchs);
        st = EXIT_TOOL;
    } else {
        fputs(text, stderr);                    /* it could not run, or was killed: said */
        st = EXIT_TOOL;
    }
    buf_free(&report);
    return st;
}

/* The C compiler's words: CC may be a command with arguments, as make
 * allows ("ccache cc", "gcc -m64"). */
static void cc_words(Argv *a, const char *cc)
{
    for (const char *p = cc; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = strcspn(p, " \t");
        if (len)
            arg(a, arena_strndup(p, len));
        p += len;
    }
}

static void cc_common(Build *b, Argv *a)
{
    const DriverOptions *d = &b->opt->drv;
    cc_words(a, d->cc);
    arg(a, "-std=c11");
    opt_flag(a, d->opt_level);
    arg(a, "-fPIC");
    arg(a, "-fvisibility=hidden");
    if (d->debug) {
        arg(a, "-g");
        /* the private directory is the compilation directory: named as
         * ".", so that two builds give the same bytes */
        arg(a, arena_printf("-fdebug-prefix-map=%s=.", b->tmp));
    }
    arg(a, "-fno-math-errno");
    /* no fused multiply-add: the host and the simulator compute bit for bit alike */
    arg(a, "-ffp-contract=off");
    /* values unchanged; lets gcc if-convert the selects of ufn_libm.h's
     * functions (and of the bodies) so that the host loops vectorise */
    arg(a, "-fno-trapping-math");
    if (d->fast_math) {
        arg(a, "-ffast-math");
        arg(a, "-DUFN_FAST_MATH");      /* ufn_libm.h: the vendor's math functions */
    }
    arg(a, "-Iinclude");
}

/* The three C compilations of a module's code. */
typedef enum {
    C_SIM,          /* polar.cu as C: the simulator's build */
    C_KERNELS,      /* polar.cu as C with -DUFN_HOST_ENTRY: the host backend's build of
                       the @cuda.jit kernels, at -O3 for the block runners' loops */
    C_HOST,         /* the host stub and the ufuncs' host loops */
} CKind;

/* cc -c src -o obj; `also` (NULL or a file) is read too: the fatbin
 * that the host stub's .incbin embeds. */
static int compile_c(Build *b, CKind kind, const char *src, const char *obj, const char *also)
{
    Argv a = {0};
    Argv words = {0};
    cc_words(&words, b->opt->drv.cc);
    cc_common(b, &a);
    if (kind == C_HOST)
        arg(&a, "-fopenmp-simd");
    if (kind == C_KERNELS) {
        arg(&a, "-fopenmp-simd");      /* the grid-stride runners' `omp simd` */
        arg(&a, "-O3");
        arg(&a, "-DUFN_HOST_ENTRY");
    }
    if (kind != C_HOST) {
        arg(&a, "-x");
        arg(&a, "c");
    }
    arg(&a, "-c");
    arg(&a, src);
    arg(&a, "-o");
    arg(&a, obj);
    Step step;
    const char *inputs[] = {src, also, NULL};
    const char *what = kind == C_HOST ? "cc (host code)"
                     : kind == C_KERNELS ? "cc (kernels' host code)" : "cc (simulator code)";
    if (step_begin(b, &step, what, tool_version(&b->opt->drv, words.items), a.items, inputs, obj, NULL))
        return 0;
    int st = run_in(b, a.items);
    step_end(b, &step, st == 0, obj, NULL);
    return st == 0 ? 0 : tool_failed(b->opt->drv.cc, st);
}

static int build_object(Build *b)
{
    const Options *opt = b->opt;
    Module *m = b->mod;
    const char *cu = arena_printf("%s.cu", m->name);
    const char *fatbin = arena_printf("%s.fatbin", m->name);
    const char *sim_o = arena_printf("%s.sim.o", m->name);
    const char *host_c = arena_printf("%s.host.c", m->name);
    const char *host_o = arena_printf("%s.host.o", m->name);
    const char *threads_o = arena_printf("%s.threads.o", m->name);
    bool jit_host = opt->host && module_has_jit(m);   /* the .cu's host build (emit_kernel.c) */
    const char *obj = arena_printf("%s.o", m->name);
    int st;
    EmitOptions eo = {.cuda = opt->cuda, .host = opt->host, .sim = opt->sim,
                      .line_directives = opt->line_directives, .output_name = cu};
    Buf text = {0};
    if (opt->cuda || opt->sim || jit_host) {
        emit_cuda(&text, m, &eo);
        if (write_temp(b, cu, &text))
            return EXIT_TOOL;
        buf_free(&text);
    }
    if (opt->cuda) {
        if ((st = need_nvcc(b)) || (st = build_fatbin(b, cu, fatbin, &eo.fatbin_size)))
            return st;
        eo.fatbin_path = fatbin;
    }
    if (opt->sim && (st = compile_c(b, C_SIM, cu, sim_o, NULL)))
        return st;
    if (jit_host && (st = compile_c(b, C_KERNELS, cu, threads_o, NULL)))
        return st;
    eo.output_name = host_c;
    emit_host(&text, m, &eo);
    if (write_temp(b, host_c, &text))
        return EXIT_TOOL;
    buf_free(&text);
    if ((st = compile_c(b, C_HOST, host_c, host_o, opt->cuda ? fatbin : NULL)))
        return st;
    if (opt->sim || jit_host) {
        Argv a = {0};
        cc_words(&a, opt->drv.cc);
        arg(&a, "-r");
        arg(&a, "-nostdlib");
        arg(&a, "-o");
        arg(&a, obj);
        arg(&a, host_o);
        if (opt->sim)
            arg(&a, sim_o);
        if (jit_host)
            arg(&a, threads_o);
        Step step;
        step_begin(b, &step, "ld -r", NULL, a.items, NULL, obj, NULL);
        st = run_in(b, a.items);
        step_end(b, &step, false, obj, NULL);
        if (st)
            return tool_failed("the relocatable link", st);
    } else
        obj = host_o;
    return copy_file_atomic(opt->output, arena_printf("%s/%s", b->tmp, obj)) ? EXIT_TOOL : 0;
}

static int build_ptx(Build *b)
{
    int st;
    if ((st = need_nvcc(b)))
        return st;
    Module *m = b->mod;
    const char *cu = arena_printf("%s.cu", m->name), *ptx = arena_printf("%s.ptx", m->name);
    Buf text = {0};
    EmitOptions eo = {.cuda = true, .line_directives = b->opt->line_directives, .output_name = cu};
    emit_cuda(&text, m, &eo);
    if (write_temp(b, cu, &text))
        return EXIT_TOOL;
    buf_free(&text);
    /* the newest architecture of the list */
    int newest = 0;
    for (int i = 0; i < b->narchs; i++)
        if (b->archs[i] > newest)
            newest = b->archs[i];
    Argv a = {0};
    nvcc_common(b, &a, false);
    arg(&a, "-ptx");
    arg(&a, arena_printf("-arch=compute_%d", newest));
    arg(&a, "-o");
    arg(&a, ptx);
    arg(&a, cu);
    Buf report = {0};
    st = run_nvcc(b, a.items, &report);
    const char *said = report.data ? report.data : "";
    if (st == 0)
        nvcc_report_built(stderr, m, said, true);
    else if (st > 0)
        nvcc_report_failed(stderr, m, said, st, &newest, 1, &newest, 1);
    else
        fputs(said, stderr);
    buf_free(&report);
    if (st)
        return EXIT_TOOL;
    return copy_file_atomic(b->opt->output, arena_printf("%s/%s", b->tmp, ptx)) ? EXIT_TOOL : 0;
}

static int write_text(const char *path, void (*emit)(Buf *, Module *, const EmitOptions *), Module *m,
                      const EmitOptions *eo)
{
    Buf text = {0};
    emit(&text, m, eo);
    int r = write_file_atomic(path, text.data, text.len);
    buf_free(&text);
    return r ? EXIT_TOOL : 0;
}

static int write_depfile(const Options *opt, Module *m)
{
    const char *path = opt->mf;
    /* The targets in gcc's order: its driver passes every -MQ before every
     * -MT, and libcpp moves each unquoted (-MT) target in front of the
     * quoted ones by swapping it with the first quoted target. */
    int cap = opt->nmq + opt->nmt + 2, nt = 0, lwm = 0;
    const char **targets = arena_alloc(sizeof(char *) * (size_t)cap);
    for (int i = 0; i < opt->nmq; i++)
        targets[nt++] = make_quote(opt->mq[i]);
    for (int i = 0; i < opt->nmt; i++) {
        const char *t = opt->mt[i];
        if (lwm != nt) {
            const char *lowest = targets[lwm];
            targets[lwm] = t;
            t = lowest;
        }
        targets[nt++] = t;
        lwm++;
    }
    if (!nt) {
        targets[nt++] = make_quote(opt->output);
        if (opt->header && opt->kind == OUT_OBJECT)
            targets[nt++] = make_quote(opt->header);
    }
    Buf text = {0};
    depfile_text(&text, targets, nt, m->deps, m->ndeps, opt->mp);
    int r = write_file_atomic(path, text.data, text.len);
    buf_free(&text);
    return r ? EXIT_TOOL : 0;
}

void claim_outputs(const Options *opt)
{
    driver_claim_output(opt->output);
    if (opt->header && opt->kind != OUT_H)
        driver_claim_output(opt->header);
    if (opt->md)
        driver_claim_output(opt->mf);
}

int build_outputs(Module *m, const Options *opt)
{
    Build b = {.opt = opt, .mod = m};
    EmitOptions eo = {.cuda = opt->cuda, .host = opt->host, .sim = opt->sim,
                      .line_directives = opt->line_directives, .output_name = opt->output};
    int st = 0;
    switch (opt->kind) {
    case OUT_CU:
        st = write_text(opt->output, emit_cuda, m, &eo);
        break;
    case OUT_C:
        eo.cuda = false;            /* the fatbin lives only in the object */
        st = write_text(opt->output, emit_host, m, &eo);
        break;
    case OUT_H:
        st = write_text(opt->output, emit_header, m, &eo);
        break;
    case OUT_PTX:
    case OUT_OBJECT:
        if (!(b.tmp = driver_tempdir(&opt->drv)))
            return EXIT_TOOL;
        /* (it exists when a process builds twice: the fuzzer's cc mode) */
        const char *inc = arena_printf("%s/include", b.tmp);
        if ((mkdir(inc, 0700) != 0 && errno != EEXIST) || write_support_headers(inc))
            return EXIT_TOOL;
        st = opt->kind == OUT_PTX ? build_ptx(&b) : build_object(&b);
        break;
    }
    if (!st && opt->header && opt->kind != OUT_H)
        st = write_text(opt->header, emit_header, m, &eo);
    if (!st && opt->md)
        st = write_depfile(opt, m);
    return st;
}
