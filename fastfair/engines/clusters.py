"""Predictive parity per user beyond memory: kernel sums from whole-cluster chunks, merged.

The clustered Nadaraya-Watson test (:func:`fastfair.predictive_parity_test` with
``cluster``) needs, per user m, the sums A_mj and B_mj over the user's rows; everything
after that is a sum over users (``fastfair._kernel_sums``): the sums of chunks of whole
users add up to the sums of all users (``max_b``: the maximum). So a chunk may hold any
set of users as long as each user's rows are all in it. The engine provides that grouping:
a sort by user (``--engine arrow``: a counting sort of the user codes) or a range
partitioning on user (``--engine dask``); this module cuts the grouped rows into chunks at user
boundaries and runs the compiled kernels on each chunk, never the rows of all users at once
in float64 and never a spill of its own.

:class:`SortedClusters` stands in for ``_clustered.Prepared`` in ``parity.run_prepared``:
same group labels, row and user counts, the same systematic row sample (every
ceil(n / 200,000)-th row in user order, for the grid quantiles and the rule-of-thumb
bandwidth) and kernel passes that map over the chunks and merge. Results equal the
in-memory test's (counts identical, floats to 1e-12 relative: sums merged in another order).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from fastfair import _kernel_sums
from fastfair._clustered import ClusterCounts, conflict_error, kernel_pass, leverage_pass
from fastfair.engines.summaries import release_memory

__all__ = ["SortedClusters", "UserRows", "group_rows", "merge_sums", "whole_clusters"]

#: Rows per chunk handed to the kernels (whole users: a chunk may run over by one user).
CHUNK_ROWS = 1 << 20


def merge_sums(a: dict, b: dict) -> dict:
    """Sum of two kernel-sum dicts of disjoint sets of users (``max_b``: the maximum)."""
    return {k: np.maximum(v, b[k]) if k == "max_b" else v + b[k] for k, v in a.items()}


def whole_clusters(
    pieces: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Re-cut (y, score, group, user) pieces sorted by user into chunks of whole users.

    The last user of a piece may continue in the next piece: its rows are carried over.
    """
    carry = None
    for piece in pieces:
        if carry is not None:
            piece = tuple(np.concatenate([c, p]) for c, p in zip(carry, piece))
        user = piece[3]
        if len(user) == 0:
            carry = None
            continue
        change = np.flatnonzero(user[1:] != user[:-1])
        cut = int(change[-1]) + 1 if change.size else 0
        carry = tuple(x[cut:] for x in piece)
        if cut:
            yield tuple(x[:cut] for x in piece)
    if carry is not None and len(carry[3]):
        yield carry


def chunk_arrays(y, score, group, user, weighting: str):
    """Kernel inputs of one chunk of whole users sorted by user.

    Returns (score, y, starts, cluster_group, cluster_weight, conflict): cluster m is rows
    starts[m]:starts[m + 1] and conflict is the index of a user whose rows span several
    groups, or -1.
    """
    n = len(user)
    starts = np.concatenate([[0], np.flatnonzero(user[1:] != user[:-1]) + 1, [n]])
    starts = starts.astype(np.intp)
    counts = np.diff(starts)
    cgroup = np.ascontiguousarray(group[starts[:-1]], dtype=np.intp)
    spans = np.flatnonzero(
        np.add.reduceat((group != np.repeat(cgroup, counts)).astype(np.int64), starts[:-1])
    )
    weight = 1.0 / counts if weighting == "per_user" else np.ones(len(counts))
    return (
        np.ascontiguousarray(score, dtype=np.float64),
        np.ascontiguousarray(y, dtype=np.float64),
        starts,
        cgroup,
        weight,
        spans,
    )


