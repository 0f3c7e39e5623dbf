"""FairnessMonitor: audit while the data arrive, with anytime-valid confidence sequences."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._metrics import cell_index
from fastfair._validation import check_binary_values
from fastfair.monitor.inference import (
    advance,
    gap_lines,
    sequence_bounds,
)
from fastfair.monitor.ingest import (
    DEFAULT_METRICS,
    FORMAT,
    VERSION,
    batch_rows,
    check_options,
    plain_label,
)
from fastfair.monitor.results import MonitorResult, MonitorStateError
from fastfair.monitor.statistics import batch_counts, metric_counts, metric_masks

if TYPE_CHECKING:
    from collections.abc import Hashable, Sequence

    from numpy.typing import ArrayLike

    from fastfair.stats import ConfusionStats

__all__ = ["FairnessMonitor"]

#: A batch of rows is cut, in row order, into blocks of at most GROWTH times the rows seen
#: before it (at least MIN_BLOCK), so the evidence of a large first batch is not lost to
#: training the alternative; a first batch of 10^6 rows makes 6 blocks.
MIN_BLOCK = 1000
GROWTH = 3


def _nested(value, leaf):
    """`leaf` applied to every number of nested dicts and lists."""
    if isinstance(value, dict):
        return {k: _nested(v, leaf) for k, v in value.items()}
    if isinstance(value, list):
        return [_nested(v, leaf) for v in value]
    return leaf(value)


def _nan_to_none(x):
    """JSON has no NaN (an undefined gap, a closed interval): null."""
    return None if isinstance(x, float) and x != x else x


def _none_to_nan(x):
    return float("nan") if x is None else x


def _jsonable(values) -> list:
    """A column's values as JSON can hold them (text, numbers, booleans; others, rare in a
    binary column, are not kept in the state)."""
    return [v for v in values if isinstance(v, (str, bool, int, float))]


def _b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).astype("<f8").tobytes()).decode()


def _unb64(text: str, shape) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f8").reshape(shape).copy()


class FairnessMonitor:
    """Anytime-valid monitoring of fairness gaps as batches of predictions arrive.

    For every metric and every group against `reference`, the monitor keeps a confidence
    sequence for the gap (metric of the group minus that of the reference): an interval
    valid at every update at once, so it may be read after every batch and acted on as soon
    as it is clear. Each comparison reads "DIFFERENCE" once its sequence excludes 0, "FAIR
    within ±δ" once it lies inside (-tolerance, tolerance), both, or "watching"; "CHANGED"
    once no constant gap fits the data seen (the gap moved: start a new monitor). All
    sequences hold together with probability >= 1 - alpha (Bonferroni over metrics x
    comparisons); the groups' rates may drift over time, the gap is assumed constant.
    Rates advance only on the rows of their denominator (TPR on the positives). The method
    (docs/monitoring.md): per strip of gaps, a test martingale betting a shrunk plug-in
    alternative against its reverse information projection, from counts only.

    Parameters
    ----------
    metrics : str or sequence of str
        Rate metrics (``fastfair.CONFUSION_METRICS`` except "equalized_odds").
    reference : label
        The reference group.
    groups : sequence of labels, optional
        The groups monitored. None: those of the first batch.
    max_groups : int, optional
        Allow new groups to appear later, up to this many groups in all: the Bonferroni
        correction is set for ``max_groups - 1`` comparisons from the start. None: no group
        may be added after the first batch (an unseen group is an error).
    alpha : float
        Probability that any sequence ever misses its gap.
    tolerance : float, optional
        The δ of "FAIR within ±δ" (None: that state is never read).
    threshold : float
        ``y_pred = y_score >= threshold`` when scores are given.
    resolution : float
        Spacing of the grid of gaps; interval ends are multiples of it (or ±tolerance).
    n_jobs : int, optional
        Threads of the compiled update (None: every core); results do not depend on it.

    Examples
    --------
    >>> import numpy as np
    >>> import fastfair
    >>> rng = np.random.default_rng(0)
    >>> monitor = fastfair.FairnessMonitor(metrics=["tpr", "selection_rate"], reference="a",
    ...                                    alpha=0.05, tolerance=0.1)
    >>> for day in range(30):
    ...     group = rng.choice(["a", "b"], 2000)
    ...     y = rng.random(2000) < 0.4
    ...     y_pred = rng.random(2000) < np.where(group == "b", 0.5, 0.3)
    ...     _ = monitor.update(y, y_pred, group)
    >>> res = monitor.result()
    >>> res.state.tolist()
    [['DIFFERENCE'], ['DIFFERENCE']]
    >>> restored = fastfair.FairnessMonitor.from_json(monitor.to_json())
    >>> restored.result().confidence_interval[0].tolist() == res.confidence_interval[0].tolist()
    True
    """

    def __init__(
        self,
        metrics: str | Sequence[str] = DEFAULT_METRICS,
        *,
        reference: Hashable,
        groups: Sequence[Hashable] | None = None,
        max_groups: int | None = None,
        alpha: float = 0.05,
        tolerance: float | None = None,
        threshold: float = 0.5,
        resolution: float = 0.001,
        n_jobs: int | None = 1,
    ):
        self.options = check_options(
            metrics, reference, groups, max_groups, alpha, tolerance, threshold, resolution
        )
        self.n_jobs = n_jobs
        self._lines = gap_lines(self.options.resolution, self.options.tolerance)
        self._masks = metric_masks(self.options.metrics)
        self._zero = int(np.searchsorted(self._lines, 0.0))  # strips zero and zero + 1 hold 0
        self._groups: list = []
        self.n_updates = 0
        self.n_rows = 0
        self._history: dict[str, list] = {"rows": [], "difference": [], "lower": [], "upper": []}
        self._values: dict[str, frozenset] = {}  # each binary column's values so far
        if self.options.groups is not None:
            self._allocate(list(self.options.groups))

    # ---------------------------------------------------------------- state
    def _allocate(self, groups: list) -> None:
        capacity = max(self.options.max_groups, len(groups))
        shape = (len(self.options.metrics), capacity - 1)
        self._groups = groups
        self._capacity = capacity
        self._counts = np.zeros((capacity, 4), dtype=np.int64)
        self._log_e = np.zeros((*shape, len(self._lines) + 1))
        self._rejected = np.zeros(self._log_e.shape, dtype=bool)
        self._zero_max = np.zeros((*shape, 2))
        self._decided = np.zeros(shape, dtype=np.int64)
        self._state = np.full(shape, "watching", dtype=object)

    @property
    def n_sequences(self) -> int:
        """Metrics x comparisons the Bonferroni correction divides alpha among."""
        return len(self.options.metrics) * (self._capacity - 1) if self._groups else 0

    @property
    def log_threshold(self) -> float:
        """log(n_sequences / alpha): a strip is rejected once its log e-value reaches it."""
        return float(np.log(self.n_sequences / self.options.alpha))

    def _slots(self, labels) -> np.ndarray:
        """Monitor slot of each batch label; new groups added while max_groups allows."""
        labels = [plain_label(v) for v in np.asarray(labels, dtype=object).tolist()]
        distinct = list(dict.fromkeys(labels))  # a table may list a group twice (added)
        if not self._groups:
            ref = self.options.reference
            if ref not in labels:
                raise ValueError(
                    f"the first batch has no rows of the reference {ref!r}; groups: {distinct}"
                )
            if len(distinct) < 2 and self.options.max_groups < 2:
                raise ValueError(
                    f"the first batch has one group ({ref!r}): give groups= or max_groups= "
                    "to say which groups the monitor compares"
                )
            self._allocate([ref, *[g for g in distinct if g != ref]])
        index = {g: k for k, g in enumerate(self._groups)}
        new = [g for g in distinct if g not in index]
        if new and len(self._groups) + len(new) > self._capacity:
            raise ValueError(
                f"group {new[0]!r} is not one of the monitored groups {self._groups}; the "
                "Bonferroni correction was set for these when the monitor started: create it "
                "with max_groups= (> the number of groups) to let new groups join"
            )
        for g in new:
            index[g] = len(self._groups)
            self._groups.append(g)
        return np.array([index[g] for g in labels], dtype=np.intp)

    # ---------------------------------------------------------------- updates
    def update(
        self,
        y_true: ArrayLike,
        y_pred: ArrayLike | None = None,
        group: ArrayLike | None = None,
        *,
        y_score: ArrayLike | None = None,
        data: Any = None,
        pos_label: Hashable | None = None,
    ) -> FairnessMonitor:
        """Add a batch of rows (numpy, pandas aligned by index, Arrow, or columns of `data`).

        The rows are counted once (compiled ``cell_sums``), in blocks of at most three times
        the rows seen before (at least 1,000) taken in row order; each block then costs
        O(G) per metric and comparison.

        Parameters
        ----------
        y_true : array-like or str
            Binary outcomes (a column name with `data`).
        y_pred : array-like or str, optional
            Binary predictions; or give `y_score`.
        group : array-like or str
            Group label of each row.
        y_score : array-like or str, optional
            Scores; predictions are ``y_score >= threshold``.
        data : pandas.DataFrame or mapping, optional
            Where column names are looked up.
        pos_label : label, optional
            The positive value of labels and predictions that are not 0/1.

        Returns
        -------
        FairnessMonitor
            self, updated.
        """
        if group is None:
            raise TypeError("group is required")
        y, yhat, codes, labels, values = batch_rows(
            y_true, y_pred, y_score, group, data, self.options.threshold, pos_label
        )
        self._check_values(values, pos_label)
        slots = self._slots(labels)
        cell = cell_index(y, yhat)
        start = 0
        while start < len(y):
            stop = min(len(y), start + max(MIN_BLOCK, GROWTH * (self.n_rows + start)))
            part = slice(start, stop)
            self._advance(batch_counts(cell[part], codes[part], slots, self._capacity))
            start = stop
        self._finish_update(len(y))
        return self

    def _check_values(self, values: dict, pos_label) -> None:
        """Refuse a batch whose labels (predictions) and those of the batches before are not
        two values: a batch may hold only 'no', not only 'maybe' after 'no' and 'yes'."""
        seen = {c: self._values.get(c, frozenset()) | v for c, v in values.items()}
        for column, union in seen.items():
            check_binary_values(union, f"{column} (this batch and those before)", pos_label,
                                require_pos=False)  # fmt: skip
        self._values.update(seen)

    def update_from_counts(
        self, counts: ArrayLike | ConfusionStats, groups: Sequence[Hashable] | None = None
    ) -> FairnessMonitor:
        """Add a batch given as confusion counts: one block.

        Parameters
        ----------
        counts : array-like of shape (n_groups, 4) or fastfair.stats.ConfusionStats
            (TN, FP, FN, TP) per group (the cell order of ``fastfair.confusion_counts``).
        groups : sequence of labels
            The group of each row of `counts` (taken from a ConfusionStats).

        Returns
        -------
        FairnessMonitor
            self, updated.
        """
        if hasattr(counts, "labels") and hasattr(counts, "counts"):
            groups, counts = counts.labels, counts.counts
        if groups is None:
            raise TypeError("groups is required with a counts array")
        table = np.asarray(counts)
        if table.ndim != 2 or table.shape[1] != 4 or table.shape[0] != len(groups):
            raise ValueError(
                f"counts must have shape (len(groups), 4) = ({len(groups)}, 4), got {table.shape}"
            )
        if table.dtype.kind not in "iuf" or (table < 0).any() or (table != np.round(table)).any():
            raise ValueError("counts must be non-negative whole numbers")
        if table.sum() == 0:
            raise ValueError("counts are all zero: an empty batch")
        slots = self._slots(groups)
        batch = np.zeros((self._capacity, 4), dtype=np.int64)
        np.add.at(batch, slots, table.astype(np.int64))
        self._advance(batch)
        self._finish_update(int(table.sum()))
        return self

    def _advance(self, batch: np.ndarray) -> None:
        """One block: the e-value of every open strip multiplied by the block's factor."""
        bx, bn = metric_counts(batch, self._masks)
        sx, sn = metric_counts(self._counts, self._masks)

        def pairs(a):  # (M, capacity) -> (M, capacity - 1, 2): (group, reference)
            return np.stack([a[:, 1:], np.broadcast_to(a[:, :1], a[:, 1:].shape)], axis=-1)

        advance(self._log_e, self._rejected, pairs(bx), pairs(bn), pairs(sx), pairs(sn),
                self._lines, self.log_threshold, self.n_jobs)  # fmt: skip
        zero = self._log_e[..., self._zero : self._zero + 2]
        np.maximum(self._zero_max, zero, out=self._zero_max)
        self._counts += batch

    def _finish_update(self, rows: int) -> None:
        self.n_updates += 1
        self.n_rows += rows
        res = self.result()
        used = res.state.shape[1]  # comparisons of the groups seen (max_groups: fewer)
        state, decided = self._state[:, :used], self._decided[:, :used]
        decided[(res.state != state) & (res.state != "watching")] = self.n_updates
        decided[res.state == "watching"] = 0
        state[:] = res.state
        lower, upper = res.confidence_interval
        for key, value in (("difference", res.difference), ("lower", lower), ("upper", upper)):
            self._history[key].append(value.tolist())
        self._history["rows"].append(self.n_rows)

    # ---------------------------------------------------------------- reading
    def result(self) -> MonitorResult:
        """The confidence sequences and states after the latest update.

        Returns
        -------
        MonitorResult
        """
        if not self._groups:
            raise ValueError("the monitor has no data yet: call update first")
        metrics = self.options.metrics
        num, den = metric_counts(self._counts, self._masks)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = np.where(den > 0, num / np.maximum(den, 1), np.nan)
        lower, upper = sequence_bounds(self._rejected, self._lines)
        n = len(self._groups)
        lower, upper = lower[:, : n - 1], upper[:, : n - 1]
        pvalue = np.minimum(1.0, np.exp(-self._zero_max[:, : n - 1].min(axis=-1)))
        return MonitorResult(
            metrics=metrics,
            groups=np.array(self._groups, dtype=object),
            comparisons=[(g, self._groups[0]) for g in self._groups[1:]],
            difference=rates[:, 1:n] - rates[:, :1],
            confidence_interval=(lower, upper),
            state=self._states(lower, upper),
            pvalue=pvalue,
            pvalue_adjusted=np.minimum(1.0, pvalue * self.n_sequences),
            denominators=den[:, :n].astype(np.int64),
            group_values=rates[:, :n],
            decided_at=np.where(
                self._state[:, : n - 1] == "watching", 0, self._decided[:, : n - 1]
            ),
            alpha=self.options.alpha,
            tolerance=self.options.tolerance,
            n_updates=self.n_updates,
            n_rows=self.n_rows,
        )

    def _states(self, lower, upper) -> np.ndarray:
        differs = (lower > 0) | (upper < 0)
        tol = self.options.tolerance
        within = np.zeros_like(differs) if tol is None else (lower > -tol) & (upper < tol)
        fair = "FAIR" if tol is None else f"FAIR within ±{tol:g}"
        state = np.full(lower.shape, "watching", dtype=object)
        state[differs] = "DIFFERENCE"
        state[within] = fair
        state[differs & within] = f"DIFFERENCE, {fair}"
        state[np.isnan(lower)] = "CHANGED"
        return state

    # ---------------------------------------------------------------- persistence
    def to_json(self) -> str:
        """The whole state as JSON text (versioned; floats stored bit for bit).

        Returns
        -------
        str
        """
        state: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "options": self.options.to_dict(),
            "n_updates": self.n_updates,
            "n_rows": self.n_rows,
            "groups": list(self._groups),
            "history": _nested(self._history, _nan_to_none),
            "values": {c: _jsonable(v) for c, v in self._values.items()},
        }
        if self._groups:
            state.update(
                capacity=self._capacity,
                counts=self._counts.tolist(),
                log_e=_b64(self._log_e),
                rejected=base64.b64encode(np.packbits(self._rejected)).decode(),
                zero_max=_b64(self._zero_max),
                decided=self._decided.tolist(),
                state=self._state.tolist(),
            )
        return json.dumps(state, allow_nan=False)

    @classmethod
    def from_json(cls, text: str, **expected: Any) -> FairnessMonitor:
        """A monitor from :meth:`to_json` text; `expected` options must match the stored ones.

        Parameters
        ----------
        text : str
        **expected
            Options (``metrics``, ``reference``, ``alpha``, ...) the caller means to use;
            None values are ignored. One that differs from the state's raises
            MonitorStateError, as does a state of another format or version.

        Returns
        -------
        FairnessMonitor
        """
        try:
            state = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise MonitorStateError(f"the monitor state is not valid JSON: {exc}") from exc
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise MonitorStateError("this is not a fastfair.FairnessMonitor state")
        if state.get("version") != VERSION:
            raise MonitorStateError(
                f"the monitor state has version {state.get('version')!r}; this fastfair "
                f"reads version {VERSION}"
            )
        monitor = cls(**state["options"])
        _check_expected(monitor, expected)
        try:
            monitor._restore(state)
        except (KeyError, ValueError, TypeError) as exc:
            raise MonitorStateError(f"the monitor state is damaged: {exc}") from exc
        return monitor

    def _restore(self, state: dict) -> None:
        self.n_updates, self.n_rows = int(state["n_updates"]), int(state["n_rows"])
        self._history = _nested(state["history"], _none_to_nan)
        self._values = {c: frozenset(v) for c, v in state.get("values", {}).items()}
        if not state["groups"]:
            return
        self._allocate(list(state["groups"]))
        if int(state["capacity"]) != self._capacity:
            raise ValueError("capacity does not match the options")
        self._groups = list(state["groups"])
        self._counts[:] = np.asarray(state["counts"], dtype=np.int64)
        self._log_e[:] = _unb64(state["log_e"], self._log_e.shape)
        bits = np.unpackbits(np.frombuffer(base64.b64decode(state["rejected"]), np.uint8))
        self._rejected[:] = bits[: self._rejected.size].reshape(self._rejected.shape)
        self._zero_max[:] = _unb64(state["zero_max"], self._zero_max.shape)
        self._decided[:] = np.asarray(state["decided"], dtype=np.int64)
        self._state[:] = np.asarray(state["state"], dtype=object)

    # ---------------------------------------------------------------- plot
    def plot(self, ax: Any = None) -> Any:
        """Each confidence sequence over the rows seen (matplotlib, imported here).

        One panel per metric; per comparison the band of the sequence and its estimate,
        with 0 and ±tolerance marked.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, optional
            One per metric; None: a new figure.

        Returns
        -------
        matplotlib.figure.Figure
        """
        import matplotlib.pyplot as plt

        res = self.result()
        rows = np.asarray(self._history["rows"], dtype=float)
        n_c = len(res.comparisons)
        lower = np.array([np.asarray(h)[:, :n_c] for h in _padded(self._history["lower"], n_c)])
        upper = np.array([np.asarray(h)[:, :n_c] for h in _padded(self._history["upper"], n_c)])
        diff = np.array(
            [np.asarray(h)[:, :n_c] for h in _padded(self._history["difference"], n_c)]
        )
        n_m = len(res.metrics)
        if ax is None:
            fig, axes = plt.subplots(n_m, 1, figsize=(7, 2.6 * n_m), sharex=True, squeeze=False)
            axes = axes[:, 0]
        else:
            axes, fig = np.atleast_1d(ax), np.atleast_1d(ax)[0].figure
        for i, metric in enumerate(res.metrics):
            a = axes[i]
            for c, (g, r) in enumerate(res.comparisons):
                line = a.step(rows, diff[:, i, c], where="post", label=f"{g} - {r}")[0]
                a.fill_between(rows, lower[:, i, c], upper[:, i, c], step="post",
                               alpha=0.25, color=line.get_color())  # fmt: skip
            a.axhline(0.0, color="k", lw=0.8)
            if res.tolerance is not None:
                for t in (-res.tolerance, res.tolerance):
                    a.axhline(t, color="k", lw=0.8, ls="--")
            a.set_ylabel(f"{metric} gap")
            a.legend(loc="upper right", fontsize="small")
        axes[-1].set_xlabel("rows seen")
        fig.suptitle(f"anytime-valid {100 * (1 - res.alpha):g}% confidence sequences")
        return fig

    def __repr__(self) -> str:
        if not self._groups:
            return f"FairnessMonitor({self.options}, no data yet)"
        return repr(self.result()).replace("MonitorResult(", "FairnessMonitor(", 1)


def _padded(history: list, n_c: int) -> list:
    """History entries with NaN for comparisons of groups that joined later."""
    out = []
    for h in history:
        arr = np.full((len(h), n_c), np.nan)
        h = np.asarray(h, dtype=float)
        arr[:, : h.shape[1]] = h[:, :n_c]
        out.append(arr)
    return out


def _check_expected(monitor: FairnessMonitor, expected: dict) -> None:
    """Each given option equals the state's (metrics and groups compared as checked)."""
    stored = monitor.options.to_dict()
    for name, value in expected.items():
        if value is None:
            continue
        if name not in stored:
            raise TypeError(f"unknown monitor option {name!r}")
        probe = dict(stored, **{name: value})
        probe["max_groups"] = None if name != "max_groups" else value
        if name != "groups":
            probe["groups"] = None
        given = check_options(**probe).to_dict()[name]
        if given != stored[name]:
            raise MonitorStateError(
                f"the state was made with {name}={stored[name]!r}, not {given!r}: use its "
                "configuration or start a new state file"
            )
