"""SAL at its defaults (``lambda_="auto"``) chunk by chunk (issue 19): the folds, the choice, the
scores and the coefficients are the in-memory fit's, on a table whose rows are shuffled across
row groups and environments."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch

from app.datasets import fanout, outofcore
from app.storage.local import LocalStore
from sal_core import cross_fit, get_algorithm
from sal_core.algorithms.irm import IRM
from sal_core.algorithms.lasso import ConvergenceWarning
from sal_core.algorithms.sal import SAL
from sal_core.algorithms.wdrl import WDRL
from sal_core.data import Environment, Standardizer
from sal_core.synthetic import selection_bias
from tests.app import factories as f

SEED = 11
KEY = "t.parquet"


@pytest.fixture(scope="module")
def data() -> Any:
    s = selection_bias(r=1.7, n=3000, seed=4, n_test=300)
    # not standardised already, and a test environment that the fit must not see
    train = [Environment(e.name, e.X * 3.0 + 5.0, e.y) for e in s.train]
    test = [Environment(e.name, e.X * 3.0 + 5.0, e.y) for e in s.test[:1]]
    return s.feature_names, train, test


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, data: Any) -> LocalStore:
    """The rows shuffled across environments, in row groups of 700 (a chunk holds several envs)."""
    names, train, test = data
    store = LocalStore(Path(tmp_path_factory.mktemp("outofcore")) / "objects")
    store.put(KEY, f.shuffled_parquet(names, [*train, *test], row_group_size=700))
    return store


def _runner(store: LocalStore, data: Any, run: str) -> outofcore.PassRunner:
    names, train, test = data
    envs = tuple(e.name for e in [*train, *test])
    n_groups = pq.ParquetFile(io.BytesIO(store.get(KEY))).metadata.num_row_groups

    def run_pass(what: fanout.Pass) -> fanout.Arrays:
        parts = fanout.plan_parts(
            n_groups, 3, run, what, storage="local", key=KEY, environments=envs,
            feature_names=tuple(names), target="y",
        )  # fmt: skip
        return fanout.reduce_parts(fanout.run_pass(store, parts, None, stall_s=60), what.name)

    return run_pass


def _chunked(
    data: Any, store: LocalStore, params: dict[str, Any], algorithm: str = "sal", **kw: Any
) -> outofcore.LinearFit:
    names, train, test = data
    d = outofcore.ChunkedData(
        environments=tuple(e.name for e in [*train, *test]),
        feature_names=tuple(names),
        train=tuple(e.name for e in train),
        test=tuple(e.name for e in test),
    )
    run = _runner(store, data, f"run-{algorithm}-{len(params)}-{len(kw)}")
    return outofcore.fit_linear(d, algorithm, params, run, seed=SEED, **kw)


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(np.asarray(b))))


def test_sal_at_defaults_runs_chunk_by_chunk() -> None:
    assert outofcore.supports("sal", "regression", {"kind": "linear"}, {}) is None
    assert outofcore.supports("sal", "regression", None, {"lambda_": "auto", "anchor": "all"}) is None
    assert outofcore.supports("sal", "regression", None, {"gradient": "paper"}) is not None
    # progress counts the in-memory fit's steps: the batched selection's rounds, then the refit's
    assert outofcore.total_steps("sal", {}) == SAL({}).total_steps() == 2 * SAL({}).schedule().rounds
    assert outofcore.total_steps("sal", {"lambda_": 0.1, "rounds": 7}) == 7
    assert outofcore.supports("wdrl", "regression", None, {}) is None
    assert outofcore.supports("wdrl", "regression", None, {"adversary": "gradient"}) is not None
    assert outofcore.supports("irm", "classification", None, {}) is not None
    assert outofcore.total_steps("wdrl", {}) == WDRL({}).total_steps()


@pytest.mark.parametrize("params", [{}, {"lambda_": 0.1}])
def test_wdrl_chunked_is_the_in_memory_fit(data: Any, store: LocalStore, params: dict[str, Any]) -> None:
    """WDRL (SAL with w ≡ 1) at its defaults and at a fixed λ: the same choice, coefficients,
    rounds and certificate as in memory."""
    names, train, _ = data
    memory = get_algorithm("wdrl")(params, seed=SEED).fit(train, feature_names=names)
    steps: list[int] = []

    def progress(step: int, metrics: dict[str, Any]) -> bool:
        steps.append(step)
        return False

    chunked = _chunked(data, store, params, "wdrl", progress=progress)
    assert not chunked.stopped and steps[-1] == outofcore.total_steps("wdrl", params)
    if params:
        assert chunked.selection is None and memory.selection is None
    else:
        assert memory.selection is not None and chunked.selection is not None
        want, got = memory.selection.to_dict(), chunked.selection.to_dict()
        assert got["chosen"]["relative"] == want["chosen"]["relative"] and got["reason"] == want["reason"]
        for a, b in zip(got["candidates"], want["candidates"], strict=True):
            assert a["relative"] == b["relative"] and a["score"] == pytest.approx(b["score"], rel=1e-7)
    assert memory.coefficients_original is not None and memory.intercept_original is not None
    assert _rel(chunked.coef, memory.coefficients_original) < 1e-8
    assert chunked.intercept == pytest.approx(memory.intercept_original, rel=1e-8)
    assert chunked.w is not None and np.all(chunked.w == 1.0)
    assert len(chunked.rounds) == len(memory.history) == 1
    assert chunked.rounds[0]["risk"] == pytest.approx(memory.history[0].risk, rel=1e-8)
    assert memory.certificate is not None and chunked.certificate is not None
    assert chunked.certificate[1] == pytest.approx(memory.certificate.worst_case_risk, rel=1e-8)


def test_the_folds_of_the_chunks_are_the_folds_in_memory(data: Any, store: LocalStore) -> None:
    """Each (environment, fold) cell of the sums pass holds the rows the fit in memory puts there."""
    names, train, _ = data
    k = SAL({}).exact_plan().folds
    standardizer = Standardizer.fit(np.concatenate([e.X for e in train]))
    y = np.concatenate([e.y for e in train])
    y_scale = float(np.std(y, ddof=1))
    scale = cross_fit.KeyScale.of(standardizer.mean, standardizer.scale, [e.y for e in train])
    params = {"mean": standardizer.mean.tolist(), "scale": standardizer.scale.tolist(), "y_scale": y_scale}
    params |= outofcore.key_params(scale)
    got = fanout.fold_sums_of(
        _runner(store, data, "folds")(fanout.Pass("sums", params | {"folds": k, "seed": SEED}))
    )
    keys = np.concatenate([cross_fit.row_keys(e.X, e.y, names, scale) for e in train])
    Z = torch.as_tensor(np.concatenate([standardizer.transform(e.X) for e in train]))
    env = torch.as_tensor(np.repeat(np.arange(len(train)), [e.n_rows for e in train]))
    folds = torch.as_tensor(cross_fit.folds_of(keys, SEED, k))
    want = cross_fit.fold_sums(Z, torch.as_tensor(y / y_scale), env, folds, len(train), k)
    np.testing.assert_array_equal(got.n[: len(train)], want.n)
    np.testing.assert_allclose(got.zz[: len(train)], want.zz, rtol=1e-10, atol=1e-8)
    np.testing.assert_allclose(got.zy[: len(train)], want.zy, rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize("params", [{}, {"repeats": 1}])
def test_sal_at_defaults_chunked_is_the_in_memory_fit(
    data: Any, store: LocalStore, params: dict[str, Any]
) -> None:
    """Same choice, coefficients to 1e-8, at the defaults (cross-fitting repeated on three splits at
    p = 10) and with one split. The scores agree to ~1e-9, not 1e-15 as the sums do: a fold fit whose w reaches its cap
    solves a system conditioned ~1e8, so the sums' last digits (added in another order) move its θ
    by up to 3e-9 (measured; the out-of-fold pass itself, given the same fold fits, agrees with the
    rows in memory to 5e-16)."""
    names, train, _ = data
    memory = get_algorithm("sal")(params, seed=SEED).fit(train, feature_names=names)
    chunked = _chunked(data, store, params)
    assert memory.selection is not None and chunked.selection is not None
    want, got = memory.selection.to_dict(), chunked.selection.to_dict()
    assert got["chosen"]["relative"] == want["chosen"]["relative"]
    assert got["chosen"]["variant"] == want["chosen"]["variant"]
    assert got["reason"] == want["reason"]
    assert got["scoring"] == want["scoring"]
    assert got["rows_scored"] == want["rows_scored"]
    assert got["base"] == pytest.approx(want["base"], rel=1e-10)
    for a, b in zip(got["candidates"], want["candidates"], strict=True):
        assert (a["relative"], a["variant"]) == (b["relative"], b["variant"])
        assert a["score"] == pytest.approx(b["score"], rel=1e-7)
        assert a["se"] == pytest.approx(b["se"], rel=1e-5, abs=1e-12)
        for env, score in b["env_scores"].items():
            assert a["env_scores"][env] == pytest.approx(score, rel=1e-7)
    assert got["covariate_weights"]["determined"] == want["covariate_weights"]["determined"]
    np.testing.assert_allclose(got["covariate_weights"]["low"], want["covariate_weights"]["low"], rtol=1e-8)

    assert memory.coefficients_original is not None and memory.intercept_original is not None
    assert _rel(chunked.coef, memory.coefficients_original) < 1e-8
    assert chunked.intercept == pytest.approx(memory.intercept_original, rel=1e-8)
    assert memory.covariate_weights is not None and chunked.w is not None
    assert _rel(chunked.w, memory.covariate_weights) < 1e-8
    assert len(chunked.rounds) == len(memory.history)
    assert chunked.rounds[-1]["risk"] == pytest.approx(memory.history[-1].risk, rel=1e-8)
    assert memory.certificate is not None and chunked.certificate is not None
    assert chunked.certificate[0] == pytest.approx(memory.certificate.rho_hat, rel=1e-6)
    assert set(chunked.passes) == {"stats", "sums", "oof", "metrics"}


def test_a_stop_while_choosing_ends_the_chunked_fit(data: Any, store: LocalStore) -> None:
    seen: list[int] = []

    def progress(step: int, metrics: dict[str, Any]) -> bool:
        seen.append(step)
        return step >= 5

    fit = _chunked(data, store, {}, progress=progress)
    assert fit.stopped and fit.selection is None
    assert seen == [1, 2, 3, 4, 5] and len(fit.rounds) == 5
    assert "oof" not in fit.passes  # stopped before the candidates were scored


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [("ridge", {}), ("ridge", {"lambda_": 3.0}), ("lasso", {}), ("lasso", {"lambda_": 0.2})],
)
def test_ridge_and_lasso_chunked_are_the_in_memory_fit(
    data: Any, store: LocalStore, algorithm: str, params: dict[str, Any]
) -> None:
    """Ridge's closed form and the Lasso's FISTA iterations on the pooled moments: the in-memory
    fit's coefficients to 1e-8 relative, and its one round (the objective) to 1e-8."""
    names, train, _ = data
    assert outofcore.supports(algorithm, "regression", {"kind": "linear"}, params) is None
    memory = get_algorithm(algorithm)(params, seed=SEED).fit(train, feature_names=names)
    seen: list[dict[str, Any]] = []

    def progress(step: int, metrics: dict[str, Any]) -> bool:
        seen.append(metrics)
        return False

    chunked = _chunked(data, store, params, algorithm, progress=progress)
    assert memory.coefficients_original is not None and memory.intercept_original is not None
    assert _rel(chunked.coef, memory.coefficients_original) < 1e-8
    assert chunked.intercept == pytest.approx(memory.intercept_original, rel=1e-8)
    if algorithm == "lasso" and params:  # a penalty that drops covariates drops the same ones
        assert np.array_equal(chunked.coef == 0.0, memory.coefficients_original == 0.0)
        assert np.any(chunked.coef == 0.0)
    assert chunked.w is None and chunked.certificate is None and not chunked.stopped
    assert len(chunked.rounds) == len(memory.history) == 1
    assert chunked.rounds[0]["risk"] == pytest.approx(memory.history[0].risk, rel=1e-8)
    for env, loss in memory.history[0].env_losses.items():
        assert chunked.rounds[0]["env_losses"][env] == pytest.approx(loss, rel=1e-8)
    assert seen[-1]["objective"] == pytest.approx(memory.history[0].risk, rel=1e-8)
    assert set(chunked.passes) == {"stats", "sums", "metrics"}


