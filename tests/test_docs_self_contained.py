"""The method documentation lives in the repository: no docstring, doc page or README points
at a spec file kept outside it (METHODS.md, the papers folder) or at a path above it."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"METHODS\.md|\.\./shared|/work/shared|shared/spec|shared/papers")


def files():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))
    yield from sorted((ROOT / "fastfair").rglob("*.py"))
    for pattern in ("*.pyx", "*.pxd", "*.h", "*.c"):
        yield from sorted((ROOT / "csrc").rglob(pattern))


def outside_references(text: str) -> list[str]:
    return [m.group(0) for m in OUTSIDE.finditer(text)]


def test_no_reference_outside_the_repository():
    found = {
        str(path.relative_to(ROOT)): refs
        for path in files()
        if (refs := outside_references(path.read_text(encoding="utf-8")))
    }
    assert not found, found


def test_the_check_finds_a_planted_reference():
    assert outside_references("see ../shared/spec/METHODS.md, Sec. 2") == [
        "../shared",
        "METHODS.md",
    ]
    assert outside_references("formulas in docs/parity.md") == []