class SortedClusters(ClusterCounts):
    """Users' rows in chunks of whole users: the batched stand-in for ``_clustered.Prepared``.

    Parameters
    ----------
    labels : group labels (codes 0..K-1 in the chunks)
    n_rows, n_clusters : rows and users per group
    sample : (score, weight, group) of the systematic row sample (see the module docstring)
    map_reduce : ``map_reduce(fn)`` applies fn to every chunk (score, y, starts,
        cluster_group, cluster_weight, ...) and returns the :func:`merge_sums` of the results
    """

    n_dropped = 0

    def __init__(
        self, labels, n_rows, n_clusters, sample, map_reduce: Callable, weighting, clustered=True
    ):
        self.clustered = clustered
        self.labels = np.asarray(labels)
        self.n_rows = np.asarray(n_rows, dtype=np.int64)
        self.n_clusters = np.asarray(n_clusters, dtype=np.int64)
        self._sample = sample
        self._map_reduce = map_reduce
        self.weighting = weighting

    @property
    def size(self) -> int:
        return int(self.n_rows.sum())

    def row_sample(self):
        return self._sample

    def kernel_sums(self, grid, h, kernel, covariance, n_threads) -> dict:
        from functools import partial

        fn = partial(
            kernel_pass, grid=np.ascontiguousarray(grid), h=float(h), kernel=kernel,
            covariance=bool(covariance), n_groups=self.n_groups, n_threads=n_threads,
        )  # fmt: skip
        return self._map_reduce(fn)

    def leverage_sums(self, grid, h, sum_b, estimate, kernel, covariance, n_threads) -> dict:
        from functools import partial

        fn = partial(
            leverage_pass, grid=np.ascontiguousarray(grid), h=float(h),
            sum_b=np.ascontiguousarray(sum_b), estimate=np.ascontiguousarray(estimate),
            kernel=kernel, covariance=bool(covariance), n_groups=self.n_groups,
            n_threads=n_threads,
        )  # fmt: skip
        return self._map_reduce(fn)


def sample_step(n_rows: int) -> int:
    """Every step-th row in user order is in the row sample (parity's QUANTILE_ROWS)."""
    from fastfair._clustered import QUANTILE_ROWS

    return max(1, math.ceil(n_rows / QUANTILE_ROWS))


def from_ordered_chunks(
    chunks: Callable[[], Iterator], labels, *, n_total: int, weighting, clustered=True,
    user_labels=None, column=None,
):  # fmt: skip
    """SortedClusters of chunks met in user order (one process): the first pass counts rows
    and users per group, checks that no user spans groups, and takes the row sample.

    `chunks()` yields (y, score, group, user) chunks of whole users, in increasing user
    order, each time it is called; group codes index `labels`; users are values, or codes
    into `user_labels` (named in messages, with the user `column`).
    """
    K = len(labels)
    step = sample_step(n_total)
    n_rows = np.zeros(K, dtype=np.int64)
    n_clusters = np.zeros(K, dtype=np.int64)
    xs, ws, gs = [], [], []
    offset = 0
    bad, first_bad = 0, None
    for y, s, g, u in chunks():
        score, _, starts, cgroup, weight, spans = chunk_arrays(y, s, g, u, weighting)
        if spans.size:
            bad += spans.size
            if first_bad is None:
                m = int(spans[0])
                rows = slice(starts[m], starts[m + 1])
                other = g[rows][g[rows] != cgroup[m]][0]
                user = u[starts[m]] if user_labels is None else user_labels[u[starts[m]]]
                first_bad = (user, labels[cgroup[m]], labels[other])
            continue
        counts = np.diff(starts)
        n_rows += np.bincount(cgroup, weights=counts, minlength=K).astype(np.int64)
        n_clusters += np.bincount(cgroup, minlength=K)
        first = (-offset) % step
        idx = np.arange(first, len(score), step)
        cl = np.searchsorted(starts, idx, side="right") - 1
        xs.append(score[idx])
        ws.append(weight[cl])
        gs.append(cgroup[cl])
        offset += len(score)
    if first_bad is not None:
        raise conflict_error(*first_bad, bad, column)
    if offset != n_total:
        raise RuntimeError(f"expected {n_total} rows in user order, met {offset}")
    sample = tuple(np.concatenate(a) if a else np.zeros(0) for a in (xs, ws, gs))
    sample = (sample[0], sample[1], sample[2].astype(np.intp))

    def map_reduce(fn):
        total = None
        for y, s, g, u in chunks():
            part = fn(chunk_arrays(y, s, g, u, weighting))
            total = part if total is None else merge_sums(total, part)
        return total

    return SortedClusters(labels, n_rows, n_clusters, sample, map_reduce, weighting, clustered)


# --------------------------------------------------------------------------------------
# One process: the rows kept in compact columns, sorted by user once (--engine arrow)


