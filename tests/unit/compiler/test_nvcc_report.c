/* test_nvcc_report.c - nvcc_report.c: ptxas's resource usage and nvcc's
 * failures, as nvcc 13 prints them, read back into warnings and errors at
 * the .ufn functions (kernels by name, helpers by their mangled name, .ufn
 * lines), with the architectures named and ufnc's own lines not relayed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "passes.h"
#include "ufnc.h"

static const char module_text[] =
    "import math\n"
    "from numba import vectorize, cuda\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def twice(x):\n"
    "    return x * 2\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def fact(n):\n"
    "    if n <= 1:\n"
    "        return 1\n"
    "    return n * fact(n - 1)\n"
    "\n"
    "\n"
    "@vectorize(['float64(float64, float64)', 'float32(float32, float32)'])\n"
    "def sinplus(a, b):\n"
    "    return math.sin(a) + twice(b)\n"
    "\n"
    "\n"
    "@vectorize(['int64(int64)'])\n"
    "def f(n):\n"
    "    return fact(n)\n";

static Module *module;
static char *said;           /* what the report wrote: relayed lines and diagnostics */

static int setup(void **state)
{
    (void)state;
    diag_reset();
    SrcFile *src = src_from_memory("m.ufn", module_text, strlen(module_text));
    CheckOptions opt = {.module_name = "m", .prefix = ""};
    module = check_passes(parse_file(src), src, &opt);
    return diag_error_count() ? -1 : 0;
}

static void built(const char *text, bool show_usage)
{
    free(said);
    size_t len;
    FILE *out = open_memstream(&said, &len);
    diag_init(out, COLOR_NEVER, false, false);
    diag_reset();
    nvcc_report_built(out, module, text, show_usage);
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);
}

static void failed(const char *text, const int *bad, int nbad)
{
    static const int all[] = {80, 90, 100};
    free(said);
    size_t len;
    FILE *out = open_memstream(&said, &len);
    diag_init(out, COLOR_NEVER, false, false);
    diag_reset();
    nvcc_report_failed(out, module, text, 255, bad, nbad, all, 3);
    fclose(out);
    diag_init(stderr, COLOR_NEVER, false, false);
}

/* One architecture's report, as ptxas -v prints it through nvcc. */
static const char *job(const char *arch, const char *entry, int spill, const char *callee, int callee_spill)
{
    return arena_printf("ptxas info    : 272 bytes gmem\n"
                        "ptxas info    : Compiling entry function '%s' for '%s'\n"
                        "ptxas info    : Function properties for %s\n"
                        "    40 bytes stack frame, %d bytes spill stores, %d bytes spill loads\n"
                        "ptxas info    : Used 32 registers, used 0 barriers, 40 bytes cumulative stack size\n"
                        "ptxas info    : Compile time = 14.554 ms\n"
                        "ptxas info    : Function properties for %s\n"
                        "    0 bytes stack frame, %d bytes spill stores, %d bytes spill loads\n",
                        entry, arch, entry, spill, spill, callee, callee_spill, callee_spill);
}

/* A spill on two of three architectures: one warning at the ufunc's name,
 * for its signature, naming both; ptxas's lines are not relayed. */
static void test_spill_named(void **state)
{
    (void)state;
    const char *k = "m__sinplus__f64_f64__contig";
    built(arena_printf("%s%s%s", job("sm_80", k, 0, "__internal_trig_reduction_slowpathd", 0),
                       job("sm_90", k, 4, "__internal_trig_reduction_slowpathd", 0),
                       job("sm_100", "m__sinplus__f64_f64__strided", 8, "__internal_trig_reduction_slowpathd", 0)),
          false);
    assert_string_equal(said,
        "m.ufn:18:5: warning: sinplus('float64(float64, float64)'): ptxas spills registers to local memory on "
        "sm_90 and sm_100 (8 bytes); the kernel may run slower on those GPUs [-Wspill]\n"
        "    18 | def sinplus(a, b):\n"
        "       |     ^~~~~~~\n");
}

/* Spills in CUDA's own functions belong to the entry that calls them; a
 * helper is found by its mangled (static) name. */
