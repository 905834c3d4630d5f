"""The canonical table: exact parsing, content addressing and the integrity check on read."""

from __future__ import annotations

import numpy as np
import pytest

from app.datasets import tables
from sal_core import InvalidDataError
from tests.app import factories as f


def _from_csv(df, **kw):  # type: ignore[no-untyped-def]
    return tables.from_file(
        f.csv_bytes(df), filename="d.csv", target="y", environment="env", features=None, **kw
    )


def test_csv_parquet_and_arrays_hash_alike() -> None:
    df = f.frame(seed=1)
    from_csv = _from_csv(df)
    from_parquet = tables.from_file(
        f.parquet_bytes(df), filename="d.parquet", target="y", environment="env", features=None
    )
    arrays = [
        (e, g[["x1", "x2", "x3"]].to_numpy().tolist(), g["y"].tolist())
        for e, g in df.groupby("env", sort=False)
    ]
    from_json = tables.from_arrays(["x1", "x2", "x3"], "y", arrays)
    assert from_csv.sha256() == from_parquet.sha256() == from_json.sha256()
    assert np.array_equal(from_csv.environment("b").X, df[df.env == "b"][["x1", "x2", "x3"]].to_numpy())


def test_hash_changes_with_content_and_names() -> None:
    df = f.frame(seed=1)
    base = _from_csv(df).sha256()
    changed = df.copy()
    changed.loc[0, "x1"] += 1e-12
    assert _from_csv(changed).sha256() != base
    assert _from_csv(df.rename(columns={"x3": "z"})).sha256() != base


def test_parquet_round_trip_is_checked_against_the_hash() -> None:
    table = _from_csv(f.frame(seed=2))
    data = table.to_parquet()
    back = tables.Table.from_parquet(data, expected_sha256=table.sha256())
    assert back.feature_names == table.feature_names and back.target == table.target
    for a, b in zip(back.environments, table.environments, strict=True):
        assert a.name == b.name and np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    with pytest.raises(RuntimeError, match="corrupt"):
        tables.Table.from_parquet(data, expected_sha256="0" * 64)


def test_errors_name_the_field() -> None:
    with pytest.raises(InvalidDataError) as err:
        tables.from_file(
            b"env,x,y\na,1,2\n", filename="d.csv", target="nope", environment="env", features=None
        )
    assert err.value.field == "target"


def test_a_label_is_stored_with_its_values_and_read_back_under_the_same_content_id() -> None:
    """A label's two values travel with the stored table (Parquet metadata), so the integrity check
    on read hashes them as the upload did; text that Python's float would read ("1_000") stays a
    text label, and two whole numbers are one."""
    df = f.frame(seed=7, binary=True)
    for coded, levels in ((df.assign(y=np.where(df["y"] > 0, "2_000", "1_000")), ("1_000", "2_000")),
                          (df.assign(y=df["y"] * 2.0 - 1.0), ("-1", "1"))):  # fmt: skip
        table = _from_csv(coded)
        assert table.target_levels == levels
        np.testing.assert_array_equal(np.concatenate([e.y for e in table.environments]), df["y"].to_numpy())
        stored = tables.Table.from_parquet(table.to_parquet(), expected_sha256=table.sha256())
        assert stored.target_levels == levels and stored.sha256() == table.sha256()
    assert _from_csv(df).target_levels == () and _from_csv(df).sha256() != table.sha256()
