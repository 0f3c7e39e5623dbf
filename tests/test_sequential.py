"""Sequential Monte-Carlo tests (fastfair._sequential): the confidence sequence, the
stopping rule and its resampling risk, the multiple-testing procedure, and every test
function's sequential path against its fixed-count and exact counterparts."""

import importlib.util
import math
import pathlib

import numpy as np
import pytest
from scipy import stats

import fastfair
from fastfair import Sequential, multiple_monte_carlo
from fastfair._sequential import Sampler, adjusted_estimates, rejected, robbins_interval, run

_spec = importlib.util.spec_from_file_location(
    "sequential_risk",
    pathlib.Path(__file__).resolve().parents[1] / "validation" / "sequential_risk.py",
)
sequential_risk = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sequential_risk)

# ------------------------------------------------------------------ confidence sequence


@pytest.mark.parametrize("count,n", [(0, 50), (3, 50), (25, 50), (50, 50), (7, 1000)])
def test_robbins_interval_is_the_level_set(count, n):
    """The interval is {q: (n+1) C(n,count) q^count (1-q)^(n-count) > delta}, on a grid."""
    delta = 1e-3
    lo, hi = robbins_interval(count, n, delta)
    q = np.linspace(0, 1, 20001)
    inside = (n + 1) * stats.binom.pmf(count, n, q) > delta
    assert q[inside].min() == pytest.approx(lo, abs=1e-4)
    assert q[inside].max() == pytest.approx(hi, abs=1e-4)
    # the endpoints solve the equation (where they are not 0 or 1)
    for end in (lo, hi):
        if 0 < end < 1:
            assert (n + 1) * stats.binom.pmf(count, n, end) == pytest.approx(delta, rel=1e-6)


def test_zero_count_length_is_inclusive_where_the_mixture_equals_delta():
    """q leaves the interval {q: (n + 1) (1 - q)^n > delta} (no exceedance) once the
    mixture is <= delta: with delta = exp of the log mixture at n = 393 (q = 0.05), whose
    log gives that value back exactly, the length is 393, as a plain scan of the log
    mixture finds; a strict rule waits one more permutation."""
    from fastfair._sequential import _zero_count_length

    q, n = 0.05, 393
    x = math.log(n + 1) + n * math.log1p(-q)
    delta = math.exp(x)
    assert math.log(delta) == x  # the mixture at 393 is exactly on the level
    scan = next(k for k in range(1, 1000) if math.log(k + 1) + k * math.log1p(-q) <= x)
    assert scan == n and _zero_count_length(q, delta) == n


def test_confidence_sequence_covers_at_all_times():
    """P(p leaves the interval at any n <= 2000) <= delta: simulated with delta = 0.05."""
    rng = np.random.default_rng(0)
    p, delta, reps, horizon = 0.3, 0.05, 400, 2000
    x = rng.random((reps, horizon)) < p
    counts = np.cumsum(x, axis=1)
    n = np.arange(1, horizon + 1)
    logf = np.log(n + 1) + stats.binom.logpmf(counts, n, p)
    ever_out = (logf <= np.log(delta)).any(axis=1).mean()
    se = np.sqrt(delta * (1 - delta) / reps)
    assert ever_out <= delta + 3 * se


# ------------------------------------------------------------------ stopping rule


def _bernoulli_sampler(p, seed):
    """A sampler whose 'permuted statistics' exceed the observed 0.5 with probability p."""
    rng = np.random.default_rng(seed)

    def draw(start, count):
        return np.where(rng.random(count) < p, 1.0, 0.0)

    return Sampler(draw, 0.5, "greater", keep_null=False)


@pytest.mark.parametrize("p,expected", [(0.0, "reject"), (0.001, "reject"), (0.5, "retain")])
def test_clear_p_values_stop_early(p, expected):
    s = _bernoulli_sampler(p, 1)
    decision = run([s], Sequential())
    assert decision[0] == expected
    assert s.n < 600
    assert s.lo <= p <= s.hi
    assert (s.hi <= 0.05) if expected == "reject" else (s.lo > 0.05)


@pytest.mark.parametrize("p", [0.0, 0.002, 0.03, 0.2, 0.6])
def test_drawing_ahead_changes_nothing_but_the_calls(p):
    """Permutations drawn ahead (one kernel call near p = 0) are the ones the growing blocks
    would draw: same n, count, interval, decision and null values as drawing only what each
    block uses; near p = 0 two calls (the first block, then up to the stop) instead of 14."""
    x = np.random.default_rng(5).random(30_000) < p
    calls = []

    def draw(start, count):
        calls.append(count)
        return x[start : start + count].astype(np.float64)

    def sampler():
        return Sampler(draw, 0.5, "greater", keep_null=True)

    ahead = sampler()
    decision = run([ahead], Sequential())
    n_calls = len(calls)
    plain = sampler()
    plain.extend = lambda size, ahead=0, s=plain: Sampler.extend(s, size)  # no drawing ahead
    assert run([plain], Sequential()).tolist() == decision.tolist()
    assert (ahead.n, ahead.count, ahead.lo, ahead.hi) == (plain.n, plain.count, plain.lo, plain.hi)
    np.testing.assert_array_equal(ahead.null(), x[: ahead.n])
    np.testing.assert_array_equal(plain.null(), x[: plain.n])
    if p == 0.0:
        assert (decision[0], ahead.n, n_calls) == ("reject", 253, 2)
        assert len(calls) - n_calls > 10  # the plain run needed many calls


def test_p_at_alpha_reaches_the_cap_undecided():
    s = _bernoulli_sampler(0.05, 2)
    decision = run([s], Sequential(max_permutations=2000))
    assert decision[0] == "undecided"
    assert s.n == 2000
    assert s.lo < 0.05 < s.hi


