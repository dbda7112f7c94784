/* simcheck.c - the shared-memory race detector (compute-sanitizer's
 * racecheck, on the CPU).
 *
 * Two accesses to one byte of a block's shared memory race when different
 * threads make them in the same barrier interval, at least one is a plain
 * write, and they are not both atomic, unless the two threads are lanes of
 * one warp that synchronised in between (a warp function or syncwarp).  The
 * check is about the program, not about the order the simulator happened to
 * run the threads in: a racy kernel whose result looks right is still
 * reported (reference/kernels.md 4.2).
 *
 * Each byte has a shadow entry stamped with the barrier interval (epoch) of
 * the accesses it records; an entry of an older epoch counts as empty, so
 * the engine never clears the shadow: it only starts a new epoch at every
 * barrier and every block.  An entry remembers the last plain writer, the
 * plain reader and the atomic accessor (or that there were several), each
 * with the source line of its access: enough to name the other side.
 */
#include <string.h>

#include "simt.h"

const char *ufn_access_name(int kind)
{
    switch (kind) {
    case UFN_ACCESS_READ: return "read";
    case UFN_ACCESS_WRITE: return "write";
    default: return "atomic";
    }
}

static uint32_t warp_of(uint32_t id)
{
    return id / 32;
}

/* Is the earlier access by thread `other` (id + 1) at warp sync count
 * `sync` ordered before the current one? */
static bool ordered(const ufn_accessor *who, uint16_t other, uint32_t sync)
{
    uint32_t w = warp_of(who->thread);
    return other == who->thread + 1 ||
           (warp_of(other - 1u) == w && who->warp_syncs[w] > sync);
}

/* One side of a possible race: who made the earlier access, and where. */
typedef struct side {
    uint16_t id;
    const char *file;
    int line;
} side;

static bool conflict(const ufn_accessor *who, side s, uint32_t sync, int other_kind,
                     size_t offset, int kind, ufn_race *race)
{
    if (s.id == 0 || ordered(who, s.id, sync))
        return false;
    *race = (ufn_race){ kind, other_kind, s.id - 1u, offset, s.file, s.line };
    return true;
}

/* Check one byte's entry against the access, then record the access.  A
 * second distinct reader (or atomic accessor) turns the field into MANY:
 * `reader_warp` then says whether all readers were lanes of one warp (-2:
 * of several), `rsync` is the least sync count among them, and the site
 * kept is the first reader's. */
static bool check_byte(ufn_shadow *e, size_t offset, int kind, const ufn_accessor *who,
                       ufn_race *race)
{
    if (e->epoch != who->epoch) {
        memset(e, 0, sizeof *e);
        e->epoch = who->epoch;
        e->reader_warp = -1;
    }
    uint16_t me = (uint16_t)(who->thread + 1);
    side w = { e->writer, e->wfile, e->wline };
    side r = { e->reader, e->rfile, e->rline };
    side a = { e->atomic, e->afile, e->aline };
    uint32_t my_warp = warp_of(who->thread);

    /* Several readers: any of another warp than ours races with a write,
     * and so do lanes of ours unless the warp synchronised since the first. */
    bool readers_race = false;
    if (kind != UFN_ACCESS_READ && e->reader == UFN_SHADOW_MANY) {
        readers_race = e->reader_warp != (int16_t)my_warp ||
                       who->warp_syncs[my_warp] <= e->rsync;
        r.id = 0;
    }
    if (kind != UFN_ACCESS_ATOMIC && e->atomic == UFN_SHADOW_MANY) {
        *race = (ufn_race){ kind, UFN_ACCESS_ATOMIC, UINT32_MAX, offset, e->afile, e->aline };
        return false;
    }
    if (conflict(who, w, e->wsync, UFN_ACCESS_WRITE, offset, kind, race))
        return false;
    if (kind != UFN_ACCESS_READ) {
        if (readers_race) {
            *race = (ufn_race){ kind, UFN_ACCESS_READ, UINT32_MAX, offset, e->rfile, e->rline };
            return false;
        }
        if (conflict(who, r, e->rsync, UFN_ACCESS_READ, offset, kind, race))
            return false;
    }
    if (kind != UFN_ACCESS_ATOMIC && conflict(who, a, e->async, UFN_ACCESS_ATOMIC, offset, kind, race))
        return false;

    uint32_t sync = who->warp_syncs[my_warp];
    switch (kind) {
    case UFN_ACCESS_WRITE:
        e->writer = me;
        e->wsync = sync;
        e->wfile = who->file;
        e->wline = who->line;
        break;
    case UFN_ACCESS_READ:
        if (e->reader == 0) {
            e->reader = me;
            e->reader_warp = (int16_t)my_warp;
            e->rsync = sync;
            e->rfile = who->file;
            e->rline = who->line;
        } else if (e->reader != me) {
            if (e->reader_warp != (int16_t)my_warp)
                e->reader_warp = -2;       /* lanes of several warps */
            if (sync < e->rsync)
                e->rsync = sync;
            e->reader = UFN_SHADOW_MANY;
        }
        break;
    default:
        if (e->atomic == 0) {
            e->atomic = me;
            e->async = sync;
            e->afile = who->file;
            e->aline = who->line;
        } else if (e->atomic != me) {
            e->atomic = UFN_SHADOW_MANY;
        }
        break;
    }
    return true;
}

bool ufn_shadow_access(ufn_shadow *sh, size_t offset, size_t n, int kind,
                       const ufn_accessor *who, ufn_race *race)
{
    for (size_t i = 0; i < n; i++)
        if (!check_byte(&sh[i], offset + i, kind, who, race))
            return false;
    return true;
}
