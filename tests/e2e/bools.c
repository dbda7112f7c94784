/* bools - booleans whose bytes are not 0 or 1 (bools.ufn): not b, int(b),
 * a loop over them and indexing, through contiguous and strided operands.
 * A bool byte of 2 or 255 is True; `not` of it once gave 3 and 254. */
#include "e2e.h"
#include "bools.h"

int main(int argc, char **argv)
{
    e2e_start(argc, argv, "bools");

    uint8_t b[8] = {0, 1, 2, 255, 0, 128, 3, 1};
    int64_t n = 8;
    ufn_array B = ufn_host(b, UFN_BOOL, 1, &n);

    uint8_t r[8];
    ufn_array R = ufn_host(r, UFN_BOOL, 1, &n);
    e2e_begin("not b, contiguous");
    E2E_CALL(negate(&B, &R));
    for (int i = 0; i < 8; i++)
        E2E_CHECK(r[i] == (b[i] == 0), "not byte %d gave byte %d", b[i], r[i]);
    e2e_end();
    sample_dump_exact("negate", UFN_UINT8, r, 8);

    /* every other element: the strided kernel and host loop */
    int64_t half = 4, stride = 2, one = 1;
    uint8_t s[4];
    ufn_array BS = ufn_host_strided(b, UFN_BOOL, 1, &half, &stride), S = ufn_host(s, UFN_BOOL, 1, &half);
    e2e_begin("not b, strided");
    E2E_CALL(negate(&BS, &S));
    for (int i = 0; i < 4; i++)
        E2E_CHECK(s[i] == (b[2 * i] == 0), "not byte %d gave byte %d", b[2 * i], s[i]);
    e2e_end();

    int64_t x = 7, p[8];
    ufn_array X = ufn_host(&x, UFN_INT64, 0, &one), P = ufn_host(p, UFN_INT64, 1, &n);
    e2e_begin("int(b) * x");
    E2E_CALL(pick(&B, &X, &P));
    for (int i = 0; i < 8; i++)
        E2E_CHECK(p[i] == (b[i] ? 7 : 0), "int(byte %d) * 7 gave %lld", b[i], (long long)p[i]);
    e2e_end();
    sample_dump_exact("pick", UFN_INT64, p, 8);

    int64_t c = -1;
    ufn_array C = ufn_host(&c, UFN_INT64, 0, &one);
    e2e_begin("for v in a: if not v");
    E2E_CALL(count_false(&B, &C));
    E2E_CHECK(c == 2, "counted %lld false bytes, expected 2", (long long)c);
    e2e_end();

    uint8_t f[8];
    ufn_array F = ufn_host(f, UFN_BOOL, 1, &n);
    e2e_begin("out[i] = not a[i]");
    E2E_CALL(flip(&B, &F));
    E2E_CALL(flip_bool(1, 8, (const bool *)b, (bool *)f));   /* the typed entry: bool pointers */
    for (int i = 0; i < 8; i++)
        E2E_CHECK(f[i] == (b[i] == 0), "not a[%d] (byte %d) gave byte %d", i, b[i], f[i]);
    e2e_end();
    sample_dump_exact("flip", UFN_UINT8, f, 8);
    return e2e_finish();
}
