"""How long the streaming parser takes over an uploaded CSV, against pandas reading the same file
in one call (the floor: every upload is at least that parse), measured side by side in one run.

    python -m bench.parse_uploads [--rows 400000]

The file: 10 numeric columns, two text columns of 2 and 3 values, an environment and a target, as
``POST /datasets`` parses it (4 MB chunks, one-hot encoded, hashed, written as Parquet). Three
variants: no gap; one numeric gap in the last chunk (the parser learns of it late, reads the file
for the column's mean and parses it again: three reads); a text column of numbers and words (a
category written with digits, "7+" beside "1"). Best of three runs each. It measures and reports;
it asserts nothing.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from app.datasets import streaming


def table(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(rows, 10)), columns=[f"x{i}" for i in range(10)])
    frame["region"] = rng.choice(["north", "south", "east"], rows)
    frame["smoker"] = rng.choice(["yes", "no"], rows)
    frame["env"] = rng.choice(["a", "b", "c"], rows)
    frame["y"] = rng.normal(size=rows)
    return frame


def variants(rows: int) -> dict[str, bytes]:
    plain = table(rows)
    gap = plain.copy()
    gap.loc[rows - 10, "x3"] = np.nan
    mixed = plain.copy()
    mixed["kids"] = pd.Series(np.random.default_rng(1).choice(["0", "1", "2", "3+"], rows), dtype=object)
    return {
        "no gap": plain.to_csv(index=False).encode(),
        "a numeric gap in the last chunk": gap.to_csv(index=False).encode(),
        "a column of numbers and words": mixed.to_csv(index=False).encode(),
    }


def best_of(run: Callable[[], object], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def parse(data: bytes) -> None:
    with streaming.parse_file(
        io.BytesIO(data), filename="t.csv", target="y", environment="env", features=None
    ):
        pass


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.parse_uploads", description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=400_000)
    args = parser.parse_args(argv)
    given = list(sys.argv[1:] if argv is None else argv)
    print(f"`{' '.join(['python -m bench.parse_uploads', *given])}`\n")
    print("| file | MB | pandas.read_csv, one call | streaming parser | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, data in variants(args.rows).items():
        floor = best_of(lambda d=data: pd.read_csv(io.BytesIO(d)))
        ours = best_of(lambda d=data: parse(d))
        print(f"| {name} | {len(data) / 1e6:.0f} | {floor:.2f} s | {ours:.2f} s | {ours / floor:.2f} |")


if __name__ == "__main__":
    main()