def test_resampling_risk_quick():
    """Near alpha the decision disagrees with p's side at most epsilon of the time
    (validation/sequential_risk.py runs the full version); epsilon = 0.05 here so that
    the quick run can detect a violation."""
    out = sequential_risk.simulate_risk(
        alpha=0.05, epsilon=0.05, offsets=(-0.02, 0.02), reps=150, seed=3
    )
    for row in out:
        assert row["wrong"] <= 0.05 + 3 * row["se_bound"], row


def test_holm_family_controls_fwer_quick():
    row = sequential_risk.simulate_fwer(n_tests=6, n_false=2, reps=100, seed=4)
    assert row["fwer"] <= 0.05 + 3 * row["se"], row
    assert row["power"] > 0.5  # the twin: false nulls (p = 1e-4) are rejected


def test_procedures_match_adjusted_pvalues():
    rng = np.random.default_rng(5)
    for _ in range(50):
        p = rng.random(7) ** 3
        for proc in ("holm", "bonferroni", "bh"):
            assert np.array_equal(rejected(p, 0.05, proc), adjusted_estimates(p, proc) <= 0.05)


def _holm_step_down(p, alpha):
    """Holm by its definition: walk up the sorted p-values, reject while p_(i) <= alpha /
    (m - i), stop at the first that is not."""
    out = np.zeros(len(p), dtype=bool)
    for i, k in enumerate(np.argsort(p, kind="stable")):
        if p[k] > alpha / (len(p) - i):
            break
        out[k] = True
    return out


def test_holm_stops_at_the_first_ranked_pvalue_above_its_level():
    """p = 0.02, 0.03, 0.04 at 0.05: 0.02 > 0.05 / 3, so Holm rejects none, though 0.04 is
    below its own level 0.05; and p-values spread around the levels against the definition."""
    assert not rejected(np.array([0.04, 0.02, 0.03]), 0.05, "holm").any()
    rng = np.random.default_rng(12)
    for _ in range(300):
        p = rng.uniform(0, 0.08, rng.integers(2, 7))
        assert np.array_equal(rejected(p, 0.05, "holm"), _holm_step_down(p, 0.05)), p


def _stream_sampler(p, seed, size=40_000):
    """A sampler whose permutation b exceeds the observed 0.5 with probability p, from a
    fixed stream: the same draws whatever the blocks; `calls` counts the draw calls and
    `drawn` the permutations they drew."""
    u = np.random.default_rng(seed).random(size)

    def draw(start, count):
        s.calls += 1
        s.drawn += count
        return (u[start : start + count] < p) * 1.0

    s = Sampler(draw, 0.5, "greater", keep_null=False)
    s.calls = s.drawn = 0
    return s


def test_a_bonferroni_family_draws_what_each_test_alone_draws_at_alpha_over_m():
    """Bonferroni compares every p-value with alpha / m only: each of m = 5 tests draws the
    same permutations, in as many calls, and takes the same decision as when run alone at
    level alpha / m with epsilon / m (its share of the resampling risk): p-values on both
    sides of alpha / m = 0.01, and one of 0, which after its first block draws ahead in one
    call up to where no exceedance puts its interval below alpha / m (not below alpha:
    more calls)."""
    ps, alpha, eps = (0.0, 0.006, 0.009, 0.013, 0.3), 0.05, 1e-3
    family = [_stream_sampler(p, 20 + i) for i, p in enumerate(ps)]
    decision = run(family, Sequential(alpha=alpha, epsilon=eps), "bonferroni")
    for i, p in enumerate(ps):
        alone = _stream_sampler(p, 20 + i)
        single = run([alone], Sequential(alpha=alpha / 5, epsilon=eps / 5))
        assert single.tolist() == [decision[i]]
        got, want = family[i], alone
        assert (got.n, got.count, got.calls) == (want.n, want.count, want.calls)
    assert family[0].calls == 2 and decision[0] == "reject"  # its first block, then ahead
    assert family[1].n > 1000  # near the level: many blocks, each sized by alpha / m


@pytest.mark.parametrize("procedure", ["holm", "bh"])
def test_a_pvalue_of_0_compared_with_alpha_draws_ahead_only_until_its_interval_is_below_alpha(
    procedure,
):
    """Holm and Benjamini-Hochberg compare a hypothesis with alpha when the others are
    rejected (here: four known p-values of 0), so a Monte-Carlo p-value of 0 draws ahead
    only up to where its interval lies below alpha, not alpha / m: it draws no permutation
    it does not use, and stops at an n where Robbins' interval with no exceedance,
    (n + 1) (1 - q)^n <= epsilon, excludes q = alpha but not yet alpha / 5."""
    alpha, eps = 0.05, 1e-3
    s = _stream_sampler(0.0, 1)
    known = np.array([np.nan, 0.0, 0.0, 0.0, 0.0])
    decision = run([s] + [None] * 4, Sequential(alpha=alpha, epsilon=eps), procedure, known)
    assert decision.tolist() == ["reject"] * 5
    assert s.drawn == s.n and s.calls == 2  # its first block, then ahead to the end

    def excluded(q):
        return math.log(s.n + 1) + s.n * math.log1p(-q) <= math.log(eps)

    assert excluded(alpha) and not excluded(alpha / 5)


def test_max_permutations_of_exactly_one_first_block_is_accepted_and_drawn():
    """max_permutations must be an integer >= 16 (the first block): 16 is accepted, and a
    p-value that no block can decide draws exactly 16 permutations; 15 is refused."""
    with pytest.raises(ValueError, match="max_permutations must be None or an integer >= 16"):
        Sequential(max_permutations=15)
    s = _stream_sampler(0.05, 3)
    decision = run([s], Sequential(alpha=0.05, max_permutations=16))
    assert decision.tolist() == ["undecided"] and s.n == s.drawn == 16


