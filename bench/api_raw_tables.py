"""Real tables uploaded as their raw files, through the running service at default parameters: SAL
against ERM (the job's own ``reference``), with the text columns one-hot encoded by the upload, and
with only the numeric columns the API kept before it encoded text (docs/changelog.md, "Text and
true/false columns become features").

    bash scripts/serve.sh &    # or any running service
    python -m bench.api_raw_tables [--url http://localhost:8000] [--only wage hmda]

Each table is the raw file of a scoreboard table (five development tables, the same pinned rows as
``bench.real_dev``, and two held out from every default: hotel rates, rice farms), with
the columns a user would upload: numbers as they are, categories as their text, a yes/no label as
text. The environments, and the ones trained on, are the scoreboard's (forward); the jobs train on
every row of the training environments and score the others. Before text was encoded, a text label
was refused (422) and text columns were left out, so the "numbers only" rows give the API the label
as 0/1 and the numeric columns alone, as a user had to. It measures and reports; it asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpx
import numpy as np
import pandas as pd

from bench import real_dev as rd


@dataclass(frozen=True)
class RawTable:
    """A raw file as a user would upload it, and what to train on."""

    name: str
    frame: pd.DataFrame
    target: str
    environment: str
    numeric: tuple[str, ...]  # the numeric feature columns
    text: tuple[str, ...]  # the text feature columns
    train: tuple[str, ...]


def wage() -> RawTable:
    f = rd.frame_of(rd.WAGE)
    text = ("maritl", "race", "education", "jobclass", "health", "health_ins")
    frame = f[["year", "age", *text, "logwage"]]
    return RawTable("wage", frame, "logwage", "year", ("age",), text, ("2003", "2004"))


def cps1988() -> RawTable:
    f = rd.frame_of(rd.CPS1988)
    text = ("ethnicity", "smsa", "parttime")
    frame = f[["region", "education", "experience", *text]].assign(logwage=np.log(f.wage))
    return RawTable(
        "cps1988", frame, "logwage", "region", ("education", "experience"), text, ("northeast", "midwest")
    )


def hmda() -> RawTable:
    f = rd.frame_of(rd.HMDA)
    numeric = ("pirat", "hirat", "lvrat", "chist", "mhist", "unemp")
    text = ("hschool", "phist", "selfemp", "insurance", "condomin")
    group = "afam=" + f.afam.astype(str) + ", single=" + f.single.astype(str)
    frame = f[[*numeric, *text, "deny"]].astype({c: str for c in text}).assign(group=group)
    return RawTable(
        "hmda", frame, "deny", "group", numeric, text, ("afam=no, single=no", "afam=no, single=yes")
    )


def health_insurance() -> RawTable:
    f = rd.frame_of(rd.HEALTH)
    text = ("health", "limit", "gender", "married", "selfemp", "ethnicity", "education")
    frame = f[["region", "age", "family", *text, "insurance"]].astype({c: str for c in text})
    return RawTable(
        "health_insurance", frame, "insurance", "region", ("age", "family"), text, ("northeast", "midwest")
    )


def diamonds() -> RawTable:
    f = rd.frame_of(rd.DIAMONDS)
    frame = pd.DataFrame(
        {
            "clarity": f.clarity.astype(str),
            "log_carat": np.log(f.carat.astype(float)),
            "depth": f.depth.astype(float),
            "table": f.table.astype(float),
            "cut": f.cut.astype(str),
            "color": f.color.astype(str),
            "log_price": np.log(f.price.astype(float)),
        }
    )
    return RawTable(
        "diamonds", frame, "log_price", "clarity", ("log_carat", "depth", "table"), ("cut", "color"),
        ("I1", "SI2", "SI1"),
    )  # fmt: skip


def hotel_rates() -> RawTable:
    """Held out from every default (`bench.real_blind`)."""
    from bench import real_blind as rb

    d = rd.frame_of(rb.HOTEL_RATES)
    numeric = ("lead_time", "stays_in_weekend_nights", "stays_in_week_nights", "adults", "children", "babies",
               "is_repeated_guest", "previous_cancellations", "previous_bookings_not_canceled", "booking_changes",
               "days_in_waiting_list", "required_car_parking_spaces", "total_of_special_requests",
               "near_christmas", "near_new_years", "historical_adr")  # fmt: skip
    text = ("meal", "market_segment", "customer_type")
    arrival = pd.to_datetime(d["arrival_date"])
    quarter = arrival.dt.year.astype(str) + " Q" + arrival.dt.quarter.astype(str)
    frame = d[[*numeric, *text, "avg_price_per_room"]].astype({c: str for c in text}).assign(quarter=quarter)
    frame = frame.dropna()
    return RawTable(
        "hotel_rates",
        frame,
        "avg_price_per_room",
        "quarter",
        numeric,
        text,
        ("2016 Q3", "2016 Q4", "2017 Q1"),
    )


def rice_farms() -> RawTable:
    """Held out from every default (`bench.real_third`); one the scoreboard counts SAL's loss on."""
    from bench import real_third as r3

    d = rd.frame_of(r3.RICE_FARMS)
    logs = {
        "log_size": np.log(d["size"]), "log_seed": np.log(d["seed"]), "log_urea": np.log(d["urea"]),
        "log_phosphate": np.log1p(d["phosphate"]), "log_pesticide": np.log1p(d["pesticide"]),
        "log_hired": np.log(d["hiredlabor"]), "log_family": np.log(d["famlabor"]),
        "log_pseed": np.log(d["pseed"]), "log_purea": np.log(d["purea"]),
        "log_pphosph": np.log(d["pphosph"]), "log_wage": np.log(d["wage"]), "log_price": np.log(d["price"]),
    }  # fmt: skip
    text = ("status", "varieties", "bimas")
    frame = pd.DataFrame(logs).assign(
        **{c: d[c].astype(str) for c in text}, region=d["region"].astype(str), log_output=np.log(d["goutput"])
    )
    return RawTable(
        "rice_farms",
        frame,
        "log_output",
        "region",
        tuple(logs),
        text,
        ("wargabinangun", "langan", "gunungwangi"),
    )


