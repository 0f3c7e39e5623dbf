"""Anytime-valid confidence sequences for the gap of a rate between two groups.

For one metric and one comparison, the rows of each group in the metric's denominator are
Bernoulli draws with the group's rate (p_g for the group, p_r for the reference); the gap is
U = p_g - p_r. The gaps [-1, 1] are cut by a fine grid of lines d_0 < ... < d_{G-1} into
closed strips S_0 = [-1, d_0], S_1 = [d_0, d_1], ..., S_G = [d_{G-1}, 1], and every strip S
has its own test martingale (e-process) against the composite null H_S: U in S (any p_r):

* Before a block (one update) a plug-in alternative is formed from the earlier blocks: the
  Krichevsky-Trofimov rates (x + 1/2)/(n + 1) of both groups, shrunk towards their
  projection on the strip by the factor m / (m + SHRINK_ROWS), m the smaller denominator
  seen (a point estimate from few rows bets too hard; shrinking made detection faster than
  the ONS bet of Chugg et al. in validation/monitor_detection.py).
* The block multiplies the strip's e-value by L(a) / L(q): the block's likelihood at the
  alternative a over its likelihood at q, the reverse information projection of a on the
  strip: the point of the strip closest to a in n_g kl(a_g, .) + n_r kl(a_r, .) with the
  block's denominators n_g, n_r (Farrington-Manning's restricted MLE,
  :func:`fastfair._score.restricted_mle`, with the alternative as data). Under any (p_g, p_r)
  in the strip, E[L(a)/L(q)] = F_g(p_g)^{n_g} F_r(p_r)^{n_r} with F linear in p, a
  log-concave function that the projection's optimality condition makes <= 1 on the strip
  (Grunwald, de Heide & Koolen's RIPr; Turner, Ly & Grunwald's 2x2 tables). The product is
  a non-negative supermartingale, and Ville's inequality bounds the chance it ever reaches
  1/alpha by alpha.
* A strip is rejected (for good) once its log e-value reaches log(K / alpha), K the number
  of sequences (metrics x comparisons: Bonferroni). The confidence sequence is the hull of
  the strips never rejected. The true gap lies in one strip (two, on a line), so the
  sequence misses it at some time with probability at most alpha / K; all K sequences cover
  at all times with probability at least 1 - alpha.

A block's factor depends only on its counts and on the counts before it, so an update costs
O(G) per metric and comparison whatever the number of rows (G about 2,000), and a block of
only one group, or the first block, carries no evidence (it only trains the alternative).
"""

from __future__ import annotations

import numpy as np

from fastfair import _monitor
from fastfair._parallel import threads_for

__all__ = [
    "PRIOR",
    "SHRINK_ROWS",
    "advance",
    "block_log_evidence",
    "gap_lines",
    "sequence_bounds",
    "strip_log_evidence",
]

#: Krichevsky-Trofimov pseudo-count of the plug-in rates.
PRIOR = 0.5
#: The plug-in alternative moves from the strip towards the estimate by m / (m + SHRINK_ROWS).
SHRINK_ROWS = 10.0


def gap_lines(resolution: float, tolerance: float | None) -> np.ndarray:
    """The grid: multiples of `resolution` strictly inside (-1, 1), 0 and +-tolerance."""
    steps = round(1.0 / resolution)
    lines = np.arange(1 - steps, steps, dtype=np.float64) * resolution
    extra = [0.0] if tolerance is None else [0.0, -tolerance, tolerance]
    return np.unique(np.round(np.concatenate([lines, extra]), 12))


