"""The scaling model of several H100s and MPI ranks (issue 17): writes
bench/scaling.md, which report.py puts in RESULTS.md verbatim.

    python3 bench/python/scaling.py > bench/scaling.md

No GPU was measured: every number is the model of
/work/shared/reference/scale-out.md section 5 (and perf.md) applied to the
seeds' workloads as libufnrt runs them: one slab per device, all at once;
a reduction (ufn_fold) as log2(rows) levels of calls, each a launch, then
the devices' partial results combined on the first device by peer copies,
then across ranks by MPI.
"""
import math

# ---- inputs (scale-out.md 5.1, perf.md) ------------------------------------------------
HBM = 3.35e12          # H100 SXM HBM3, bytes/s
PCIE = 50e9            # pinned host<->device per GPU per direction (PCIe Gen5 x16; D2H 52.8 measured)
DRAM = 614e9           # two sockets of 8-channel DDR5-4800: every staged byte crosses it once
LAUNCH = 3e-6          # kernel enqueue
SYNC = 6e-6            # launch + synchronise; also a small copy and its wait
STAGE_FIXED = 15e-6    # a staged call's fixed cost: first chunk, events (perf.md: 10-20 us)
NVL_LAT = 10e-6        # a 4-byte peer copy over NVLink, with its wait (model)
MPI_NODE = 3e-6        # one MPI step between ranks of one node (shared memory)
MPI_NET = 3e-6         # one MPI step between nodes (InfiniBand NDR, 2-3 us)

N = 10 ** 8            # elements (rows for the gufuncs): the MPI sample's size
GPUS = (1, 2, 4, 8)

# name, bytes in, bytes out per element (per row for gufuncs), calls
WORKLOADS = [
    ('sqrt, float32', 4, 4, 1),
    ('arctan2, float32', 8, 4, 1),
    ('Gaussian pdf, float32', 4, 4, 1),
    ('polar gufunc (n, 2) float32', 8, 8, 1),
    ('l2_norm gufunc (n, 16) float32', 64, 4, 1),
    ('zero_suppress int16', 2, 2, 1),
    # normalize (4 in, 4 out), weigh (8, 4), activate (4, 4) on device
    # arrays; from the host: 8 B in, 4 B out
    ('hidden layer, 3 calls', 8, 4, 3),
]
HIDDEN_DEVICE_BYTES = 8 + 12 + 8


def device_time(wl, g):
    """Operands sharded on the devices: each device streams its slab."""
    name, bin_, bout, calls = wl
    moved = HIDDEN_DEVICE_BYTES if calls == 3 else bin_ + bout
    return N * moved / (g * HBM) + calls * LAUNCH


def host_time(wl, g):
    """Operands in one process's host memory, staged through pinned rings:
    each device's copies in and out overlap; host DRAM bounds them all."""
    name, bin_, bout, calls = wl
    links = max(N * bin_ / (g * PCIE), N * bout / (g * PCIE))
    return max(links, N * (bin_ + bout) / DRAM) + STAGE_FIXED + device_time(wl, g)


def fused_fold_time(g, rows=N, size=4):
    """The same with one pass per device (a reduce kernel): n bytes read."""
    return rows / g * size / HBM + LAUNCH + (g - 1) * (NVL_LAT + LAUNCH)


def fold_time(g, rows=N, size=4):
    """ufn_fold of a sharded float32 vector on g devices: log2 levels of
    pairwise calls (reads 2n, writes n in all), then g - 1 partial results
    brought to the first device and combined there, one call each."""
    per = rows / g
    levels = math.ceil(math.log2(per)) if per > 1 else 0
    return 3 * per * size / HBM + levels * LAUNCH + (g - 1) * (NVL_LAT + LAUNCH)


def ms(t):
    return '%.3g ms' % (t * 1e3) if t >= 1e-3 else '%.3g µs' % (t * 1e6)


