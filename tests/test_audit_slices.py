"""The audit's slice search (#29): ``fastfair.audit(..., slices=DEPTH)`` and ``fastfair audit
--slices [DEPTH]``.

The section is checked against :func:`fastfair.find_slices` on the rows (the independent
route: it codes the columns itself and builds its own cube), on every engine (arrow and dask
here, Spark in tests/test_spark.py), for its error control over several metrics (a
simulation under the global null: without the split of alpha over the metrics it fails),
for what it says when nothing can be searched, and in every output (to_dict, to_frame, the
printed audit, the HTML report, the command line's JSON, table and summary line).
"""

import json
import pathlib
import re

import numpy as np
import pytest

import fastfair
from fastfair.auditing.api import slice_search
from fastfair.auditing.ingest import DEFAULT_METRICS, check_audit_settings, slice_permutations
from fastfair.cli import main
from fastfair.stats import ConfusionCube

pd = pytest.importorskip("pandas")

DEMO = pathlib.Path(fastfair.__file__).with_name("data") / "adult_demo.csv"
OPTIONS = dict(n_permutations=199, random_state=1, n_jobs=1)
GROUPS = ["sex", "race"]


@pytest.fixture(scope="module")
def frame():
    return pd.read_csv(DEMO)


@pytest.fixture(scope="module")
def memory(frame):
    return fastfair.audit("label", "prediction", GROUPS, data=frame, slices=2, **OPTIONS)


def test_each_metric_is_find_slices_on_the_rows_at_alpha_over_the_metrics(frame, memory):
    sl = memory.slices
    assert sl.features == ("sex", "race") and sl.max_depth == 2 and sl.min_size == 50
    assert sl.metrics == ("tpr", "fpr", "ppv", "selection_rate", "accuracy")  # eq. odds: tpr, fpr
    assert sl.metric_alpha == pytest.approx(0.05 / 5) and sl.n_permutations == 199
    assert sl.notes == {}
    for metric, res in sl.searches.items():
        rows = fastfair.find_slices(
            frame, "label", "prediction", features=GROUPS, metric=metric, max_depth=2,
            min_size=50, n_permutations=199, alpha=0.01, random_state=1, n_jobs=1,
        )  # fmt: skip
        assert res.to_dict() == rows.to_dict(), metric
    # the demo's largest slice gap: the selection rate of women (0.079 against 0.249)
    metric, top = sl.found[0]
    assert (metric, top.description) == ("selection_rate", "sex = Female")
    assert round(top.value, 3) == 0.079 and round(top.complement_value, 3) == 0.249
    assert len(sl.found) == sum(len(r.slices) for r in sl.searches.values()) == 25
    gaps = [abs(s.difference) for _, s in sl.found]
    assert gaps == sorted(gaps, reverse=True)


