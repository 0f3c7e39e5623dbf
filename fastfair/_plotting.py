"""matplotlib, imported only when a result is plotted (``pip install "fastfair[plot]"``)."""

from __future__ import annotations

from typing import Any

import numpy as np


def pyplot(what: str) -> Any:
    """``matplotlib.pyplot``, or an ImportError saying that `what` needs the `plot` extra.

    Parameters
    ----------
    what : str
        The function or method that plots, named in the error.

    Returns
    -------
    module
        matplotlib.pyplot.

    Examples
    --------
    >>> from fastfair._plotting import pyplot
    >>> pyplot("AuditResult.plot").__name__
    'matplotlib.pyplot'
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            f'{what} needs matplotlib: pip install "fastfair[plot]" (or pip install matplotlib)'
        ) from exc
    return plt


def new_axes(ax: Any, what: str, figsize: tuple[float, float]) -> Any:
    """`ax`, or the Axes of a new figure of `figsize` inches when `ax` is None.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fastfair._plotting import new_axes
    >>> new_axes(None, "x", (3, 2)).figure.get_size_inches().tolist()
    [3.0, 2.0]
    """
    plt = pyplot(what)
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_null(
    ax: Any,
    null: Any,
    observed: float,
    *,
    what: str,
    probabilities: Any = None,
    two_sided: bool = False,
    xlabel: str = "statistic",
) -> Any:
    """The permutation (or bootstrap) null distribution with the observed value marked.

    Parameters
    ----------
    ax : matplotlib Axes or None
        Where to draw (None: a new figure).
    null : array-like or None
        Permuted statistics (NaN entries, padding of sequential tests, are dropped), or the
        support of an exact distribution when `probabilities` is given. None: the result
        kept none, and a ValueError says how to get it.
    observed : float
        The observed statistic (a vertical line; at ±observed when `two_sided`).
    what : str
        The method plotting, named in the errors.
    probabilities : array-like, optional
        Probabilities of the support `null` (an exact test): drawn as a stem plot.
    two_sided : bool
        Mark -observed too.
    xlabel : str
        Label of the x axis.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from fastfair._plotting import plot_null
    >>> ax = plot_null(None, np.random.default_rng(0).normal(size=999), 2.5, what="x.plot")
    >>> [round(x, 2) for x in ax.lines[0].get_xdata()]
    [2.5, 2.5]
    """
    if null is None:
        raise ValueError(
            f"{what} draws the null distribution, which this result did not keep: run the "
            "test with return_null=True"
        )
    ax = new_axes(ax, what, (5.0, 3.4))
    values = np.asarray(null, dtype=np.float64)
    if probabilities is not None:
        ax.vlines(values, 0, probabilities, color="#888", lw=1.2)
        ax.set_ylabel("probability")
    else:
        values = values[np.isfinite(values)]
        ax.hist(values, bins=min(60, max(10, values.size // 20)), color="#bbb", density=True)
        ax.set_ylabel("density")
    marks = [observed, -observed] if two_sided and observed != 0 else [observed]
    for k, x in enumerate(marks):
        ax.axvline(x, color="#c62828", lw=1.6, label="observed" if k == 0 else None)
    ax.set_xlabel(xlabel)
    ax.legend(fontsize="small", loc="best")
    return ax
