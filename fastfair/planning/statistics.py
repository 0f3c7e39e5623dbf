"""Sufficient statistics: what the test reads from the data (sample size and power)."""

from __future__ import annotations

import numpy as np

from fastfair import _counts
from fastfair._metrics import (
    ALL,
    CELL_Y_PRED,
    CELL_Y_TRUE,
    CONFUSION_METRICS,
    POSITIVES,
    cell_count,
    cell_index,
)
from fastfair._scipy import special
from fastfair.auc import delong
from fastfair.planning.ingest import _RATE_METRICS, _metric_rate_names, _Pilot, _Simulation


def _num_den(metric: str, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator counts (float) of a rate metric from cells (..., 4)."""
    num, den = CONFUSION_METRICS[metric].rates(c)
    return num[..., 0].astype(float), den[..., 0].astype(float)


def _rates_from_counts(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Rates from cell counts of shape (..., k, 4) in the order (TN, FP, FN, TP)."""
    n = cell_count(counts, ALL).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = {"prevalence": cell_count(counts, POSITIVES).astype(float) / n}
        for name in ("selection_rate", "tpr", "tnr", "ppv", "npv", "accuracy"):
            num, den = _num_den(name, counts)
            rates[name] = num / den
    return rates


def _cell_probabilities(metric: str, rates: dict[str, np.ndarray]) -> np.ndarray:
    """Per-group probabilities of the cells (TN, FP, FN, TP) consistent with ``rates``.

    Quantities the metric does not depend on and the rates leave open are filled with 0.5
    (they do not affect the metric's estimator or its studentized test)."""
    k = next(iter(rates.values())).size
    half = np.full(k, 0.5)

    def get(key: str) -> np.ndarray | None:
        if key in rates:
            return rates[key]
        comp = _RATE_METRICS.get(key, (None, None))[0]
        if comp is not None and comp in rates:
            return 1.0 - rates[comp]
        return None

    def from_prev(prev: np.ndarray, tpr: np.ndarray, tnr: np.ndarray) -> np.ndarray:
        return np.stack(
            [(1 - prev) * tnr, (1 - prev) * (1 - tnr), prev * (1 - tpr), prev * tpr], -1
        )

    def from_pp(pp: np.ndarray, ppv: np.ndarray, npv: np.ndarray) -> np.ndarray:
        return np.stack([(1 - pp) * npv, pp * (1 - ppv), (1 - pp) * (1 - npv), pp * ppv], -1)

    prev = get("prevalence")
    if metric in ("tpr", "fnr", "tnr", "fpr"):
        t1, t0 = get("tpr"), get("tnr")
        return from_prev(prev, half if t1 is None else t1, half if t0 is None else t0)
    if metric in ("ppv", "fdr", "npv", "for"):
        v1, v0 = get("ppv"), get("npv")
        return from_pp(
            get("selection_rate"), half if v1 is None else v1, half if v0 is None else v0
        )
    if metric == "selection_rate":
        pp = get("selection_rate")
        p = half if prev is None else prev
        # y independent of yhat
        return np.stack([(1 - pp) * (1 - p), pp * (1 - p), (1 - pp) * p, pp * p], -1)
    acc = get("accuracy")
    p = half if prev is None else prev
    return from_prev(p, acc, acc)


def _auc_from_scores(y: np.ndarray, s: np.ndarray) -> float:
    """Mann-Whitney AUC (compiled, one sort); NaN when a class is missing."""
    npos = int(y.sum())
    if npos == 0 or npos == y.size:
        return np.nan
    return float(delong(y, s).auc[0])


def _pilot_rates(
    pilot: _Pilot, metric: str, n_bootstrap: int, rng: np.random.Generator
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The rates ``metric`` needs per group, from the pilot (shape (k,)) and from
    ``n_bootstrap`` stratified bootstrap resamples of it (shape (n_bootstrap, k)).

    Rate metrics resample each group's confusion cells (multinomial, in the cell order
    (TN, FP, FN, TP)); AUC resamples each group's rows."""
    yt, yp, codes = pilot.y_true, pilot.y_pred, pilot.codes
    k = len(pilot.labels)
    if metric == "auc":
        idx = [np.flatnonzero(codes == g) for g in range(k)]
        point = {
            "auc": np.array([_auc_from_scores(yt[i], yp[i]) for i in idx]),
            "prevalence": np.array([yt[i].mean() for i in idx]),
        }
        boot = {"auc": np.empty((n_bootstrap, k)), "prevalence": np.empty((n_bootstrap, k))}
        for g, i in enumerate(idx):
            draws = rng.integers(0, i.size, size=(n_bootstrap, i.size))
            for b in range(n_bootstrap):
                j = i[draws[b]]
                boot["auc"][b, g] = _auc_from_scores(yt[j], yp[j])
                boot["prevalence"][b, g] = yt[j].mean()
        return point, boot
    cells, _ = _counts.cell_sums(cell_index(yt, yp), codes, k)
    counts = cells.astype(np.int64)
    pilot_n = counts.sum(axis=1)
    resampled = np.empty((n_bootstrap, k, 4), dtype=np.int64)
    for g in range(k):
        resampled[:, g, :] = rng.multinomial(pilot_n[g], counts[g] / pilot_n[g], size=n_bootstrap)
    need = _metric_rate_names(metric)
    point, boot = _rates_from_counts(counts), _rates_from_counts(resampled)
    return {r: point[r] for r in need}, {r: boot[r] for r in need}


def _simulated_cells(sim: _Simulation, rng: np.random.Generator) -> np.ndarray:
    """Cell counts (n_sim, 2, 4) of simulated audits: each group's cells (TN, FP, FN, TP)
    multinomial with the probabilities the rates imply."""
    probs = _cell_probabilities(sim.metric, sim.rates)
    probs = probs / probs.sum(axis=-1, keepdims=True)
    return np.stack(
        [rng.multinomial(sim.n_per_group[g], probs[g], size=sim.n_sim) for g in range(2)], axis=1
    )


def _rows_from_cells(c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows (y_true, y_pred, group) with the cell counts ``c`` of shape (2, 4)."""
    reps = c.ravel()
    return (
        np.repeat(np.tile(CELL_Y_TRUE, 2), reps),
        np.repeat(np.tile(CELL_Y_PRED, 2), reps),
        np.repeat(np.repeat(np.arange(2, dtype=np.intp), 4), reps),
    )


def _simulated_auc_differences(
    sim: _Simulation, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's ``AUC_0 - AUC_1`` and its variance for each simulated audit: binormal scores
    with equal variances, ``AUC = Phi(d / sqrt(2))``; variance infinite (never rejects) when
    a group has fewer than two positives or negatives."""
    shift = np.sqrt(2.0) * special.ndtri(sim.values)
    prev = sim.rates["prevalence"]
    npg = sim.n_per_group
    est, var = np.zeros(sim.n_sim), np.full(sim.n_sim, np.inf)
    for b in range(sim.n_sim):
        ys, ss, gs = [], [], []
        for g in range(2):
            y = (rng.random(npg[g]) < prev[g]).astype(np.uint8)
            ys.append(y)
            ss.append(rng.standard_normal(npg[g]) + shift[g] * y)
            gs.append(np.full(npg[g], g, dtype=np.intp))
        d = delong(np.concatenate(ys), np.concatenate(ss), np.concatenate(gs))
        if min(d.n_pos.min(), d.n_neg.min()) >= 2:  # else DeLong's variance is undefined
            est[b], var[b] = d.auc[0] - d.auc[1], d.variance.sum()
    return est, var
