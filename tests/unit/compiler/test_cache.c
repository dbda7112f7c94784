/* test_cache.c - cache.c (SHA-256, keys, entries) and jobs.c (make's
 * jobserver), without nvcc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ufnc.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ufnc-test-cache.XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    return 0;
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(arena_printf("%s/%s", dir, name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_sha256_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *in, *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        unsigned char h[32];
        char hex[65];
        cache_sha256(v[i].in, strlen(v[i].in), h);
        for (int k = 0; k < 32; k++)
            snprintf(hex + 2 * k, 3, "%02x", h[k]);
        assert_string_equal(hex, v[i].hex);
    }
}

static void test_key_follows_inputs_flags_tool(void **state)
{
    (void)state;
    write_text("m.cu", "kernel one");
    const char *argv[] = {"nvcc", "-O3", "-o", "m.fatbin", "m.cu", NULL};
    const char *argv2[] = {"nvcc", "-O2", "-o", "m.fatbin", "m.cu", NULL};
    const char *inputs[] = {"m.cu", NULL};
    char k1[65], k2[65], k3[65], k4[65], k5[65];
    assert_true(cache_key(k1, "nvcc 13.0", argv, dir, inputs));
    assert_true(cache_key(k2, "nvcc 13.0", argv, dir, inputs));
    assert_string_equal(k1, k2);                            /* the same run, the same key */
    assert_true(cache_key(k3, "nvcc 13.0", argv2, dir, inputs));
    assert_true(cache_key(k4, "nvcc 13.1", argv, dir, inputs));
    write_text("m.cu", "kernel two");
    assert_true(cache_key(k5, "nvcc 13.0", argv, dir, inputs));
    assert_string_not_equal(k1, k3);
    assert_string_not_equal(k1, k4);
    assert_string_not_equal(k1, k5);
    const char *missing[] = {"nope.cu", NULL};
    assert_false(cache_key(k1, "nvcc 13.0", argv, dir, missing));
}

/* The private directory changes every run: only its place in an argument counts. */
static void test_key_ignores_private_directory(void **state)
{
    (void)state;
    write_text("m.c", "int x;");
    const char *inputs[] = {"m.c", NULL};
    const char *a1[] = {"cc", arena_printf("-fdebug-prefix-map=%s=.", dir), "m.c", NULL};
    const char *other = arena_printf("%s/other", dir);
    assert_int_equal(mkdir(other, 0700), 0);
    write_text("other/m.c", "int x;");
    const char *a2[] = {"cc", arena_printf("-fdebug-prefix-map=%s=.", other), "m.c", NULL};
    char k1[65], k2[65];
    assert_true(cache_key(k1, "cc 12", a1, dir, inputs));
    assert_true(cache_key(k2, "cc 12", a2, other, inputs));
    assert_string_equal(k1, k2);
}

static void test_put_get_and_damage(void **state)
{
    (void)state;
    const char *store = arena_printf("%s/store/sub", dir);
    const char *key = "00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff";
    write_text("out.bin", "the payload");
    assert_true(cache_put(store, key, arena_printf("%s/out.bin", dir), "ptxas info", 10));
    Buf report = {0};
    const char *got = arena_printf("%s/got.bin", dir);
    assert_true(cache_get(store, key, got, &report));
    assert_string_equal(read_text(got), "the payload");
    assert_int_equal(report.len, 10);
    assert_memory_equal(report.data, "ptxas info", 10);
    buf_free(&report);
    /* one byte changed: a miss */
    const char *entry = arena_printf("%s/%s", store, key);
    int fd = open(entry, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, "#", 1, 20), 1);
    close(fd);
    assert_false(cache_get(store, key, got, NULL));
    /* cut short: a miss */
    assert_true(cache_put(store, key, arena_printf("%s/out.bin", dir), "", 0));
    assert_true(cache_get(store, key, got, NULL));
    assert_int_equal(truncate(entry, 30), 0);
    assert_false(cache_get(store, key, got, NULL));
    assert_false(cache_get(store, "absent", got, NULL));
}

static void test_size_limit(void **state)
{
    (void)state;
    setenv("UFN_CACHE_SIZE", "0", 1);
    write_text("out.bin", "x");
    const char *key = "11";
    assert_true(cache_put(dir, key, arena_printf("%s/out.bin", dir), "", 0));
    unsetenv("UFN_CACHE_SIZE");
    struct stat st;
    assert_int_not_equal(stat(arena_printf("%s/%s", dir, key), &st), 0);     /* trimmed at once */
}

/* make's jobserver: a pipe holding the free slots. */
static void test_jobserver_pipe(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], "++", 2), 2);               /* two slots free (ours is the third) */
    setenv("MAKEFLAGS", arena_printf(" -j3 --jobserver-auth=%d,%d", p[0], p[1]), 1);
    assert_int_equal(jobs_threads(8), 3);
    assert_int_equal(jobs_threads(8), 3);                    /* no more to take */
    jobs_release();
    char back[4];
    int fl = fcntl(p[0], F_GETFL);
    fcntl(p[0], F_SETFL, fl | O_NONBLOCK);
    assert_int_equal(read(p[0], back, sizeof back), 2);      /* both given back */
    assert_int_equal(write(p[1], "+++", 3), 3);
    assert_int_equal(jobs_threads(2), 2);                    /* two architectures: one slot more */
    jobs_release();
    unsetenv("MAKEFLAGS");
    assert_int_equal(jobs_threads(8), 0);                    /* no make: every CPU */
    setenv("MAKEFLAGS", "s", 1);
    assert_int_equal(jobs_threads(8), 0);                    /* a serial make */
    unsetenv("MAKEFLAGS");
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test_setup_teardown(test_key_follows_inputs_flags_tool, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_ignores_private_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_put_get_and_damage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_limit, setup, teardown),
        cmocka_unit_test(test_jobserver_pipe),
    };
    return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