@pytest.fixture(scope="module")
def parquet(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("slices") / "demo.parquet"
    frame.to_parquet(path, row_group_size=4096, index=False)
    return str(path)


@pytest.mark.parametrize("engine", ["memory", "arrow", "dask"])
def test_every_engine_gives_the_same_slices(memory, parquet, engine):
    pytest.importorskip("pyarrow")
    if engine == "dask":
        pytest.importorskip("dask")
    other = fastfair.audit("label", "prediction", GROUPS, data=parquet, engine=engine,
                           scheduler="sync" if engine == "dask" else None, slices=2,
                           **OPTIONS)  # fmt: skip
    assert other.engine == engine
    assert other.slices.to_dict() == memory.slices.to_dict()


def test_exports_carry_the_slices(memory):
    d = memory.to_dict()
    assert d["slices"]["searches"]["tpr"]["n_slices"] == memory.slices.searches["tpr"].n_slices
    assert "max-T over 199 joint permutations" in d["slices"]["control"]
    assert json.loads(memory.to_json())["slices"] == d["slices"]
    frame = memory.to_frame()
    rows = frame[frame["family"] == "slice"]
    assert len(rows) == len(memory.slices.found)
    first = rows.iloc[0]
    assert (first["group"], first["reference"], first["attribute"]) == (
        "sex = Female", "complement", "sex")  # fmt: skip
    assert first["ci_low"] <= first["difference"] <= first["ci_high"]
    own = memory.slices.to_frame()
    assert list(own.columns) == ["metric", *fastfair.SliceSearchResult.to_frame(
        memory.slices.searches["tpr"]).columns]  # fmt: skip
    assert own["slice"].tolist() == rows["group"].tolist()
    plain = fastfair.audit("label", "prediction", GROUPS, data=memory_frame(), **OPTIONS)
    assert plain.slices is None and "slices" not in plain.to_dict()
    assert "slice" not in set(plain.to_frame()["family"])


#: Each rate's (denominator, numerator) rows of the demo, written out.
def _rate_rows(frame):
    y, p = frame["label"].to_numpy() == 1, frame["prediction"].to_numpy() == 1
    every = np.ones(len(frame), dtype=bool)
    return {"tpr": (y, p), "fpr": (~y, p), "ppv": (p, y), "selection_rate": (every, p),
            "accuracy": (every, y == p)}  # fmt: skip


def test_frame_slice_rows_read_back_from_the_rows(frame, memory):
    """Each slice row of the audit's to_frame(), column by column, against pandas on the
    demo's rows: value_group and value_reference are the slice's rate and its complement's,
    n_group the slice's rows in the rate's denominator (TPR, FPR: fewer than its rows), the
    difference theirs; interval, statistic and p-values the FoundSlice's; and the printed
    table's size and n columns hold the slice's rows and its denominator."""
    out = memory.to_frame()
    rows = out[out["family"] == "slice"]
    rates = _rate_rows(frame)
    smaller = 0
    assert len(rows) == len(memory.slices.found) == 25
    for (metric, s), (_, r) in zip(memory.slices.found, rows.iterrows()):
        mask = np.ones(len(frame), dtype=bool)
        for name, level in s.predicates:
            mask &= (frame[name] == level).to_numpy()
        den, num = rates[metric]
        inside, outside = mask & den, ~mask & den
        value, other = (num & inside).sum() / inside.sum(), (num & outside).sum() / outside.sum()
        assert (r["attribute"], r["metric"], r["component"], r["group"]) == (
            " & ".join(n for n, _ in s.predicates), metric, metric, s.description)  # fmt: skip
        assert (s.size, r["n_group"]) == (mask.sum(), inside.sum())
        assert [r["value_group"], r["value_reference"], r["difference"]] == pytest.approx(
            [value, other, value - other], rel=1e-12)  # fmt: skip
        assert (r["ci_low"], r["ci_high"]) == tuple(s.confidence_interval)
        assert (r["statistic"], r["pvalue"], r["pvalue_adjusted"]) == (
            s.statistic, s.pvalue, s.pvalue_adjusted)  # fmt: skip
        smaller += int(inside.sum() < mask.sum())
    assert smaller >= 5  # FPR and TPR slices: n below the size
    # the printed table (its first 20 slices, in the same order): slice, metric, size, n
    lines = memory.format().split("\n  slice ", 1)[1].splitlines()[2:22]
    for (metric, s), line in zip(memory.slices.found[:20], lines, strict=True):
        cells = re.split(r"\s{2,}", line.strip())
        assert cells[0] == s.description
        mask = np.ones(len(frame), dtype=bool)
        for name, level in s.predicates:
            mask &= (frame[name] == level).to_numpy()
        assert cells[2:4] == [f"{mask.sum():,}", f"{(mask & rates[metric][0]).sum():,}"]


def memory_frame():
    return pd.read_csv(DEMO)


def test_report_and_printed_audit_have_the_section(memory):
    text = memory.format()
    assert "Slices: every subgroup of up to 2 conditions attribute = group over sex, race" in text
    assert "Bonferroni over the 5 metrics" in text and "effective number" in text
    page = memory.to_html()
    assert "<h2>Slices: the subgroups nobody named</h2>" in page
    assert "sex = Female &amp; race = Black" in page  # a significant slice with its parents
    assert "race = Black 0.088; sex = Female 0.079" in page
    plain = fastfair.audit("label", "prediction", GROUPS, data=memory_frame(), **OPTIONS)
    assert "<h2>Slices" not in plain.to_html() and "Slices:" not in plain.format()


def _null_rows(rng, n):
    """Three correlated attributes; label and prediction independent of them."""
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, 3, n))
    c = rng.integers(0, 2, n)
    y = rng.random(n) < 0.4
    pred = np.where(y, rng.random(n) < 0.7, rng.random(n) < 0.2)
    return y, pred, {"a": a, "b": b, "c": c}


