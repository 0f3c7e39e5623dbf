"""Text user ids of at most 8 bytes ordered by a radix sort of packed keys (#28).

The arrow engine orders the rows by user before the parity passes; `_packed_ids` and
`_order_by_packed` must give what Arrow's hash of the ids, a sort of the distinct ids and
a counting sort of the codes give (`_text_codes`, `cluster_order`): the same rows, users
and labels.
"""

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from fastfair import _kernel_sums  # noqa: E402
from fastfair.engines import clusters  # noqa: E402


def _reference(ids):
    codes, labels = clusters._text_codes(ids)
    order, starts = _kernel_sums.cluster_order(codes, len(labels))
    return order, starts, [labels[k] for k in range(len(labels))]


def _short_text_order(ids):
    packed = clusters._packed_ids(ids)
    return None if packed is None else clusters._order_by_packed(*packed)


def _random_ids(rng, n, alphabet, max_len):
    """n ids of 1..max_len characters drawn from `alphabet`, about n / 4 distinct."""
    pool = ["".join(rng.choice(alphabet, rng.integers(1, max_len + 1))) for _ in range(n // 4)]
    return [pool[k] for k in rng.integers(0, len(pool), n)]


@pytest.mark.parametrize("kind", ["string", "large_string"])
@pytest.mark.parametrize(
    "alphabet",
    [list("0123456789"), list("abXY-_ "), ["é", "ü", "a", "z", "€"]],
    ids=["digits", "ascii", "utf8"],
)
def test_short_text_order_equals_hash_and_sort(kind, alphabet):
    """Ids of 1 to 8 bytes (prefixes of each other, UTF-8 of several bytes), several
    chunks, one of them sliced: same order, user starts and sorted labels."""
    rng = np.random.default_rng(len(alphabet))
    # at most 8 bytes, at most 64 - 12 varying bits (3,000 rows: 12 bits of row index)
    max_len = {"0": 8, "a": 6, "é": 2}[alphabet[0]]
    values = _random_ids(rng, 3000, alphabet, max_len)
    values = [v if v.strip() else "x" + v for v in values]  # no blank id
    sliced = pa.array(["dropped", *values[1000:2000], "dropped"]).slice(1, 1000)
    ids = pa.chunked_array([pa.array(values[:1000]), sliced, pa.array(values[2000:])])
    ids = ids.cast(getattr(pa, kind)())
    order, starts, labels = _short_text_order(ids)
    want_order, want_starts, want_labels = _reference(ids.cast(pa.string()))
    np.testing.assert_array_equal(order, want_order)
    np.testing.assert_array_equal(starts, want_starts)
    assert [labels[k] for k in range(len(labels))] == want_labels
    assert order.dtype == np.int32 and len(labels) == len(set(values))


@pytest.mark.parametrize(
    "values",
    [["abcdefghi", "a"], ["a\x00", "a"], ["éééé", "ab"]],
    ids=["nine bytes", "NUL byte", "eight-byte UTF-8 then more"],
)
def test_ids_that_do_not_pack_fall_back(values):
    ids = pa.chunked_array([pa.array(values + ["abcdefghij"] * (values[0] == "éééé"))])
    assert _short_text_order(ids) is None


def test_too_many_varying_bits_fall_back():
    """Random 8-character ids vary in 7 bits of each byte (56) and 5,000 rows need 13 bits
    of row index: more than 64, so the hash path takes over, with the same result."""
    rng = np.random.default_rng(8)
    alphabet = list("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    values = ["".join(rng.choice(alphabet, 8)) for _ in range(5000)]
    ids = pa.chunked_array([pa.array(values)])
    assert _short_text_order(ids) is None
    rows = clusters.UserRows(len(values), clustered=True)
    rows.id_type, rows.id_chunks = pa.string(), [ids.chunks[0]]
    order, starts, labels = rows._user_order()
    np.testing.assert_array_equal(order, np.argsort(values, kind="stable"))
    assert len(starts) == len(set(values)) + 1 and labels[0] == min(values)


def test_one_id_and_equal_ids():
    ids = pa.chunked_array([pa.array(["same"] * 5)])
    order, starts, labels = _short_text_order(ids)
    assert order.tolist() == [0, 1, 2, 3, 4] and starts.tolist() == [0, 5]
    assert labels[0] == "same" and len(labels) == 1


def test_blank_ids_are_refused_as_by_the_hash_path():
    ids = pa.chunked_array([pa.array(["u1", " ", "u2", "", " "])])
    with pytest.raises(ValueError) as fast:
        _short_text_order(ids)
    with pytest.raises(ValueError) as slow:
        clusters._text_codes(ids)
    assert str(fast.value) == str(slow.value) and "in 3 rows" in str(fast.value)


def test_user_rows_order_short_and_long_text_ids_alike():
    """The engine's rows by user are the same whether the ids pack (at most 8 bytes) or
    go through Arrow's hash (a 9-byte suffix added to every id keeps their order)."""
    from fastfair._validation import GroupCodes

    rng = np.random.default_rng(3)
    n = 2000
    user = rng.integers(0, 300, n)
    y, s = rng.integers(0, 2, n).astype(np.uint8), rng.random(n)
    group = GroupCodes(np.zeros(n, dtype=np.intp), np.array(["a"], dtype=object))
    got = []
    for suffix in ("", "-long-ids"):
        rows = clusters.UserRows(n, clustered=True)
        rows.add(y, s, group, pa.array([f"u{v:03d}{suffix}" for v in user]))
        chunks, labels = rows.sorted_chunks(["a"])
        parts = [np.concatenate(c) for c in zip(*chunks())]
        got.append((parts, [labels[k][:4] for k in range(len(labels))]))
    for a, b in zip(got[0][0], got[1][0]):
        np.testing.assert_array_equal(a, b)
    assert got[0][1] == got[1][1] == [f"u{v:03d}" for v in np.unique(user)]
