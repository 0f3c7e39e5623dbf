"""The engines' group coder: Arrow batches of group columns to codes.

Every engine codes group columns here, batch by batch: a text column's Arrow dictionary
becomes codes into its sorted labels (:func:`batch_codes`). The rest is the one coder the
families and the audit share: whole columns by :func:`fastfair._validation.as_groups`,
several columns' intersections with tuple labels by
:func:`fastfair._groups.intersection_codes`, and two summaries' labels merged into their
sorted union by :func:`fastfair._groups.merge_labels` (both re-exported here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fastfair._groups import intersection_codes, merge_labels
from fastfair._validation import GroupCodes, check_label_values, drop_unused, sort_labels

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["arrow_text", "batch_codes", "intersection_codes", "merge_labels"]


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
    labels, rank = sort_labels(labels)
    # a batch's dictionary may hold labels no row uses
    return GroupCodes(*drop_unused(np.take(rank, indices), labels))


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
        n = values.null_count
        raise ValueError(
            f"{name} contains missing values (null) in {n:,} row{'s' * (n != 1)}; a group "
            "label must be present: drop those rows or give them a label of their own"
        )
    kind = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        values = values.dictionary_decode() if kind is not values.type else values
        return values.to_numpy(zero_copy_only=False)
    if not pa.types.is_dictionary(values.type):
        values = pc.dictionary_encode(values)
    return values.indices.to_numpy(zero_copy_only=False), values.dictionary.to_pylist()
