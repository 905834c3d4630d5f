"""Real tables with missing cells, uploaded as they are, through the running service at default
parameters: what keeping their rows (a gap filled with the column's mean and marked by a
``"<column> is missing"`` feature, docs/api.md) gives against uploading complete rows only, which
is what a user had to do before (an upload with a missing number was refused), for SAL and ERM.

    bash scripts/serve.sh &    # or any running service
    python -m bench.api_missing_cells [--url http://localhost:8000] [--only titanic slid]

Six public tables whose raw files have gaps (the rows and pins of ``bench.real_dev`` and
``bench.real_fourth``), their environments by class, language, species, region, period, and the
training environments as the scoreboard's. For each, four jobs at default parameters (no task, no
parameters): SAL and ERM on the raw upload, SAL and ERM on its complete rows. Every model predicts
the test environments' rows through ``POST /jobs/{id}/predict`` (named rows, a gap given as null),
scored here per environment (RMSE, or the error rate of a yes/no target) and averaged over the test
environments (Mean_Error):

* on the complete test rows, the rows every model can predict;
* on every test row with a target, which only the raw upload's models can predict (a model trained
  on complete rows has no value for a gap).

It measures and reports; it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpx
import numpy as np
import pandas as pd

from bench import real_dev as rd
from bench.api_raw_tables import run_job

PREDICT_ROWS = 500  # rows per predict request


@dataclass(frozen=True)
class GappyTable:
    """A raw file with missing cells, as a user would upload it, and what to train on."""

    name: str
    frame: pd.DataFrame
    target: str
    environment: str
    features: tuple[str, ...]
    train: tuple[str, ...]

    @property
    def complete(self) -> pd.DataFrame:
        return self.frame.dropna(subset=[self.target, self.environment, *self.features])


def titanic() -> GappyTable:
    """Survival by passenger class: a fifth of the ages missing."""
    d = rd.frame_of(rd.TITANIC)
    frame = d[["passengerClass", "sex", "age", "survived"]]
    return GappyTable("titanic", frame, "survived", "passengerClass", ("sex", "age"), ("1st", "2nd"))


def slid() -> GappyTable:
    """Log hourly wage in Ontario by language: 44% of wages (rows left out), 2% of the languages
    (left out) and 2.5% of the rest's education missing."""
    d = rd.frame_of(rd.SLID)
    frame = d[["language", "education", "age", "sex"]].assign(log_wage=np.log(d["wages"]))
    return GappyTable(
        "slid", frame, "log_wage", "language", ("education", "age", "sex"), ("English", "French")
    )