@pytest.mark.parametrize("params", [{}, {"penalty_weight": 100.0}, {"penalty_weight": 1e4}])
def test_irm_chunked_is_the_in_memory_fit(data: Any, store: LocalStore, params: dict[str, Any]) -> None:
    """IRMv1's Newton solve on each training environment's moments: the in-memory fit's
    coefficients, objective, penalty and environment losses to 1e-8 relative."""
    names, train, _ = data
    assert outofcore.supports("irm", "regression", {"kind": "linear"}, params) is None
    assert outofcore.supports("irm", "regression", {"kind": "mlp"}, params) is not None
    assert outofcore.total_steps("irm", params) == IRM(params).total_steps()
    memory = get_algorithm("irm")(params, seed=SEED).fit(train, feature_names=names)
    seen: list[dict[str, Any]] = []

    def progress(step: int, metrics: dict[str, Any]) -> bool:
        seen.append(metrics)
        return False

    chunked = _chunked(data, store, params, "irm", progress=progress)
    assert memory.coefficients_original is not None and memory.intercept_original is not None
    assert _rel(chunked.coef, memory.coefficients_original) < 1e-8
    assert chunked.intercept == pytest.approx(memory.intercept_original, rel=1e-8)
    assert chunked.w is None and chunked.certificate is None and not chunked.stopped
    assert len(chunked.rounds) == len(memory.history) == 1
    round_ = memory.history[0]
    assert round_.penalty is not None
    assert chunked.rounds[0]["risk"] == pytest.approx(round_.risk, rel=1e-8)
    assert chunked.rounds[0]["penalty"] == pytest.approx(round_.penalty, rel=1e-6, abs=1e-12)
    for env, loss in round_.env_losses.items():
        assert chunked.rounds[0]["env_losses"][env] == pytest.approx(loss, rel=1e-8)
    assert seen[-1]["objective"] == pytest.approx(round_.risk, rel=1e-8)


