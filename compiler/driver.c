/* driver.c - the outside world: the private temporary directory, running
 * nvcc and cc (no shell: argument vectors, so paths with spaces work), the
 * GPU architecture list, atomic output files and make dependency files.
 *
 * An output is either complete or absent: everything is written next to its
 * destination under a temporary name and renamed into place; a failure or a
 * signal removes the temporaries and, as gcc does, the outputs the run
 * claimed, so no stale object or header from an older run survives to be
 * linked by mistake.  Only regular files are ever removed or replaced:
 * `-MF /dev/null` writes into the device. */
#include "ufnc.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "embedded.h"

extern char **environ;

/* ---- cleanup on every exit ------------------------------------------------------ */

#define MAX_PENDING 16

static char tempdir[4096];
static bool keep_tempdir;
static char pending[MAX_PENDING][4096];    /* temporary outputs not yet renamed */
#define MAX_CLAIMED 4
static char claimed[MAX_CLAIMED][4096];    /* what this run writes: gone if it fails */
static volatile sig_atomic_t child_pid;

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

static void cleanup(void)
{
    jobs_release();
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i][0]) {
            unlink(pending[i]);
            pending[i][0] = '\0';
        }
    if (tempdir[0] && !keep_tempdir)
        remove_tree(tempdir);
    tempdir[0] = '\0';
}

/* Async-signal-safe (lstat(2) and unlink(2) only): on_signal calls it too. */
void driver_discard_outputs(void)
{
    for (int i = 0; i < MAX_CLAIMED; i++) {
        struct stat st;
        if (claimed[i][0] && lstat(claimed[i], &st) == 0 && S_ISREG(st.st_mode))
            unlink(claimed[i]);
        claimed[i][0] = '\0';
    }
}

