"""The audit as a library package: every test of a model's predictions for every protected
attribute, with power and verdicts (:func:`fastfair.audit`), and its result.

Modules, in the order data flow through them:

- :mod:`~fastfair.auditing.results`: :class:`AuditResult` and its rows, :class:`AuditTest`
  and :class:`ModelComparisonRow`;
- :mod:`~fastfair.auditing.ingest`: the audit's options, checked once;
- :mod:`~fastfair.auditing.report`: the printed table and the HTML report;
- :mod:`~fastfair.auditing.api`: :func:`audit` on rows in memory: attributes coded, tests,
  power, verdicts;
- :mod:`~fastfair.auditing.summaries`: the same tests from the engines' mergeable summaries
  (``--engine arrow|dask``).
"""

from fastfair.auditing.api import audit, verdict
from fastfair.auditing.results import AuditResult, AuditTest, ModelComparisonRow

__all__ = ["AuditResult", "AuditTest", "ModelComparisonRow", "audit", "verdict"]