def test_an_irm_newton_solve_that_does_not_converge_is_said(data: Any, store: LocalStore) -> None:
    """γ = 1e4 without annealing: Newton runs its 100 steps on this table without reaching its
    gradient tolerance (in memory too, silently), and where it stops depends on the moments' last
    digits (measured 1.7e-3 relative between the two fits), so the chunked fit warns."""
    with pytest.warns(ConvergenceWarning, match="Newton"):
        fit = _chunked(data, store, {"penalty_weight": 1e4, "anneal_steps": 0}, "irm")
    assert np.all(np.isfinite(fit.coef))


def test_a_stopped_pass_sends_and_computes_nothing(data: Any, store: LocalStore) -> None:
    """``stop`` is asked before the parts are sent and before each part computed here."""
    names, train, test = data
    envs = tuple(e.name for e in [*train, *test])
    parts = fanout.plan_parts(
        4, 1, "stopped", fanout.Pass("stats", {}), storage="local", key=KEY, environments=envs,
        feature_names=tuple(names), target="y",
    )  # fmt: skip
    sent: list[int] = []
    with pytest.raises(fanout.PassStopped):
        fanout.run_pass(store, parts, lambda p: sent.append(p.index), stall_s=60, stop=lambda: True)
    asked = iter([False, False, True])  # before sending, before the first part, before the second
    with pytest.raises(fanout.PassStopped):
        fanout.run_pass(store, parts, None, stall_s=60, stop=lambda: next(asked))
    assert sent == []
    done = [o.key for o in store.list(parts[0].directory) if o.key.endswith(".npz")]
    assert done == [parts[3].result_key]  # the last part first, then the stop


