"""The paper's comparison as one sweep through the API: six methods on selection bias Scenario 1.

    python -m bench.sweep_paper [--seeds 5] [--r 1.7] [--workers 2] [--base-url URL] [--out docs]

Uploads the selection-bias data (n = 2000, p = 10, r = 1.7; ten test environments of 2000 rows),
posts one sweep over ERM, Lasso, Ridge, WDRL, IRM and SAL with each method's default search space
from sal_core (SAL at its library defaults, as the paper's protocol and ``bench.protocol`` run
it; ``--tune-sal`` searches its grid too) and ``train_env_validation`` selection (20% of each training environment held out,
the paper's protocol), waits for it and prints the leaderboard beside the paper's Table numbers and
ordering. Writes ``sweep-paper-results.md`` and the report's figures (PNG) under ``--out``.

Without ``--base-url`` it starts its own stack: uvicorn and ``--workers`` Celery worker processes on
PostgreSQL database ``sal_service_sweep_bench`` (created if missing, reset, migrated) and Redis DB 7
(flushed); nothing else is touched. It measures and reports; it asserts nothing.
"""

from __future__ import annotations

import argparse
import base64
import io
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pandas as pd

from bench.load import Stack, prepare_database
from bench.paper_numbers import SELECTION_BIAS_SCENARIO_1
from sal_core import synthetic

METHODS = ("erm", "lasso", "ridge", "wdrl", "irm", "sal")
SWEEP_DB = "sal_service_sweep_bench"
SWEEP_REDIS_DB = 7


def dataset_csv(r: float, data_seed: int) -> bytes:
    s = synthetic.selection_bias(r=r, seed=data_seed)
    frames = []
    for env in [*s.train, *s.test]:
        frame = pd.DataFrame(env.X, columns=s.feature_names)
        frame.insert(0, "environment", env.name)
        frame["y"] = env.y
        frames.append(frame)
    return pd.concat(frames).to_csv(index=False).encode()


def run_sweep(
    base_url: str, r: float, seeds: list[int], data_seed: int, headers: dict[str, str], tune_sal: bool = False
) -> tuple[dict[str, Any], float]:
    with httpx.Client(base_url=base_url, headers=headers, timeout=120) as client:
        upload = client.post(
            "/datasets",
            files={"file": ("selection_bias.csv", io.BytesIO(dataset_csv(r, data_seed)), "text/csv")},
            data={"target": "y", "environment": "environment", "name": f"selection-bias-r{r}"},
        )
        upload.raise_for_status()
        dataset = upload.json()
        train = [e["name"] for e in dataset["environments"] if not e["name"].startswith("test")]
        body = {"dataset_id": dataset["id"], "train_environments": train, "algorithms": {m: {"grid": {}} if m == "sal" and not tune_sal else {} for m in METHODS},
                "seeds": seeds, "selection": "train_env_validation", "device": "cpu"}  # fmt: skip
        started = time.monotonic()
        response = client.post("/sweeps", json=body)
        response.raise_for_status()
        sweep = response.json()
        last = None
        while sweep["status"] == "running":
            time.sleep(1.0)
            sweep = client.get(f"/sweeps/{sweep['id']}").json()
            p = sweep["progress"]
            if (p["done"], p["running"]) != last:
                print(f"  {p['done']}/{p['total']} trials done, {p['running']} running "
                      f"({time.monotonic() - started:.0f} s)", file=sys.stderr)  # fmt: skip
                last = (p["done"], p["running"])
        return sweep, time.monotonic() - started


def save_figures(base_url: str, sweep_id: str, out: Path, headers: dict[str, str]) -> list[Path]:
    html = httpx.get(
        f"{base_url}/sweeps/{sweep_id}/report", params={"format": "html"}, headers=headers, timeout=120
    ).text
    paths = []
    for name, data in re.findall(
        r'<figure id="fig-([\w-]+)" class=figure><img alt="[^"]*" src="data:image/png;base64,([^"]+)"', html
    ):
        path = out / f"sweep-paper-{name}.png"
        path.write_bytes(base64.b64decode(data))
        paths.append(path)
    (out / "sweep-paper-report.html").write_text(html)
    return paths


