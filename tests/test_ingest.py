"""The one ingest of group columns: fastfair._validation.as_groups.

Codes and labels must be those of np.unique (sorted labels, so reference groups and golden
outputs do not change) for every input type, reached by a hash coder instead of a sort;
missing and non-finite labels are refused the same way for arrays, pandas and files.
"""

import numpy as np
import pandas as pd
import pytest

import fastfair
import fastfair.cli
from fastfair import _validation
from fastfair._validation import GroupCodes, as_groups


def _unique(values):
    labels, codes = np.unique(np.asarray(values), return_inverse=True)
    return codes.ravel(), labels


@pytest.fixture(params=["pandas", "no pandas"])
def coder(request, monkeypatch):
    """Run a test with the pandas hash coder and with the dictionary fallback."""
    if request.param == "no pandas":
        monkeypatch.setattr(_validation, "_PANDAS", [None])
    return request.param


def _cases(n):
    rng = np.random.default_rng(3)
    words = np.array(["zeta", "alpha", "Beta", "beta", "é", "b\x00", "10", "9"], dtype=object)
    return {
        "object str": words[rng.integers(0, len(words), n)],
        "numpy str": words[rng.integers(0, len(words), n)].astype(str),
        "small-range int": rng.integers(-3, 4, n),
        "large-range int": rng.choice([-(2**40), 7, 2**40, 3], n),
        "int32 large range": rng.choice([-(2**30), 7, 2**30], n).astype(np.int32),
        "uint8 sparse": rng.choice([2, 200, 9], n).astype(np.uint8),
        "float": rng.choice([2.5, -1.0, 0.0, 1e300, -1e-300], n),
        "signed zeros": rng.choice([0.0, -0.0, 1.0], n),
        "bool": rng.random(n) < 0.3,
        "object numbers": rng.choice([3, 1.5, -2], n).astype(object),
        "sorted order seen first": np.array(["b", "a", "c", "a", "b"] * n, dtype=object),
        "distinct objects": np.array([str(i % 7) for i in range(n)], dtype=object),
        "bytes": np.array([b"zeta", b"", b"alpha", b"b\x00"], dtype="S")[rng.integers(1, 4, n)],
        "many labels": rng.integers(0, n, n).astype(str).astype(object),
    }


@pytest.mark.parametrize("n", [500, 6000])  # below and above the shortcuts' threshold
@pytest.mark.parametrize("case", list(_cases(1)))
def test_codes_and_labels_are_those_of_np_unique(case, n, coder):
    values = _cases(n)[case]
    codes, labels = as_groups(values, min_groups=1)
    want_codes, want_labels = _unique(values)
    np.testing.assert_array_equal(codes, want_codes)
    assert labels.tolist() == want_labels.tolist()
    assert labels.dtype.kind == want_labels.dtype.kind or labels.dtype == object
    assert codes.dtype == np.intp and codes.flags.c_contiguous


@pytest.mark.parametrize(
    "convert",
    [
        lambda v: pd.Series(v, dtype="string"),
        lambda v: pd.Series(v, dtype="string[pyarrow]"),
        lambda v: pd.Series(v * 1000, dtype="string[python]").iloc[:7],
        lambda v: pd.array(v, dtype="string"),
        lambda v: pd.Series(v, dtype=object),
        lambda v: pd.Categorical(v, categories=sorted(set(v))),
    ],
    ids=["string", "arrow string", "python string", "StringArray", "object Series", "Categorical"],
)
def test_pandas_inputs(convert):
    values = ["b", "a", "c", "a", "b", "c", "c"]
    codes, labels = as_groups(convert(values))
    assert codes.tolist() == [1, 0, 2, 0, 1, 2, 2]
    assert labels.tolist() == ["a", "b", "c"]


def test_pandas_boolean_and_nullable_integers():
    codes, labels = as_groups(pd.Series([True, False, True], dtype="boolean"))
    assert codes.tolist() == [1, 0, 1] and labels.tolist() == [False, True]
    codes, labels = as_groups(pd.Series([5, -2, 5, 9], dtype="Int64"))
    assert codes.tolist() == [1, 0, 1, 2] and labels.tolist() == [-2, 5, 9]


