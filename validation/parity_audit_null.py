"""The audit's predictive-parity rows when calibration is identical in every group (#33).

Issue 33's fourth scenario: the whole audit with a score, about 20,000 rows, an attribute
whose intersection has six groups, identical groups; with the old default the parity
family rejected a true null in 10 of 80 audits (0.125). Here: 4,000 users with 1 +
Poisson(4) rows; a user's sex (F/M) and race (a/b/c: 60/30/10%) and score location
N(-0.6, 0.8^2) on the logit scale; a row's score expit(location + N(0, 0.3^2)), its outcome
Bernoulli(score) (calibration exact and the same in every group), its prediction score >
0.5. ``fastfair.audit(..., y_score=score, cluster=user, metrics=["tpr"],
intersections=True)`` (sequential Monte Carlo, alpha 0.05, Holm over the audit's 14 tests)
has three parity rows: sex (2 groups), race (3) and sex & race (6). Recorded: the share of
audits with a parity row whose verdict is a difference (the family's false rejections),
per row the share of differences and of "undecided" verdicts, binomial Monte-Carlo SE.

``--variance separate`` runs the same audits with the old default (the audit calls
``fastfair.predictive_parity_test``, which the script then wraps with
``variance="separate"``: a validation-only switch, the audit has no such option).

Usage: python validation/parity_audit_null.py [--quick] [--audits R] [--variance V]
           [--out FILE]
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
import warnings

if __name__ == "__main__":  # one BLAS thread: n_jobs=1 on a shared machine
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from scipy import special

import fastfair

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # validation/_common.py
from _common import git_commit

ALPHA = 0.05
ATTRIBUTES = ("sex", "race", "sex & race")


def dataset(seed, n_users=4000):
    """(y, prediction, score, {"sex", "race"}, user) of one null data set."""
    rng = np.random.default_rng([seed, 33])
    rows = 1 + rng.poisson(4, n_users)
    user = np.repeat(np.arange(n_users), rows)
    sex = rng.choice(["F", "M"], n_users)[user]
    race = rng.choice(["a", "b", "c"], n_users, p=[0.6, 0.3, 0.1])[user]
    loc = rng.normal(-0.6, 0.8, n_users)[user]
    s = special.expit(loc + rng.normal(0, 0.3, user.size))
    y = (rng.random(user.size) < s).astype(int)
    return y, (s > 0.5).astype(int), s, {"sex": sex, "race": race}, user


def run(audits, n_jobs=1, progress=False):
    """Counts over `audits` audits: any parity difference, and per attribute the
    differences and undecided verdicts."""
    any_diff = 0
    diff = dict.fromkeys(ATTRIBUTES, 0)
    undecided = dict.fromkeys(ATTRIBUTES, 0)
    t0 = time.perf_counter()
    for seed in range(audits):
        y, pred, s, attrs, user = dataset(seed)
        with warnings.catch_warnings():  # SparseGridWarning at sparse points, by design
            warnings.simplefilter("ignore")
            res = fastfair.audit(y, pred, attrs, y_score=s, cluster=user, metrics=["tpr"],
                                 intersections=True, random_state=seed, n_jobs=n_jobs)  # fmt: skip
        rows = {t["attribute"]: t for t in res.tests if t["family"] == "parity"}
        hits = [a for a in ATTRIBUTES if rows[a].decision == "difference"]
        any_diff += bool(hits)
        for a in hits:
            diff[a] += 1
        for a in ATTRIBUTES:
            undecided[a] += rows[a].decision == "undecided"
        if progress:  # partial counts, so that a stopped run loses nothing
            print(f"{seed + 1} audits: any {any_diff}, {diff}, undecided {undecided}",
                  file=sys.stderr, flush=True)  # fmt: skip
    seconds = time.perf_counter() - t0
    return dict(audits=audits, any=any_diff, diff=diff, undecided=undecided, seconds=seconds)


def report(r) -> str:
    n = r["audits"]

    def rate(k):
        return f"{k / n:.4f} (SE at alpha {np.sqrt(ALPHA * (1 - ALPHA) / n):.4f})"

    lines = [f"audits: {n}, {r['seconds']:.0f} s; parity family (any row a difference): "
             f"{rate(r['any'])}"]  # fmt: skip
    for a in ATTRIBUTES:
        lines.append(f"  {a:<11} difference {rate(r['diff'][a])}, undecided "
                     f"{r['undecided'][a]} of {n}")  # fmt: skip
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--audits", type=int, default=200)
    ap.add_argument("--out", default=None)
    ap.add_argument("--variance", choices=("null", "separate"), default="null")
    args = ap.parse_args(argv)
    if args.variance == "separate":
        fastfair.predictive_parity_test = functools.partial(
            fastfair.predictive_parity_test, variance="separate"
        )
    r = run(1 if args.quick else args.audits, progress=not args.quick)
    commit = git_commit()
    text = (
        f"# parity_audit_null ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit "
        f"{commit}, alpha {ALPHA}, default options, n_jobs=1; parity variance "
        f"{args.variance!r})\n" + report(r)
    )
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return r


if __name__ == "__main__":
    main()