def block_log_evidence(block_x, block_n, seen_x, seen_n, lines, n_jobs: int | None = 1):
    """Log e-factor of one block for the composite null on a line, and the plug-in gap.

    Parameters
    ----------
    block_x, block_n : ndarray, shape (..., 2)
        Successes and denominators of (group, reference) in the block.
    seen_x, seen_n : ndarray, shape (..., 2)
        The same before the block.
    lines : ndarray, broadcast with shape (...)
        The gap of each null line.
    n_jobs : int, optional
        Threads of the compiled loop (None: every core); the results do not depend on it.

    Returns
    -------
    (ndarray, ndarray)
        log L(a)/L(q) for the alternative a shrunk towards the line (0 where the block
        lacks a group or a group has no rows before it: the alternative is then on the
        line), and the gap of the unshrunk plug-in rates, of the broadcast shape.
    """
    block = np.concatenate(np.broadcast_arrays(block_x, block_n), axis=-1)[..., [0, 2, 1, 3]]
    seen = np.concatenate(np.broadcast_arrays(seen_x, seen_n), axis=-1)[..., [0, 2, 1, 3]]
    shape = np.broadcast_shapes(block.shape[:-1], seen.shape[:-1], np.shape(lines))
    flat = [
        np.ascontiguousarray(np.broadcast_to(v, (*shape, 4)).reshape(-1, 4), dtype=np.float64)
        for v in (block, seen)
    ]
    d = np.ascontiguousarray(np.broadcast_to(lines, shape).ravel(), dtype=np.float64)
    threads = 1 if n_jobs == 1 else threads_for(n_jobs, d.size, 20_000)
    log, gap = _monitor.block_log_evidence(*flat, d, PRIOR, SHRINK_ROWS, threads)
    return log.reshape(shape), gap.reshape(shape)


def strip_log_evidence(line_log, plug_in_gap, lines):
    """Per strip, the block's log e-factor: the line on the strip's side of the alternative.

    `line_log` and `plug_in_gap` have shape (..., G). Strip s = [d_{s-1}, d_s] uses line
    s - 1 when the plug-in gap is below it, line s when above, and bets nothing when the
    gap lies inside it. Returns shape (..., G + 1).
    """
    gap = np.asarray(plug_in_gap)
    out = np.zeros((*line_log.shape[:-1], line_log.shape[-1] + 1))
    out[..., 1:] += np.where(gap < lines, line_log, 0.0)
    out[..., :-1] += np.where(gap > lines, line_log, 0.0)
    return out


def sequence_bounds(rejected, lines):
    """(lower, upper) of the hull of the strips never rejected; NaN where every strip is.

    `rejected` has shape (..., G + 1); strip s spans [edges[s], edges[s + 1]].
    """
    edges = np.concatenate([[-1.0], lines, [1.0]])
    open_ = ~np.asarray(rejected, dtype=bool)
    any_open = open_.any(axis=-1)
    first = np.argmax(open_, axis=-1)
    last = open_.shape[-1] - 1 - np.argmax(open_[..., ::-1], axis=-1)
    lower = np.where(any_open, edges[first], np.nan)
    upper = np.where(any_open, edges[last + 1], np.nan)
    return lower, upper


def advance(log_e, rejected, block_x, block_n, seen_x, seen_n, lines, log_threshold, n_jobs=1):
    """One block for every sequence: e-values of the open strips updated in place.

    `log_e` and `rejected` have shape (..., G + 1), the counts (..., 2). Only the lines that
    bound an open strip, and those of the strips at 0 (for the p-value), are evaluated: a
    rejected strip stays rejected.
    """
    zero = int(np.searchsorted(lines, 0.0))
    open_ = ~rejected
    need = open_[..., :-1] | open_[..., 1:]
    need[..., max(zero - 1, 0) : zero + 2] = True
    *where, j = np.nonzero(need)
    line_log = np.zeros(need.shape)
    gap = np.zeros(need.shape)
    line_log[need], gap[need] = block_log_evidence(
        block_x[tuple(where)],
        block_n[tuple(where)],
        seen_x[tuple(where)],
        seen_n[tuple(where)],
        lines[j],
        n_jobs,
    )
    log_e += strip_log_evidence(line_log, gap, lines)
    rejected |= log_e >= log_threshold