ARRAY_MISSING = [
    ([1.0, np.nan, 2.0], "missing"),
    (["a", None, "b"], "missing"),
    (["a", np.nan, "b"], "missing"),
    (np.array(["a", "", "b"]), "empty or blank"),
    (["a", "  ", "b"], "empty or blank"),
    ([1.0, np.inf, 2.0], "infinite"),
    ([1.0, -np.inf, 2.0], "infinite"),
    (np.array([1, np.inf, 2], dtype=object), "infinite"),
]
PANDAS_MISSING = [
    (pd.Series(["a", pd.NA, "b"], dtype="string"), "missing"),
    (pd.Series(["a", None, "b"], dtype="string[pyarrow]"), "missing"),
    (pd.Series(["a", None, "b"] * 3000, dtype="string[python]"), "missing.* in 3,000 rows"),
    (pd.Series([True, pd.NA, False], dtype="boolean"), "missing"),
    (pd.Series([1, pd.NA, 2], dtype="Int64"), "missing"),
    (pd.Categorical(["a", None, "b"]), "missing"),
    (pd.Categorical([1.0, np.inf, 2.0]), "infinite"),
    (pd.Series(["a", pd.NA, "b"], dtype=object), "missing"),
    (pd.Series(["a", "", "b"]), "empty or blank"),
]


@pytest.mark.parametrize("values, kind", ARRAY_MISSING)
def test_missing_and_non_finite_labels_are_refused(values, kind, coder):
    with pytest.raises(ValueError, match=f"group contains {kind}.* in 1 row;"):
        as_groups(values)


@pytest.mark.parametrize("values, kind", PANDAS_MISSING)
def test_missing_pandas_labels_are_refused(values, kind):
    rows = "" if "rows" in kind else ".* in 1 row;"
    with pytest.raises(ValueError, match=f"group contains {kind}{rows}"):
        as_groups(values)


def test_missing_group_refused_by_every_family():
    y, s = [0, 1, 0, 1, 1, 0], [0.1, 0.9, 0.2, 0.8, 0.7, 0.3]
    group = ["a", "b", "", "b", "a", "b"]
    for call in (
        lambda: fastfair.permutation_test(y, y, group),
        lambda: fastfair.auc_test(y, s, group),
        lambda: fastfair.predictive_parity_test(y, s, group),
        lambda: fastfair.calibration_error(y, s, group),
    ):
        with pytest.raises(ValueError, match="group contains empty or blank labels"):
            call()


def test_hash_collision_falls_back_to_values(monkeypatch):
    """A collision of the byte hash (forced here: every row hashes alike) cannot merge labels."""
    values = np.array(["x", "y", "z"] * 3000)
    monkeypatch.setattr(
        _validation, "_integer_codes", lambda v: (np.zeros(len(v), dtype=np.intp), 1)
    )
    codes, labels = as_groups(values)
    assert labels.tolist() == ["x", "y", "z"] and codes[:4].tolist() == [0, 1, 2, 0]


@pytest.mark.parametrize("n", [10, 6000])
def test_missing_among_many_rows(n, coder):
    values = np.array(["a", "b"] * n, dtype=object)
    values[3] = None
    with pytest.raises(ValueError, match=r"missing values.* in 1 row;"):
        as_groups(values)
    values[3] = " "
    with pytest.raises(ValueError, match=r"empty or blank labels.* in 1 row;"):
        as_groups(values)


def test_mixed_label_types_cannot_be_ordered(coder):
    with pytest.raises(TypeError, match="cannot be ordered"):
        as_groups(np.array([1, "a", 1, "a"], dtype=object))


def test_equal_objects_form_one_group(coder):
    codes, labels = as_groups(np.array([1, 1.0, 2, True], dtype=object))
    assert codes.tolist() == [0, 0, 1, 0] and len(labels) == 2


def test_group_codes_pass_through_every_family():
    rng = np.random.default_rng(0)
    n = 400
    y, yhat = rng.integers(0, 2, n), rng.integers(0, 2, n)
    score = rng.random(n)
    group = rng.choice(np.array(["u", "v", "w"], dtype=object), n)
    coded = GroupCodes(*as_groups(group))
    assert len(coded) == n and coded.to_numpy().tolist() == group.tolist()
    for call in (
        lambda g: fastfair.permutation_test(y, yhat, g, random_state=1, n_permutations=99),
        lambda g: fastfair.auc_test(y, score, g, random_state=1, n_permutations=99),
        lambda g: fastfair.predictive_parity_test(
            y, score, g, random_state=1, n_bootstrap=49, grid=[0.3, 0.6]
        ),
    ):
        a, b = call(group), call(coded)
        assert a.groups.tolist() == b.groups.tolist()
        np.testing.assert_array_equal(a.pvalue, b.pvalue)
        np.testing.assert_array_equal(a.statistic, b.statistic)


