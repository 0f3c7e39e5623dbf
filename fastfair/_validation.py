"""Input coercion and validation shared by every fastfair function.

Arrays may come as numpy arrays, pandas Series/Categoricals, lists or anything array-like;
errors name the argument and say what is wrong.
"""

from __future__ import annotations

import ctypes
import numbers
from collections.abc import Mapping

import numpy as np

__all__ = [
    "MAX_POINTS",
    "MAX_RESAMPLES",
    "GroupCodes",
    "align_index",
    "as_1d",
    "as_binary",
    "as_binary_pair",
    "as_finite_float",
    "as_groups",
    "as_probabilities",
    "as_weights",
    "check_int",
    "check_label_values",
    "check_resamples",
    "check_same_length",
    "resolve_columns",
    "score_threshold",
    "show_value",
    "unit_scale",
]

MAX_DIRECT_RANGE = 1 << 22  # integer group labels spanning at most this are coded by lookup


def resolve_columns(data, **columns):
    """Replace column names by columns of `data` (a pandas DataFrame or a mapping), then
    pair pandas inputs by their index (:func:`align_index`).

    Arguments that are not strings (already arrays) pass through unchanged; None stays None.
    """
    if data is None:
        return align_index(**columns)
    if not (isinstance(data, Mapping) or hasattr(data, "columns")):
        raise TypeError(f"data must be a pandas DataFrame or a mapping, got {type(data).__name__}")
    available = list(data.columns) if hasattr(data, "columns") else list(data.keys())
    resolved = {}
    for arg, value in columns.items():
        if isinstance(value, str):
            if value not in available:
                raise ValueError(
                    f"{arg}={value!r} is not a column of data; available: {available}"
                )
            resolved[arg] = data[value]
        else:
            resolved[arg] = value
    return align_index(**resolved)


def _pandas_index(value):
    """The index of a pandas Series/DataFrame (not of a plain Index or array), else None."""
    index = getattr(value, "index", None)
    if index is None or not hasattr(value, "to_numpy") or not hasattr(index, "equals"):
        return None
    return index


def align_index(**columns):
    """Pair the rows of pandas inputs by index label, as pandas does.

    Inputs whose indexes hold the same unique labels in another order are reordered to the
    order of the first pandas input; indexes with different labels (or duplicated labels in
    another order) raise ValueError, since pairing them by position would be silently
    wrong. numpy arrays and lists are paired by position.
    """
    indexed = [(k, _pandas_index(v)) for k, v in columns.items()]
    indexed = [(k, ix) for k, ix in indexed if ix is not None]
    if len(indexed) < 2:
        return columns
    first, ref = indexed[0]
    out = dict(columns)
    for name, index in indexed[1:]:
        if index.equals(ref):
            continue
        same_labels = (
            len(index) == len(ref) and index.is_unique and ref.is_unique
            and index.sort_values().equals(ref.sort_values())
        )  # fmt: skip
        if not same_labels:
            raise ValueError(
                f"{name} and {first} are pandas objects whose indexes hold different labels; "
                "align them (e.g. .reindex) or pass .to_numpy() to pair rows by position"
            )
        out[name] = columns[name].reindex(ref)
    return out


def as_1d(values, name: str) -> np.ndarray:
    """Return `values` as a 1-D numpy array (pandas objects keep their values, not index)."""
    if values is None:
        raise TypeError(f"{name} is required, got None")
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be 1-D array-like, got a scalar")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    return arr


def _has_missing(arr: np.ndarray) -> bool:
    if arr.dtype.kind == "f" or arr.dtype.kind == "c":
        return bool(np.isnan(arr).any())
    if arr.dtype.kind == "O":
        return any(v is None or (isinstance(v, float) and v != v) for v in arr)
    return False


