"""POST/GET/DELETE /datasets on PostgreSQL, including the bad-input matrix."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import numpy as np
import pytest

from tests.app import factories as f

pytestmark = pytest.mark.services


def test_csv_upload_is_content_addressed(client: httpx.Client) -> None:
    df = f.frame(seed=101)
    first = client.post(
        "/datasets",
        files={"file": ("d.csv", f.csv_bytes(df), "text/csv")},
        data={"target": "y", "environment": "env", "name": "first"},
    )
    assert first.status_code == 201, first.text
    body = first.json()
    assert first.headers["location"] == f"/datasets/{body['id']}"
    assert set(body) == {
        "id",
        "name",
        "sha256",
        "n_rows",
        "feature_names",
        "target",
        "environments",
        "created_at",
        "text_features",
        "missing_features",
        "target_labels",
        "warnings",
    }
    assert body["text_features"] == {} and body["target_labels"] is None  # numbers alone: nothing encoded
    assert body["name"] == "first"
    assert body["feature_names"] == ["x1", "x2", "x3"]
    assert body["target"] == "y"
    assert body["n_rows"] == 90
    assert body["environments"] == [{"name": e, "n_rows": 30} for e in ("a", "b", "c")]

    again = f.upload_csv(client, df, name="second")
    assert again.status_code == 200
    assert again.json()["id"] == body["id"] and again.json()["name"] == "first"
    # The name not used is said, not dropped silently.
    assert again.json()["warnings"] == [
        "this content is already stored as 'first'; the name 'second' was not used"
    ]

    # The same table as Parquet, or as JSON, is the same content.
    parquet = client.post(
        "/datasets",
        files={"file": ("d.parquet", f.parquet_bytes(df), "application/octet-stream")},
        data={"target": "y", "environment": "env"},
    )
    assert parquet.status_code == 200 and parquet.json()["sha256"] == body["sha256"]
    as_json = {
        "name": "json",
        "feature_names": ["x1", "x2", "x3"],
        "target": "y",
        "environments": [
            {"name": e, "X": g[["x1", "x2", "x3"]].to_numpy().tolist(), "y": g["y"].tolist()}
            for e, g in df.groupby("env", sort=False)
        ],
    }
    by_json = client.post("/datasets", json=as_json)
    assert by_json.status_code == 200 and by_json.json()["id"] == body["id"]

    assert client.get(f"/datasets/{body['id']}").json() == body


def test_features_subset_and_default_numeric_columns(client: httpx.Client) -> None:
    df = f.frame(seed=102)
    df["note"] = "text"
    default = f.upload_csv(client, df)
    assert default.status_code == 201 and default.json()["feature_names"] == ["x1", "x2", "x3"]
    # The text column left out is named in the answer.
    assert [w for w in default.json()["warnings"] if "'note'" in w and "not a feature" in w] != []
    subset = f.upload_csv(client, df, features="x3, x1")
    assert subset.status_code == 201 and subset.json()["feature_names"] == ["x3", "x1"]
    assert subset.json()["warnings"] == []  # a features list chose what to leave out


def test_text_and_true_false_columns_become_features(client: httpx.Client) -> None:
    df = f.frame(seed=105)
    rng = np.random.default_rng(105)
    df["region"] = rng.choice(["south", "north", "east"], size=len(df))
    df["smoker"] = rng.random(len(df)) < 0.5
    df["id"] = [f"row-{i}" for i in range(len(df))]
    response = f.upload_csv(client, df)
    assert response.status_code == 201, response.text
    body = response.json()
    # "east" sorts first: the reference value, carried by the intercept.
    assert body["feature_names"] == ["x1", "x2", "x3", "region=north", "region=south", "smoker"]
    said = "has 90 distinct values, more than the 32 encoded unless it is listed in features (up to 256)"
    assert [w for w in body["warnings"] if "'id'" in w and said in w] != []
    listed = f.upload_csv(client, df, features="region, x1")
    assert listed.json()["feature_names"] == ["region=north", "region=south", "x1"]
    labelled = df.assign(y=np.where(df["y"] > df["y"].median(), "high", "low"))
    binary = f.upload_csv(client, labelled)
    assert binary.status_code == 201, binary.text
    assert "the target 'y' is text: 'high' is read as 0 and 'low' as 1" in binary.json()["warnings"]
    # Listed, a column of 90 values is a category the uploader asked for: 89 indicators.
    wide = f.upload_csv(client, df, features="x1, id")
    assert wide.status_code == 201 and len(wide.json()["feature_names"]) == 1 + 89
    refused = f.upload_csv(client, df.assign(one="same"), features="x1, one")
    body = f.assert_problem(refused, 422, "file.one")
    assert "holds one value" in body["detail"]


def test_a_target_of_two_whole_numbers_is_a_label_and_a_job_classifies_it(client: httpx.Client) -> None:
    """A target coded 1/2 (as many R tables code a yes/no) is read as 0 and 1, as a text label is,
    so a job with no task classifies; 0/1 stays as it is, and a third value makes it numbers."""
    df = f.frame(seed=106, binary=True)
    coded = df.assign(y=df["y"] + 1.0)  # 1.0 and 2.0
    response = f.upload_csv(client, coded)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["target_labels"] == ["1", "2"]
    said = "the target 'y' holds two whole numbers, a label: 1 is read as 0 and 2 as 1, so a job classifies"
    assert [w for w in body["warnings"] if w.startswith(said)] != []
    # 0 and 1: the same rows read as they are, yet another dataset (the content id hashes a label's
    # values), so it answers with no labels rather than as the 1/2 upload stored before it
    plain = f.upload_csv(client, df).json()
    assert plain["target_labels"] is None and plain["sha256"] != body["sha256"] and plain["id"] != body["id"]
    job = client.post("/jobs", json=f.job_body(body["id"]))
    assert job.status_code in (200, 201, 202), job.text
    assert job.json()["task"] == "classification"
    three = coded.assign(y=coded["y"].where(coded.index != 5, 3.0))
    numbers = f.upload_csv(client, three).json()
    assert numbers["target_labels"] is None and not any("two whole numbers" in w for w in numbers["warnings"])


def test_a_bad_cell_is_reported_with_its_row(client: httpx.Client) -> None:
    text = "env,x1,y\na,1.0,2.0\na,2.0,3.0\nb,1.5,oops\nb,2.5,4.0\n"
    body = f.assert_problem(_csv(text)(client), 422, "target")
    assert "row 3 of the data holds 'oops'" in body["detail"], body
    infinite = "env,x1,y\na,1.0,2.0\na,inf,3.0\nb,1.5,2.5\n"
    body = f.assert_problem(_csv(infinite)(client), 422, "file.x1")
    assert "first at row 2 of the data" in body["detail"], body


def test_a_column_of_numbers_and_words_is_text_and_says_so(client: httpx.Client) -> None:
    # Cylinders 4, 6, 8 and "rotary" (MASS's Cars93): a category written with digits, one-hot
    # encoded; "?" among numbers is a missing value (UCI's), filled and marked.
    rows = [
        f"{'ab'[i % 2]},{i},{['4', '6', '8', 'rotary'][i % 4]},{'?' if i % 7 == 0 else i % 5},{i % 3}"
        for i in range(40)
    ]
    response = _csv("env,x1,cylinders,score,y\n" + "\n".join(rows) + "\n")(client)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["feature_names"] == [
        "x1", "cylinders=6", "cylinders=8", "cylinders=rotary", "score", "score is missing"
    ]  # fmt: skip
    assert (
        "column 'cylinders' mixes numbers and words: row 4 of the data holds 'rotary', so it is encoded "
        "as text (a feature for each value but the first); to use it as numbers, leave such cells empty"
    ) in body["warnings"]


def test_missing_cells_are_filled_and_marked_and_rows_without_a_target_left_out(client: httpx.Client) -> None:
    # A truncated last row: its target is missing, so the row is left out (and said to be); so is a
    # row with no environment.
    text = "env,x1,size,region,y\na,1.0,3,north,2.0\na,2.0,,,3.0\nb,1.5,5,south,NaN\nb,2.5,4,north,4.0\n,1,1,east,1\nb,2"
    response = _csv(text)(client)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["n_rows"] == 3
    # "south" is only in a row left out: not a value of the dataset's region
    assert body["feature_names"] == ["x1", "size", "size is missing", "region is missing"]
    assert body["missing_features"] == {"size": 3.5, "region": None}  # the mean of the kept rows' 3 and 4
    assert body["text_features"] == {"region": ["north"]}
    assert body["warnings"] == [
        "column 'size' is missing in 1 row(s): they hold its mean (3.5) and the feature 'size is missing' marks "
        "them (to fit on complete rows only, upload the table without those rows)",
        "column 'region' has missing cells: the feature 'region is missing' marks them",
        "the target 'y' is missing in 2 row(s); they are left out",
        "the environment is missing in 1 more row(s); they are left out",
    ]
    assert client.get(f"/datasets/{body['id']}").json()["missing_features"] == body["missing_features"]


def test_formula_cells_are_refused_only_where_the_dataset_would_store_them(client: httpx.Client) -> None:
    # A free-text column (left out: too many values) may start a review with "-"; a placeholder "-"
    # is a value like any other; an encoded column's formula is refused by name.
    rows = [f"e{i % 2},{i},-review number {i},{'-' if i % 3 else 'yes'},{i % 5}" for i in range(40)]
    response = _csv("env,x1,review,flag,y\n" + "\n".join(rows) + "\n")(client)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["text_features"] == {"flag": ["-", "yes"]} and "review" not in body["feature_names"]
    formula = _csv("env,x1,kind,y\na,1,=cmd(),2\na,2,ok,3\nb,3,ok,4\n")(client)
    detail = f.assert_problem(formula, 422, "file.kind")["detail"]
    assert "looks like a spreadsheet formula ('=cmd()')" in detail


def test_list_paginates_newest_first(client: httpx.Client) -> None:
    ids = [f.upload_csv(client, f.frame(seed=200 + i)).json()["id"] for i in range(3)]
    page1 = client.get("/datasets", params={"limit": 2}).json()
    assert [d["id"] for d in page1["items"]] == ids[::-1][:2]
    page2 = client.get("/datasets", params={"limit": 2, "cursor": page1["next_cursor"]}).json()
    assert page2["items"][0]["id"] == ids[0]


def test_delete_refused_while_a_job_uses_it(stub_client: httpx.Client) -> None:
    dataset = f.upload_csv(stub_client, f.frame(seed=103)).json()
    job = stub_client.post("/jobs", json=f.job_body(dataset["id"]))
    assert job.status_code == 202
    f.assert_problem(stub_client.delete(f"/datasets/{dataset['id']}"), 409)
    other = f.upload_csv(stub_client, f.frame(seed=104)).json()
    assert stub_client.delete(f"/datasets/{other['id']}").status_code == 204
    f.assert_problem(stub_client.get(f"/datasets/{other['id']}"), 404)
    f.assert_problem(stub_client.delete(f"/datasets/{other['id']}"), 404)


def _csv(text: str) -> Callable[[httpx.Client], httpx.Response]:
    return lambda c: c.post(
        "/datasets",
        files={"file": ("d.csv", text.encode(), "text/csv")},
        data={"target": "y", "environment": "env"},
    )


GOOD = "env,x1,y\na,1.0,2.0\na,2.0,3.0\nb,1.5,2.5\n"

BAD_UPLOADS: dict[str, tuple[Callable[[httpx.Client], httpx.Response], int, str]] = {
    "missing target column": (_csv("env,x1,z\na,1,2\n"), 422, "target"),
    "missing environment column": (_csv("site,x1,y\na,1,2\n"), 422, "environment"),
    "non-numeric target": (_csv("env,x1,y\na,1,2\na,2,oops\na,3,3\n"), 422, "target"),
    "formula cell": (_csv("env,x1,x2,y\na,1,=SUM(A1:A2),2\na,2,3,3\n"), 422, "file.x2"),
    "formula cell =, text column": (
        _csv('env,x1,note,y\na,1,=HYPERLINK("x"),2\na,2,ok,3\n'),
        422,
        "file.note",
    ),
    "formula cell +": (_csv("env,x1,note,y\na,1,+cmd,2\na,2,ok,3\n"), 422, "file.note"),
    "formula cell -": (_csv("env,x1,note,y\na,1,-2+3+cmd|' /C calc'!A0,2\na,2,ok,3\n"), 422, "file.note"),
    "formula cell @": (_csv("env,x1,note,y\na,1,@SUM(1),2\na,2,ok,3\n"), 422, "file.note"),
    "formula environment name": (_csv("env,x1,y\n=cmd,1,2\na,2,3\n"), 422, "environment"),
    "formula column name": (_csv("env,x1,@x,y\na,1,2,3\n"), 422, "file"),
    "inf feature": (_csv("env,x1,y\na,-inf,2\na,2,3\n"), 422, "file.x1"),
    "target with no value": (_csv("env,x1,y\na,1,NaN\na,2,\n"), 422, "target"),
    "truncated CSV quote": (_csv('env,x1,y\na,1,2\n"a,2,3\n'), 422, "file"),
    "json: formula environment name": (
        lambda c: c.post(
            "/datasets", json={"feature_names": ["a"], "environments": [{"name": "@x", "X": [[1]], "y": [1]}]}
        ),
        422,
        "environments[0].name",
    ),
    "json: infinity": (
        lambda c: c.post(
            "/datasets",
            content=b'{"feature_names": ["a"], "environments": [{"name": "e", "X": [[1], [2]], "y": [Infinity, 2]}]}',
            headers={"content-type": "application/json"},
        ),
        422,
        "environments[0].y",
    ),
    "empty Idempotency-Key": (
        lambda c: c.post(
            "/datasets",
            files={"file": ("d.csv", GOOD.encode(), "text/csv")},
            data={"target": "y", "environment": "env"},
            headers={"Idempotency-Key": ""},
        ),
        422,
        "Idempotency-Key",
    ),
    "only feature has no value": (_csv("env,x1,y\na,,2\na,,3\n"), 422, "features"),
    "inf target": (_csv("env,x1,y\na,1,inf\na,2,3\n"), 422, "target"),
    "text target of three values": (_csv("env,x1,y\na,1,yes\na,2,no\na,3,maybe\n"), 422, "target"),
    "duplicate columns": (_csv("env,x1,x1,y\na,1,1,2\n"), 422, "file"),
    "empty file": (_csv(""), 422, "file"),
    "header only": (_csv("env,x1,y\n"), 422, "file"),
    "environment with no value": (_csv("env,x1,y\n,1,2\n,2,3\n"), 422, "environment"),
    "not UTF-8": (
        lambda c: c.post(
            "/datasets",
            files={"file": ("d.csv", "env,x1,y\nä,1,2\n".encode("latin-1"), "text/csv")},
            data={"target": "y", "environment": "env"},
        ),
        422,
        "file",
    ),
    "parquet that is a CSV": (
        lambda c: c.post(
            "/datasets",
            files={"file": ("d.parquet", GOOD.encode(), "application/octet-stream")},
            data={"target": "y", "environment": "env"},
        ),
        422,
        "file",
    ),
    "truncated parquet": (
        lambda c: c.post(
            "/datasets",
            files={"file": ("d.parquet", f.parquet_bytes(f.frame())[:200], "application/octet-stream")},
            data={"target": "y", "environment": "env"},
        ),
        422,
        "file",
    ),
    "unknown feature": (
        lambda c: c.post(
            "/datasets",
            files={"file": ("d.csv", GOOD.encode(), "text/csv")},
            data={"target": "y", "environment": "env", "features": "x1,x9"},
        ),
        422,
        "features",
    ),
    "target as feature": (
        lambda c: c.post(
            "/datasets",
            files={"file": ("d.csv", GOOD.encode(), "text/csv")},
            data={"target": "y", "environment": "env", "features": "x1,y"},
        ),
        422,
        "features",
    ),
    "no file part": (
        lambda c: c.post(
            "/datasets", data={"target": "y", "environment": "env"}, files={"other": ("x", b"1")}
        ),
        422,
        "file",
    ),
    "no target field": (
        lambda c: c.post(
            "/datasets", files={"file": ("d.csv", GOOD.encode(), "text/csv")}, data={"environment": "env"}
        ),
        422,
        "target",
    ),
    "wrong content type": (
        lambda c: c.post("/datasets", content=b"a,b", headers={"content-type": "text/csv"}),
        422,
        "body",
    ),
    "json: row length": (
        lambda c: c.post(
            "/datasets",
            json={
                "feature_names": ["a", "b"],
                "environments": [{"name": "e", "X": [[1, 2], [3]], "y": [1, 2]}],
            },
        ),
        422,
        "environments[0].X",
    ),
    "json: y length": (
        lambda c: c.post(
            "/datasets",
            json={"feature_names": ["a"], "environments": [{"name": "e", "X": [[1], [2]], "y": [1]}]},
        ),
        422,
        "environments[0].y",
    ),
    "json: NaN": (
        lambda c: c.post(
            "/datasets",
            content=b'{"feature_names": ["a"], "environments": [{"name": "e", "X": [[NaN], [2]], "y": [1, 2]}]}',
            headers={"content-type": "application/json"},
        ),
        422,
        "environments[0].X",
    ),
    "json: duplicate environment": (
        lambda c: c.post(
            "/datasets",
            json={
                "feature_names": ["a"],
                "environments": [{"name": "e", "X": [[1]], "y": [1]}, {"name": "e", "X": [[2]], "y": [2]}],
            },
        ),
        422,
        "environments[1].name",
    ),
    "json: unknown key": (
        lambda c: c.post(
            "/datasets",
            json={"feature_names": ["a"], "environments": [{"name": "e", "X": [[1]], "y": [1]}], "colour": 1},
        ),
        422,
        "colour",
    ),
    "json: not a number": (
        lambda c: c.post(
            "/datasets",
            json={"feature_names": ["a"], "environments": [{"name": "e", "X": [["x"]], "y": [1]}]},
        ),
        422,
        "environments[0].X[0][0]",
    ),
    "json: malformed": (
        lambda c: c.post(
            "/datasets", content=b'{"feature_names": [', headers={"content-type": "application/json"}
        ),
        422,
        None,
    ),
    "json: feature named like target": (
        lambda c: c.post(
            "/datasets", json={"feature_names": ["y"], "environments": [{"name": "e", "X": [[1]], "y": [1]}]}
        ),
        422,
        "feature_names",
    ),
}


@pytest.mark.parametrize("case", list(BAD_UPLOADS), ids=list(BAD_UPLOADS))
def test_bad_upload_is_a_problem_and_stores_nothing(case: str, client: httpx.Client, row_counts) -> None:  # type: ignore[no-untyped-def]
    send, status, field = BAD_UPLOADS[case]
    before = row_counts()
    f.assert_problem(send(client), status, field)
    assert row_counts() == before


def test_upload_size_and_shape_limits(pg_settings, pg_app, row_counts) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from app.main import create_app

    before = row_counts()
    small = create_app(pg_settings.model_copy(update={"max_upload_bytes": 100}))
    with TestClient(small) as c:
        f.assert_problem(f.upload_csv(c, f.frame()), 413)
        big_json = {
            "feature_names": ["a"],
            "environments": [{"name": "e", "X": [[1.0]] * 50, "y": [1.0] * 50}],
        }
        f.assert_problem(c.post("/datasets", json=big_json), 413)
    small.state.engine.dispose()
    shaped = create_app(pg_settings.model_copy(update={"max_rows": 50, "max_features": 2}))
    with TestClient(shaped) as c:
        f.assert_problem(f.upload_csv(c, f.frame(n_per_env=20)), 422, "file")  # 60 rows
        f.assert_problem(f.upload_csv(c, f.frame(n_per_env=5)), 422, "features")  # 3 features
        assert f.upload_csv(c, f.frame(seed=111, n_per_env=5), features="x1,x2").status_code == 201
        f.assert_problem(
            c.post(
                "/datasets",
                json={
                    "feature_names": ["a"],
                    "environments": [{"name": "e", "X": [[1.0]] * 51, "y": [1.0] * 51}],
                },
            ),
            422,
            "environments",
        )
    shaped.state.engine.dispose()
    assert row_counts()["jobs"] == before["jobs"]


def test_json_metrics_round_trip_exactly(client: httpx.Client) -> None:
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4, 2)) * 1e-7
    body = {
        "feature_names": ["p", "q"],
        "environments": [{"name": "only", "X": X.tolist(), "y": [0.1, 0.2, 0.3, 0.4]}],
    }
    response = client.post(
        "/datasets", content=json.dumps(body), headers={"content-type": "application/json"}
    )
    assert response.status_code == 201
    assert response.json()["target"] == "y"
