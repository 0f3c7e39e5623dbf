"""Group codes beyond one column: intersections of several columns, and label merging.

The one group coder is :func:`fastfair._validation.as_groups` (a column's labels to codes
into its sorted labels); this leaf builds on it for what every engine, family and the
audit share:

- :func:`attribute_combinations`: the attributes and intersections an audit tests;
- :func:`combine_codes` / :func:`split_codes`: several columns of codes as one code per
  row (mixed radix, only the combinations present, in the order of the labels' tuples),
  and back;
- :func:`intersection_codes`: the codes and tuple labels of one column or the
  intersection of several (the audit joins a tuple's parts with " & ");
- :func:`merge_labels` / :func:`add_by_labels`: the sorted union of two summaries' labels
  and their counts added on it (every mergeable summary's ``+``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from fastfair._validation import as_groups, check_same_length

__all__ = [
    "add_by_labels",
    "attribute_combinations",
    "combine_codes",
    "intersection_codes",
    "merge_labels",
    "split_codes",
    "tuple_labels",
]

#: Products of the columns' sizes below this are combined in one int64 key (mixed radix).
_RADIX_LIMIT = 1 << 62


def attribute_combinations(names: Sequence[str], intersections: bool) -> list[tuple[str, ...]]:
    """The attributes an audit tests: each one, then (with `intersections`) every
    combination of two or more, by size, in the order of `names`.

    Examples
    --------
    >>> from fastfair._groups import attribute_combinations
    >>> attribute_combinations(["sex", "race", "age"], True)[2:]
    [('age',), ('sex', 'race'), ('sex', 'age'), ('race', 'age'), ('sex', 'race', 'age')]
    """
    combos = [(n,) for n in names]
    if intersections and len(names) > 1:
        for size in range(2, len(names) + 1):
            combos += itertools.combinations(names, size)
    return combos


def combine_codes(codes: Sequence[np.ndarray], sizes: Sequence[int]):
    """One code per row for several columns of codes.

    Parameters
    ----------
    codes : sequence of numpy.ndarray
        Codes of each column (column j's in ``0..sizes[j]-1``), all of one length.
    sizes : sequence of int
        The number of labels of each column.

    Returns
    -------
    codes : numpy.ndarray of intp
        Each row's code into `present`.
    present : numpy.ndarray
        The combinations present, in lexicographic order of the columns' codes: mixed-radix
        int64 keys (one column: its codes), or rows of codes when the product of the sizes
        does not fit an int64. :func:`split_codes` gives their codes per column.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair._groups import combine_codes, split_codes
    >>> codes, present = combine_codes([np.array([1, 0, 1]), np.array([0, 2, 0])], [2, 3])
    >>> codes.tolist(), split_codes(present, [2, 3]).tolist()
    ([1, 0, 1], [[0, 2], [1, 0]])
    """
    if len(codes) == 1:
        return as_groups(np.asarray(codes[0], dtype=np.intp), "intersection", min_groups=1)
    if float(np.prod(np.asarray(sizes, dtype=np.float64))) < _RADIX_LIMIT:
        combined = np.zeros(len(codes[0]), dtype=np.int64)
        for c, size in zip(codes, sizes):
            combined = combined * size + c
        return as_groups(combined, "intersection", min_groups=1)
    rows, key = np.unique(np.column_stack(codes), axis=0, return_inverse=True)
    return key.astype(np.intp).ravel(), rows


def split_codes(present: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """The codes per column (combinations × columns) of :func:`combine_codes`'s `present`."""
    if present.ndim == 2:
        return present.astype(np.intp)
    keys = np.empty((len(present), len(sizes)), dtype=np.intp)
    rest = present.astype(np.int64)
    for j in range(len(sizes) - 1, -1, -1):
        rest, keys[:, j] = np.divmod(rest, sizes[j])
    return keys


def intersection_codes(groups: Sequence, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes and labels of one group column, or of the intersection of several.

    Parameters
    ----------
    groups : sequence of array-like
        One or more group columns of `n` rows.
    n : int
        The number of rows.

    Returns
    -------
    codes, labels : numpy.ndarray
        Codes into sorted labels; with several columns each label is the tuple of the
        columns' labels, and only the combinations present are labels.

    Examples
    --------
    >>> from fastfair._groups import intersection_codes
    >>> codes, labels = intersection_codes([["F", "M", "F"], ["x", "x", "y"]], 3)
    >>> codes.tolist(), labels.tolist()
    ([0, 2, 1], [('F', 'x'), ('F', 'y'), ('M', 'x')])
    """
    if len(groups) == 1:
        return as_groups(groups[0], "group", min_groups=1)
    columns, parts = [], []
    for j, g in enumerate(groups):
        c, labels = as_groups(g, f"group {j + 1}", min_groups=1)
        check_same_length(first_group=np.empty(n), group=c)
        columns.append(c)
        parts.append(labels)
    codes, present = combine_codes(columns, [len(p) for p in parts])
    return codes, tuple_labels(split_codes(present, [len(p) for p in parts]), parts)


def tuple_labels(keys: np.ndarray, parts: Sequence[np.ndarray]) -> np.ndarray:
    """The labels (an object array of tuples) of combinations given by their codes per
    column (`keys`, combinations × columns) into each column's labels `parts`."""
    values = [p.tolist() if isinstance(p, np.ndarray) else list(p) for p in parts]
    labels = np.empty(len(keys), dtype=object)
    labels[:] = [tuple(v[k] for v, k in zip(values, key)) for key in keys.tolist()]
    return labels


def merge_labels(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted union of two label arrays and where each input's labels go in it.

    Parameters
    ----------
    a, b : numpy.ndarray
        The labels of two summaries (each sorted, distinct).

    Returns
    -------
    labels : numpy.ndarray
        Their sorted union.
    ia, ib : numpy.ndarray
        Position in `labels` of each label of `a` and of `b`.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair._groups import merge_labels
    >>> labels, ia, ib = merge_labels(np.array(["a", "c"]), np.array(["b", "c"]))
    >>> labels.tolist(), ia.tolist(), ib.tolist()
    (['a', 'b', 'c'], [0, 2], [1, 2])
    """
    if np.array_equal(a, b):
        index = np.arange(len(a))
        return a, index, index
    try:
        union = sorted(set(a.tolist()) | set(b.tolist()))
    except TypeError as exc:
        raise TypeError("group labels of the two summaries cannot be ordered together") from exc
    labels = np.empty(len(union), dtype=object)
    labels[:] = union
    if a.dtype.kind != "O" and a.dtype == b.dtype:
        labels = labels.astype(a.dtype)
    position = {v: k for k, v in enumerate(union)}
    ia = np.array([position[v] for v in a.tolist()], dtype=np.intp)
    ib = np.array([position[v] for v in b.tolist()], dtype=np.intp)
    return labels, ia, ib


def add_by_labels(
    labels_a: np.ndarray, counts_a: np.ndarray, labels_b: np.ndarray, counts_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Two summaries' per-group counts (rows: groups) added on the union of their labels.

    Returns
    -------
    labels, counts : numpy.ndarray
        The sorted union of the labels and the summed counts (int64).

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair._groups import add_by_labels
    >>> labels, counts = add_by_labels(np.array(["a"]), np.array([[1, 2]]),
    ...                                np.array(["a", "b"]), np.array([[1, 1], [0, 5]]))
    >>> labels.tolist(), counts.tolist()
    (['a', 'b'], [[2, 3], [0, 5]])
    """
    labels, ia, ib = merge_labels(labels_a, labels_b)
    counts = np.zeros((len(labels), *counts_a.shape[1:]), dtype=np.int64)
    np.add.at(counts, ia, counts_a)
    np.add.at(counts, ib, counts_b)
    return labels, counts
