"""The `fastfair` command line: a complete fairness audit of a table of predictions.

    fastfair audit DATA --label COL (--pred COL | --score COL [--threshold T])
                   --group COL [COL ...] [--intersections]
    fastfair audit --demo
    fastfair plan --metric tpr --rate tpr=0.68,0.79 --rate prevalence=0.35,0.44 --tau 0.1

Exit status 0 on success, 2 with a one-line reason on bad input. Nothing is written unless
asked (--json, --report); files are written all or nothing (temporary files, renamed
together at the end; special files refused: :mod:`fastfair.cli.output`).
The audit itself is :func:`fastfair.audit`; the command line reads the file, checks the
options and writes what that returns. The JSON keys are documented in docs/cli.md.

Layers of this subpackage (each imports only those above it):

* ``arguments.py``: the parser; every option and output path checked before data are read
* ``output.py``: the output files written all or nothing, through write errors and signals
* ``loading.py``: the audit's columns read from a CSV or Parquet file
* ``writing.py``: the printed table, ``--json`` and ``--report`` of an audit
* ``commands.py``: ``fastfair audit`` and ``fastfair plan`` (parse -> load -> audit ->
  write)

The audit itself, its result and its report are the library package
:mod:`fastfair.auditing`; the engines that read files beyond memory are
:mod:`fastfair.engines`.
"""

from fastfair.cli.commands import main
from fastfair.cli.loading import read_table

__all__ = ["main", "read_table"]
