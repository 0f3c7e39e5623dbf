"""The demo's HTML report laid out by headless Chromium at 1,280 and 420 px (issue #35).

Chromium renders the report in an iframe of the width under test (its headless window is at
least 500 px wide) and a script measures the layout through the DOM (getBoundingClientRect,
scroll boxes); ``--dump-dom`` returns the measurements as JSON. .ci/run installs chromium
when it is missing; the test skips only when no chromium can be found.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from fastfair.cli import main

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")

MEASURE = r"""
function measure(d, w) {
  var vw = w.innerWidth, out = {vw: vw, page: d.documentElement.scrollWidth};
  function rect(e) { var r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, width: r.width, height: r.height}; }
  function box(el) {  // the nearest ancestor that scrolls sideways
    while (el && !/auto|scroll/.test(getComputedStyle(el).overflowX)) el = el.parentElement;
    return el; }
  function reachable(el) {  // scroll its box to it: is it then inside the window?
    var b = box(el); b.scrollLeft = 0;
    var r0 = el.getBoundingClientRect(), bl = b.getBoundingClientRect();
    b.scrollLeft = r0.right - bl.right + 20;
    var r = rect(el); var first = null;
    var row = el.closest('tr');
    if (row) first = rect(row.firstElementChild);
    b.scrollLeft = 0;
    return {left: r.left, right: r.right, first: first, box: rect(b)}; }
  var tests = [].find.call(d.querySelectorAll('h2'),
    function (h) { return h.textContent === 'All tests'; });
  var table = tests.nextElementSibling.nextElementSibling.querySelector('table');
  var tbox = box(table);
  out.table = {box: rect(tbox), scroll: tbox.scrollWidth, client: tbox.clientWidth, cols: {}};
  [].forEach.call(table.querySelectorAll('th'), function (th) {
    out.table.cols[th.textContent] = reachable(th); });
  var forest = d.querySelector('.forest'), panels = forest.querySelector('svg.panels');
  var label = forest.querySelector('svg.labels text.t'), title = panels.querySelectorAll('text.h');
  out.forest = {box: rect(forest), scroll: forest.scrollWidth, client: forest.clientWidth,
    panels: rect(panels), panels_attr: +panels.getAttribute('width'),
    label: rect(label), label_font: getComputedStyle(label).fontSize,
    last_title: reachable(title[title.length - 1]),
    labels: rect(forest.querySelector('svg.labels'))};
  var slices = d.querySelector('table.slices');  // the slice search (--slices), if any
  if (slices) { var sbox = box(slices);
    out.slices = {box: rect(sbox), scroll: sbox.scrollWidth, client: sbox.clientWidth, cols: {}};
    [].forEach.call(slices.querySelectorAll('th'), function (th) {
      out.slices.cols[th.textContent] = reachable(th); }); }
  out.cards = [].map.call(d.querySelectorAll('.card'), rect);
  out.images = [].map.call(d.querySelectorAll('img'), function (im) {
    var r = im.getBoundingClientRect();
    return {width: r.width, natural: im.naturalWidth, left: r.left}; });
  return out;
}
"""

WRAPPER = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="f" src="{src}" style="width:{width}px;height:900px;border:0"></iframe>
<script>{measure}
document.getElementById('f').addEventListener('load', function () {{
  var out;
  try {{ out = measure(this.contentDocument, this.contentWindow); }}
  catch (e) {{ out = {{error: String(e)}}; }}
  var pre = document.createElement('pre'); pre.id = 'layout';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
}});
</script></body></html>
"""


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(
        "chromium not found (looked for " + ", ".join(BROWSERS) + "): "
        "apt-get install chromium; .ci/run installs it"
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    browser = _browser()
    pytest.importorskip("matplotlib")
    folder = tmp_path_factory.mktemp("report")
    path = folder / "audit.html"
    argv = ["audit", "--demo", "--quiet", "--permutations", "199", "--report", str(path)]
    assert main([*argv, "--slices"]) == 0  # with the slice section (#29)
    return browser, folder


def _layout(report, width: int) -> dict:
    browser, folder = report
    page = folder / f"wrap{width}.html"
    page.write_text(WRAPPER.format(src="audit.html", width=width, measure=MEASURE))
    cmd = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--allow-file-access-from-files", f"--user-data-dir={folder / f'profile{width}'}",
        "--window-size=1400,1000", "--dump-dom", page.as_uri(),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    found = re.search(r'<pre id="layout">(.*?)</pre>', proc.stdout, re.S)
    assert found, f"no layout in chromium's DOM (status {proc.returncode}): {proc.stderr[-2000:]}"
    out = json.loads(html.unescape(found.group(1)))
    assert "error" not in out, out
    assert out["vw"] == width
    return out


@pytest.fixture(scope="module")
def narrow(report):
    return _layout(report, 420)


@pytest.fixture(scope="module")
def wide(report):
    return _layout(report, 1280)


def test_narrow_page_never_scrolls_sideways(narrow):
    assert narrow["page"] <= narrow["vw"]
    for card in narrow["cards"]:  # the three summary cards stack
        assert card["right"] <= narrow["vw"] and card["width"] >= 300
    assert len({round(c["top"]) for c in narrow["cards"]}) == 3


@pytest.mark.parametrize("column", ["p-value", "MDE", "verdict", "adjusted", "rows for τ"])
def test_narrow_every_column_of_the_tests_table_is_reachable(narrow, column):
    table = narrow["table"]
    assert table["box"]["right"] <= narrow["vw"]  # the table scrolls inside its own box
    assert table["scroll"] > table["client"]
    col = table["cols"][column]
    assert 0 <= col["left"] and col["right"] <= narrow["vw"]  # scrolled to: on screen
    assert col["first"]["left"] >= table["box"]["left"] - 1  # the metric column stays


@pytest.mark.parametrize("column", ["difference [simultaneous CI]", "p (adjusted)", "parents"])
def test_narrow_every_column_of_the_slices_table_is_reachable(narrow, column):
    table = narrow["slices"]
    assert table["box"]["right"] <= narrow["vw"] and table["scroll"] > table["client"]
    col = table["cols"][column]
    assert 0 <= col["left"] and col["right"] <= narrow["vw"]
    assert col["first"]["left"] >= table["box"]["left"] - 1  # the slice column stays


def test_narrow_forest_plot_keeps_its_text_size(narrow):
    forest = narrow["forest"]
    assert forest["box"]["right"] <= narrow["vw"]
    assert forest["panels"]["width"] == forest["panels_attr"]  # drawn at 1:1, not shrunk
    assert forest["label_font"] == "12px" and forest["label"]["height"] >= 11
    last = forest["last_title"]  # the last panel (AUC) scrolls into view, labels stay
    assert 0 <= last["left"] and last["right"] <= narrow["vw"]
    assert forest["labels"]["left"] >= forest["box"]["left"] - 1


def test_narrow_plots_fit_without_shrinking_much(narrow):
    assert len(narrow["images"]) >= 4
    for im in narrow["images"]:
        assert im["left"] >= 0 and im["left"] + im["width"] <= narrow["vw"]
        assert im["width"] >= 0.95 * im["natural"]  # text in the PNGs stays legible


def test_wide_layout_needs_no_scrolling(wide):
    assert wide["page"] <= wide["vw"]
    assert wide["table"]["scroll"] <= wide["table"]["client"]  # the whole table in view
    for col in wide["table"]["cols"].values():
        assert col["right"] <= wide["vw"]
    assert wide["forest"]["scroll"] <= wide["forest"]["client"]
    assert wide["slices"]["scroll"] <= wide["slices"]["client"]  # the parents' values wrap
    assert len({round(c["top"]) for c in wide["cards"]}) == 1  # three cards on one row
    for im in wide["images"]:
        assert im["width"] == im["natural"]


@pytest.fixture(scope="module")
def with_error(tmp_path_factory):
    """A report whose predictive-parity test could not run: its reason is 1,000 characters
    (seven small groups, each named with the grid points it lacks), as on COMPAS."""
    browser = _browser()
    pytest.importorskip("matplotlib")
    folder = tmp_path_factory.mktemp("report_error")
    rng = np.random.default_rng(1)
    lines = ["y,score,group"]
    for group, n in [("big", 600)] + [(f"small{i}", 12) for i in range(7)]:
        score = rng.random(n)
        for s, y in zip(score, rng.random(n) < score):
            lines.append(f"{int(y)},{s:.3f},{group}")
    data = folder / "data.csv"
    data.write_text("\n".join(lines) + "\n")
    argv = [str(data), "--label", "y", "--score", "score", "--group", "group"]
    argv += ["--metrics", "tpr", "--quiet", "--report", str(folder / "audit.html")]
    assert main(["audit", *argv]) == 0
    assert "ERROR, not run" in (folder / "audit.html").read_text()
    return browser, folder


def test_wide_table_fits_with_a_test_that_could_not_run(with_error):
    wide = _layout(with_error, 1280)
    assert wide["table"]["scroll"] <= wide["table"]["client"]  # the reason wraps
    for col in wide["table"]["cols"].values():
        assert col["right"] <= wide["vw"]
