"""Every golden call (tests/golden.py) gives the stored outputs, bit for bit.

A failure lists the calls and fields that changed. If the change is deliberate, regenerate
with `python tests/golden.py --write` in a commit of its own that lists each change and why.
"""

import importlib.util
import json
import pathlib

_spec = importlib.util.spec_from_file_location(
    "golden", pathlib.Path(__file__).with_name("golden.py")
)
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


def test_outputs_equal_the_golden_file():
    stored = json.loads(golden.PATH.read_text())
    current = golden.run_all()
    diffs = golden.differences(stored, current)
    shown = "\n".join(diffs[:40])
    assert not diffs, f"{len(diffs)} golden values changed:\n{shown}"
