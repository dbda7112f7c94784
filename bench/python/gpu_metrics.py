"""Static GPU metrics of every sample kernel, without a GPU (perf.md 4.2, 6.2).

    python3 gpu_metrics.py UFNC SAMPLES_DIR [ARCH]

For each samples/*.ufn: ufnc's own nvcc run with --resource-usage (ptxas:
registers, spill bytes, stack frame) and ufnc -o x.ptx (per kernel: global
loads and stores by width, whether the contiguous kernel's loads and stores
are 128-bit, local memory, accurate vs approximate division).  One JSON line
per kernel, with bytes per element from the signature (ufnc -d types) and the
H100 time by perf.md's model.  Without nvcc: one line {"skipped": "no nvcc"}."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

H100_HBM = 3.35e12            # B/s, H100 SXM5 (perf.md 0)
HBM_EFFICIENCY = 0.9          # achievable fraction (perf.md 2.1)
PCIE = 50e9                   # B/s per direction, Gen5 x16 pinned (perf.md 2.1)
LAUNCH = 5e-6                 # s, launch + sync (perf.md 2.4)
HOST_FIXED = 20e-6            # s, per host-array call (perf.md 6.3)
STAGE = 16 << 20              # bytes per staging chunk (runtime/cuda/cuda_stage.c)
N = 10_000_000
# core sizes the seeds use, for bytes per item of the gufuncs
CORE = {'i': 2, 'gpu_polar': {'i': 2}, 'l2_norm': {'i': 16}}
SIZES = {'bool': 1, 'int8': 1, 'uint8': 1, 'int16': 2, 'uint16': 2, 'int32': 4, 'uint32': 4,
         'int64': 8, 'uint64': 8, 'float32': 4, 'float64': 8, 'complex64': 8, 'complex128': 16}
WIDTH_BITS = {'8': 8, '16': 16, '32': 32, '64': 64}


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def signatures(ufnc, src):
    """{C name: (kind, name, [arg types], ret)} from ufnc -d types."""
    out = run([ufnc, '-w', '-d', 'types', src]).stdout
    sigs = {}
    for m in re.finditer(r'^(ufunc|gufunc) (\w+)\((.*?)\) -> (\S+)\s+\[C: (\w+)\]', out, re.M):
        kind, name, args, ret, cname = m.groups()
        sigs[cname] = (kind, name, [a.strip() for a in re.split(r',\s*(?![^()]*\))', args) if a.strip()], ret)
    return sigs


def elem_size(t):
    m = re.match(r'array\((\w+),', t)
    return SIZES.get(m.group(1) if m else t, 0)


def bytes_per_item(sig, layout_core):
    kind, name, args, ret = sig
    if kind == 'ufunc':
        return sum(elem_size(a) for a in args), elem_size(ret)
    return None, None


def resource_usage(text):
    """{kernel: {regs, spill_stores, spill_loads, stack}} from ptxas -v output."""
    res, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function properties for (\w+)", line)
        if m:
            cur = res.setdefault(m.group(1), {})
            continue
        m = re.search(r'(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads', line)
        if m and cur is not None:
            cur.update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
            continue
        m = re.search(r'Compiling entry function \'(\w+)\'', line)
        if m:
            cur = res.setdefault(m.group(1), {})
            continue
        m = re.search(r'Used (\d+) registers', line)
        if m and cur is not None:
            cur['regs'] = int(m.group(1))
    return res


def ptx_kernels(text):
    """{kernel: body} of the .entry functions of a PTX file."""
    parts = re.split(r'^\.visible \.entry (\w+)\(', text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def access_widths(body):
    """Counts of global loads/stores by bits moved per instruction."""
    loads, stores = {}, {}
    for m in re.finditer(r'\b(ld|st)\.global(\.nc)?(?:\.v(\d))?\.[a-z]?(\d+)', body):
        op, _, vec, bits = m.groups()
        width = (int(vec) if vec else 1) * int(bits)
        d = loads if op == 'ld' else stores
        d[width] = d.get(width, 0) + 1
    return loads, stores


def model(nbytes_in, nbytes_out, n=N):
    dev = LAUNCH + n * (nbytes_in + nbytes_out) / (HBM_EFFICIENCY * H100_HBM)
    bin_, bout = n * nbytes_in, n * nbytes_out
    first_chunk = min(STAGE, bin_ + bout) / PCIE
    host = max(bin_ / PCIE, bout / PCIE) + first_chunk + HOST_FIXED
    return dev, host


def main(ufnc, samples, arch='sm_90'):
    if not shutil.which(os.environ.get('NVCC', 'nvcc')) and not shutil.which('nvcc'):
        print(json.dumps({'skipped': 'no nvcc'}))
        return 0
    tmp = tempfile.mkdtemp(prefix='bench-gpu-')
    try:
        for src in sorted(glob.glob(os.path.join(samples, '*.ufn'))):
            mod = os.path.splitext(os.path.basename(src))[0]
            sigs = signatures(ufnc, src)
            r = run([ufnc, '-w', '--arch=' + arch, '-Xnvcc', '--resource-usage', src,
                     '-o', os.path.join(tmp, mod + '.o')])
            if r.returncode != 0:
                print(json.dumps({'sample': mod, 'error': r.stderr.strip()[-500:]}))
                continue
            usage = resource_usage(r.stderr + r.stdout)
            ptx_path = os.path.join(tmp, mod + '.ptx')
            run([ufnc, '-w', '--arch=' + arch, src, '-o', ptx_path])
            with open(ptx_path) as f:
                ptx = ptx_kernels(f.read())
            for kname in sorted(usage):
                body = ptx.get(kname, '')
                loads, stores = access_widths(body)
                cname, _, form = kname.rpartition('__')
                sig = sigs.get(cname)
                line = {'sample': mod, 'kernel': kname, 'form': form, 'arch': arch, **usage[kname],
                        'loads_by_bits': loads, 'stores_by_bits': stores,
                        'local': len(re.findall(r'\b(?:ld|st)\.local', body)),
                        'div_rn': len(re.findall(r'div\.rn', body)),
                        'div_approx': len(re.findall(r'div\.(?:approx|full)', body)),
                        'fp64_ops': len(re.findall(r'\.f64\b', body))}
                if sig:
                    line['function'] = sig[1]
                    line['signature'] = '%s(%s)' % (sig[3], ', '.join(sig[2]))
                    bin_, bout = bytes_per_item(sig, None)
                    if bin_ is not None:
                        nin = len(sig[2])
                        line['bytes_per_element'] = bin_ + bout
                        line['inputs'] = nin
                        if form == 'contig':
                            line['vector128'] = loads.get(128, 0) >= nin and stores.get(128, 0) >= 1
                        dev, host = model(bin_, bout)
                        line['h100_device_1e7_s'] = dev
                        line['h100_host_1e7_s'] = host
                print(json.dumps(line), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