_INT32 = np.iinfo(np.int32)


class UserRows:
    """Label, score, group and user of every row, filled batch by batch into compact
    preallocated columns (label 1 byte, score 8, group 2, integer user id 4, or 8 when an
    id needs it), then sorted by user once (:meth:`sorted_chunks`): the memory is these
    columns, never a row in Python.

    Integer user ids are coded by a table lookup into int32 codes (in place) and the rows
    ordered by a counting sort (:func:`fastfair._kernel_sums.cluster_order`, int32 order);
    other ids (text, floats) are kept as Arrow arrays and coded by Arrow's hash (text) or
    :func:`fastfair._validation.as_groups`. Without a user column every row is its own
    user, in file order. `column`: the user column's name, for messages.

    With `spill_dir`, the score column and text or float ids go to files in that
    directory as they are read (they are needed only for the sort by user): the ids are
    read back to be coded, then the score once the other columns are in user order, so
    at 10^8 rows the scores (0.8 GB) and the text ids (about 1.2 GB) are never in memory
    beside each other or beside the exact AUC's sorted runs.
    """

    def __init__(
        self, n_rows: int, clustered: bool, spill_dir: str | None = None,
        column: str | None = None,
    ):  # fmt: skip
        import tempfile

        self.n_rows, self.clustered, self.filled = n_rows, clustered, 0
        self.column = column
        self.y = np.empty(n_rows, dtype=np.uint8)
        self.g = np.empty(n_rows, dtype=np.int16)
        self.group_index: dict = {}  # group label -> its code in g (first appearance)
        self.ids = None  # integer user ids (preallocated on the first batch) ...
        self.id_chunks: list = []  # ... or the Arrow arrays of other ids
        self.id_type = None  # ... of this type
        self.lo = self.hi = None
        self.user_labels = self.starts = None  # set by the sort by user
        self.spilled = None  # files holding the score and the other ids
        if spill_dir is None:
            self.s = np.empty(n_rows, dtype=np.float64)
        else:
            self.s = None
            self.spilled = {
                "s": tempfile.TemporaryFile(dir=spill_dir),
                "ids": tempfile.TemporaryFile(dir=spill_dir),
                "writer": None,
            }

    def add(self, y: np.ndarray, s: np.ndarray, groups, ids=None) -> None:
        """Append one batch: binary labels, finite scores, its group codes (GroupCodes or
        label values) and its user ids (an Arrow array without nulls, or None)."""
        from fastfair._validation import GroupCodes, as_groups

        a, b = self.filled, self.filled + len(y)
        if b > self.n_rows:
            raise RuntimeError("the data changed while it was read (more rows than counted)")
        if not isinstance(groups, GroupCodes):
            groups = GroupCodes(*as_groups(groups, "group", min_groups=1))
        index = self.group_index
        local = [index.setdefault(v, len(index)) for v in groups.labels.tolist()]
        if len(index) > np.iinfo(self.g.dtype).max:
            self.g = self.g.astype(np.int32)
        np.take(np.asarray(local, dtype=self.g.dtype), groups.codes, out=self.g[a:b])
        self.y[a:b] = y
        if self.spilled is None:
            self.s[a:b] = s
        else:
            np.ascontiguousarray(s, dtype=np.float64).tofile(self.spilled["s"])
        if self.clustered:
            self._add_ids(ids, a, b)
        self.filled = b

    def _add_ids(self, ids, a: int, b: int) -> None:
        import pyarrow as pa

        if pa.types.is_dictionary(ids.type):
            ids = ids.dictionary_decode()
        if pa.types.is_integer(ids.type) and self.id_type is None and len(ids):
            values = ids.to_numpy(zero_copy_only=False)
            lo, hi = int(values.min()), int(values.max())
            self.lo = lo if self.lo is None else min(lo, self.lo)
            self.hi = hi if self.hi is None else max(hi, self.hi)
            small = _INT32.min <= self.lo and self.hi <= _INT32.max
            if self.ids is None:  # 4 bytes an id while they fit, then coded in place
                self.ids = np.empty(self.n_rows, dtype=np.int32 if small else np.int64)
            elif not small and self.ids.dtype == np.int32:
                self.ids = self.ids.astype(np.int64)  # once, when an id needs 64 bits
            self.ids[a:b] = values
            return
        if len(ids) == 0:
            return
        first = self.id_type
        if self.ids is not None or (first is not None and first != ids.type):
            was = first if first is not None else pa.int64()
            if _is_text(was) != _is_text(ids.type):
                raise TypeError(
                    f"the cluster column holds {ids.type} values here and {was} values "
                    "before: give it one type in every file"
                )
            if self.ids is not None:  # integer ids so far: from here on floats, as Arrow
                self.id_type = ids.type
                self._keep_ids(pa.array(self.ids[:a]).cast(ids.type))
                self.ids = None
            else:
                ids = ids.cast(first)
        self.id_type = ids.type
        self._keep_ids(ids)

    def _keep_ids(self, ids) -> None:
        """Keep one batch of Arrow ids, in memory or in the spill file."""
        if self.spilled is None:
            self.id_chunks.append(ids)
            return
        import pyarrow as pa

        if self.spilled["writer"] is None:
            schema = pa.schema([("id", self.id_type)])
            self.spilled["writer"] = pa.ipc.new_stream(self.spilled["ids"], schema)
        self.spilled["writer"].write_batch(pa.record_batch([ids], names=["id"]))

    def _kept_ids(self):
        """The Arrow ids kept (a chunked array; read back from the spill file), released
        from this object."""
        import pyarrow as pa

        chunks, self.id_chunks = self.id_chunks, []
        if self.spilled is not None and self.spilled["writer"] is not None:
            self.spilled["writer"].close()
            self.spilled["writer"] = None
            handle = self.spilled["ids"]
            handle.flush()
            handle.seek(0)
            with pa.ipc.open_stream(handle) as reader:
                chunks = reader.read_all().column(0).chunks
            handle.close()
        return pa.chunked_array(chunks, self.id_type or pa.int64())

    def _load_scores(self) -> None:
        """The score column back from its spill file (once)."""
        if self.s is None and self.spilled is not None:
            handle = self.spilled["s"]
            handle.seek(0)
            self.s = np.fromfile(handle, dtype=np.float64, count=self.filled)
            handle.close()

    def _sort_by_user(self) -> None:
        """Once: each column gathered in user order, the unsorted one freed; the users'
        first rows in ``starts`` (without a user column: every row its own user)."""
        if not self.clustered or self.starts is not None:
            self._load_scores()
            return
        order, self.starts, self.user_labels = self._user_order()
        for name in ("g", "y", "s"):  # the score (8 bytes a row) last
            if name == "s":
                self._load_scores()
            setattr(self, name, _gather(getattr(self, name), order))

    def _user_order(self):
        """(int32 order of the rows by user, the file order kept within a user; each user's
        first row in that order, then n; the sorted ids); frees the raw ids. Text ids of at
        most 8 bytes are sorted as 64-bit keys (:func:`_packed_ids`), other ids coded
        (:meth:`_user_codes`) and the codes counting-sorted."""
        if self.ids is None and self.id_type is not None and _is_text(self.id_type):
            ids = self._kept_ids()
            packed = _packed_ids(ids)
            if packed is not None:
                del ids  # (at 10^8 rows, 1.2 GB that the sort by key does not need)
                release_memory()
                return _order_by_packed(*packed)
            codes, labels = _text_codes(ids)
            del ids
            release_memory()  # the ids and Arrow's hash table
        else:
            codes, labels = self._user_codes()
        order, starts = _kernel_sums.cluster_order(codes, len(labels))
        return order, starts, labels

    def _user_codes(self):
        """(int32 user codes in sorted id order, the sorted ids) of ids other than text;
        frees the raw ids (int32 ids are overwritten by their codes)."""
        from fastfair._validation import MAX_DIRECT_RANGE, as_groups

        n = self.filled
        if self.ids is not None and self.hi - self.lo < max(MAX_DIRECT_RANGE, n // 4):
            ids, lo, self.ids = self.ids[:n], self.lo, None
            present = np.zeros(self.hi - lo + 1, dtype=bool)
            for a in range(0, n, CHUNK_ROWS):
                present[ids[a : a + CHUNK_ROWS] - lo] = True
            rank = (np.cumsum(present) - 1).astype(np.int32)
            codes = ids if ids.dtype == np.int32 else np.empty(n, dtype=np.int32)
            for a in range(0, n, CHUNK_ROWS):  # (in place for int32 ids)
                chunk = ids[a : a + CHUNK_ROWS] - lo
                np.take(rank, chunk, out=codes[a : a + CHUNK_ROWS], mode="clip")
            return codes, np.flatnonzero(present) + lo
        if self.ids is not None:
            values, self.ids = self.ids[:n], None
        else:
            values = self._kept_ids().to_numpy()
        codes, labels = as_groups(values, "cluster", min_groups=1)
        return codes.astype(np.int32), labels

    def sorted_chunks(
        self, tested_labels, *, positions=None, last: bool = True
    ) -> tuple[Callable[[], Iterator], object]:
        """The rows of the groups `tested_labels` (group k: ``tested_labels[k]``) sorted by
        user, the file order kept within a user: (chunks, user labels) for
        :func:`from_ordered_chunks`. Each column is gathered once, then the unsorted one
        freed: at most one column is held twice. `positions`: the rows' groups are tuples
        (combinations of several attributes) and a row's label is its parts at these
        positions (one position: that part); `last`: the columns are freed for the chunks
        (no later call), else kept, sorted, for the next one."""
        if self.filled != self.n_rows:
            raise RuntimeError(f"expected {self.n_rows} rows, read {self.filled}")
        if self.y is None:
            raise RuntimeError("the rows were freed by an earlier call with last=True")
        tested = {v: k for k, v in enumerate(tested_labels)}
        gmap = np.full(max(len(self.group_index), 1), -1, dtype=self.g.dtype)
        for label, code in self.group_index.items():
            gmap[code] = tested.get(_part(label, positions), -1)
        self._sort_by_user()
        user_labels, starts = self.user_labels, self.starts
        y, s, g = self.y, self.s, np.take(gmap, self.g)
        if last:
            self.y = self.s = self.g = None
        keep = g >= 0
        if not keep.all():  # rows of untested groups leave; users keep their codes
            if starts is not None:
                kept_before = np.zeros(len(keep) + 1, dtype=np.int32)  # (n < 2^31)
                np.cumsum(keep, out=kept_before[1:])
                starts = kept_before[starts].astype(np.intp)
                del kept_before
            y, s, g = y[keep], s[keep], g[keep]
        del keep
        n = len(y)

        def chunks():
            if starts is None:  # every row its own user
                for a in range(0, n, CHUNK_ROWS):
                    b = min(a + CHUNK_ROWS, n)
                    yield y[a:b], s[a:b], g[a:b], np.arange(a, b)
                return
            cuts = np.unique(np.searchsorted(starts, np.arange(0, n, CHUNK_ROWS)))
            cuts = np.append(cuts[cuts < len(starts) - 1], len(starts) - 1)
            for m0, m1 in itertools.pairwise(cuts):
                a, b = starts[m0], starts[m1]
                if a == b:
                    continue
                user = np.repeat(np.arange(m0, m1, dtype=np.int32), np.diff(starts[m0 : m1 + 1]))
                yield y[a:b], s[a:b], g[a:b], user

        return chunks, user_labels


def _part(label, positions):
    """A label of several attributes (a tuple) reduced to the parts at `positions`."""
    if positions is None:
        return label
    if len(positions) == 1:
        return label[positions[0]]
    return tuple(label[p] for p in positions)


def _packed_ids(ids):
    """Text user ids as 64-bit keys for a radix sort, when every id has at most 8 bytes and
    no NUL byte, and their varying bits leave room for the row index (else None).

    Each id is packed big-endian, zero-padded (so keys order as the ids' bytes do), then
    reduced to the bits that vary between ids, with the row index below them
    (:func:`fastfair._kernel_sums.compact_keys`). Returns (keys, index bits, byte masks of
    the varying bits, the other bits) for :func:`_order_by_packed`.
    """
    keys = np.empty(len(ids), dtype=np.uint64)
    a = 0
    for chunk in ids.chunks:
        offsets, data = _string_buffers(chunk)
        if _kernel_sums.pack_short_text(offsets, data, keys[a : a + len(chunk)]) >= 0:
            return None
        a += len(chunk)
    ib, masks, template = _kernel_sums.compact_keys(keys)
    return None if ib < 0 else (keys, ib, masks, template)


def _order_by_packed(keys, ib, masks, template):
    """Rows ordered by user from :func:`_packed_ids`, as :func:`_text_codes` and a counting
    sort of its codes would order them, by one radix sort: no hash table, no sort of
    strings. Returns (int32 order, each user's first row then n, the sorted ids as
    :class:`_ArrowLabels`); blank ids are refused as :func:`_text_codes` refuses them."""
    from fastfair._auc import radix_sort_high

    keys = radix_sort_high(keys, ib)
    order, starts, compact = _kernel_sums.key_runs(keys, ib)
    del keys
    labels = _unpack_text(_expand_bits(compact, masks, template))
    blank = np.flatnonzero(_blank(labels))
    if blank.size:
        from fastfair._validation import check_label_values

        rows = int((starts[blank + 1] - starts[blank]).sum())
        check_label_values(np.array([""], dtype=object), "cluster", lambda k: rows)
    return order, starts, _ArrowLabels(labels)


def _string_buffers(chunk) -> tuple[np.ndarray, np.ndarray]:
    """(int64 offsets of the chunk's strings into `data`, the data bytes) of an Arrow
    string or large_string array (sliced or not)."""
    import pyarrow as pa

    wide = pa.types.is_large_string(chunk.type)
    _, off, data = chunk.buffers()
    offsets = np.frombuffer(
        off, dtype=np.int64 if wide else np.int32, count=len(chunk) + 1,
        offset=chunk.offset * (8 if wide else 4),
    )  # fmt: skip
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return offsets.astype(np.int64, copy=False), data


def _expand_bits(compact: np.ndarray, masks: np.ndarray, template: int) -> np.ndarray:
    """The 64-bit keys of :func:`fastfair._kernel_sums.compact_keys` back from their
    varying bits (`compact`; byte masks `masks`, most significant byte first), the other
    bits from `template`."""
    out = np.full(len(compact), template, dtype=np.uint64)
    shift = 0
    for b in range(7, -1, -1):  # the least significant byte's bits are the lowest
        mask = int(masks[b])
        if not mask:
            continue
        bits = [k for k in range(8) if mask >> k & 1]
        spread = np.zeros(1 << len(bits), dtype=np.uint64)  # packed bits -> the byte (pdep)
        for t, k in enumerate(bits):
            spread[np.arange(spread.size) >> t & 1 == 1] |= np.uint64(1 << k)
        part = (compact >> np.uint64(shift)) & np.uint64(spread.size - 1)
        out |= spread[part] << np.uint64(56 - 8 * b)
        shift += len(bits)
    return out


def _unpack_text(keys: np.ndarray):
    """Arrow strings of 64-bit keys packed by :func:`fastfair._kernel_sums.pack_short_text`
    (big-endian bytes, zero-padded: the ids hold no NUL byte)."""
    import pyarrow as pa

    raw = keys.astype(">u8").view(np.uint8).reshape(-1, 8)
    present = raw != 0
    data = np.ascontiguousarray(raw[present])
    wide = data.size >= 2**31  # int32 offsets (Arrow's string) while they suffice
    offsets = np.zeros(len(keys) + 1, dtype=np.int64 if wide else np.int32)
    np.cumsum(present.sum(axis=1), out=offsets[1:])
    kind = pa.large_string() if wide else pa.string()
    return pa.Array.from_buffers(
        kind, len(keys), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def _blank(labels) -> np.ndarray:
    """Which of the Arrow strings `labels` are empty or whitespace only."""
    import pyarrow.compute as pc

    return pc.equal(pc.utf8_trim_whitespace(labels), "").to_numpy(zero_copy_only=False)


def _text_codes(ids) -> tuple[np.ndarray, _ArrowLabels]:
    """Text user ids (an Arrow chunked array) as int32 codes in sorted id order, by Arrow's
    own hash (one dictionary over the chunks) and a sort of the distinct ids: never a
    Python string a row. The labels stay an Arrow array (:class:`_ArrowLabels`)."""
    import pyarrow.compute as pc

    from fastfair._validation import check_label_values

    encoded = pc.dictionary_encode(ids)
    del ids
    dictionary = encoded.chunks[0].dictionary if encoded.num_chunks else None
    if dictionary is None or len(dictionary) == 0:
        raise ValueError("the cluster column has no values")
    blank = np.flatnonzero(_blank(dictionary))
    if blank.size:
        rows = sum(int(np.isin(c.indices.to_numpy(), blank).sum()) for c in encoded.chunks)
        check_label_values(np.array([""], dtype=object), "cluster", lambda k: rows)
    order = pc.sort_indices(dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    codes = np.empty(len(encoded), dtype=np.int32)
    a = 0
    for chunk in encoded.chunks:
        b = a + len(chunk)
        np.take(rank, chunk.indices.to_numpy(zero_copy_only=False), out=codes[a:b])
        a = b
    return codes, _ArrowLabels(dictionary.take(order))


class _ArrowLabels:
    """Sorted user ids held by Arrow; ``labels[k]`` is the Python value (for messages)."""

    def __init__(self, values):
        self.values = values

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, k):
        return self.values[int(k)].as_py()


def _gather(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """values[order], taken in chunks: numpy would copy a whole int32 `order` to intp."""
    out = np.empty(len(order), dtype=values.dtype)
    for a in range(0, len(order), CHUNK_ROWS):
        np.take(values, order[a : a + CHUNK_ROWS], out=out[a : a + CHUNK_ROWS], mode="clip")
    return out


def _is_text(kind) -> bool:
    import pyarrow as pa

    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


# --------------------------------------------------------------------------------------
# Partitions of whole users in user order (dask: set_index on the user column)


def sort_partition(frame, *, label, score, group, cluster, index: dict, pos_label):
    """One shuffled partition's rows of the tested groups as (y, score, group code, user),
    sorted by user and, within a user, by the global row number ``_row`` (file order)."""
    from fastfair._validation import as_binary, as_finite_float

    if cluster not in frame.columns:  # the index after set_index(cluster)
        frame = frame.reset_index()
    codes = _tested_codes(frame, group, index)
    keep = codes >= 0
    frame = frame[keep]
    if len(frame) == 0:  # an empty file, or no row of the tested groups
        return (*_no_rows(), frame[cluster].to_numpy())
    if frame[cluster].isna().any():
        raise ValueError(
            f"cluster column {cluster!r} has {int(frame[cluster].isna().sum()):,} missing "
            "values; drop or fill those rows"
        )
    order = np.lexsort((frame["_row"].to_numpy(), frame[cluster].to_numpy()))
    y = as_binary(frame[label].to_numpy(), "label", pos_label, require_pos=False)[order]
    s = as_finite_float(frame[score].to_numpy(), "score")[order]
    g = codes[keep][order]
    return y, s, g, frame[cluster].to_numpy()[order]


def group_rows(frame, *, label, score, group, index: dict, pos_label):
    """One partition's rows of the groups `index` (label -> position) as (y, score,
    position), in the partition's order: what the AUC permutation test reads back."""
    from fastfair._validation import as_binary, as_finite_float

    codes = _tested_codes(frame, group, index)
    keep = codes >= 0
    if not keep.any():  # an empty file, or no row of these groups
        return _no_rows()
    y = as_binary(frame[label].to_numpy()[keep], "label", pos_label, require_pos=False)
    s = as_finite_float(frame[score].to_numpy()[keep], "score")
    return y.astype(np.uint8), s, codes[keep]


def _no_rows() -> tuple:
    """(y, score, group code) of a partition without rows of the tested groups."""
    return np.zeros(0, np.uint8), np.zeros(0, np.float64), np.zeros(0, np.intp)


def _tested_codes(frame, group: list, index: dict) -> np.ndarray:
    """Each row's tested group code (`index`: label -> code; one column's label, or the
    tuple of several columns'), -1 for rows of other groups."""
    import pandas as pd

    if len(group) == 1:
        codes = frame[group[0]].map(index)
        known = codes.notna().to_numpy()
        out = np.full(len(known), -1, dtype=np.intp)
        out[known] = codes[known].to_numpy(dtype=np.intp)
        return out
    wanted = pd.MultiIndex.from_tuples(list(index), names=group)
    found = wanted.get_indexer(pd.MultiIndex.from_frame(frame[group]))
    values = np.append(np.fromiter(index.values(), np.intp, len(index)), -1)
    return values[found]


def named_partition(k: int, fn, frame):
    """fn(frame); errors say which (shuffled) partition."""
    try:
        return fn(frame)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"partition {k}: {exc}") from exc


def partition_counts(part, n_groups: int, weighting):
    """Pass 1 of a partition of whole users: its rows, its rows and users per group, and
    the first user whose rows span several groups (or None) with the number of such users."""
    y, s, g, u = part
    zero = np.zeros(n_groups, dtype=np.int64)
    if len(u) == 0:
        return 0, zero, zero, None, 0
    _, _, starts, cgroup, _, spans = chunk_arrays(y, s, g, u, weighting)
    bad = None
    if spans.size:
        m = int(spans[0])
        rows = g[starts[m] : starts[m + 1]]
        bad = (u[starts[m]], int(cgroup[m]), int(rows[rows != cgroup[m]][0]))
    n_rows = np.bincount(cgroup, weights=np.diff(starts), minlength=n_groups)
    n_users = np.bincount(cgroup, minlength=n_groups)
    return len(u), n_rows.astype(np.int64), n_users.astype(np.int64), bad, int(spans.size)


def partition_sample(part, start: int, step: int, weighting):
    """The rows of a partition at global positions p with p % step == 0, the partition's
    first row at `start`: (score, weight, group)."""
    y, s, g, u = part
    if len(u) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0, np.intp)
    score, _, starts, cgroup, weight, _ = chunk_arrays(y, s, g, u, weighting)
    idx = np.arange((-start) % step, len(u), step)
    cl = np.searchsorted(starts, idx, side="right") - 1
    return score[idx], weight[cl], cgroup[cl]


def partition_pass(part, fn, weighting):
    """fn of a partition's kernel inputs (None for an empty partition)."""
    y, s, g, u = part
    return fn(chunk_arrays(y, s, g, u, weighting)) if len(u) else None


def merge_or_none(a, b):
    return b if a is None else a if b is None else merge_sums(a, b)


def from_partitions(
    parts: list, labels, *, n_total: int, weighting, compute, column=None
) -> SortedClusters:
    """SortedClusters of dask partitions of whole users in user order (delayed (y, s, g, u)
    tuples sorted by user, the partitions' user ranges increasing, as ``set_index`` on the
    user column leaves them); `compute` is dask.compute with the scheduler; `column`: the
    user column, named in messages.

    Pass 1 brings per-partition counts to the client (rows, rows and users per group: memory
    O(partitions x groups), never O(users)); the partitions' first global rows place the
    row sample as in memory; the kernel passes run on the partitions and are added in a tree.
    """
    import dask

    K = len(labels)
    counts = compute(*[dask.delayed(partition_counts)(p, K, weighting) for p in parts])
    bad = [c[3] for c in counts if c[3] is not None]
    if bad:
        user, first, other = bad[0]  # the partitions are in user order: the first user
        n_bad = sum(c[4] for c in counts)
        raise conflict_error(user, labels[first], labels[other], n_bad, column)
    lengths = np.array([c[0] for c in counts], dtype=np.int64)
    if lengths.sum() != n_total:
        raise RuntimeError(f"expected {n_total} rows of the tested groups, met {lengths.sum()}")
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    step = sample_step(n_total)
    samples = compute(
        *[
            dask.delayed(partition_sample)(p, int(starts[k]), step, weighting)
            for k, p in enumerate(parts)
        ]
    )
    sample = tuple(np.concatenate([a[j] for a in samples]) for j in range(3))
    n_rows = np.sum([c[1] for c in counts], axis=0).astype(np.int64)
    n_clusters = np.sum([c[2] for c in counts], axis=0).astype(np.int64)

    def map_reduce(fn):
        layer = [dask.delayed(partition_pass)(p, fn, weighting) for p in parts]
        while len(layer) > 1:
            pairs = [layer[k : k + 2] for k in range(0, len(layer), 2)]
            layer = [dask.delayed(merge_or_none)(*b) if len(b) == 2 else b[0] for b in pairs]
        (total,) = compute(layer[0])
        return total

    return SortedClusters(labels, n_rows, n_clusters, sample, map_reduce, weighting)
