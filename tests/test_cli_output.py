"""The command line's output files under faults (#26): special targets, write errors,
interruptions.

Targets that are not regular files are refused and left as they are; a write error is one
``fastfair: error:`` line naming the output (exit status 2); SIGINT or SIGTERM at any point
of the writing leaves no temporary file behind, and either every output is new or none is.
The faults are real (a FIFO, a character device, a file-size limit, signals sent to the
process) and the signal tests run the command in a child process, at the moment chosen by
wrapping one os function.
"""

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap

import pytest

from fastfair import cli
from fastfair.cli.arguments import CLIError
from fastfair.cli.output import write_outputs

POSIX = pytest.mark.skipif(os.name != "posix", reason="FIFOs, rlimits and signals of POSIX")
CSV = "y,pred,grp\n" + "".join(
    f"{i % 2},{(i * 3 % 5) > 1:d},{'ab'[i % 3 == 0]}\n" for i in range(60)
)
BASE = ["--label", "y", "--pred", "pred", "--group", "grp", "--metrics", "tpr", "--quiet"]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(CSV)
    return path


def _run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, err, *parts):
    assert code == 2, err
    assert err.startswith("fastfair: error: ") and err.count("\n") == 1, err
    for part in parts:
        assert part in err, err


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".fastfair-"))


# --------------------------------------------------------------------------------------
# Case 2: a target that is not a regular file is refused, never replaced
# --------------------------------------------------------------------------------------


@POSIX
@pytest.mark.parametrize("option", ["--json", "--report"])
def test_fifo_target_is_refused_not_replaced(option, data, capsys):
    fifo = data.parent / "pipe"
    os.mkfifo(fifo)
    code, out, err = _run(["audit", data, *BASE, option, fifo, "--force"], capsys)
    _one_line_error(code, err, f"{option} {fifo}", "is a FIFO (named pipe), not a regular file")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and out == ""


@POSIX
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod: root")
def test_character_device_target_is_refused_not_replaced(data, capsys):
    """A full-disk device as /dev/full is, made in the test's folder (never /dev itself)."""
    device = data.parent / "full"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    code, _, err = _run(["audit", data, *BASE, "--json", device, "--force"], capsys)
    _one_line_error(code, err, "is a character device, not a regular file")
    assert stat.S_ISCHR(os.lstat(device).st_mode)


@POSIX
def test_symlink_is_written_through_and_kept(data, capsys):
    real = data.parent / "real.json"
    real.write_text("old")
    link = data.parent / "latest.json"
    link.symlink_to(real)
    code, _, err = _run(["audit", data, *BASE, "--json", link, "--force"], capsys)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text())["n_rows"] == 60
    fifo = data.parent / "pipe"
    os.mkfifo(fifo)
    (data.parent / "to_pipe").symlink_to(fifo)
    code, _, err = _run(["audit", data, *BASE, "--json", data.parent / "to_pipe", "--force"],
                        capsys)  # fmt: skip
    _one_line_error(code, err, "is a FIFO")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@POSIX
def test_json_and_report_through_a_link_to_one_file_are_refused(data, capsys):
    """A link naming the other output: the report would replace the JSON just written."""
    out = data.parent / "out.json"
    (data.parent / "link.html").symlink_to(out)
    argv = ["audit", data, *BASE, "--force", "--json", out, "--report", data.parent / "link.html"]
    code, _, err = _run(argv, capsys)
    _one_line_error(code, err, "--json and --report name the same file")
    with pytest.raises(CLIError, match="--json and --report name the same file"):
        write_outputs(
            [("--json", str(out), "{}"), ("--report", str(data.parent / "link.html"), "")]
        )
    assert not out.exists()


def test_output_that_is_the_data_file_is_refused_even_with_force(data, capsys):
    """--force overwrites an old output, not the table being audited."""
    code, _, err = _run(["audit", data, *BASE, "--report", data, "--force"], capsys)
    _one_line_error(code, err, f"--report {data}: is the DATA file")
    assert data.read_text() == CSV


