/* cache.c - the device-code cache: what a tool made, kept by the content
 * of everything it read (issue 19).
 *
 * A key is the SHA-256 of: the cache format, ufnc's version and support
 * headers (the generated code includes them), the tool's own `--version`
 * text and path, its argument vector (the private directory's path written
 * as "@TMP@": it changes every run), and the name and bytes of each input
 * file.  An entry is one file named by the key's hex digits:
 *
 *   "ufnc-cache 1\n", u64 report length, the report (what the tool said:
 *   ptxas's resource usage, read again by nvcc_report.c on a hit),
 *   u64 payload length, the payload (the output file), SHA-256 of all that.
 *
 * Entries are written into a temporary name in the cache directory and
 * renamed into place, so concurrent runs see either no entry or a whole
 * one; a torn or damaged entry fails its checksum and is a miss (and is
 * replaced).  Used entries have their time updated; once the directory
 * holds more than the limit ($UFN_CACHE_SIZE, in MiB), the least recently
 * used go until it is at three quarters of it. */
#include "ufnc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "embedded.h"

#define CACHE_MAGIC "ufnc-cache 1\n"
#define DEFAULT_LIMIT_MIB 1024

/* ---- SHA-256 (FIPS 180-4) ---------------------------------------------------- */

typedef struct Sha256 {
    uint32_t h[8];
    unsigned char block[64];
    size_t fill;
    uint64_t total;
} Sha256;

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void sha_block(Sha256 *s, const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6],
             h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha_init(Sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->fill = 0;
    s->total = 0;
}

static void sha_update(Sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->total += len;
    while (len) {
        size_t n = 64 - s->fill < len ? 64 - s->fill : len;
        memcpy(s->block + s->fill, p, n);
        s->fill += n, p += n, len -= n;
        if (s->fill == 64) {
            sha_block(s, s->block);
            s->fill = 0;
        }
    }
}

static void sha_final(Sha256 *s, unsigned char out[32])
{
    uint64_t bits = s->total * 8;
    unsigned char pad = 0x80, zero = 0, len[8];
    sha_update(s, &pad, 1);
    while (s->fill != 56)
        sha_update(s, &zero, 1);
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_update(s, len, 8);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 4; k++)
            out[4 * i + k] = (unsigned char)(s->h[i] >> (24 - 8 * k));
}

void cache_sha256(const void *data, size_t len, unsigned char out[32])
{
    Sha256 s;
    sha_init(&s);
    sha_update(&s, data, len);
    sha_final(&s, out);
}

/* A field of the key: its length first, so that no two lists of fields
 * hash alike ("ab","c" and "a","bc"). */
static void field(Sha256 *s, const void *data, size_t len)
{
    uint64_t n = len;
    sha_update(s, &n, sizeof n);
    sha_update(s, data, len);
}

/* ---- the directory ------------------------------------------------------------------ */

const char *cache_dir(const DriverOptions *opt)
{
    if (opt->no_cache)
        return NULL;
    const char *dir = getenv("UFN_CACHE_DIR");
    if (dir && *dir)
        return dir;
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && *xdg == '/')
        return arena_printf("%s/ufnc", xdg);
    const char *home = getenv("HOME");
    if (home && *home)
        return arena_printf("%s/.cache/ufnc", home);
    return NULL;
}

/* mkdir -p, private to the user (0700, as ~/.cache should be) */
static bool make_dirs(const char *dir)
{
    char *path = arena_strndup(dir, strlen(dir));
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST)
                return false;
            *p = '/';
        }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

static bool read_whole(const char *path, Buf *out)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return false;
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        buf_putn(out, chunk, (size_t)n);
    close(fd);
    return n == 0;
}

/* ---- keys --------------------------------------------------------------------------- */

bool cache_key(char hex[65], const char *tool_version, const char *const *argv, const char *tmp,
               const char *const *inputs)
{
    Sha256 s;
    sha_init(&s);
    field(&s, CACHE_MAGIC UFNC_VERSION, strlen(CACHE_MAGIC UFNC_VERSION));
    for (const EmbeddedFile *e = embedded_files; e->name; e++) {
        field(&s, e->name, strlen(e->name));
        field(&s, e->text, strlen(e->text));
    }
    field(&s, tool_version, strlen(tool_version));
    size_t tmplen = strlen(tmp);
    for (int i = 0; argv[i]; i++) {
        const char *a = argv[i];
        const char *at = tmplen ? strstr(a, tmp) : NULL;
        const char *w = at ? arena_printf("%.*s@TMP@%s", (int)(at - a), a, at + tmplen) : a;
        field(&s, w, strlen(w));
    }
    for (int i = 0; inputs[i]; i++) {
        Buf b = {0};
        bool ok = read_whole(arena_printf("%s/%s", tmp, inputs[i]), &b);
        field(&s, inputs[i], strlen(inputs[i]));
        field(&s, b.data ? b.data : "", b.len);
        buf_free(&b);
        if (!ok)
            return false;
    }
    unsigned char h[32];
    sha_final(&s, h);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
    return true;
}