def render(
    sweep: dict[str, Any], seconds: float, r: float, figures: list[Path], command: str, stack: str
) -> str:
    board = sweep["leaderboard"]
    paper = SELECTION_BIAS_SCENARIO_1[r]
    rows = board["algorithms"]
    measured = [row["algorithm"] for row in rows]
    paper_order = sorted(paper, key=lambda m: paper[m][0])
    lines = [
        f"# Selection bias Scenario 1 (r = {r}) as one sweep through the API",
        "",
        f"Command: `{command}`  ",
        f"Stack: {stack}; {sweep['progress']['total']} trials in {seconds:.0f} s; seeds {sweep['seeds']}; "
        f"selection `{board['selection']}` (20% of each training environment held out, pooled validation MSE).",
        "",
        "| rank | method | selected | Mean_Error (ours) | Std_Error (ours) | worst (ours) | Mean_Error (paper) | Std_Error (paper) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        pm = lambda ms: f"{ms['mean']:.3f} ± {ms['std']:.3f}"  # noqa: E731
        sel = (
            ", ".join(
                f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                for k, v in row["searched_params"].items()
            )
            or "defaults"
        )
        p = paper.get(row["algorithm"], (float("nan"), float("nan")))
        lines.append(f"| {row['rank']} | {row['algorithm']} | {sel} | {pm(row['mean_error'])} | {pm(row['std_error'])} "
                     f"| {pm(row['worst_error'])} | {p[0]:.3f} | {p[1]:.3f} |")  # fmt: skip
    lines += [
        "",
        f"Order by Mean_Error, ours: {' < '.join(measured)}  ",
        f"Order by Mean_Error, paper: {' < '.join(paper_order)} (ERM, Lasso and Ridge within 0.001 of each other)",
        "",
        f"SAL first: {measured[0] == 'sal'}; IRM second: {measured[1:2] == ['irm']}; "
        f"both ahead of every ERM-family method and WDRL: {set(measured[:2]) == {'sal', 'irm'}}.",
    ]
    if board.get("unselected"):
        lines += ["", f"Not selected: {board['unselected']}"]
    lines += ["", *[f"![{p.stem}]({p.name})" for p in figures], ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.sweep_paper", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--r", type=float, default=1.7, choices=sorted(SELECTION_BIAS_SCENARIO_1))
    parser.add_argument("--data-seed", type=int, default=0, help="seed of the generated data")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--base-url", help="a running service (default: start one)")
    parser.add_argument("--api-key", help="for --base-url with API keys")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres", help="admin URL")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379")
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument(
        "--tune-sal", action="store_true", help="search SAL's grid too (default: its library defaults)"
    )
    args = parser.parse_args(argv)
    command = "python -m bench.sweep_paper " + " ".join(argv if argv is not None else sys.argv[1:])
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    args.out.mkdir(parents=True, exist_ok=True)
    seeds = list(range(args.seeds))
    if args.base_url:
        sweep, seconds = run_sweep(args.base_url, args.r, seeds, args.data_seed, headers, args.tune_sal)
        figures = save_figures(args.base_url, sweep["id"], args.out, headers)
        stack = f"service at {args.base_url}"
    else:
        import redis

        database_url = prepare_database(args.pg, SWEEP_DB)
        broker_url = f"{args.redis.rstrip('/')}/{SWEEP_REDIS_DB}"
        redis.Redis.from_url(broker_url).flushdb()
        with tempfile.TemporaryDirectory() as logs:
            stack_ = Stack(database_url=database_url, broker_url=broker_url, api_procs=1, workers=args.workers,
                           log_dir=Path(logs))  # fmt: skip
            stack_.start()
            try:
                sweep, seconds = run_sweep(
                    stack_.base_url, args.r, seeds, args.data_seed, headers, args.tune_sal
                )
                figures = save_figures(stack_.base_url, sweep["id"], args.out, headers)
            finally:
                stack_.stop()
        stack = f"PostgreSQL + Redis, 1 API process, {args.workers} Celery worker processes (concurrency 1, 1 torch thread each)"
    text = render(sweep, seconds, args.r, figures, command, stack)
    (args.out / "sweep-paper-results.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
