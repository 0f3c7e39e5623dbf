"""matplotlib, imported only when a result is plotted (``pip install "fastfair[plot]"``)."""

from __future__ import annotations

from typing import Any


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