def as_finite_float(values, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """Return `values` as a contiguous float64 array with no infinity, and no NaN unless
    `allow_nan` (missing values the caller drops or refuses itself)."""
    arr = as_1d(values, name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if allow_nan:
        if np.isinf(arr).any():
            raise ValueError(f"{name} contains infinite values")
    elif not np.isfinite(arr).all():
        bad = "NaN" if np.isnan(arr).any() else "infinite values"
        raise ValueError(f"{name} contains {bad}")
    return arr


def as_probabilities(values, name: str, what: str = "probabilities") -> np.ndarray:
    """`values` as finite float64 in [0, 1] (predicted probabilities, p-values), else a
    ValueError naming the argument and the first value outside."""
    arr = as_finite_float(values, name)
    outside = (arr < 0) | (arr > 1)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ValueError(
            f"{name} must be {what} in [0, 1]; got {show_value(arr[i])} at position {i} "
            f"({int(outside.sum())} value(s) outside)"
        )
    return arr


def as_weights(values, name: str = "sample_weight", return_exponent: bool = False):
    """Non-negative finite weights, rescaled by a power of two 2**-e so that the largest is
    in [0.5, 1) (with `return_exponent`, also e: sums reported to the user are multiplied
    back by 2**e).

    The rescaling is exact in floating point, so multiplying every weight by a constant
    changes no result (weights of 1e-170 or 1e300 behave like weights of 1), and sums of
    squares neither overflow nor underflow. All-zero weights raise ValueError.
    """
    w = as_finite_float(values, name)
    if (w < 0).any():
        raise ValueError(f"{name} must be non-negative")
    top = float(w.max())
    if top == 0.0:
        raise ValueError(f"{name} is zero for every row")
    exponent = int(np.frexp(top)[1])
    if exponent != 0:
        w = np.ldexp(w, -exponent)
    return (w, exponent) if return_exponent else w


def unit_scale(values: np.ndarray) -> tuple[np.ndarray, int]:
    """`values` times 2**-e, with e such that the largest magnitude is in [0.5, 1), and e
    (0 for all-zero values).

    Multiplying by a power of two is exact, so statistics that do not depend on the unit
    (a Welch or correlation statistic) are unchanged, sums of squares neither overflow
    (values of 1e160) nor underflow (1e-170), and a quantity in the values' unit is
    recovered exactly with ``np.ldexp(quantity, e)``.
    """
    top = float(np.max(np.abs(values))) if len(values) else 0.0
    if top == 0.0 or not np.isfinite(top):
        return values, 0
    exponent = int(np.frexp(top)[1])
    return np.ldexp(values, -exponent), exponent


def as_binary(
    values, name: str, pos_label=None, require_pos: bool = True, pos_name: str = "pos_label"
) -> np.ndarray:
    """Return a binary label array as uint8 (1 = positive).

    Accepts bool, {0, 1}, and any two-valued labels with `pos_label` naming the positive one
    ({-1, 1} is understood without it). A column with a single value is accepted; a
    `pos_label` that does not occur in it is refused unless `require_pos` is False (then
    check the pair with :func:`as_binary_pair`). Messages call `pos_label` `pos_name` (the
    command line's ``--pos-label``).
    """
    return as_binary_values(values, name, pos_label, require_pos, pos_name)[0]


def as_binary_values(
    values, name: str, pos_label=None, require_pos: bool = True, pos_name: str = "pos_label"
) -> tuple[np.ndarray, frozenset]:
    """:func:`as_binary`, and the distinct values the column holds (Python scalars): a
    column read in pieces keeps their union, checked with :func:`check_binary_values`."""
    arr = as_1d(values, name)
    if arr.dtype == np.bool_:
        if pos_label is not None and pos_label not in (True, 1):
            if pos_label in (False, 0):
                return (~arr).view(np.uint8), _present(arr, True, False)
            _bad_pos(name, pos_label, pos_name=pos_name)
        return np.ascontiguousarray(arr).view(np.uint8), _present(arr, True, False)
    if _has_missing(arr):
        raise ValueError(f"{name} contains missing values (NaN/None)")
    if arr.dtype.kind in "iuf" and pos_label in (None, 1):
        is_one = arr == 1
        if (is_one | (arr == 0)).all():
            return is_one.view(np.uint8), _present(is_one, 1, 0)
    values_seen = np.unique(arr)
    if len(values_seen) > 2:
        shown = ", ".join(show_value(v) for v in values_seen[:5].tolist())
        more = ", ..." if len(values_seen) > 5 else ""
        raise ValueError(
            f"{name} must be binary, got {len(values_seen)} distinct values ({shown}{more})"
        )
    if pos_label is None:
        if set(values_seen.tolist()) <= {-1, 1}:
            pos_label = 1
        else:
            raise ValueError(
                f"{name} has values {values_seen.tolist()}; "
                f"pass {pos_name} to say which is positive"
            )
    if pos_label not in values_seen.tolist():
        if len(values_seen) == 2 or require_pos:
            _bad_pos(name, pos_label, values_seen, pos_name)
    return (arr == pos_label).view(np.uint8), frozenset(values_seen.tolist())


def _present(is_true: np.ndarray, true_value, false_value) -> frozenset:
    """The values of a 0/1 or bool column that occur in it."""
    return frozenset(
        ([true_value] if is_true.any() else []) + ([false_value] if not is_true.all() else [])
    )


def as_binary_pair(y_true, y_pred, pos_label=None) -> tuple[np.ndarray, np.ndarray]:
    """`as_binary` of labels and predictions; a given `pos_label` must occur in one of them
    (a classifier may predict no positives, or a sample hold none)."""
    y = as_binary(y_true, "y_true", pos_label, require_pos=False)
    yhat = as_binary(y_pred, "y_pred", pos_label, require_pos=False)
    if pos_label is not None and pos_label not in (1, True) and not (y.any() or yhat.any()):
        raise ValueError(f"pos_label={show_value(pos_label)} occurs in neither y_true nor y_pred")
    return y, yhat


def check_binary_values(
    values_seen, name: str, pos_label=None, require_pos: bool = True,
    pos_name: str = "pos_label",
) -> None:  # fmt: skip
    """Refuse a column read in pieces (batches, files, partitions) that :func:`as_binary`
    would refuse whole: `values_seen`, the union of the pieces' distinct values. Each
    piece alone may pass (one holds only 'no', another only 'maybe'); their union may not.

    Examples
    --------
    >>> check_binary_values({"no", "yes"} | {"maybe"}, "label", pos_label="yes")
    Traceback (most recent call last):
    ...
    ValueError: label must be binary, got 3 distinct values ('maybe', 'no', 'yes')
    """
    if values_seen:
        as_binary(_values_array(values_seen), name, pos_label, require_pos, pos_name)


def _values_array(values) -> np.ndarray:
    """Python scalars as the column they came from: bool, integers, numbers or objects."""
    values = list(values)
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return np.array(values, dtype=bool)
    if all(isinstance(v, (int, np.integer)) for v in values):
        return np.array(values, dtype=np.int64)
    if all(isinstance(v, (int, float, np.number)) for v in values):
        return np.array(values, dtype=np.float64)
    return np.array(values, dtype=object)


def _bad_pos(name, pos_label, values_seen=None, pos_name="pos_label"):
    seen = "" if values_seen is None else f"; its values are {values_seen.tolist()}"
    given = (
        f"{pos_name}={show_value(pos_label)}"
        if pos_name.isidentifier()
        else (f"{pos_name} {show_value(pos_label)}")
    )
    raise ValueError(f"{given} does not occur in {name}{seen}")


class GroupCodes:
    """Group labels already coded as 0..K-1: pass it wherever a group array is accepted.

    ``codes[i]`` is the group of row i and ``labels[k]`` the label of code k (labels sorted, as
    :func:`as_groups` returns them). An audit codes a group column once with
    :func:`as_groups` and hands the result to every test, which then skips the coding.
    """

    __slots__ = ("codes", "labels")

    def __init__(self, codes: np.ndarray, labels: np.ndarray):
        self.codes = np.ascontiguousarray(codes, dtype=np.intp)
        self.labels = np.asarray(labels)

    def __len__(self) -> int:
        return len(self.codes)

    def to_numpy(self) -> np.ndarray:
        """The label of every row (materialised; the tests never need it)."""
        return self.labels[self.codes]


def sort_labels(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The labels sorted, and the rank of each: codes into `labels` become codes into the
    sorted labels by ``rank[codes]`` (the one sort of every group coder).

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair._validation import sort_labels
    >>> labels, rank = sort_labels(np.array(["b", "a", "c"], dtype=object))
    >>> labels.tolist(), rank.tolist()
    (['a', 'b', 'c'], [1, 0, 2])
    """
    order = np.argsort(labels, kind="stable")
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return labels[order], rank


def drop_unused(codes: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes and labels without the labels no row uses (the others keep their order).

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair._validation import drop_unused
    >>> codes, labels = drop_unused(np.array([2, 0, 2]), np.array(["a", "b", "c"]))
    >>> codes.tolist(), labels.tolist()
    ([1, 0, 1], ['a', 'c'])
    """
    used = np.bincount(codes, minlength=len(labels)) > 0
    if used.all():
        return codes, labels
    remap = np.cumsum(used) - 1
    return remap[codes].astype(np.intp), labels[used]


def as_groups(values, name: str = "group", min_groups: int = 2):
    """Code group labels as 0..K-1 in sorted label order: the one ingest of group columns.

    Returns (codes, labels): codes is an intp array, labels[k] the label of code k. Every
    family codes its group (and cluster) columns here, whatever they arrive as:

    - integer and boolean arrays: O(n) table lookup when the labels span a modest range;
    - float arrays, object/string arrays and pandas extension arrays (``string``,
      ``boolean``, ``Int64``, Arrow-backed): a hash coder (``pandas.factorize`` when pandas is
      importable, else a dictionary pass), then the K distinct labels are sorted, so codes
      and labels are those of ``np.unique`` without its O(n log n) sort of Python objects;
    - pandas Categoricals keep their category order (unused categories dropped);
    - :class:`GroupCodes` (already coded) pass through.

    Missing and non-finite labels are refused, never made into a group: None, NaN, pandas NA
    and NaT, empty or blank strings (how a blank cell of a file arrives), and +-inf each raise
    a ValueError naming the argument, the kind of value and how many rows have it. Labels of
    types that cannot be ordered together (e.g. 1 and "a") raise TypeError.
    """
    if isinstance(values, GroupCodes):
        codes, labels = values.codes, values.labels
    elif hasattr(values, "cat") and hasattr(values.cat, "codes"):
        codes = np.asarray(values.cat.codes, dtype=np.intp)
        if (codes < 0).any():
            _refuse_missing(name, "missing values (NaN/None/NA)", int((codes < 0).sum()))
        labels = np.asarray(values.cat.categories)
        check_label_values(labels, name, lambda k: int((codes == k).sum()))
        codes, labels = drop_unused(codes, labels)
    else:
        codes, labels = _code_values(values, name)
    if len(labels) < min_groups:
        raise ValueError(
            f"{name} must contain at least {min_groups} groups, got {len(labels)}"
            + (f" ({labels.tolist()[0]!r})" if len(labels) == 1 else "")
        )
    return np.ascontiguousarray(codes), labels


def _code_values(values, name: str):
    """(codes, sorted labels) of a non-categorical column."""
    if values is None:
        raise TypeError(f"{name} is required, got None")
    if _is_extension_array(values):  # pandas string/boolean/Int64/Arrow: keep NA visible
        if len(values) == 0:
            raise ValueError(f"{name} is empty")
        if getattr(values.dtype, "storage", None) == "python":  # strings held as objects
            values = values.to_numpy(dtype=object)
        return _hash_code(values, name)
    arr = as_1d(values, name)
    kind = arr.dtype.kind
    if kind == "U" and isinstance(values, (list, tuple)):  # np.asarray turns NaN into "nan"
        n_nan = sum(1 for v in values if isinstance(v, float) and v != v)
        if n_nan:
            _refuse_missing(name, "missing values (NaN)", n_nan)
    if kind in "iub":
        coded = _lookup_code(arr)
        if coded is not None:
            return coded
    if kind in "fc":
        nan = np.isnan(arr)
        if nan.any():
            _refuse_missing(name, "missing values (NaN)", int(nan.sum()))
        inf = np.isinf(arr)
        if inf.any():
            _refuse_missing(name, "infinite values", int(inf.sum()))
    if kind not in "iubfcUSOmM":
        raise TypeError(f"{name} must hold labels (numbers, strings or booleans), got {arr.dtype}")
    return _hash_code(arr, name)


def _is_extension_array(values) -> bool:
    """pandas Series/Index/array with an extension dtype (its NA is not a numpy value)."""
    dtype = getattr(values, "dtype", None)
    return dtype is not None and not isinstance(dtype, np.dtype) and hasattr(values, "isna")


def _lookup_code(arr: np.ndarray):
    """Integer labels spanning a modest range: codes by table lookup, O(n), no sort."""
    lo, hi = int(arr.min()), int(arr.max())
    if hi - lo >= MAX_DIRECT_RANGE:
        return None
    shifted = arr.astype(np.intp, copy=False)
    if lo != 0:
        shifted = shifted - lo
    present = np.bincount(shifted, minlength=hi - lo + 1) > 0
    if present.all():  # labels lo..hi all occur: the shifted values are the codes
        codes = shifted
    else:  # np.take: several times faster than fancy indexing here
        codes = np.take(np.cumsum(present) - 1, shifted)
    labels = (np.flatnonzero(present) + lo).astype(arr.dtype)
    return codes, labels


def _hash_code(values, name: str):
    """Hash-code then sort the K distinct labels: the codes and labels of np.unique."""
    arr = values if isinstance(values, np.ndarray) else None
    shared = None
    if arr is not None and arr.dtype.kind in "OUS" and len(arr) >= _MIN_FAST_ROWS:
        shared = _object_identity_codes(arr) if arr.dtype.kind == "O" else _bytes_codes(arr)
    if shared is not None:  # K distinct values found cheaply: code those by value
        row_codes, distinct = shared
        value_codes, uniques = _factorize(distinct)
    else:
        row_codes, uniques = _factorize(values)
        value_codes = np.arange(len(uniques))

    def rows_with(value_code_mask):  # rows whose value has one of the masked codes
        return int(value_code_mask[row_codes].sum())

    if (value_codes < 0).any() or (shared is None and len(row_codes) and row_codes.min() < 0):
        if shared is None:
            n_missing = int((row_codes < 0).sum())
        else:
            n_missing = int(np.isin(row_codes, np.flatnonzero(value_codes < 0)).sum())
        _refuse_missing(name, "missing values (NaN/None/NA)", n_missing)
    if uniques.dtype.kind in "OU" or (uniques.dtype.kind == "f" and arr is None):
        # (float arrays were checked for NaN and inf before coding)
        check_label_values(uniques, name, lambda k: rows_with(value_codes == k))
    try:
        labels, rank = sort_labels(uniques)  # rank: code of each unique in sorted order
    except TypeError as exc:
        raise TypeError(f"{name} mixes label types that cannot be ordered") from exc
    if uniques.dtype.kind == "O" and len(labels) > 1:
        labels, rank = _merge_equal_labels(labels, rank)
    final = np.take(rank, value_codes)  # sorted code of each value code
    if np.array_equal(final, np.arange(len(final))):
        return row_codes, labels  # values first seen in sorted order: codes already final
    return np.take(final, row_codes), labels


def _factorize(values):
    """(codes, uniques) by hashing, in order of first appearance; code -1 marks a missing value.

    pandas.factorize when pandas is importable, else one dictionary pass.
    """
    pd = _pandas()
    if pd is not None:
        codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=True)
        uniques = np.asarray(uniques.to_numpy() if hasattr(uniques, "to_numpy") else uniques)
        return np.asarray(codes, dtype=np.intp), uniques
    arr = np.asarray(values)
    first: dict = {}
    missing = -1
    codes = np.fromiter(
        (
            missing
            if v is None or (isinstance(v, float) and v != v)
            else first.setdefault(v, len(first))
            for v in arr.tolist()
        ),
        np.intp,
        len(arr),
    )
    uniques = np.empty(len(first), dtype=arr.dtype)
    uniques[:] = list(first)
    return codes, uniques


#: Below this many rows the plain hash coder is as fast as the shortcuts below.
_MIN_FAST_ROWS = 4096


def _object_identity_codes(arr: np.ndarray):
    """Codes by object identity when the rows share few distinct objects, else None.

    Strings from pandas readers, Categoricals and most generators are a handful of objects
    repeated; coding their addresses (integers) is an order of magnitude faster than hashing
    every string. The distinct objects are then coded by value (equal strings held in
    different objects still meet there).
    """
    arr = np.ascontiguousarray(arr)
    n = len(arr)
    addresses = np.frombuffer((ctypes.c_size_t * n).from_address(arr.ctypes.data), np.uintp)
    # mostly distinct objects (judged on a prefix first): hashing by value is no slower
    if len(_integer_codes(addresses[:_MIN_FAST_ROWS])[1]) > _MIN_FAST_ROWS // 8:
        return None
    codes, first = _integer_codes(addresses)
    if len(first) > n // 8:
        return None
    return codes, arr[first]


def _bytes_codes(arr: np.ndarray):
    """Codes of a fixed-width string array ('U'/'S') from a hash of its bytes, or None.

    A polynomial hash of each row's code units is coded as an integer, then every row is
    compared with its group's representative, so a hash collision cannot merge two labels
    (on a collision the caller falls back to hashing the values).
    """
    if arr.dtype.itemsize == 0:
        return None
    arr = np.ascontiguousarray(arr)
    unit = np.uint32 if arr.dtype.kind == "U" else np.uint8
    units = arr.view(unit).reshape(len(arr), -1)
    h = np.zeros(len(arr), dtype=np.uint64)
    for j in range(units.shape[1]):
        h *= np.uint64(1_000_003)
        h ^= units[:, j]
    codes, first = _integer_codes(h)
    representatives = arr[first]
    if not np.array_equal(arr, np.take(representatives, codes)):
        return None
    return codes, representatives


def _integer_codes(values: np.ndarray):
    """(codes, first row of each code) of an integer array, by hashing when possible."""
    pd = _pandas()
    if pd is not None:
        codes, uniques = pd.factorize(values.view(np.int64), sort=False)
        codes = np.asarray(codes, dtype=np.intp)
        # codes number values in order of first appearance: code k first occurs where the
        # running maximum of the codes reaches k
        first = np.searchsorted(np.maximum.accumulate(codes), np.arange(len(uniques)))
        return codes, first
    _, first, codes = np.unique(values, return_index=True, return_inverse=True)
    return codes.astype(np.intp, copy=False).ravel(), first


def _merge_equal_labels(labels, rank):
    """Distinct objects that compare equal (1, 1.0, True) form one group, as in np.unique."""
    same = labels[1:] == labels[:-1]
    if not np.any(same):
        return labels, rank
    keep = np.concatenate(([True], ~same.astype(bool)))
    merged = np.cumsum(keep) - 1  # new code of each sorted position
    return labels[keep], merged[rank]


def check_label_values(labels: np.ndarray, name: str, count_rows) -> None:
    """Refuse blank strings and non-finite numbers among the distinct labels.

    count_rows(k) is the number of rows holding labels[k].
    """
    for k, v in enumerate(labels.tolist()):
        if isinstance(v, str) and not v.strip():
            kind = "empty or blank labels (missing values, e.g. a blank cell of a file)"
        elif isinstance(v, (float, np.floating)) and not np.isfinite(v):
            kind = "missing values (NaN)" if v != v else "infinite values"
        else:
            continue
        _refuse_missing(name, kind, count_rows(k))


def _refuse_missing(name: str, kind: str, count: int) -> None:
    raise ValueError(
        f"{name} contains {kind} in {count:,} row{'s' * (count != 1)}; a group label must be "
        "present and finite: drop those rows or give them a label of their own"
    )


_PANDAS: list = []


def _pandas():
    """pandas if importable (imported once, lazily), else None."""
    if not _PANDAS:
        try:
            import pandas
        except ImportError:
            pandas = None
        _PANDAS.append(pandas)
    return _PANDAS[0]


def check_same_length(**arrays) -> int:
    """Raise ValueError unless every given array (None skipped) has the same length."""
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise ValueError(f"inputs must have the same length: {detail}")
    return next(iter(lengths.values()))


def check_int(value, name: str, minimum: int, maximum: int | None = None) -> int:
    """Return `value` as int, raising TypeError/ValueError unless an integer in range.

    numpy integers are accepted like Python ints.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {show_value(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {int(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum:,}, got {int(value):,}")
    return int(value)


MAX_POINTS = 10**6
"""Largest number of grid points or bins: finer than any data can resolve, and at most
8 MB an array."""

MAX_RESAMPLES = 10**8
"""Largest number of permutations or bootstrap samples: p-values to 1e-8, and at most
800 MB for one comparison's null distribution."""


def check_resamples(value, name: str, minimum: int = 1) -> int:
    """`check_int` for a number of permutations or bootstrap samples (at most MAX_RESAMPLES),
    checked before anything is allocated."""
    return check_int(value, name, minimum, MAX_RESAMPLES)


def show_value(value) -> str:
    """repr of a value as the user wrote it: numpy scalars shown as Python scalars."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def check_choice(value, name: str, choices) -> str:
    """Raise ValueError unless value is one of `choices`."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {show_value(value)}")
    return value


def check_flag(value, name: str) -> bool:
    """True or False (numpy booleans too), else TypeError naming the argument."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {show_value(value)}")
    return bool(value)


def check_level(value, name: str) -> float:
    """A probability strictly between 0 and 1 (a confidence level or alpha)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in (0, 1), got {show_value(value)}")
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {show_value(value)}")
    return float(value)


#: The threshold of scores in [0, 1] (probabilities) when none is given.
DEFAULT_THRESHOLD = 0.5


def score_threshold(scores: np.ndarray, threshold, what: str, option: str) -> float:
    """The threshold that turns `scores` into predictions (``scores >= threshold``).

    None means 0.5 for scores in [0, 1]; scores outside [0, 1] (a 1-10 risk score, a logit)
    are not probabilities, 0.5 means nothing for them (a 1-10 score would make every
    prediction positive), so the threshold must be given: ValueError naming `what` (the
    scores) and `option` (the argument or flag that sets the threshold). A given threshold
    must be finite.
    """
    if threshold is not None:
        if not (isinstance(threshold, int | float | np.number) and np.isfinite(threshold)):
            raise ValueError(f"{option} must be a finite number, got {show_value(threshold)}")
        return float(threshold)
    if scores.size == 0:
        return DEFAULT_THRESHOLD
    low, high = float(scores.min()), float(scores.max())
    if 0.0 <= low and high <= 1.0:
        return DEFAULT_THRESHOLD
    share = float(np.mean(scores >= DEFAULT_THRESHOLD))
    raise ValueError(
        f"{what} has values outside [0, 1] ({low:g} to {high:g}): not probabilities, so the "
        f"default threshold {DEFAULT_THRESHOLD:g} is arbitrary (it would make {share:.0%} "
        f"of the predictions positive); give {option} (predictions are score >= threshold)"
    )
