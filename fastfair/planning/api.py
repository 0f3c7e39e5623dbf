"""The public functions: ingest -> statistics -> inference (sample size and power)."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fastfair._deprecation import renamed_arguments, user_stacklevel
from fastfair._pvalues import wilson_interval
from fastfair._scipy import special
from fastfair._validation import (
    check_choice,
    check_resamples,
    show_value,
)
from fastfair.planning.inference import (
    _allocation_fractions,
    _asymptotic_rejections,
    _bootstrap_plans,
    _ceil,
    _exact_applicable,
    _exact_too_large,
    _n_per_group_from_args,
    _n_required,
    _n_required_exact,
    _n_required_score,
    _n_required_tost,
    _observed_difference,
    _permutation_rejections,
    _plan_fields,
    _score_z,
    _se_comparisons,
    _sigma2_from_args,
    _tost_power,
    _unit_variances_and_values,
    _wald_differences,
    _wald_z,
)
from fastfair.planning.ingest import (
    _as_rate_dict,
    _check_delta,
    _check_feasible,
    _check_metric,
    _check_open01,
    _check_pilot,
    _check_pilot_rates,
    _check_simulation,
    _check_tau,
    _check_u_tol,
)
from fastfair.planning.results import (
    DetectableDifferenceResult,
    PilotPlanResult,
    PowerResult,
    SampleSizeResult,
    SimulatedPowerResult,
)
from fastfair.planning.statistics import (
    _pilot_rates,
    _simulated_auc_differences,
    _simulated_cells,
)

# --------------------------------------------------------------------------------------------
# Metric table
# --------------------------------------------------------------------------------------------


def unit_variances(metric: str, rates: Mapping[str, Sequence[float]]) -> np.ndarray:
    """Per-unit group variances ``sigma_g^2`` of a metric estimate (Table 1, corrected).

    ``Var(M_hat_g) ~ sigma_g^2 / n_g`` for a stratified sample of ``n_g`` units of group ``g``.

    ==================  ==========================================  ==========================
    metric              sigma_g^2                                   rates needed
    ==================  ==========================================  ==========================
    selection_rate      PP (1 - PP)                                 selection_rate
    tpr / fnr           TPR (1 - TPR) / prev                        tpr (or fnr), prevalence
    tnr / fpr           TNR (1 - TNR) / (1 - prev)                  tnr (or fpr), prevalence
    ppv / fdr           PPV (1 - PPV) / PP     (paper: TPR(1-TPR))  ppv (or fdr), selection_rate
    npv / for           NPV (1 - NPV) / (1 - PP) (paper: TNR(1-TNR)) npv (or for), selection_rate
    accuracy            ACC (1 - ACC)                               accuracy (or error_rate)
    auc                 (Q1 - A^2)/(1 - prev) + (Q2 - A^2)/prev     auc, prevalence
    ==================  ==========================================  ==========================

    Parameters
    ----------
    metric : str
        Metric name (``"demographic_parity"`` is an alias of ``"selection_rate"``).
    rates : mapping
        Per-group values, each strictly inside (0, 1), one value per group.

    Returns
    -------
    numpy.ndarray
        ``sigma_g^2`` for each group.

    Examples
    --------
    >>> from fastfair.planning import unit_variances
    >>> unit_variances("ppv", {"ppv": [0.75, 0.8], "selection_rate": [0.25, 0.4]})
    array([0.75, 0.4 ])
    """
    name = _check_metric(metric)
    return _unit_variances_and_values(name, _as_rate_dict(rates))[0]


# --------------------------------------------------------------------------------------------
# Public planning functions
# --------------------------------------------------------------------------------------------


@renamed_arguments(reference="reference_index")
def sample_size(
    metric: str | None = None,
    *,
    rates: Mapping[str, Sequence[float]] | None = None,
    sigma2: Sequence[float] | None = None,
    tau: float | Sequence[float],
    u_tol: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    allocation: str | float | Sequence[float] = "neyman",
    alternative: str = "two-sided",
    reference_index: int = 0,
    population_sizes: float | Sequence[float] | None = None,
    delta: float | None = None,
    variance: str = "wald",
    test: str = "auto",
) -> SampleSizeResult:
    """Total and per-group sample size to detect an unfairness ``tau`` (Sec. 2, eq. 2-3).

    For allocation ``p_g = n_g / n`` and a comparison of group ``g`` with the reference ``r``,

    .. math::

        n = (z_{crit} + z_{1-\\beta})^2 (\\sigma_r^2/p_r + \\sigma_g^2/p_g) / (\\tau - U_{tol})^2

    (eq. 2), where ``z_crit = z_{1-alpha/2}`` (``alternative="two-sided"``, the paper's
    convention) or ``z_{1-alpha}`` (``"greater"``). Neyman allocation
    ``p_1 = sigma_1 / (sigma_1 + sigma_2)`` gives eq. 3,
    ``n = ((z_crit + z_{1-beta}) (sigma_1 + sigma_2) / (tau - U_tol))^2``. With ``k > 2``
    groups each comparison uses ``alpha / (k - 1)`` and n is the largest over comparisons;
    "neyman" then means the allocation minimising that n (``p_r = sigma_r / (sigma_r + sqrt(S))``,
    ``p_g`` proportional to ``sigma_g^2``, ``S = sum_{g != r} sigma_g^2``). With
    ``population_sizes`` the variances carry the factor ``1 - n_g / N_g``.

    Parameters
    ----------
    metric : str
        "selection_rate" (demographic parity; alias "demographic_parity"), "tpr", "fnr", "tnr",
        "fpr", "ppv", "fdr", "npv", "for", "accuracy", "error_rate" or "auc". May be None
        when ``sigma2`` is given.
    rates : mapping, optional
        Per-group quantities the metric needs (see :func:`unit_variances`), e.g.
        ``{"tpr": [0.68, 0.79], "prevalence": [0.35, 0.44]}``; each in (0, 1).
    sigma2 : sequence of float, optional
        Per-group unit variances ``sigma_g^2`` instead of ``rates``.
    tau : float or array_like
        Presumed unfairness ``|M_r - M_g|`` (> ``u_tol``). An array gives one n per value.
    u_tol : float, default 0
        Tolerated unfairness ``U_tol`` of the null hypothesis.
    alpha : float, default 0.05
        Significance level (family-wise with Bonferroni when ``k > 2``).
    power : float, default 0.8
        Target power ``1 - beta`` of each comparison.
    allocation : {"neyman", "equal"}, float or sequence of float
        "neyman" (eq. 3), "equal", the first group's fraction ``p_1`` (eq. 2, two groups) or
        one fraction per group.
    alternative : {"two-sided", "greater"}
        Critical value ``z_{1-alpha/2}`` (paper) or ``z_{1-alpha}``.
    reference_index : int, default 0
        Position of the reference group in `rates`/`sigma2` (0-based). The tests'
        `reference` is a group label; planning has no labels, hence the distinct name.
    population_sizes : float or sequence of float, optional
        Group population sizes ``N_g`` for the finite-population correction (not with
        `delta`).
    delta : float, optional
        Equivalence mode: size an equivalence test (TOST, :func:`fastfair.equivalence_test`)
        of :math:`H_1: |U| < \\delta` when the true gap is ``tau`` (``0 <= tau < delta``):
        the smallest n with
        :math:`\\Phi((\\delta - \\tau)/\\sigma_U - z_{1-a}) +
        \\Phi((\\delta + \\tau)/\\sigma_U - z_{1-a}) - 1 \\ge` power, found by bisection,
        ``a = alpha / (k - 1)``; `alternative` and `u_tol` do not apply.
    variance : {"wald", "score"}, default "wald"
        ``"wald"``: eq. 2, the variance at the presumed rates throughout (reproduces the
        paper's Table 2). ``"score"`` (rate metrics given by `rates`, no
        `population_sizes` or `delta`): plans for the score test that
        :func:`fastfair.tolerance_test` runs, whose critical value uses the variance
        :math:`\\tilde V` at the rates fitted under :math:`U = U_{tol}` (Farrington &
        Manning 1990): :math:`n = (z_{crit}\\sqrt{\\tilde V} + z_{1-\\beta}\\sqrt{V})^2 /
        (\\tau - U_{tol})^2`, per comparison, with the same allocation.
    test : {"auto", "exact", "asymptotic"}, default "auto"
        ``"exact"``: size the test :func:`fastfair.audit` runs on a rate metric, the exact
        conditional (permutation) test, by its exact power: the smallest total n from which
        the power at the collected group sizes (each ``n p_g`` rounded up, denominators such
        as the positives binomial) is at least `power` and stays so at 10 totals spread over
        the next max(10%, 20) (the power of a discrete test is not monotone in n). The
        reference keeps its rate and every other group is `tau` away in the direction of
        its given rate; `alternative="greater"` sizes the one-sided exact test in that
        direction. Needs a rate metric given by `rates`, ``u_tol = 0``, no `delta` or
        `population_sizes`. ``"asymptotic"``: the z-test formula of `variance` (the paper's
        eq. 2 with "wald"). ``"auto"``: "exact" where it applies and `variance` is "wald",
        else "asymptotic"; where the exact power would enumerate too large a lattice (tens
        of thousands of rows with common rates) "auto" plans the score formula, the large-
        sample form of the same test. The result's ``test`` says which test was sized.

    Returns
    -------
    SampleSizeResult

    Examples
    --------
    The paper's TPR example (Appendix A, Table 2), with the per-group rates to 4 decimals,
    by its formula (eq. 2-3):

    >>> from fastfair.planning import sample_size
    >>> rates = {"tpr": [0.6835, 0.7894], "prevalence": [0.3478, 0.4404]}
    >>> res = sample_size("tpr", rates=rates, tau=0.7894 - 0.6835, test="asymptotic")
    >>> round(float(res.n), 2)
    1377.76
    >>> res.n_per_group_ceil.tolist()
    [775, 604]

    By default the plan sizes the test the audit runs (the exact conditional test), with
    its exact power at the rows to collect:

    >>> res = sample_size("tpr", rates={"tpr": [0.7, 0.6], "prevalence": [0.3, 0.3]},
    ...                   tau=0.1, allocation=0.5)
    >>> res.test, res.n_per_group_ceil.tolist(), round(res.achieved_power, 3)
    ('exact', [1224, 1224], 0.8)
    >>> round(float(sample_size(sigma2=[0.25, 0.25], tau=0.1).n), 1)
    784.9
    >>> round(float(sample_size(sigma2=[0.25, 0.25], tau=0.1, alternative="greater").n), 1)
    618.3
    """
    name, s2, rd = _sigma2_from_args(metric, rates, sigma2)
    u_tol = _check_u_tol(u_tol, name)
    delta = _check_delta(delta, u_tol)
    if delta is not None:
        return _sample_size_tost(
            name, s2, rd, tau, delta, alpha, power, allocation, reference_index, population_sizes
        )
    t = _check_tau(tau, u_tol, metric=name)
    base = _plan_fields(name, s2, rd, u_tol, alpha, alternative, reference_index, population_sizes)
    power = _check_open01(power, "power")
    z, ref, pop = base["z_critical"], base["reference_index"], base["population_sizes"]
    zb = float(special.ndtri(power))
    if z + zb <= 0:
        raise ValueError(
            f"power (={power}) must exceed the rejection rate at tau = u_tol "
            f"({1 - special.ndtr(z):.4g}); increase power or alpha"
        )
    p, rule = _allocation_fractions(allocation, s2, ref)
    check_choice(variance, "variance", ("wald", "score"))
    exact = _choose_test(test, variance, name, rd, u_tol, delta, pop)
    if variance == "score" or exact:
        n = _n_required_score(name, rd, p, ref, t - u_tol, u_tol, z, zb, pop)
    else:
        n = _n_required(s2, p, ref, t - u_tol, z + zb, pop)
    achieved = None
    if exact and _exact_too_large(name, rd, p, ref, t, n):
        if test == "exact":
            raise ValueError(
                f"the exact plan needs about {float(np.max(n)):.3g} rows, too many to enumerate "
                "its power; use test='asymptotic' (the score formula is its large-sample form)"
            )
        exact, variance = False, "score"  # large samples: the pooled z-test of the same test
    if exact:
        a_c, alt = base["alpha_per_comparison"], base["alternative"]
        n, reached = _n_required_exact(name, rd, p, ref, t, a_c, alt, power, n)
        achieved = float(reached) if reached.ndim == 0 else reached
    npg = n[..., None] * p
    _check_feasible(npg, pop)
    res = _size_result(base, n, npg, p, rule, t, power)
    kind = "exact" if exact else variance
    return dataclasses.replace(res, test=kind, achieved_power=achieved)


def _choose_test(test, variance, name, rd, u_tol, delta, pop) -> bool:
    """Whether `sample_size` sizes the exact conditional test (`test` checked)."""
    check_choice(test, "test", ("auto", "exact", "asymptotic"))
    why_not = _exact_applicable(name, rd, u_tol, delta, pop)
    if test == "exact" and why_not is not None:
        raise ValueError(f"test='exact' needs {why_not}")
    if test == "exact" and variance != "wald":
        raise ValueError("variance applies to test='asymptotic' only")
    return test == "exact" or (test == "auto" and why_not is None and variance == "wald")


def _size_result(
    base: dict[str, Any],
    n: np.ndarray,
    npg: np.ndarray,
    p: np.ndarray,
    rule: str,
    t: np.ndarray,
    power: float,
    delta: float | None = None,
) -> SampleSizeResult:
    """Pack a sample-size computation (n, per-group sizes, allocation) into its result."""
    ceil = _ceil(npg)
    return SampleSizeResult(
        **base,
        n=float(n) if n.ndim == 0 else n,
        n_per_group=npg,
        n_per_group_ceil=ceil,
        n_total_ceil=int(ceil.sum()) if ceil.ndim == 1 else ceil.sum(axis=-1),
        allocation=p,
        allocation_rule=rule,
        tau=float(t) if t.ndim == 0 else t,
        power=power,
        z_power=float(special.ndtri(power)),
        delta=delta,
        test="wald" if delta is None else "tost",
    )


def _sample_size_tost(
    name, s2, rd, tau, delta, alpha, power, allocation, reference, population_sizes
) -> SampleSizeResult:
    t = np.abs(np.asarray(tau, dtype=float))
    if not np.all(np.isfinite(t)) or np.any(t >= delta):
        raise ValueError(
            f"tau (the true gap) must satisfy |tau| < delta (={delta:g}); got {show_value(tau)}"
        )
    if population_sizes is not None:
        raise ValueError(
            "population_sizes (finite-population correction) does not apply with delta"
        )
    base = _plan_fields(name, s2, rd, 0.0, alpha, "equivalence", reference, None)
    power = _check_open01(power, "power")
    ref = base["reference_index"]
    p, rule = _allocation_fractions(allocation, s2, ref)
    n = _n_required_tost(s2, p, ref, t, delta, base["z_critical"], power)
    return _size_result(base, n, n[..., None] * p, p, rule, t, power, delta)


@renamed_arguments(reference="reference_index")
def power(
    metric: str | None = None,
    *,
    rates: Mapping[str, Sequence[float]] | None = None,
    sigma2: Sequence[float] | None = None,
    tau: float | Sequence[float],
    n: float | Sequence[float] | None = None,
    n_per_group: Sequence[float] | None = None,
    u_tol: float = 0.0,
    alpha: float = 0.05,
    allocation: str | float | Sequence[float] = "neyman",
    alternative: str = "two-sided",
    reference_index: int = 0,
    population_sizes: float | Sequence[float] | None = None,
    delta: float | None = None,
) -> PowerResult:
    """Asymptotic power of the audit test for a given sample size (inverse of eq. 2).

    .. math::

        1 - \\beta = \\Phi\\left((\\tau - U_{tol}) / \\sigma_U - z_{crit}\\right), \\qquad
        \\sigma_U^2 = \\sigma_r^2 / n_r + \\sigma_g^2 / n_g

    (Appendix B), for each comparison of group ``g`` with the reference ``r``; ``power`` is the
    smallest over comparisons. Following the paper, the rejection probability in the wrong
    direction is not added in the two-sided convention, so at ``tau = u_tol`` the result is
    ``alpha / 2`` for "two-sided" and ``alpha`` for "greater" (per comparison).

    Parameters
    ----------
    metric, rates, sigma2, u_tol, alpha, allocation, alternative, reference_index, population_sizes
        As in :func:`sample_size`.
    tau : float or array_like
        True unfairness; broadcast against ``n`` (e.g. ``tau[:, None]`` and ``n[None, :]``
        for a grid).
    n : float or array_like, optional
        Total sample size, split by ``allocation``.
    n_per_group : array_like, optional
        Group sizes directly, last axis of length ``k`` (``allocation`` is then ignored).
    delta : float, optional
        Equivalence mode: the power of TOST to show :math:`|U| < \\delta` when the true gap
        is ``tau``, :math:`\\Phi((\\delta - \\tau)/\\sigma_U - z_{1-a}) +
        \\Phi((\\delta + \\tau)/\\sigma_U - z_{1-a}) - 1` (at least 0),
        ``a = alpha / (k - 1)``.

    Returns
    -------
    PowerResult

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.planning import power
    >>> res = power(sigma2=[0.25, 0.25], tau=0.1, n=np.array([500, 784.9, 1000]))
    >>> np.round(res.power, 3)
    array([0.609, 0.8  , 0.885])
    """
    name, s2, rd = _sigma2_from_args(metric, rates, sigma2)
    u_tol = _check_u_tol(u_tol, name)
    delta = _check_delta(delta, u_tol)
    if delta is None:
        t = _check_tau(tau, u_tol, strict=False, metric=name)
    else:
        t = np.abs(np.asarray(tau, dtype=float))
        if not np.all(np.isfinite(t)):
            raise ValueError(f"tau must be finite; got {show_value(tau)}")
        alternative = "equivalence"
    base = _plan_fields(name, s2, rd, u_tol, alpha, alternative, reference_index, population_sizes)
    z, ref, pop = base["z_critical"], base["reference_index"], base["population_sizes"]
    nn, npg, p = _n_per_group_from_args(n, n_per_group, allocation, s2, ref)
    _check_feasible(npg, pop)
    se = _se_comparisons(s2, npg, ref, pop)
    if delta is not None:
        per = _tost_power(t, delta, se, z)
    else:
        with np.errstate(divide="ignore"):
            per = special.ndtr(np.asarray(t - u_tol)[..., None] / se - z)
    pw = per.min(axis=-1)
    return PowerResult(
        **base,
        power=float(pw) if pw.ndim == 0 else pw,
        power_per_comparison=per,
        n=float(nn) if nn.ndim == 0 else nn,
        n_per_group=npg,
        allocation=p,
        tau=float(t) if t.ndim == 0 else t,
        delta=delta,
    )


@renamed_arguments(reference="reference_index")
def detectable_difference(
    metric: str | None = None,
    *,
    rates: Mapping[str, Sequence[float]] | None = None,
    sigma2: Sequence[float] | None = None,
    n: float | Sequence[float] | None = None,
    n_per_group: Sequence[float] | None = None,
    u_tol: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    allocation: str | float | Sequence[float] = "neyman",
    alternative: str = "two-sided",
    reference_index: int = 0,
    population_sizes: float | Sequence[float] | None = None,
) -> DetectableDifferenceResult:
    """Minimum detectable unfairness for a given sample size (eq. 2 solved for tau).

    .. math::

        \\tau = U_{tol} + (z_{crit} + z_{1-\\beta}) \\max_g \\sigma_{U,g}, \\qquad
        \\sigma_{U,g}^2 = \\sigma_r^2 / n_r + \\sigma_g^2 / n_g .

    Parameters
    ----------
    metric, rates, sigma2, u_tol, alpha, power, allocation, alternative, reference_index,
    population_sizes
        As in :func:`sample_size`.
    n, n_per_group
        As in :func:`power`; vectorized over ``n``.

    Returns
    -------
    DetectableDifferenceResult
        ``tau`` is ``inf``, with a warning, where no rate difference (below 1) reaches the
        power with so few units.

    Examples
    --------
    >>> from fastfair.planning import detectable_difference
    >>> res = detectable_difference(sigma2=[0.25, 0.25], n=[400, 784.9])
    >>> res.tau.round(4)
    array([0.1401, 0.1   ])
    """
    name, s2, rd = _sigma2_from_args(metric, rates, sigma2)
    u_tol = _check_u_tol(u_tol, name)
    base = _plan_fields(name, s2, rd, u_tol, alpha, alternative, reference_index, population_sizes)
    power = _check_open01(power, "power")
    z, ref, pop = base["z_critical"], base["reference_index"], base["population_sizes"]
    zb = float(special.ndtri(power))
    if z + zb <= 0:
        raise ValueError(f"power (={power}) must exceed the rejection rate at tau = u_tol")
    nn, npg, p = _n_per_group_from_args(n, n_per_group, allocation, s2, ref)
    _check_feasible(npg, pop)
    se = _se_comparisons(s2, npg, ref, pop).max(axis=-1)
    t = u_tol + (z + zb) * se
    if name is not None and np.any(t >= 1):
        warnings.warn(
            f"no difference of {name} (a rate: differences are below 1) is detectable at this "
            "power with so few units; tau is inf there",
            stacklevel=user_stacklevel(),
        )
        t = np.where(t >= 1, np.inf, t)
    return DetectableDifferenceResult(
        **base,
        tau=float(t) if t.ndim == 0 else t,
        n=float(nn) if nn.ndim == 0 else nn,
        n_per_group=npg,
        allocation=p,
        power=power,
        z_power=zb,
    )


def plot_power_curve(plan: SampleSizeResult, *, n: Any = None, ax: Any = None) -> Any:
    """Plot power against the total sample size for a planned design (needs matplotlib).

    Parameters
    ----------
    plan : SampleSizeResult
        A plan with a scalar ``tau``; its allocation, variances, alpha and alternative are used.
    n : array_like, optional
        Total sizes to plot; by default 60 points up to 2.5 times the planned n.
    ax : matplotlib Axes, optional
        Axes to draw on; None: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes with the power curve, the target power and the planned n marked.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fastfair.planning import plot_power_curve, sample_size
    >>> ax = plot_power_curve(sample_size(sigma2=[0.25, 0.25], tau=0.1))
    >>> ax.get_xlabel()
    'total sample size n'
    """
    from fastfair._plotting import pyplot

    plt = pyplot("plot_power_curve")
    if not isinstance(plan, SampleSizeResult):
        raise TypeError("plan must be a SampleSizeResult from fastfair.sample_size")
    if np.ndim(plan.tau) != 0:
        raise ValueError("plot_power_curve needs a plan with a scalar tau")
    grid = np.linspace(0.02, 2.5, 60) * float(plan.n) if n is None else np.asarray(n, dtype=float)
    pw = power(
        sigma2=plan.sigma2,
        tau=plan.tau,
        n=grid,
        u_tol=plan.u_tol,
        alpha=plan.alpha,
        allocation=plan.allocation,
        alternative=plan.alternative,
        reference_index=plan.reference_index,
        population_sizes=plan.population_sizes,
    ).power
    if ax is None:
        _, ax = plt.subplots()
    ax.plot(grid, pw, label=f"tau = {plan.tau:.4g}")
    ax.axhline(plan.power, color="grey", lw=0.8, ls="--")
    ax.axvline(float(plan.n), color="grey", lw=0.8, ls=":")
    ax.set_xlabel("total sample size n")
    ax.set_ylabel("power")
    ax.set_title(f"Power curve ({plan.metric or 'sigma2'}, alpha = {plan.alpha:g})")
    ax.set_ylim(0, 1)
    ax.legend()
    return ax


# --------------------------------------------------------------------------------------------
# Pilot data
# --------------------------------------------------------------------------------------------


@renamed_arguments(n_resamples="n_bootstrap")
def plan_from_data(
    y_true: Any,
    y_pred: Any,
    group: Any,
    metric: str,
    *,
    tau: float,
    u_tol: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    allocation: str | float | Sequence[float] = "neyman",
    alternative: str = "two-sided",
    reference: Any = None,
    population_sizes: float | Sequence[float] | None = None,
    confidence_level: float = 0.95,
    n_bootstrap: int = 2000,
    random_state: Any = None,
    pos_label: Any = None,
) -> PilotPlanResult:
    """Plan the main audit from pilot data, with the uncertainty of the planned n.

    The per-group rates the metric needs are estimated from the pilot (Sec. 2: "run a small
    pilot study to estimate the metrics"), plugged into :func:`sample_size`, and the whole
    calculation is repeated on stratified bootstrap resamples of the pilot (rows resampled
    within each group, i.e. multinomial resampling of each group's confusion-matrix cells).
    The percentile interval of the resampled n shows how much the planned n depends on the
    pilot's sampling error; ``tau`` is fixed by the auditor and not re-estimated. The plans
    use the formula (``sample_size(..., test="asymptotic")``, eq. 2-3): exact plans of
    thousands of resamples would take minutes; :func:`sample_size` with the pilot's
    ``rates`` gives the exact plan of the audit's test.

    Parameters
    ----------
    y_true : array_like
        Binary labels (may be None for "selection_rate", which needs no labels).
    y_pred : array_like
        Binary predictions, or scores for ``metric="auc"``.
    group : array_like
        Group membership (two or more groups).
    metric : str
        As in :func:`sample_size`.
    tau, u_tol, alpha, power, allocation, alternative, population_sizes
        As in :func:`sample_size`.
    reference : group label, optional
        Reference group label; by default the group with the most pilot rows (as in
        :func:`fastfair.permutation_test`).
    confidence_level : float, default 0.95
        Level of the bootstrap interval for n.
    n_bootstrap : int, default 2000
        Bootstrap resamples (formerly ``n_resamples``, a deprecated alias until 0.2).
    random_state : int or numpy.random.Generator, optional
    pos_label : optional
        Positive label of ``y_true`` / ``y_pred`` when they are not 0/1 or bool.

    Returns
    -------
    PilotPlanResult

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.planning import plan_from_data
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 1000)
    >>> y = rng.random(1000) < 0.4
    >>> yhat = np.where(y, rng.random(1000) < 0.8 - 0.1 * g, rng.random(1000) < 0.15)
    >>> res = plan_from_data(y, yhat, g, "tpr", tau=0.1, random_state=0)
    >>> lo, hi = res.n_interval
    >>> bool(lo < res.n < hi)
    True
    """
    name = _check_metric(metric)
    conf = _check_open01(confidence_level, "confidence_level")
    n_bootstrap = check_resamples(n_bootstrap, "n_bootstrap", 10)
    pilot = _check_pilot(y_true, y_pred, group, name, reference, pos_label)
    point, boot = _pilot_rates(pilot, name, n_bootstrap, np.random.default_rng(random_state))
    _check_pilot_rates(point, pilot.labels)
    plan = sample_size(
        name,
        rates=point,
        tau=tau,
        u_tol=u_tol,
        alpha=alpha,
        power=power,
        allocation=allocation,
        alternative=alternative,
        reference_index=pilot.reference_index,
        population_sizes=population_sizes,
        test="asymptotic",
    )
    if np.ndim(plan.tau) != 0:
        raise ValueError("plan_from_data needs a scalar tau")
    nb, npgb, ok = _bootstrap_plans(plan, boot)
    q = [(1 - conf) / 2 * 100, (1 + conf) / 2 * 100]
    lo, hi = np.percentile(nb[ok], q) if ok.any() else (np.nan, np.nan)
    k = len(pilot.labels)
    return PilotPlanResult(
        plan=plan,
        groups=pilot.labels,
        pilot_n_per_group=np.bincount(pilot.codes, minlength=k),
        rates=point,
        rates_standard_error={r: np.nanstd(boot[r], axis=0, ddof=1) for r in point},
        observed_difference=_observed_difference(name, point, pilot.reference_index),
        n_interval=(float(lo), float(hi)),
        n_per_group_interval=np.percentile(npgb[ok], q, axis=0)
        if ok.any()
        else np.full((2, k), np.nan),
        confidence_level=conf,
        n_bootstrap=n_bootstrap,
        bootstrap_distribution=nb,
        n_degenerate=int((~ok).sum()),
    )


# --------------------------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------------------------


def simulate_power(
    metric: str,
    *,
    rates: Mapping[str, Sequence[float]],
    n_per_group: Sequence[int],
    tau: float | None = None,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    n_sim: int = 1000,
    test: str = "permutation",
    method: str = "auto",
    n_permutations: int = 999,
    random_state: Any = None,
    n_jobs: int | None = None,
    permutation_kwargs: Mapping[str, Any] | None = None,
    u_tol: float = 0.0,
    delta: float | None = None,
) -> SimulatedPowerResult:
    """Power of an actual fairness test at a planned design, by simulation (beyond the paper).

    Data sets with the given group sizes are drawn from the per-group rates (cells of each
    group's confusion matrix are multinomial; for AUC, binormal scores with equal variances
    and ``AUC = Phi(d / sqrt(2))``), the test is run on each, and the rejection rate is compared
    with the asymptotic :func:`power`. Tests:

    * ``"permutation"``: :func:`fastfair.permutation_test` (studentized, default scheme) with
      the given ``method``; ``alternative="two-sided"`` rejects in either direction,
      ``"greater"`` one-sided in the direction of the true difference.
    * ``"wald"``: the paper's studentized z-test ``(U_hat - u_tol) / se_hat`` with plug-in
      per-group variances ``M_hat (1 - M_hat) / den`` (DeLong's variance for AUC), critical
      value as in ``alternative``. Vectorized with numpy; fast.
    * ``"score"``: the Miettinen-Nurminen score test of :func:`fastfair.tolerance_test`
      (rate metrics; vectorized), ``H0: U <= u_tol`` with ``U`` the gap in the direction of
      the true difference (``"two-sided"``: ``|U| > u_tol``).

    With ``delta`` the simulated test is the equivalence test (TOST) of
    :func:`fastfair.equivalence_test` with the ``"score"`` or ``"wald"`` statistic, and
    power is the rate at which it shows ``|U| < delta``; ``formula_power`` is then
    :func:`power` with ``delta``. Permutation tests have ``u_tol = 0`` and no ``delta``.
    Two groups only.

    Parameters
    ----------
    metric : str
        As in :func:`sample_size`.
    rates : mapping
        Per-group rates (two groups); they set the true difference. Quantities the metric
        does not depend on may be omitted.
    n_per_group : sequence of int
        Group sizes of each simulated audit, e.g. ``sample_size(...).n_per_group_ceil``.
    tau : float, optional
        If given, must equal ``|M_0 - M_1|`` implied by ``rates`` (to 1e-3); a guard against
        planning and simulating different scenarios.
    alpha, alternative
        As in :func:`sample_size`.
    n_sim : int, default 1000
        Number of simulated audits.
    test : {"permutation", "wald"}
    method, n_permutations, n_jobs
        Passed to :func:`fastfair.permutation_test`.
    random_state : int or numpy.random.Generator, optional
    permutation_kwargs : mapping, optional
        Further arguments of :func:`fastfair.permutation_test`, e.g.
        ``{"variance": "unpooled"}`` or ``{"scheme": "full"}``.
    u_tol : float, default 0
        Tolerance of the null hypothesis (tests "wald" and "score").
    delta : float, optional
        Equivalence margin: simulate TOST instead (tests "wald" and "score").

    Notes
    -----
    At the planned n the Wald test's power is within 0.013 of the formula's for every metric
    (``validation/results/planning_power.txt``). The permutation test with the default
    conditional scheme is exact and therefore conservative (its null distribution is
    discrete): 0-0.05 below the formula at the paper's sizes and up to about 0.12 below at
    planned sizes of a few hundred, most with ``alternative="greater"``.

    Returns
    -------
    SimulatedPowerResult

    Examples
    --------
    >>> from fastfair.planning import sample_size, simulate_power
    >>> rates = {"tpr": [0.79, 0.68], "prevalence": [0.44, 0.35]}
    >>> plan = sample_size("tpr", rates=rates, tau=0.11, test="asymptotic")
    >>> sim = simulate_power("tpr", rates=rates, n_per_group=plan.n_per_group_ceil,
    ...                      test="wald", n_sim=4000, random_state=1)
    >>> abs(sim.power - 0.8) < 0.03
    True
    """
    name = _check_metric(metric)
    rd = _as_rate_dict(rates)
    s2, vals = _unit_variances_and_values(name, rd)
    sim = _check_simulation(
        name, rd, s2, vals, n_per_group, tau, alpha, alternative, n_sim, test, u_tol, delta
    )
    formula = power(
        sigma2=sim.sigma2, tau=abs(sim.difference), n_per_group=sim.n_per_group, alpha=alpha,
        alternative=alternative, u_tol=sim.u_tol, delta=sim.delta,
    ).power  # fmt: skip
    rng = np.random.default_rng(random_state)
    if sim.metric == "auc":  # DeLong's estimate and variance of each simulated audit
        reject = _asymptotic_rejections(sim, _wald_z(*_simulated_auc_differences(sim, rng)))
    else:  # multinomial cells of each simulated audit
        counts = _simulated_cells(sim, rng)
        if sim.test == "permutation":
            reject = _permutation_rejections(
                sim, counts, rng, method, n_permutations, n_jobs, permutation_kwargs
            )
        elif sim.test == "wald":
            z_of = _wald_z(*_wald_differences(sim.metric, counts))
            reject = _asymptotic_rejections(sim, z_of)
        else:
            reject = _asymptotic_rejections(sim, _score_z(sim.metric, counts))
    x = int(reject.sum())
    pw = x / sim.n_sim
    return SimulatedPowerResult(
        metric=sim.metric,
        test=sim.test,
        method=method if sim.test == "permutation" else None,
        n_per_group=sim.n_per_group,
        rates=sim.rates,
        true_difference=sim.difference,
        alpha=sim.alpha,
        alternative=sim.alternative,
        n_sim=sim.n_sim,
        n_rejections=x,
        power=pw,
        standard_error=float(np.sqrt(pw * (1 - pw) / sim.n_sim)),
        confidence_interval=tuple(float(v) for v in wilson_interval(x, sim.n_sim)),
        formula_power=float(formula),
        u_tol=sim.u_tol,
        delta=sim.delta,
    )
