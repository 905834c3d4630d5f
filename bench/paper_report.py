"""Markdown for a finished :func:`bench.paper.run`: our numbers beside the paper's, then the targets."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from bench.cells import RegressionCell
from bench.paper_numbers import (
    ANTI_CAUSAL_SCENARIO_1,
    CONFIDENCE,
    SELECTION_BIAS_SCENARIO_1,
    anti_causal_test_mean,
)
from bench.protocol import ORACLE
from bench.targets import Target, check

if TYPE_CHECKING:
    from bench.paper import PaperRun

LABELS = {
    "erm": "ERM",
    "lasso": "LASSO",
    "ridge": "Ridge",
    "wdrl": "WDRL",
    "irm": "IRM",
    "sal": "SAL",
    ORACLE: "oracle (ERM on S)",
}


UNBOUNDED_W = 1e6


def ours(mean_std: tuple[float, float], paper: float | None = None) -> str:
    text = f"{mean_std[0]:.3f} ± {mean_std[1]:.3f}"
    return text if paper is None else f"{text} ({paper:.3f})"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def selection_table(cells: list[RegressionCell]) -> list[str]:
    head = ["Method"] + [f"{c.label}: {stat}" for c in cells for stat in ("Mean_Error", "Std_Error")]
    lines = [_row(head), _row(["---"] + ["---:"] * (len(head) - 1))]
    for method in cells[0].methods:
        row = [LABELS.get(method, method)]
        for cell in cells:
            published = SELECTION_BIAS_SCENARIO_1.get(cell.key, {}) if cell.key is not None else {}
            paper = published.get(method, (None, None))
            row += [ours(cell.summary(method), paper[0]), ours(cell.summary(method, "std_error"), paper[1])]
        lines.append(_row(row))
    return lines


def anti_causal_table(cell: RegressionCell) -> list[str]:
    envs = list(cell.seeds[0].rmse[cell.methods[0]])
    head = ["Method", *(e.removeprefix("test ") for e in envs), "Mean_Error (e4-e10)", "Std_Error"]
    lines = [_row(head), _row(["---"] + ["---:"] * (len(head) - 1))]
    for method in cell.methods:
        paper = ANTI_CAUSAL_SCENARIO_1.get(method)
        row = [LABELS.get(method, method)]
        row += [ours(cell.env_rmse(method, e), paper[i] if paper else None) for i, e in enumerate(envs)]
        row.append(ours(cell.summary(method), anti_causal_test_mean(method) if paper else None))
        row.append(ours(cell.summary(method, "std_error")))
        lines.append(_row(row))
    return lines


def confidence_table(run: PaperRun) -> list[str]:
    head = ["radius ρ", "λ = 1/ρ"]
    for m in ("WDRL", "SAL"):
        head += [f"{m} Acc", f"{m} Conf", f"{m} ρ̂"]
    lines = [_row(head), _row(["---"] + ["---:"] * (len(head) - 1))]
    for cell in run.confidence:
        row = [f"{cell.radius:g}", f"{cell.lambda_:g}"]
        for method in ("wdrl", "sal"):
            if method not in cell.runs:
                row += ["not registered"] * 3
                continue
            acc, conf = CONFIDENCE.get(cell.radius, {}).get(method, (None, None))
            rho = cell.summary(method, "rho_hat")
            row += [
                ours(cell.summary(method, "accuracy"), acc),
                ours(cell.summary(method, "confidence"), conf),
                f"{rho[0]:.2g}",
            ]
        lines.append(_row(row))
    return lines


def weights_table(cells: list[RegressionCell]) -> list[str]:
    names = cells[0].feature_names
    head = ["setting", *names, "min w_S > max w_biased"]
    lines = [_row(head), _row(["---"] + ["---:"] * (len(head) - 1))]
    for cell in cells:
        ws = [s.sal_w for s in cell.seeds if s.sal_w is not None]
        if not ws or len(cell.feature_names) != len(names):
            continue
        means = [sum(float(w[i]) for w in ws) / len(ws) for i in range(len(names))]
        marks = [f"{m:.3g}" + ("*" if i in cell.biased else "") for i, m in enumerate(means)]
        ok = cell.w_protects_stable()
        lines.append(_row([cell.label, *marks, f"{sum(ok)}/{len(ok)} seeds"]))
    if any(
        float(w.max()) > UNBOUNDED_W for cell in cells for w in (s.sal_w for s in cell.seeds) if w is not None
    ):
        lines += [
            "",
            f"Some w exceed {UNBOUNDED_W:.0e}: W = {{w ≥ 1, min w = 1}} has no upper bound and SAL's w update "
            "keeps growing the weights it protects. Only their order and ratios to 1 carry meaning.",
        ]
    return lines


def chosen_params(cells: list[RegressionCell]) -> list[str]:
    head = ["Method", *(c.label for c in cells)]
    lines = [_row(head), _row(["---"] * len(head))]
    for method in cells[0].methods:
        if not any(s.params[method] for cell in cells for s in cell.seeds):
            continue  # always at defaults (ERM, SAL, the oracle)
        row = [LABELS.get(method, method)]
        for cell in cells:
            counts = Counter(_params_text(s.params[method]) for s in cell.seeds)
            row.append("; ".join(f"{text} ({k}/{len(cell.seeds)})" for text, k in counts.most_common(2)))
        lines.append(_row(row))
    return lines


def _params_text(params: dict[str, Any]) -> str:
    return (
        ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())
        or "defaults"
    )


def missed(targets: list[Target], section: str) -> list[str]:
    """A line under a table naming the targets it misses, so a miss is visible where the numbers are."""
    names = [f"{t.name} ({t.detail})" for t in targets if t.section == section and t.ok is False]
    return [f"**Targets missed here:** {'; '.join(names)}.", ""] if names else []


def render(run: PaperRun, *, command: str, date: str, machine: str) -> str:
    c = run.config
    regression = [*run.selection, *([run.anti] if run.anti else [])]
    targets = check(run.selection, run.anti, run.confidence)
    out = [
        "# Paper results: our reproduction beside the paper",
        "",
        f"Command: `{command}` · {date} · {machine} · wall time {run.seconds / 60:.1f} min.",
        "",
        f"Every number is ours as mean ± sample std over seeds, with the paper's in parentheses. Regression "
        f"cells: {c.seeds} seeds; confidence table: {c.confidence_seeds} seed(s) per radius. Errors are RMSE "
        "(`sal_core.metrics`); Mean_Error and Std_Error are the mean and sample std over the test environments.",
        "",
    ]
    if run.selection:
        out += [
            f"## Selection bias, Scenario 1 (n = 2000, p = 10, κ = 0.95, n_b = 1; {c.n_test_selection} rows per test environment)",
            "",
            *selection_table(run.selection),
            "",
            *missed(targets, "selection"),
        ]
    if run.confidence:
        out += [
            f"## Confidence: classification under selection bias (n = 2000, p = 10, κ = 0.95, n_b = 1, r = {c.confidence_r:g})",
            "",
            "Acc and Conf are averaged over the ten test environments; ρ̂ is the transport cost of the worst case "
            "the fit found (`fit.certificate.rho_hat`, standardised covariates), the radius our λ actually certifies.",
            "",
            *confidence_table(run),
            "",
            *missed(targets, "confidence"),
        ]
    if run.anti is not None:
        out += [
            f"## Anti-causal, Scenario 1 (n_s = 5, n_v = 5; training sizes 1800/150/50, {c.n_test_anti_causal} rows per test environment)",
            "",
            "e1-e3 are the training environments (all their rows); e4-e10 the test environments.",
            "",
            *anti_causal_table(run.anti),
            "",
            *missed(targets, "anti-causal"),
        ]
    if regression:
        out += [
            "## SAL's covariate weights w (mean over seeds; * marks the biased covariates)",
            "",
            *weights_table(regression),
            "",
            "## Hyper-parameters chosen on the validation split (most frequent over seeds)",
            "",
            *chosen_params(regression),
            "",
        ]
    out += ["## Targets", ""]
    out += [f"- **{t.verdict}** {t.name}: {t.detail}" for t in targets]
    timings = [f"{c.label} {c.seconds:.0f} s" for c in regression]
    timings += [f"confidence ρ = {c.radius:g} {c.seconds:.0f} s" for c in run.confidence]
    out += ["", "## How these numbers were made", "", *NOTES, f"- Wall time per cell: {'; '.join(timings)}."]
    return "\n".join(out) + "\n"


NOTES = [
    "- Data: `sal_core.synthetic.selection_bias` and `anti_causal(scenario=1)`, one data seed per run "
    "(seed k draws the data and seeds the fits). Selection-bias test r are `sal_core.synthetic.TEST_RS`.",
    "- Validation: each training environment's rows are split 80/20 at random (seeded); the 20% parts, pooled, "
    "are the validation set drawn i.i.d. from the training environments. Each baseline is fitted on the 80% parts "
    "once per point of its declared grid (`get_algorithm(name).params_type.search_space()`), and the point with "
    "the lowest pooled validation MSE is kept *as fitted* (no refit on all rows, as in DomainBed's training-domain "
    "validation). ERM has no grid. SAL runs at its library defaults, never tuned, the same in every setting. "
    "Every method, SAL and the oracle included, trains on the same 80% rows.",
    "- Oracle: ERM (OLS) on the stable covariates only (`setting.stable`), the best a linear model can do "
    "when only P(Y | S) is invariant. It is not one of the six methods in the targets.",
    "- Confidence table: no selection (the radius is the variable); SAL and WDRL at λ = 1/ρ on all training "
    "rows, everything else at defaults. Our algorithms use the Lagrangian penalty λ instead of a radius; λ = 1/ρ "
    "is a nominal mapping, so the radius each fit certifies, ρ̂, is printed beside it. The paper does not give r "
    "for this table; we use 1.7.",
    "- Targets compare seed-averaged numbers. `python -m bench.paper --quick` runs 2 seeds on fewer cells "
    "as a smoke test; its numbers are not a reproduction.",
]
