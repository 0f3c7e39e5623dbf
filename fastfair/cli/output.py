"""Writing the command line's files (``--json``, ``--report``): all or nothing.

Every output is first written in full to a hidden temporary file in its folder
(``.fastfair-<pid>-<random>.tmp``), flushed to disk; only when every one is complete are
they renamed over their targets, one after the other with SIGINT and SIGTERM held back,
so an interruption never leaves a new JSON beside an old report. A write error (a full
disk, a file-size limit) is reported as one ``fastfair: error:`` line naming the output
(exit status 2), and an interruption (SIGINT, SIGTERM) removes the temporary files before
the process ends. A target that exists must be a regular file: a device, a FIFO or a socket
is refused, never replaced. A symbolic link is followed: the file it points to is replaced
and the link kept.
"""

from __future__ import annotations

import os
import secrets
import signal
import stat
import threading
from collections.abc import Sequence

from fastfair.cli.arguments import CLIError, _not_regular

__all__ = ["write_outputs"]

#: The signals that end the command; while the files are renamed they wait.
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))


class _Terminated(BaseException):
    """SIGTERM, raised where it lands so that the temporary files are removed."""


def write_outputs(outputs: Sequence[tuple[str, str, str]]) -> None:
    """Write each ``(option, path, text)`` to its path, all of them or none.

    Parameters
    ----------
    outputs : sequence of (str, str, str)
        The option that names each file (for messages), its path, and its text (UTF-8).

    Returns
    -------
    None

    Raises
    ------
    CLIError
        A target is not a regular file, or a file cannot be written (the message names the
        option, the path and the reason); no target has then been changed.

    Examples
    --------
    >>> import os, tempfile
    >>> from fastfair.cli.output import write_outputs
    >>> folder = tempfile.mkdtemp()
    >>> write_outputs([("--json", os.path.join(folder, "a.json"), "{}"),
    ...                ("--report", os.path.join(folder, "a.html"), "<p>")])
    >>> sorted(os.listdir(folder)), open(os.path.join(folder, "a.json")).read()
    (['a.html', 'a.json'], '{}')
    """
    targets = {}
    for option, path, _ in outputs:  # links followed: two names of one file lose one output
        other = targets.setdefault(os.path.realpath(path), option)
        if other != option:
            raise CLIError(f"{other} and {option} name the same file ({path})")
    pending = _Pending()
    with pending:
        staged = [(option, *pending.stage(option, path, text)) for option, path, text in outputs]
        pending.commit(staged)


class _Pending:
    """The temporary files of one write: removed on any exit but a completed commit, with
    SIGINT and SIGTERM turned into exceptions (SIGTERM re-sent once the files are gone)."""

    def __init__(self):
        self.temps: list[str] = []
        self.terminated = False
        self.holding = False
        self.held: list[int] = []
        self.previous: dict = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in SIGNALS:
                self.previous[signum] = signal.signal(signum, self._on_signal)
        return self

    def __exit__(self, exc_type, exc, tb):
        self.holding = True  # a second Ctrl-C must not stop the cleanup half way
        for tmp in self.temps:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        if self.terminated or getattr(signal, "SIGTERM", None) in self.held:
            # end as SIGTERM would have, now that nothing is left behind
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        if self.held and exc_type is None:
            raise KeyboardInterrupt
        return False

    def _on_signal(self, signum, frame):
        if self.holding:  # renaming: the signal acts once every file is in place
            self.held.append(signum)
            return
        self._raise(signum)

    def _raise(self, signum):
        if signum == getattr(signal, "SIGTERM", None):
            self.terminated = True
            raise _Terminated
        raise KeyboardInterrupt

    def stage(self, option: str, path: str, text: str) -> tuple[str, str]:
        """Write `text` to a new temporary file beside the file `path` names; return the
        target (a link resolved) and the temporary file."""
        target = _regular_target(option, path)
        folder = os.path.dirname(target)
        for _ in range(100):
            tmp = os.path.join(folder, f".fastfair-{os.getpid()}-{secrets.token_hex(4)}.tmp")
            self.temps.append(tmp)  # before it exists: an interruption can come at any time
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                break
            except FileExistsError:  # not ours: never removed
                self.temps.pop()
            except OSError as exc:
                self.temps.pop()
                raise _cannot_write(option, path, exc) from exc
        else:
            raise CLIError(f"{option} {path}: cannot create a temporary file in {folder}")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())  # a full disk may only show here (or at close)
        except OSError as exc:
            raise _cannot_write(option, path, exc) from exc
        return target, tmp

    def commit(self, staged: Sequence[tuple[str, str, str]]) -> None:
        """Rename every temporary file over its target, signals held back meanwhile."""
        self.holding = True
        try:
            for option, target, _ in staged:
                _regular_target(option, target)  # it may have changed while we wrote
            for option, target, tmp in staged:
                try:
                    os.replace(tmp, target)
                except OSError as exc:
                    raise _cannot_write(option, target, exc) from exc
                self.temps.remove(tmp)
        finally:
            self.holding = False
        if self.held:  # every file is in place: now the signal ends the command
            self._raise(self.held[0])


def _regular_target(option: str, path: str) -> str:
    """The file `path` names, links followed; a CLIError unless it is absent or regular."""
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise _cannot_write(option, path, exc) from exc
    if not stat.S_ISREG(mode):
        raise CLIError(f"{option} {path}: {_not_regular(mode)}; give the name of a regular file")
    return target


def _cannot_write(option: str, path: str, exc: OSError) -> CLIError:
    reason = exc.strerror or str(exc)
    return CLIError(f"{option} {path}: cannot write: {reason}")
