"""The audit's summary of several attributes and their intersections, from one pass.

Each batch (arrow engine) or partition (dask engine) is read once: every attribute is
coded once (:func:`fastfair._validation.as_groups`, after the Arrow batch coder), the
confusion counts of every combination of their levels go into one
:class:`fastfair.engines.cube.ConfusionCube`, and with a score the AUC summaries of every
attribute combination the audit tests (:func:`fastfair._groups.attribute_combinations`:
each attribute, and with intersections every combination of two or more; an
intersection's labels are tuples): the arrow engine's exact sorted runs coded by cell,
one sort per batch and one merge for every combination (:class:`CombinationScores`), or a
:class:`fastfair.engines.summaries.ScoreStats` per combination. The summaries of
the batches add (:class:`AuditSummary`); the audit reads each attribute's confusion counts
from the cube's marginals (:mod:`fastfair.auditing.summaries`).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence
from typing import Any

from fastfair._groups import combine_codes, split_codes, tuple_labels
from fastfair._metrics import cell_index
from fastfair._validation import GroupCodes, as_groups
from fastfair.engines.cube import ConfusionCube
from fastfair.engines.summaries import (
    ConfusionStats,
    ScoreRuns,
    ScoreStats,
    checked_rows,
    release_memory,
)

__all__ = [
    "AuditSummary",
    "CombinationScores",
    "code_groups",
    "combination_codes",
    "summarise_rows",
    "summary_of",
]


class AuditSummary:
    """What the audit reads from some rows; merged with ``+``.

    Attributes
    ----------
    cube : ConfusionCube
        The confusion counts of every combination of the attributes' levels.
    scores : dict or None
        {attribute combination (a tuple of names): its ScoreStats} with a score, else None.
    rows : UserRows or None
        The arrow engine's parity columns (:class:`fastfair.engines.clusters.UserRows`,
        kept from the same read; each row's group is its combination of all attributes),
        else None.

    Examples
    --------
    >>> from fastfair.engines.attributes import summarise_rows
    >>> part = summarise_rows([1, 0, 1], None, [0.9, 0.2, 0.4],
    ...                       {"sex": ["F", "M", "F"], "race": ["a", "a", "b"]},
    ...                       combos=[("sex",), ("sex", "race")])
    >>> total = part + part
    >>> total.confusion(["sex"]).counts.tolist()
    [[0, 0, 2, 2], [2, 0, 0, 0]]
    >>> total.scores[("sex", "race")].labels.tolist()
    [('F', 'a'), ('F', 'b'), ('M', 'a')]
    """

    def __init__(self, cube: ConfusionCube, scores: dict | None = None, rows: Any = None):
        self.cube, self.scores, self.rows = cube, scores, rows

    def __add__(self, other: AuditSummary) -> AuditSummary:
        if not isinstance(other, AuditSummary):
            return NotImplemented
        scores = None
        if isinstance(self.scores, CombinationScores):
            scores = self.scores + other.scores
        elif self.scores is not None:
            scores = {k: v + other.scores[k] for k, v in self.scores.items()}
        return AuditSummary(self.cube + other.cube, scores)

    def confusion(self, names: Sequence[str] | None = None) -> ConfusionStats:
        """The confusion counts of one attribute or an intersection (the cube's marginal)."""
        return self.cube.confusion(names)


def code_groups(groups: Mapping[str, Any]) -> dict[str, GroupCodes]:
    """Each attribute's column of one batch coded once (GroupCodes pass through); errors
    name "group" for one attribute, the column for several."""
    named = len(groups) > 1
    return {
        name: GroupCodes(
            *as_groups(values, f"group column {name!r}" if named else "group", min_groups=1)
        )
        for name, values in groups.items()
    }


def combination_codes(coded: Mapping[str, GroupCodes], names: Sequence[str]) -> GroupCodes:
    """The codes of one attribute, or of the intersection of several (tuple labels, only
    the combinations present), from the batch's coded attributes."""
    if len(names) == 1:
        return coded[names[0]]
    parts = [coded[n].labels for n in names]
    sizes = [len(p) for p in parts]
    codes, present = combine_codes([coded[n].codes for n in names], sizes)
    return GroupCodes(codes, tuple_labels(split_codes(present, sizes), parts))


def summary_of(y, yhat, s, groups: Mapping[str, Any], combos) -> AuditSummary:
    """The summary of one batch of checked rows: label, prediction, score (or None) and
    the attributes' columns; `combos`: the attribute combinations that get a ScoreStats."""
    coded = code_groups(groups)
    names = list(coded)
    cube = ConfusionCube.from_codes(
        cell_index(y, yhat),
        [coded[n].codes for n in names],
        [coded[n].labels for n in names],
        names,
    )
    scores = None
    if s is not None:
        scores = {
            tuple(c): ScoreStats.from_arrays(y, s, combination_codes(coded, c)) for c in combos
        }
    return AuditSummary(cube, scores)


class CombinationScores(Mapping):
    """The exact AUC summaries of every attribute combination, from one set of sorted runs.

    The runs (:class:`fastfair.engines.summaries.ScoreRuns`) are coded by the cells of all
    the attributes (a cell: one level of each; one attribute: its levels), so each batch is
    sorted once and holds 10 bytes a row whatever the combinations; ``scores[combo]`` is
    the combination's :class:`fastfair.engines.summaries.PlacementSums`, and the first
    first use merges the runs once for every combination (a cell's group in a combination
    is its levels of those attributes), then moves the runs to a file (read back only for
    the rows of small groups, ``scores[combo].rows(labels)``). Added with ``+``.

    Parameters
    ----------
    runs : ScoreRuns
        Runs coded by cell (labels: tuples of levels in the order of `names`, or the levels
        themselves for one attribute).
    names : sequence of str
        The attributes.
    combos : sequence of tuples of str
        The combinations looked up.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.engines.attributes import CombinationScores
    >>> from fastfair.stats import ScoreRuns
    >>> cells = np.empty(4, dtype=object)
    >>> cells[:] = [("F", "x"), ("M", "x"), ("F", "y"), ("M", "y")]
    >>> runs = ScoreRuns.from_codes(np.array([1, 0, 1, 0]), np.array([0.9, 0.1, 0.4, 0.3]),
    ...                             np.arange(4), cells)
    >>> scores = CombinationScores(runs, ["sex", "race"], [("sex",), ("sex", "race")])
    >>> scores[("sex",)].labels.tolist()
    ['F', 'M']
    """

    def __init__(self, runs: ScoreRuns, names: Sequence[str], combos: Sequence[tuple]):
        self.runs, self.names = runs, tuple(names)
        self.combos = [tuple(c) for c in combos]

    def __add__(self, other: CombinationScores) -> CombinationScores:
        if not isinstance(other, CombinationScores):
            return NotImplemented
        return CombinationScores(self.runs + other.runs, self.names, self.combos)

    def __getitem__(self, combo):
        combo = tuple(combo)
        if combo not in self.combos:
            raise KeyError(combo)
        return _Combination(self, combo)

    def __iter__(self):
        return iter(self.combos)

    def __len__(self) -> int:
        return len(self.combos)

    @functools.cached_property
    def _sums(self) -> dict:
        import tempfile

        keys = [_projection(self.names, c) for c in self.combos]
        sums = dict(zip(self.combos, self.runs.placements_by(keys)))
        if self.runs.nbytes:  # merged: the runs wait in a file, in case rows are read
            self.runs = self.runs.spill(tempfile.gettempdir())
            release_memory()
        return sums


class _Combination:
    """One combination's exact AUC summary from :class:`CombinationScores`: its merged
    :class:`fastfair.engines.summaries.PlacementSums` (``select``, ``all_tied``,
    ``delong``, ``test``) and the rows of its groups (``rows``, from the runs)."""

    def __init__(self, owner: CombinationScores, combo: tuple):
        self.owner, self.combo = owner, combo

    @property
    def sums(self):
        return self.owner._sums[self.combo]

    @property
    def labels(self):
        return self.sums.labels

    def select(self, labels):
        return self.sums.select(labels)

    def all_tied(self):
        return self.sums.all_tied()

    def delong(self):
        return self.sums.delong()

    def test(self, **options):
        return self.sums.test(**options)

    def rows(self, labels):
        return self.owner.runs.rows(labels, key=_projection(self.owner.names, self.combo))


def _projection(names: Sequence[str], combo: Sequence[str]):
    """A cell's group in the combination `combo` (None: the cell itself)."""
    if tuple(combo) == tuple(names):
        return None
    positions = [names.index(n) for n in combo]
    if len(positions) == 1:
        return operator.itemgetter(positions[0])
    return operator.itemgetter(*positions)


def summarise_rows(
    label, pred, score, groups: Mapping[str, Any], *, combos=None, threshold=None,
    pos_label=None,
):  # fmt: skip
    """The summary of one batch: label, prediction (or score >= threshold), the attributes'
    columns ({name: labels}); `combos` default: each attribute alone."""
    y, yhat, s = checked_rows(label, pred, score, threshold=threshold, pos_label=pos_label)
    combos = [(n,) for n in groups] if combos is None else combos
    return summary_of(y, yhat, s, groups, combos)