def test_family_wise_error_over_slices_and_metrics_under_the_global_null():
    """Five rates searched at alpha / 5 each: any slice of any rate found in at most alpha
    of the data sets (+ 3 Monte-Carlo SE). Each search's smallest adjusted p-value does not
    depend on its level, so the same searches also show the rate at alpha per rate, which
    exceeds the bound: the split of alpha over the rates is what the test checks. Both
    rates are quoted in docs/slices.md."""
    metrics = ["tpr", "fpr", "ppv", "selection_rate", "accuracy"]
    settings = check_audit_settings(n_permutations=99, n_jobs=1, metrics=metrics, slices=2)
    rng = np.random.default_rng(2029)
    reps, split, full = 150, 0, 0
    for _ in range(reps):
        y, pred, feats = _null_rows(rng, 600)
        settings["options"]["random_state"] = int(rng.integers(2**31))
        found = slice_search(ConfusionCube.from_arrays(y, pred, feats), settings)
        assert found.metric_alpha == 0.01 and not found.notes
        split += bool(found.found)
        full += any(res.pvalue <= 0.05 for res in found.searches.values())
    bound = 0.05 + 3 * (0.05 * 0.95 / reps) ** 0.5
    assert split / reps <= bound < full / reps, (split, full)
    assert (round(split / reps, 3), round(full / reps, 2)) == (0.013, 0.13)  # the docs' figures


