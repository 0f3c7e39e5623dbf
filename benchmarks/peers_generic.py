"""fastfair generic tests against scipy.stats.permutation_test and plain Python loops.

`run(quick)` returns rows {"task", "n", "fastfair_s", "peer", "peer_s", "ratio"}
(ratio = peer_s / fastfair_s, > 1 means fastfair is faster); benchmarks/compare_peers.py
collects them. Times are the best of a few repeats on the same data (fixed seed). Where the
peer would take minutes it runs fewer permutations and its time is scaled linearly to the
same number (said in the peer column).
"""

from __future__ import annotations

import numpy as np
from _peers import best, peer_row
from scipy import stats

import fastfair
from fastfair.resampling import mean_difference_test


def _data(n, seed=0, minority=0.3):
    rng = np.random.default_rng(seed)
    group = (rng.random(n) < minority).astype(np.int64)
    y = rng.normal(size=n)
    pred = y + rng.normal(0.02 * group, 1.0 + 0.2 * group)
    return y, pred, group


def _welch(x, y, axis=-1):
    return stats.ttest_ind(x, y, axis=axis, equal_var=False).statistic


def _mse(y_true, y_pred):
    return float(np.mean((y_true - y_pred) ** 2))


def _mse_vectorized(y_true, y_pred):
    return np.mean((y_true - y_pred) ** 2, axis=-1)


def run(quick: bool = False) -> list[dict]:
    rows = []
    repeat = 2 if quick else 3
    b = 10_000

    # 1. Welch difference of means, 10^4 permutations, vs scipy's vectorized permutation_test.
    for n in [10**4, 10**5] if quick else [10**4, 10**5, 10**6]:
        y, pred, g = _data(n)
        v = y - pred
        ff = best(
            lambda v=v, g=g: mean_difference_test(v, g, n_permutations=b, random_state=0), repeat
        )
        b_peer = b if n <= 10**4 else max(20, b * 10**4 // n)
        x1, x0 = v[g == 1], v[g == 0]
        peer = best(
            lambda x1=x1, x0=x0, b_peer=b_peer: stats.permutation_test(
                (x1, x0), _welch, vectorized=True, n_resamples=b_peer, random_state=0
            ),
            1 if n > 10**4 else repeat,
        ) * (b / b_peer)
        label = "scipy.stats.permutation_test (vectorized Welch t)"
        if b_peer < b:
            label += f", {b_peer} resamples scaled to {b}"
        rows.append(peer_row(f"difference of means (Welch), {b} permutations", n, ff, label, peer))

    # 2. A Python metric (MSE) per permutation: fastfair's loop vs a plain numpy loop,
    #    and the vectorized form vs scipy's vectorized permutation_test.
    n = 10**4
    y, pred, g = _data(n, 1)
    bp = 1000 if quick else 2000
    ff_loop = best(
        lambda: fastfair.permutation_test(
            y, pred, g, metric=_mse, studentize=False, n_permutations=bp, random_state=0
        ),
        repeat,
    )
    rng = np.random.default_rng(0)

    def plain_loop():
        t_obs = _mse(y[g == 1], pred[g == 1]) - _mse(y[g == 0], pred[g == 0])
        count = 0
        for _ in range(bp):
            gp = rng.permutation(g)
            t = _mse(y[gp == 1], pred[gp == 1]) - _mse(y[gp == 0], pred[gp == 0])
            count += abs(t) >= abs(t_obs)
        return (count + 1) / (bp + 1)

    peer = best(plain_loop, repeat)
    rows.append(
        peer_row(
            f"Python callable (MSE), loop, {bp} permutations",
            n,
            ff_loop,
            "plain loop: rng.permutation + boolean masks",
            peer,
        )
    )
    ff_vec = best(
        lambda: fastfair.permutation_test(
            y,
            pred,
            g,
            metric=_mse_vectorized,
            vectorized=True,
            studentize=False,
            n_permutations=bp,
            random_state=0,
        ),
        repeat,
    )
    sq = (y - pred) ** 2  # scipy permutes samples of one array: give it the squared errors
    peer = best(
        lambda: stats.permutation_test(
            (sq[g == 1], sq[g == 0]),
            lambda a, c, axis=-1: a.mean(axis=axis) - c.mean(axis=axis),
            vectorized=True,
            n_resamples=bp,
            random_state=0,
        ),
        repeat,
    )
    rows.append(
        peer_row(
            f"vectorized callable (MSE), {bp} permutations",
            n,
            ff_vec,
            "scipy.stats.permutation_test (vectorized mean difference)",
            peer,
        )
    )

    # 3. Overhead of a Python callable next to the built-in compiled metric.
    ff_builtin = best(
        lambda: fastfair.permutation_test(
            y, pred, g, metric="mse", studentize=False, n_permutations=bp, random_state=0
        ),
        repeat,
    )
    for task, t in [("loop", ff_loop), ("vectorized", ff_vec)]:
        rows.append(
            peer_row(
                f"per-permutation cost, callable {task} vs built-in 'mse' ({bp} perms)",
                n,
                t,
                "fastfair built-in metric='mse' (compiled)",
                ff_builtin,
            )
        )

    # 4. Full Algorithm 1 (bootstrap inside every permutation) vs the Sec. 5 shortcut.
    n = 2000
    y, pred, g = _data(n, 2)
    full = best(
        lambda: fastfair.permutation_test(
            y,
            pred,
            g,
            metric=_mse_vectorized,
            vectorized=True,
            studentize="bootstrap",
            n_permutations=200,
            n_bootstrap=100,
            random_state=0,
        ),
        1,
    )
    fast = best(
        lambda: fastfair.permutation_test(
            y,
            pred,
            g,
            metric=_mse_vectorized,
            vectorized=True,
            studentize="bootstrap-fast",
            n_permutations=200,
            n_bootstrap=100,
            random_state=0,
        ),
        repeat,
    )
    rows.append(
        peer_row(
            "studentize='bootstrap-fast' vs 'bootstrap' (200 perms x 100 boots)",
            n,
            fast,
            "fastfair studentize='bootstrap' (full Algorithm 1)",
            full,
        )
    )
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(
            f"{r['task']:70s} n={r['n']:>8d}  fastfair {r['fastfair_s']:8.3f} s  "
            f"{r['peer']}: {r['peer_s']:8.3f} s  ratio {r['ratio']:7.1f}"
        )
