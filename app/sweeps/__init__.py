"""Sweeps: many ordinary jobs over hyper-parameter candidates and seeds, then one model-selection
step. Pure functions: ``plan`` expands a request into trials, ``leaderboard`` selects from their
results. The API stores and enqueues; workers run the trials like any other job."""

from app.sweeps.leaderboard import TrialOutcome, leaderboard
from app.sweeps.plan import SELECTIONS, Candidate, TrialSpec, candidates, plan_trials

__all__ = ["SELECTIONS", "Candidate", "TrialOutcome", "TrialSpec", "candidates", "leaderboard", "plan_trials"]
