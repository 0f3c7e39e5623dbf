"""Predictive parity when calibration is identical but score densities and users are not (#33).

Null data: every row's outcome is Bernoulli(its score), in every group (calibration exact).
Users differ in where their scores sit: a user's location is N(mu_g, loc_sd^2) on the logit
scale and a row's score is expit(location + N(0, 0.3^2)); "shifted" cells give the groups
different mu_g (the score densities differ), "equal" cells the same. Rows per user are
1 + Poisson(4) ("poisson") or floor(U^(-1/1.1)) capped at 40 ("pareto", 1-40 rows). In
cells with a dominant user, the first group's first user holds a share `dom` of its group's
rows. Outcomes are correlated within a user by a Gaussian copula (y = [Phi(z) < p],
z = sqrt(rho) e_user + sqrt(1 - rho) e_row), which keeps P(y = 1 | s) = s exactly. Power
twins add `delta` to the first group's outcome probability.

Each data set is tested with the library's default grid (50 points) and bandwidth; from the
per-user kernel sums every method below is computed on the same data:

  old     fastfair <= #33 default: each group's variance from its own residuals
          (Nadaraya-Watson, CR2, Bell-McCaffrey/Satterthwaite t), Holm over the t p-values,
          Gaussian multiplier bootstrap of the CR2 scores for the maximum.
  new     the #33 default: the same estimate, studentized by the variance under the null.
          Scores centred at the pooled (all groups) curve f0, V_g = sum_m (a_m - f0 b_m)^2 /
          B_g^2 (first-pass sums), floored at the pooled residual variance per unit of
          sum b^2: sigma^2 sum_{m in g} b_m^2 / B_g^2, sigma^2 = sum_all (a_m - f0 b_m)^2 /
          sum_all b_m^2 (the two-proportion score test's pooled variance; it keeps a group
          with no positive near a point from a variance f0^2 / n_eff instead of
          f0 (1 - f0) / n_eff); normal (chi-square) reference, Holm, and the multiplier
          bootstrap of the centred scores studentized by the same variance.
  new_own as new without the floor (each group's own centred residuals only).
  old_ob  diagnostic for suspect 1: "old" with every group's estimate corrected by its
          exact conditional smoothing bias sum k_i (s_i - s) / sum k_i (m(s) = s): if the
          over-rejection were smoothing bias, this would remove it.

Tests: "mid" = the pointwise test at the middle grid point; "holm" = any Holm rejection over
the tested points; "sim" = the simultaneous (max) test, 999 multiplier draws. Rejection rates
at alpha 0.05 with binomial Monte-Carlo SE; "*" marks a rate more than 3 SE above alpha.
The quick mode checks "old" and "new" against ``predictive_parity_test``.

Usage: python validation/parity_dependent_null.py [--quick] [--scale X] [--cells A,B]
           [--only null|power] [--methods old,new] [--jsonl FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings

if __name__ == "__main__":  # one BLAS thread: n_jobs=1 on a shared machine
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from scipy import special, stats

from fastfair import _kernel_sums
from fastfair._clustered import choose_bandwidth, make_grid, prepare

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import bell_mccaffrey_df, git_commit

ALPHA = 0.05
N_MULT = 999
METHODS = ("old", "new", "new_own")
BIAS_METHODS = ("old", "old_ob")  # the smoothing-bias experiment (--bias)
#: name -> (settings, null data sets, power data sets, delta). The first three are issue 33's.
CELLS = {
    "issue1": (dict(users=(40, 400), locs=(-0.3, -1.0), dom=0.4, rho=0.0), 2000, 500, 0.15),
    "issue2": (dict(users=(40, 400), locs=(-0.3, -1.0), dom=0.4, rho=0.8), 2000, 500, 0.15),
    "issue3": (
        dict(users=(60, 300), locs=(-0.3, -1.0), rows="pareto", loc_sd=1.2, dom=0.0, rho=0.5),
        2000, 500, 0.15,
    ),
    "equal_dom40": (dict(users=(40, 400), locs=(-0.6, -0.6), dom=0.4, rho=0.8), 2000, 500, 0.15),
    "u20_dom50": (dict(users=(20, 1000), locs=(-0.3, -1.0), dom=0.5, rho=0.9), 2000, 500, 0.25),
    "u200_dom10": (dict(users=(200, 200), locs=(-0.3, -1.0), dom=0.1, rho=0.3), 2000, 500, 0.1),
    "u1000": (dict(users=(1000, 1000), locs=(0.0, -1.0), dom=0.1, rho=0.0), 2000, 500, 0.05),
    "three": (
        dict(users=(40, 200, 400), locs=(-0.3, -0.6, -1.0), dom=0.25, rho=0.5), 2000, 500, 0.15,
    ),
    "three_small": (
        dict(users=(20, 100, 1000), locs=(-0.6, -0.6, -0.6), dom=0.3, rho=0.9), 2000, 500, 0.25,
    ),
    "pareto_equal": (
        dict(users=(60, 300), locs=(-0.6, -0.6), rows="pareto", loc_sd=1.2, dom=0.0, rho=0.5),
        2000, 500, 0.15,
    ),
    "u20": (dict(users=(20, 20), locs=(-0.3, -1.0), dom=0.0, rho=0.0), 2000, 500, 0.25),
    "six": (
        dict(users=(40, 60, 100, 200, 300, 400), locs=(-0.6,) * 6, dom=0.2, rho=0.5),
        2000, 500, 0.15,
    ),
}  # fmt: skip


def simulate(rng, users, locs, loc_sd=0.8, rows="poisson", dom=0.0, rho=0.0, delta=0.0):
    """(y, score, group, user) of one data set; see the module docstring."""
    grp, nrow, loc = [], [], []
    for g, (m, mu) in enumerate(zip(users, locs)):
        if rows == "poisson":
            n = 1 + rng.poisson(4, m)
        else:
            n = np.minimum(np.floor(rng.random(m) ** (-1 / 1.1)), 40).astype(np.int64)
        if g == 0 and dom > 0:
            n[0] = max(1, round(dom / (1 - dom) * n[1:].sum()))
        grp.append(np.full(m, g))
        nrow.append(n)
        loc.append(rng.normal(mu, loc_sd, m))
    grp, nrow, loc = map(np.concatenate, (grp, nrow, loc))
    user = np.repeat(np.arange(grp.size), nrow)
    s = special.expit(loc[user] + rng.normal(0, 0.3, user.size))
    z = np.sqrt(rho) * rng.standard_normal(grp.size)[user]
    z = z + np.sqrt(1 - rho) * rng.standard_normal(user.size)
    p = np.clip(s + delta * (grp[user] == 0), 0, 1)
    return (special.ndtr(z) < p).astype(float), s, grp[user], user


def user_sums(y, s, g, user, bias=False):
    """Default grid and bandwidth; weighted per-user sums a, b and (bias=True) the
    conditional-bias numerator c = sum_i k_i (s_i - s) (else None)."""
    prep = prepare(y, s, g, user, "per_user", "raise", None, min_groups=2)
    h, _ = choose_bandwidth(prep, "rule_of_thumb", "gaussian", 1)
    grid = make_grid(50, prep)
    if not bias:  # the library's kernel pass (compiled)
        a, b = _kernel_sums.cluster_contributions(
            prep.score, prep.y, None, prep.starts, grid, h, "gaussian", 1
        )
        w = prep.cluster_weight[:, None]
        return a * w, b * w, None, prep.cluster_group, grid
    w = np.repeat(prep.cluster_weight, np.diff(prep.starts))
    d = prep.score[:, None] - grid[None, :]
    k = np.exp(-0.5 * (d / h) ** 2) * w[:, None]
    k[np.abs(d) > 8 * h] = 0.0
    starts = prep.starts[:-1]
    a = np.add.reduceat(k * prep.y[:, None], starts, axis=0)
    b = np.add.reduceat(k, starts, axis=0)
    c = np.add.reduceat(k * d, starts, axis=0)
    return a, b, c, prep.cluster_group, grid


def method_parts(name, a, b, c, cg):
    """Per group: estimate f (G,), scaled scores U (M_g, G), df (G,), n_eff (G,)."""
    K = int(cg.max()) + 1
    f0 = a.sum(0) / np.where(b.sum(0) > 0, b.sum(0), 1.0)
    out = []
    for k in range(K):
        A, B = a[cg == k], b[cg == k]
        S0 = B.sum(0)
        pos = S0 > 0
        S0 = np.where(pos, S0, 1.0)
        f = np.where(pos, A.sum(0) / S0, np.nan)
        if name == "old_ob":
            f = f - c[cg == k].sum(0) / S0
        fn = np.nan_to_num(f)
        neff = np.where(pos, S0 * S0 / np.maximum((B * B).sum(0), 1e-300), 0.0)
        p = np.clip(B / S0, 0, 0.999999)
        if name in ("old", "old_ob"):
            u = (A - (A.sum(0) / S0) * B) / S0 / np.sqrt(1 - p)
            df = bell_mccaffrey_df(p)
        else:  # new, new_own: scores centred at the pooled curve, normal reference
            u = (A - f0 * B) / S0
            df = np.full(S0.shape, np.inf)
        out.append([fn, u, df, neff, (u * u).sum(0)])
    if name == "new":  # floor: the pooled residual variance per unit of sum b^2
        bb = [(b[cg == k] ** 2).sum(0) for k in range(K)]
        s0 = [b[cg == k].sum(0) for k in range(K)]
        num = sum(q[4] * s * s for q, s in zip(out, s0))
        with np.errstate(divide="ignore", invalid="ignore"):
            sigma2 = num / sum(bb)
            for q, x, s in zip(out, bb, s0):
                q[4] = np.maximum(q[4], np.nan_to_num(sigma2 * x / (s * s)))
    return out


def test(parts, rng_normals):
    """Pointwise p (G,) and simultaneous p of one method (NaN where untested)."""
    K = len(parts)
    f = np.array([q[0] for q in parts])
    V = np.array([(q[1] ** 2).sum(0) if len(q) < 5 else q[4] for q in parts])
    df = np.array([q[2] for q in parts])
    tested = np.all([q[3] >= 5 for q in parts], axis=0) & (V > 0).all(0)
    G = f.shape[1]
    pv = np.full(G, np.nan)
    idx = np.flatnonzero(tested)
    if idx.size == 0:
        return pv, np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        if K == 2:
            stat = (f[0] - f[1]) / np.sqrt(V[0] + V[1])
            dfw = (V[0] + V[1]) ** 2 / (V[0] ** 2 / df[0] + V[1] ** 2 / df[1])
            dfw = np.where(np.isnan(dfw), np.inf, dfw)
            pv[idx] = np.where(
                np.isinf(dfw[idx]),
                2 * special.ndtr(-np.abs(stat[idx])),
                2 * stats.t.sf(np.abs(stat[idx]), np.minimum(dfw[idx], 1e300)),
            )
            obs = special.ndtri(pv[idx] / 2) ** 2
        else:
            prec = 1 / V
            fbar = (f * prec).sum(0) / prec.sum(0)
            W = ((f - fbar) ** 2 * prec).sum(0)
            dfm = np.where(np.isnan(df.min(0)), np.inf, df.min(0))[idx]
            pv[idx] = np.where(
                np.isinf(dfm),
                stats.chi2.sf(W[idx], K - 1),
                stats.f.sf(W[idx] / (K - 1), K - 1, np.minimum(dfm, 1e300)),
            )
            obs = stats.chi2.isf(pv[idx], K - 1)
    draws = []
    for q in parts:
        U = q[1][:, idx]
        vals, vecs = np.linalg.eigh(U.T @ U)
        root = (vecs * np.sqrt(np.clip(vals, 0, None))) @ vecs.T
        draws.append(rng_normals[len(draws), :, : idx.size] @ root)
    D = np.array(draws)  # (K, N_MULT, P)
    Vi = V[:, idx][:, None, :]
    if K == 2:
        Ws = (D[0] - D[1]) ** 2 / (Vi[0] + Vi[1])
    else:
        fb = (D / Vi).sum(0) / (1 / Vi).sum(0)
        Ws = ((D - fb) ** 2 / Vi).sum(0)
    mx = Ws.max(1)
    return pv, (1 + np.sum(mx >= obs.max() * (1 - 1e-12))) / (N_MULT + 1)


def holm_any(pv):
    p = pv[np.isfinite(pv)]
    return bool(p.size and p.min() <= ALPHA / p.size)


def run_cell(name, settings, reps, delta, seed, methods=METHODS):
    """Rejection counts of every method (mid, holm, sim) and diagnostics."""
    rng = np.random.default_rng([seed, list(CELLS).index(name), int(delta > 0)])
    counts = {m: [0, 0, 0] for m in methods}
    n_tested = {m: 0 for m in methods}
    bias = "old_ob" in methods
    ratios = []  # bias experiment: largest |conditional bias of the difference| / its SE
    t0 = time.perf_counter()
    K = len(settings["users"])
    for _ in range(reps):
        y, s, g, u = simulate(rng, delta=delta, **settings)
        a, b, c, cg, grid = user_sums(y, s, g, u, bias)
        normals = rng.standard_normal((K, N_MULT, grid.size))
        for m in methods:
            pv, psim = test(method_parts(m, a, b, c, cg), normals)
            mid = grid.size // 2
            counts[m][0] += bool(np.isfinite(pv[mid]) and pv[mid] < ALPHA)
            counts[m][1] += holm_any(pv)
            counts[m][2] += bool(np.isfinite(psim) and psim < ALPHA)
            n_tested[m] += int(np.isfinite(pv).sum())
        if bias:
            ratios.append(bias_ratio(a, b, c, cg))
    return dict(
        cell=name, delta=delta, reps=reps, counts=counts, seconds=time.perf_counter() - t0,
        methods=list(methods),
        mean_tested={m: v / reps for m, v in n_tested.items()},
        bias_ratio=[float(np.mean(ratios)), float(np.quantile(ratios, 0.95))] if bias else None,
    )  # fmt: skip


def bias_ratio(a, b, c, cg):
    """max over tested points of |smoothing bias of the difference| / its (old) SE: the
    exact conditional bias of each group's estimate when m(s) = s is sum_i k_i (s_i - s) /
    sum_i k_i (K = 2: first group minus second; more groups: largest pairwise)."""
    parts = method_parts("old", a, b, c, cg)
    se2 = np.array([(q[1] ** 2).sum(0) for q in parts])
    tested = np.all([q[3] >= 5 for q in parts], axis=0)
    bias = np.array([c[cg == k].sum(0) / b[cg == k].sum(0) for k in range(len(parts))])
    worst = 0.0
    for i in range(len(parts)):
        for j in range(i + 1, len(parts)):
            r = np.abs(bias[i] - bias[j]) / np.sqrt(se2[i] + se2[j])
            worst = max(worst, float(np.max(r[tested], initial=0.0)))
    return worst


def library_check(seed=3):
    """Largest |p| differences of "old" and "new" against ``predictive_parity_test``."""
    from fastfair.parity import predictive_parity_test

    rng = np.random.default_rng(seed)
    y, s, g, u = simulate(rng, **CELLS["issue1"][0])
    a, b, c, cg, _ = user_sums(y, s, g, u)
    out = {}
    normals = np.zeros((2, N_MULT, 50))
    for name, kwargs in (("old", dict(variance="separate")), ("new", {})):
        mine = test(method_parts(name, a, b, c, cg), normals)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib = predictive_parity_test(y, s, g, cluster=u, n_bootstrap=0, **kwargs)
        same = np.array_equal(np.isnan(mine), np.isnan(lib.grid_pvalue))
        out[name] = float(np.nanmax(np.abs(mine - lib.grid_pvalue))) if same else np.inf
    return out


def format_report(results):
    lines = []
    by = {(r["cell"], r["delta"] > 0, tuple(r["methods"])): r for r in results}
    for methods in dict.fromkeys(key[2] for key in by):
        head = "cell".ljust(14) + "test".ljust(6) + "".join(f"{m:>26}" for m in methods)
        lines += ["", "null: rejection rate (MC SE) | power", head]
        for name in CELLS:
            null = by.get((name, False, methods))
            if null is not None:
                lines += _cell_rows(name, null, by.get((name, True, methods)), methods)
    lines.append("")
    for r in results:
        kind = "power" if r["delta"] > 0 else "null"
        lines.append(
            f"{r['cell']} {kind}: {r['reps']} data sets, delta {r['delta']}, "
            f"{r['seconds']:.0f} s, mean tested points "
            + ", ".join(f"{m} {v:.1f}" for m, v in r["mean_tested"].items())
            + (
                ""
                if not r.get("bias_ratio")
                else "; max |bias of the difference| / SE over the grid: mean "
                f"{r['bias_ratio'][0]:.3f}, 95th percentile {r['bias_ratio'][1]:.3f}"
            )
        )
    return "\n".join(lines)


def _cell_rows(name, null, power, methods):
    rows = []
    n = null["reps"]
    se = np.sqrt(ALPHA * (1 - ALPHA) / n)
    for j, test_name in enumerate(("mid", "holm", "sim")):
        row = name.ljust(14) + test_name.ljust(6)
        for m in methods:
            r = null["counts"][m][j] / n
            flag = "*" if r > ALPHA + 3 * se else " "
            pw = power["counts"][m][j] / power["reps"] if power else float("nan")
            row += f"{r:8.4f} ({se:.4f}){flag}| {pw:.3f}".rjust(26)
        rows.append(row)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--cells", default="")
    ap.add_argument("--bias", type=int, default=0, help="null data sets of the bias experiment")
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--out", default=None)
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--report", default=None, help="only format the results of these JSONL files")
    ap.add_argument("--only", choices=("null", "power"), default=None, help="one kind of cells")
    ap.add_argument(
        "--methods", default=",".join(METHODS), help="a subset of " + ",".join(METHODS)
    )
    args = ap.parse_args(argv)
    if args.report:
        results = [json.loads(line) for f in args.report.split(",") for line in open(f)]
    else:
        results = _run(args)
    commit = git_commit()
    header = (
        f"# parity_dependent_null ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit "
        f"{commit}, Python {platform.python_version()}, seed {args.seed}, alpha {ALPHA}, "
        f"{N_MULT} multiplier draws; * = more than 3 MC SE above alpha)"
    )
    text = header + "\n" + format_report(results)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return results


def _run(args):
    names = [n for n in CELLS if not args.cells or n in args.cells.split(",")]
    plan = []
    if args.bias:
        plan = [(name, False, args.bias, BIAS_METHODS) for name in names]
    else:
        kinds = {None: (False, True), "null": (False,), "power": (True,)}[args.only]
        for flag in kinds:
            for name in names:
                _, n_null, n_power, _ = CELLS[name]
                reps = (
                    20 if args.quick else max(1, round((n_power if flag else n_null) * args.scale))
                )
                plan.append((name, flag, reps, tuple(args.methods.split(","))))
    results = []
    for name, flag, reps, methods in plan:
        settings, _, _, delta = CELLS[name]
        res = run_cell(name, settings, reps, delta if flag else 0.0, args.seed, methods)
        results.append(res)
        if args.jsonl:
            with open(args.jsonl, "a") as fh:
                fh.write(json.dumps(res) + "\n")
        print(f"{name} {'power' if flag else 'null'} {res['seconds']:.0f} s", file=sys.stderr)
    return results


if __name__ == "__main__":
    main()
