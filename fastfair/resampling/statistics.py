"""Sufficient statistics: what the test reads from the data (resampling tests of any metric,
means and correlations)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fastfair import _means
from fastfair._metrics import cell_index, get_metric
from fastfair._validation import (
    as_1d,
    as_binary_pair,
    as_finite_float,
    as_groups,
    as_weights,
    check_same_length,
    show_value,
)
from fastfair.resampling.ingest import _CHUNK_ELEMENTS, _OBSERVED
from fastfair.resampling.results import MetricError


@dataclass(frozen=True)
class _Groups:
    """The groups of a test: labels, the compared pairs (group codes), each group's metric
    value and size (sum of weights when `weighted`), in the order of the labels."""

    labels: np.ndarray
    pairs: np.ndarray
    values: np.ndarray
    sizes: np.ndarray
    weighted: bool


class _Evaluator:
    """Evaluates a group metric on batches of index sets, with errors that name it.

    `arrays` are the 1-D columns the metric reads; a batch of index sets of shape (m, k)
    gathers them to (m, k) arrays. A vectorized metric is called once per batch and must
    return shape (m,); otherwise it is called once per index set with 1-D arrays.
    """

    def __init__(self, fn, arrays, name, vectorized, weight_keyword=False, variance_fn=None):
        self.fn, self.arrays, self.name = fn, arrays, name
        self.vectorized, self.weight_keyword = vectorized, weight_keyword
        self.variance_fn = variance_fn

    def _call(self, cols):
        if self.weight_keyword:
            return self.fn(*cols[:-1], sample_weight=cols[-1])
        return self.fn(*cols)

    def values(self, index, where) -> np.ndarray:
        """Metric of each index set (rows of `index`); `where(i)` describes set i."""
        m = index.shape[0]
        cols = [a[index] for a in self.arrays]
        if self.vectorized:
            try:
                out = self._call(cols)
            except Exception as exc:
                raise MetricError(
                    f"metric {self.name!r} raised {type(exc).__name__} on {where(0)} "
                    f"(vectorized batch of {m}): {exc}"
                ) from exc
            try:
                out = np.asarray(out, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise MetricError(
                    f"metric {self.name!r} must return numbers, got {type(out).__name__}"
                ) from exc
            if out.shape != (m,):
                raise MetricError(
                    f"vectorized metric {self.name!r} must return shape ({m},) for a "
                    f"batch of {m} samples (reduce along the last axis), got {out.shape}"
                )
        else:
            out = np.empty(m)
            for i in range(m):
                row = [c[i] for c in cols]
                try:
                    value = self._call(row)
                except Exception as exc:
                    raise MetricError(
                        f"metric {self.name!r} raised {type(exc).__name__} on {where(i)}: {exc}"
                    ) from exc
                try:
                    out[i] = value
                except (TypeError, ValueError) as exc:
                    raise MetricError(
                        f"metric {self.name!r} must return a number, got "
                        f"{type(value).__name__} on {where(i)}"
                    ) from exc
        bad = np.flatnonzero(~np.isfinite(out))
        if bad.size:
            i = int(bad[0])
            raise MetricError(
                f"metric {self.name!r} returned {out[i]} on {where(i)}; the metric must be "
                "defined (finite) on every permuted and resampled group"
            )
        return out

    def variances(self, index) -> np.ndarray:
        return self.variance_fn(*[a[index] for a in self.arrays])


def _metric_name(metric) -> str:
    if isinstance(metric, str):
        return metric
    return getattr(metric, "__name__", None) or type(metric).__name__


def _row_values(name: str, y, p) -> np.ndarray:
    """The per-row values whose group means the row metric `name` compares; a ValueError
    when they overflow (squared errors of values about 1e160), never inf or NaN means."""
    with np.errstate(over="ignore", invalid="ignore"):
        if name == "mse":
            out = (y - p) ** 2
        elif name == "mae":
            out = np.abs(y - p)
        elif name == "mean_residual":
            out = y - p
        else:
            return p if name == "mean_score" else y
    if not np.isfinite(out).all():
        raise ValueError(
            f"metric {name!r} overflows: its per-row values exceed the float64 range "
            f"(largest |y_true - y_pred| {np.max(np.abs(y - p)):.3g}); divide y_true and "
            "y_pred by a power of ten (the studentized test does not change)"
        )
    return out


def _mean_fn(v, w=None):
    if w is None:
        return v.mean(axis=-1)
    return (w * v).sum(axis=-1) / w.sum(axis=-1)


#: Differences below this have squares near or below the subnormal range (about 1e-146).
_SMALL = float(np.sqrt(np.finfo(np.float64).tiny / np.finfo(np.float64).eps))


def _safe_ratio(diff, var):
    """diff / sqrt(var): 0 when diff is 0, +-inf when var is 0 (never NaN); a ValueError
    when the variance overflowed (a ratio of 0 would read as "no difference") or, for a
    difference below _SMALL, underflowed (a ratio of +-inf would read as a certain one)."""
    diff = np.asarray(diff, dtype=np.float64)
    var = np.asarray(var, dtype=np.float64)
    if not np.isfinite(var).all():
        raise ValueError(
            "the variance of the metric overflows float64 (metric values of about 1e154 or "
            "more): divide y_true and y_pred (or the values) by a power of ten; the "
            "studentized statistic does not change"
        )
    if np.any((diff != 0) & (np.abs(diff) < _SMALL) & (var < _SMALL * _SMALL)):
        raise ValueError(
            "the variance of the metric underflows float64 (metric values of about 1e-146 "
            "or less): multiply y_true and y_pred (or the values) by a power of ten; the "
            "studentized statistic does not change"
        )
    var = np.maximum(var, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = diff / np.sqrt(var)
    return np.where(diff == 0, 0.0, out)


class _PairEngine:
    """Permutation and bootstrap statistics of one comparison of two groups."""

    def __init__(self, evaluator, rows_a, rows_b, labels, key, stream, bar):
        self.ev, self.rows_a, self.rows_b = evaluator, rows_a, rows_b
        self.pooled = np.concatenate([rows_a, rows_b])
        self.labels, self.key, self.stream, self.bar = labels, key, stream, bar

    def _tick(self, n):
        if self.bar is not None:
            self.bar.update(n)

    def _chunk(self, k):
        return max(1, _CHUNK_ELEMENTS // max(k, 1))

    def observed(self):
        a, b = self.labels
        va = self.ev.values(
            self.rows_a[None], lambda i: f"the observed data of group {show_value(a)}"
        )
        vb = self.ev.values(
            self.rows_b[None], lambda i: f"the observed data of group {show_value(b)}"
        )
        return float(va[0]), float(vb[0])

    def permuted_differences(self, first, n_permutations, with_variance=False):
        """T_b = metric(A_b) - metric(B_b) (and Welch variances), first <= b < first + B."""
        n, n_a = len(self.pooled), len(self.rows_a)
        step = self._chunk(n)
        t = np.empty(n_permutations)
        var = np.empty(n_permutations) if with_variance else None
        for j in range(0, n_permutations, step):
            count = min(step, n_permutations - j)
            start = first + j
            perm = _means.permutation_indices(n, start, count, self.key, 3 * self.stream)
            rows = self.pooled[perm]
            ia, ib = rows[:, :n_a], rows[:, n_a:]

            va = self.ev.values(ia, lambda i, s=start: f"permutation {s + i}, first group")
            vb = self.ev.values(ib, lambda i, s=start: f"permutation {s + i}, second group")
            t[j : j + count] = va - vb
            if with_variance:
                var[j : j + count] = self.ev.variances(ia) + self.ev.variances(ib)
            self._tick(2 * count)
        return t, var

    def bootstrap_differences(self, rows_a, rows_b, n_bootstrap, index, what):
        """metric(A*) - metric(B*) for n_bootstrap resamples of (rows_a, rows_b)."""
        n_a, n_b = len(rows_a), len(rows_b)
        step = self._chunk(max(n_a, n_b))
        out = np.empty(n_bootstrap)
        base = index * n_bootstrap if index != _OBSERVED else _OBSERVED
        for start in range(0, n_bootstrap, step):
            count = min(step, n_bootstrap - start)
            s = base + start
            ia = _means.bootstrap_indices(n_a, n_a, s, count, self.key, 3 * self.stream + 1)
            ib = _means.bootstrap_indices(n_b, n_b, s, count, self.key, 3 * self.stream + 2)
            va = self.ev.values(
                rows_a[ia], lambda i, s=start: f"bootstrap resample {s + i} of {what}, first group"
            )
            vb = self.ev.values(
                rows_b[ib],
                lambda i, s=start: f"bootstrap resample {s + i} of {what}, second group",
            )
            out[start : start + count] = va - vb
            self._tick(2 * count)
        return out

    def full_algorithm1(self, first, n_permutations, n_bootstrap):
        """Permuted T_b / sqrt(V_b), V_b the bootstrap variance (eq. 1) of permutation b,
        for first <= b < first + n_permutations."""
        n, n_a = len(self.pooled), len(self.rows_a)
        out = np.empty(n_permutations)
        for b in range(first, first + n_permutations):
            perm = _means.permutation_indices(n, b, 1, self.key, 3 * self.stream)[0]
            rows = self.pooled[perm]
            ra, rb = rows[:n_a], rows[n_a:]
            va = self.ev.values(ra[None], lambda i, b=b: f"permutation {b}, first group")
            vb = self.ev.values(rb[None], lambda i, b=b: f"permutation {b}, second group")
            t = va[0] - vb[0]
            boot = self.bootstrap_differences(ra, rb, n_bootstrap, b, f"permutation {b}")
            out[b - first] = _safe_ratio(t, np.mean((boot - t) ** 2))
            self._tick(2)
        return out


def _welch_from_sums(s1a, s2a, na, s1b, s2b, nb, studentize):
    """Difference of means (and Welch statistic) from sums of centred values and squares."""
    ma, mb = s1a / na, s1b / nb
    diff = ma - mb
    if not studentize:
        return diff
    var_a = np.maximum(s2a - s1a * ma, 0.0) / (na - 1)
    var_b = np.maximum(s2b - s1b * mb, 0.0) / (nb - 1)
    return _safe_ratio(diff, var_a / na + var_b / nb)


@dataclass(frozen=True)
class _GroupResamples:
    """Bootstrap resamples of each group's metric (basic_bootstrap_test): `draw(g)` gives
    the metric of group g on each of its resamples (NaN where it is undefined)."""

    name: str
    codes: np.ndarray
    labels: np.ndarray
    values: np.ndarray  # the metric of each group on its own rows
    draw: Callable[[int], np.ndarray]


def _confusion_resamples(cols, metric, pos_label, key, n_bootstrap) -> _GroupResamples:
    """A confusion-matrix rate: each group's cell counts resampled as a multinomial, O(1)
    per resample whatever the group's size."""
    spec = get_metric(metric)
    if spec.n_parts > 1:
        raise ValueError("equalized_odds combines two differences; test TPR and FPR")
    if cols["sample_weight"] is not None:
        raise ValueError("sample_weight with a confusion-matrix metric: pass a callable")
    y, yhat = as_binary_pair(cols["y_true"], cols["y_pred"], pos_label)
    check_same_length(y_true=y, y_pred=yhat, group=cols["group"])
    codes, labels = as_groups(cols["group"], "group")
    cells = np.zeros((len(labels), 4))
    np.add.at(cells, (codes, cell_index(y, yhat)), 1.0)
    num, den = spec.rates(cells)
    if (den == 0).any():
        g = int(np.flatnonzero(den[:, 0] == 0)[0])
        raise ValueError(f"group {labels.tolist()[g]!r} has no {spec.den_description[0]}")
    rng = np.random.Generator(np.random.Philox(key))

    def draw(g):
        n_g = int(cells[g].sum())
        counts = rng.multinomial(n_g, cells[g] / n_g, size=n_bootstrap)
        nu, de = spec.rates(counts.astype(np.float64))
        with np.errstate(invalid="ignore", divide="ignore"):
            return (nu / de)[:, 0]

    return _GroupResamples(spec.name, codes, labels, (num / den)[:, 0], draw)