def test_a_link_to_the_data_file_as_output_is_refused_even_with_force(data, capsys):
    """A symbolic link to the table (or a path that reaches it through "..") names the
    DATA file too: refused with --force, the table unchanged, the link kept."""
    link = data.parent / "out.json"
    link.symlink_to(data)
    (data.parent / "sub").mkdir()
    for target in (link, data.parent / "sub" / ".." / "d.csv"):
        code, _, err = _run(["audit", data, *BASE, "--json", target, "--force"], capsys)
        _one_line_error(code, err, f"--json {target}: is the DATA file")
    assert data.read_text() == CSV and link.is_symlink()


@POSIX
def test_target_that_became_special_after_the_check_is_refused(tmp_path):
    """The writer checks again: the path may change while the audit runs."""
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    other = tmp_path / "b.html"
    with pytest.raises(CLIError, match=r"--json .*is a FIFO"):
        write_outputs([("--report", str(other), "<p>"), ("--json", str(fifo), "{}")])
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not other.exists() and _leftovers(tmp_path) == []


# --------------------------------------------------------------------------------------
# Case 3: a write error is one line naming the output, exit status 2
# --------------------------------------------------------------------------------------


def test_full_disk_is_one_line_naming_the_output(data, capsys, monkeypatch):
    import errno

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    out = data.parent / "r.html"
    out.write_text("old report")
    code, _, err = _run(["audit", data, *BASE, "--report", out, "--force"], capsys)
    _one_line_error(code, err, f"--report {out}: cannot write: No space left on device")
    assert out.read_text() == "old report" and _leftovers(data.parent) == []


def _child(code: str, cwd) -> subprocess.CompletedProcess:
    """Run `code` in a new interpreter (its own signal handlers and limits)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


@POSIX
def test_file_size_limit_is_one_line_naming_the_output(data):
    """RLIMIT_FSIZE: the write fails with EFBIG (Python ignores SIGXFSZ)."""
    out = data.parent / "r.json"
    out.write_text("old")
    res = _child(
        f"""
        import resource, sys
        from fastfair import cli
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
        sys.exit(cli.main({["audit", str(data), *BASE, "--json", str(out), "--force"]!r}))
        """,
        data.parent,
    )
    _one_line_error(res.returncode, res.stderr, f"--json {out}: cannot write: File too large")
    assert out.read_text() == "old" and _leftovers(data.parent) == []


# --------------------------------------------------------------------------------------
# Case 4: interruptions leave no temporary file and never half the outputs
# --------------------------------------------------------------------------------------

WRAP = """
import os, signal, sys
from fastfair import cli
real = getattr(os, {name!r})
calls = []

def wrapped(*args, **kwargs):
    {body}

