"""Report figures: pure functions from result data to matplotlib figures (Agg backend, no display).

Each function takes plain mappings (what a job's or a sweep's JSON holds) and returns a
``matplotlib.figure.Figure`` built without pyplot, so nothing global is touched and figures can be
drawn in threads. :func:`to_png` and :func:`to_svg` serialise one.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from sal_core.history import Round, as_rounds

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
STABLE_COLOR, UNSTABLE_COLOR = "#1f4e9c", "#f28e2b"
HATCHES = ("", "//", "..", "xx", "\\\\", "++", "--", "oo")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")


def _figure(width: float = 7.5, height: float = 3.6) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def error_by_environment(
    errors: Mapping[str, Mapping[str, float]],
    metric: str,
    spread: Mapping[str, Mapping[str, float]] | None = None,
    title: str = "Test error per environment",
) -> Figure:
    """Grouped bars from zero, one group per environment and one bar per method (environments
    are categories, not a continuum, and an axis from zero shows the gaps at their size).

    ``errors`` is {method: {environment: error}}; ``spread`` the same shape with ± bars (std over
    seeds). The legend sits below the axes, never over a bar."""
    fig = _figure(height=4.0)
    ax = fig.add_subplot()
    envs: list[str] = []
    for per_env in errors.values():
        envs += [e for e in per_env if e not in envs]
    width = 0.8 / max(len(errors), 1)
    for i, (method, per_env) in enumerate(errors.items()):
        xs = [j + (i - (len(errors) - 1) / 2) * width for j in range(len(envs))]
        ys = [per_env.get(e, float("nan")) for e in envs]
        yerr = [spread[method].get(e, 0.0) for e in envs] if spread and method in spread else None
        ax.bar(xs, ys, width, yerr=yerr, capsize=2, color=PALETTE[i % len(PALETTE)],
               hatch=HATCHES[i % len(HATCHES)], edgecolor="white", label=method)  # fmt: skip
    ax.set_ylim(bottom=0.0)
    ax.set_xticks(range(len(envs)), envs, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(metric)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    fig.legend(
        *ax.get_legend_handles_labels(), loc="outside lower center", fontsize=8, ncols=min(len(errors), 6)
    )
    return fig


def covariate_weights(
    weights: Mapping[str, Mapping[str, float]],
    stable: Sequence[str] | None = None,
    title: str = "Learned covariate weights w",
) -> Figure:
    """Bars of w per covariate. One method: dark bars where w ≥ half its largest value (kept, as
    for stable covariates), light where smaller (shrunk, as for unstable ones); several methods:
    grouped bars. ``stable`` names covariates known to be stable (marked with ``*``)."""
    fig = _figure()
    ax = fig.add_subplot()
    features = list(next(iter(weights.values())))
    labels = [f"{f}*" if stable and f in stable else f for f in features]
    x = range(len(features))
    if len(weights) == 1:
        ((method, w),) = weights.items()
        values = [w[f] for f in features]
        top = max(abs(v) for v in values) or 1.0
        colors = [STABLE_COLOR if abs(v) >= 0.5 * top else UNSTABLE_COLOR for v in values]
        ax.bar(x, values, color=colors)
        ax.bar([0], [0], color=STABLE_COLOR, label="large w (treated as stable)")
        ax.bar([0], [0], color=UNSTABLE_COLOR, label="small w (treated as unstable)")
        ax.set_title(f"{title} ({method})")
    else:
        width = 0.8 / len(weights)
        for i, (method, w) in enumerate(weights.items()):
            ax.bar([j + (i - (len(weights) - 1) / 2) * width for j in x], [w[f] for f in features], width,
                   color=PALETTE[i % len(PALETTE)], label=method)  # fmt: skip
        ax.set_title(title)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--", label="w = 1 (start)")
    values = [v for w in weights.values() for v in w.values()]
    if min(values) > 0 and max(values) / min(values) > 100:  # w spans orders of magnitude: compare ratios
        ax.set_yscale("log")
    ax.set_xticks(list(x), labels, fontsize=8)
    ax.set_ylabel("w (log scale)" if ax.get_yscale() == "log" else "w")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the axes, not on a bar
    ax.grid(axis="y", alpha=0.3)
    return fig


def coefficients(
    theta: Mapping[str, Mapping[str, float]], title: str = "Coefficients θ (original units)"
) -> Figure:
    """Grouped bars of θ per covariate, one colour per method; ``theta`` is {method: {feature: θ}}."""
    fig = _figure()
    ax = fig.add_subplot()
    features = list(next(iter(theta.values())))
    width = 0.8 / len(theta)
    for i, (method, values) in enumerate(theta.items()):
        ax.bar([j + (i - (len(theta) - 1) / 2) * width for j in range(len(features))], [values[f] for f in features],
               width, color=PALETTE[i % len(PALETTE)], label=method)  # fmt: skip
    ax.axhline(0.0, color="black", lw=0.6)
    ax.set_xticks(range(len(features)), features, fontsize=8)
    ax.set_ylabel("θ")
    ax.set_title(title)
    ax.legend(fontsize=8, ncols=min(len(theta), 6))
    ax.grid(axis="y", alpha=0.3)
    return fig


def has_curves(history: Sequence[Round | Mapping[str, Any]]) -> bool:
    return len(history) > 1


def training_curves(
    history: Sequence[Round | Mapping[str, Any]], feature_names: Sequence[str] | None = None
) -> Figure:
    """The minimised risk over training rounds, and w per covariate over rounds when the history
    records it. ``history`` is a job's ``result.history`` (``Round`` s, or their JSON)."""
    rounds = as_rounds(history)
    with_w = any(r.w is not None for r in rounds)
    fig = _figure(height=3.4 if not with_w else 3.6)
    axes = fig.subplots(1, 2 if with_w else 1, squeeze=False)[0]
    axes[0].plot([r.round for r in rounds], [r.risk for r in rounds], color=PALETTE[0], lw=1.5)
    axes[0].set_xlabel("round")
    # SAL's rounds carry w: their risk is the worst-case risk R(θ); the others' is their objective.
    axes[0].set_ylabel("R(θ)" if with_w else "objective")
    axes[0].set_title("Worst-case risk R(θ) over rounds" if with_w else "Objective over rounds")
    axes[0].grid(alpha=0.3)
    if with_w:
        with_weights = [r for r in rounds if r.w is not None]
        ws = [r.w for r in with_weights if r.w is not None]
        w_rounds = [r.round for r in with_weights]
        names = list(feature_names) if feature_names else [f"x{j + 1}" for j in range(len(ws[0]))]
        every = max(1, len(w_rounds) // 12)
        for j, name in enumerate(names):
            # Colour, marker and dash all differ, so two covariates never read as one line.
            axes[1].plot(w_rounds, [w[j] for w in ws], lw=1.2, color=PALETTE[j % len(PALETTE)],
                         marker=MARKERS[j % len(MARKERS)], markevery=every, ms=4,
                         ls=LINESTYLES[(j // len(PALETTE)) % len(LINESTYLES)], label=name)  # fmt: skip
        positive = [v for w in ws for v in w if v is not None]
        if positive and min(positive) > 0:  # w >= 1 spans decades: V1 at 8 and V4 at 1 apart
            axes[1].set_yscale("log")
        axes[1].set_xlabel("round")
        axes[1].set_ylabel("w (log scale)" if axes[1].get_yscale() == "log" else "w")
        axes[1].set_title("Covariate weights w over rounds")
        axes[1].legend(fontsize=7, ncols=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        axes[1].grid(alpha=0.3)
    return fig


def to_png(fig: Figure, dpi: int = 100) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    return buf.getvalue()


def to_svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", facecolor="white")
    text = buf.getvalue()
    return text[text.index("<svg") :]  # drop the XML prolog and doctype: inline in HTML
