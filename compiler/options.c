/* options.c - the command line of ufnc (DESIGN 1, man/ufnc.1). */
#include "ufnc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
    "usage: ufnc [options] [--] FILE.ufn\n"
    "\n"
    "Compile a .ufn module (Numba-style @vectorize / @guvectorize kernels) into one\n"
    "object file and a C header; link the object with libufnrt.\n"
    "\n"
    "  -o FILE            output; the kind follows the extension: .o (default FILE.o),\n"
    "                     .cu device source, .c host stub, .h header, .ptx PTX\n"
    "  -H FILE, -h FILE   also write the C header (default: next to the object);\n"
    "                     -h alone prints this help\n"
    "  -c                 accepted and ignored: ufnc always compiles to an object\n"
    "  --target=LIST      code to put in the object: cuda,host,sim (default all three;\n"
    "                     host and sim need no CUDA toolkit)\n"
    "  --arch=LIST        GPU generations, e.g. sm_80,sm_90, or native (the GPUs of\n"
    "                     this machine), all (the default: every sm_75+ that nvcc\n"
    "                     builds), all-major (sm_75 and each sm_X0); PTX of the\n"
    "                     newest is added.  nvcc's -arch=LIST is the same\n"
    "  -O0 .. -O3, -O     optimisation level (default -O3); -O is -O1, as in gcc\n"
    "  -g                 line information in the GPU code (nvcc -lineinfo) and debug\n"
    "                     information in the host code (cc -g)\n"
    "  --fast-math        approximate division and transcendentals, flush-to-zero\n"
    "  -I DIR             search DIR for imported .ufn modules\n"
    "  -D NAME[=VALUE]    accepted and ignored, with a warning (-Wignored-define): a\n"
    "                     module has no preprocessor; use a constant in the module\n"
    "  --prefix=P         prepend P to every public C name\n"
    "  --signature=K=SIG  compile @cuda.jit kernel K for SIG too, e.g.\n"
    "                     'add=void(float64[:], float64[:], float64[:])' (repeatable)\n"
    "  --literals=numba|numpy  how Python numbers type next to float32: numba (the\n"
    "                     default) computes f32 * 2.0 in float64; numpy keeps float32\n"
    "  --module-name=N    the module's name in generated symbols (default: the file's)\n"
    "  -MD, -MMD          write a make dependency file (FILE.d next to the output)\n"
    "  -MF FILE           ... to FILE\n"
    "  -MT TARGET         ... with TARGET as the rule's target, as written (repeatable)\n"
    "  -MQ TARGET         ... the same, quoted for make ('$' and spaces)\n"
    "  -MP                ... with a phony target for each imported module\n"
    "  -v                 print every tool command that is run, and each step's time\n"
    "  --no-cache         build the device code even if the cache has it (the cache:\n"
    "                     $UFN_CACHE_DIR, else $XDG_CACHE_HOME/ufnc or ~/.cache/ufnc)\n"
    "  --keep             keep the intermediate files (their directory is printed)\n"
    "  --nvcc=PATH        the CUDA compiler (also $NVCC, $CUDA_HOME/bin, PATH)\n"
    "  --cc=PATH          the C compiler (also $CC, default cc)\n"
    "  -Xnvcc ARG         pass ARG to nvcc\n"
    "  -d tokens|ast|types  dump a compiler pass to standard output and stop\n"
    "  --color=WHEN       auto (default), always or never; NO_COLOR disables auto\n"
    "  -Werror, -w        warnings are errors / no warnings\n"
    "  -Wall, -Wextra     accepted: every warning is on unless -Wno-NAME turns it off\n"
    "  -Wno-NAME, -Werror=NAME, -Wno-error=NAME, -WNAME  one warning off, an error,\n"
    "                     not an error under -Werror, or on; each warning ends with\n"
    "                     its name: [-Wspill]\n"
    "  -fmax-errors=N     stop after N errors (default 50; 0: no limit)\n"
    "  --no-line          no #line directives in the generated C\n"
    "  --                 the next argument is the input, even if it starts with '-'\n"
    "  --version, --help\n"
    "\n"
    "Exit status: 0 success, 1 errors in the source, 2 bad usage, 3 a tool (nvcc,\n"
    "cc) is missing or failed.  See ufnc(1), ufn(7), ufn(3).\n";

static _Noreturn void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ufnc: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nufnc: try 'ufnc --help'\n");
    exit(EXIT_USAGE);
}

static const char *ext_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot ? dot : "";
}

/* path with its extension replaced (or added) */
static const char *with_ext(const char *path, const char *ext)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    return arena_printf("%.*s%s", (int)len, path, ext);
}

