"""The cube of confusion counts: one summary of every attribute and their intersections.

A :class:`ConfusionCube` holds the confusion counts (TN, FP, FN, TP) of every combination
of the levels of several attributes that occurs in the rows: its cells are attribute
levels × label × prediction. It is built in one pass over some rows (each attribute coded
once by the one group coder, :func:`fastfair._validation.as_groups`, or already coded by an
engine's batch coder), added like every summary (``a + b`` over batches or partitions, in
any order), and marginalised to any set of its attributes: ``cube.confusion(["sex"])`` is
the :class:`fastfair.stats.ConfusionStats` of sex alone, ``cube.confusion(["sex", "race"])``
that of their intersections, identical to ``ConfusionStats.from_arrays`` on the rows.

The cube is sparse: only the combinations present are stored (``keys``, one row of level
codes per cell), so eight attributes of ten levels each cost the cells the data fill, not
10^8. Public path: :mod:`fastfair.stats` (and :mod:`fastfair.engines`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._groups import combine_codes, merge_labels, split_codes, tuple_labels
from fastfair._metrics import cell_index
from fastfair._validation import align_index, as_binary, as_groups, check_same_length
from fastfair.engines.summaries import ConfusionStats

if TYPE_CHECKING:
    from collections.abc import Hashable

    import pandas as pd
    from numpy.typing import ArrayLike

__all__ = ["ConfusionCube"]


@dataclass(frozen=True, eq=False)
class ConfusionCube:
    """Confusion counts per combination of the levels of several attributes.

    Attributes
    ----------
    names : tuple of str
        The attributes, in the order of the key columns.
    levels : tuple of numpy.ndarray
        The sorted labels of each attribute (``levels[j][keys[c, j]]`` is cell c's level of
        attribute j).
    keys : numpy.ndarray of intp, shape (cells, attributes)
        The level codes of each cell present, distinct and in lexicographic order (so in
        the order of the labels' tuples).
    counts : numpy.ndarray of int64, shape (cells, 4)
        TN, FP, FN, TP of each cell.

    Examples
    --------
    >>> from fastfair.stats import ConfusionCube
    >>> a = ConfusionCube.from_arrays([1, 0, 1], [1, 0, 0],
    ...                               {"sex": ["F", "M", "F"], "race": ["x", "x", "y"]})
    >>> b = ConfusionCube.from_arrays([1], [1], {"sex": ["M"], "race": ["z"]})
    >>> cube = a + b
    >>> cube
    ConfusionCube(sex (2), race (3): 4 cells present, 4 rows)
    >>> cube.n_cells, [level.tolist() for level in cube.levels]
    (4, [['F', 'M'], ['x', 'y', 'z']])
    >>> sex = cube.confusion(["sex"])
    >>> sex.labels.tolist(), sex.counts.tolist()
    (['F', 'M'], [[0, 0, 1, 1], [1, 0, 0, 1]])
    >>> cube.confusion(["sex", "race"]).labels.tolist()
    [('F', 'x'), ('F', 'y'), ('M', 'x'), ('M', 'z')]
    """

    names: tuple
    levels: tuple
    keys: np.ndarray
    counts: np.ndarray

    @classmethod
    def from_arrays(
        cls,
        y_true: ArrayLike,
        y_pred: ArrayLike,
        groups: Mapping[str, Any],
        *,
        pos_label: Hashable | None = None,
    ) -> ConfusionCube:
        """The cube of some rows (one batch or partition).

        Parameters
        ----------
        y_true, y_pred : array-like
            Binary outcomes and predictions.
        groups : mapping of str to array-like
            {attribute name: its group labels} (or
            :class:`fastfair._validation.GroupCodes` already coded, as an engine's batch
            coder gives them); each is coded once by the one group coder.
        pos_label : optional
            Positive value of `y_true` and `y_pred` when they are not bool or 0/1.

        Returns
        -------
        ConfusionCube
        """
        if not isinstance(groups, Mapping) or not groups:
            raise TypeError("groups must be a non-empty mapping {attribute name: labels}")
        names = tuple(str(n) for n in groups)
        named = {f"groups[{n!r}]": g for n, g in groups.items()}
        aligned = align_index(y_true=y_true, y_pred=y_pred, **named)
        y_true, y_pred, *columns = aligned.values()
        y = as_binary(y_true, "y_true", pos_label)
        yhat = as_binary(y_pred, "y_pred", pos_label)
        check_same_length(y_true=y, y_pred=yhat)
        codes, levels = [], []
        for name, values in zip(names, columns):
            c, labels = as_groups(values, f"group column {name!r}", min_groups=1)
            check_same_length(y_true=y, **{f"group column {name!r}": c})
            codes.append(c)
            levels.append(labels)
        return cls.from_codes(cell_index(y, yhat), codes, levels, names)

    @classmethod
    def from_codes(
        cls, cell: np.ndarray, codes: Sequence[np.ndarray], levels: Sequence, names: Sequence
    ) -> ConfusionCube:
        """The cube of rows already checked and coded: `cell` = 2 * label + prediction
        (0..3) of each row, ``codes[j]`` the codes of attribute j into its sorted labels
        ``levels[j]``. Levels no row uses are dropped."""
        sizes = [len(level) for level in levels]
        if len(cell) == 0:
            keys = np.empty((0, len(sizes)), dtype=np.intp)
            return _compact(tuple(names), tuple(np.asarray(v) for v in levels), keys,
                            np.empty((0, 4), dtype=np.int64))  # fmt: skip
        key, present = combine_codes(codes, sizes)
        counts = np.bincount(key * 4 + cell, minlength=len(present) * 4)
        keys = split_codes(present, sizes)
        return _compact(tuple(names), tuple(np.asarray(v) for v in levels), keys,
                        counts.reshape(-1, 4).astype(np.int64))  # fmt: skip

    def __repr__(self) -> str:
        shape = ", ".join(f"{n} ({len(v)})" for n, v in zip(self.names, self.levels))
        return (
            f"ConfusionCube({shape}: {self.n_cells:,} cells present, "
            f"{int(self.counts.sum()):,} rows)"
        )

    @property
    def n_cells(self) -> int:
        """The number of combinations present."""
        return len(self.keys)

    def __add__(self, other: ConfusionCube) -> ConfusionCube:
        if not isinstance(other, ConfusionCube):
            return NotImplemented
        if self.names != other.names:
            raise ValueError(
                f"cannot add cubes of different attributes: {list(self.names)} and "
                f"{list(other.names)}"
            )
        levels, ka, kb = [], [], []
        for j, (a, b) in enumerate(zip(self.levels, other.levels)):
            labels, ia, ib = merge_labels(a, b)
            levels.append(labels)
            ka.append(ia[self.keys[:, j]])
            kb.append(ib[other.keys[:, j]])
        keys = np.concatenate([np.column_stack(ka), np.column_stack(kb)]).reshape(
            -1, len(self.names)
        )
        counts = np.concatenate([self.counts, other.counts])
        return _summed(self.names, tuple(levels), keys, counts)

    def marginal(self, names: Sequence[str]) -> ConfusionCube:
        """The cube of some of the attributes (the others summed over).

        Parameters
        ----------
        names : sequence of str
            Attributes of this cube, in the order wanted.

        Returns
        -------
        ConfusionCube
        """
        index = self._index(names)
        levels = tuple(self.levels[j] for j in index)
        return _summed(tuple(names), levels, self.keys[:, index], self.counts)

    def confusion(self, names: Sequence[str] | None = None) -> ConfusionStats:
        """The :class:`fastfair.stats.ConfusionStats` of one attribute or the intersections
        of several (default: all of this cube's).

        Parameters
        ----------
        names : sequence of str, optional
            One attribute (labels: its levels) or several (labels: the tuples of their
            levels, only the combinations present, as ``ConfusionStats.from_arrays`` with
            several group columns gives them).

        Returns
        -------
        fastfair.stats.ConfusionStats
        """
        cube = self.marginal(self.names if names is None else names)
        if len(cube.names) == 1:
            labels = cube.levels[0][cube.keys[:, 0]]
        else:
            labels = tuple_labels(cube.keys, cube.levels)
        return ConfusionStats(labels, cube.counts.copy())

    def to_frame(self) -> pd.DataFrame:
        """The cells as a pandas DataFrame: one column per attribute (its labels), then
        tn, fp, fn, tp.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        columns = {n: self.levels[j][self.keys[:, j]] for j, n in enumerate(self.names)}
        columns.update(zip(("tn", "fp", "fn", "tp"), self.counts.T))
        return pd.DataFrame(columns)

    def _index(self, names: Sequence[str]) -> list[int]:
        if isinstance(names, str) or not names:
            raise TypeError(f"names must be a non-empty list of attributes, got {names!r}")
        unknown = [n for n in names if n not in self.names]
        if unknown or len(set(names)) != len(names):
            raise ValueError(
                f"names must be distinct attributes of the cube {list(self.names)}, got "
                f"{list(names)}"
            )
        return [self.names.index(n) for n in names]


def _summed(names, levels, keys, counts) -> ConfusionCube:
    """The cube of cells `keys` (repeats allowed) with their `counts` summed."""
    sizes = [len(level) for level in levels]
    if len(keys) == 0:
        return _compact(names, levels, keys, counts[:0])
    key, present = combine_codes([keys[:, j] for j in range(keys.shape[1])], sizes)
    total = np.zeros((len(present), 4), dtype=np.int64)
    np.add.at(total, key, counts)
    return _compact(names, levels, split_codes(present, sizes), total)


def _compact(names, levels, keys, counts) -> ConfusionCube:
    """The cube without the levels no cell uses (codes renumbered)."""
    kept, new_keys = [], np.empty_like(keys)
    for j, level in enumerate(levels):
        used = np.zeros(len(level), dtype=bool)
        used[keys[:, j]] = True
        if used.all():
            kept.append(level)
            new_keys[:, j] = keys[:, j]
        else:
            kept.append(level[used])
            new_keys[:, j] = (np.cumsum(used) - 1)[keys[:, j]]
    return ConfusionCube(names, tuple(kept), new_keys, counts)
