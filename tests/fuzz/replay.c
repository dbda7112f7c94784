/* replay.c - a main() for a fuzz target without libFuzzer: run every file
 * named on the command line (directories: every file inside, in name
 * order) through LLVMFuzzerTestOneInput once.  Built with the ordinary
 * compiler and the sanitizers, it replays the corpus and the regression
 * inputs where clang's libFuzzer is missing, and under valgrind. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long runs;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0, n;
    uint8_t *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return 1;
    }
    /* libFuzzer hands the target a buffer of exactly `len` bytes; so do we,
     * so that ASan catches a read past the end. */
    uint8_t *exact = malloc(len ? len : 1);
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    runs++;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path);
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return 1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
        sprintf(names[n++], "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad |= run_path(names[i]);
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++)
        bad |= run_path(argv[i]);
    printf("replay: %ld inputs, no crash\n", runs);
    return bad;
}