static void parse_targets(Options *opt, const char *list)
{
    opt->cuda = opt->host = opt->sim = false;
    opt->targets_given = true;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 4 && !strncmp(p, "cuda", 4))
            opt->cuda = true;
        else if (len == 4 && !strncmp(p, "host", 4))
            opt->host = true;
        else if (len == 3 && !strncmp(p, "sim", 3))
            opt->sim = true;
        else
            usage_error("--target: unknown target '%s' (expected cuda, host or sim)", arena_strndup(p, len));
        p += len + (p[len] == ',');
    }
    if (!opt->cuda && !opt->host && !opt->sim)
        usage_error("--target: no target given%s", "");
}

static void push(const char ***list, int *n, const char *item)
{
    const char **l = arena_alloc(sizeof(char *) * (size_t)(*n + 1));
    if (*n)
        memcpy(l, *list, sizeof(char *) * (size_t)*n);
    l[(*n)++] = item;
    *list = l;
}

/* The value of an option given as "-oFILE", "-o FILE", "--opt=V" or "--opt V". */
static const char *value(int argc, char **argv, int *i, const char *opt)
{
    const char *a = argv[*i];
    size_t n = strlen(opt);
    if (a[n] == '=')
        return a + n + 1;
    if (a[n])
        return a + n;
    if (*i + 1 >= argc)
        usage_error("option %s needs an argument", opt);
    return argv[++*i];
}

static bool is(const char *arg, const char *opt)
{
    size_t n = strlen(opt);
    return !strncmp(arg, opt, n) && (arg[n] == '\0' || arg[n] == '=' || (opt[1] != '-' && n == 2));
}

static bool is_c_identifier(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* A generated header must not take the name of one that code including it
 * reaches through <...>: ufn.mk puts the output directory on the include
 * path, where a stdint.h (from stdint.ufn) would hide the C library's for
 * every file compiled, and polar.h includes <ufn.h>, which would include
 * itself.  The C11 headers, the POSIX ones C programs commonly include, and
 * the runtime's (with those the generated code includes). */
static const char *const c_headers[] = {
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "iso646.h",
    "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h", "stdarg.h",
    "stdatomic.h", "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "stdnoreturn.h",
    "string.h", "tgmath.h", "threads.h", "time.h", "uchar.h", "wchar.h", "wctype.h",
    "alloca.h", "dlfcn.h", "malloc.h", "memory.h", "pthread.h", "strings.h", "unistd.h",
};
static const char *const ufn_headers[] = {
    "ufn.h", "ufn_dlpack.h", "ufn_abi.h", "ufn_kernel.h", "ufn_sim.h", "ufn_math.h", "ufn_complex.h",
};

static bool listed(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i]))
            return true;
    return false;
}

static void check_header_name(const char *h)
{
    if (!h)
        return;
    const char *base = strrchr(h, '/') ? strrchr(h, '/') + 1 : h;
    const char *owner = listed(base, c_headers, sizeof c_headers / sizeof c_headers[0]) ? "the C library's"
                        : listed(base, ufn_headers, sizeof ufn_headers / sizeof ufn_headers[0]) ? "libufnrt's"
                        : NULL;
    if (owner)
        usage_error("%s", arena_printf("the header %s would hide %s header of that name; choose another with -H "
                                       "(or rename the module)", h, owner));
}

/* The directory part of a path made absolute and free of symbolic links,
 * then its last component: two spellings of one place compare equal even
 * when the file does not exist yet.  NULL if the directory does not exist
 * (the write fails later, with its own message). */
static const char *canonical(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dir = slash ? (slash == path ? "/" : arena_strndup(path, (size_t)(slash - path))) : ".";
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return NULL;
    return arena_printf("%s/%s", real, slash ? slash + 1 : path);
}

/* The same file: one inode (when both exist), or one canonical path. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    const char *ca = canonical(a), *cb = canonical(b);
    return strcmp(a, b) == 0 || (ca && cb && strcmp(ca, cb) == 0);
}

/* A special file (/dev/null) may take several outputs: each is written
 * into it in place (driver.c). */
static bool is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* No output may be the input or another output: writing one would replace
 * the source or the object, and the run would still succeed.  An output
 * named like a module (.ufn, .py) is refused too, so that none can be a
 * module the input imports (those are known only once it is read). */
static void check_outputs(const Options *opt)
{
    const char *name[3] = {"-o", "-H", "-MF"};
    const char *out[3] = {opt->output, opt->kind == OUT_H ? NULL : opt->header, opt->md ? opt->mf : NULL};
    for (int i = 0; i < 3; i++) {
        if (!out[i])
            continue;
        if (same_file(out[i], opt->input))
            usage_error("%s: that is the input file", arena_printf("%s %s", name[i], out[i]));
        if (!strcmp(ext_of(out[i]), ".ufn") || !strcmp(ext_of(out[i]), ".py"))
            usage_error("%s: an output may not be named like a module (.ufn or .py)",
                        arena_printf("%s %s", name[i], out[i]));
        for (int j = 0; j < i; j++)
            if (out[j] && !is_special(out[i]) && !is_special(out[j]) && same_file(out[i], out[j]))
                usage_error("%s: the same file as another output", arena_printf("%s %s and %s %s", name[j], out[j],
                                                                               name[i], out[i]));
    }
}

