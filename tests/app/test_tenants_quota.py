"""What one tenant may store and upload at once (issue 24): dataset-count and byte quotas, and a
bounded number of uploads parsed at once, per tenant and per process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.datasets.uploads import UploadGate
from app.db import migrate
from app.errors import ServiceUnavailable, TooManyRequests
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f


def _app(tmp_path: Path, **settings: object):  # type: ignore[no-untyped-def]
    config = Settings(data_dir=tmp_path, broker_url="memory://", **settings)  # type: ignore[arg-type]
    config.prepare_dirs()
    migrate.upgrade(config.database_url)
    return create_app(config, queue=f.RecordingQueue(config, None))


@pytest.mark.parametrize(
    ("quota", "detail"),
    [
        ({"max_datasets_per_tenant": 2}, "max_datasets_per_tenant"),
        ({"max_stored_bytes_per_tenant": 1}, "max_stored_bytes_per_tenant"),
    ],  # fmt: skip
    ids=["count", "bytes"],
)
def test_a_tenant_stores_no_more_than_its_quota(tmp_path: Path, quota: dict[str, int], detail: str) -> None:
    app = _app(tmp_path, **quota)
    with TestClient(app) as c:
        first = f.upload_csv(c, f.frame(seed=2410))
        assert first.status_code == 201
        if "max_datasets_per_tenant" in quota:
            assert f.upload_csv(c, f.frame(seed=2411)).status_code == 201
        refused = f.upload_csv(c, f.frame(seed=2412))
        assert detail in f.assert_problem(refused, 409)["detail"]
        listed = c.get("/datasets").json()["items"]
        assert len(listed) == (2 if "max_datasets_per_tenant" in quota else 1)
        assert c.delete(f"/datasets/{first.json()['id']}").status_code == 204
        assert f.upload_csv(c, f.frame(seed=2412)).status_code == 201  # room again
    app.state.engine.dispose()


def test_uploads_in_flight_are_bounded_per_tenant_and_per_process(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        max_concurrent_uploads=1,
        max_concurrent_uploads_per_tenant=2,
        upload_wait_s=0.2,
        retry_after_s=3,
    )
    gate = UploadGate(settings, sessionmaker=lambda: None)  # type: ignore[arg-type,return-value]

    async def go() -> None:
        async with gate.slot("a"):
            with pytest.raises(ServiceUnavailable) as busy:  # the one parse slot stays taken
                async with gate.slot("a"):
                    pass
            assert busy.value.headers == {"Retry-After": "3"}
            released = asyncio.Event()

            async def second() -> str:
                async with gate.slot("a"):  # waits for the slot, which frees below
                    released.set()
                    return "parsed"

            waiting = asyncio.create_task(second())
            await asyncio.sleep(0)
            with pytest.raises(TooManyRequests):  # "a" has two in flight: its cap
                async with gate.slot("a"):
                    pass
        assert await waiting == "parsed" and released.is_set()
        async with gate.slot("b"):  # every slot was given back
            pass

    asyncio.run(go())
