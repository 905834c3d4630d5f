"""How SAL gets ∂R/∂w: exact (ridge path + implicit differentiation) vs the paper's approximation.

    python -m bench.gradients [--seeds 3]

Selection bias, Scenario 1 (r = 1.7, n = 2000, p = 10), library defaults otherwise. Prints, per mode,
fit time, test Mean_Error (RMSE) and whether w protects every stable covariate more than V_b, and
the time ratio paper/exact measured in this run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from sal_core import get_algorithm
from sal_core.metrics import evaluate
from sal_core.synthetic import selection_bias

MODES = {"exact": {"gradient": "exact"}, "paper": {"gradient": "paper"}}


def run(seeds: int) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, list[float]]] = {m: {"time": [], "error": [], "w_ok": []} for m in MODES}
    for seed in range(seeds):
        s = selection_bias(r=1.7, seed=seed, n_test=1000)
        biased = [i for i in range(len(s.feature_names)) if i not in s.stable][0]
        for mode, params in MODES.items():
            started = time.perf_counter()
            fit = get_algorithm("sal")(params, seed=seed).fit(s.train)
            rows[mode]["time"].append(time.perf_counter() - started)
            rows[mode]["error"].append(evaluate(fit.model, s.test)[1].mean_error)
            w = fit.covariate_weights
            rows[mode]["w_ok"].append(float(w[s.stable].min() > w[biased]))
    return {m: {k: float(np.mean(v)) for k, v in r.items()} for m, r in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    result = run(args.seeds)
    print(f"| ∂R/∂w | fit time (s) | test Mean_Error | w_S > w_Vb (share of {args.seeds} seeds) |")
    print("|---|---|---|---|")
    for mode, r in result.items():
        print(f"| {mode} | {r['time']:.3f} | {r['error']:.3f} | {r['w_ok']:.2f} |")
    print(f"\npaper / exact fit time: {result['paper']['time'] / result['exact']['time']:.0f}x")


if __name__ == "__main__":
    main()