class _ListingStore(LocalStore):
    """A local store that counts its listings."""

    listings = 0

    def list(self, prefix: str) -> list[Any]:
        self.listings += 1
        return super().list(prefix)


def test_a_pass_computed_here_lists_nothing_and_one_sent_lists_while_waiting(
    data: Any, store: LocalStore, tmp_path: Path
) -> None:
    """The parent finds the parts it takes by their markers, not by listing the pass's objects at
    each step (a listing grows with the parts: at thousands of parts it cost more than the parts'
    arithmetic); it lists only while it waits on parts sent elsewhere."""
    names, train, test = data
    envs = tuple(e.name for e in [*train, *test])
    counting = _ListingStore(tmp_path / "objects")
    counting.put(KEY, store.get(KEY))

    def parts_of(run: str) -> list[fanout.Part]:
        return fanout.plan_parts(
            5, 1, run, fanout.Pass("stats", {}), storage="local", key=KEY, environments=envs,
            feature_names=tuple(names), target="y",
        )  # fmt: skip

    alone = list(fanout.run_pass(counting, parts_of("alone"), None, stall_s=60))
    assert counting.listings == 0
    assert len(alone) == 5
    # Sent parts that a chunk task computes: the parent takes none (help_=False) and lists to see them.
    sent = parts_of("sent")
    done: list[int] = []

    def compute_one(part: fanout.Part) -> None:
        done.append(part.index)
        fanout.do_part(counting, part)

    helped = list(fanout.run_pass(counting, sent, compute_one, stall_s=60, help_=False))
    assert done == list(range(5)) and counting.listings >= 1
    for a, b in zip(alone, helped, strict=True):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])  # the same sums whoever computed the parts


