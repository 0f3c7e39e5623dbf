"""docs/architecture.md stays the map of the code (#27): every file it names exists, every
``file.py: name`` it cites is defined there, and its listing of a package's files names each
module of the package, so that a moved, renamed or new module fails here until the page
says where it went."""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"

#: A path from the repository's root.
PATH = re.compile(
    r"\b((?:fastfair|csrc|tests|benchmarks|docs|validation)/[\w/]*\w\.(?:pyx|py|h|md))\b"
)
#: `file.py: name` (a function, class or constant cited in the file).
CITED = re.compile(r"\b((?:fastfair/|csrc/)?[\w/]*\w\.(?:pyx|py)): `?(\w+)")
#: The first line of a listing of a package's files: the package's folder alone on its line.
LISTING = re.compile(r"^(fastfair/\w+/)$")


def _resolve(path: str) -> pathlib.Path | None:
    """The file a cited path names: from the root, or inside fastfair/ (engines/groups.py)."""
    for candidate in (ROOT / path, ROOT / "fastfair" / path, ROOT / "csrc" / path):
        if candidate.is_file():
            return candidate
    return None


def _defined(path: pathlib.Path, name: str) -> bool:
    """`name` is defined at any level of `path` (def, class, assignment; cdef in Cython)."""
    text = path.read_text()
    if path.suffix != ".py":
        return re.search(rf"\b(?:def|cdef|cpdef)\b[^\n(]*\b{name}\b", text) is not None
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                return True
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def listings(text: str) -> dict[str, list[str]]:
    """Package folder -> the files a code-block listing of it names (``  name.py  what``)."""
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        head = LISTING.match(line.strip()) if not line.startswith(" ") else None
        if head:
            current = head.group(1)
            out[current] = []
        elif current and (m := re.match(r"^  (\w+\.py)\b", line)):
            out[current].append(m.group(1))
        elif current and not line.startswith(" "):
            current = None
    return out


def problems(text: str) -> list[str]:
    out = []
    for path in sorted(set(PATH.findall(text))):
        if not (ROOT / path).exists():
            out.append(f"no file {path}")
    for path, name in sorted(set(CITED.findall(text))):
        found = _resolve(path)
        if found is None:
            out.append(f"no file {path} (citing {name})")
        elif not _defined(found, name):
            out.append(f"{path} defines no {name}")
    for folder, files in listings(text).items():
        package = ROOT / folder
        if not package.is_dir():
            out.append(f"no package {folder}")
            continue
        modules = sorted(p.name for p in package.glob("*.py") if p.name != "__init__.py")
        if "<family>" in folder or not files:
            continue
        for name in sorted(set(modules) - set(files)):
            out.append(f"{folder}{name} is not in the page's listing of {folder}")
        for name in sorted(set(files) - set(modules)):
            out.append(f"the listing of {folder} names {name}, which does not exist")
    return out


def test_the_architecture_page_names_real_files_and_functions():
    text = DOC.read_text()
    assert len(listings(text)) >= 4  # engines, auditing, cli, calibration
    assert problems(text) == []


def test_the_page_check_sees_stale_entries():
    text = (
        "(fastfair/auditing/api.py: audit) fastfair/nowhere.py engines/groups.py: no_such\n"
        "```\nfastfair/cli/\n  arguments.py  the parser\n  gone.py  moved away\n```\n"
    )
    found = problems(text)
    assert "no file fastfair/nowhere.py" in found
    assert "engines/groups.py defines no no_such" in found
    assert "the listing of fastfair/cli/ names gone.py, which does not exist" in found
    assert "fastfair/cli/commands.py is not in the page's listing of fastfair/cli/" in found
    assert not any("auditing/api.py" in p for p in found)
