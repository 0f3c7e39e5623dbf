"""Seeding: a user's random_state becomes the 64-bit key of the counter-based streams.

Permutation b of comparison c draws from Philox4x32-10 keyed by this key with counter
(stream c, index b), so its draws are the same whichever thread computes it.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["stream_key"]


def stream_key(random_state) -> int:
    """A 64-bit stream key from None, an int, a SeedSequence or a numpy Generator.

    The same int always gives the same key (through SeedSequence, so nearby seeds give
    unrelated keys); a Generator is advanced by one draw; None draws fresh OS entropy.
    """
    if random_state is None or isinstance(random_state, numbers.Integral):
        if isinstance(random_state, bool):
            raise TypeError("random_state must be None, an int, a SeedSequence or a Generator")
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        seq = np.random.SeedSequence(random_state)
    elif isinstance(random_state, np.random.SeedSequence):
        seq = random_state
    elif isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**64, dtype=np.uint64))
    elif isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63, dtype=np.int64))
    else:
        raise TypeError(
            "random_state must be None, an int, a SeedSequence or a Generator, "
            f"got {type(random_state).__name__}"
        )
    return int(seq.generate_state(1, dtype=np.uint64)[0])
