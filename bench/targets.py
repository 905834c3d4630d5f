"""The issue's targets for the paper reproduction, checked on a finished run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bench.cells import ConfidenceCell, RegressionCell
from bench.paper_numbers import anti_causal_test_mean
from bench.protocol import METHODS, ORACLE

ORACLE_TOLERANCE = 0.01  # SAL within 1% of the oracle's Mean_Error on selection bias
ANTI_CAUSAL_TARGET = 0.415
SAL_MIN_CONFIDENCE = 0.75
WDRL_FINAL_CONFIDENCE = 0.6  # "falls toward 0.5": at the largest radius WDRL's confidence is below this


@dataclass(frozen=True)
class Target:
    name: str
    ok: bool | None  # None: could not be checked (a method is not registered)
    detail: str
    section: str  # the report section it belongs to: "selection", "anti-causal" or "confidence"

    @property
    def verdict(self) -> str:
        return {True: "MET", False: "MISSED", None: "NOT CHECKED"}[self.ok]


def lowest_mean_error(cell: RegressionCell, section: str) -> Target:
    """SAL has the lowest seed-averaged Mean_Error of all six methods (the oracle is not a method)."""
    name = f"SAL lowest Mean_Error of the six methods ({cell.label})"
    missing = [m for m in METHODS if m not in cell.methods]
    if "sal" in missing:
        return Target(name, None, "SAL is not registered", section)
    others = {m: cell.summary(m)[0] for m in cell.methods if m not in ("sal", ORACLE)}
    best = min(others, key=others.__getitem__)
    sal = cell.summary("sal")[0]
    detail = f"SAL {sal:.3f}; best other {best} {others[best]:.3f}"
    if missing:
        return Target(
            name,
            None if sal < others[best] else False,
            detail + f"; not registered: {', '.join(missing)}",
            section,
        )
    return Target(name, sal < others[best], detail, section)


def near_oracle(cell: RegressionCell) -> Target:
    sal, oracle = cell.summary("sal")[0], cell.summary(ORACLE)[0]
    return Target(
        f"SAL within {ORACLE_TOLERANCE:.0%} of the oracle ({cell.label})",
        sal <= (1 + ORACLE_TOLERANCE) * oracle,
        f"SAL {sal:.4f}, oracle {oracle:.4f} ({100 * (sal / oracle - 1):+.1f}%)",
        "selection",
    )


def anti_causal_level(cell: RegressionCell) -> Target:
    sal = cell.summary("sal")[0]
    return Target(
        f"anti-causal Mean_Error ≤ {ANTI_CAUSAL_TARGET} (the paper's SAL, mean of e4-e10 = {anti_causal_test_mean('sal'):.4f})",
        sal <= ANTI_CAUSAL_TARGET,
        f"SAL {sal:.4f}",
        "anti-causal",
    )


def weights_protect_stable(cells: Sequence[RegressionCell], label: str, section: str) -> Target:
    checks = [(cell.label, cell.w_protects_stable()) for cell in cells]
    held = sum(sum(ok) for _, ok in checks)
    total = sum(len(ok) for _, ok in checks)
    per_cell = "; ".join(f"{name}: {sum(ok)}/{len(ok)}" for name, ok in checks)
    return Target(label, total > 0 and held == total, f"{held}/{total} seeds ({per_cell})", section)


def confidence_targets(cells: Sequence[ConfidenceCell]) -> list[Target]:
    if not cells or any(m not in c.runs for c in cells for m in ("sal", "wdrl")):
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


def check(
    selection: Sequence[RegressionCell], anti: RegressionCell | None, confidence: Sequence[ConfidenceCell]
) -> list[Target]:
    targets = [lowest_mean_error(c, "selection") for c in selection]
    if anti is not None:
        targets.append(lowest_mean_error(anti, "anti-causal"))
    targets += [near_oracle(c) for c in selection]
    if anti is not None:
        targets.append(anti_causal_level(anti))
    if selection:
        targets.append(
            weights_protect_stable(
                selection,
                "SAL's w larger on every stable covariate than on V_b, every seed (selection bias)",
                "selection",
            )
        )
    if anti is not None:
        targets.append(
            weights_protect_stable(
                [anti],
                "SAL's w larger on every S than on every V, every seed (anti-causal; stricter reading)",
                "anti-causal",
            )
        )
    return targets + confidence_targets(confidence)
