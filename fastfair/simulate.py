r"""Data generators used across fastfair's tests, validation scripts and benchmarks.

Bias-by-construction (BBC, Roelofs et al. 2022; predictive parity paper Sec. 8): scores
:math:`S \sim \mathrm{Beta}(a, b)` and outcomes :math:`Y \mid S = s \sim
\mathrm{Bernoulli}(\mu(s))` with :math:`\mathrm{logit}\,\mu(s) = b_0 + b_1\,\mathrm{logit}(s)`,
so that the true calibration error

.. math:: \mathrm{TCE} = \left(\int_0^1 (s - \mu(s))^2\, p(s)\, ds\right)^{1/2}

is known by numerical integration (:func:`bbc_true_tce`). The dependent-data extension of
Sec. 8 (:func:`bbc_dependent`) gives user m a random number of rows :math:`N_m \sim 1 +
\mathrm{Pois}(\lambda)`, scores :math:`\mathrm{Beta}(\min(N_m, N_{max}), 1)` and
coefficients :math:`b_0(1 - z)`, :math:`b_1 + z(1 - b_1)` with :math:`z = \min(N_m /
N_{max}, 1)`: heavy users score higher and are better calibrated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fastfair._scipy import integrate, special, stats

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "bbc_dependent",
    "bbc_dependent_true_tce",
    "bbc_mu",
    "bbc_sample",
    "bbc_true_tce",
    "heavy_user_injection",
]


def _rng(random_state):
    return np.random.default_rng(random_state)


def bbc_mu(s: ArrayLike, b0: float = 0.0, b1: float = 1.0) -> np.ndarray:
    r"""BBC conditional outcome :math:`\mu(s) = \sigma(b_0 + b_1\,\mathrm{logit}\, s)`.

    Parameters
    ----------
    s : float or array-like
        Scores in (0, 1).
    b0, b1 : float
        Intercept and slope of the calibration map on the logit scale (0, 1: calibrated).

    Returns
    -------
    float or ndarray
        :math:`\mu(s)`, the probability of a positive outcome given the score.

    Examples
    --------
    >>> from fastfair.simulate import bbc_mu
    >>> float(bbc_mu(0.3))  # b0 = 0, b1 = 1: perfectly calibrated
    0.3
    """
    s = np.clip(np.asarray(s, dtype=np.float64), 1e-300, 1 - 1e-16)
    return special.expit(b0 + b1 * special.logit(s))


def bbc_sample(
    n: int,
    a: float = 2.0,
    b: float = 2.0,
    b0: float = 0.0,
    b1: float = 1.0,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Draw n (score, outcome) pairs from the BBC model.

    :math:`S \sim \mathrm{Beta}(a, b)`, :math:`Y \sim \mathrm{Bernoulli}(\mu(S))` with
    :math:`\mathrm{logit}\,\mu(s) = b_0 + b_1 \mathrm{logit}\, s` (Sec. 8).

    Parameters
    ----------
    n : int
        Number of rows.
    a, b : float
        Parameters of the Beta score distribution.
    b0, b1 : float
        Intercept and slope of the calibration map on the logit scale (0, 1: calibrated).
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    y_score, y_true : ndarray of shape (n,)
        Scores and outcomes (float 0/1).

    Examples
    --------
    >>> from fastfair.simulate import bbc_sample
    >>> s, y = bbc_sample(5, random_state=0)
    >>> s.shape, y.dtype
    ((5,), dtype('float64'))
    """
    rng = _rng(random_state)
    s = rng.beta(a, b, n)
    y = (rng.random(n) < bbc_mu(s, b0, b1)).astype(np.float64)
    return s, y


def bbc_true_tce(a: float = 2.0, b: float = 2.0, b0: float = 0.0, b1: float = 1.0) -> float:
    r"""True calibration error :math:`(\int (s - \mu(s))^2 \mathrm{Beta}(s; a, b) ds)^{1/2}`.

    Parameters
    ----------
    a, b : float
        Parameters of the Beta score distribution.
    b0, b1 : float
        Intercept and slope of the calibration map on the logit scale (0, 1: calibrated).

    Returns
    -------
    float
        The true calibration error of :func:`bbc_sample`'s model.

    Examples
    --------
    >>> from fastfair.simulate import bbc_true_tce
    >>> round(bbc_true_tce(2, 2, 0.0, 1.0), 12)
    0.0
    >>> round(bbc_true_tce(1, 1, 0.5, 1.0), 4)
    0.0906
    """
    dist = stats.beta(a, b)
    val, _ = integrate.quad(
        lambda s: (s - bbc_mu(s, b0, b1)) ** 2 * dist.pdf(s), 0, 1, limit=200, epsabs=1e-13
    )
    return float(np.sqrt(max(val, 0.0)))