static void on_signal(int sig)
{
    if (child_pid > 0) {
        kill(child_pid, sig);
        /* it may still be writing into the temporary directory */
        waitpid(child_pid, NULL, 0);
    }
    cleanup();
    driver_discard_outputs();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_cleanup(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    atexit(cleanup);
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

const char *driver_tempdir(const DriverOptions *opt)
{
    if (tempdir[0])
        return tempdir;
    install_cleanup();
    const char *base = getenv("TMPDIR");
    /* the path goes into an .incbin directive: keep it plain */
    if (!base || !*base || strpbrk(base, "\"\\\n"))
        base = "/tmp";
    snprintf(tempdir, sizeof tempdir, "%s/ufnc-XXXXXX", base);
    if (!mkdtemp(tempdir)) {
        diag_fatal("cannot create a temporary directory in %s: %s", base, strerror(errno));
        tempdir[0] = '\0';
        return NULL;
    }
    keep_tempdir = opt->keep;
    if (opt->keep)
        fprintf(stderr, "ufnc: keeping intermediate files in %s\n", tempdir);
    return tempdir;
}

/* ---- atomic outputs ------------------------------------------------------------------ */

void driver_claim_output(const char *path)
{
    install_cleanup();
    for (int i = 0; i < MAX_CLAIMED; i++)
        if (!claimed[i][0]) {
            snprintf(claimed[i], sizeof claimed[i], "%s", path);
            return;
        }
    die("more than %d outputs claimed", MAX_CLAIMED);
}

/* A destination that exists and is not a regular file (a device, a FIFO)
 * is written in place: renaming over /dev/null would replace the device. */
static bool special_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* An output being written: into a temporary next to it (slot in pending),
 * or in place for a special file (slot -1). */
typedef struct Output {
    char tmp[4096];
    int slot;
    int fd;
} Output;

static int open_temp_next_to(const char *path, char *tmp, size_t size, int *slot);
static int finish_temp(int fd, const char *tmp, const char *path, int slot, bool ok);

static bool open_output(Output *o, const char *path)
{
    o->slot = -1;
    if (special_file(path)) {
        o->fd = open(path, O_WRONLY | O_TRUNC);
        if (o->fd < 0)
            diag_fatal("cannot write %s: %s", path, strerror(errno));
        o->tmp[0] = '\0';
    } else
        o->fd = open_temp_next_to(path, o->tmp, sizeof o->tmp, &o->slot);
    return o->fd >= 0;
}

static int close_output(Output *o, const char *path, bool ok)
{
    if (!o->tmp[0])
        return close(o->fd) == 0 && ok ? 0 : -1;
    return finish_temp(o->fd, o->tmp, path, o->slot, ok);
}

static int add_pending(const char *path)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (!pending[i][0]) {
            snprintf(pending[i], sizeof pending[i], "%s", path);
            return i;
        }
    return -1;
}

static int open_temp_next_to(const char *path, char *tmp, size_t size, int *slot)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    snprintf(tmp, size, "%.*s.%s.XXXXXX", dirlen, path, slash ? slash + 1 : path);
    install_cleanup();
    int fd = mkstemp(tmp);
    if (fd < 0) {
        diag_fatal("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    *slot = add_pending(tmp);
    return fd;
}

static int finish_temp(int fd, const char *tmp, const char *path, int slot, bool ok)
{
    /* regular permissions (mkstemp makes 0600) */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    if (close(fd) != 0)
        ok = false;
    if (ok && rename(tmp, path) != 0) {
        diag_fatal("cannot write %s: %s", path, strerror(errno));
        ok = false;
    }
    if (!ok)
        unlink(tmp);
    if (slot >= 0)
        pending[slot][0] = '\0';
    return ok ? 0 : -1;
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
    Output o;
    if (!open_output(&o, path))
        return -1;
    bool ok = write_all(o.fd, data, len);
    if (!ok)
        diag_fatal("cannot write %s: %s", path, strerror(errno));
    return close_output(&o, path, ok);
}

int copy_file_atomic(const char *path, const char *src)
{
    int in = open(src, O_RDONLY);
    if (in < 0) {
        diag_fatal("cannot read %s: %s", src, strerror(errno));
        return -1;
    }
    Output o;
    if (!open_output(&o, path)) {
        close(in);
        return -1;
    }
    bool ok = true;
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (!write_all(o.fd, buf, (size_t)n)) {
            ok = false;
            break;
        }
    if (n < 0)
        ok = false;
    close(in);
    if (!ok)
        diag_fatal("cannot write %s: %s", path, strerror(errno));
    return close_output(&o, path, ok);
}

/* ---- running tools ------------------------------------------------------------------------ */

/* An argument as a POSIX shell reads it back. */
static void print_word(const char *a)
{
    if (*a && !strpbrk(a, " \t\n\"'\\$`;&|<>()*?[]{}!#~")) {
        fputs(a, stderr);
        return;
    }
    fputc('\'', stderr);
    for (; *a; a++) {
        if (*a == '\'')
            fputs("'\\''", stderr);
        else
            fputc(*a, stderr);
    }
    fputc('\'', stderr);
}

/* -v: the command as it could be pasted into a shell. */
static void print_command(const char *dir, const char *const *argv)
{
    if (dir) {
        fputs("(cd ", stderr);
        print_word(dir);
        fputs(" &&", stderr);
    }
    for (int i = 0; argv[i]; i++) {
        if (i || dir)
            fputc(' ', stderr);
        print_word(argv[i]);
    }
    fputs(dir ? ")\n" : "\n", stderr);
}

/* The environment of a tool: ufnc's, with TMPDIR set to the private
 * directory.  nvcc (and gcc) put their own temporaries (tmpxft_*) there,
 * so that a signal, which ends the tool before it can clean up, leaves
 * none behind: the directory goes, with everything in it. */
static char *const *tool_environment(void)
{
    static char **env;
    if (env || !tempdir[0])
        return env ? env : environ;
    int n = 0;
    while (environ[n])
        n++;
    /* malloc, not the arena: it lives as long as the private directory,
     * which outlasts arena_reset() in a fuzzer that builds many modules */
    env = malloc(sizeof(char *) * (size_t)(n + 2));
    char *tmp = malloc(strlen(tempdir) + 8);
    if (!env || !tmp)
        die("out of memory");
    int k = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(environ[i], "TMPDIR=", 7) != 0)
            env[k++] = environ[i];
    sprintf(tmp, "TMPDIR=%s", tempdir);
    env[k++] = tmp;
    env[k] = NULL;
    return env;
}

/* Spawn argv in dir (NULL: here), its standard output and error into
 * `out_fd` (-1: ufnc's own), and wait for it.  Signals wait until the
 * child is recorded, so that on_signal ends it; the child itself starts
 * with the mask ufnc had.  `read_fd` (-1: none) is drained into `capture`
 * while the child runs. */
static int spawn_wait(const DriverOptions *opt, const char *dir, const char *const *argv, int out_fd, int read_fd,
                      Buf *capture)
{
    if (opt->verbose)
        print_command(dir, argv);
    sigset_t block, old;
    sigemptyset(&block);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&block, sigs[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &old);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (dir)
        posix_spawn_file_actions_addchdir_np(&fa, dir);
    if (out_fd >= 0) {
        posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
        posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
        posix_spawn_file_actions_addclose(&fa, out_fd);
    }
    if (read_fd >= 0)
        posix_spawn_file_actions_addclose(&fa, read_fd);
    int err = posix_spawnp(&pid, argv[0], &fa, &attr, (char *const *)argv, tool_environment());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (!err)
        child_pid = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (out_fd >= 0)
        close(out_fd);
    if (read_fd >= 0) {
        char chunk[4096];
        ssize_t n;
        while ((n = read(read_fd, chunk, sizeof chunk)) != 0)
            if (n > 0)
                buf_putn(capture, chunk, (size_t)n);
            else if (errno != EINTR)
                break;
        close(read_fd);
    }
    if (err) {
        diag_fatal("cannot run %s: %s", argv[0], strerror(err));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            child_pid = 0;
            diag_fatal("waiting for %s: %s", argv[0], strerror(errno));
            return -1;
        }
    child_pid = 0;
    if (WIFSIGNALED(status)) {
        diag_fatal("%s was killed by signal %d", argv[0], WTERMSIG(status));
        return -1;
    }
    return WEXITSTATUS(status);
}

int run_tool_in(const DriverOptions *opt, const char *dir, const char *const *argv)
{
    return spawn_wait(opt, dir, argv, -1, -1, NULL);
}

int run_tool_capture(const DriverOptions *opt, const char *dir, const char *const *argv, Buf *out)
{
    int fds[2];
    if (pipe(fds) != 0) {
        diag_fatal("cannot run %s: %s", argv[0], strerror(errno));
        return -1;
    }
    return spawn_wait(opt, dir, argv, fds[1], fds[0], out);
}

/* Run a command and capture its standard output (for nvcc --list-gpu-code). */
static char *capture(const DriverOptions *opt, const char *const *argv)
{
    if (opt->verbose)
        print_command(NULL, argv);
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    /* as every tool: TMPDIR the private directory, and ended on a signal */
    int err = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, tool_environment());
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (err) {
        close(fds[0]);
        return NULL;
    }
    child_pid = pid;
    Buf b = {0};
    char chunk[4096];
    ssize_t n;
    while ((n = read(fds[0], chunk, sizeof chunk)) > 0)
        buf_putn(&b, chunk, (size_t)n);
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    child_pid = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        buf_free(&b);
        return NULL;
    }
    char *s = arena_strndup(b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

static const char *in_path(const char *name);

/* Which file a tool's name runs: its real path, size and time.  Two
 * programs named cc may print the same --version (a wrapper that adds
 * -fsanitize=address, as make check-asan's does, execs the real cc), so the
 * version alone cannot tell their objects apart in the cache. */
static char *tool_identity(const char *tool)
{
    const char *path = strchr(tool, '/') ? tool : in_path(tool);
    char real[PATH_MAX];
    struct stat st;
    if (!path || !realpath(path, real) || stat(real, &st) != 0)
        return arena_printf("\n(tool %s: not found)", tool);
    return arena_printf("\n(tool %s: %s, %lld bytes, modified %lld.%09ld)", tool, real, (long long)st.st_size,
                        (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
}

/* A tool's `--version` text and which file it is, once per tool in a run
 * (the cache's key names the tool by them); NULL when the tool does not
 * answer. */
const char *tool_version(const DriverOptions *opt, const char *const *words)
{
    static struct {
        char *tool;
        const char *text;
    } seen[4];
    static int nseen;
    for (int i = 0; i < nseen; i++)
        if (!strcmp(seen[i].tool, words[0]))
            return seen[i].text;
    const char *argv[16];
    int n = 0;
    while (words[n] && n < 14) {
        argv[n] = words[n];
        n++;
    }
    argv[n++] = "--version";
    argv[n] = NULL;
    const char *text = capture(opt, argv);
    if (text)
        text = arena_printf("%s%s", text, tool_identity(words[0]));
    if (nseen < 4 && text) {
        seen[nseen].tool = strdup(words[0]);       /* outlives arena_reset(), as env does */
        seen[nseen++].text = strdup(text);
    }
    return text;
}

/* ---- the CUDA toolkit ---------------------------------------------------------------------------- */

static bool executable(const char *path)
{
    return path && access(path, X_OK) == 0;
}

static const char *in_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        char *cand = arena_printf("%.*s/%s", (int)len, path, name);
        if (len && executable(cand))
            return cand;
        path += len + (colon ? 1 : 0);
    }
    return NULL;
}

/* nvcc runs inside the private directory: a relative path given here
 * (--nvcc=./tools/nvcc) must name the same file from there. */
static const char *absolute(const char *path)
{
    char cwd[4096];
    if (!path || path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return path;
    return arena_printf("%s/%s", cwd, path);
}

const char *find_nvcc(const DriverOptions *opt, const char **why)
{
    if (opt->nvcc) {
        const char *p = strchr(opt->nvcc, '/') ? absolute(opt->nvcc) : in_path(opt->nvcc);
        if (executable(p))
            return p;
        *why = arena_printf("--nvcc=%s is not an executable", opt->nvcc);
        return NULL;
    }
    const char *env = getenv("NVCC");
    if (env && *env) {
        const char *p = strchr(env, '/') ? absolute(env) : in_path(env);
        if (executable(p))
            return p;
        *why = arena_printf("NVCC=%s is not an executable", env);
        return NULL;
    }
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        char *p = arena_printf("%s/bin/nvcc", home);
        if (executable(p))
            return p;
    }
    const char *p = in_path("nvcc");
    if (p)
        return p;
    if (executable("/usr/local/cuda/bin/nvcc"))
        return "/usr/local/cuda/bin/nvcc";
    *why = "nvcc not found (looked at --nvcc, $NVCC, $CUDA_HOME/bin, PATH and /usr/local/cuda/bin)";
    return NULL;
}

/* "sm_90" -> 90; 0 if not a plain SASS architecture (sm_90a, sm_100f). */
static int arch_number(const char *s, size_t len)
{
    if (len < 4 || strncmp(s, "sm_", 3) != 0)
        return 0;
    int v = 0;
    for (size_t i = 3; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Which of nvcc's device front ends (cicc) writes an architecture's PTX:
 * CUDA 13 uses NVVM 7 up to sm_90 and NVVM 20 from sm_100 (the PTX's
 * "Based on NVVM" line).  Within one front end the PTX for sm_75 and for
 * sm_90 differ in register numbering and little else: ptxas gives the
 * same spills from either, and the same registers for all but three test
 * modules (2-5 apart; bench/compile-time.md), so one PTX per front end is
 * enough. */
static int front_end_of(int arch)
{
    return arch >= 100 ? 100 : 75;
}

/* The nvcc arguments for SASS of every architecture and PTX of the newest
 * (later GPUs JIT it).  cicc, not ptxas, is most of a build's time, so it
 * runs once per front end: the oldest architecture of each front end
 * gives the PTX from which ptxas builds SASS for the rest of that front
 * end's architectures, and the newest is built from its own PTX, which is
 * the one embedded.  A list of 12 architectures costs 3 cicc runs, not 12. */
const char **gencode_args(const int *archs, int n, int *count)
{
    const char **list = arena_alloc(sizeof(char *) * (size_t)(2 * n + 1));
    int k = 0, newest = 0;
    for (int i = 0; i < n; i++)
        if (archs[i] > newest)
            newest = archs[i];
    for (int i = 0; i < n; i++) {
        if (archs[i] == newest) {
            list[k++] = "-gencode";
            list[k++] = arena_printf("arch=compute_%d,code=[sm_%d,compute_%d]", newest, newest, newest);
            continue;
        }
        int fe = front_end_of(archs[i]), oldest = archs[i], members = 0;
        bool seen = false; /* the group was written at an earlier member */
        Buf codes = {0};
        for (int j = 0; j < n; j++) {
            if (archs[j] == newest || front_end_of(archs[j]) != fe)
                continue;
            seen = seen || j < i;
            oldest = archs[j] < oldest ? archs[j] : oldest;
            buf_printf(&codes, "%ssm_%d", members++ ? "," : "", archs[j]);
        }
        if (!seen) {
            list[k++] = "-gencode";
            list[k++] = members == 1 ? arena_printf("arch=compute_%d,code=sm_%d", oldest, oldest)
                                     : arena_printf("arch=compute_%d,code=[%s]", oldest, codes.data);
        }
        free(codes.data);
    }
    *count = k;
    return list;
}

int default_archs(const DriverOptions *opt, const char *nvcc, int *archs)
{
    const char *argv[] = {nvcc, "--list-gpu-code", NULL};
    char *out = capture(opt, argv);
    if (!out)
        return 0;
    int count = 0;
    for (char *line = out; *line && count < MAX_ARCHS;) {
        char *end = line + strcspn(line, "\n");
        int v = arch_number(line, (size_t)(end - line));
        bool dup = false;
        for (int i = 0; i < count; i++)
            dup = dup || archs[i] == v;
        if (v >= 75 && !dup)
            archs[count++] = v;
        line = *end ? end + 1 : end;
    }
    return count;
}

int parse_archs(const char *list, int *archs, const char **error)
{
    int count = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int v = arch_number(p, len);
        if (!v && len > 8 && strncmp(p, "compute_", 8) == 0)
            v = arch_number(arena_printf("sm_%.*s", (int)len - 8, p + 8), len - 5);
        /* CMake's spelling (CUDA_ARCHITECTURES, UFN_ARCHITECTURES): 90, or
         * 90-real (SASS; ufnc adds the newest one's PTX as always) */
        size_t digits = strspn(p, "0123456789");
        if (!v && digits && (digits == len || (len - digits == 5 && !strncmp(p + digits, "-real", 5))))
            v = arch_number(arena_printf("sm_%.*s", (int)digits, p), digits + 3);
        if (!v || count == MAX_ARCHS) {
            *error = arena_printf("--arch: '%.*s' is not a GPU architecture such as sm_80", (int)len, p);
            return 0;
        }
        if (v < 75) {
            *error = arena_printf("--arch: sm_%d is older than sm_75, which CUDA 13 no longer supports", v);
            return 0;
        }
        archs[count++] = v;
        p += len + (p[len] == ',');
    }
    if (!count)
        *error = "--arch: empty architecture list";
    return count;
}

/* nvcc's all-major: the oldest architecture and every sm_X0 (with
 * CUDA 13: sm_75, sm_80, sm_90, sm_100, sm_110, sm_120), as
 * `nvcc --dryrun -arch=all-major` lists them. */
int major_archs(int *archs, int n)
{
    int oldest = 0, k = 0;
    for (int i = 0; i < n; i++)
        if (!oldest || archs[i] < oldest)
            oldest = archs[i];
    for (int i = 0; i < n; i++)
        if (archs[i] == oldest || archs[i] % 10 == 0)
            archs[k++] = archs[i];
    return k;
}

/* --arch=native: the compute capability of each GPU, asked of the CUDA
 * driver (libcuda.so.1, or $UFN_CUDA_LIBRARY as for the runtime), loaded
 * for the question only.  nvcc's own -arch=native falls back to sm_75
 * without a GPU and says so in a warning (aot-anchors 5.1): a silent
 * wrong target, so here no GPU is an error. */
int native_archs(int *archs, const char **why)
{
    typedef int (*InitFn)(unsigned);
    typedef int (*CountFn)(int *);
    typedef int (*GetFn)(int *, int);
    typedef int (*AttrFn)(int *, int, int);
    const char *env = getenv("UFN_CUDA_LIBRARY");
    const char *lib = env && *env ? env : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        *why = arena_printf("no CUDA driver to ask which GPUs this machine has (%s)", dlerror());
        return 0;
    }
    InitFn init = (InitFn)dlsym(h, "cuInit");
    CountFn count = (CountFn)dlsym(h, "cuDeviceGetCount");
    GetFn get = (GetFn)dlsym(h, "cuDeviceGet");
    AttrFn attr = (AttrFn)dlsym(h, "cuDeviceGetAttribute");
    int n = 0, r;
    if (!init || !count || !get || !attr)
        *why = arena_printf("%s lacks cuInit, cuDeviceGetCount, cuDeviceGet or cuDeviceGetAttribute", lib);
    else if ((r = init(0)) != 0)
        *why = arena_printf("the CUDA driver found no usable GPU (cuInit: error %d)", r);
    else if ((r = count(&n)) != 0 || n <= 0)
        *why = r ? arena_printf("cuDeviceGetCount: error %d", r) : "the CUDA driver reports no GPU";
    int k = 0;
    for (int i = 0; i < n && !*why; i++) {
        int dev, major = 0, minor = 0;
        /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, _MINOR */
        if (get(&dev, i) != 0 || attr(&major, 75, dev) != 0 || attr(&minor, 76, dev) != 0) {
            *why = arena_printf("cannot read the compute capability of GPU %d", i);
            break;
        }
        int v = major * 10 + minor;
        if (v < 75) {
            *why = arena_printf("GPU %d is sm_%d, older than sm_75, which CUDA 13 no longer supports", i, v);
            break;
        }
        int at = 0;                     /* kept in order: the build does not depend on the GPUs' */
        while (at < k && archs[at] < v)
            at++;
        if ((at < k && archs[at] == v) || k == MAX_ARCHS)
            continue;
        memmove(archs + at + 1, archs + at, sizeof *archs * (size_t)(k - at));
        archs[at] = v;
        k++;
    }
    dlclose(h);
    return *why ? 0 : k;
}

/* ---- support headers ----------------------------------------------------------------------------- */

int write_support_headers(const char *dir)
{
    for (const EmbeddedFile *e = embedded_files; e->name; e++) {
        if (strchr(e->name, '/'))
            continue;                           /* stdlib modules stay inside */
        char *path = arena_printf("%s/%s", dir, e->name);
        FILE *f = fopen(path, "w");
        if (!f || fputs(e->text, f) < 0 || fclose(f) != 0) {
            diag_fatal("cannot write %s: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* ---- dependency files ------------------------------------------------------------------------------ */

/* A file name quoted for make as gcc quotes it (libcpp's munge): a space
 * or tab gets a backslash, and the backslashes before it are doubled; '#'
 * gets a backslash; '$' is doubled.  Other backslashes stay as they are. */
const char *make_quote(const char *name)
{
    Buf b = {0};
    for (const char *p = name; *p; p++) {
        if (*p == ' ' || *p == '\t') {
            for (const char *q = p - 1; q >= name && *q == '\\'; q--)
                buf_putc(&b, '\\');
            buf_putc(&b, '\\');
        } else if (*p == '#')
            buf_putc(&b, '\\');
        else if (*p == '$')
            buf_putc(&b, '$');
        buf_putc(&b, *p);
    }
    const char *r = arena_strndup(b.data ? b.data : "", b.len);
    buf_free(&b);
    return r;
}

/* One name of a rule, wrapped as gcc wraps (libcpp's make_write_name):
 * a continuation line when the name would pass column 72. */
static unsigned write_name(Buf *out, const char *name, unsigned col)
{
    size_t size = strlen(name);
    if (col) {
        if (col + size > 72) {
            buf_puts(out, " \\\n");
            col = 0;
        }
        col++;
        buf_putc(out, ' ');
    }
    buf_puts(out, name);
    return col + (unsigned)size;
}

void depfile_text(Buf *out, const char *const *targets, int ntargets, const char *const *deps, int ndeps, bool phony)
{
    unsigned col = 0;
    for (int i = 0; i < ntargets; i++)
        col = write_name(out, targets[i], col);
    buf_putc(out, ':');
    col++;
    for (int i = 0; i < ndeps; i++)
        col = write_name(out, make_quote(deps[i]), col);
    buf_putc(out, '\n');
    if (phony)
        for (int i = 1; i < ndeps; i++)
            buf_printf(out, "%s:\n", make_quote(deps[i]));
}
