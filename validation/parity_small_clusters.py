"""Predictive parity with few or very unequal users: level and power of small-sample corrections.

Scenario grid (issue 20): number of users M in {100, 300, 1000, 3000} x row counts per user
{equal (4 rows each), 10% heavy (40 rows, others 1 + Poisson(2)), heavy-tailed (Pareto,
tail index 1.1: n_m = floor(U^(-1/1.1)), capped at 3,000; a few users with hundreds or
thousands of rows)} x user-effect strength {weak: sd 0.1, strong: sd 0.3}. A user's scores
scatter around a user-level centre (Beta(2, 2) + N(0, 0.08)); the outcome probability is
clip(s + e_m + delta * [group 1], 0, 1) with the user effect e_m ~ N(0, sd^2). delta = 0 is
the null (the same calibration map in both groups); the power twin of each cell uses the
calibration gap delta = 2 / sqrt(M) (a local alternative, so power is comparable across M).

Each data set is tested with the default settings of `predictive_parity_test` (50 grid
points, undersmoothed rule-of-thumb bandwidth, per-user weights). From the per-user kernel
sums a_m(s), b_m(s) (``fastfair._kernel_sums.cluster_contributions``) every method below is
computed on the same data, at alpha 0.05 and 0.01:

  default      CR0 sandwich, normal reference, Gaussian multipliers (fastfair <= 0.x default)
  cr2          CR2 (Bell-McCaffrey) variance sum_m u_m^2 / (1 - p_m), p_m = b_m / sum_l b_l
               the user's leverage (its share of the kernel weight), normal reference
  cr3          CR3 (jackknife-type) variance sum_m u_m^2 / (1 - p_m)^2, normal reference
  cr0_t_eff    CR0, Student t with Welch-combined one-pass df (sum p^2)^2 / sum p^4 per
               group (the Bell-McCaffrey df below without the leverage terms)
  cr2_t_kish   CR2, Student t with Welch-combined df (n_eff_g - 1) per group
  cr2_t_bm     CR2, Student t with Bell-McCaffrey / Satterthwaite df under a random-
               intercept working model (depends on the leverages only), Welch-combined
  wild_webb    wild cluster bootstrap, Webb six-point weights, null imposed (WCR), CR2-
               studentized, 399 draws (Cameron, Gelbach & Miller 2008; MacKinnon & Webb 2017)
  ..._mecN     the same with min_effective_clusters = N instead of 5

Tests: "point" = the pointwise test at the middle grid point; "pavg" = the pointwise level
averaged over the tested grid points (MC SE from the replicate spread); "holm" = any Holm-
adjusted pointwise rejection over the grid (family-wise); "sim" = the simultaneous max-|t|
test (Gaussian multipliers on the method's correlation, quantile-matched t statistics for
the t methods; the wild bootstrap's own max for wild_webb). Monte-Carlo SEs are binomial.
The default's numbers are checked against ``predictive_parity_test`` in the quick mode.

Usage: python validation/parity_small_clusters.py [--quick] [--reps R] [--cells SPEC]
           [--resume JSONL,...] [--jsonl FILE] [--out FILE] [--report-only]
Full mode: 2,000 null data sets and 500 power data sets per cell; cells are written to
validation/results/parity_small_clusters.jsonl as they finish (progress), and the table to
validation/results/parity_small_clusters.txt. It takes hours on a shared 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np
from scipy import special, stats

from fastfair import _kernel_sums
from fastfair._clustered import choose_bandwidth as _bandwidth
from fastfair._clustered import make_grid as _make_grid
from fastfair._clustered import prepare as _prepare

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import bell_mccaffrey_df

USERS = (100, 300, 1000, 3000)
ROWS = ("equal", "heavy10", "pareto")
EFFECTS = {"weak": 0.1, "strong": 0.3}
ALPHAS = (0.05, 0.01)
N_WILD = 399
N_MULT = 999
BASE_METHODS = ("default", "cr2", "cr3", "cr0_t_eff", "cr2_t_kish", "cr2_t_bm", "wild_webb")
MEC_VARIANTS = {"default": (10, 20), "cr2_t_bm": (10, 20)}
WEBB = np.array([-np.sqrt(1.5), -1.0, -np.sqrt(0.5), np.sqrt(0.5), 1.0, np.sqrt(1.5)])


def method_names():
    names = list(BASE_METHODS)
    for base, mecs in MEC_VARIANTS.items():
        names += [f"{base}_mec{m}" for m in mecs]
    return names


def row_counts(rng, n_users, rows):
    if rows == "equal":
        return np.full(n_users, 4)
    if rows == "heavy10":
        return np.where(rng.random(n_users) < 0.10, 40, 1 + rng.poisson(2, n_users))
    u = rng.random(n_users)
    return np.minimum(np.floor(u ** (-1 / 1.1)), 3000).astype(np.int64)


def simulate(rng, n_users, rows, sd_user, delta=0.0):
    n_rows = row_counts(rng, n_users, rows)
    user = np.repeat(np.arange(n_users), n_rows)
    ug = np.arange(n_users) % 2
    group = ug[user]
    centre = rng.beta(2, 2, n_users)[user]
    score = np.clip(centre + rng.normal(0, 0.08, user.size), 0.001, 0.999)
    effect = rng.normal(0, sd_user, n_users)[user]
    p = np.clip(score + effect + delta * group, 0, 1)
    y = (rng.random(user.size) < p).astype(float)
    return y, score, group, user


def per_user_sums(y, score, group, user):
    """Default grid and bandwidth, and weighted per-user sums a (M, G), b (M, G), groups."""
    prep = _prepare(y, score, group, user, "per_user", "raise", None, min_groups=2)
    h, _ = _bandwidth(prep, "rule_of_thumb", "gaussian", 1)
    grid = _make_grid(50, prep)
    a, b = _kernel_sums.cluster_contributions(
        prep.score, prep.y, None, prep.starts, grid, h, "gaussian", 1
    )
    w = prep.cluster_weight[:, None]
    return a * w, b * w, prep.cluster_group, grid


def t_test(z, df, tested):
    """Tested points, two-sided t p-values and the normal-scale statistic with that p."""
    ok = tested & np.isfinite(df)
    t_sf = stats.t.sf(np.abs(np.nan_to_num(z)), np.nan_to_num(df, nan=1))
    pv = np.where(ok, 2 * t_sf, np.nan)
    zt = np.where(ok, -special.ndtri(np.clip(pv / 2, 1e-300, 0.5)), 0.0)
    return ok, pv, zt


def holm_reject(p, alpha):
    p = np.sort(p[np.isfinite(p)])
    if p.size == 0:
        return False
    return bool(p[0] <= alpha / p.size)  # Holm rejects something iff Bonferroni's first step does


def root_of(cov):
    vals, vecs = np.linalg.eigh(0.5 * (cov + cov.T))
    return vecs * np.sqrt(np.clip(vals, 0, None))[None, :]


def analyse(a, b, cg, rng, want_wild=True):
    """p-values per method: dict name -> (pointwise p over the grid (G,), simultaneous p)."""
    G = a.shape[1]
    out = {}
    parts = []
    for g in (0, 1):
        ag, bg = a[cg == g], b[cg == g]
        B = bg.sum(axis=0)
        f = np.where(B > 0, ag.sum(axis=0) / np.where(B > 0, B, 1), np.nan)
        u = ag - np.nan_to_num(f)[None, :] * bg
        with np.errstate(divide="ignore", invalid="ignore"):
            p = bg / B[None, :]
            neff = np.where(B > 0, B * B / (bg * bg).sum(axis=0), 0.0)
        parts.append(dict(a=ag, b=bg, B=B, f=f, u=u, p=np.nan_to_num(p), neff=neff))
    diff = parts[0]["f"] - parts[1]["f"]
    pooled_f = (parts[0]["a"].sum(0) + parts[1]["a"].sum(0)) / (parts[0]["B"] + parts[1]["B"])

    def variance(kind):
        vs, covs = [], []
        for q in parts:
            lev = np.clip(q["p"], 0, 0.999999)
            scale = {"cr0": 1.0, "cr2": 1 / np.sqrt(1 - lev), "cr3": 1 / (1 - lev)}[kind]
            ua = q["u"] * scale
            cov = ua.T @ ua / np.outer(q["B"], q["B"])
            covs.append(cov)
            vs.append(np.diag(cov).copy())
        return vs, covs

    # Simultaneous tests: Gaussian multipliers on the correlation of the difference. One set
    # of standardized draws per variance kind over every point that any method tests; the
    # draws restricted to a method's tested points have that subset's correlation.
    draws = {}

    def finish(name, pvals, tstat_z, kind, tested):
        if tested.sum() == 0:
            out[name] = (pvals, np.nan)
            return
        obs = np.abs(tstat_z[tested]).max()
        mx = draws[kind][:, tested].max(axis=1)
        psim = (1 + np.sum(mx >= obs * (1 - 1e-12))) / (N_MULT + 1)
        out[name] = (pvals, psim)

    normals = rng.standard_normal((N_MULT, G))
    for kind in ("cr0", "cr2", "cr3"):
        vs, covs = variance(kind)
        se = np.sqrt(vs[0] + vs[1])
        with np.errstate(divide="ignore", invalid="ignore"):
            z = diff / se
        cov = covs[0] + covs[1]
        base = np.flatnonzero(
            (parts[0]["neff"] >= 5) & (parts[1]["neff"] >= 5) & (se > 0) & np.isfinite(z)
        )
        if base.size:
            c = cov[np.ix_(base, base)]
            d = np.sqrt(np.diag(c))
            root = root_of(c / np.outer(d, d))
            z_full = np.zeros((N_MULT, G))
            z_full[:, base] = np.abs(normals[:, : base.size] @ root.T)
            draws[kind] = z_full
        for mec in (5, 10, 20):
            tested = (
                (parts[0]["neff"] >= mec) & (parts[1]["neff"] >= mec) & (se > 0) & np.isfinite(z)
            )
            if kind == "cr0" and mec in (5, 10, 20):
                name = "default" if mec == 5 else f"default_mec{mec}"
                pv = np.where(tested, 2 * special.ndtr(-np.abs(z)), np.nan)
                finish(name, pv, z, kind, tested)
            if kind == "cr2" and mec == 5:
                pv = np.where(tested, 2 * special.ndtr(-np.abs(z)), np.nan)
                finish("cr2", pv, z, kind, tested)
            if kind == "cr3" and mec == 5:
                pv = np.where(tested, 2 * special.ndtr(-np.abs(z)), np.nan)
                finish("cr3", pv, z, kind, tested)
            if kind == "cr0" and mec == 5:
                nu = [
                    (q["p"] ** 2).sum(0) ** 2 / np.maximum((q["p"] ** 4).sum(0), 1e-300)
                    for q in parts
                ]
                with np.errstate(divide="ignore", invalid="ignore"):
                    df = (vs[0] + vs[1]) ** 2 / (vs[0] ** 2 / nu[0] + vs[1] ** 2 / nu[1])
                ok, pv, zt = t_test(z, df, tested)
                finish("cr0_t_eff", pv, zt, kind, ok)
            if kind == "cr2":
                for df_kind in ("kish", "bm"):
                    if df_kind == "kish" and mec != 5:
                        continue
                    if df_kind == "kish":
                        nu = [np.maximum(q["neff"] - 1, 1e-9) for q in parts]
                    else:
                        nu = [bell_mccaffrey_df(np.clip(q["p"], 0, 0.999999)) for q in parts]
                    with np.errstate(divide="ignore", invalid="ignore"):
                        df = (vs[0] + vs[1]) ** 2 / (vs[0] ** 2 / nu[0] + vs[1] ** 2 / nu[1])
                    ok, pv, zt = t_test(z, df, tested)
                    name = f"cr2_t_{df_kind}" + ("" if mec == 5 else f"_mec{mec}")
                    finish(name, pv, zt, kind, ok)
    if want_wild:
        out["wild_webb"] = wild(parts, diff, pooled_f, rng)
    return out


def wild(parts, diff, pooled_f, rng):
    """Restricted (null-imposed) wild cluster bootstrap, Webb weights, CR2-studentized."""
    tested = (parts[0]["neff"] >= 5) & (parts[1]["neff"] >= 5)
    G = diff.size
    if not tested.any():
        return np.full(G, np.nan), np.nan
    t_obs = np.zeros(G)
    t_star = np.zeros((N_WILD, G))
    d_star = np.zeros((N_WILD, G))
    v_star = np.zeros((N_WILD, G))
    v_obs = np.zeros(G)
    for sign, q in zip((1.0, -1.0), parts):
        lev = np.clip(q["p"], 0, 0.999999)
        inv = 1.0 / (1.0 - lev)
        v_obs += (q["u"] ** 2 * inv).sum(0) / q["B"] ** 2
        ur = q["a"] - pooled_f[None, :] * q["b"]  # restricted residual scores
        xi = WEBB[rng.integers(0, 6, (N_WILD, ur.shape[0]))]
        D = (xi @ ur) / q["B"][None, :]
        s1 = (xi * xi) @ (ur * ur * inv)
        s2 = xi @ (ur * q["b"] * inv)
        s3 = (q["b"] * q["b"] * inv).sum(0)
        var = (s1 - 2 * D * s2 + D * D * s3) / q["B"] ** 2
        d_star += sign * D
        v_star += var
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = diff / np.sqrt(v_obs)
        t_star = d_star / np.sqrt(v_star)
    t_star = np.where(np.isfinite(t_star), np.abs(t_star), 0.0)
    ok = tested & np.isfinite(t_obs)
    pv = np.full(G, np.nan)
    if not ok.any():
        return pv, np.nan
    ta = np.abs(t_obs)
    pv[ok] = (1 + (t_star[:, ok] >= ta[ok][None, :] * (1 - 1e-12)).sum(0)) / (N_WILD + 1)
    mx = t_star[:, ok].max(axis=1)
    psim = (1 + np.sum(mx >= ta[ok].max() * (1 - 1e-12))) / (N_WILD + 1)
    return pv, psim


def library_check(seed=0, n_users=300, rows="pareto"):
    """Largest differences between this script's methods and `predictive_parity_test`.

    "default" must equal ``small_sample="none"`` and "cr2_t_bm" the library's default
    ``small_sample="cr2"`` (pointwise p-values and their NaN pattern). The library takes the
    fast path (no leverage terms) only where no user holds more than 0.1% of the weight,
    which never happens at these sizes.
    """
    import warnings

    from fastfair.parity import SparseGridWarning, predictive_parity_test

    rng = np.random.default_rng(seed)
    y, s, g, u = simulate(rng, n_users, rows, EFFECTS["strong"])
    a, b, cg, _ = per_user_sums(y, s, g, u)
    ours = analyse(a, b, cg, rng, want_wild=False)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SparseGridWarning)
        for name, option in (("default", "none"), ("cr2_t_bm", "cr2")):
            lib = predictive_parity_test(
                y, s, g, cluster=u, n_bootstrap=0, small_sample=option, variance="separate"
            )
            mine = ours[name][0]
            same_nan = np.array_equal(np.isnan(mine), np.isnan(lib.grid_pvalue))
            out[name] = float(np.nanmax(np.abs(mine - lib.grid_pvalue))) if same_nan else np.inf
    return out


def run_cell(n_users, rows, effect, delta_on, reps, seed, round_=0, gap=2.0):
    """Rejection counts for `reps` data sets of one cell (round `round_`): a JSON-able dict.

    The power twin (delta_on) has the calibration gap delta = gap / sqrt(n_users).
    """
    sd = EFFECTS[effect]
    delta = gap / np.sqrt(n_users) if delta_on else 0.0
    rng = np.random.default_rng(
        [seed, n_users, ROWS.index(rows), list(EFFECTS).index(effect), int(delta_on), round_]
    )
    names = method_names()
    keys = ("point", "holm", "sim")
    counts = {n: {f"{k}@{a}": 0 for k in keys for a in ALPHAS} for n in names}
    pavg = {n: {a: [0, 0.0, 0.0] for a in ALPHAS} for n in names}  # count, sum, sum sq
    untested = {n: 0 for n in names}
    diag = {"min_neff": [], "max_share": [], "n_rows": [], "n_tested": []}
    t0 = time.perf_counter()
    for _ in range(reps):
        y, s, g, u = simulate(rng, n_users, rows, sd, delta)
        a, b, cg, grid = per_user_sums(y, s, g, u)
        res = analyse(a, b, cg, rng)
        mid = grid.size // 2
        for n in names:
            pv, psim = res[n]
            fin = np.isfinite(pv)
            if not fin.any():
                untested[n] += 1
            for al in ALPHAS:
                counts[n][f"point@{al}"] += bool(fin[mid] and pv[mid] < al)
                counts[n][f"holm@{al}"] += holm_reject(pv, al)
                counts[n][f"sim@{al}"] += bool(np.isfinite(psim) and psim < al)
                if fin.any():
                    v = float(np.mean(pv[fin] < al))
                    acc = pavg[n][al]
                    acc[0] += 1
                    acc[1] += v
                    acc[2] += v * v
        # Diagnostics of the default's tested points.
        bb = [b[cg == k] for k in (0, 1)]
        B = [x.sum(0) for x in bb]
        neff = np.minimum(*(Bk * Bk / np.maximum((x * x).sum(0), 1e-300) for Bk, x in zip(B, bb)))
        share = np.maximum(*(x.max(0) / np.maximum(Bk, 1e-300) for Bk, x in zip(B, bb)))
        t = neff >= 5
        diag["n_tested"].append(int(t.sum()))
        diag["n_rows"].append(int(y.size))
        if t.any():
            diag["min_neff"].append(float(neff[t].min()))
            diag["max_share"].append(float(share[t].max()))
    out = {
        "users": n_users,
        "rows": rows,
        "effect": effect,
        "delta": delta,
        "reps": reps,
        "seconds": time.perf_counter() - t0,
        "counts": counts,
        "round": round_,
        "pavg": {n: {str(a): v for a, v in d.items()} for n, d in pavg.items()},
        "untested": untested,
        "diag": {k: [len(v), float(np.sum(v))] for k, v in diag.items()},
    }
    return out


def cells(spec):
    out = []
    for delta_on in (False, True):
        for m in USERS:
            for r in ROWS:
                for e in EFFECTS:
                    out.append((m, r, e, delta_on))
    if spec:
        keep = []
        for c in out:
            tag = f"{c[0]}/{c[1]}/{c[2]}/{'power' if c[3] else 'null'}"
            if any(part in tag for part in spec.split(",")):
                keep.append(c)
        out = keep
    return out


def se(k, n, alpha=None):
    p = k / n if n else float("nan")
    return p, np.sqrt(max(p * (1 - p), 1e-12) / n) if n else float("nan")


def merge(results):
    """Sum the rounds of each cell."""
    by = {}
    for r in results:
        key = (r["users"], r["rows"], r["effect"], r["delta"] > 0)
        if key not in by:
            by[key] = json.loads(json.dumps(r))
            continue
        m = by[key]
        m["reps"] += r["reps"]
        m["seconds"] += r["seconds"]
        for n, d in r["counts"].items():
            for k, v in d.items():
                m["counts"][n][k] += v
        for n, d in r["pavg"].items():
            for a, v in d.items():
                m["pavg"][n][a] = [x + y for x, y in zip(m["pavg"][n][a], v)]
        for n, v in r["untested"].items():
            m["untested"][n] += v
        for k, v in r["diag"].items():
            m["diag"][k] = [x + y for x, y in zip(m["diag"][k], v)]
    return by


def format_report(results, header=""):
    lines = [header] if header else []
    names = method_names()
    by = merge(results)
    for kind, flag in (("null", False), ("power", True)):
        reps = [r["reps"] for key, r in by.items() if key[3] == flag]
        if reps:
            lines.append(
                f"{kind} cells run: {len(reps)}, data sets per cell {min(reps)}-{max(reps)}"
            )
    for al in ALPHAS:
        for test in ("point", "holm", "sim"):
            lines.append("")
            lines.append(
                f"## {test} test, alpha {al}: rejection rate under the null (MC SE) | power at "
                "delta = 2/sqrt(M) (MC SE at most 0.5/sqrt(power data sets)); * = more than "
                "3 SE above alpha"
            )
            lines.append("cell".ljust(24) + "".join(n.rjust(26) for n in names))
            for m in USERS:
                for rr in ROWS:
                    for e in EFFECTS:
                        nul = by.get((m, rr, e, False))
                        pw = by.get((m, rr, e, True))
                        if nul is None:
                            continue
                        row = f"{m}/{rr}/{e}".ljust(24)
                        for n in names:
                            k = nul["counts"][n][f"{test}@{al}"]
                            p, s = se(k, nul["reps"])
                            flag = "*" if p > al + 3 * s else " "
                            cell = f"{p:.3f}({s:.3f}){flag}"
                            if pw is not None:
                                pp, _ = se(pw["counts"][n][f"{test}@{al}"], pw["reps"])
                                cell += f"|{pp:.2f}"
                            row += cell.rjust(26)
                        lines.append(row)
    lines.append("")
    lines.append(
        "## summary per method: null cells more than 3 SE above alpha (of the cells run), "
        "largest null rate, and mean power over the power cells"
    )
    nulls = [r for key, r in sorted(by.items()) if not key[3]]
    powers = [r for key, r in sorted(by.items()) if key[3]]
    for test in ("point", "holm", "sim"):
        for al in ALPHAS:
            row = f"{test}@{al}".ljust(12)
            for n in names:
                rates = [se(r["counts"][n][f"{test}@{al}"], r["reps"]) for r in nulls]
                over = sum(p > al + 3 * e for p, e in rates)
                worst = max((p for p, _ in rates), default=float("nan"))
                pw = [r["counts"][n][f"{test}@{al}"] / r["reps"] for r in powers]
                mean_pw = float(np.mean(pw)) if pw else float("nan")
                row += f" {n}: {over}/{len(rates)} >3SE, max {worst:.3f}, power {mean_pw:.2f};"
            lines.append(row)
    lines.append("")
    lines.append("## pointwise level averaged over tested grid points, alpha 0.05 (SE)")
    lines.append("cell".ljust(24) + "".join(n.rjust(20) for n in names))
    for r in nulls:
        row = f"{r['users']}/{r['rows']}/{r['effect']}".ljust(24)
        for n in names:
            k, s1, s2 = r["pavg"][n]["0.05"]
            mean = s1 / k if k else float("nan")
            sd = np.sqrt(max(s2 / k - mean * mean, 0.0)) if k else float("nan")
            row += f"{mean:.3f}({sd / np.sqrt(max(k, 1)):.3f})".rjust(20)
        lines.append(row)
    lines.append("")
    lines.append(
        "## diagnostics (null cells, means over data sets): rows, grid points with n_eff >= "
        "5, smallest n_eff and largest user share among them; data sets with nothing tested"
    )
    for r in nulls:
        d = {k: v[1] / v[0] if v[0] else float("nan") for k, v in r["diag"].items()}
        lines.append(
            f"{r['users']}/{r['rows']}/{r['effect']}".ljust(24)
            + f"rows {d['n_rows']:8.0f}  tested {d['n_tested']:4.0f}  min n_eff "
            f"{d['min_neff']:6.1f}  max share {d['max_share']:.3f}  untested "
            f"{r['untested']['default']}/{r['reps']}  ({r['seconds']:.0f} s)"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 data sets, 2 cells")
    parser.add_argument("--reps", type=int, default=2000, help="null data sets per cell")
    parser.add_argument("--power-reps", type=int, default=500)
    parser.add_argument("--round-size", type=int, default=250)
    parser.add_argument("--first-round", type=int, default=0, help="resume after a stop")
    parser.add_argument(
        "--resume",
        default="",
        help="comma-separated jsonl files of earlier runs: skip the (cell, round) pairs they hold",
    )
    parser.add_argument("--cells", default="", help="comma-separated substrings of cell tags")
    parser.add_argument("--seed", type=int, default=20201120)
    parser.add_argument("--jsonl", default="validation/results/parity_small_clusters.jsonl")
    parser.add_argument("--report-only", action="store_true", help="format the jsonl and exit")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    header = (
        f"# Predictive parity, small/unequal clusters (validation/parity_small_clusters.py)\n"
        f"python {platform.python_version()}, numpy {np.__version__}, seed {args.seed}, "
        f"wild draws {N_WILD}, multiplier draws {N_MULT}\n"
        f"target {args.reps} null / {args.power_reps} power data sets per cell; cells with "
        "fewer were stopped for time (the MC SEs are for the counts shown)\n"
        f"wild_webb's pointwise p-values have resolution 1/{N_WILD + 1}: its Holm test over "
        "50 points cannot reject (0.000 by construction, not a finding)\n"
        "the default of fastfair is cr2_t_bm (small_sample='cr2'); 'default' here is the "
        "uncorrected test (small_sample='none')"
    )
    if args.report_only:
        results = []
        for path in args.jsonl.split(","):
            with open(path) as fh:
                results += [json.loads(line) for line in fh if line.strip()]
        report = format_report(results, header)
        print(report)
        if args.out:
            with open(args.out, "w") as fh:
                fh.write(report + "\n")
        return 0
    todo = cells(args.cells)
    if args.quick:
        todo = [(300, "pareto", "strong", False), (300, "pareto", "strong", True)]
        args.reps = args.power_reps = args.round_size = 40
    done = set()
    for path in filter(None, args.resume.split(",")):
        with open(path) as fh:
            for line in fh:
                if line.strip():
                    r = json.loads(line)
                    done.add((r["users"], r["rows"], r["effect"], r["delta"] > 0, r["round"]))
    results = []
    # Rounds of `round_size` data sets over every cell, so that all cells advance together
    # and a run stopped early leaves comparable (smaller) samples everywhere.
    n_rounds = -(-args.reps // args.round_size)
    for rnd in range(args.first_round, n_rounds):
        for c in todo:
            total = args.power_reps if c[3] else args.reps
            reps = min(args.round_size, total - rnd * args.round_size)
            if reps <= 0 or (*c, rnd) in done:
                continue
            r = run_cell(*c, reps, args.seed, rnd)
            results.append(r)
            if not args.quick:
                with open(args.jsonl, "a") as fh:
                    fh.write(json.dumps(r) + "\n")
            print(f"round {rnd} {c}: {r['seconds']:.0f} s", file=sys.stderr, flush=True)
    report = format_report(results, header)
    if args.quick:
        report += f"\nlargest |p(script) - p(library)|: {library_check()}"
    print(report)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(report + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