static void test_spill_in_library_and_helper(void **state)
{
    (void)state;
    built(job("sm_90", "m__sinplus__f32_f32__contig", 0, "__internal_trig_reduction_slowpathd", 12), false);
    assert_non_null(strstr(said, "m.ufn:18:5: warning: sinplus('float32(float32, float32)'): ptxas spills registers "
                                 "to local memory in CUDA's __internal_trig_reduction_slowpathd on sm_90 (12 bytes)"));
    const char *helper = NULL;
    for (int i = 0; i < module->nhelpers; i++)
        if (!strcmp(module->helpers[i]->func->name, "twice"))
            helper = module->helpers[i]->cname;
    assert_non_null(helper);
    built(job("sm_80", "m__sinplus__f32_f32__contig", 0,
              arena_printf("_ZN38_INTERNAL_d38020f9_4_m_cu_d10b7670%zu%sEd", strlen(helper), helper), 4),
          false);
    assert_non_null(strstr(said, "m.ufn:6:5: warning: helper twice("));
    assert_non_null(strstr(said, "on sm_80 (4 bytes); the kernel may run slower on that GPU [-Wspill]"));
}

/* A recursive helper's stack is no spill to warn of. */
static void test_recursion_not_warned(void **state)
{
    (void)state;
    const char *fact = NULL;
    for (int i = 0; i < module->nhelpers; i++)
        if (module->helpers[i]->recursive)
            fact = module->helpers[i]->cname;
    assert_non_null(fact);
    built(job("sm_90", "m__f__i64__contig", 0,
              arena_printf("_ZN38_INTERNAL_d38020f9_4_m_cu_d10b7670%zu%sEl", strlen(fact), fact), 24),
          false);
    assert_string_equal(said, "");
}

/* nvcc's own messages are relayed; ptxas's report only when asked for. */
static void test_relay(void **state)
{
    (void)state;
    const char *text = arena_printf("nvcc warning : something about the toolkit\n%s",
                                    job("sm_80", "m__f__i64__contig", 0, "x", 0));
    built(text, false);
    assert_string_equal(said, "nvcc warning : something about the toolkit\n");
    built(text, true);
    assert_string_equal(said, text);
}

/* A failure names the functions nvcc's messages name (by kernel, by .ufn
 * line), the failed architectures, and an --arch without them. */
static void test_failure(void **state)
{
    (void)state;
    static const int bad[] = {90};
    failed(arena_printf("%sptxas error   : Entry function 'm__f__i64__strided' uses too much shared data\n",
                        job("sm_80", "m__f__i64__contig", 0, "x", 0)),
           bad, 1);
    assert_null(strstr(said, "ptxas info"));            /* the other architectures' reports */
    assert_non_null(strstr(said, "ptxas error   : Entry function 'm__f__i64__strided' uses too much shared data\n"));
    assert_non_null(strstr(said, "m.ufn:23:5: error: nvcc failed on the device code of f for sm_90 (exit status 255)"));
    assert_non_null(strstr(said, "ufnc: note: ufnc's generated code should always build: please report this with "
                                 "the module; meanwhile --arch=sm_80,sm_100 leaves sm_90 out"));
    failed("m.ufn(19): error: identifier \"y\" is undefined\n", NULL, 0);
    assert_non_null(strstr(said, "m.ufn:18:5: error: nvcc failed on the device code of sinplus for sm_80, sm_90 and "
                                 "sm_100 (exit status 255)"));
    failed("nvcc fatal   : Unsupported gpu architecture\n", NULL, 0);
    assert_non_null(strstr(said, "ufnc: error: nvcc failed on the device code of module m for sm_80, sm_90 and "
                                 "sm_100 (exit status 255)"));
    assert_non_null(strstr(said, "--target=host,sim builds without GPU code"));
}

static int teardown(void **state)
{
    (void)state;
    free(said);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spill_named),
        cmocka_unit_test(test_spill_in_library_and_helper),
        cmocka_unit_test(test_recursion_not_warned),
        cmocka_unit_test(test_relay),
        cmocka_unit_test(test_failure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