TABLES: dict[str, Callable[[], RawTable]] = {
    "diamonds": diamonds,
    "hotel_rates": hotel_rates,
    "rice_farms": rice_farms,
    "wage": wage,
    "cps1988": cps1988,
    "hmda": hmda,
    "health_insurance": health_insurance,
}


@dataclass(frozen=True)
class Row:
    table: str
    features: str  # "text one-hot" or "numbers only"
    p: int
    metric: str
    warnings: tuple[str, ...]
    sal: float
    erm: float
    difference: float
    standard_error: float


def upload(
    client: httpx.Client, frame: pd.DataFrame, name: str, table: RawTable, features: Sequence[str]
) -> dict:
    response = client.post(
        "/datasets",
        files={"file": (f"{name}.csv", frame.to_csv(index=False).encode(), "text/csv")},
        data={
            "target": table.target,
            "environment": table.environment,
            "name": name,
            "features": ", ".join(features),
        },
    )
    response.raise_for_status()
    body: dict = response.json()
    return body


def sal_job(client: httpx.Client, dataset_id: str, train: Sequence[str], timeout_s: float = 600) -> dict:
    """A SAL job at default parameters, waited for; its result (summary and ERM reference)."""
    result: dict = run_job(client, dataset_id, train, "sal", timeout_s)["result"]
    return result


def run_job(
    client: httpx.Client, dataset_id: str, train: Sequence[str], algorithm: str, timeout_s: float = 600
) -> dict:
    """A job of ``algorithm`` at default parameters, waited for until it succeeds."""
    response = client.post(
        "/jobs", json={"dataset_id": dataset_id, "algorithm": algorithm, "train_environments": list(train)}
    )
    response.raise_for_status()
    job_id = response.json()["id"]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job: dict = client.get(f"/jobs/{job_id}").json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            if job["status"] != "succeeded":
                raise RuntimeError(f"job {job_id} {job['status']}: {job.get('error')}")
            return job
        time.sleep(0.5)
    raise TimeoutError(f"job {job_id} still running after {timeout_s} s")


def measure(client: httpx.Client, table: RawTable) -> list[Row]:
    """The raw file (text one-hot by the upload), then the numeric columns alone (and a text label as
    0/1, as a user had to send it before)."""
    rows = []
    label = table.frame[table.target]
    numbers_only = table.frame
    if not pd.api.types.is_numeric_dtype(label):
        first, second = sorted(label.astype(str).unique())
        numbers_only = table.frame.assign(**{table.target: (label.astype(str) == second).astype(float)})
    for kind, frame, features in (
        ("text one-hot", table.frame, (*table.numeric, *table.text)),
        ("numbers only", numbers_only, table.numeric),
    ):
        dataset = upload(client, frame, f"{table.name}-{kind.replace(' ', '-')}", table, features)
        result = sal_job(client, dataset["id"], table.train)
        reference = result["reference"]
        rows.append(
            Row(
                table.name,
                kind,
                len(dataset["feature_names"]),
                result["summary"]["metric"],
                tuple(dataset["warnings"]),
                result["summary"]["mean_error"],
                reference["mean_error"],
                reference["difference"],
                reference["standard_error"],
            )
        )
    return rows


def render(rows: Sequence[Row], command: str) -> str:
    lines = [
        f"`{command}`",
        "",
        "| table | features | p | metric | SAL | ERM | SAL / ERM | SAL − ERM (± paired s.e.) |",
        "|---|---|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.table} | {r.features} | {r.p} | {r.metric} | {r.sal:.4f} | {r.erm:.4f} | {r.sal / r.erm:.4f} | "
            f"{r.difference:+.4f} ± {r.standard_error:.4f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.api_raw_tables", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--url", default="http://localhost:8000")
    parser.add_argument("--only", nargs="*", choices=sorted(TABLES), default=sorted(TABLES))
    args = parser.parse_args(argv)
    rows: list[Row] = []
    with httpx.Client(base_url=args.url, timeout=120) as client:
        for name in args.only:
            rows.extend(measure(client, TABLES[name]()))
    given = list(sys.argv[1:] if argv is None else argv)
    print(render(rows, " ".join(["python -m bench.api_raw_tables", *given])))


if __name__ == "__main__":
    main()
