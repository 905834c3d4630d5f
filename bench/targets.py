"""The issue's targets for the paper reproduction, checked on a finished run.

Issue 8: SAL at library defaults has the lowest Mean_Error of the six methods in every
selection-bias column and in both anti-causal scenarios, reaches ≤ 0.40 on anti-causal Scenario 1,
is never worse than ERM anywhere, and stays within 0.5% of the oracle on selection bias.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bench.cells import ConfidenceCell, RegressionCell
from bench.paper_numbers import anti_causal_test_mean
from bench.protocol import METHODS, ORACLE

ORACLE_TOLERANCE = 0.005  # SAL within 0.5% of the oracle's Mean_Error on selection bias
ANTI_CAUSAL_TARGET = 0.40  # SAL's Mean_Error on anti-causal Scenario 1 (the paper's SAL: 0.415)
SAL_MIN_CONFIDENCE = 0.75
WDRL_FINAL_CONFIDENCE = 0.6  # "falls toward 0.5": at the largest radius WDRL's confidence is below this

LOWEST = "lowest of six"
NOT_WORSE = "≤ ERM"
NEAR_ORACLE = f"within {ORACLE_TOLERANCE:.1%} of oracle"
LEVEL = f"≤ {ANTI_CAUSAL_TARGET:.2f}"
CELL_TARGETS = (LOWEST, NOT_WORSE, NEAR_ORACLE, LEVEL)
"""The per-cell targets, as the summary table's columns."""


@dataclass(frozen=True)
class Target:
    name: str
    ok: bool | None  # None: could not be checked (a method is not registered)
    detail: str
    section: str  # the report section it belongs to: see :func:`section_of`
    cell: str | None = None  # the cell's label, for a per-cell target
    kind: str | None = None  # one of CELL_TARGETS, for a per-cell target

    @property
    def verdict(self) -> str:
        return {True: "MET", False: "MISSED", None: "NOT CHECKED"}[self.ok]


def section_of(cell: RegressionCell) -> str:
    """'selection S2', 'anti-causal S1', …: the table a cell is printed in."""
    return f"{cell.family} S{cell.scenario}"


def lowest_mean_error(cell: RegressionCell) -> Target:
    """SAL has the lowest seed-averaged Mean_Error of all six methods (the oracle is not a method)."""
    name = f"SAL lowest Mean_Error of the six methods ({cell.label})"
    section = section_of(cell)
    missing = [m for m in METHODS if m not in cell.methods]
    if "sal" in missing:
        return Target(name, None, "SAL is not registered", section, cell.label, LOWEST)
    others = {m: cell.summary(m)[0] for m in cell.methods if m not in ("sal", ORACLE)}
    best = min(others, key=others.__getitem__)
    sal = cell.summary("sal")[0]
    detail = f"SAL {sal:.4f}; best other {best} {others[best]:.4f}"
    if missing:
        return Target(
            name,
            None if sal < others[best] else False,
            detail + f"; not registered: {', '.join(missing)}",
            section,
            cell.label,
            LOWEST,
        )
    return Target(name, sal < others[best], detail, section, cell.label, LOWEST)


def not_worse_than_erm(cell: RegressionCell) -> Target:
    name = f"SAL never worse than ERM ({cell.label})"
    if "sal" not in cell.methods or "erm" not in cell.methods:
        return Target(name, None, "SAL or ERM is not registered", section_of(cell), cell.label, NOT_WORSE)
    sal, erm = cell.summary("sal")[0], cell.summary("erm")[0]
    # beyond rounding: where SAL keeps ERM, the two fits differ by ~1e-12
    worse = sum(s.mean_error["sal"] > (1 + 1e-6) * s.mean_error["erm"] for s in cell.seeds)
    return Target(
        name,
        sal <= erm,
        f"SAL {sal:.4f}, ERM {erm:.4f}; SAL above ERM (beyond rounding) on {worse}/{len(cell.seeds)} seeds",
        section_of(cell),
        cell.label,
        NOT_WORSE,
    )


