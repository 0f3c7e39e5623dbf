"""Sufficient statistics: the cube of counts and the lattice of slices read from it.

The cube holds, for every observed combination of the features' levels (a joint cell), its
four confusion counts (TN, FP, FN, TP). A slice (a conjunction of feature = level
predicates) is a union of joint cells, so its counts are sums of the cube's rows; the
permutation null is drawn on the cube too (csrc/_slices.pyx). Nothing below reads rows
except :func:`build_cube`, the one step an out-of-core engine replaces.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from fastfair._metrics import cell_index

__all__ = [
    "DENSE_LIMIT", "Lattice", "SliceCube", "TreeLayout", "build_cube", "enumerate_slices",
    "tree_layout",
]  # fmt: skip

#: Joint cells are counted in a dense table when the product of the level counts is at most
#: this (bincount, O(n)); beyond it, by sorting the rows' joint keys.
DENSE_CELLS = 1 << 22


@dataclass(frozen=True)
class SliceCube:
    """Confusion counts per joint cell: ``counts[j]`` of the rows whose levels are
    ``cells[j]`` (one column per feature)."""

    cells: np.ndarray
    counts: np.ndarray


@dataclass(frozen=True)
class Lattice:
    """Every slice of up to max_depth predicates that has rows.

    ``sets[t]`` is a tuple of feature indices; slice s belongs to set ``slice_set[s]`` with
    level ``slice_levels[s, k]`` for the k-th feature of its set (-1 beyond its depth), and
    has confusion counts ``counts[s]``. ``cell_map[t, j]`` is the slice of set t holding
    joint cell j; ``signature[s]`` identifies the slice's rows (equal for slices with the
    same rows).
    """

    sets: tuple
    slice_set: np.ndarray
    slice_levels: np.ndarray
    counts: np.ndarray
    cell_map: np.ndarray
    signature: np.ndarray


def build_cube(codes, n_levels, y_true: np.ndarray, y_pred: np.ndarray) -> SliceCube:
    """The cube of counts from rows in memory: each feature's level codes, labels, predictions."""
    key = _joint_key(codes, n_levels)
    cell = cell_index(y_true, y_pred)
    total = int(np.prod([int(x) for x in n_levels], dtype=object))
    if total <= DENSE_CELLS:
        key *= 4
        key += cell
        table = np.bincount(key, minlength=4 * total).reshape(total, 4)
        seen = np.flatnonzero(table.sum(axis=1))
        cells = _unravel(seen, n_levels)
        return SliceCube(cells, np.ascontiguousarray(table[seen], dtype=np.int64))
    unique, inverse = np.unique(key, return_inverse=True)
    counts = np.bincount(inverse * 4 + cell, minlength=4 * unique.size).reshape(-1, 4)
    return SliceCube(_unravel(unique, n_levels), np.ascontiguousarray(counts, dtype=np.int64))


def _joint_key(codes, n_levels) -> np.ndarray:
    """Mixed-radix key of each row's levels (first feature most significant)."""
    if float(np.prod([float(x) for x in n_levels])) >= 2.0**62:
        raise ValueError(
            "the features' level combinations exceed 2^62: use fewer features or levels"
        )
    key = np.zeros(len(codes[0]), dtype=np.int64)
    for k, n in enumerate(n_levels):
        key *= int(n)
        key += codes[k]
    return key


def _unravel(keys: np.ndarray, n_levels) -> np.ndarray:
    out = np.empty((keys.size, len(n_levels)), dtype=np.int64)
    rest = keys.astype(np.int64)
    for k in range(len(n_levels) - 1, -1, -1):
        out[:, k] = rest % int(n_levels[k])
        rest = rest // int(n_levels[k])
    return out


