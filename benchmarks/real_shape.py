"""The audit log as users have it (#28): float64 scores, string groups and user ids.

Two shapes, both written chunk by chunk (one chunk of rows in memory at a time), as CSV
and as Parquet, with the same rows in both:

- ``real`` (#28): ``label``; ``score`` = a logistic model's float64 probability
  (unrounded: about as many distinct values as rows); ``g1`` with 3 string levels
  (``"a"``/``"b"``/``"c"``, 60/30/10% of the users), ``g2`` with 2 (``"x"``/``"y"``, 50/50);
  ``user`` ids ``"u0123456"`` (n/10 users, each user in one g1 and one g2 group; rows drawn
  uniformly among users). The label is drawn from the true model, whose logit also depends
  on the groups; the score is the fitted model's probability, slightly off for the groups.
- ``rounded`` (the shape of #15's ``large_audit.py``): the score rounded to 4 decimals and
  integer user ids, same columns and groups otherwise.

    python benchmarks/real_shape.py --rows 1e6 1e7 --dir /tmp/ff28
    python benchmarks/real_shape.py --rows 1e8 --shape real --format parquet --dir /tmp/ff28

Files are named ``{shape}_{rows}.{csv,parquet}`` (e.g. ``real_1e7.parquet``) and reused when
already there (a ``.partial`` file is renamed only when complete).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

CHUNK = 1_000_000
G1 = ("a", "b", "c")
G2 = ("x", "y")


def user_groups(n_users: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each user's g1 (60/30/10%) and g2 (50/50) codes: int8, 2 bytes a user."""
    rng = np.random.default_rng([seed, 1])
    g1 = rng.choice(3, size=n_users, p=[0.6, 0.3, 0.1]).astype(np.int8)
    g2 = rng.integers(0, 2, n_users, dtype=np.int8)
    return g1, g2


def chunk_table(rng, m: int, n_users: int, g1u, g2u, shape: str):
    """`m` rows as an Arrow table (strings dictionary-free, as a CSV holds them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    user = rng.integers(0, n_users, m)
    g1, g2 = g1u[user], g2u[user]
    x = rng.standard_normal(m)
    shift = np.array([0.0, -0.3, 0.2])[g1] + np.array([0.0, 0.15])[g2]
    truth = -0.8 + 1.6 * x + shift
    label = (rng.random(m) < 1.0 / (1.0 + np.exp(-truth))).astype(np.int8)
    fitted = -0.75 + 1.5 * x + 0.8 * shift  # a model that under-fits the group shifts
    score = 1.0 / (1.0 + np.exp(-fitted))
    if shape == "rounded":
        score, ids = np.round(score, 4), pa.array(user)
    else:
        width = max(6, len(str(n_users - 1)))
        digits = pc.utf8_lpad(pc.cast(pa.array(user), pa.string()), width, "0")
        ids = pc.binary_join_element_wise("u", digits, "")
    return pa.table(
        {
            "label": label,
            "score": score,
            "g1": pa.array(np.array(G1)[g1]),
            "g2": pa.array(np.array(G2)[g2]),
            "user": ids,
        }
    )


def write_log(directory: str, n: int, shape: str, formats=("csv", "parquet"), seed=0) -> dict:
    """Write the log of `n` rows in each of `formats`; returns {format: path}."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    os.makedirs(directory, exist_ok=True)
    tag = f"{n:.0e}".replace("+0", "").replace("+", "")
    paths = {f: os.path.join(directory, f"{shape}_{tag}.{f}") for f in formats}
    todo = {f: p for f, p in paths.items() if not os.path.exists(p)}
    if not todo:
        return paths
    n_users = max(n // 10, 1)
    g1u, g2u = user_groups(n_users, seed)
    rng = np.random.default_rng([seed, 2])
    writers = {}
    try:
        for start in range(0, n, CHUNK):
            table = chunk_table(rng, min(CHUNK, n - start), n_users, g1u, g2u, shape)
            for fmt, path in todo.items():
                if fmt not in writers:
                    writers[fmt] = (
                        pq.ParquetWriter(path + ".partial", table.schema)
                        if fmt == "parquet"
                        else pcsv.CSVWriter(path + ".partial", table.schema)
                    )
                writers[fmt].write_table(table)
    finally:
        for w in writers.values():
            w.close()
    for path in todo.values():
        os.replace(path + ".partial", path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", nargs="+", type=float, default=[1e6])
    parser.add_argument("--shape", nargs="+", choices=("real", "rounded"), default=["real"])
    parser.add_argument("--format", nargs="+", choices=("csv", "parquet"),
                        default=["csv", "parquet"])  # fmt: skip
    parser.add_argument("--dir", default="/tmp/ff28")
    args = parser.parse_args()
    for rows in args.rows:
        for shape in args.shape:
            start = time.perf_counter()
            paths = write_log(args.dir, int(rows), shape, tuple(args.format))
            sizes = ", ".join(f"{p} ({os.path.getsize(p) / 1e9:.2f} GB)" for p in paths.values())
            print(f"{shape} {int(rows):,} rows: {sizes} [{time.perf_counter() - start:.0f} s]")


if __name__ == "__main__":
    main()
