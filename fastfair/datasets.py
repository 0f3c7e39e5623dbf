"""Data sets shipped with fastfair: the audit demo.

:func:`load_demo` returns the data ``fastfair audit --demo`` audits, as a pandas DataFrame
(or, without pandas, a dict of numpy arrays), so that every example can start from the
same table in one line.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from fastfair import _textfile

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEMO_COLUMNS", "demo_path", "load_demo"]

#: The columns of the demo data, in file order.
DEMO_COLUMNS = ("label", "score", "prediction", "sex", "race")


def demo_path() -> str:
    """The path of the demo's CSV file (``fastfair/data/adult_demo.csv``).

    Returns
    -------
    str

    Examples
    --------
    >>> from fastfair.datasets import demo_path
    >>> demo_path().endswith("adult_demo.csv")
    True
    """
    return str(resources.files("fastfair") / "data" / "adult_demo.csv")


def load_demo(*, as_frame: bool | None = None) -> pd.DataFrame | dict[str, np.ndarray]:
    """The demo data: UCI Adult's test set scored by a logistic regression.

    16,281 people: whether their income exceeds $50K (``label``), a logistic regression's
    probability of it (``score``, fitted on Adult's training set; docs/cli.md, "Demo
    data"), its prediction at 0.5 (``prediction``), ``sex`` and ``race``. The same table
    ``fastfair audit --demo`` audits. Kohavi (1996), UCI Machine Learning Repository,
    CC BY 4.0.

    Parameters
    ----------
    as_frame : bool, optional
        True: a pandas DataFrame (needs pandas). False: a dict of numpy arrays. None (the
        default): a DataFrame when pandas is installed, else the dict.

    Returns
    -------
    pandas.DataFrame or dict of str to ndarray
        Columns ``label`` and ``prediction`` (int64, 0/1), ``score`` (float64 in [0, 1]),
        ``sex`` and ``race`` (text).

    Examples
    --------
    >>> import fastfair
    >>> demo = fastfair.datasets.load_demo(as_frame=False)
    >>> len(demo["label"]), sorted(set(demo["sex"].tolist()))
    (16281, ['Female', 'Male'])
    >>> res = fastfair.permutation_test(demo["label"], demo["prediction"], demo["sex"],
    ...                                 metric="tpr")
    >>> round(float(res.difference), 3)
    -0.063
    """
    if as_frame is None:
        try:
            import pandas  # noqa: F401
        except ImportError:
            as_frame = False
        else:
            as_frame = True
    columns = _read_demo()
    if not as_frame:
        return columns
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError("load_demo(as_frame=True) needs pandas: pip install pandas") from exc
    return pd.DataFrame(columns)


def _read_demo() -> dict[str, np.ndarray]:
    path = demo_path()
    text = _textfile.decode_text(resources.files("fastfair").joinpath("data", "adult_demo.csv")
                                 .read_bytes(), path)  # fmt: skip
    delimiter, text = _textfile.detect_delimiter(text)
    header, body = _textfile.split_records(text, delimiter, path)
    columns = {n: _textfile.parse_column([r[j] for r in body], n) for j, n in enumerate(header)}
    for name in ("label", "prediction"):
        columns[name] = columns[name].astype(np.int64)
    return {name: columns[name] for name in DEMO_COLUMNS}
