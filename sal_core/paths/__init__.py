"""The solver paths of WDRL and SAL, each a module of plain functions (as :mod:`robust_linear` is).

A fit decides its path once (:meth:`sal_core.algorithms.wdrl.WDRL.path`) and runs that path's rounds:

* ``exact`` (:mod:`.exact`): linear model, squared loss, closed-form adversary; θ-steps on p×p
  moments, O(p³) per round, independent of n;
* ``gradient`` (:mod:`.gradient`): Adam steps on θ against the closed-form adversary (linear models)
  or m steps of gradient ascent for X̃;
* ``deep`` (:mod:`.deep`): an MLP that learns w through the network (:mod:`sal_core.deep_sal`);
* ``seeded`` (:mod:`.deep`): an MLP trained under the w the exact path learned on a linear model.

What differs between WDRL and SAL is only the w-step (:class:`.w_step.WStep`): w ≡ 1, or learned.
"""

from __future__ import annotations

from typing import Literal

PathName = Literal["exact", "gradient", "deep", "seeded"]

__all__ = ["PathName"]
