"""Functions stay short (#27): no function of the package has more than MAX_BODY_LINES lines
of body (its docstring not counted), except argparse declaration functions named in
ALLOWED, whose length is the list of options itself."""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "fastfair"
#: Lines of a function's body, from its first statement after the docstring to its end.
MAX_BODY_LINES = 80
#: Functions that only declare command-line arguments (one add_argument call per option).
ALLOWED = {"cli/arguments.py:_add_audit"}


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement after the docstring to the function's last line."""
    body = node.body
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        body = body[1:]
    if not body:
        return 0
    return node.end_lineno - body[0].lineno + 1


def long_functions(root: pathlib.Path, limit: int) -> dict[str, int]:
    """`file:function` -> body lines, for every function (methods and nested ones too)
    longer than `limit`."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = body_lines(node)
                if n > limit:
                    out[f"{path.relative_to(root).as_posix()}:{node.name}"] = n
    return out


def test_no_function_is_longer_than_the_limit():
    long = long_functions(PACKAGE, MAX_BODY_LINES)
    bad = {name: n for name, n in long.items() if name not in ALLOWED}
    assert bad == {}, f"functions over {MAX_BODY_LINES} body lines (split them): {bad}"


#: The calls an argument declaration function is made of.
DECLARATIONS = {"add_argument", "add_argument_group", "add_mutually_exclusive_group", "add_parser"}


def declaration_problems(node: ast.FunctionDef) -> list[str]:
    """Statements of `node` other than its docstring, ``parser.add_argument(...)`` calls and
    ``group = parser.add_argument_group(...)``-style assignments (no logic may hide there)."""
    out = []
    for statement in node.body:
        value = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
        if isinstance(value, ast.Constant) and statement is node.body[0]:
            continue  # the docstring
        if isinstance(value, ast.Call) and getattr(value.func, "attr", "") in DECLARATIONS:
            continue
        out.append(f"line {statement.lineno}: {ast.unparse(statement).splitlines()[0]}")
    return out


def test_allowed_functions_exist_and_are_argument_declarations():
    """The allow-list names real, long functions made only of add_argument calls (at least
    ten), so that it cannot hide logic, or a function that was renamed or shortened (then
    drop it from ALLOWED)."""
    long = long_functions(PACKAGE, MAX_BODY_LINES)
    for name in ALLOWED:
        assert name in long, f"{name} is not over the limit any more: remove it from ALLOWED"
        file, _, func = name.partition(":")
        tree = ast.parse((PACKAGE / file).read_text())
        node = next(n for n in ast.walk(tree) if getattr(n, "name", None) == func)
        assert declaration_problems(node) == [], f"{name} holds more than declarations"
        calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
        adds = [c for c in calls if getattr(c.func, "attr", "") == "add_argument"]
        assert len(adds) >= 10, f"{name} is not an argument declaration function"


def test_the_declaration_check_sees_logic():
    code = (
        'def f(sub):\n    """doc"""\n    p = sub.add_parser("a")\n    p.add_argument("--x")\n'
        '    if p:\n        p.add_argument("--y")\n    p.set_defaults(z=1)\n'
    )
    node = ast.parse(code).body[0]
    assert declaration_problems(node) == ["line 5: if p:", "line 7: p.set_defaults(z=1)"]


def test_the_measure_counts_body_lines_without_the_docstring(tmp_path):
    code = "def f():\n    '''doc\n    more'''\n" + "    x = 1\n" * 81 + "\n\ndef g():\n    pass\n"
    (tmp_path / "m.py").write_text(code)
    assert long_functions(tmp_path, 80) == {"m.py:f": 81}
    assert long_functions(tmp_path, 81) == {}
