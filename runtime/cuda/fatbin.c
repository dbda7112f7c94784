/* fatbin.c - which CUDA toolkit built a fatbin.
 *
 * A driver runs code from toolkits of its own major version or older: a
 * module built by CUDA 13 needs a CUDA 13 driver, whatever the oldest
 * driver the runtime itself accepts (UFN_CUDA_MIN_DRIVER).  The toolkit is
 * not named in a ufn_module, but its fatbin says it:
 *
 *   header   u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size
 *   entries  u16 kind (1 PTX, 2 ELF), u16, u32 header size, u64 payload
 *            size, ..., at offset 24 u16 minor, u16 major and u32 sm: a PTX
 *            entry's version is its PTX ISA's, and PTX ISA 9 came with
 *            CUDA 13, 8 with 12, 7 with 11
 *   ELF      a cubin carries ptxas's banner in its .note.nv.tkinfo:
 *            "Cuda compilation tools, release 13.0, V13.0.88"
 *
 * The newest toolkit any entry names wins; 0 when none does (a payload
 * compressed or a layout not known), and then nothing is checked.
 */
#include <stdlib.h>
#include <string.h>

#include "cudrv.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define KIND_PTX 1
#define KIND_ELF 2

static uint64_t get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* "Cuda compilation tools, release X.Y" inside p[0..n): 1000 X + 10 Y. */
static int banner_version(const unsigned char *p, size_t n)
{
    static const char key[] = "Cuda compilation tools, release ";
    size_t k = sizeof key - 1;
    for (size_t i = 0; i + k + 3 < n; i++) {
        if (memcmp(p + i, key, k) != 0)
            continue;
        const unsigned char *v = p + i + k, *end = p + n;
        int major = 0, minor = 0;
        while (v < end && *v >= '0' && *v <= '9' && major < 1000)
            major = major * 10 + (*v++ - '0');
        if (v < end && *v == '.')
            for (v++; v < end && *v >= '0' && *v <= '9' && minor < 100; v++)
                minor = minor * 10 + (*v - '0');
        if (major > 0)
            return major * 1000 + minor * 10;
    }
    return 0;
}

int ufn_fatbin_toolkit(const void *image, size_t size)
{
    const unsigned char *p = image;
    if (!p || size < 16 || get(p, 4) != FATBIN_MAGIC)
        return 0;
    uint64_t header = get(p + 6, 2), body = get(p + 8, 8);
    if (header < 16 || header > size || body > size - header)
        return 0;
    int best = 0;
    const unsigned char *e = p + header, *end = e + body;
    while ((size_t)(end - e) >= 32) {
        uint64_t kind = get(e, 2), ehead = get(e + 4, 4), payload = get(e + 8, 8);
        if (ehead < 32 || ehead > (uint64_t)(end - e) || payload > (uint64_t)(end - e) - ehead)
            break;
        int v = 0;
        if (kind == KIND_PTX) {
            uint64_t isa = get(e + 26, 2);
            v = isa >= 7 && isa < 100 ? (int)(isa + 4) * 1000 : 0;   /* ISA 9 -> CUDA 13 */
        } else if (kind == KIND_ELF) {
            v = banner_version(e + ehead, (size_t)payload);
        }
        if (v > best)
            best = v;
        e += ehead + payload;
    }
    return best;
}
