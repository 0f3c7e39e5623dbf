"""fastfair AUC tests against the usual Python route: sklearn roc_auc_score + numpy DeLong.

`run(quick)` returns rows {"task", "n", "fastfair_s", "peer", "peer_s", "ratio"}
(ratio = peer_s / fastfair_s, > 1 means fastfair is faster); benchmarks/compare_peers.py
collects them. Times are the best of a few repeats on the same data (fixed seed).
"""

from __future__ import annotations

import numpy as np
from _peers import best, peer_row
from benchmarks.bench_auc import data  # the asv suite's data
from scipy import stats
from sklearn.metrics import roc_auc_score

from fastfair.auc import auc_test, delong


def numpy_delong(y, score):
    """Fast DeLong in numpy (Sun & Xu 2014 midranks): AUC and its variance."""
    pos, neg = score[y], score[~y]
    m, n = len(pos), len(neg)
    tx = stats.rankdata(pos)
    ty = stats.rankdata(neg)
    tz = stats.rankdata(np.concatenate([pos, neg]))
    auc = (tz[:m].sum() - m * (m + 1) / 2) / (m * n)
    v10 = (tz[:m] - tx) / n
    v01 = 1.0 - (tz[m:] - ty) / m
    return auc, v10.var(ddof=1) / m + v01.var(ddof=1) / n


def peer_permutation(y, score, group, rng):
    """One permutation the usual way: shuffle groups, roc_auc_score + numpy DeLong each."""
    perm = rng.permutation(group)
    out = []
    for g in (0, 1):
        m = perm == g
        auc = roc_auc_score(y[m], score[m])
        _, var = numpy_delong(y[m], score[m])
        out.append((auc, var))
    return (out[0][0] - out[1][0]) / np.sqrt(out[0][1] + out[1][1])


def run(quick: bool = False) -> list[dict]:
    rows = []
    repeat = 2 if quick else 3

    # 1. AUC + DeLong of two groups vs one roc_auc_score call on the same data.
    n = 10**5 if quick else 10**6
    y, s, g = data(n)
    ff = best(lambda: delong(y, s, g), repeat)
    peer = best(lambda: roc_auc_score(y, s), repeat)
    rows.append(
        peer_row(
            "AUC + DeLong, two groups", n, ff, "sklearn roc_auc_score (one call, pooled)", peer
        )
    )

    # 2. Per permutation at n = 1e5: fastfair studentized test vs a Python loop.
    n = 10**5
    y, s, g = data(n, 1)
    b = 200 if quick else 1000
    ff = (
        best(lambda: auc_test(y, s, g, scheme="full", n_permutations=b, random_state=0), repeat)
        / b
    )
    rng = np.random.default_rng(0)
    k = 3 if quick else 10
    peer = best(lambda: [peer_permutation(y, s, g, rng) for _ in range(k)], 1) / k
    rows.append(
        peer_row(
            "studentized AUC permutation, time per permutation",
            n,
            ff,
            "loop: roc_auc_score + numpy DeLong per group",
            peer,
        )
    )

    # 3. Whole studentized test, 1,000 permutations (peer extrapolated from a few).
    n = 10**5 if quick else 10**6
    y, s, g = data(n, 2)
    b = 1000
    ff = best(lambda: auc_test(y, s, g, scheme="full", n_permutations=b, random_state=0), 1)
    k = 2
    peer = best(lambda: [peer_permutation(y, s, g, rng) for _ in range(k)], 1) / k * b
    rows.append(
        peer_row(
            "studentized AUC permutation test, 1000 permutations",
            n,
            ff,
            "loop: roc_auc_score + numpy DeLong (extrapolated from 2)",
            peer,
        )
    )
    return rows


if __name__ == "__main__":
    import sys

    for row in run(quick="--quick" in sys.argv):
        print(row)
