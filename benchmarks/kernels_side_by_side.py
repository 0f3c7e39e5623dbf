"""Two builds of the kernels #27's clean-up changed (`_auc`, `_slices`, `_means`), loaded side
by side in one process and timed interleaved (old, new, new, old, ...) in CPU time with one
thread, so that a changing machine load falls on both; outputs compared bit for bit.

    python benchmarks/kernels_side_by_side.py OLD_BUILD/csrc NEW_BUILD/csrc

Each argument is a folder holding the compiled extensions (a meson build's ``csrc``, e.g.
``build/cp311/csrc`` of an editable install). Prints a Markdown table.
"""

import glob
import importlib.machinery
import importlib.util
import statistics
import sys
import time

import numpy as np

from fastfair.auc.statistics import _sort_rows, _Sorted, _strata_sizes


def load(folder, name):
    """The extension `name` (``_auc``) of the build in `folder`, as a module of its own."""
    (path,) = glob.glob(f"{folder}/{name}.*.so")
    name = f"fastfair.{name}"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


mods = {
    side: {k: load(folder, f"_{k}") for k in ("auc", "slices", "means")}
    for side, folder in (("old", sys.argv[1]), ("new", sys.argv[2]))
}

rng = np.random.default_rng(3)
n = 10**6
g = (rng.random(n) < 0.1).astype(np.intp)
y = (rng.random(n) < 0.3).astype(np.uint8)
s = np.round(rng.normal(size=n) + y, 4)
order, codes8, y8 = _sort_rows(y, s, g)
srt = _Sorted.build(order, s, y8, codes8)
sizes = _strata_sizes(srt, 2, "within_outcome")
su = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + y)))
order2, c2, y2 = _sort_rows(y, su, g)
srt2 = _Sorted.build(order2, su, y2, c2)
sizes2 = _strata_sizes(srt2, 2, "within_outcome")
cells, sets, slices = 2000, 3, 1500
units = rng.integers(0, 500, cells).astype(np.int64)
smap = rng.integers(-1, slices, (sets, cells)).astype(np.int32)
mean, inv, thr = rng.random(slices) * 10, rng.random(slices), rng.random(slices) * 3


def cases(m):
    auc, sl, me = m["auc"], m["slices"], m["means"]
    tables = auc.sparse_tables(srt.packed, srt.n_pos)
    table = auc.rank_tables(srt2.packed, srt2.n_pos)
    a = (srt.packed, srt.n_pos, sizes, True, True, 100, 1, 0, 1, 0)
    a10 = (srt.packed, srt.n_pos, sizes, True, True, 10, 1, 0, 1, 0)
    a2 = (srt2.packed, srt2.n_pos, sizes2, True, True, 100, 1, 0, 1, 0)
    k = int(units.sum() // 3)
    return {
        "auc sparse (100 perms)": lambda: auc.permute_two_sparse(*a, tables),
        "auc tie blocks (100 perms)": lambda: auc.permute_two(*a, tables),
        "auc sweep (10 perms)": lambda: auc.permute_two(*a10),
        "auc ranks (100 perms)": lambda: auc.permute_two_ranks(*a2, table),
        "slice_null (499 perms)": lambda: sl.slice_null(
            units, k, smap, mean, inv, thr, 0, 499, 1, 0, 1, 0, True, False
        ),
        "slice_null subset (499 perms)": lambda: sl.slice_null(
            units, k, smap, mean, inv, thr, 0, 499, 1, 0, 1, 0, True, True
        ),
        "permutation_indices (20 x 1e5)": lambda: me.permutation_indices(10**5, 0, 20, 1, 0),
        "bootstrap_indices (20 x 1e5)": lambda: me.bootstrap_indices(10**5, 10**5, 0, 20, 1, 0),
    }


old, new = cases(mods["old"]), cases(mods["new"])


def same(x, z):
    xs, zs = (x if isinstance(x, tuple) else (x,)), (z if isinstance(z, tuple) else (z,))
    return all((p is None and q is None) or np.array_equal(p, q) for p, q in zip(xs, zs))


def cpu(f):
    t = time.process_time()
    out = f()
    return time.process_time() - t, out


print(f"load before: {open('/proc/loadavg').read().split()[:3]}")
print("| kernel | old CPU s (median of 6) | new CPU s (median of 6) | new / old | same output |")
print("|---|---:|---:|---:|---|")
for name in old:
    t_old, t_new, ok = [], [], True
    for i in range(6):
        pair = [("old", old[name]), ("new", new[name])]
        if i % 2:
            pair.reverse()
        outs = {}
        for side, f in pair:
            t, outs[side] = cpu(f)
            (t_old if side == "old" else t_new).append(t)
        ok = ok and same(outs["old"], outs["new"])
    mo, mn = statistics.median(t_old), statistics.median(t_new)
    print(
        f"| {name} | {mo:.3f} | {mn:.3f} | {mn / mo:.2f} | {'yes' if ok else 'NO'} |", flush=True
    )
print(f"load after: {open('/proc/loadavg').read().split()[:3]}")
