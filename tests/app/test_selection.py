"""A result's ``selection`` is typed end to end: sal_core's ``FitSelection`` (a λ selection, w's
evidence, an MLP's seeded w) becomes ``app.jobs.result.Selection`` with the same JSON, and results
stored by older versions (other criteria and keys, candidates without ``se``) read back as stored."""

from __future__ import annotations

import json
import math
from typing import Any

from app.jobs.result import JobResult, SeededW, Selection, WEvidence
from app.reports.job import _selection_tables
from sal_core import lambda_selection as ls
from worker.runner import _jsonable

# What the worker stored before the standard errors (f325746): another criterion, a tolerance
# rule, candidates with neither se, protection nor variant, and no best or reason.
OLD: dict[str, Any] = {
    "parameter": "lambda_",
    "criterion": "worst_env_validation_rmse",
    "rule": "smallest lambda_ whose score <= (1 + tolerance) * best score",
    "tolerance": 0.05,
    "holdout_fraction": 0.2,
    "base": 1.0,
    "candidates": [
        {"relative": 0.1, "lambda_": 0.1, "score": 1.2, "env_scores": {"e1": 1.2, "e2": 0.9}},
        {"relative": None, "lambda_": 1e6, "score": None, "env_scores": {"e1": None, "e2": 1.0}},
    ],
    "chosen": {"relative": 0.1, "lambda_": 0.1, "score": 1.2, "env_scores": {"e1": 1.2, "e2": 0.9}},
}


def _stored(selection: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "environments": [{"name": "t", "split": "test", "n_rows": 5, "mse": 3.0}],
        "summary": None, "coefficients": {"a": 1.0, "b": 2.0}, "intercept": 0.0, "covariate_weights": None,
        "history": [], "certificate": None, "duration_s": 0.5, "selection": selection,
    }  # fmt: skip


def _fit_selection() -> ls.FitSelection:
    """An MLP's: the network's λ on the held-out path, w from a linear fit with its own evidence."""
    candidates = (
        ls.Candidate(0.1, 0.2, 1.1, {"e1": 1.1}, se=0.05, protection=0.3, variant="free"),
        ls.Candidate(None, ls.OFF_LAMBDA, math.inf, {"e1": math.inf}),
    )
    lam = ls.Selection("worst_env_out_of_fold_rmse", "robust", 1.0, "5-fold cross-fitting", 10, 2.0,
                       candidates, chosen=0, best=0, reason="lowest", erm_first=True,
                       beats_erm=ls.ErmEvidence(1.0, 1.6, 8))  # fmt: skip
    evidence = ls.WEvidence(low=(1.0, 2.0), high=(1.5, 9.0), determined=(True, False), note="n")
    linear = ls.FitSelection(lam, covariate_weights=evidence)
    seeded = ls.SeededW(source="linear", w=(1.0, 3.0), selection=linear)
    return ls.FitSelection(lam, ls.Refit(1.2, "refit on all rows"), covariate_weights=seeded)


def test_an_old_stored_selection_reads_and_writes_back_as_stored() -> None:
    result = JobResult.model_validate(_stored(OLD))
    selection = result.selection
    assert isinstance(selection, Selection) and selection.criterion == "worst_env_validation_rmse"
    assert selection.candidates is not None and selection.candidates[0].se is None
    assert selection.model_extra == {"tolerance": 0.05, "holdout_fraction": 0.2}
    assert selection.w_evidence() is None
    assert result.to_json()["selection"] == OLD  # no key added, none lost
    tables = _selection_tables(selection)
    assert ["tolerance", "0.05"] in tables[0].rows
    assert tables[1].columns == ["", "relative", "lambda_", "score"]  # only the keys it has
    odd = {"covariate_weights": {"w": [1.0], "from": "elsewhere"}}  # any other block reads, as stored
    assert JobResult.model_validate(_stored(odd)).to_json()["selection"] == odd


def test_a_new_selection_keeps_its_json_from_sal_core_to_the_api() -> None:
    fit = _fit_selection()
    stored = _jsonable(fit.to_dict())  # as the worker writes it (inf as null)
    assert stored["candidates"][1]["score"] is None and stored["refit_score"] == 1.2
    selection = Selection.model_validate(stored)
    assert json.dumps(selection.model_dump(mode="json")) == json.dumps(stored)  # same keys, same order
    assert isinstance(selection.covariate_weights, SeededW)
    assert selection.beats_erm is not None and (selection.beats_erm.t, selection.beats_erm.bar) == (1.0, 1.6)
    evidence = selection.w_evidence()  # an MLP's evidence is the linear path's that learned its w
    assert isinstance(evidence, WEvidence) and evidence.determined == [True, False]
    assert ls.FitSelection(covariate_weights=fit.covariate_weights).to_dict().keys() == {"covariate_weights"}


def test_the_report_reads_w_evidence_through_the_types() -> None:
    from app.reports.job import _w_evidence

    doc = _stored(_jsonable(_fit_selection().to_dict()))
    assert _w_evidence(JobResult.model_validate(doc)) == WEvidence(
        low=[1.0, 2.0], high=[1.5, 9.0], determined=[True, False], note="n"
    )
    doc["coefficients"] = {"a": 1.0}  # evidence for another number of covariates is not shown
    assert _w_evidence(JobResult.model_validate(doc)) is None