void parse_options(int argc, char **argv, Options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->cuda = opt->host = opt->sim = true;
    opt->color = COLOR_AUTO;
    opt->line_directives = true;
    opt->drv.opt_level = 3;
    opt->max_errors = 50;               /* clang stops at 20, gcc never; ufnc(1) */
    bool options_end = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_end || a[0] != '-' || !a[1]) {
            if (opt->input)
                usage_error("more than one input file ('%s')", a);
            opt->input = a;
        } else if (!strcmp(a, "--")) {
            options_end = true;
        } else if (!strcmp(a, "--help") || (!strcmp(a, "-h") && argc == 2)) {
            fputs(usage_text, stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            printf("ufnc %s\n", UFNC_VERSION);
            exit(0);
        } else if (!strcmp(a, "-c")) {
            /* what a build system passes to every compiler: ufnc has no
             * other mode (no linking), so nothing to do */
        } else if (!strcmp(a, "-g")) {
            opt->drv.debug = true;
        } else if (!strcmp(a, "-O")) {
            opt->drv.opt_level = 1;         /* gcc's -O */
        } else if (!strcmp(a, "-Wall") || !strcmp(a, "-Wextra")) {
            /* every warning is on by default: nothing to turn on */
        } else if (is(a, "-D")) {
            const char *d = value(argc, argv, &i, "-D");
            const char *name = arena_strndup(d, strcspn(d, "="));
            if (!is_c_identifier(name))
                usage_error("-D%s: expected NAME or NAME=VALUE", d);
            push(&opt->defines, &opt->ndefines, d);
        } else if (!strcmp(a, "-v")) {
            opt->drv.verbose = true;
        } else if (!strcmp(a, "--no-cache")) {
            opt->drv.no_cache = true;
        } else if (!strcmp(a, "--keep")) {
            opt->drv.keep = true;
        } else if (!strcmp(a, "--fast-math")) {
            opt->drv.fast_math = true;
        } else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD")) {
            opt->md = true;
        } else if (!strcmp(a, "-MP")) {
            opt->mp = true;
        } else if (!strncmp(a, "-MF", 3)) {
            opt->mf = value(argc, argv, &i, "-MF");
            opt->md = true;
        } else if (!strncmp(a, "-MT", 3) || !strncmp(a, "-MQ", 3)) {
            if (a[2] == 'Q')
                push(&opt->mq, &opt->nmq, value(argc, argv, &i, "-MQ"));
            else
                push(&opt->mt, &opt->nmt, value(argc, argv, &i, "-MT"));
        } else if (!strcmp(a, "-Werror")) {
            opt->werror = true;
        } else if (!strcmp(a, "-w")) {
            opt->no_warnings = true;
        } else if (!strncmp(a, "-W", 2) && a[2]) {
            if (!diag_warning_option(a))
                usage_error("%s", arena_printf("unknown warning option '%s' (the warnings are %s)", a,
                                               diag_warning_names()));
        } else if (!strncmp(a, "-fmax-errors=", 13)) {
            const char *v = a + 13;
            char *end;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 0 || n > 1000000 || !(*v >= '0' && *v <= '9'))
                usage_error("-fmax-errors: expected a number of errors (0: no limit), not '%s'", v);
            opt->max_errors = (int)n;
        } else if (!strcmp(a, "--no-line")) {
            opt->line_directives = false;
        } else if (!strcmp(a, "-Xnvcc")) {
            push(&opt->drv.nvcc_extra, &opt->drv.nnvcc_extra, value(argc, argv, &i, "-Xnvcc"));
        } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
            opt->drv.opt_level = a[2] - '0';
        } else if (is(a, "-o")) {
            if (opt->output)
                usage_error("more than one -o option%s", "");
            opt->output = value(argc, argv, &i, "-o");
        } else if (is(a, "-H") || is(a, "-h")) {
            /* -h is ISPC's spelling of the header (issue 19) */
            opt->header = value(argc, argv, &i, a[1] == 'h' ? "-h" : "-H");
        } else if (is(a, "-I")) {
            push(&opt->include_dirs, &opt->ninclude_dirs, value(argc, argv, &i, "-I"));
        } else if (is(a, "-d")) {
            opt->dump = value(argc, argv, &i, "-d");
            if (strcmp(opt->dump, "tokens") && strcmp(opt->dump, "ast") && strcmp(opt->dump, "types"))
                usage_error("-d: expected tokens, ast or types, not '%s'", opt->dump);
        } else if (is(a, "--target")) {
            parse_targets(opt, value(argc, argv, &i, "--target"));
        } else if (is(a, "--arch") || is(a, "-arch")) {
            opt->drv.arch = value(argc, argv, &i, a[1] == '-' ? "--arch" : "-arch");
        } else if (is(a, "--signature")) {
            const char *v = value(argc, argv, &i, "--signature");
            const char *eq = strchr(v, '=');
            if (!eq || eq == v)
                usage_error("--signature: expected KERNEL=SIGNATURE, not '%s'", v);
            push(&opt->signatures, &opt->nsignatures, v);
        } else if (is(a, "--prefix")) {
            opt->prefix = value(argc, argv, &i, "--prefix");
        } else if (is(a, "--literals")) {
            const char *v = value(argc, argv, &i, "--literals");
            if (!strcmp(v, "numpy")) opt->numpy_literals = true;
            else if (!strcmp(v, "numba")) opt->numpy_literals = false;
            else usage_error("--literals: expected numba or numpy, not '%s'", v);
        } else if (is(a, "--module-name")) {
            opt->module_name = value(argc, argv, &i, "--module-name");
        } else if (is(a, "--nvcc")) {
            opt->drv.nvcc = value(argc, argv, &i, "--nvcc");
        } else if (is(a, "--cc")) {
            opt->drv.cc = value(argc, argv, &i, "--cc");
        } else if (is(a, "--color") || is(a, "--colour")) {
            const char *v = value(argc, argv, &i, a[3] == 'o' && a[6] == 'u' ? "--colour" : "--color");
            if (!strcmp(v, "auto")) opt->color = COLOR_AUTO;
            else if (!strcmp(v, "always")) opt->color = COLOR_ALWAYS;
            else if (!strcmp(v, "never")) opt->color = COLOR_NEVER;
            else usage_error("--color: expected auto, always or never, not '%s'", v);
        } else {
            usage_error("unknown option '%s'", a);
        }
    }
    if (!opt->input)
        usage_error("no input file%s", "");
    if (strcmp(ext_of(opt->input), ".ufn") != 0 && strcmp(ext_of(opt->input), ".py") != 0)
        usage_error("input '%s' is not a .ufn (or .py) module", opt->input);
    if (!opt->output) {
        const char *slash = strrchr(opt->input, '/');
        opt->output = with_ext(slash ? slash + 1 : opt->input, ".o");
    }
    const char *ext = ext_of(opt->output);
    if (!strcmp(ext, ".o")) opt->kind = OUT_OBJECT;
    else if (!strcmp(ext, ".cu")) opt->kind = OUT_CU;
    else if (!strcmp(ext, ".c")) opt->kind = OUT_C;
    else if (!strcmp(ext, ".h")) opt->kind = OUT_H;
    else if (!strcmp(ext, ".ptx")) opt->kind = OUT_PTX;
    else usage_error("-o %s: the extension must be .o, .cu, .c, .h or .ptx", opt->output);
    if (opt->kind == OUT_OBJECT && !opt->header)
        opt->header = with_ext(opt->output, ".h");
    if (opt->md && !opt->mf)
        opt->mf = with_ext(opt->output, ".d");
    if (opt->kind == OUT_PTX && !opt->cuda)
        usage_error("-o %s: PTX needs --target to include cuda", opt->output);
    if (!opt->dump) {                   /* -d writes nothing but standard output */
        check_header_name(opt->kind == OUT_H ? opt->output : opt->header);
        check_outputs(opt);
    }
    if (!opt->drv.cc) {
        const char *cc = getenv("CC");
        opt->drv.cc = cc && *cc ? cc : "cc";
    }
    if (opt->module_name && !is_c_identifier(opt->module_name))
        usage_error("--module-name: '%s' is not a C identifier (letters, digits and '_', not starting with a digit)",
                    opt->module_name);
    if (!opt->module_name) {
        const char *slash = strrchr(opt->input, '/');
        const char *base = slash ? slash + 1 : opt->input;
        char *name = arena_strndup(base, strcspn(base, "."));
        for (char *p = name; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                *p = '_';
        if (name[0] >= '0' && name[0] <= '9')
            name = arena_printf("m_%s", name);
        opt->module_name = name;
    }
}

/* -D has no meaning for a module (it has no preprocessor; its constants
 * are Python assignments): a build system's defines are accepted, and
 * each is said to be ignored, as a warning that -Wno-ignored-define
 * silences.  Called once the diagnostics are set up. */
void options_note_ignored(const Options *opt)
{
    for (int i = 0; i < opt->ndefines; i++)
        diag_warning_group((Loc){0}, "ignored-define",
                           "-D%s is ignored: a .ufn module has no preprocessor (set a constant in the module)",
                           opt->defines[i]);
}