def test_options_are_checked():
    for name in ("alpha", "epsilon"):  # both ends of (0, 1) are refused, inner values kept
        for value in (0, 0.0, 1, 1.0, -0.1, 1.5):
            with pytest.raises(ValueError, match=rf"{name} must be in \(0, 1\)"):
                Sequential(**{name: value})
        for value in (1e-12, 0.5, 1 - 1e-12):
            assert getattr(Sequential(**{name: value}), name) == value
    with pytest.raises(ValueError, match="max_permutations"):
        Sequential(max_permutations=3)
    y, g = np.r_[np.zeros(50), np.ones(50)], np.arange(100) % 2
    with pytest.raises(ValueError, match="not both"):
        fastfair.mean_difference_test(y, g, n_permutations=99, sequential=Sequential())
    with pytest.raises(TypeError, match="sequential"):
        fastfair.mean_difference_test(y, g, sequential=0.05)


# ------------------------------------------------------------------ the test functions


def _binary(seed, n=3000, shift=0.0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    yhat = (rng.random(n) < 0.4 + 0.2 * y + shift * g).astype(int)
    score = 0.4 * y + rng.random(n) + shift * g * y
    return y, yhat, g, score


@pytest.mark.parametrize("shift", [0.0, 0.12])
def test_permutation_test_sequential_agrees_with_exact(shift):
    """Monte Carlo under the conditional scheme estimates the exact p-value: the sequential
    decision matches the exact one away from alpha."""
    y, yhat, g, _ = _binary(1, shift=shift)
    exact = fastfair.permutation_test(y, yhat, g, metric="tpr", method="exact")
    seq = fastfair.permutation_test(y, yhat, g, metric="tpr", method="monte_carlo", random_state=0)
    assert abs(exact.pvalue - 0.05) > 0.02  # data chosen away from alpha
    assert seq.decision == ("reject" if exact.pvalue <= 0.05 else "retain")
    lo, hi = seq.pvalue_interval
    assert lo <= exact.pvalue <= hi
    assert seq.n_permutations < 1000
    assert seq.sequential == Sequential()


def test_fixed_count_is_unchanged_and_has_no_decision():
    y, _, g, score = _binary(2)
    res = fastfair.auc_test(y, score, g, n_permutations=199, random_state=1)
    assert res.decision is None and res.sequential is None and res.n_permutations == 199
    seq = fastfair.auc_test(y, score, g, random_state=1, return_null=True)
    # the sequential test's first permutations are the fixed test's: same streams
    fixed = fastfair.auc_test(y, score, g, n_permutations=seq.n_permutations, random_state=1)
    assert fixed.pvalue == seq.pvalue
    assert seq.null_distribution.shape == (seq.n_permutations,)


SEQUENTIAL_CALLS = [
    lambda y, yh, g, s, **k: fastfair.auc_test(y, s, g, **k),
    lambda y, yh, g, s, **k: fastfair.auc_test(y, s, g, scheme="full", **k),
    lambda y, yh, g, s, **k: fastfair.permutation_test(y, yh, g, sample_weight=s, **k),
    lambda y, yh, g, s, **k: fastfair.permutation_test(y, yh, g, method="monte_carlo", **k),
    lambda y, yh, g, s, **k: fastfair.mean_difference_test(s, g, **k),
    lambda y, yh, g, s, **k: fastfair.correlation_test(s, y + 0.1 * g, **k),
    lambda y, yh, g, s, **k: fastfair.permutation_test(y, s, g, metric="mse", **k),
]


@pytest.mark.parametrize("call", SEQUENTIAL_CALLS)
def test_every_monte_carlo_test_is_sequential_by_default(call):
    y, yhat, g, score = _binary(3, n=1500, shift=0.15)
    res = call(y, yhat, g, score, random_state=2)
    assert res.decision in ("reject", "retain", "undecided")
    assert isinstance(res.n_permutations, int) and 0 < res.n_permutations
    # The interval is the running intersection of Robbins' confidence sets, so it lies
    # inside the final set for the final count S and contains the estimate S/n of p.
    n = res.n_permutations
    count = round(float(res.pvalue) * (n + 1)) - 1  # pvalue = (1 + S) / (1 + n)
    lo, hi = (float(np.squeeze(x)) for x in res.pvalue_interval)
    final_lo, final_hi = robbins_interval(count, n, res.sequential.epsilon)
    assert final_lo - 1e-12 <= lo <= count / n <= hi <= final_hi + 1e-12
    assert "sequential Monte Carlo" in repr(res)
    fixed = call(y, yhat, g, score, random_state=2, n_permutations=res.n_permutations)
    assert fixed.pvalue == res.pvalue  # the same permutations were drawn


@pytest.mark.parametrize("call", SEQUENTIAL_CALLS)
def test_sequential_blocks_continue_the_fixed_tests_streams(call):
    """With its level near the p-value the sequential test draws several blocks (the first
    has 16 permutations); block after block it continues the streams, so its permuted statistics
    are exactly the first n of the fixed test's with the same random_state, not a repeat of
    the first block. Written for round-5 mutant r5-counts-stream-ignores-start (a later
    block restarting at stream 0), which a p-value alone misses when nothing exceeds."""
    y, yhat, g, score = _binary(4, n=1500)
    rough = call(y, yhat, g, score, random_state=0, n_permutations=199)
    near = Sequential(alpha=float(np.clip(np.squeeze(rough.pvalue), 0.02, 0.9)))
    res = call(y, yhat, g, score, random_state=5, return_null=True, sequential=near)
    n = res.n_permutations
    assert n > 64, n  # several blocks: the level sits near the p-value
    fixed = call(y, yhat, g, score, random_state=5, n_permutations=n, return_null=True)
    np.testing.assert_array_equal(res.null_distribution, fixed.null_distribution)
    assert fixed.pvalue == res.pvalue


def test_callable_metric_algorithm1_sequential():
    y, yhat, g, _ = _binary(4, n=400, shift=0.3)

    def tpr(yt, yp):
        return float(np.mean(yp[yt == 1])) if np.any(yt == 1) else 0.0

    for stud in (True, "bootstrap-fast", False):
        res = fastfair.permutation_test(
            y, yhat, g, metric=tpr, studentize=stud, n_bootstrap=30, random_state=1
        )
        assert res.decision == "reject"
        assert res.n_permutations < 1000


def test_several_groups_use_the_adjustment():
    rng = np.random.default_rng(6)
    n = 3000
    g = rng.integers(0, 3, n)
    v = rng.normal(size=n) + 0.3 * (g == 1)
    res = fastfair.mean_difference_test(v, g, reference=0, random_state=0)
    assert res.decision.tolist() == ["reject", "retain"]
    assert res.n_permutations.shape == (2,)
    # Holm at 0.05 over 2: the clear rejection must be below 0.025 with its interval
    assert res.pvalue_interval[1][0] <= 0.025


def test_multiple_monte_carlo_over_tests():
    rng = np.random.default_rng(7)
    g = rng.integers(0, 2, 4000)
    tests = [
        fastfair.mean_difference_test(rng.normal(size=4000) + d * g, g, random_state=k)
        for k, d in enumerate([0.0, 0.0, 0.2, 0.0])
    ]
    fam = multiple_monte_carlo([*tests, 0.5, 1e-6], adjust="holm")
    assert fam.decision.tolist() == ["retain"] * 2 + ["reject", "retain", "retain", "reject"]
    assert fam.source[-1] == (5, 0)
    assert fam.n_permutations[-1] == 0
    lo, hi = fam.pvalue_interval
    assert (lo <= hi).all()
    assert "MultipleMonteCarloResult" in repr(fam)
    # the rejected hypothesis (Holm rank 2 of 6, after p = 1e-6) lies below 0.05 / 5
    assert hi[2] <= 0.05 / 5


def test_audit_default_is_sequential_and_decides_the_family():
    rng = np.random.default_rng(12)
    n = 3000
    sex = rng.choice(["F", "M"], n)
    y = rng.random(n) < 0.4
    score = rng.normal(size=n) + y * np.where(sex == "F", 0.6, 1.0)
    res = fastfair.audit(y, None, {"sex": sex}, y_score=score, threshold=0.5, metrics=["tpr"])
    auc = next(t for t in res.tests if t["family"] == "auc")
    assert auc["method"] == "permutation"  # < 1,000 per class: no DeLong shortcut
    assert auc["verdict"] == "DIFFERENCE"
    _, hi = auc["pvalue_interval"]
    assert hi <= 0.05  # its Holm level (it ranks after the smaller p-values) is excluded
    assert 0 < auc["n_permutations"] < 19_999
    fixed = fastfair.audit(
        y, None, {"sex": sex}, y_score=score, threshold=0.5, metrics=["tpr"], n_permutations=999
    )
    assert [t["verdict"] for t in fixed.tests] == [t["verdict"] for t in res.tests]


# ------------------------------------------------------------------ the family's risk split


def _zero_upper(n, delta):
    """Upper end of Robbins' interval after n permutations and no exceedance, in closed form:
    (n + 1) (1 - q)^n = delta."""
    return 1.0 - (delta / (n + 1.0)) ** (1.0 / n)


def _never_exceeding():
    return Sampler(lambda start, count: np.zeros(count), 0.5, "greater", keep_null=False)


@pytest.mark.parametrize("procedure,m", [("holm", 3), ("bonferroni", 4), ("bh", 2), ("none", 3)])
def test_each_sampler_spends_its_share_of_epsilon(procedure, m):
    """A family of m samplers splits the resampling risk: each interval is Robbins' set at
    epsilon / m (epsilon itself without adjustment). With no exceedance the running
    intersection is the last set, whose upper end has a closed form."""
    options = Sequential(epsilon=1e-3)
    samplers = [_never_exceeding() for _ in range(m)]
    decision = run(samplers, options, procedure)
    assert decision.tolist() == ["reject"] * m
    delta = options.epsilon / m if procedure != "none" else options.epsilon
    for s in samplers:
        assert (s.count, s.lo) == (0, 0.0)
        assert s.hi == pytest.approx(_zero_upper(s.n, delta), rel=1e-9)
        assert s.hi != pytest.approx(_zero_upper(s.n, options.epsilon * (m + 1)), rel=1e-6)


@pytest.mark.parametrize(
    "procedure,m", [("holm", 1), ("holm", 20), ("bonferroni", 40), ("bh", 30), ("none", 3)]
)
def test_default_cap_reaches_the_smallest_adjusted_level(procedure, m):
    """The default cap is ten times the permutations a p-value of 0 needs to be shown below
    the smallest level the procedure can compare with (alpha / m for Holm and Bonferroni,
    alpha without adjustment), at the sampler's share of epsilon; at least 19,999."""
    from fastfair._sequential import MIN_CAP, default_cap

    options = Sequential(alpha=0.05, epsilon=1e-3)
    adjusted = procedure != "none" and m > 1
    level = options.alpha / m if adjusted else options.alpha
    delta = options.epsilon / m if procedure != "none" else options.epsilon
    n = np.arange(1, 2_000_000, dtype=np.float64)
    first = int(n[np.log(n + 1) + n * np.log1p(-level) <= np.log(delta)][0])
    assert default_cap(options, m, procedure) == max(MIN_CAP, 10 * first)
    if adjusted:  # above the floor, so the level and share used are what decides the cap
        assert default_cap(options, m, procedure) > MIN_CAP


def test_family_intervals_restart_at_the_family_level():
    """multiple_monte_carlo restarts each test's interval at the family's share epsilon / K:
    a test decided alone at epsilon keeps a narrower interval; in the family it must be the
    (wider) Robbins set at epsilon / K for its count, unless more permutations were drawn."""
    rng = np.random.default_rng(21)
    g = rng.integers(0, 2, 3000)
    tests = [
        fastfair.mean_difference_test(rng.normal(size=3000) + d * g, g, random_state=k)
        for k, d in enumerate([0.6, 0.0, 0.5, 0.0])
    ]
    eps = 1e-3
    fam = multiple_monte_carlo(tests, adjust="holm", epsilon=eps)
    lo, hi = fam.pvalue_interval
    unchanged = 0
    for k, res in enumerate(tests):
        n = int(res.n_permutations)
        if fam.n_permutations[k] != n:
            continue  # the family drew more: a running intersection, checked elsewhere
        unchanged += 1
        count = round(float(res.pvalue) * (n + 1)) - 1
        want = robbins_interval(count, n, eps / len(tests))
        assert (lo[k], hi[k]) == pytest.approx(want, abs=1e-12)
        alone = robbins_interval(count, n, eps)
        assert hi[k] > alone[1] or lo[k] < alone[0]  # wider than the test's own interval
    assert unchanged >= 2


def test_known_pvalues_take_no_share_of_epsilon():
    """In a family with known (exact) p-values, the Monte-Carlo p-values split epsilon among
    themselves only: one sampler beside 8 known p-values gets Robbins' set at epsilon,
    not epsilon / 9 (the known ones are points that always cover)."""
    s = _never_exceeding()
    options = Sequential(epsilon=1e-3)
    decision = run([s] + [None] * 8, options, "holm", known=np.r_[0.0, [0.9] * 8])
    assert decision[0] == "reject"
    assert s.hi == pytest.approx(_zero_upper(s.n, 1e-3), rel=1e-9)
    assert s.hi != pytest.approx(_zero_upper(s.n, 1e-3 / 9), rel=1e-6)


def _bernoulli_with_work(p, seed, work):
    s = _bernoulli_sampler(p, seed)
    s.work = work
    return s


def test_a_known_cost_buys_permutations_beyond_the_cap_in_a_family():
    """With a budget (multiple_monte_carlo's), a sampler of known cost may draw up to
    budget // work permutations (at most BUDGET_CAP) where the default cap would stop it;
    without a cost, or with max_permutations given, the cap stays."""
    from fastfair._sequential import BUDGET_CAP, MIN_CAP, _budget_cap, default_cap

    options = Sequential()
    cheap = _bernoulli_with_work(0.0068, 3, 1000)
    assert _budget_cap(cheap, MIN_CAP, 10**9) == 10**6 == BUDGET_CAP
    assert _budget_cap(cheap, MIN_CAP, 10**7) == MIN_CAP  # the budget buys fewer
    assert _budget_cap(_bernoulli_sampler(0.1, 1), MIN_CAP, 10**9) == MIN_CAP
    family = [cheap] + [None] * 8
    known = np.r_[np.nan, [0.9] * 8]
    decision = run(family, options, "holm", known=known, budget=10**9)
    assert decision[0] == "retain"  # 0.0068 > 0.05 / 9, resolved beyond 19,999
    assert default_cap(options, 9, "holm", 1) < cheap.n < BUDGET_CAP
    assert cheap.lo > 0.05 / 9
    capped = _bernoulli_with_work(0.0068, 3, 1000)
    decision = run([capped] + [None] * 8, options, "holm", known=known)  # no budget
    assert decision[0] == "undecided" and capped.n == default_cap(options, 9, "holm", 1)
    fixed = _bernoulli_with_work(0.0068, 3, 1000)
    run([fixed] + [None] * 8, Sequential(max_permutations=5000), "holm", known, budget=10**9)
    assert fixed.n == 5000


@pytest.mark.parametrize("drift", ["down", "up"])
def test_running_interval_is_the_intersection_of_every_robbins_interval(drift):
    """Sampler.narrow keeps the intersection of the confidence sequence's intervals (each
    holds at every n at once), not only the latest one: with an estimate that drifts from
    0.6 to 0.05 (or back), the latest interval alone is wider than the running one on the
    side the estimate left."""
    high = np.tile([1.0, 1.0, 1.0, 0.0, 0.0], 60)  # 60% exceedances
    low = np.zeros(2_700)
    low[::20] = 1.0  # 5%
    values = np.concatenate([high, low] if drift == "down" else [low, np.tile(high, 9)])
    sampler = Sampler(lambda start, count: values[start : start + count], 0.5, "greater", False)
    delta = 1e-3
    intervals = []
    for _ in range(30):
        sampler.extend(100)
        sampler.narrow(delta)
        intervals.append(robbins_interval(sampler.count, sampler.n, delta))
        assert (sampler.lo, sampler.hi) == (
            max(lo for lo, _ in intervals),
            min(hi for _, hi in intervals),
        )
    assert sampler.n == 3_000 and sampler.count == 180 + 135
    latest = intervals[-1]
    if drift == "down":
        assert sampler.lo > latest[0]  # the check can fail on either side
    else:
        assert sampler.hi < latest[1]


def _rejected_by_hand(p, alpha, procedure):
    """Each procedure's textbook rule, written as loops over the sorted p-values."""
    m, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    out = [False] * m
    if procedure == "none":
        return [x <= alpha for x in p]
    if procedure == "bonferroni":
        return [x <= alpha / m for x in p]
    if procedure == "holm":  # step down: stop at the first p_(k) above alpha / (m - k + 1)
        for k, i in enumerate(order):
            if p[i] > alpha / (m - k):
                break
            out[i] = True
        return out
    last = max((k for k, i in enumerate(order) if p[i] <= alpha * (k + 1) / m), default=-1)
    for i in order[: last + 1]:  # BH: step up from the largest k with p_(k) <= k alpha / m
        out[i] = True
    return out


@pytest.mark.parametrize("procedure", ["none", "bonferroni", "holm", "bh"])
def test_known_pvalues_on_a_procedures_critical_value_are_rejected(procedure):
    # alpha = 1/4 and m = 4 make every critical value exact in binary (Holm's 1/12 is
    # computed as alpha / 3 on both sides): a p-value equal to its critical value is
    # rejected, the next float above it is not.
    alpha, m = 0.25, 4
    critical = {
        "none": [alpha] * m,
        "bonferroni": [alpha / m] * m,
        "holm": [alpha / (m - k) for k in range(m)],
        "bh": [alpha * (k + 1) / m for k in range(m)],
    }[procedure]
    for k in range(m):
        below = [0.001 * (j + 1) for j in range(k)]  # the smaller p-values, all rejected
        on = [*below, critical[k], *[0.9] * (m - k - 1)]
        above = [*below, float(np.nextafter(critical[k], 1.0)), *[0.9] * (m - k - 1)]
        for p, hit in ((on, True), (above, False)):
            expected = _rejected_by_hand(p, alpha, procedure)
            assert expected[k] == hit
            got = multiple_monte_carlo(p, adjust=procedure, alpha=alpha).decision
            assert [d == "reject" for d in got] == expected, (procedure, k, p, got)


def _adjusted_by_hand(p, procedure):
    """Textbook adjusted p-values, written as loops over the sorted p-values."""
    m, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    out = [0.0] * m
    if procedure == "none":
        return list(p)
    if procedure == "bonferroni":
        return [min(1.0, m * x) for x in p]
    if procedure == "holm":  # running max of (m - k) p_(k), k from 0
        run_max = 0.0
        for k, i in enumerate(order):
            run_max = max(run_max, (m - k) * p[i])
            out[i] = min(1.0, run_max)
        return out
    run_min = 1.0  # BH: running min from the largest of m p_(k) / (k + 1)
    for k in range(m - 1, -1, -1):
        i = order[k]
        run_min = min(run_min, m * p[i] / (k + 1))
        out[i] = run_min
    return out


@pytest.mark.parametrize("procedure", ["none", "bonferroni", "holm", "bh"])
def test_family_adjusted_pvalues_follow_the_chosen_procedure(procedure):
    """pvalue_adjusted of a family of known p-values is `adjust`'s (each procedure gives
    different values on these four), not Holm's whatever `adjust` says."""
    p = [0.012, 0.04, 0.03, 0.2]
    fam = multiple_monte_carlo(p, adjust=procedure)
    want = _adjusted_by_hand(p, procedure)
    np.testing.assert_allclose(fam.pvalue_adjusted, want, rtol=1e-12)
    others = {"none", "bonferroni", "holm", "bh"} - {procedure}
    for other in others:
        assert not np.allclose(want, _adjusted_by_hand(p, other))


def test_family_repr_rows_read_back_every_column():
    """Each row of MultipleMonteCarloResult's table shows its hypothesis's p-value, the low
    and high ends of its interval (low below high for a Monte-Carlo one), the adjusted
    p-value (BH, which differs from the raw ones here), the permutations and the decision."""
    rng = np.random.default_rng(36)
    g = rng.integers(0, 2, 400)
    tests = [
        fastfair.mean_difference_test(
            rng.normal(size=400) + d * g, g, random_state=k, n_permutations=199
        )
        for k, d in enumerate([0.25, 0.0])
    ]
    fam = multiple_monte_carlo([*tests, 0.004, 0.03], adjust="bh", max_permutations=400)
    fmt = fastfair._format.format_value
    lines = repr(fam).splitlines()
    assert lines[1].split() == [
        "test/comparison",
        "pvalue",
        "low",
        "high",
        "adjusted",
        "permutations",
        "decision",
    ]
    rows = [ln.split() for ln in lines[2:]]
    assert len(rows) == 4
    lo, hi = fam.pvalue_interval
    p = fam.pvalue.tolist()
    adjusted = _adjusted_by_hand(p, "bh")
    assert any(abs(a - b) > 1e-3 for a, b in zip(adjusted, p))
    for k, row in enumerate(rows):
        i, c = fam.source[k]
        if k < 2:  # Monte Carlo: a proper interval around the estimate
            assert lo[k] < p[k] < hi[k]
        expect = [f"{i}/{c}", fmt(p[k]), fmt(lo[k]), fmt(hi[k]), fmt(adjusted[k])]
        assert row == [*expect, str(int(fam.n_permutations[k])), fam.decision[k]]


def test_monte_carlo_repr_notes_show_each_comparisons_interval_and_the_decisions():
    """The lines a Monte-Carlo result's repr ends with, two comparisons: after a fixed B the
    Wilson 95% interval of each count = p (B + 1) - 1 out of B (written out here), in the
    comparisons' order; sequentially, each comparison's confidence-sequence interval, then
    alpha, epsilon, the decisions and the permutations drawn, in the same order."""
    rng = np.random.default_rng(36)
    g = rng.integers(0, 3, 300)
    v = rng.normal(size=300) + 0.15 * g
    fmt = fastfair._format.format_value
    fixed = fastfair.mean_difference_test(v, g, n_permutations=199, random_state=2, reference=0)
    z = stats.norm.ppf(0.975)
    spans = []
    for c in range(2):
        count = round(fixed.pvalue[c] * 200) - 1
        phat = count / 199
        centre = (phat + z * z / 398) / (1 + z * z / 199)
        half = z * np.sqrt(phat * (1 - phat) / 199 + z * z / (4 * 199**2)) / (1 + z * z / 199)
        np.testing.assert_allclose(
            [fixed.pvalue_interval[0][c], fixed.pvalue_interval[1][c]],
            [centre - half, centre + half], rtol=1e-12,
        )  # fmt: skip
        spans.append(f"[{fmt(centre - half)}, {fmt(centre + half)}]")
    assert fixed.pvalue[0] > 0.05 > fixed.pvalue[1]  # two different intervals
    assert repr(fixed).splitlines()[-1] == (
        "  95% Monte-Carlo interval of the p-value: " + ", ".join(spans)
    )
    seq = fastfair.mean_difference_test(v, g, random_state=2, reference=0)
    lo, hi = seq.pvalue_interval
    assert lo[0] > lo[1] and hi[0] > hi[1] and set(seq.decision) == {"retain", "reject"}
    *_, interval_line, decision_line = repr(seq).splitlines()
    assert interval_line == "  confidence-sequence Monte-Carlo interval of the p-value: " + (
        f"[{fmt(lo[0])}, {fmt(hi[0])}], [{fmt(lo[1])}, {fmt(hi[1])}]"
    )
    assert decision_line == (
        "  sequential Monte Carlo (alpha=0.0500, epsilon=0.0010): decision "
        f"{seq.decision[0]}, {seq.decision[1]}; permutations "
        f"{seq.n_permutations[0]}, {seq.n_permutations[1]}"
    )
    assert seq.n_permutations[0] != seq.n_permutations[1]


def test_sequential_repr_floors_each_pvalue_at_its_own_permutation_count():
    """A sequential test of two comparisons that stop after different numbers of
    permutations: a p-value with no exceedance, 1/(n_c + 1), prints as "< 1/(n_c + 1)" with
    that comparison's own n_c (not the first comparison's), any other p-value as a number."""
    rng = np.random.default_rng(1)
    g = np.repeat([0, 1, 2], 200)
    v = rng.normal(size=600) + np.where(g == 2, 1.0, 0.0)
    res = fastfair.mean_difference_test(v, g, random_state=1, reference=0)
    n = np.asarray(res.n_permutations)
    assert n[0] != n[1]
    fmt = fastfair._format.format_value
    rows = [ln.split() for ln in repr(res).splitlines() if ln.startswith(("  1 - 0", "  2 - 0"))]
    floored = 0
    for c, row in enumerate(rows):
        p = float(res.pvalue[c])
        if abs(p - 1 / (n[c] + 1)) < 1e-12:
            want = ["<", f"{1 / (n[c] + 1):.3g}"]
            floored += 1
        else:
            want = [fmt(p)]
        assert row[-1 - len(want) : -1] == want
    assert floored == 1


def test_sequential_null_of_several_comparisons_is_nan_padded_per_comparison():
    """return_null with a sequential test of two comparisons that stop at different counts:
    column c holds comparison c's n_c permuted statistics, then NaN; each p-value is
    (1 + #{|T_b| >= |T|}) / (1 + n_c) recounted from its column."""
    rng = np.random.default_rng(1)
    g = np.repeat([0, 1, 2], 200)
    v = rng.normal(size=600) + np.where(g == 2, 1.0, 0.0)
    res = fastfair.mean_difference_test(v, g, random_state=1, reference=0, return_null=True)
    n = np.asarray(res.n_permutations)
    null = res.null_distribution
    assert n[0] != n[1] and null.shape == (n.max(), 2)
    for c in range(2):
        column = null[:, c]
        assert np.isfinite(column[: n[c]]).all() and np.isnan(column[n[c] :]).all()
        count = np.sum(np.abs(column[: n[c]]) >= abs(res.statistic[c]) * (1 - 1e-12))
        assert res.pvalue[c] == pytest.approx((1 + count) / (1 + n[c]), rel=1e-12)


def test_robbins_interval_before_any_permutation_is_all_of_0_1():
    """No permutation drawn yet: the confidence sequence is [0, 1] whatever the level."""
    assert robbins_interval(0, 0, 0.001) == (0.0, 1.0)
    assert robbins_interval(0, 0, 0.5) == (0.0, 1.0)


def test_repr_heads_show_n_permutations_for_a_fixed_count_only():
    """permutation_test, auc_test and a row-metric test by Monte Carlo: the head ends with
    n_permutations=B for a fixed B; a sequential test's head has no n_permutations (its
    counts are in the sequential line, one per comparison)."""
    rng = np.random.default_rng(1)
    g, y = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    p, s = rng.integers(0, 2, 300), rng.normal(size=300) + y
    tests = {
        "permutation": lambda **k: fastfair.permutation_test(y, p, g, method="monte_carlo", **k),
        "auc": lambda **k: fastfair.auc_test(y, s, g, method="permutation", **k),
        "rows": lambda **k: fastfair.permutation_test(
            y, s, g, metric="mse", method="monte_carlo", **k
        ),
    }
    for run_test in tests.values():
        fixed = run_test(n_permutations=99, random_state=1)
        assert (
            repr(fixed).splitlines()[0].endswith(", alternative='two-sided', n_permutations=99)")
        )
        seq = run_test(n_permutations=None, random_state=1)
        lines = repr(seq).splitlines()
        assert lines[0].endswith(", alternative='two-sided')")
        assert lines[-1].endswith(f"; permutations {int(seq.n_permutations)}")


def test_sequential_options_and_families_are_refused_with_their_rule():
    """alpha and epsilon: a non-number (a string, a boolean) is a TypeError naming it, a
    number outside (0, 1), ends included, a ValueError; multiple_monte_carlo refuses an
    unknown adjust, an entry that is neither a result nor a p-value in [0, 1], and no
    entries at all."""
    for name in ("alpha", "epsilon"):
        for bad in ("0.05", True):
            with pytest.raises(TypeError, match=f"{name} must be a number, got {bad!r}"):
                Sequential(**{name: bad})
        for bad in (0, 1, 1.5, -0.1):
            with pytest.raises(ValueError, match=rf"{name} must be in \(0, 1\), got"):
                Sequential(**{name: bad})
    assert Sequential(alpha=0.5, epsilon=0.999).alpha == 0.5
    with pytest.raises(ValueError, match=r"adjust must be one of \('holm', 'bonferroni'"):
        multiple_monte_carlo([0.01, 0.2], adjust="maxT")
    with pytest.raises(TypeError, match=r"results\[1\] is neither a fastfair test result"):
        multiple_monte_carlo([0.01, "0.2"])
    with pytest.raises(ValueError, match=r"results\[0\] = 1.5 is not a p-value in \[0, 1\]"):
        multiple_monte_carlo([1.5])
    with pytest.raises(ValueError, match="results is empty"):
        multiple_monte_carlo([])
    assert list(multiple_monte_carlo([0.0, 1.0], adjust="none").decision) == ["reject", "retain"]


# --- practice round prac10 (session 17) ---


def test_sequential_null_of_several_comparisons_is_nan_padded_per_column():
    counts = np.array([[300, 30, 40, 160], [150, 15, 45, 40], [140, 16, 21, 79]])
    res = fastfair.permutation_test_from_counts(
        counts, method="monte_carlo", return_null=True, random_state=3
    )
    null = np.asarray(res.null_distribution)
    n = np.asarray(res.n_permutations)
    assert n.shape == (2,) and n[0] != n[1]
    assert null.shape == (n.max(), 2)
    for c in range(2):
        col = null[:, c]
        assert np.isfinite(col[: n[c]]).all() and np.isnan(col[n[c] :]).all()
        extreme = np.sum(np.abs(col[: n[c]]) >= abs(res.statistic[c]) * (1 - 1e-12))
        assert res.pvalue[c] == (1 + extreme) / (1 + n[c])


@pytest.mark.parametrize(
    "adjust, expected",
    [  # m = 5; Holm: .004*5, .011*4 <= .05 < .02*3; Bonferroni: only .004 <= .01;
        # BH: p_(k) <= .01 k up to k = 4 (.03 <= .04); none: p <= .05
        ("holm", ["reject", "retain", "retain", "reject", "retain"]),
        ("bonferroni", ["retain", "retain", "retain", "reject", "retain"]),
        ("bh", ["reject", "reject", "reject", "reject", "retain"]),
        ("none", ["reject", "reject", "reject", "reject", "retain"]),
    ],
)
def test_a_family_of_known_pvalues_is_decided_by_its_procedure_by_hand(adjust, expected):
    fam = multiple_monte_carlo([0.011, 0.02, 0.03, 0.004, 0.6], adjust=adjust)
    assert fam.decision.tolist() == expected


def test_unadjusted_sequential_comparisons_each_keep_the_full_epsilon():
    """adjust="none": each comparison's confidence sequence has level 1 - epsilon (the
    documented split over C applies only with an adjustment), so the first comparison of
    three groups is drawn exactly as the two-group test of its pair (same stream 0, same
    observed statistic): same permutations, p-value and interval."""
    counts = np.array([[300, 30, 40, 160], [150, 15, 45, 40], [140, 16, 21, 79]])
    family = fastfair.permutation_test_from_counts(
        counts, method="monte_carlo", adjust="none", random_state=3
    )
    assert family.comparisons == [(1, 0), (2, 0)]
    pair = fastfair.permutation_test_from_counts(
        counts[[1, 0]], [1, 0], method="monte_carlo", reference=0, random_state=3
    )
    assert pair.comparisons == [(1, 0)]
    assert family.n_permutations[0] == pair.n_permutations
    assert family.pvalue[0] == pair.pvalue
    assert family.pvalue_interval[0][0] == pair.pvalue_interval[0]
    assert family.pvalue_interval[1][0] == pair.pvalue_interval[1]


def test_first_finds_the_smallest_m_where_a_monotone_condition_turns_true_or_returns_hi():
    """_first (doubling, then bisection) against a plain scan of (lo, hi], for every switch
    point t of a condition m >= t, including t = lo + 1, t = hi and none (hi returned)."""
    from fastfair._sequential import _first

    for lo, hi in ((0, 1), (0, 37), (5, 6), (12, 100), (3, 64)):
        for t in range(lo + 1, hi + 3):
            calls = []

            def condition(m, t=t, calls=calls, lo=lo, hi=hi):
                assert lo < m <= hi  # never asked outside (lo, hi]
                calls.append(m)
                return m >= t

            want = next((m for m in range(lo + 1, hi + 1) if m >= t), hi)
            assert _first(condition, lo, hi) == want, (lo, hi, t)
            assert len(calls) <= 2 * max(1, (hi - lo).bit_length()) + 2


def test_block_size_reaches_the_earliest_exit_of_the_interval_by_a_scan():
    """_next_block's size (it only steers how many permutations are drawn next) against
    its definition: max(earliest - n, n // 8, 16 if n == 0 else 1), capped at cap - n, where
    earliest is the first m > n at which m permutations with no new exceedance put the
    Robbins interval below t_hi, or with only exceedances above t_lo (a plain scan of the
    log mixture)."""
    from fastfair._sequential import FIRST_BLOCK, _block_size, _log_mixture1

    delta, t_hi, t_lo, cap = 1e-3, 0.05, 0.01, 5000
    level = math.log(delta)
    for n, c in ((0, 0), (10, 0), (40, 1), (200, 3), (200, 30), (1000, 60), (4990, 0)):

        def below(m, n=n, c=c):
            return c < t_hi * m and _log_mixture1(m, c, t_hi) <= level

        def above(m, n=n, c=c):
            k = c + m - n
            return k > t_lo * m and _log_mixture1(m, k, t_lo) <= level

        limit = max(cap, n + 1)
        earliest = next((m for m in range(n + 1, limit + 1) if below(m) or above(m)), limit)
        want = max(earliest - n, n // 8, FIRST_BLOCK if n == 0 else 1)
        want = max(1, min(want, cap - n))
        assert _block_size(n, c, delta, t_hi, t_lo, cap) == want, (n, c)