def penguins() -> GappyTable:
    """Body mass by species: two rows without any measurement (left out) and 9 more sexes missing."""
    d = rd.frame_of(rd.PENGUINS)
    features = ("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "sex")
    frame = d[["species", *features, "body_mass_g"]]
    return GappyTable("penguins", frame, "body_mass_g", "species", features, ("Adelie", "Gentoo"))


def schooling() -> GappyTable:
    """Log wage of young US men by South x SMSA in 1976: a third of the IQ scores missing, and a
    few test scores, marriages and library cards. ``mar76`` mixes "yes" with codes 2-6 (a 422 as it
    is): uploaded as married or not, its gaps kept."""
    d = rd.frame_of(rd.SCHOOLING)
    d = d.assign(mar76=d["mar76"].eq("yes").astype(float).where(d["mar76"].notna()))
    features = ("ed76", "exp76", "black", "smsa66", "south66", "nearc2", "nearc4a", "nearc4b", "daded",
                "momed", "nodaded", "momdad14", "sinmom14", "step14", "enroll76", "kww", "iqscore", "mar76",
                "libcrd14", "famed")  # fmt: skip
    region = "south=" + d["south76"].astype(str) + ", smsa=" + d["smsa76"].astype(str)
    frame = d[[*features, "lwage76"]].assign(region=region)
    return GappyTable(
        "schooling", frame, "lwage76", "region", features, ("south=no, smsa=no", "south=no, smsa=yes")
    )


def portal_rodents() -> GappyTable:
    """Log weight of a rodent by period: of the rows with a weight, 5% of hindfoot lengths missing
    (two-thirds of them one genus's) and a few sexes."""
    from bench import real_fourth as r4

    d = rd.frame_of(r4.RODENTS)
    labels = ["1977-1984", "1985-1990", "1991-1996", "1997-2002"]
    period = pd.cut(d["year"], [1976, 1984, 1990, 1996, 2002], labels=labels).astype(str)
    frame = pd.DataFrame(
        {
            "period": period,
            "log_hindfoot": np.log(d["hindfoot_length"]),
            "sex": d["sex"],
            "genus": d["genus"],
            "plot_type": d["plot_type"],
            "log_weight": np.log(d["weight"]),
        }
    )
    return GappyTable(
        "portal_rodents", frame, "log_weight", "period", ("log_hindfoot", "sex", "genus", "plot_type"),
        tuple(labels[:2]),
    )  # fmt: skip


def txhousing() -> GappyTable:
    """Log median home price of Texas cities by two-year period: of the months with a price, a tenth
    of the listings and inventories missing; the city (46 values) is listed, so it is encoded."""
    d = rd.frame_of(rd.TXHOUSING)
    start = 2000 + 2 * ((d["year"].astype(int) - 2000) // 2)
    frame = pd.DataFrame(
        {
            "period": start.astype(str) + "-" + (start + 1).astype(str).str[-2:],
            "log_sales": np.log(d["sales"]),
            "log_listings": np.log1p(d["listings"]),  # one city-month lists none
            "inventory": d["inventory"],
            "month": d["month"],
            "city": d["city"],
            "log_median": np.log(d["median"]),
        }
    )
    features = ("log_sales", "log_listings", "inventory", "month", "city")
    return GappyTable("txhousing", frame, "log_median", "period", features, ("2000-01", "2002-03"))


TABLES: dict[str, Callable[[], GappyTable]] = {
    "titanic": titanic,
    "slid": slid,
    "penguins": penguins,
    "schooling": schooling,
    "portal_rodents": portal_rodents,
    "txhousing": txhousing,
}


@dataclass(frozen=True)
class Row:
    table: str
    upload: str  # "raw" or "complete rows"
    rows: int  # rows the dataset kept
    p: int
    metric: str
    sal_complete: float  # Mean_Error on the complete test rows
    erm_complete: float
    sal_all: float  # Mean_Error on every test row with a target (nan: cannot predict them)
    erm_all: float
    warnings: tuple[str, ...]


def upload(client: httpx.Client, frame: pd.DataFrame, name: str, table: GappyTable) -> dict:
    response = client.post(
        "/datasets",
        files={"file": (f"{name}.csv", frame.to_csv(index=False).encode(), "text/csv")},
        data={
            "target": table.target,
            "environment": table.environment,
            "name": name,
            "features": ", ".join(table.features),
        },
    )
    response.raise_for_status()
    body: dict = response.json()
    return body


def _named_rows(frame: pd.DataFrame, features: Sequence[str]) -> list[dict[str, float | str | None]]:
    """Rows as the predict endpoint takes them: numbers as numbers, text by its value, gaps as null."""
    out: list[dict[str, float | str | None]] = []
    for record in frame[list(features)].to_dict("records"):
        row: dict[str, float | str | None] = {}
        for column, value in record.items():
            if value is None or (isinstance(value, float) and math.isnan(value)):
                row[str(column)] = None
            elif isinstance(value, (bool, np.bool_, int, float, np.number)):
                row[str(column)] = float(value)
            else:
                row[str(column)] = str(value)
        out.append(row)
    return out


def predictions(
    client: httpx.Client, job_id: str, frame: pd.DataFrame, features: Sequence[str]
) -> np.ndarray:
    rows = _named_rows(frame, features)
    out: list[float] = []
    for start in range(0, len(rows), PREDICT_ROWS):
        response = client.post(f"/jobs/{job_id}/predict", json={"rows": rows[start : start + PREDICT_ROWS]})
        response.raise_for_status()
        out.extend(response.json()["predictions"])
    return np.asarray(out, dtype=np.float64)


def mean_error(
    client: httpx.Client, job: dict, dataset: dict, table: GappyTable, test: pd.DataFrame
) -> float:
    """The job's model scored on ``test`` (rows of the test environments): per environment, then
    averaged over them."""
    y = test[table.target]
    labels = dataset.get("target_labels")
    if labels:
        y = (y.astype(str) == labels[1]).astype(float)
    predicted = predictions(client, job["id"], test, table.features)
    errors = []
    for env in test[table.environment].unique():
        mask = (test[table.environment] == env).to_numpy()
        truth, guess = y.to_numpy(dtype=float)[mask], predicted[mask]
        if job["task"] == "classification":
            errors.append(float(np.mean(guess != truth)))
        else:
            errors.append(float(np.sqrt(np.mean((guess - truth) ** 2))))
    return float(np.mean(errors))


def _predictable(test: pd.DataFrame, dataset: dict) -> pd.DataFrame:
    """The test rows whose text values the dataset knows (a value seen only in rows an upload of
    complete rows dropped is not one of its features)."""
    keep = np.ones(len(test), dtype=bool)
    for column, levels in dataset["text_features"].items():
        gap = test[column].isna() & (column in dataset["missing_features"])
        keep &= (test[column].isin(levels) | gap).to_numpy()
    return test[keep]


def measure(client: httpx.Client, table: GappyTable) -> list[Row]:
    rows = []
    test_all = table.frame.dropna(subset=[table.target, table.environment])
    test_all = test_all[~test_all[table.environment].astype(str).isin(table.train)]
    raw_dataset = upload(client, table.frame, f"{table.name}-raw", table)
    complete_dataset = upload(client, table.complete, f"{table.name}-complete", table)
    test_all = _predictable(test_all, raw_dataset)
    test_complete = _predictable(test_all.dropna(subset=list(table.features)), complete_dataset)
    for kind, dataset in (("raw", raw_dataset), ("complete rows", complete_dataset)):
        sal = run_job(client, dataset["id"], table.train, "sal")
        erm = run_job(client, dataset["id"], table.train, "erm")
        raw = kind == "raw"
        rows.append(
            Row(
                table.name,
                kind,
                dataset["n_rows"],
                len(dataset["feature_names"]),
                sal["result"]["summary"]["metric"],
                mean_error(client, sal, dataset, table, test_complete),
                mean_error(client, erm, dataset, table, test_complete),
                mean_error(client, sal, dataset, table, test_all) if raw else math.nan,
                mean_error(client, erm, dataset, table, test_all) if raw else math.nan,
                tuple(dataset["warnings"]),
            )
        )
    return rows


def _cell(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.4f}"


def render(rows: Sequence[Row], command: str) -> str:
    lines = [
        f"`{command}`",
        "",
        "| table | upload | rows kept | p | metric | SAL, complete test rows | ERM | SAL / ERM | "
        "SAL, every test row | ERM | SAL / ERM |",
        "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio_all = _cell(r.sal_all / r.erm_all) if not math.isnan(r.sal_all) else "—"
        lines.append(
            f"| {r.table} | {r.upload} | {r.rows} | {r.p} | {r.metric} | {r.sal_complete:.4f} | "
            f"{r.erm_complete:.4f} | {r.sal_complete / r.erm_complete:.4f} | {_cell(r.sal_all)} | "
            f"{_cell(r.erm_all)} | {ratio_all} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.api_missing_cells", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--url", default="http://localhost:8000")
    parser.add_argument("--only", nargs="*", choices=sorted(TABLES), default=list(TABLES))
    args = parser.parse_args(argv)
    rows: list[Row] = []
    with httpx.Client(base_url=args.url, timeout=300) as client:
        for name in args.only:
            rows.extend(measure(client, TABLES[name]()))
            print(render(rows[-2:], name), file=sys.stderr, flush=True)
    given = list(sys.argv[1:] if argv is None else argv)
    print(render(rows, " ".join(["python -m bench.api_missing_cells", *given])))


if __name__ == "__main__":
    main()