def main():
    out = ['## Several H100s, by the model', '',
           'No GPU was available: these are the model of scale-out.md §5 with perf.md\'s '
           'inputs (HBM 3.35 TB/s; pinned PCIe 50 GB/s per direction per GPU; two sockets of '
           'host DRAM, 614 GB/s; 3 µs per launch, 6 µs for a launch and its wait), applied to '
           'the seeds\' workloads at n = 1e8 as libufnrt runs them on several devices: one '
           'slab per device, all at once (`UFN_DEVICES=all`). Written by '
           '`bench/python/scaling.py`; the split itself, its overlap and its transfers are '
           'tested on simulated devices (make check-multi).', '',
           '### Element-wise and gufunc calls, n = 1e8', '',
           '| workload | where the operands are | ' + ' | '.join('%d GPU%s' % (g, 's' * (g > 1)) for g in GPUS)
           + ' | 8 GPUs / 1 GPU |',
           '|---|---|' + '---|' * (len(GPUS) + 1)]
    for wl in WORKLOADS:
        for where, f in (('sharded on the devices', device_time), ('host memory', host_time)):
            ts = [f(wl, g) for g in GPUS]
            out.append('| %s | %s | %s | %.1f× |' % (wl[0], where, ' | '.join(ms(t) for t in ts),
                                                     ts[0] / ts[-1]))
    out += ['',
            'Sharded operands scale with the number of devices until a slab is too small to '
            'hide the launch (3 µs is the time to stream 10 MB): at 1e8 elements eight GPUs '
            'give 7-8×. Operands in host memory scale with the PCIe links until the host\'s '
            'DRAM binds: 8 bytes an element (sqrt) cross it at 614 GB/s in 1.3 ms, which six '
            'links match, so 8 GPUs give 6×, and in absolute terms a host-memory call is 20-65× '
            'slower than the same call on sharded operands. (The hidden layer\'s host row is '
            'its inputs copied in once and its result out once, as a device-array pipeline '
            'does; three host-array calls would stage the intermediates too.) That is why a '
            'pipeline should keep its arrays sharded (`ufn_to_device_sharded`) and call on '
            'them.', '',
            '### The hidden layer with a global sum (samples/mpi/hidden_layer), n = 1e8', '',
            'Three calls on sharded arrays, then `ufn_mpi_allreduce` of the sum: each rank '
            'folds its rows on its devices (`ufn_fold`: log2 levels of pairwise calls, so '
            '27 launches at 1e8 rows, 24 at 1.25e7), copies the 4-byte partial result to the '
            'host (6 µs; MPI here is not CUDA-aware, scale-out.md §3.1), and MPI combines the '
            'ranks\' results: log2(ranks) steps, 3 µs each in a node and between nodes.', '',
            '| layout | layer | fold on the devices | across ranks | total | vs 1 GPU |',
            '|---|---|---|---|---|---|']
    layer = WORKLOADS[-1]
    base = None
    rows = [('1 process, 1 GPU', 1, 1, 1),
            ('1 process, 2 GPUs', 2, 2, 1),
            ('1 process, 4 GPUs', 4, 4, 1),
            ('1 process, 8 GPUs', 8, 8, 1),
            ('8 ranks on 1 node, 1 GPU each', 8, 1, 8),
            ('64 ranks on 8 nodes, 1 GPU each', 64, 1, 64)]
    for label, gpus, per_rank, ranks in rows:
        t_layer = device_time(layer, gpus)
        t_fold = fold_time(per_rank, rows=N / ranks) + SYNC
        nodes = max(1, ranks // 8)
        steps_node = math.ceil(math.log2(min(ranks, 8))) if ranks > 1 else 0
        steps_net = math.ceil(math.log2(nodes)) if nodes > 1 else 0
        t_mpi = steps_node * MPI_NODE + steps_net * MPI_NET
        total = t_layer + t_fold + t_mpi
        base = base or total
        if gpus == 8 and per_rank == 8:
            fused8 = (total, total - t_fold + fused_fold_time(8) + SYNC)
        out.append('| %s | %s | %s | %s | %s | %.1f× |' % (label, ms(t_layer), ms(t_fold),
                                                          ms(t_mpi) if t_mpi else '–', ms(total),
                                                          base / total))
    out += ['',
            'The layer scales; the reduction scales less: `ufn_fold` reads the activations '
            'more than a fused reduction would (3 n bytes read and written by the levels, '
            'against n), and its launches, one per level, are a fixed ~80 µs that no device '
            'count removes. A single-kernel fold (one pass per device, a launch each) would '
            'take the 1-process 8-GPU total from @FUSED@, and the peer combination, one copy and one call per device in device order, is then most of what is left (a tree would take log2 steps); it is the reduce of the '
            '"methods" task (issue 17 part 1), which `ufn_fold` and the MPI operator will use '
            'when it lands. Across ranks, MPI adds microseconds: the data per rank is the '
            'result (4 bytes here; an axis reduction of S bytes adds about 2 S / 50 GB/s per '
            'node over InfiniBand, scale-out.md §5.2).', '']
    print('\n'.join(out).replace('@FUSED@', '%s to about %s' % (ms(fused8[0]), ms(fused8[1]))))


if __name__ == '__main__':
    main()
