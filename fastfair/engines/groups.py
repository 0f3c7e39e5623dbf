"""The one group coder of the engines: group labels to codes, intersections, merging.

Every engine codes group columns here, batch by batch: a text column's Arrow dictionary
becomes codes into its sorted labels (:func:`batch_codes`), several columns become their
intersections with tuple labels (:func:`intersection_codes`), and two summaries' labels are
merged into their sorted union (:func:`merge_labels`). Whole in-memory columns are coded by
:func:`fastfair._validation.as_groups`, which the methods' ingest uses too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from fastfair._validation import GroupCodes, as_groups, check_label_values, check_same_length

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["arrow_text", "batch_codes", "intersection_codes", "merge_labels"]


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
    >>> from fastfair.engines.groups import merge_labels
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
    >>> from fastfair.engines.groups import intersection_codes
    >>> codes, labels = intersection_codes([["F", "M", "F"], ["x", "x", "y"]], 3)
    >>> codes.tolist(), labels.tolist()
    ([0, 2, 1], [('F', 'x'), ('F', 'y'), ('M', 'x')])
    """
    if len(groups) == 1:
        return as_groups(groups[0], "group", min_groups=1)
    codes = np.zeros(n, dtype=np.intp)
    parts = []
    for j, g in enumerate(groups):
        c, labels = as_groups(g, f"group {j + 1}", min_groups=1)
        check_same_length(first_group=codes, group=c)
        codes = codes * len(labels) + c
        parts.append(labels.tolist())
    present, codes = np.unique(codes, return_inverse=True)
    labels = np.empty(len(present), dtype=object)
    for k, code in enumerate(present.tolist()):
        combo = []
        for part in reversed(parts):
            code, r = divmod(code, len(part))
            combo.append(part[r])
        labels[k] = tuple(reversed(combo))
    return codes.astype(np.intp).ravel(), labels


def batch_codes(values, name: str) -> GroupCodes | np.ndarray:
    """One batch of an Arrow group column as codes into its sorted labels (dictionary
    encoding, :func:`arrow_text`; labels a batch's dictionary holds
    but no row uses are dropped); a numeric column's values as they are.

    Parameters
    ----------
    values : pyarrow.Array
        The batch of the column.
    name : str
        How messages name the column.

    Returns
    -------
    GroupCodes or numpy.ndarray

    Examples
    --------
    >>> import pyarrow as pa
    >>> from fastfair.engines.groups import batch_codes
    >>> coded = batch_codes(pa.array(["b", "a", "b"]), "group")
    >>> coded.codes.tolist(), coded.labels.tolist()
    ([1, 0, 1], ['a', 'b'])
    """
    text = arrow_text(values, name)
    if isinstance(text, np.ndarray):
        return text
    indices, labels = text
    labels = np.array(labels, dtype=object)
    check_label_values(labels, name, lambda k: int((indices == k).sum()))
    order = np.argsort(labels, kind="stable")
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    used = np.bincount(indices, minlength=len(labels)) > 0  # dictionaries may hold unused
    codes = np.take(rank, indices)
    if not used.all():
        keep = used[order]
        remap = np.cumsum(keep) - 1
        return GroupCodes(np.take(remap, codes), labels[order][keep])
    return GroupCodes(codes, labels[order])


def arrow_text(values: pa.Array, name: str) -> tuple[np.ndarray, list] | np.ndarray:
    """One batch of an Arrow group column: (indices, labels) by dictionary encoding when it
    holds text (``labels[indices[i]]`` is row i's label; a dictionary may hold unused
    labels), else its values as a numpy array. Nulls are refused, naming `name`.

    Parameters
    ----------
    values : pyarrow.Array
        The column's batch (plain or dictionary-encoded).
    name : str
        How messages name the column.

    Returns
    -------
    tuple of (numpy.ndarray, list) or numpy.ndarray
        (indices, labels) for text; the values otherwise.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from fastfair.engines.groups import arrow_text
    >>> indices, labels = arrow_text(pa.array(["b", "a", "b"]), "group")
    >>> indices.tolist(), labels
    ([0, 1, 0], ['b', 'a'])
    >>> arrow_text(pa.array([3, 1]), "group").tolist()
    [3, 1]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if values.null_count:
        raise ValueError(
            f"{name} contains missing values (null) in {values.null_count:,} rows; a group "
            "label must be present: drop those rows or give them a label of their own"
        )
    kind = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        values = values.dictionary_decode() if kind is not values.type else values
        return values.to_numpy(zero_copy_only=False)
    if not pa.types.is_dictionary(values.type):
        values = pc.dictionary_encode(values)
    return values.indices.to_numpy(zero_copy_only=False), values.dictionary.to_pylist()
