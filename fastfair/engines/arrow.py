"""The arrow engine: the audit's summaries from a file, directory or glob, batch by batch.

The columns are read in record batches (pyarrow datasets on one machine); each batch is
reduced at once to :class:`fastfair.engines.summaries.ConfusionStats` (and
:class:`fastfair.engines.summaries.ScoreStats` when a score is given), and the summaries are
added. Memory is one batch plus the summaries, whatever the number of rows.

For predictive parity the same read also keeps label, score, group and user in compact
columns; the rows of the tested groups are then put in user order by a counting sort of
int32 user codes (without a cluster column each row is a user and the file order is kept)
and the kernel sums are added over chunks of whole users (:mod:`fastfair.engines.clusters`):
equal to the in-memory test. The dask engine range-partitions the rows on the user column
instead (:func:`fastfair.engines.dask.dask_clusters`).
"""

from __future__ import annotations

import numpy as np

from fastfair.engines.clusters import UserRows, from_ordered_chunks
from fastfair.engines.groups import batch_codes
from fastfair.engines.summaries import checked_rows, summary_of

__all__ = ["arrow_clusters", "summarise_arrow"]


def summarise_arrow(
    source, *, label, group, pred, score, threshold, pos_label, batch_rows, cluster=None,
    keep_rows=False, progress=None,
):  # fmt: skip
    """Summary of a file, directory or glob, batch by batch (pyarrow); `cluster` is checked
    (present in every file, no missing value). With `keep_rows` (and a score), the same
    read also fills the parity columns (:class:`fastfair.engines.clusters.UserRows`, in
    ``summary.rows``): the file is read once. `progress`: a tqdm-like bar factory advanced
    by the rows of each batch."""
    from fastfair.engines.files import _counted_batches, _to_numpy, count_rows, iter_batches

    columns = list(dict.fromkeys(c for c in (label, pred, score, group, cluster) if c))
    rows = None
    if keep_rows and score is not None:
        rows = UserRows(count_rows(source), clustered=cluster is not None)
    total = None
    batches = iter_batches(source, columns, batch_rows=batch_rows, dictionary=[group])
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
            groups = batch_codes(batch[group], "group")
            part = summary_of(y, yhat, s, groups)
            if rows is not None:
                rows.add(y, s, groups, None if cluster is None else batch[cluster])
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{path}: {exc}") from exc
        total = part if total is None else total + part
    if total is None:
        raise ValueError(f"{source} has no rows")
    total.rows = rows
    return total


def _check_cluster(batch, cluster) -> None:
    if cluster is not None and batch[cluster].null_count:
        raise ValueError(
            f"cluster column {cluster!r} has {batch[cluster].null_count:,} missing values "
            "in a batch; drop or fill those rows"
        )


def arrow_clusters(rows, tested_labels, codes, n_total):
    """Rows of the tested groups grouped by user, from the columns the summary pass kept
    (`rows`, :class:`fastfair.engines.clusters.UserRows`), as
    :class:`fastfair.engines.clusters.SortedClusters` whose group k is `tested_labels[k]`,
    labelled `codes[k]`; `n_total` is their number of rows.

    Memory at 10^8 rows: the columns (label 1 byte, score 8, group 2, integer user id 8 a
    row) while they are filled; then the ids become int32 user codes, a counting sort gives
    an int32 order, and each column is gathered once in user order (the unsorted one freed
    at once), so the kernel passes read the rows sequentially.
    """
    chunks, user_labels = rows.sorted_chunks(tested_labels)
    return from_ordered_chunks(
        chunks,
        np.asarray(codes),
        n_total=n_total,
        weighting="per_user",
        clustered=rows.clustered,
        user_labels=user_labels,
    )
