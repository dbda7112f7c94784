/* cmpdump - compare the results two backends computed for the same program.
 *
 *     cmpdump A.dump B.dump
 *
 * Both files are written by a program's --dump option (samples/sample.h and
 * tests/e2e/e2e.h write the same format): a line "ufn-dump 1", then for each
 * array a line "NAME DTYPE COUNT RULE" followed by its raw bytes.
 *
 * Every array must agree bit for bit.  Plain IEEE arithmetic is correctly
 * rounded, and ufnc's math functions are one implementation computed with
 * the same operations on every backend (ufn(7), "Accuracy of the math
 * functions"), so the host loops (any ISA, any thread count) and the
 * simulated GPU compute the same bits.  An array's rule says how the
 * program checked it against its own reference:
 *   exact             bit for bit
 *   close ATOL RTOL   |got - ref| <= ATOL + RTOL * |ref|
 * and must be the same in both files; across backends it changes nothing.
 *
 * Prints one line per array, saying what differed; exits 0 when everything
 * agrees, 1 otherwise, 2 when a file cannot be read.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dump_array {
    char name[64], dtype[16], rule[16];
    size_t count, elsize;
    double atol, rtol;
    unsigned char *data;
} dump_array;

typedef struct dump_file {
    const char *path;
    FILE *f;
} dump_file;

static size_t dtype_size(const char *dtype)
{
    static const struct { const char *name; size_t size; } sizes[] = {
        {"bool", 1}, {"int8", 1}, {"uint8", 1}, {"int16", 2}, {"uint16", 2},
        {"int32", 4}, {"uint32", 4}, {"float32", 4}, {"int64", 8}, {"uint64", 8},
        {"float64", 8}, {"complex64", 8}, {"complex128", 16},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (!strcmp(dtype, sizes[i].name))
            return sizes[i].size;
    return 0;
}

static _Noreturn void bad_file(const dump_file *d, const char *what)
{
    fprintf(stderr, "cmpdump: %s: %s\n", d->path, what);
    exit(2);
}

/* The next array of the file, or 0 at its end. */
static int read_array(dump_file *d, dump_array *a)
{
    char line[256];
    memset(a, 0, sizeof *a);
    if (!fgets(line, sizeof line, d->f))
        return 0;
    int n = sscanf(line, "%63s %15s %zu %15s %lf %lf", a->name, a->dtype, &a->count, a->rule,
                   &a->atol, &a->rtol);
    int close = n >= 4 && !strcmp(a->rule, "close");
    if (n < 4 || (strcmp(a->rule, "exact") && !close) || (close && n != 6))
        bad_file(d, "a header line is not \"NAME DTYPE COUNT exact|close ATOL RTOL\"");
    a->elsize = dtype_size(a->dtype);
    if (!a->elsize)
        bad_file(d, "unknown dtype");
    a->data = malloc(a->count * a->elsize + 1);
    if (!a->data || fread(a->data, a->elsize, a->count, d->f) != a->count)
        bad_file(d, "truncated array");
    return 1;
}

/* Element i as a double (complex: the part `part`), for messages. */
static double value(const dump_array *a, size_t i, int part)
{
    const unsigned char *p = a->data + i * a->elsize;
    if (!strcmp(a->dtype, "float32") || !strcmp(a->dtype, "complex64")) {
        float f;
        memcpy(&f, p + 4 * part, 4);
        return f;
    }
    if (!strcmp(a->dtype, "float64") || !strcmp(a->dtype, "complex128")) {
        double f;
        memcpy(&f, p + 8 * part, 8);
        return f;
    }
    int64_t v = 0;
    uint64_t u = 0;
    memcpy(&u, p, a->elsize);
    if (a->dtype[0] == 'u' || a->dtype[0] == 'b')
        return (double)u;
    v = (int64_t)(u << (64 - 8 * a->elsize)) >> (64 - 8 * a->elsize);   /* sign-extend */
    return (double)v;
}

/* Compare one array of A with the same array of B; print its line. */
static int compare(const dump_array *a, const dump_array *b)
{
    if (strcmp(a->name, b->name) || strcmp(a->dtype, b->dtype) || a->count != b->count ||
        strcmp(a->rule, b->rule)) {
        printf("  %-20s MISMATCH: %s %s[%zu] %s against %s %s[%zu] %s\n", a->name, a->name,
               a->dtype, a->count, a->rule, b->name, b->dtype, b->count, b->rule);
        return 1;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < a->count; i++) {
        if (!memcmp(a->data + i * a->elsize, b->data + i * b->elsize, a->elsize))
            continue;
        if (bad++ == 0)
            first = i;
    }
    if (bad) {
        printf("  %-20s MISMATCH: %zu of %zu %s values differ (must be bit-identical); first at [%zu]: "
               "%.17g against %.17g\n", a->name, bad, a->count, a->dtype, first, value(a, first, 0),
               value(b, first, 0));
        return 1;
    }
    printf("  %-20s %zu %s values, bit-identical: ok\n", a->name, a->count, a->dtype);
    return 0;
}

int main(int argc, char **argv)
{
    dump_file d[2];
    char line[64];
    if (argc != 3) {
        fprintf(stderr, "usage: cmpdump A.dump B.dump\n");
        return 2;
    }
    for (int k = 0; k < 2; k++) {
        d[k].path = argv[k + 1];
        d[k].f = fopen(d[k].path, "rb");
        if (!d[k].f) {
            perror(d[k].path);
            return 2;
        }
        if (!fgets(line, sizeof line, d[k].f) || strcmp(line, "ufn-dump 1\n"))
            bad_file(&d[k], "not a dump (no \"ufn-dump 1\" line)");
    }
    int failures = 0, arrays = 0;
    for (;;) {
        dump_array a, b;
        int ha = read_array(&d[0], &a), hb = read_array(&d[1], &b);
        if (!ha && !hb)
            break;
        if (ha != hb) {
            printf("  MISMATCH: %s has more arrays than %s (%s)\n", ha ? d[0].path : d[1].path,
                   ha ? d[1].path : d[0].path, ha ? a.name : b.name);
            failures++;
            free(a.data);
            free(b.data);
            break;
        }
        failures += compare(&a, &b);
        arrays++;
        free(a.data);
        free(b.data);
    }
    if (arrays == 0) {
        printf("  MISMATCH: the dumps hold no arrays\n");
        failures++;
    }
    return failures != 0;
}