def _chunked_training_rows(
    tmp_path: Path, names: list[str], train: list[Environment], algorithm: str, row_group_size: int
) -> outofcore.LinearFit:
    """``algorithm`` at defaults, chunk by chunk, on a table of ``train`` alone (every environment a
    training one), its rows shuffled across row groups in a store of its own."""
    store = LocalStore(tmp_path / "objects")
    store.put(KEY, f.shuffled_parquet(names, train, row_group_size=row_group_size))
    d = outofcore.ChunkedData(
        environments=tuple(e.name for e in train), feature_names=tuple(names),
        train=tuple(e.name for e in train), test=(),
    )  # fmt: skip
    run = _runner(store, (names, train, []), f"{algorithm}-{len(names)}")
    return outofcore.fit_linear(d, algorithm, {}, run, seed=SEED)


@pytest.mark.parametrize("algorithm", ["erm", "irm", "ridge"])
def test_rank_deficient_rows_chunked_are_the_in_memory_fit(algorithm: str, tmp_path: Path) -> None:
    """A covariate constant on the training rows and one that copies another: the chunked ERM, IRM
    and ridge take the minimum-norm fit as in memory (before, the chunked IRM's start failed)."""
    from tests.sal_core.test_rank_deficient import rank_deficient_environments

    train = rank_deficient_environments(5)
    names = [f"x{j}" for j in range(train[0].X.shape[1])]
    fit = _chunked_training_rows(tmp_path, names, train, algorithm, row_group_size=150)
    memory = get_algorithm(algorithm)().fit(train, feature_names=names)
    assert memory.coefficients_original is not None
    assert np.all(np.isfinite(fit.coef))
    assert _rel(fit.coef, memory.coefficients_original) < 1e-8


def _stats_parts(data: Any, run: str, n: int) -> list[fanout.Part]:
    names, train, test = data
    return fanout.plan_parts(
        n, 1, run, fanout.Pass("stats", {}), storage="local", key=KEY,
        environments=tuple(e.name for e in [*train, *test]), feature_names=tuple(names), target="y",
    )  # fmt: skip


def test_parts_started_elsewhere_and_stalled_are_redone_here(data: Any, store: LocalStore) -> None:
    """Parts whose markers are old and whose results never came (their task lost for good) are
    computed by the parent once they have stalled for ``stall_s``, with the sums a calm pass gives."""
    parts = _stats_parts(data, "stalled", 2)
    for part in parts:
        store.put(part.started_key, json.dumps({"pid": 1, "at": 0.0}).encode())
    started = time.monotonic()
    results = list(fanout.run_pass(store, parts, lambda p: None, stall_s=0.5, help_=False))
    assert time.monotonic() - started >= 0.5  # waited for the stall, not taken at once
    calm = list(fanout.run_pass(store, _stats_parts(data, "calm", 2), None, stall_s=60))
    for a, b in zip(results, calm, strict=True):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])


def test_the_parent_helps_only_with_parts_nobody_started(data: Any, store: LocalStore) -> None:
    """Two of four parts are started by another worker, which finishes them a little later: the
    parent computes the other two and waits for those two."""
    parts = _stats_parts(data, "shared", 4)
    for part in parts[:2]:
        store.put(part.started_key, json.dumps({"pid": 1, "worker": "other", "at": time.time()}).encode())

    def other_worker() -> None:
        time.sleep(0.5)
        for part in parts[:2]:
            store.put(part.result_key, fanout._encode(fanout.compute_part(store, part)))

    thread = threading.Thread(target=other_worker)
    thread.start()
    results = list(fanout.run_pass(store, parts, lambda p: None, stall_s=60))
    thread.join()
    markers = [json.loads(store.get(p.started_key)) for p in parts]
    assert [m.get("worker") for m in markers] == ["other", "other", None, None]  # 2, 3 computed here
    assert all(m["pid"] == os.getpid() for m in markers[2:])
    assert len(results) == 4


