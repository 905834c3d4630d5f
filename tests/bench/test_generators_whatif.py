"""bench.generators_whatif: a unit fits SAL with the parameter changed, and the report judges each
setting the way the defaults are judged (seeds at the oracle, excess over it, SAL/ERM)."""

from __future__ import annotations

from bench import generators_whatif as gw


def test_the_units_cover_both_scenarios_every_selection_bias_setting_and_no_shift() -> None:
    todo = gw.units([100, 101], [0])
    assert [u for u in todo if u[0] == "anti_causal"] == [
        ("anti_causal", "1", 100), ("anti_causal", "1", 101), ("anti_causal", "2", 100), ("anti_causal", "2", 101)
    ]  # fmt: skip
    assert len([u for u in todo if u[0] == "selection_bias"]) == 9
    assert all(u[0] != "homogeneous" or "logistic" not in u[1] for u in todo)


def test_a_what_if_unit_fits_sal_with_the_parameter_changed() -> None:
    unit = ("anti_causal", "1", 100)
    default = gw.run_unit(unit)
    fixed = gw.run_unit(unit, {"lambda_": 1000.0})  # an adversary so dear it moves nothing: ERM's fit
    assert default["oracle"] < default["erm"]
    assert abs(fixed["sal"] - fixed["erm"]) < 1e-3 * fixed["erm"] < abs(default["sal"] - default["erm"])


def test_the_report_counts_seeds_at_the_oracle_and_the_excess_over_it() -> None:
    records = [
        {"kind": "anti_causal", "name": "1", "seed": 1, "sal": 0.33, "erm": 0.7, "oracle": 0.32},
        {"kind": "anti_causal", "name": "1", "seed": 2, "sal": 0.60, "erm": 0.7, "oracle": 0.32},
        {"kind": "selection_bias", "name": "s2_n500", "seed": 0, "sal": 1.01, "erm": 1.1, "oracle": 1.0},
        {"kind": "homogeneous", "name": "e3_n30_p5", "seed": 0, "sal": 1.02, "erm": 1.0, "oracle": None},
    ]
    text = gw.report(records)
    assert "| anti-causal S1 | 2 | 0.4650 | 0.7000 | 0.3200 | **1/2** within 10% of the oracle |" in text
    assert "**+1.00%** over the oracle" in text
    assert "worst seed SAL/ERM 1.0200" in text and "geometric mean SAL/ERM 1.0200" in text
