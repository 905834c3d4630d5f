"""docker-compose.yml against the code: commands, environment, healthchecks, queues, build args.

Each service that runs this repository's image is checked against what the code defines today:
its command's module or app imports (in a subprocess with that service's environment), its
``SAL_*`` variables are fields of ``app.settings.Settings`` and validate together, its healthcheck
URLs are GET routes of the app uvicorn serves, and the workers run the one worker command
(``python -m worker``, which becomes ``app.queue.worker_command``) on the cpu and gpu queues the API
routes jobs to.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from app.settings import Settings
from tests.deploy.buildfiles import (
    ROOT,
    alembic_paths,
    compose,
    dockerfile_stages,
    option,
    service_image_services,
)

SPEC = compose()
SERVICES = SPEC["services"]
OURS = service_image_services(SPEC)

# Run in a subprocess so the service's environment is the one get_settings() reads, and nothing
# this imports (a cached Settings, a Celery app) leaks into the rest of the test session.
PROBE = r"""
import importlib, json, sys
kind, target, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
if kind == "worker":  # the command line `python -m worker ARGS` execs, in this environment
    from worker.__main__ import command
    print(json.dumps({"command": command(paths)}))
elif kind == "uvicorn":
    from starlette.routing import Match
    module, attr = target.split(":")
    app = getattr(importlib.import_module(module), attr)
    # Starlette's own matching, so included routers and path parameters count as they do live.
    def serves(path):
        scope = {"type": "http", "method": "GET", "path": path, "root_path": "", "headers": [], "query_string": b""}
        return any(route.matches(scope)[0] == Match.FULL for route in app.routes)
    print(json.dumps({"get": {path: serves(path) for path in paths}}))
else:
    from celery.app.utils import find_app
    app = find_app(target)
    app.loader.import_default_modules()
    print(json.dumps({"tasks": sorted(app.tasks), "default_queue": app.conf.task_default_queue}))
"""


def _command(svc: dict[str, Any]) -> list[str]:
    return [str(a) for a in svc["command"]]


def _env(svc: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in (svc.get("environment") or {}).items()}


@pytest.fixture
def settings_of(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Settings as a service would read them from its compose environment (and nothing else)."""

    def read(svc: dict[str, Any]) -> Settings:
        for key in list(os.environ):
            if key.upper().startswith("SAL_"):
                monkeypatch.delenv(key)
        for key, value in _env(svc).items():
            monkeypatch.setenv(key, value)
        return Settings()

    yield read


def _probe(kind: str, target: str, svc: dict[str, Any], cwd: Path, *paths: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("SAL_")}
    env.update(_env(svc))
    if "PROMETHEUS_MULTIPROC_DIR" in env:  # a tmpfs in the container; here a fresh folder
        env["PROMETHEUS_MULTIPROC_DIR"] = str(cwd)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, kind, target, *paths],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"{kind} target {target!r} does not load:\n{result.stderr[-3000:]}"
    out: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return out


def _uvicorn_service() -> tuple[str, dict[str, Any]]:
    apis = [(n, s) for n, s in OURS.items() if Path(_command(s)[0]).name == "uvicorn"]
    assert len(apis) == 1, f"expected one uvicorn service, found {[n for n, _ in apis]}"
    return apis[0]


def _is_worker(svc: dict[str, Any]) -> bool:
    args = _command(svc)
    return Path(args[0]).name in ("python", "python3") and args[1:3] == ["-m", "worker"]


def _workers() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in OURS.items() if _is_worker(s)}


def _worker_command(svc: dict[str, Any], cwd: Path) -> list[str]:
    """The Celery command line the service's ``python -m worker ARGS`` execs, with its environment."""
    resolved: list[str] = _probe("worker", "worker", svc, cwd, *_command(svc)[3:])["command"]
    return resolved


def _healthcheck_urls() -> dict[str, list[str]]:
    urls = {}
    for name, svc in OURS.items():
        test = " ".join(str(a) for a in (svc.get("healthcheck") or {}).get("test", []))
        urls[name] = re.findall(r"https?://[^\s'\"]+", test)
    return urls


@pytest.fixture(scope="module")
def api_serves_get(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bool]:
    """Whether the app uvicorn serves answers GET on each healthcheck URL's path (and /, a control)."""
    _, svc = _uvicorn_service()
    target = next(a for a in _command(svc)[1:] if ":" in a and not a.startswith("-"))
    paths = {urlsplit(u).path for urls in _healthcheck_urls().values() for u in urls}
    probe = _probe("uvicorn", target, svc, tmp_path_factory.mktemp("api"), "/no-such-route", *paths)
    assert probe["get"].pop("/no-such-route") is False, "the route check matches anything"
    served: dict[str, bool] = probe["get"]
    return served


def test_each_service_runs_a_known_entry_point(tmp_path: Path, api_serves_get: dict[str, bool]) -> None:
    loaded: set[str] = set()
    for name, svc in OURS.items():
        args = _command(svc)
        program = Path(args[0]).name
        if program == "alembic":
            assert args[1:] == ["upgrade", "head"], f"{name}: {args}"
            assert all((ROOT / p).exists() for p in alembic_paths()), (
                "alembic.ini or its script_location is gone"
            )
        elif program == "uvicorn":
            pass  # loaded, with the service's environment, by api_serves_get
        elif _is_worker(svc):
            app = option(_worker_command(svc, tmp_path), "-A", "--app")
            assert app, f"{name}: the worker command names no Celery app"
            if app in loaded:
                continue
            loaded.add(app)
            probe = _probe("celery", app, svc, tmp_path)
            assert any(not t.startswith("celery.") for t in probe["tasks"]), (
                f"{name}: the Celery app {app} registers no task of ours: {probe['tasks']}"
            )
        elif program == "celery":
            pytest.fail(f"{name}: {args}; start workers with python -m worker, the one worker command")
        else:
            pytest.fail(f"{name}: no check for command {args}; teach test_compose.py about it")