def near_oracle(cell: RegressionCell) -> Target:
    sal, oracle = cell.summary("sal")[0], cell.summary(ORACLE)[0]
    return Target(
        f"SAL within {ORACLE_TOLERANCE:.1%} of the oracle ({cell.label})",
        sal <= (1 + ORACLE_TOLERANCE) * oracle,
        f"SAL {sal:.4f}, oracle {oracle:.4f} ({100 * (sal / oracle - 1):+.2f}%)",
        section_of(cell),
        cell.label,
        NEAR_ORACLE,
    )


def anti_causal_level(cell: RegressionCell) -> Target:
    sal = cell.summary("sal")[0]
    return Target(
        f"anti-causal S1 Mean_Error ≤ {ANTI_CAUSAL_TARGET:.2f} (the paper's SAL, mean of e4-e10: "
        f"{anti_causal_test_mean('sal', 1):.3f}; the oracle {cell.summary(ORACLE)[0]:.3f})",
        sal <= ANTI_CAUSAL_TARGET,
        f"SAL {sal:.4f}",
        section_of(cell),
        cell.label,
        LEVEL,
    )


def weights_protect_stable(cells: Sequence[RegressionCell], label: str, section: str) -> Target:
    checks = [(cell.label, cell.w_protects_stable()) for cell in cells]
    held = sum(sum(ok) for _, ok in checks)
    total = sum(len(ok) for _, ok in checks)
    per_cell = "; ".join(f"{name}: {sum(ok)}/{len(ok)}" for name, ok in checks)
    return Target(label, total > 0 and held == total, f"{held}/{total} seeds ({per_cell})", section)


def confidence_targets(cells: Sequence[ConfidenceCell]) -> list[Target]:
    if not cells:
        return []
    if any(m not in c.runs for c in cells for m in ("sal", "wdrl")):
        return [Target("confidence table", None, "SAL or WDRL not registered", "confidence")]
    sal = [c.summary("sal", "confidence")[0] for c in cells]
    wdrl = [c.summary("wdrl", "confidence")[0] for c in cells]
    falling = all(b <= a + 1e-3 for a, b in zip(wdrl, wdrl[1:], strict=False))
    return [
        Target(
            f"SAL confidence ≥ {SAL_MIN_CONFIDENCE} at every radius",
            min(sal) >= SAL_MIN_CONFIDENCE,
            ", ".join(f"ρ={c.radius:g}: {v:.3f}" for c, v in zip(cells, sal, strict=True)),
            "confidence",
        ),
        Target(
            f"WDRL confidence falls toward 0.5 (non-increasing in ρ, below {WDRL_FINAL_CONFIDENCE} at the largest)",
            falling and wdrl[-1] < WDRL_FINAL_CONFIDENCE,
            ", ".join(f"ρ={c.radius:g}: {v:.3f}" for c, v in zip(cells, wdrl, strict=True)),
            "confidence",
        ),
    ]


def cell_targets(cell: RegressionCell) -> list[Target]:
    """Every target that applies to one cell, in the order of :data:`CELL_TARGETS`."""
    targets = [lowest_mean_error(cell), not_worse_than_erm(cell)]
    if cell.family == "selection":
        targets.append(near_oracle(cell))
    elif cell.scenario == 1:
        targets.append(anti_causal_level(cell))
    return targets


def check(
    selection: Sequence[RegressionCell],
    anti: Sequence[RegressionCell],
    confidence: Sequence[ConfidenceCell],
) -> list[Target]:
    targets = [t for cell in [*selection, *anti] for t in cell_targets(cell)]
    for scenario in sorted({c.scenario for c in selection}):
        cells = [c for c in selection if c.scenario == scenario]
        targets.append(
            weights_protect_stable(
                cells,
                f"SAL's w larger on every stable covariate than on every V_b, every seed (selection S{scenario})",
                section_of(cells[0]),
            )
        )
    for cell in anti:
        targets.append(
            weights_protect_stable(
                [cell],
                f"SAL's w larger on every S than on every V, every seed ({cell.label}; stricter reading)",
                section_of(cell),
            )
        )
    return targets + confidence_targets(confidence)