def test_where_no_slopes_test_runs_the_chunked_fit_refolds_as_in_memory(tmp_path: Path) -> None:
    """Two environments of 55 rows on 60 covariates: no slopes test can run, so SAL cross-fits on
    ``folds_untested`` (10) folds. The chunked fit learns that from its sums pass and sums the rows
    again on 10 folds (the ``refold`` pass); the choice, the scores and the coefficients are the
    in-memory fit's (hashing leaves no environment here without rows in a fold, so the in-memory
    folds are not dealt)."""
    rng = np.random.default_rng(3)
    p = 60
    beta = rng.standard_normal(p) / np.sqrt(p)
    train = []
    for e in range(2):
        X = rng.standard_normal((55, p)) * 2.0 + 1.0
        y = X @ (beta + 0.3 * e * rng.standard_normal(p) / np.sqrt(p)) + 0.5 * rng.standard_normal(55)
        train.append(Environment(f"e{e}", X, y))
    names = [f"x{j}" for j in range(p)]
    chunked = _chunked_training_rows(tmp_path, names, train, "sal", row_group_size=40)
    memory = get_algorithm("sal")(seed=SEED).fit(train, feature_names=names)
    assert memory.selection is not None and chunked.selection is not None
    want, got = memory.selection.to_dict(), chunked.selection.to_dict()
    assert want["homogeneity"] is None
    assert str(want["scoring"]).startswith("10-fold cross-fitting")
    assert got["scoring"] == want["scoring"]
    assert (got["chosen"]["relative"], got["chosen"]["variant"]) == (
        want["chosen"]["relative"],
        want["chosen"]["variant"],
    )
    assert got["reason"] == want["reason"]
    for a, b in zip(got["candidates"], want["candidates"], strict=True):
        assert (a["relative"], a["variant"]) == (b["relative"], b["variant"])
        # ~1e-7, not 1e-9 as above: a fold fit here has fewer rows than covariates, and its w-path
        # solves systems ill-conditioned enough that the sums' last digits move its θ further
        # (other folds would move the scores by percents)
        assert a["score"] == pytest.approx(b["score"], rel=1e-5)
    assert memory.coefficients_original is not None
    assert _rel(chunked.coef, memory.coefficients_original) < 1e-5
    assert set(chunked.passes) == {"stats", "sums", "refold", "oof", "metrics"}


class _PutCountingStore(LocalStore):
    """A local store that records the keys it is given."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.puts: list[str] = []

    def put(self, key: str, data: bytes) -> Any:
        self.puts.append(key)
        return super().put(key, data)


def test_a_pass_run_again_with_other_inputs_computes_its_own_parts(
    data: Any, store: LocalStore, tmp_path: Path
) -> None:
    """A pass's objects are keyed by its name and a digest of its parameters: the same pass resumed
    in a run finds its parts done and computes nothing, while a pass of the same name with other
    parameters (before, a second ``sums`` pass on other folds would have read the first one's parts
    as its own) computes every part again, under a directory of its own."""
    names, train, test = data
    counting = _PutCountingStore(tmp_path / "objects")
    counting.put(KEY, store.get(KEY))
    envs = tuple(e.name for e in [*train, *test])

    def parts_of(params: dict[str, Any]) -> list[fanout.Part]:
        return fanout.plan_parts(
            3, 1, "again", fanout.Pass("stats", params), storage="local", key=KEY, environments=envs,
            feature_names=tuple(names), target="y",
        )  # fmt: skip

    first = parts_of({})
    list(fanout.run_pass(counting, first, None, stall_s=60))
    assert sorted(k for k in counting.puts if k.endswith(".npz")) == sorted(p.result_key for p in first)
    counting.puts.clear()
    list(fanout.run_pass(counting, parts_of({}), None, stall_s=60))  # resumed: every part is done
    assert counting.puts == []
    other = parts_of({"folds": 10})
    assert other[0].directory != first[0].directory
    list(fanout.run_pass(counting, other, None, stall_s=60))
    assert sorted(k for k in counting.puts if k.endswith(".npz")) == sorted(p.result_key for p in other)
    # a part read back from its task message keeps its directory
    assert fanout.Part.from_json(json.loads(json.dumps(other[1].to_json()))).result_key == other[1].result_key