def test_non_label_dtypes_are_refused():
    with pytest.raises(TypeError, match="group must hold labels"):
        as_groups(np.zeros(4, dtype=[("a", "i4")]))


@pytest.mark.parametrize("blank", ["", "  "])
def test_cli_refuses_blank_group_cells(tmp_path, capsys, blank):
    rng = np.random.default_rng(1)
    rows = ["y,pred,grp"] + [
        f"{rng.integers(0, 2)},{rng.integers(0, 2)},{'ab'[i % 2]}" for i in range(60)
    ]
    rows[7] = f"1,0,{blank}"
    path = tmp_path / "blank.csv"
    path.write_text("\n".join(rows) + "\n")
    code = fastfair.cli.main(
        ["audit", str(path), "--label", "y", "--pred", "pred", "--group", "grp", "--quiet"]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "group column 'grp': group contains empty or blank labels" in err
    assert "in 1 row" in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------
# The other checks of fastfair._validation: both sides of each limit, and which argument
# a refusal names (hardening of issue 36).


def test_check_int_accepts_its_bounds_and_refuses_one_beyond():
    assert _validation.check_int(3, "k", 3, 5) == 3 and _validation.check_int(5, "k", 3, 5) == 5
    assert _validation.check_int(np.int64(4), "k", 3) == 4
    with pytest.raises(ValueError, match=r"^k must be >= 3, got 2$"):
        _validation.check_int(2, "k", 3, 5)
    with pytest.raises(ValueError, match=r"^k must be <= 5, got 6$"):
        _validation.check_int(6, "k", 3, 5)
    for bad in (True, np.bool_(True), 3.0, "3", None):
        with pytest.raises(TypeError, match=r"^k must be an integer"):
            _validation.check_int(bad, "k", 0)
    top = _validation.MAX_RESAMPLES
    assert _validation.check_resamples(top, "n_permutations") == top
    with pytest.raises(ValueError, match="n_permutations must be <= 100,000,000"):
        _validation.check_resamples(top + 1, "n_permutations")


def test_check_level_is_open_at_both_ends():
    tiny = np.nextafter(0.0, 1.0)
    assert _validation.check_level(tiny, "alpha") == tiny
    assert _validation.check_level(np.nextafter(1.0, 0.0), "alpha") < 1.0
    for bad in (0, 0.0, 1, 1.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"^alpha must be in \(0, 1\)"):
            _validation.check_level(bad, "alpha")
    for bad in (True, False, "0.05", None):
        with pytest.raises(TypeError, match=r"^alpha must be a number in \(0, 1\)"):
            _validation.check_level(bad, "alpha")


def test_probabilities_include_0_and_1_and_name_the_first_value_outside():
    ok = _validation.as_probabilities([0.0, 1.0, 0.5], "y_prob")
    assert ok.tolist() == [0.0, 1.0, 0.5]
    with pytest.raises(ValueError, match=r"y_prob must be .* got 1\.5 at position 2 \(2 value"):
        _validation.as_probabilities([0.2, 1.0, 1.5, -1e-12], "y_prob")
    with pytest.raises(ValueError, match=r"got -1e-12 at position 1 \(1 value"):
        _validation.as_probabilities([0.0, -1e-12], "y_prob")
    with pytest.raises(ValueError, match="y_prob contains NaN"):
        _validation.as_probabilities([0.5, np.nan], "y_prob")


def test_weights_may_be_zero_on_some_rows_but_not_negative_or_all_zero():
    w, e = _validation.as_weights([0.0, 3.0, 1.5], return_exponent=True)
    # 3 = 0.75 * 2**2: the largest weight lands in [0.5, 1), the others scaled alike
    assert e == 2 and w.tolist() == [0.0, 0.75, 0.375]
    small, e = _validation.as_weights([0.25, 0.125], return_exponent=True)
    assert e == -1 and small.tolist() == [0.5, 0.25]
    with pytest.raises(ValueError, match=r"^sample_weight must be non-negative$"):
        _validation.as_weights([1.0, -0.0001])
    with pytest.raises(ValueError, match=r"^w is zero for every row$"):
        _validation.as_weights([0.0, 0.0], "w")
    with pytest.raises(ValueError, match="w contains infinite values"):
        _validation.as_weights([1.0, np.inf], "w")


def test_unit_scale_is_set_by_the_largest_magnitude_of_either_sign():
    x = np.array([-12.0, 3.0])  # the largest magnitude is negative: 12 = 0.75 * 2**4
    scaled, e = _validation.unit_scale(x)
    assert e == 4 and scaled.tolist() == [-0.75, 0.1875]
    assert _validation.unit_scale(np.zeros(3))[1] == 0


def test_default_threshold_needs_scores_within_0_and_1_both_ends_included():
    assert _validation.score_threshold(np.array([0.0, 1.0]), None, "s", "--threshold") == 0.5
    for outside in ([-1e-9, 0.5], [0.5, 1.0 + 1e-9]):
        with pytest.raises(ValueError, match=r"s has values outside \[0, 1\].*give --threshold"):
            _validation.score_threshold(np.array(outside), None, "s", "--threshold")
    assert _validation.score_threshold(np.array([-3.0, 7.0]), 2, "s", "--threshold") == 2.0
    for bad in (np.inf, np.nan, "0.5"):
        with pytest.raises(ValueError, match=r"^--threshold must be a finite number"):
            _validation.score_threshold(np.array([0.2]), bad, "s", "--threshold")


def test_binary_labels_minus_one_and_one_and_bool_with_a_false_positive():
    assert _validation.as_binary(np.array([-1, 1, 1]), "y").tolist() == [0, 1, 1]
    assert _validation.as_binary(np.array([True, False]), "y", False).tolist() == [0, 1]
    assert _validation.as_binary(np.array([True, False]), "y", True).tolist() == [1, 0]
    with pytest.raises(ValueError, match=r"y has values \[0, 2\]; pass pos_label"):
        _validation.as_binary(np.array([0, 2]), "y")
    with pytest.raises(ValueError, match="y must be binary, got 3 distinct values"):
        _validation.as_binary(np.array([0, 1, 2]), "y")


def test_a_pos_label_must_occur_in_the_labels_or_the_predictions():
    y, yhat = _validation.as_binary_pair(["n", "n"], ["y", "n"], pos_label="y")
    assert y.tolist() == [0, 0] and yhat.tolist() == [1, 0]
    y, yhat = _validation.as_binary_pair(["y", "n"], ["n", "n"], pos_label="y")
    assert y.tolist() == [1, 0] and yhat.tolist() == [0, 0]
    with pytest.raises(ValueError, match="pos_label='y' occurs in neither y_true nor y_pred"):
        _validation.as_binary_pair(["n", "n"], ["n", "n"], pos_label="y")


def test_finite_floats_allowing_nan_still_refuse_infinity():
    x = _validation.as_finite_float([1.0, np.nan], "x", allow_nan=True)
    assert np.isnan(x[1]) and x[0] == 1.0
    with pytest.raises(ValueError, match=r"^x contains infinite values$"):
        _validation.as_finite_float([1.0, -np.inf], "x", allow_nan=True)
    with pytest.raises(ValueError, match=r"^x contains NaN$"):
        _validation.as_finite_float([1.0, np.nan], "x")


def test_same_length_names_every_length_and_group_counts_name_the_rows():
    with pytest.raises(ValueError, match=r"^inputs must have the same length: a has 2, b has 3$"):
        _validation.check_same_length(a=[1, 2], b=[1, 2, 3], c=None)
    assert _validation.check_same_length(a=[1, 2], b=np.zeros(2), c=None) == 2
    with pytest.raises(ValueError, match=r"group contains missing values \(NaN\) in 2 rows"):
        as_groups(np.array([1.0, np.nan, 2.0, np.nan, 2.0]))
    with pytest.raises(ValueError, match=r"in 1 row;"):
        as_groups(np.array(["a", " ", "b", "b"], dtype=object))
    codes, labels = _validation.drop_unused(np.array([3, 1, 3]), np.array(list("abcd")))
    assert codes.tolist() == [1, 0, 1] and labels.tolist() == ["b", "d"]


def test_a_missing_category_is_refused_with_its_count():
    """A categorical Series' missing values (code -1) are refused like any missing label,
    naming the argument and counting the rows (two, by hand); its category order is kept
    and the unused category dropped."""
    values = pd.Series(pd.Categorical(["a", None, "b", None, "a"], categories=["b", "a", "c"]))
    with pytest.raises(ValueError, match=r"group contains missing values \(NaN/None/NA\) in 2 "):
        as_groups(values)
    codes, labels = as_groups(
        pd.Series(pd.Categorical(["a", "b", "a"], categories=["b", "a", "c"]))
    )
    assert labels.tolist() == ["b", "a"] and codes.tolist() == [1, 0, 1]


@pytest.mark.parametrize("shape", ["distinct", "few_then_distinct"])
def test_many_object_labels_past_the_shortcuts_code_as_np_unique(shape):
    """Object columns of more than 4,096 rows whose labels are mostly distinct (the coder's
    shortcut by object identity gives up on the prefix), or repeat a few objects over the
    prefix and then turn distinct (it gives up on the whole column), and the same labels
    as fixed-width text: codes and labels of np.unique."""
    n = 6000
    words = np.array([f"w{k:05d}" for k in np.random.default_rng(3).permutation(n)], dtype=object)
    if shape == "few_then_distinct":
        words[:4096] = np.array(["b", "a", "c"], dtype=object)[np.arange(4096) % 3]
    for values in (words, words.astype(str)):
        codes, labels = as_groups(values)
        want_codes, want_labels = _unique(words.astype(str))
        assert labels.tolist() == want_labels.tolist()
        np.testing.assert_array_equal(codes, want_codes)


def test_inputs_that_are_not_columns_are_refused_by_name():
    """The messages of the shared input checks, each naming the argument: data of another
    type, a column name data lacks (with the columns it has), None, a scalar, a 2-D array,
    an empty pandas extension array, and a bool column whose pos_label is neither value
    (pos_label False inverts it)."""
    data = pd.DataFrame({"y": [1, 0], "g": ["a", "b"]})
    with pytest.raises(
        TypeError, match=r"^data must be a pandas DataFrame or a mapping, got list$"
    ):
        _validation.resolve_columns([1, 2], y_true="y")
    with pytest.raises(
        ValueError, match=r"^group='sex' is not a column of data; available: \['y', 'g'\]$"
    ):
        _validation.resolve_columns(data, y_true="y", group="sex")
    resolved = _validation.resolve_columns(data, y_true="y", group=np.array(["c", "d"]))
    assert resolved["y_true"].tolist() == [1, 0] and resolved["group"].tolist() == ["c", "d"]
    with pytest.raises(TypeError, match=r"^y_true is required, got None$"):
        _validation.as_1d(None, "y_true")
    with pytest.raises(ValueError, match=r"^y_true must be 1-D array-like, got a scalar$"):
        _validation.as_1d(3, "y_true")
    with pytest.raises(ValueError, match=r"^y_true must be 1-D, got an array of shape \(2, 2\)$"):
        _validation.as_1d([[1, 0], [0, 1]], "y_true")
    with pytest.raises(TypeError, match=r"^group is required, got None$"):
        as_groups(None)
    with pytest.raises(ValueError, match=r"^group is empty$"):
        as_groups(pd.array([], dtype="string"))
    flags = np.array([True, False, True])
    with pytest.raises(ValueError, match=r"^pos_label='yes' does not occur in y_true$"):
        _validation.as_binary(flags, "y_true", pos_label="yes")
    assert _validation.as_binary(flags, "y_true", pos_label=False).tolist() == [0, 1, 0]
    assert _validation.as_binary(flags, "y_true", pos_label=1).tolist() == [1, 0, 1]


def test_probabilities_outside_name_the_first_value_and_count_all():
    """as_probabilities names the first value outside [0, 1], its position and how many
    are outside (counted by hand: 3)."""
    with pytest.raises(
        ValueError,
        match=r"^p must be probabilities in \[0, 1\]; got 1\.5 at position 1 "
        r"\(3 value\(s\) outside\)$",
    ):
        _validation.as_probabilities([0.2, 1.5, 0.3, -0.1, 2.0], "p")


def test_audit_settings_refuse_an_empty_metric_list_and_take_six_slice_levels():
    """check_audit_settings: no metric is refused by its name (the command line's
    --metrics), a slice depth of 6 (the documented maximum) and, for one rate at 0.05, 19
    joint permutations with slices are taken, 7 and 18 refused."""
    from fastfair.auditing.ingest import check_audit_settings, slice_metrics
    from fastfair.cli.arguments import OPTION_NAMES

    with pytest.raises(ValueError, match=r"^metrics is empty$"):
        check_audit_settings(metrics=[])
    with pytest.raises(ValueError, match=r"^--metrics is empty$"):
        check_audit_settings(metrics=[], names=OPTION_NAMES)
    assert check_audit_settings(slices=6, n_permutations=19, metrics=["tpr"])["slices"] == 6
    with pytest.raises(ValueError, match="slices must be <= 6, got 7"):
        check_audit_settings(slices=7)
    with pytest.raises(ValueError, match="needs n_permutations >= 19"):
        check_audit_settings(slices=2, n_permutations=18, metrics=["tpr"])
    assert slice_metrics(["tpr", "equalized_odds", "fpr", "ppv"]) == ["tpr", "fpr", "ppv"]


def test_messages_count_what_they_show():
    """A non-binary column's message lists up to five of its distinct values, with ", ..."
    only when there are more; the default threshold's refusal counts the share of scores at
    or above 0.5 (scores exactly 0.5 are predicted positive: 3 of 4 here, by hand); a count
    above the maximum names the maximum it may equal."""
    with pytest.raises(
        ValueError, match=r"^y_true must be binary, got 3 distinct values \(0, 1, 2\)$"
    ):
        _validation.as_binary([0, 1, 2, 1], "y_true")
    with pytest.raises(ValueError, match=r"got 5 distinct values \(0, 1, 2, 3, 4\)$"):
        _validation.as_binary([4, 3, 2, 1, 0], "y_true")
    with pytest.raises(ValueError, match=r"got 7 distinct values \(0, 1, 2, 3, 4, \.\.\.\)$"):
        _validation.as_binary([6, 5, 4, 3, 2, 1, 0], "y_true")
    scores = np.array([0.5, 0.5, 2.0, -1.0])
    share = f"{np.mean(scores >= 0.5):.0%}"
    assert share == "75%"
    with pytest.raises(ValueError, match=rf"it would make {share} of the predictions positive"):
        _validation.score_threshold(scores, None, "y_score", "threshold")
    assert _validation.score_threshold(scores, 0.25, "y_score", "threshold") == 0.25
    assert _validation.check_int(10**8, "n", 1, 10**8) == 10**8
    with pytest.raises(ValueError, match=r"^n must be <= 100,000,000, got 100,000,001$"):
        _validation.check_int(10**8 + 1, "n", 1, 10**8)


def test_a_column_of_minus_ones_only_is_all_negative_like_its_plus_minus_one_pair():
    """{-1, 1} labels need no pos_label (1 is positive); the neighbouring degenerate case,
    a label column of -1 only (a sample without positives) beside predictions in {-1, 1},
    is read the same way: every label negative, predictions positive where they are 1
    (== 1 computed here), not refused for want of a pos_label."""
    y, pred = np.array([-1, -1, -1, -1]), np.array([-1, 1, -1, 1])
    got_y, got_pred = _validation.as_binary_pair(y, pred)
    assert got_y.tolist() == (y == 1).astype(int).tolist() == [0, 0, 0, 0]
    assert got_pred.tolist() == (pred == 1).astype(int).tolist()
    ones = _validation.as_binary(np.array([1, 1]), "y_pred", require_pos=False)
    assert ones.tolist() == [1, 1]


def test_a_tuple_of_text_labels_with_a_nan_is_refused_like_a_list(coder):
    """np.asarray turns a NaN among strings into the text "nan": a tuple is a column like a
    list, so its NaN is refused (1 row) before that, while a real "nan" text label is a
    group like any other (codes against np.unique of the values)."""
    for values in (("a", np.nan, "b", "a"), ["a", np.nan, "b", "a"]):
        with pytest.raises(ValueError, match=r"^group contains missing values \(NaN\) in 1 row;"):
            as_groups(values)
    values = ("a", "nan", "b", "a")
    codes, labels = as_groups(values)
    want_codes, want_labels = _unique(list(values))
    assert labels.tolist() == want_labels.tolist() == ["a", "b", "nan"]
    assert codes.tolist() == want_codes.tolist()
