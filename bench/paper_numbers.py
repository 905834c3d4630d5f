"""The paper's published numbers (Experiments section), copied from its tables.

Regression errors are RMSE on the test environments; "Mean_Error" is their mean and "Std_Error" their
sample standard deviation. Each number is the paper's average over its runs (10 for selection bias,
15 for anti-causal).
"""

from __future__ import annotations

SELECTION_BIAS_SCENARIO_1: dict[float, dict[str, tuple[float, float]]] = {
    # r: {method: (Mean_Error, Std_Error)}; n = 2000, p = 10, κ = 0.95, n_b = 1
    1.5: {
        "erm": (0.484, 0.058),
        "lasso": (0.482, 0.046),
        "ridge": (0.483, 0.045),
        "wdrl": (0.482, 0.044),
        "irm": (0.475, 0.014),
        "sal": (0.450, 0.019),
    },
    1.7: {
        "erm": (0.561, 0.124),
        "lasso": (0.561, 0.124),
        "ridge": (0.560, 0.125),
        "wdrl": (0.550, 0.114),
        "irm": (0.464, 0.015),
        "sal": (0.449, 0.015),
    },
    2.0: {
        "erm": (0.572, 0.140),
        "lasso": (0.572, 0.140),
        "ridge": (0.572, 0.140),
        "wdrl": (0.532, 0.112),
        "irm": (0.477, 0.015),
        "sal": (0.452, 0.017),
    },
}

CONFIDENCE: dict[float, dict[str, tuple[float, float]]] = {
    # radius: {method: (accuracy, confidence)}; classification selection bias, n = 2000, p = 10
    1e-2: {"wdrl": (0.765, 0.702), "sal": (0.799, 0.759)},
    1e-1: {"wdrl": (0.581, 0.585), "sal": (0.812, 0.785)},
    1e0: {"wdrl": (0.377, 0.529), "sal": (0.818, 0.811)},
    1e1: {"wdrl": (0.361, 0.504), "sal": (0.824, 0.817)},
}

ANTI_CAUSAL_SCENARIO_1: dict[str, tuple[float, ...]] = {
    # method: RMSE on e1 … e10 (e1-e3 training, e4-e10 test); n_s = 5, n_v = 5
    "erm": (0.281, 0.305, 0.341, 0.461, 0.555, 0.636, 0.703, 0.733, 0.765, 0.824),
    "lasso": (0.277, 0.305, 0.341, 0.470, 0.569, 0.648, 0.722, 0.752, 0.795, 0.843),
    "ridge": (0.258, 0.306, 0.347, 0.483, 0.588, 0.673, 0.751, 0.783, 0.828, 0.879),
    "irm": (0.287, 0.293, 0.329, 0.345, 0.382, 0.420, 0.444, 0.461, 0.478, 0.504),
    "wdrl": (0.282, 0.331, 0.399, 0.599, 0.750, 0.875, 0.983, 1.030, 1.072, 1.165),
    "sal": (0.324, 0.329, 0.331, 0.358, 0.381, 0.403, 0.425, 0.435, 0.446, 0.458),
}

ANTI_CAUSAL_TRAIN_ENVS = 3  # e1 … e3 train, e4 … e10 test


def anti_causal_test_mean(method: str) -> float:
    """The paper's Mean_Error over the test environments e4 … e10 (SAL: 0.415)."""
    test = ANTI_CAUSAL_SCENARIO_1[method][ANTI_CAUSAL_TRAIN_ENVS:]
    return sum(test) / len(test)
