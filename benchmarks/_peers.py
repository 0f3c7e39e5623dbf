"""What every benchmarks/peers_<family>.py shares: the timer and the row of a comparison.

A row is {"task", "n", "fastfair_s", "peer", "peer_s", "ratio"} (ratio = peer_s /
fastfair_s, > 1 means fastfair is faster), as benchmarks/compare_peers.py prints it.
"""

from __future__ import annotations

import time

import numpy as np


def best(fn, repeat: int) -> float:
    """The shortest of `repeat` timed calls of `fn`, in seconds."""
    shortest = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        shortest = min(shortest, time.perf_counter() - t0)
    return shortest


def peer_row(task: str, n: int, fastfair_s: float, peer: str, peer_s: float) -> dict:
    """One comparison: fastfair's time and the peer's on the same task and data."""
    return dict(
        task=task, n=n, fastfair_s=fastfair_s, peer=peer, peer_s=peer_s, ratio=peer_s / fastfair_s
    )
