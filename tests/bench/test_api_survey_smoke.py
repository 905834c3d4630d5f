"""bench.api_survey against the embedded service: real tables uploaded as they are, a SAL job at
defaults on each, and every answer read. It asserts how the service answered (no 5xx, no failed
job, an ERM reference on every job), not the errors (those are the bench's to report). One table is
there for what it once broke: Wooldridge's fertil1 with ``y84educ`` as the target, zero in every
training year and in three of the four test years, where the paired comparison divided by an RMSE
of 0 and the job lost its reference."""

from __future__ import annotations

import httpx
import pytest

from bench import api_survey as survey
from bench.real_data import DataUnavailable

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_real_tables_through_the_service_answer_without_a_server_error_or_a_lost_reference(
    embedded: str,
) -> None:
    try:
        units = [
            *survey.regression_units(97),
            *survey.classification_units(97),
            survey.named_unit("fertil1", "year", "y84educ"),
        ]
    except DataUnavailable as err:
        pytest.skip(str(err))
    with httpx.Client(base_url=embedded, timeout=120) as client:
        outcomes = [o for o in (survey.measure(client, u, timeout_s=300) for u in units) if o is not None]
    assert len(outcomes) >= 6
    assert [o for o in outcomes if o.answer != "fitted"] == []
    assert [o.table for o in outcomes if o.erm is None] == []
    fertil = outcomes[-1]
    assert fertil.table == "fertil1" and fertil.ratio is not None and fertil.sal > 0
    assert {o.metric for o in outcomes} == {"rmse", "error_rate"}
    text = survey.render(outcomes, "both", "python -m bench.api_survey --test")
    assert f"| fitted | {len(outcomes)} |" in text and "| server error | 0 |" in text