def test_sal_environment_names_are_settings() -> None:
    prefix = str(Settings.model_config.get("env_prefix", "")).upper()
    known = {prefix + field.upper() for field in Settings.model_fields}
    for name, svc in OURS.items():
        unknown = sorted(k for k in _env(svc) if k.upper().startswith(prefix) and k.upper() not in known)
        assert not unknown, f"{name}: {unknown} are not fields of app.settings.Settings"


def test_environment_validates_as_settings(settings_of: Any) -> None:
    for svc in OURS.values():
        settings = settings_of(svc)
        assert not settings.is_sqlite, "the scale-out deployment runs on PostgreSQL"
        assert not settings.broker_url.startswith("filesystem://"), "workers on other hosts need Redis"


def test_urls_name_compose_services(settings_of: Any) -> None:
    pg_env = SERVICES["postgres"]["environment"]
    for name, svc in OURS.items():
        settings = settings_of(svc)
        db = urlsplit(settings.database_url)
        assert db.hostname in SERVICES, f"{name}: database host {db.hostname} is no compose service"
        assert (db.username, db.password, db.path.lstrip("/")) == (
            pg_env["POSTGRES_USER"],
            pg_env["POSTGRES_PASSWORD"],
            pg_env["POSTGRES_DB"],
        ), f"{name}: SAL_DATABASE_URL does not match the postgres service's credentials"
        broker = urlsplit(settings.broker_url)
        assert broker.hostname in SERVICES, f"{name}: broker host {broker.hostname} is no compose service"


def test_healthchecks_hit_real_routes(api_serves_get: dict[str, bool]) -> None:
    api_name, api = _uvicorn_service()
    port = int(option(_command(api), "--port", "--port") or 8000)
    checked = 0
    for name, urls in _healthcheck_urls().items():
        for url in urls:
            parts = urlsplit(url)
            assert name == api_name, f"{name}: healthcheck {url}, but only {api_name} serves HTTP"
            assert parts.hostname in ("127.0.0.1", "localhost"), f"{name}: {url} is not the container itself"
            assert parts.port == port, f"{name}: {url} is not the port uvicorn binds ({port})"
            assert api_serves_get[parts.path], f"{name}: {url} is no GET route of the API"
            checked += 1
    assert checked, f"{api_name} has no HTTP healthcheck"


def test_published_port_is_the_port_uvicorn_binds() -> None:
    name, api = _uvicorn_service()
    args = _command(api)
    port = int(option(args, "--port", "--port") or 8000)
    assert option(args, "--host", "--host") == "0.0.0.0", f"{name}: uvicorn must bind 0.0.0.0 in a container"
    published = [str(p).rsplit(":", 1)[-1] for p in api.get("ports", [])]
    assert published == [str(port)], f"{name}: ports {api.get('ports')} do not reach uvicorn's {port}"


def _queues(args: list[str]) -> set[str]:
    value = option(args, "-Q", "--queues")
    assert value, f"{args}: a worker must name its queues with -Q"
    return set(value.split(","))


def _is_gpu(svc: dict[str, Any]) -> bool:
    devices = svc.get("deploy", {}).get("resources", {}).get("reservations", {}).get("devices", [])
    return any("gpu" in d.get("capabilities", []) for d in devices)


def test_workers_listen_on_the_queues_the_api_routes_to(settings_of: Any, tmp_path: Path) -> None:
    workers = _workers()
    assert any(_is_gpu(s) for s in workers.values()), "no worker reserves a GPU"
    assert any(not _is_gpu(s) for s in workers.values()), "no CPU worker"
    for name, svc in workers.items():
        settings = settings_of(svc)
        expected = {settings.gpu_queue} if _is_gpu(svc) else {settings.cpu_queue, settings.chunk_queue}
        assert _queues(_worker_command(svc, tmp_path)) == expected, (
            f"{name} must listen on {expected} (app.settings)"
        )
    # and the API routes with the same names: its environment agrees with the workers'
    api = settings_of(_uvicorn_service()[1])
    for svc in workers.values():
        settings = settings_of(svc)
        assert (settings.cpu_queue, settings.gpu_queue) == (api.cpu_queue, api.gpu_queue)


def test_gpu_worker_image_is_built_with_cuda_torch() -> None:
    stages = dockerfile_stages()
    declared = set().union(*(s.args for s in stages))
    for name, svc in OURS.items():
        build = svc["build"]
        args = build.get("args", {}) if isinstance(build, dict) else {}
        assert set(args) <= declared, (
            f"{name}: build args {sorted(set(args) - declared)} are not Dockerfile ARGs"
        )
        if _is_gpu(svc):
            assert "cu" in urlsplit(args.get("TORCH_INDEX_URL", "")).path, (
                f"{name}: CPU torch on a GPU worker"
            )
            assert svc.get("image") != SERVICES[_uvicorn_service()[0]].get("image"), (
                f"{name}: the GPU image needs its own tag, or it overwrites the CPU one"
            )


def test_services_start_after_migrations() -> None:
    migrate = [n for n, s in OURS.items() if Path(_command(s)[0]).name == "alembic"]
    assert len(migrate) == 1, f"expected one migrate service, found {migrate}"
    for name, svc in SERVICES.items():
        for dep in svc.get("depends_on", {}):
            assert dep in SERVICES, f"{name} depends on {dep}, which is no service"
    for name, svc in OURS.items():
        if name in migrate:
            continue
        condition = svc.get("depends_on", {}).get(migrate[0], {}).get("condition")
        assert condition == "service_completed_successfully", (
            f"{name} may start before the schema is migrated"
        )