/* ---- entries ------------------------------------------------------------------------- */

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put64(Buf *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        buf_putc(b, (char)(v >> (8 * i)));
}

bool cache_get(const char *dir, const char *hex, const char *out_path, Buf *report)
{
    const char *path = arena_printf("%s/%s", dir, hex);
    Buf e = {0};
    bool ok = read_whole(path, &e);
    const unsigned char *p = (const unsigned char *)e.data;
    size_t n = e.len, m = strlen(CACHE_MAGIC);
    uint64_t rlen = 0, plen = 0;
    ok = ok && n >= m + 16 + 32 && !memcmp(p, CACHE_MAGIC, m);
    if (ok) {
        rlen = get64(p + m);
        ok = rlen <= n - m - 16 - 32;
    }
    if (ok) {
        plen = get64(p + m + 8 + rlen);
        ok = plen == n - m - 16 - 32 - rlen;
    }
    if (ok) {
        unsigned char sum[32];
        cache_sha256(p, n - 32, sum);
        ok = !memcmp(sum, p + n - 32, 32);
    }
    if (ok) {
        FILE *f = fopen(out_path, "wb");
        ok = f && fwrite(p + m + 16 + rlen, 1, plen, f) == plen;
        if (f && fclose(f) != 0)
            ok = false;
    }
    if (ok) {
        if (report)
            buf_putn(report, (const char *)p + m + 8, rlen);
        utimensat(AT_FDCWD, path, NULL, 0);          /* used now: the last to be trimmed */
    }
    buf_free(&e);
    return ok;
}

/* The least recently used entries go once the directory is over the
 * limit; temporaries older than an hour (a run that was killed) too. */
typedef struct Entry {
    char *name;
    time_t used;
    off_t size;
} Entry;

static int by_use(const void *a, const void *b)
{
    const Entry *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

static void trim(const char *dir)
{
    const char *env = getenv("UFN_CACHE_SIZE");
    long long limit = (env && *env ? atoll(env) : DEFAULT_LIMIT_MIB) * 1024 * 1024;
    DIR *d = opendir(dir);
    if (!d)
        return;
    Entry *list = NULL;
    size_t n = 0, cap = 0;
    long long total = 0;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        const char *path = arena_printf("%s/%s", dir, de->d_name);
        if (de->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (!strncmp(de->d_name, "tmp.", 4)) {
            if (now - st.st_mtime > 3600)
                unlink(path);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            Entry *grown = realloc(list, cap * sizeof *list);
            if (!grown)
                break;
            list = grown;
        }
        list[n++] = (Entry){.name = arena_printf("%s", path), .used = st.st_mtime, .size = st.st_size};
        total += st.st_size;
    }
    closedir(d);
    if (total > limit) {
        qsort(list, n, sizeof *list, by_use);
        for (size_t i = 0; i < n && total > limit / 4 * 3; i++)
            if (unlink(list[i].name) == 0)
                total -= list[i].size;
    }
    free(list);
}

bool cache_put(const char *dir, const char *hex, const char *payload_path, const char *report, size_t rlen)
{
    Buf payload = {0}, e = {0};
    if (!make_dirs(dir) || !read_whole(payload_path, &payload)) {
        buf_free(&payload);
        return false;                   /* no cache this time: the build goes on */
    }
    buf_puts(&e, CACHE_MAGIC);
    put64(&e, rlen);
    buf_putn(&e, report, rlen);
    put64(&e, payload.len);
    buf_putn(&e, payload.data ? payload.data : "", payload.len);
    unsigned char sum[32];
    cache_sha256(e.data, e.len, sum);
    buf_putn(&e, (const char *)sum, 32);
    char *tmp = arena_printf("%s/tmp.XXXXXX", dir);
    int fd = mkstemp(tmp);
    bool ok = fd >= 0;
    if (fd >= 0) {
        for (size_t off = 0; ok && off < e.len;) {
            ssize_t w = write(fd, e.data + off, e.len - off);
            if (w < 0 && errno != EINTR)
                ok = false;
            else if (w > 0)
                off += (size_t)w;
        }
        fchmod(fd, 0600);
        if (close(fd) != 0 || !ok || rename(tmp, arena_printf("%s/%s", dir, hex)) != 0) {
            unlink(tmp);
            ok = false;
        }
    }
    buf_free(&payload);
    buf_free(&e);
    trim(dir);
    return ok;
}
