"""A stored dataset read row group by row group (app.datasets.chunks): the per-(environment, fold)
sums of the chunks add up to the whole table's, however the chunks are shared among workers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from app.datasets import chunks, tables
from app.settings import Settings
from app.storage import ObjectStore, open_store
from app.storage.local import LocalStore
from sal_core import cross_fit
from sal_core.minibatches import ChunkRows
from tests.app import factories as f
from tests.app.s3server import S3Server

SEED, K = 7, 5


def _table(seed: int, n_per_env: int) -> tables.Table:
    """The factories' three-environment frame, parsed as an upload is."""
    data = f.csv_bytes(f.frame(seed=seed, n_per_env=n_per_env))
    return tables.from_file(data, filename="d.csv", target="y", environment="env", features=None)


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStore:
    if request.param == "local":
        return LocalStore(tmp_path / "objects")
    server: S3Server = request.getfixturevalue("s3_server")
    return open_store(Settings(data_dir=tmp_path, **server.settings(prefix=f"chunks-{tmp_path.name}/")), "s3")


def test_chunk_sums_add_up_to_the_whole_tables(store: ObjectStore) -> None:
    table = _table(seed=2400, n_per_env=3000)
    store.put("t.parquet", table.to_parquet(row_group_rows=1024))
    envs = [e.name for e in table.environments]
    X = np.concatenate([e.X for e in table.environments])
    y = np.concatenate([e.y for e in table.environments])
    env_index = np.repeat(np.arange(len(envs)), [e.n_rows for e in table.environments])
    mean, scale = X.mean(0), X.std(0)

    def transform(A: np.ndarray) -> np.ndarray:
        return (A - mean) / scale

    def folds(Z: np.ndarray, t: np.ndarray) -> np.ndarray:
        return cross_fit.folds_of(cross_fit.row_keys(Z, t), SEED, K)

    Z = transform(X)
    whole = cross_fit.fold_sums(
        torch.from_numpy(Z),
        torch.from_numpy(y),
        torch.from_numpy(env_index),
        torch.from_numpy(folds(Z, y)),
        3,
        K,
    )

    def summed(only: list[int] | None) -> list[cross_fit.FoldSums]:
        read = chunks.iter_chunks(
            store, "t.parquet", environments=envs, feature_names=table.feature_names, target="y", only=only
        )
        out = []
        for chunk in read:
            assert len(chunk.y) <= 1024  # one row group at a time
            out.append(chunks.chunk_fold_sums(chunk, transform=transform, folds_of_rows=folds, n_envs=3, k=K))
        return out

    assert chunks.n_chunks(store, "t.parquet") == 9
    all_at_once = chunks.add_sums(summed(None))
    # Two workers, each with every other chunk, and the reduce.
    shared = chunks.add_sums(summed([0, 2, 4, 6, 8]) + summed([1, 3, 5, 7]))
    for total in (all_at_once, shared):
        np.testing.assert_array_equal(total.n, whole.n)  # every row in the same (env, fold) cell
        for name in ("z", "y", "zz", "zy", "yy"):
            np.testing.assert_allclose(getattr(total, name), getattr(whole, name), rtol=1e-12, atol=1e-9)
        held_out = np.arange(K) != 0
        mine, theirs = total.part(held_out)[0], whole.part(held_out)[0]
        np.testing.assert_allclose(mine.gram, theirs.gram, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(mine.cross, theirs.cross, rtol=1e-10, atol=1e-12)


def test_no_chunks_is_an_error() -> None:
    with pytest.raises(ValueError, match="no chunk"):
        chunks.add_sums([])


class _CountingStore(LocalStore):
    """A local store that counts the bytes its range reads return."""

    bytes_read = 0

    def get_range(self, key: str, start: int, length: int) -> bytes:
        data = super().get_range(key, start, length)
        self.bytes_read += len(data)
        return data


def test_a_tables_footer_is_fetched_once_per_process(tmp_path: Path) -> None:
    """Every chunk task opens the table for its few row groups; the footer, which grows with the
    row groups, is fetched and parsed once, and each later open reads only its group's bytes."""
    table = _table(seed=2401, n_per_env=400)
    data = table.to_parquet(row_group_rows=64)
    store = _CountingStore(tmp_path / "objects")
    store.put("t.parquet", data)
    envs = [e.name for e in table.environments]

    def read_group(key: str, group: int) -> tuple[ChunkRows, int]:
        before = store.bytes_read
        [chunk] = chunks.iter_chunks(
            store, key, environments=envs, feature_names=table.feature_names, target="y", only=[group]
        )
        return chunk, store.bytes_read - before

    first, first_bytes = read_group("t.parquet", 3)
    again, again_bytes = read_group("t.parquet", 3)
    footer = chunks.open_table(store, "t.parquet").metadata.serialized_size
    assert footer > 1000
    assert first_bytes >= again_bytes + footer  # the first open fetched the footer, the second did not
    np.testing.assert_array_equal(again.X, first.X)
    np.testing.assert_array_equal(again.env, first.env)
    # Another object (another key) is its own footer: its rows, not the first table's.
    other = _table(seed=2402, n_per_env=400)
    store.put("u.parquet", other.to_parquet(row_group_rows=64))
    theirs, _ = read_group("u.parquet", 3)
    assert not np.array_equal(theirs.X, first.X)
    assert chunks.n_chunks(store, "u.parquet") == -(-other.n_rows // 64)
