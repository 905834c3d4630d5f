"""Regression checks, without an engine, for the six defects a real Docker engine found (issue 23).

``scripts/image_test.sh`` builds the image and drives the compose stack for real where an engine
can be started; these checks run everywhere and fail on the files as they were before the fixes:

1. the wheel lacked ``app/ui/static`` (``/ui`` answered 500 in the image);
2. no init process: Celery ran as PID 1 and ignored SIGTERM while starting;
3. and 4. the working directory and the data directory were root-owned, the image ran as ``sal``;
5. compose's API ran two uvicorn processes without a multiprocess metrics directory;
6. a ``# syntax=`` line made BuildKit fetch its frontend from a registry;

and the cosmetic: log redaction masked the word "Bearer" of the start-up instruction.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

from app import logs
from tests.deploy.buildfiles import (
    ROOT,
    _instructions,
    compose,
    context_copies,
    dockerfile_stages,
    option,
    reproduce_stage,
)

DOCKERFILE = (ROOT / "Dockerfile").read_text()
STAGES = dockerfile_stages()
RUNTIME = STAGES[-1]


def _runtime_instructions() -> list[tuple[str, str]]:
    """The runtime stage's instructions, in order."""
    out: list[tuple[str, str]] = []
    for word, rest in _instructions(DOCKERFILE):
        if word == "FROM":
            out = []
        out.append((word, rest))
    return out


def test_wheel_holds_every_file_of_the_packages(tmp_path: Path) -> None:
    """Every non-Python file under a packaged folder (the dashboard's static files, py.typed) is
    in the wheel the image's build stage makes, at the path the code reads it from."""
    build = next(s for s in STAGES if any("pyproject.toml" in c.sources for c in s.copies))
    src = tmp_path / "src"
    reproduce_stage(context_copies(STAGES)[build.name], build.workdir, src)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "-w", tmp_path / "wheel", src],
        check=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    expected: set[str] = set()
    for where in find["where"]:
        base = src / where
        for top in {p.split(".")[0] for p in _packages(base, find["include"])}:
            expected |= {
                PurePosixPath(f.relative_to(base).as_posix()).as_posix()
                for f in (base / top).rglob("*")
                if f.is_file() and f.suffix not in (".py", ".pyc") and "__pycache__" not in f.parts
            }
    assert "app/ui/static/index.html" in expected, "the dashboard's index.html moved; update this test"
    missing = sorted(expected - in_wheel)
    assert not missing, f"the wheel lacks {missing}: list them in [tool.setuptools.package-data]"


def _packages(base: Path, include: list[str]) -> list[str]:
    from setuptools import find_namespace_packages

    return find_namespace_packages(str(base), include=include)


def test_an_init_process_runs_as_pid_1() -> None:
    """tini (the image's entrypoint) or compose's ``init: true`` for every service of the image."""
    entrypoints = [rest for word, rest in _runtime_instructions() if word == "ENTRYPOINT"]
    image_init = bool(entrypoints) and "tini" in entrypoints[-1]
    if image_init:
        assert re.search(r"apt-get install[^&]*\btini\b", DOCKERFILE), (
            "ENTRYPOINT names tini, nothing installs it"
        )
        return
    ours = {n: s for n, s in compose()["services"].items() if "build" in s}
    without = sorted(n for n, s in ours.items() if s.get("init") is not True)
    assert not without, f"no init process: the image has no tini ENTRYPOINT and {without} lack `init: true`"


def test_the_image_user_owns_its_working_and_data_directories() -> None:
    """The runtime stage's WORKDIR and the data directory under it (SAL_DATA_DIR's default,
    relative to it) belong to the user it runs as."""
    from app.settings import Settings

    data_dir = Settings.model_fields["data_dir"].default
    assert isinstance(data_dir, Path)
    data = data_dir if data_dir.is_absolute() else PurePosixPath(RUNTIME.workdir) / data_dir.as_posix()
    owned: set[str] = set()
    for word, rest in _runtime_instructions():
        if word == "RUN":
            for m in re.finditer(r"install -d -o (\S+) -g \S+((?: /[^\s&;]+)+)", rest):
                if m.group(1) == RUNTIME.user:
                    owned |= set(m.group(2).split())
    assert RUNTIME.workdir in owned, f"WORKDIR {RUNTIME.workdir} is not created owned by {RUNTIME.user}"
    assert str(data) in owned, f"the data directory {data} is not created owned by {RUNTIME.user}"


def test_default_command_runs_with_no_configuration() -> None:
    """The image's CMD is the embedded mode (migrations, a worker, the API), which needs no server."""
    cmds = [rest for word, rest in _runtime_instructions() if word == "CMD"]
    assert cmds, "the runtime stage has no CMD"
    assert '"app.embedded"' in cmds[-1] and '"0.0.0.0"' in cmds[-1], cmds[-1]


def test_compose_api_counts_metrics_across_its_processes() -> None:
    api = compose()["services"]["api"]
    workers = int(option([str(a) for a in api["command"]], "--workers", "--workers") or 1)
    assert workers > 1, "the api runs one process: this check needs updating"
    directory = (api.get("environment") or {}).get("PROMETHEUS_MULTIPROC_DIR")
    assert directory, "api: two uvicorn processes, no PROMETHEUS_MULTIPROC_DIR: /metrics counts per process"
    mounts = [str(t).split(":")[0] for t in api.get("tmpfs", [])]
    assert directory in mounts, f"api: {directory} must be a tmpfs, empty at each start"


def test_compose_images_and_port_can_be_overridden() -> None:
    services = compose()["services"]
    assert services["postgres"]["image"].startswith("${SAL_POSTGRES_IMAGE:-")
    assert services["redis"]["image"].startswith("${SAL_REDIS_IMAGE:-")
    assert str(services["api"]["ports"][0]).startswith("${SAL_API_PORT:-")


def test_dockerfile_has_no_registry_syntax_line() -> None:
    first = [line for line in DOCKERFILE.splitlines() if re.match(r"#\s*syntax\s*=", line, re.I)]
    assert not first, f"{first}: BuildKit fetches that frontend from a registry; offline builds fail"


def test_redaction_keeps_the_instruction_and_masks_the_value() -> None:
    instruction = "API keys required (Authorization: Bearer <key>); create one"
    assert logs.scrub(instruction) == instruction
    assert logs.scrub("Authorization: Bearer abcdef123456") == "Authorization: Bearer [redacted]"
    assert logs.scrub('{"authorization": "Basic dXNlcjpwdw=="}') == '{"authorization": "Basic [redacted]'
    assert "sal_abcdefghij" not in logs.scrub("bearer sal_abcdefghijklmnop")