def bbc_dependent(
    n_users: int,
    lam: float = 3.0,
    n_max: int = 10,
    b0: float = 1.0,
    b1: float = 0.4,
    *,
    one_row_per_user: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Dependent-data BBC extension of Sec. 8: users with several rows.

    User m has :math:`N_m \sim 1 + \mathrm{Pois}(\lambda)` rows with scores
    :math:`\mathrm{Beta}(\min(N_m, N_{max}), 1)` and outcome probability
    :math:`\sigma(b_0(1 - z_m) + (b_1 + z_m(1 - b_1))\,\mathrm{logit}\, s)`,
    :math:`z_m = \min(N_m / N_{max}, 1)`. The paper writes :math:`\max(N, N_{max})` for
    the Beta parameter, which would make it constant; we read it as min (heavier users
    score higher, as the text says).

    With ``one_row_per_user=True`` each user contributes only its first row: the
    independent sample of the same user population (same true TCE).

    Parameters
    ----------
    n_users : int
        Number of users.
    lam : float
        Poisson mean of the extra rows per user.
    n_max : int
        :math:`N_{max}`, the cap of the Beta parameter and of :math:`z_m`.
    b0, b1 : float
        Calibration intercept and slope of single-row users on the logit scale.
    one_row_per_user : bool, default False
        Keep only each user's first row.
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    y_score, y_true, user : ndarray
        Rows grouped by user; user is an integer id.

    Examples
    --------
    >>> from fastfair.simulate import bbc_dependent
    >>> s, y, user = bbc_dependent(100, random_state=0)
    >>> int(user.max()) + 1
    100
    >>> len(s) > 100
    True
    """
    rng = _rng(random_state)
    n_rows = 1 + rng.poisson(lam, n_users)
    if one_row_per_user:
        rows = np.ones(n_users, dtype=np.int64)
    else:
        rows = n_rows
    user = np.repeat(np.arange(n_users), rows)
    n_u = n_rows[user]
    a = np.minimum(n_u, n_max).astype(np.float64)
    s = rng.beta(a, 1.0)
    z = np.minimum(n_u / n_max, 1.0)
    mu = special.expit(b0 * (1 - z) + (b1 + z * (1 - b1)) * special.logit(np.clip(s, 1e-300, 1)))
    y = (rng.random(s.size) < mu).astype(np.float64)
    return s, y, user


def bbc_dependent_true_tce(
    lam: float = 3.0, n_max: int = 10, b0: float = 1.0, b1: float = 0.4
) -> float:
    r"""True per-user TCE of :func:`bbc_dependent`: :math:`(E_m (S_{m1} - f(S_{m1}))^2)^{1/2}`.

    The estimand of the per-user Nadaraya-Watson estimator (Sec. 3):
    :math:`f(s) = E[Y_{m1} \mid S_{m1} = s] = \sum_N P(N \mid s)\, \mu_N(s)`, mixing the
    user types N (truncated where the Poisson tail is below 1e-12) by their score density
    :math:`N s^{N-1}` (capped at :math:`N_{max}`); the integral over s is numerical.

    Parameters
    ----------
    lam, n_max, b0, b1
        As in :func:`bbc_dependent`.

    Returns
    -------
    float
        The true per-user TCE.

    Examples
    --------
    >>> from fastfair.simulate import bbc_dependent_true_tce
    >>> round(bbc_dependent_true_tce(), 4)
    0.0972
    """
    n_top = int(stats.poisson.isf(1e-12, lam)) + 2
    ns = np.arange(1, n_top + 1)
    pn = stats.poisson.pmf(ns - 1, lam)
    pn = pn / pn.sum()
    a = np.minimum(ns, n_max).astype(np.float64)
    z = np.minimum(ns / n_max, 1.0)

    def integrand(s):
        dens = pn * a * s ** (a - 1.0)
        mu = special.expit(b0 * (1 - z) + (b1 + z * (1 - b1)) * special.logit(s))
        total = dens.sum()
        f = (dens * mu).sum() / total
        return (s - f) ** 2 * total

    val, _ = integrate.quad(integrand, 1e-12, 1 - 1e-12, limit=400, epsabs=1e-13)
    return float(np.sqrt(val))


def heavy_user_injection(
    n: int = 50_000,
    n_heavy: int = 10,
    rows_heavy: int = 1000,
    b0: float = -0.15,
    inject: bool = True,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Sec. 8 first experiment: a few heavy users of group 1 reverse the readout.

    Two groups of n single-row users with Beta(2, 2) scores; outcome probability
    :math:`\sigma(b_0 + \mathrm{logit}\, s)` with :math:`b_0` in group 1 and 0 in group 2.
    Then `n_heavy` users of group 1, user k with `rows_heavy` rows drawn from group 1's
    k-th score decile, outcome probability raised by 0.7 s (clipped at 1).

    Parameters
    ----------
    n : int
        Single-row users per group.
    n_heavy : int
        Heavy users added to group 1.
    rows_heavy : int
        Rows of each heavy user.
    b0 : float
        Calibration intercept of group 1 (logit scale).
    inject : bool, default True
        Add the heavy users (False: the single-row users only).
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    y_true, y_score, group, user : ndarray
        group is 1 or 2.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.simulate import heavy_user_injection
    >>> y, s, g, u = heavy_user_injection(1000, 2, 10, random_state=0)
    >>> len(y), len(np.unique(u))
    (2020, 2002)
    """
    rng = _rng(random_state)
    s1, s2 = rng.beta(2, 2, n), rng.beta(2, 2, n)
    y1 = rng.random(n) < bbc_mu(s1, b0)
    y2 = rng.random(n) < bbc_mu(s2, 0.0)
    edges = np.quantile(s1, np.linspace(0, 1, n_heavy + 1))
    decile = np.clip(np.searchsorted(edges, s1, side="right") - 1, 0, n_heavy - 1)
    sh = np.concatenate([rng.choice(s1[decile == k], rows_heavy) for k in range(n_heavy)])
    yh = rng.random(sh.size) < np.clip(bbc_mu(sh, b0) + 0.7 * sh, 0, 1)
    if not inject:
        sh, yh = sh[:0], yh[:0]
    score = np.concatenate([s1, s2, sh])
    y = np.concatenate([y1, y2, yh]).astype(float)
    group = np.concatenate([np.ones(n, int), np.full(n, 2), np.ones(sh.size, int)])
    user = np.concatenate([np.arange(2 * n), 2 * n + np.repeat(np.arange(n_heavy), rows_heavy)])
    return y, score, group, user[: y.size]
