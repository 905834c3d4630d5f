"""bench.selection_rules records every candidate of a fit and replays selection rules on them."""

from __future__ import annotations

import pytest

from bench import selection_rules as sr


def _cands(*rows: tuple[float, float, float], slopes_p: float | None = None) -> dict[str, object]:
    """A unit's record: its candidates (most robust first, ERM last) and the slopes test's p."""
    return {
        "candidates": [{"score": score, "se": se, "test": test} for score, se, test in rows],
        "slopes_p": slopes_p,
    }


def test_the_rules_read_candidates_most_robust_first() -> None:
    cands = _cands((1.05, 0.1, 0.3), (1.0, 0.0, 0.5), (1.2, 0.1, 0.9))  # the last is ERM
    assert sr.within_z(0.0)(cands) == 1  # the best
    assert sr.within_z(1.0)(cands) == 0  # 1.05 <= 1.0 + 1 * 0.1
    assert sr.within_z(0.4)(cands) == 1
    assert sr.within_z_and_erm(1.0)(_cands((1.05, 0.1, 0.3), (1.0, 0.0, 0.5), (1.01, 0.1, 0.9))) == 1
    gate = sr.erm_unless_separated(1.0)
    assert gate(_cands((1.05, 0.1, 0.3), (1.0, 0.0, 0.5), (1.08, 0.1, 0.9))) == 2  # ERM within 1 SE: ERM
    assert gate(_cands((1.05, 0.1, 0.3), (1.0, 0.0, 0.5), (1.2, 0.1, 0.9))) == 0  # separated: the library's


def _scored(
    rows: tuple[tuple[float, float, float], ...], envs: tuple[dict[str, float], ...]
) -> dict[str, object]:
    unit = _cands(*rows)
    for c, e in zip(unit["candidates"], envs, strict=True):  # type: ignore[call-overload]
        c["env_scores"] = e
    return unit


def test_the_library_rule_vetoes_a_candidate_erm_beats_on_every_environment_where_erm_is_best() -> None:
    rows = ((1.05, 0.1, 0.3), (1.03, 0.1, 0.4), (1.0, 0.0, 0.9))  # ERM (last) scores best
    envs = ({"a": 1.05, "b": 0.9}, {"a": 1.03, "b": 0.6}, {"a": 1.0, "b": 0.7})
    assert sr.within_z(1.0)(_scored(rows, envs)) == 1  # 0 is within 1 SE, but ERM beats it on a and b
    assert sr.within_z(1.0, erm_veto=False)(_scored(rows, envs)) == 0  # the rule before
    # where a robust candidate scores best, the band is as before, unless the veto applies everywhere
    rows = ((1.05, 0.1, 0.3), (0.99, 0.0, 0.4), (1.0, 0.01, 0.9))
    assert sr.within_z(1.0)(_scored(rows, envs)) == 0
    assert sr.within_z(1.0, where_erm_best=False)(_scored(rows, envs)) == 1


def test_erm_first_applies_only_where_the_slopes_look_alike() -> None:
    rows = ((1.05, 0.1, 0.3), (1.0, 0.0, 0.5), (1.08, 0.1, 0.9))  # ERM trails the best by < 1 SE
    library = sr.erm_first_where_alike(1.0)
    assert library(_cands(*rows, slopes_p=0.5)) == 2  # no evidence of a shift: ERM
    assert library(_cands(*rows, slopes_p=None)) == 2  # no test: as if alike
    assert library(_cands(*rows, slopes_p=0.01)) == 0  # the slopes differ: robust first


def test_the_default_keeps_erm_where_a_test_found_the_slopes_alike() -> None:
    rows = ((1.05, 0.1, 0.3), (0.9, 0.0, 0.5), (1.08, 0.1, 0.9))  # ERM trails the best by 1.8 SE
    library = sr.erm_where_alike(1.0)
    assert library(_cands(*rows, slopes_p=0.5)) == 2  # no evidence of a shift: ERM, whatever the lead
    assert library(_cands(*rows, slopes_p=None)) == 1  # no test: ERM only comes first, and is beaten
    assert library(_cands(*rows, slopes_p=0.01)) == 1  # the slopes differ: robust first (the best)
    assert sr.erm_first_where_alike(1.0)(_cands(*rows, slopes_p=0.5)) == 1  # the evidence rule departs


def test_the_opt_in_cap_applies_only_where_the_slopes_look_alike() -> None:
    rows = ((1.05, 0.1, 0.3), (1.0, 0.0, 0.5), (1.2, 0.1, 0.9))  # the most robust is 5% above the best
    library = sr.within_z_capped(1.0, 0.03, alpha=0.05)
    assert library(_cands(*rows, slopes_p=0.5)) == 1  # no evidence of a shift: 5% is too dear
    assert library(_cands(*rows, slopes_p=None)) == 1  # no test: as if alike
    assert library(_cands(*rows, slopes_p=0.01)) == 0  # the slopes differ: the noise band alone
    assert sr.within_z_capped(1.0, 0.03)(_cands(*rows, slopes_p=0.01)) == 1  # capped everywhere


def test_a_recorded_unit_replays_to_the_choice_the_library_made() -> None:
    """The library's rule, replayed on what run_unit recorded, picks what SAL picked, and that
    candidate's recorded test error is SAL's own; so does it on a setting where nothing shifts, and the
    record keeps the slopes test's p for the opt-in cap's replay."""
    record = sr.run_unit(("anti_causal", "1", 100))
    cands = record["candidates"]
    assert len(cands) >= 2 and cands[-1]["relative"] is None  # ERM last
    library = sr.RULES["default: ERM where slopes alike, z = 1"]
    assert library(record) == record["chosen"] and record["slopes_p"] is not None
    flat = sr.run_unit(("homogeneous", "e3_n30_p5", 1))
    assert library(flat) == flat["chosen"] and flat["slopes_p"] >= 0.05
    assert cands[-1]["test"] == pytest.approx(record["erm"])
    # the score is the worst training environment's, and each environment's is kept for other rules
    assert all(c["score"] == pytest.approx(max(c["env_scores"].values())) for c in cands)
    assert all(len(c["env_scores"]) == 3 for c in cands)  # anti-causal: three training environments
    assert record["oracle"] < record["erm"]  # the anti-causal shift: ERM leans on V
    text = sr.report([record], "python -m bench.selection_rules report x.jsonl")
    assert "| anti-causal 1 | 1 |" in text and text.count("|") > 10
