"""API keys that expire (issue 24): an expired key is refused like a revoked one, at once."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import update

from app import auth
from app.db import migrate, tenancy
from app.db.models import ApiKey
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import ROOT, bearer


def test_an_expired_key_is_refused(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, broker_url="memory://", auth="keys")
    migrate.upgrade(settings.database_url)
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    now = dt.datetime.now(dt.UTC)
    keys: dict[str, str] = {}
    with app.state.sessionmaker() as session:
        tenant = tenancy.get_or_create_tenant(session, "expiring")
        for name, expires_at in (
            ("past", now - dt.timedelta(seconds=1)),
            ("future", now + dt.timedelta(days=1)),
        ):
            keys[name] = auth.new_key()
            tenancy.add_api_key(
                session,
                tenant.id,
                auth.key_sha256(keys[name]),
                auth.display_prefix(keys[name]),
                expires_at=expires_at,
            )
        session.commit()
    with TestClient(app) as c:
        body = f.assert_problem(c.get("/datasets", headers=bearer(keys["past"])), 401)
        assert "expired" in body["detail"]
        assert c.get("/datasets", headers=bearer(keys["future"])).status_code == 200
        with app.state.sessionmaker() as session:
            session.execute(update(ApiKey).values(expires_at=now - dt.timedelta(seconds=1)))
            session.commit()
        f.assert_problem(c.get("/datasets", headers=bearer(keys["future"])), 401)  # at once
    app.state.engine.dispose()


def test_the_admin_command_makes_keys_that_expire(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")} | {"SAL_DATA_DIR": str(tmp_path)}

    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app.admin", "keys", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )

    made = admin("create", "--tenant", "t", "--expires-in-days", "2")
    assert made.returncode == 0, made.stderr
    assert admin("create", "--tenant", "t", "--expires-in-days", "0").returncode != 0
    listed = admin("list").stdout
    assert "active (expires " in listed, listed
    assert "  read,write  " in listed, listed


def test_the_admin_command_gives_scopes_and_names(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")} | {"SAL_DATA_DIR": str(tmp_path)}

    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app.admin", "keys", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )

    operator = admin("create", "--tenant", "admin")  # the first operator key: every scope
    assert "scopes  read write admin" in operator.stdout, operator.stdout + operator.stderr
    reader = admin("create", "--tenant", "t", "--scope", "read", "--name", "ci reader")
    assert "scopes  read\n" in reader.stdout, reader.stdout + reader.stderr
    refused = admin("create", "--tenant", "t", "--scope", "admin")
    assert refused.returncode != 0 and "--scope: tenant 't' is not an operator" in refused.stderr, (
        refused.stderr
    )
    listed = admin("list", "--tenant", "t").stdout.splitlines()
    assert len(listed) == 1 and "  read  active  " in listed[0] and listed[0].endswith("ci reader"), listed