def test_nothing_to_search_is_a_note_not_an_error():
    rng = np.random.default_rng(3)
    n = 80  # two groups of 40 rows: no slice has 50
    g = np.repeat(["a", "b"], n // 2)
    y = rng.random(n) < 0.5
    pred = rng.random(n) < 0.5
    res = fastfair.audit(y, pred, {"g": g}, metrics=["tpr"], slices=2, **OPTIONS)
    assert res.slices.searches == {}
    note = ("no slice has 50 rows (the largest group has 40): the audit's slices have at "
            "least max(50, min_group_size) rows")  # fmt: skip
    assert res.slices.notes == {"tpr": note}
    assert f"note: slices not searched (tpr): {note}" in res.format()
    assert "not searched (tpr)" in res.to_html()
    # a rate that is the same in every row: a note for each rate it concerns
    g = np.repeat(["a", "b"], 100)
    y = rng.random(200) < 0.5
    res = fastfair.audit(y, np.ones(200, bool), {"g": g}, metrics=["tpr", "fpr"], slices=1,
                         **OPTIONS)  # fmt: skip
    assert set(res.slices.notes) == {"tpr", "fpr"}
    assert "is 1 in every row of its denominator" in res.slices.notes["fpr"]


def test_a_largest_group_of_exactly_the_minimum_size_is_searched():
    rng = np.random.default_rng(3)
    g = np.repeat(["a", "b"], 50)  # two groups of 50 rows: each has max(50, min_group_size = 10)
    y = rng.random(100) < 0.5
    pred = rng.random(100) < 0.5
    res = fastfair.audit(y, pred, {"g": g}, metrics=["tpr"], slices=1, **OPTIONS)
    assert res.slices.notes == {} and list(res.slices.searches) == ["tpr"]
    assert res.slices.searches["tpr"].min_size == 50


def test_too_many_groups_is_a_note_that_says_to_bin():
    rng = np.random.default_rng(4)
    n = 6000
    code = rng.integers(0, 60, n)  # 60 groups of about 100 rows
    y, pred = rng.random(n) < 0.5, rng.random(n) < 0.5
    res = fastfair.audit(y, pred, {"code": code, "sex": rng.integers(0, 2, n)},
                         metrics=["tpr"], slices=1, **OPTIONS)  # fmt: skip
    assert (
        "feature 'code' has 60 levels in the cube, more than max_levels=50: bin it"
        in (res.slices.notes["tpr"])
    )
    assert res.tests  # the rest of the audit stands


def test_min_size_follows_a_larger_min_group_size(frame):
    res = fastfair.audit("label", "prediction", ["race"], data=frame, metrics=["tpr"],
                         min_group_size=200, slices=1, **OPTIONS)  # fmt: skip
    assert res.slices.min_size == 200
    assert res.slices.searches["tpr"].n_small == 2  # Amer-Indian-Eskimo (159), Other (135)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(slices=0), "slices must be"),
        (dict(slices=7), "slices must be"),
        (dict(slices=2.5), "slices"),
        (dict(slices=2, n_permutations=9), "slices needs n_permutations >= 99"),
    ],
)
def test_bad_depth_is_refused(frame, kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        fastfair.audit("label", "prediction", ["sex"], data=frame, **kwargs)


def test_slices_need_the_permutations_that_reach_each_searchs_level():
    """Each slice search is at alpha / (rates searched) and its smallest max-T p-value is
    1/(n_permutations + 1) (docs/slices.md): one rate at 0.05 needs 19 (18 refused), the
    five default rates 99 (98 refused), 0.01 over two rates 199; a sequential audit (None)
    searches with 999 or as many as needed; without slices any count is accepted."""
    one = dict(slices=2, metrics=["tpr"])
    assert check_audit_settings(n_permutations=19, **one)["options"]["n_permutations"] == 19
    with pytest.raises(ValueError, match=r"slices needs n_permutations >= 19 .*got 18"):
        check_audit_settings(n_permutations=18, **one)
    assert check_audit_settings(slices=2, n_permutations=99)["slices"] == 2
    with pytest.raises(ValueError, match=r">= 99 .*5 searches is at alpha / 5 = 0.01.*got 98"):
        check_audit_settings(slices=2, n_permutations=98)
    two = dict(slices=1, metrics=["tpr", "fpr"], alpha=0.01)
    check_audit_settings(n_permutations=199, **two)
    with pytest.raises(ValueError, match=r">= 199 .*got 198"):
        check_audit_settings(n_permutations=198, **two)
    assert check_audit_settings(n_permutations=18)["options"]["n_permutations"] == 18
    assert slice_permutations(None, 0.05, DEFAULT_METRICS) == 999
    assert slice_permutations(None, 0.001, ["tpr", "fpr"]) == 1999  # 1 / 2000 = 0.0005
    assert slice_permutations(None, 0.001, ["equalized_odds"]) == 1999  # its two rates
    assert slice_permutations(250, 0.001, ["tpr"]) == 250
    # the depth's range 1 to 6 (0 and 7 are refused by test_bad_depth_is_refused)
    assert [check_audit_settings(slices=d)["slices"] for d in (1, 6)] == [1, 6]


def test_a_sequential_audit_searches_slices_with_the_permutations_its_level_needs(frame):
    res = fastfair.audit("label", "prediction", ["sex"], data=frame, metrics=["tpr", "fpr"],
                         slices=1, alpha=0.001, random_state=0)  # fmt: skip
    assert res.slices.n_permutations == 1999
    assert {s.n_permutations for s in res.slices.searches.values()} == {1999}


def test_cli_slices(tmp_path, capsys):
    out = tmp_path / "audit.json"
    code = main(["audit", "--demo", "--pred", "prediction", "--slices", "--permutations",
                 "199", "--json", str(out), "--max-rows", "0"])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr()
    assert "Slices: every subgroup of up to 2 conditions" in printed.out
    assert "25 significant slices" in printed.err  # the summary line
    d = json.loads(out.read_text())
    assert d["slices"]["max_depth"] == 2 and d["slices"]["features"] == ["sex", "race"]
    searches = d["slices"]["searches"]  # the figures docs/slices.md quotes
    assert {m: r["n_slices"] for m, r in searches.items()} == dict.fromkeys(
        ["tpr", "fpr", "ppv", "selection_rate", "accuracy"], 16
    )
    assert sum(len(r["slices"]) for r in searches.values()) == 25
    women = searches["selection_rate"]["slices"][0]
    assert women["slice"] == "sex = Female" and round(women["value"], 3) == 0.079
    code = main(["audit", "--demo", "--slices", "3", "--metrics", "tpr", "--permutations",
                 "199", "--quiet", "--max-rows", "0"])  # fmt: skip
    assert code == 0
    assert "up to 3 conditions" in capsys.readouterr().out
    for argv, message in [
        (["--slices", "0"], "fastfair: error: --slices must be"),
        (["--slices", "2", "--permutations", "9"], "fastfair: error: --slices needs --perm"),
    ]:
        assert main(["audit", "--demo", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith(message) and err.count("\n") == 1, err


def test_the_sequential_audit_searches_with_the_documented_999_permutations(frame):
    """n_permutations None (the sequential audit): the slice search's max-T is over the 999
    joint permutations the audit's docstring names, the same search as find_slices with 999."""
    res = fastfair.audit("label", "prediction", GROUPS, data=frame, slices=2, random_state=1,
                         n_jobs=1)  # fmt: skip
    assert res.slices.n_permutations == 999
    rows = fastfair.find_slices(
        frame, "label", "prediction", features=GROUPS, metric="selection_rate", max_depth=2,
        min_size=50, n_permutations=999, alpha=0.01, random_state=1, n_jobs=1,
    )  # fmt: skip
    assert res.slices.searches["selection_rate"].to_dict() == rows.to_dict()


@pytest.mark.parametrize(
    ("metrics", "rates"),
    [(["equalized_odds"], ("tpr", "fpr")), (["tpr", "fpr"], ("tpr", "fpr")), (["tpr"], ("tpr",))],
)
def test_alpha_is_split_over_the_rates_searched_and_the_control_says_so(metrics, rates):
    """The family-wise level alpha is divided by the number of RATES searched (equalized
    odds is two: TPR and FPR), each search runs at that level (find_slices_from_cube on the
    same cube at alpha / m, written out), and the control sentence names the split exactly
    when there are two or more rates (docs/slices.md)."""
    rng = np.random.default_rng(5)
    n = 1200
    sex, region = rng.choice(["F", "M"], n), rng.choice(["a", "b", "c"], n)
    y = rng.random(n) < 0.4
    pred = np.where(y, rng.random(n) < np.where(sex == "F", 0.5, 0.8), rng.random(n) < 0.2)
    cube = ConfusionCube.from_arrays(y, pred, {"sex": sex, "region": region})
    found = slice_search(cube, check_audit_settings(metrics=metrics, slices=1, **OPTIONS))
    m = len(rates)
    assert found.metrics == rates and found.metric_alpha == pytest.approx(0.05 / m)
    for rate in rates:
        alone = fastfair.find_slices_from_cube(
            cube, metric=rate, max_depth=1, min_size=50, n_permutations=199,
            alpha=0.05 / m, random_state=1, n_jobs=1,
        )  # fmt: skip
        assert found.searches[rate].alpha == pytest.approx(0.05 / m)
        assert found.searches[rate].to_dict() == alone.to_dict(), rate
    split = "at alpha / 2 = 0.025 each (Bonferroni over the 2 metrics)"
    assert (split in found.control) == (m == 2)
    assert ("Bonferroni" in found.control) == (m > 1)
    assert found.control.startswith("family-wise error at most 0.05 over every slice and metric")


def test_printed_and_report_slice_tables_read_back_each_search_and_slice(memory):
    """The 'Tested:' line and the report's table of the searches: each metric's slices
    tested, distinct, effective number, critical |z| and significant slices, in that place
    (an attribute h that is 'x' exactly where g is 'a' makes slices with the same rows, so
    n_distinct < n_slices and one shown for the other fails); the printed demo slices'
    value, complement, difference with its interval, adjusted p-value and parents, each
    from its FoundSlice."""
    from fastfair._format import format_fixed, format_pvalue
    from fastfair.auditing.report import METRIC_TITLES

    rng = np.random.default_rng(2)
    n = 1500
    g = rng.choice(["a", "b", "c"], n)
    h = np.where(g == "a", "x", rng.choice(["y", "z"], n))
    y = rng.random(n) < 0.4
    pred = rng.random(n) < np.where(y, np.where(g == "b", 0.5, 0.8), 0.2)
    small = fastfair.audit(y, pred, {"g": g, "h": h}, metrics=["tpr", "fpr"], slices=2,
                           **OPTIONS)  # fmt: skip
    sl = small.slices
    assert all(r.n_distinct < r.n_slices for r in sl.searches.values()) and len(sl.searches) == 2
    text = small.format()
    (tested,) = [line for line in text.splitlines() if line.startswith("Tested: ")]
    parts = tested.removeprefix("Tested: ").split("; ")
    for m, res in sl.searches.items():
        want = f"{METRIC_TITLES[m]} {res.n_slices:,} slices ({res.n_distinct:,} distinct"
        k = [p for p in parts if p.startswith(f"{METRIC_TITLES[m]} ")]
        assert k and k[0] == want, (k, want)
        assert f"effective number {res.effective_n_slices:,.1f}" in tested
    page = small.to_html()
    family = page[page.index("<table class='family'>") :]
    family = family[: family.index("</table>")]
    rows = re.findall(r"<tr><td class='l'>([^<]*)</td>(.*?)</tr>", family)
    assert [name for name, _ in rows] == [METRIC_TITLES[m] for m in sl.searches]
    for (_, cells), res in zip(rows, sl.searches.values()):
        assert re.findall(r"<td>([^<]*)</td>", cells) == [
            f"{res.n_slices:,}", f"{res.n_distinct:,}", f"{res.effective_n_slices:,.1f}",
            f"{res.critical_value:.2f}", f"{len(res.slices):,}"]  # fmt: skip
    lines = memory.format().split("\n  slice ", 1)[1].splitlines()[2:22]
    for (metric, s), line in zip(memory.slices.found[:20], lines, strict=True):
        cells = re.split(r"\s{2,}", line.strip())
        lo, hi = s.confidence_interval
        want = [format_fixed(v).replace("\u2212", "-") for v in (s.value, s.complement_value)]
        assert cells[1] == METRIC_TITLES[metric] and cells[4:6] == want
        diff = f"{format_fixed(s.difference)} [{format_fixed(lo)}, {format_fixed(hi)}]"
        assert cells[6] == diff.replace("\u2212", "-")
        assert cells[7] == format_pvalue(s.pvalue_adjusted, "permutation", 199)
        parents = "; ".join(f"{p} {format_fixed(v)}" for p, v in s.parent_values)
        assert cells[8:] == ([parents.replace("\u2212", "-")[:60]] if parents else [])


def test_printed_slice_cells_are_clipped_at_60_characters():
    """The printed slice table clips a cell at 60 characters (57 and '...'); a shorter one
    is printed whole. The 94-character description of a depth-2 slice of long names."""
    rng = np.random.default_rng(0)
    n = 2000
    a = rng.choice(["left_hand_group_label", "right_hand_group_label"], n)
    b = rng.choice(["upper_region_label", "lower_region_label"], n)
    y = rng.random(n) < 0.5
    hit = (a == "left_hand_group_label") & (b == "upper_region_label")
    pred = np.where(y, rng.random(n) < np.where(hit, 0.3, 0.8), rng.random(n) < 0.2)
    res = fastfair.audit(y, pred, {"protected_attribute_one": a, "protected_attribute_two": b},
                         metrics=["tpr"], slices=2, n_permutations=99)  # fmt: skip
    text = res.format()
    names = [s.description for _, s in res.slices.found]
    long = [d for d in names if len(d) > 60]
    assert long and all(f"  {d[:57]}...  " in text for d in long)
    assert all(d[:58] not in text for d in long)
    assert all(f"  {d}  " in text for d in names if len(d) <= 60)
