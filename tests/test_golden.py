"""Every golden call (tests/golden.py) gives the stored outputs.

Bit for bit, except the floats that go through BLAS/LAPACK (`golden.BLAS_FIELDS`, to the
relative tolerance `golden.RTOL`): OpenBLAS picks its kernels by CPU, so those differ in
their last bits between machines. `.ci/run` replays this file under two other OpenBLAS
kernels (`OPENBLAS_CORETYPE=Haswell` and `Prescott`); a failure there means a field that
depends on the CPU is compared bit for bit.

A failure lists the calls and fields that changed. If the change is deliberate, regenerate
with `python tests/golden.py --write` in a commit of its own that lists each change and why.
"""

import copy
import fnmatch
import importlib.util
import json
import math
import pathlib

import pytest

_spec = importlib.util.spec_from_file_location(
    "golden", pathlib.Path(__file__).with_name("golden.py")
)
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


@pytest.fixture(scope="module")
def stored():
    return json.loads(golden.PATH.read_text())


def test_outputs_equal_the_golden_file(stored):
    current = golden.run_all()
    diffs = golden.differences(stored, current)
    shown = "\n".join(diffs[:40])
    assert not diffs, f"{len(diffs)} golden values changed:\n{shown}"


def _scaled(hex_float, factor):
    return (float.fromhex(hex_float) * factor).hex()


def _next_up(hex_float):
    return math.nextafter(float.fromhex(hex_float), math.inf).hex()


def test_a_tolerant_float_may_move_by_rounding_not_more(stored):
    call = "correlation_test/stud=True/n_jobs=1"
    assert golden.is_tolerant("r", golden.tolerant_fields(call))
    for change, expected in ((_next_up, 0), (lambda h: _scaled(h, 1 + 1e-6), 1)):
        current = copy.deepcopy(stored)
        current[call]["r"] = change(stored[call]["r"])
        assert len(golden.differences(stored, current)) == expected


def test_every_other_float_must_be_bit_for_bit(stored):
    for call, field in (
        ("correlation_test/stud=True/n_jobs=1", "pvalue"),  # a count of permutations
        ("permutation_test/tpr/conditional/exact/pooled", "pvalue"),  # exact enumeration
        ("auc_test/0/full/stud=True/n_jobs=1", "statistic"),  # our compiled sums
    ):
        assert not golden.is_tolerant(field, golden.tolerant_fields(call))
        current = copy.deepcopy(stored)
        current[call][field] = _next_up(stored[call][field])
        assert golden.differences(stored, current) == [
            f"{call}.{field}: {golden._show(stored[call][field])} -> "
            f"{golden._show(current[call][field])}"
        ]


def test_long_arrays_compare_by_hash_or_by_sample(stored):
    # a tolerant long float array: its hash may change, its sample only by rounding
    call, field = "MultiObjectiveCalibrator", "transform"
    current = copy.deepcopy(stored)
    current[call][field]["sha1"] = "0" * 40
    current[call][field]["sample"][3] = _next_up(stored[call][field]["sample"][3])
    assert golden.differences(stored, current) == []
    current[call][field]["abs_sum"] = _scaled(stored[call][field]["abs_sum"], 1 + 1e-6)
    assert golden.differences(stored, current) == [
        f"{call}.{field}.abs_sum: {golden._show(stored[call][field]['abs_sum'])} -> "
        f"{golden._show(current[call][field]['abs_sum'])}"
    ]
    # any other long array: its hash
    call = "simulate/heavy_user_injection"
    arrays = [i for i, v in enumerate(stored[call]) if isinstance(v, dict) and "sha1" in v]
    current = copy.deepcopy(stored)
    current[call][arrays[0]]["sha1"] = "0" * 40
    assert len(golden.differences(stored, current)) == 1


def test_every_tolerant_field_names_stored_fields(stored):
    """No stale entry: each pattern matches a call, and each field pattern a field of it."""

    def fields(value, prefix=""):
        if isinstance(value, dict):
            items = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            return
        for k, v in items:
            path = f"{prefix}.{k}" if prefix else str(k)
            yield path
            yield from fields(v, path)

    for call_pattern, (patterns, why) in golden.BLAS_FIELDS.items():
        calls = [c for c in stored if fnmatch.fnmatchcase(c, call_pattern)]
        assert calls, call_pattern
        assert why
        paths = {p for c in calls for p in fields(stored[c])}
        for pattern in patterns:
            assert any(fnmatch.fnmatchcase(p, pattern) for p in paths), (call_pattern, pattern)
