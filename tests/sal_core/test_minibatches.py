"""sal_core.minibatches: a seeded shuffle buffer over chunks read one at a time (issue 19's MLP
streaming), and the fixed evaluation sample."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sal_core import minibatches as mb


def _table(n_chunks: int = 7, rows: int = 50, p: int = 3) -> list[mb.ChunkRows]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(n_chunks):
        X = rng.normal(size=(rows, p))
        X[:, 0] = i * rows + np.arange(rows)  # the row's number, to follow it
        out.append(mb.ChunkRows(np.full(rows, i % 2, dtype=np.int64), X, rng.normal(size=rows)))
    return out


class _Reads:
    def __init__(self, table: list[mb.ChunkRows]) -> None:
        self.table = table
        self.log: list[int] = []

    def __call__(self, i: int) -> mb.ChunkRows:
        self.log.append(i)
        return self.table[i]


def _source(read: mb.ChunkReader, n: int, *, chunks_at_once: int = 2, seed: int = 5) -> mb.ShuffledChunks:
    return mb.ShuffledChunks(
        read, n, mean=np.zeros(3), scale=np.ones(3), batch_rows=40, chunks_at_once=chunks_at_once, seed=seed
    )


def _take(source: mb.ShuffledChunks, k: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    stream = iter(source)
    return [next(stream) for _ in range(k)]


def test_an_epoch_visits_every_row_once_holding_at_most_k_chunks() -> None:
    table = _table(n_chunks=8, rows=50)  # 400 rows, batches of 40: no leftover at the epoch's end
    reads = _Reads(table)
    source = _source(reads, len(table))
    batches = _take(source, 10)  # one epoch
    rows = np.concatenate([z[:, 0].numpy() for z, _ in batches])
    assert sorted(rows.tolist()) == list(range(400))
    assert sorted(reads.log) == list(range(8))  # each chunk read once in the epoch
    assert reads.log != list(range(8))  # in a drawn order
    assert source.peak_rows <= 2 * 50 + 40 - 1  # K chunks and a leftover, never the table
    assert all(z.shape == (40, 3) and y.shape == (40,) for z, y in batches)


def test_the_stream_is_deterministic_for_its_seed_and_differs_across_seeds() -> None:
    table = _table()
    a = _take(_source(_Reads(table), len(table)), 25)
    b = _take(_source(_Reads(table), len(table)), 25)
    c = _take(_source(_Reads(table), len(table), seed=6), 25)
    assert all(torch.equal(x[0], y[0]) and torch.equal(x[1], y[1]) for x, y in zip(a, b, strict=True))
    assert not all(torch.equal(x[0], y[0]) for x, y in zip(a, c, strict=True))


def test_rows_are_standardised_and_a_small_table_is_one_full_batch() -> None:
    table = _table(n_chunks=2, rows=10)
    mean, scale = np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 8.0])
    source = mb.ShuffledChunks(
        _Reads(table), 2, mean=mean, scale=scale, batch_rows=64, chunks_at_once=1, seed=0
    )
    z, y = next(iter(source))
    assert z.shape == (20, 3)  # fewer rows than a minibatch: all of them
    X = np.concatenate([t.X for t in table])
    assert np.allclose(np.sort(z[:, 1].numpy()), np.sort((X[:, 1] - 2.0) / 4.0))
    assert np.allclose(np.sort(y.numpy()), np.sort(np.concatenate([t.y for t in table])))


def test_a_table_under_one_minibatch_is_read_once_and_then_held() -> None:
    table = _table(n_chunks=3, rows=10)
    reads = _Reads(table)
    source = _source(reads, 3, chunks_at_once=1)  # 30 rows, minibatches of 40
    batches = _take(source, 5)
    assert sorted(reads.log) == [0, 1, 2]  # one epoch's reads, not one per step
    assert all(torch.equal(z, batches[0][0]) for z, _ in batches) and batches[0][0].shape == (30, 3)


def test_the_sample_is_bounded_fixed_and_spread_over_the_chunks() -> None:
    table = _table(n_chunks=10, rows=100)
    whole = mb.sample_rows(_Reads(table), 10, 1000, 5000, seed=1)
    assert whole.y.shape == (1000,)  # a table under the bound is sampled whole
    a = mb.sample_rows(_Reads(table), 10, 1000, 300, seed=1)
    b = mb.sample_rows(_Reads(table), 10, 1000, 300, seed=1)
    assert 0 < a.y.shape[0] <= 300
    assert np.array_equal(a.X, b.X) and np.array_equal(a.env, b.env)
    assert len(set((a.X[:, 0] // 100).astype(int).tolist())) >= 8  # not the first chunks only


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        _source(_Reads(_table()), 7, chunks_at_once=0)
