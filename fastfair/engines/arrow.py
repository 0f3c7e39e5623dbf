"""The arrow engine: the audit's summaries from a file, directory or glob, batch by batch.

The columns are read in record batches (pyarrow datasets on one machine); each batch is
reduced at once to a cube of confusion counts (and, when a score is given, a sorted run
of :class:`fastfair.engines.summaries.ScoreRuns` whose rows are coded by cell, the
combination of every attribute's level: exact for any scores, each batch sorted once, the
k runs merged once at the end in O(n log k) for every attribute combination together,
:class:`fastfair.engines.attributes.CombinationScores`), and the summaries are added.
Memory is one batch plus the summaries: the counts, and 10 bytes a row of score runs
(spilled to an Arrow IPC file beyond `SPILL_BYTES`).

For predictive parity the same read also keeps label, score, group and user in compact
columns; the rows of the tested groups are then put in user order by a counting sort of
int32 user codes (without a cluster column each row is a user and the file order is kept)
and the kernel sums are added over chunks of whole users (:mod:`fastfair.engines.clusters`):
equal to the in-memory test. The dask engine range-partitions the rows on the user column
instead (:func:`fastfair.engines.dask.dask_clusters`).
"""

from __future__ import annotations

import tempfile

import numpy as np

from fastfair._validation import check_binary_values
from fastfair.engines.attributes import (
    CombinationScores,
    code_groups,
    combination_codes,
    summary_of,
)
from fastfair.engines.clusters import UserRows, from_ordered_chunks
from fastfair.engines.groups import batch_codes
from fastfair.engines.summaries import ScoreRuns, checked_rows

__all__ = ["arrow_clusters", "summarise_arrow"]

#: Bytes of sorted score runs kept in memory before they are spilled to a file; the parity
#: columns' scores and text user ids go to files when they would take more (ROW_BYTES a row).
SPILL_BYTES = 1 << 30
ROW_BYTES = 20


def summarise_arrow(
    source, *, label, groups, pred, score, threshold, pos_label, batch_rows, cluster=None,
    combos=None, keep_rows=False, progress=None, spill_bytes=SPILL_BYTES,
):  # fmt: skip
    """Summary of a file, directory or glob, batch by batch (pyarrow): the
    :class:`fastfair.engines.attributes.AuditSummary` of the attributes `groups` (column
    names; one name for one), with the exact AUC summary of each attribute combination of
    `combos` (default: each attribute alone; :class:`CombinationScores`). `cluster` is
    checked (present in every file, no missing value). With `keep_rows` (and a score), the
    same read also fills the parity columns (:class:`fastfair.engines.clusters.UserRows`, in
    ``summary.rows``; each row's group is its combination of every attribute): the file is
    read once. `progress`: a tqdm-like bar factory advanced by the rows of each batch. The
    scores are kept as sorted runs coded by cell
    (:class:`fastfair.engines.summaries.ScoreRuns`), merged once at the end for every
    combination; beyond `spill_bytes` in memory they are spilled to an Arrow IPC file."""
    import pyarrow.compute as pc

    from fastfair.engines.files import _counted_batches, _to_numpy, count_rows, iter_batches

    groups = [groups] if isinstance(groups, str) else list(groups)
    combos = [(g,) for g in groups] if combos is None else combos
    columns = list(dict.fromkeys(c for c in (label, pred, score, *groups, cluster) if c))
    rows = None
    if keep_rows and score is not None:
        n_rows = count_rows(source)
        spill = tempfile.gettempdir() if n_rows * ROW_BYTES > spill_bytes else None
        rows = UserRows(n_rows, clustered=cluster is not None, spill_dir=spill, column=cluster)
    total, cells = None, _Cells()
    binary = {c: f"{role} column {c!r}" for c, role in ((label, "label"), (pred, "prediction"))
              if c is not None}  # fmt: skip
    seen = {c: set() for c in binary}
    batches = iter_batches(source, columns, batch_rows=batch_rows, dictionary=groups)
    for path, batch in _counted_batches(batches, source, progress):
        try:
            _check_cluster(batch, cluster)
            y, yhat, s = checked_rows(
                _to_numpy(batch[label]),
                None if pred is None else _to_numpy(batch[pred]),
                None if score is None else _to_numpy(batch[score]),
                threshold=threshold,
                pos_label=pos_label,
            )
            named = len(groups) > 1
            coded = code_groups(
                {g: batch_codes(batch[g], f"group column {g!r}" if named else "group")
                 for g in groups}
            )  # fmt: skip
            part = summary_of(y, yhat, None, coded, combos)
            if s is not None:
                finest = combination_codes(coded, groups)
                part.scores = CombinationScores(cells.run(y, s, finest), groups, combos)
                if rows is not None:
                    rows.add(y, s, finest, None if cluster is None else batch[cluster])
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{path}: {exc}") from exc
        for c in seen:  # a batch may hold one value only; all the batches, two at most
            seen[c].update(pc.unique(batch[c]).to_pylist())
        total = part if total is None else total + part
        if total.scores and total.scores.runs.nbytes > spill_bytes:
            total.scores.runs = total.scores.runs.spill(tempfile.gettempdir())
    if total is None:
        raise ValueError(f"{source} has no rows")
    for c, name in binary.items():
        check_binary_values(seen[c], name, pos_label, require_pos=False)
    total.rows = rows
    return total


class _Cells:
    """The cells (combinations of every attribute's level) met so far, numbered as they
    appear: every batch's run codes its rows by these numbers, so the runs need no
    remapping before their one merge."""

    def __init__(self):
        self.index: dict = {}
        self.labels = np.empty(0, dtype=object)

    def run(self, y: np.ndarray, s: np.ndarray, finest) -> ScoreRuns:
        """The batch's sorted run, its rows coded by cell."""
        local = [self.index.setdefault(v, len(self.index)) for v in finest.labels.tolist()]
        if len(self.index) != len(self.labels):
            self.labels = np.empty(len(self.index), dtype=object)
            self.labels[:] = list(self.index)
        codes = np.take(np.asarray(local, dtype=np.intp), finest.codes)
        return ScoreRuns.from_codes(y, s, codes, self.labels)


def _check_cluster(batch, cluster) -> None:
    if cluster is not None and batch[cluster].null_count:
        raise ValueError(
            f"cluster column {cluster!r} has {batch[cluster].null_count:,} missing values "
            "in a batch; drop or fill those rows"
        )


def arrow_clusters(rows, tested_labels, codes, n_total, *, positions=None, last=True):
    """Rows of the tested groups grouped by user, from the columns the summary pass kept
    (`rows`, :class:`fastfair.engines.clusters.UserRows`), as
    :class:`fastfair.engines.clusters.SortedClusters` whose group k is `tested_labels[k]`,
    labelled `codes[k]`; `n_total` is their number of rows. `positions`: with several
    attributes, where the tested attribute's columns stand in a row's combination of all
    (its label is that part of the combination); `last`: no further call will follow, so
    the kept columns are freed as they are gathered.

    Memory at 10^8 rows: the columns (label 1 byte, score 8, group 2, integer user id 8 a
    row) while they are filled; then the ids become int32 user codes, a counting sort gives
    an int32 order, and each column is gathered once in user order (the unsorted one freed
    at once), so the kernel passes read the rows sequentially.
    """
    chunks, user_labels = rows.sorted_chunks(tested_labels, positions=positions, last=last)
    return from_ordered_chunks(
        chunks,
        np.asarray(codes),
        n_total=n_total,
        weighting="per_user",
        clustered=rows.clustered,
        user_labels=user_labels,
        column=rows.column,
    )