setattr(os, {name!r}, wrapped)
sys.exit(cli.main({argv!r}))
"""


def _interrupted(data, name, body, outputs=("json", "report")):
    folder = data.parent
    argv = ["audit", str(data), *BASE, "--force"]
    for kind in outputs:
        path = folder / f"out.{kind}"
        path.write_text(f"old {kind}")
        argv += [f"--{kind}", str(path)]
    body = textwrap.indent(textwrap.dedent(body).strip(), "    ").strip()
    return _child(WRAP.format(name=name, body=body, argv=argv), folder)


def _contents(folder, outputs=("json", "report")):
    return ["old" if (folder / f"out.{k}").read_text().startswith("old") else "new"
            for k in outputs]  # fmt: skip


@POSIX
def test_sigterm_while_writing_removes_the_temporary_files(data):
    res = _interrupted(
        data,
        "fdopen",
        """
        os.kill(os.getpid(), signal.SIGTERM)  # the temporary file exists: SIGTERM lands
        return real(*args, **kwargs)
        """,
    )
    assert res.returncode == -signal.SIGTERM, res.stderr
    assert _leftovers(data.parent) == [] and _contents(data.parent) == ["old", "old"]


@POSIX
def test_sigint_right_after_the_temporary_file_is_created(data):
    res = _interrupted(
        data,
        "open",
        """
        fd = real(*args, **kwargs)
        if ".fastfair-" in str(args[0]):  # Ctrl-C as open returns, before anything else
            raise KeyboardInterrupt
        return fd
        """,
    )
    assert "KeyboardInterrupt" in res.stderr
    assert _leftovers(data.parent) == [] and _contents(data.parent) == ["old", "old"]


@POSIX
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_between_the_renames_waits_until_every_file_is_in_place(data, signum):
    res = _interrupted(
        data,
        "replace",
        f"""
        real(*args, **kwargs)
        calls.append(args)
        if len(calls) == 1:  # the first output is in place: interrupt before the second
            os.kill(os.getpid(), {int(signum)})
        """,
    )
    assert res.returncode != 0
    assert _leftovers(data.parent) == [] and _contents(data.parent) == ["new", "new"]


@POSIX
def test_error_rendering_the_report_leaves_the_json_untouched(data):
    """Every output is rendered and written to its temporary file before any rename."""
    folder = data.parent
    argv = ["audit", str(data), *BASE, "--force"]
    for kind in ("json", "report"):
        (folder / f"out.{kind}").write_text(f"old {kind}")
        argv += [f"--{kind}", str(folder / f"out.{kind}")]
    code = """
        from fastfair import cli
        from fastfair.auditing import results as result
        def broken(self, *a, **k):
            raise MemoryError("rendering")
        result.AuditResult.to_html = broken
        cli.main(ARGV)
        """
    res = _child(code.replace("ARGV", repr(argv)), folder)
    assert "MemoryError" in res.stderr
    assert _leftovers(folder) == [] and _contents(folder) == ["old", "old"]


@POSIX
def test_a_dangling_link_is_an_existing_output_until_force(data, capsys):
    """A link whose file does not exist yet is an existing name (os.path.lexists): without
    --force it is refused and left dangling; with --force the file it names is written
    through it and the link kept."""
    target = data.parent / "later.json"
    link = data.parent / "link.json"
    link.symlink_to(target)
    code, _, err = _run(["audit", data, *BASE, "--json", link], capsys)
    _one_line_error(code, err, f"--json {link}: the file exists; use --force to overwrite it")
    assert link.is_symlink() and not target.exists()
    code, _, err = _run(["audit", data, *BASE, "--json", link, "--force"], capsys)
    assert code == 0, err
    assert link.is_symlink() and json.loads(target.read_text())["n_rows"] == 60


def test_write_audit_prints_the_table_then_the_demo_source_and_writes_each_file(tmp_path, capsys):
    """write_audit: the table (format(max_rows)), the demo's data line only with --demo, and
    each file given holding its own rendering (--json the JSON, --report the HTML page)."""
    import argparse

    import numpy as np

    import fastfair
    from fastfair.cli.writing import DEMO_SOURCE, write_audit

    rng = np.random.default_rng(0)
    res = fastfair.audit(rng.random(300) < 0.4, rng.random(300) < 0.5,
                         rng.choice(["a", "b"], 300), metrics=["tpr"], random_state=0)  # fmt: skip
    paths = {k: tmp_path / f"audit.{k}" for k in ("json", "html")}
    args = argparse.Namespace(max_rows=1, demo=True, json=str(paths["json"]),
                              report=str(paths["html"]))  # fmt: skip
    write_audit(res, args)
    assert capsys.readouterr().out == res.format(max_rows=1) + "\n" + DEMO_SOURCE + "\n"
    assert paths["json"].read_text() == res.to_json()
    assert paths["html"].read_text().lstrip().lower().startswith("<!doctype html")
    write_audit(res, argparse.Namespace(max_rows=None, demo=False, json=None, report=None))
    assert capsys.readouterr().out == res.format(max_rows=None) + "\n"
