"""README's first screen: two commands, one that installs and runs the demo audit with a
report, one that runs the tests; .ci/run installs the same extra and runs the same test
command (issue #35: the install used to compile the package twice)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_readme_gives_one_install_and_one_test_command():
    install, test = _readme_commands()
    extras = re.findall(r'pip install "\.\[(\w+)\]"', install)
    assert len(extras) == 1 and "fastfair audit --demo --report audit.html" in install
    assert "pip install" not in test  # nothing compiled a second time
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert any(f'".[{extras[0]}]"' in line and "pip install" in line for line in ci)
    assert test in [line.strip() for line in ci]  # CI runs the README's test command