def _row_resamples(cols, metric, vectorized, key, n_bootstrap) -> _GroupResamples:
    """A row metric or a callable: rows resampled within each group (stream g of `key`)."""
    weights = cols["sample_weight"]
    if weights is not None:
        weights = as_weights(weights, "sample_weight")
    if isinstance(metric, str):
        name = metric.lower()
        y = as_finite_float(cols["y_true"], "y_true") if name != "mean_score" else None
        p = as_finite_float(cols["y_pred"], "y_pred") if name != "mean_outcome" else None
        check_same_length(y_true=y, y_pred=p, group=cols["group"], sample_weight=weights)
        arrays = (_row_values(name, y, p),) + (() if weights is None else (weights,))
        ev = _Evaluator(_mean_fn, arrays, name, True)
    elif callable(metric):
        name = _metric_name(metric)
        y, p = as_1d(cols["y_true"], "y_true"), as_1d(cols["y_pred"], "y_pred")
        check_same_length(y_true=y, y_pred=p, group=cols["group"], sample_weight=weights)
        arrays = (y, p) if weights is None else (y, p, weights)
        ev = _Evaluator(metric, arrays, name, vectorized, weights is not None)
    else:
        raise TypeError(f"metric must be a string or a callable, got {type(metric)}")
    codes, labels = as_groups(cols["group"], "group")
    rows_of = [np.flatnonzero(codes == g) for g in range(len(labels))]
    values = np.array(
        [
            ev.values(r[None], lambda i, g=g: f"group {g!r}")[0]
            for g, r in zip(labels.tolist(), rows_of)
        ]
    )

    def draw(g):
        rows = rows_of[g]
        out = np.empty(n_bootstrap)
        step = max(1, _CHUNK_ELEMENTS // len(rows))
        for start in range(0, n_bootstrap, step):
            count = min(step, n_bootstrap - start)
            idx = _means.bootstrap_indices(len(rows), len(rows), start, count, key, g)
            out[start : start + count] = ev.values(
                rows[idx], lambda i, s=start: f"bootstrap resample {s + i}"
            )
        return out

    return _GroupResamples(name, codes, labels, values, draw)