def enumerate_slices(cube: SliceCube, n_levels, max_depth: int) -> Lattice:
    """Every slice of up to `max_depth` predicates on distinct features that has rows."""
    n_features = cube.cells.shape[1]
    sets = [
        s for d in range(1, min(max_depth, n_features) + 1)
        for s in itertools.combinations(range(n_features), d)
    ]  # fmt: skip
    weights = np.random.default_rng(0x5EED).integers(0, 2**63, cube.cells.shape[0], np.uint64)
    cell_map = np.empty((len(sets), cube.cells.shape[0]), dtype=np.int32)
    parts, offset = [], 0
    for t, features in enumerate(sets):
        key = np.zeros(cube.cells.shape[0], dtype=np.int64)
        for k in features:
            key = key * int(n_levels[k]) + cube.cells[:, k]
        unique, inverse = np.unique(key, return_inverse=True)
        counts = np.zeros((unique.size, 4), dtype=np.int64)
        np.add.at(counts, inverse, cube.counts)
        signature = np.zeros(unique.size, dtype=np.uint64)
        np.add.at(signature, inverse, weights)
        levels = np.full((unique.size, max_depth), -1, dtype=np.int64)
        levels[:, : len(features)] = _unravel(unique, [n_levels[k] for k in features])
        cell_map[t] = offset + inverse
        parts.append((np.full(unique.size, t), levels, counts, signature))
        offset += unique.size
    slice_set, slice_levels, counts, signature = (np.concatenate(x) for x in zip(*parts))
    return Lattice(tuple(sets), slice_set, slice_levels, counts, cell_map, signature)


#: The null is aggregated as marginals of the dense cube when it has at most this many
#: cells (per thread, about 3.5 times this many 8-byte buffers); beyond, by a map per set.
DENSE_LIMIT = 1 << 21


@dataclass(frozen=True)
class TreeLayout:
    """The dense cube's layout for the compiled marginal walk (csrc/_slices.pyx).

    Axes are the features ordered by decreasing number of levels (``order``), so the walk
    sums the largest axes out first. ``cell_index[j]`` is joint cell j's position in the
    dense tensor of shape ``levels``; ``leaf_offset[mask]`` is where the marginal onto the
    axes of ``mask`` starts in ``leaf_map``, whose entries hold the tested slice of each
    marginal cell, or -1.
    """

    levels: np.ndarray
    cell_index: np.ndarray
    leaf_offset: np.ndarray
    leaf_map: np.ndarray


def tree_layout(cube: SliceCube, n_levels, lattice: Lattice, tested: np.ndarray):
    """The layout of the dense walk, or None when the dense cube exceeds DENSE_LIMIT.

    `tested[s]` is slice s's index among the tested slices, -1 when it is not tested.
    """
    n_levels = np.asarray(n_levels, dtype=np.int64)
    if float(np.prod(n_levels.astype(np.float64))) > DENSE_LIMIT or n_levels.size > 20:
        return None
    order = np.argsort(-n_levels, kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    levels = n_levels[order]
    cell_index = np.zeros(cube.cells.shape[0], dtype=np.int64)
    for axis in order:
        cell_index = cell_index * int(n_levels[axis]) + cube.cells[:, axis]
    leaf_offset = np.full(1 << order.size, -1, dtype=np.int64)
    maps, offset = [], 0
    for t, features in enumerate(lattice.sets):
        axes = sorted(features, key=lambda f: position[f])
        mask = sum(1 << int(position[f]) for f in features)
        members = np.flatnonzero(lattice.slice_set == t)
        local = np.zeros(members.size, dtype=np.int64)
        for f in axes:
            k = features.index(f)
            local = local * int(n_levels[f]) + lattice.slice_levels[members, k]
        block = np.full(int(np.prod([n_levels[f] for f in axes])), -1, dtype=np.int32)
        block[local] = tested[members]
        leaf_offset[mask] = offset
        maps.append(block)
        offset += block.size
    leaf_map = np.concatenate(maps) if maps else np.zeros(0, dtype=np.int32)
    return TreeLayout(levels, cell_index, leaf_offset, np.ascontiguousarray(leaf_map))
