"""The container image's file set: checked against pyproject.toml, then installed and run.

No Docker engine is needed: the Dockerfile's context COPYs are replayed (after .dockerignore) into
a temp folder per stage, the build stage is built into a wheel and installed into a fresh venv
(``--no-deps``; the third-party packages come from the suite's own site-packages through a
``.pth`` line, so no network), and every entry point docker-compose.yml, the README and
docs/deployment.md use runs from the runtime stage's working directory, as in the container.
"""

from __future__ import annotations

import importlib.metadata
import os
import shlex
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text

from app.queue import worker_command
from tests.deploy.buildfiles import (
    ROOT,
    alembic_paths,
    build_context,
    compose,
    context_copies,
    covered,
    dockerfile_stages,
    option,
    packaged_paths,
    project_scripts,
    python_m_modules,
    reproduce_stage,
    service_image_services,
)

PG_URL = os.environ.get(
    "SAL_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/sal_service_test"
)
REDIS_URL = os.environ.get("SAL_TEST_REDIS_URL", "redis://127.0.0.1:6379/5")
STAGES = dockerfile_stages()
COPIES = context_copies(STAGES)
BUILD_STAGE = next(s for s in STAGES if any("pyproject.toml" in c.sources for c in COPIES[s.name]))
RUNTIME_STAGE = STAGES[-1]


def _sources(stage_name: str | None = None) -> set[str]:
    names = [stage_name] if stage_name else list(COPIES)
    return {src.rstrip("/").removeprefix("./") for n in names for c in COPIES[n] for src in c.sources}


def test_build_stage_copies_what_pyproject_packages() -> None:
    missing = {p for p in packaged_paths() if not covered(p, _sources(BUILD_STAGE.name))}
    assert not missing, (
        f"pyproject.toml packages {sorted(missing)}; add a COPY to the Dockerfile's build stage"
    )


def test_runtime_stage_copies_what_alembic_reads() -> None:
    missing = {p for p in alembic_paths() if not covered(p, _sources(RUNTIME_STAGE.name))}
    assert not missing, f"`alembic upgrade head` reads {sorted(missing)} from the working directory"


def test_image_copies_nothing_else() -> None:
    extra = _sources() - packaged_paths() - alembic_paths()
    assert not extra, f"the Dockerfile copies {sorted(extra)}, which neither the wheel nor Alembic uses"


def test_dockerignore_sends_exactly_the_copied_files() -> None:
    context = build_context()
    sources = _sources()
    stray = sorted(f for f in context if not covered(f, sources))
    assert not stray, f".dockerignore lets {stray[:10]} into the build context; nothing copies them"
    on_disk = {
        p.relative_to(ROOT).as_posix()
        for src in sources
        for p in ([ROOT / src] if (ROOT / src).is_file() else (ROOT / src).rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    dropped = sorted(on_disk - context)
    assert not dropped, f".dockerignore drops {dropped[:10]}, which the Dockerfile copies"


def test_image_runs_as_a_non_root_user() -> None:
    assert RUNTIME_STAGE.user not in ("root", "0"), "the runtime stage must end with USER <non-root>"


# ---- the entry points, run from the reproduced file set --------------------------------------


def _entry_point_commands() -> list[list[str]]:
    """Each command the deployment uses, in a form that runs without servers beyond PostgreSQL."""
    commands: list[list[str]] = []
    imports: list[str] = []
    for svc in service_image_services(compose()).values():
        args = [str(a) for a in svc["command"]]
        program = Path(args[0]).name
        if program == "alembic":
            commands.append(args)
        elif program == "uvicorn":
            target = next(a for a in args[1:] if ":" in a and not a.startswith("-"))
            module, attr = target.split(":")
            imports.append(f"import {module}; {module}.{attr}")
        elif program == "celery":
            app = option(args, "-A", "--app")
            assert app, f"{args}: celery without -A"
            imports.append(f"import {app.split(':')[0]}")
            commands.append(["celery", "-A", app, "inspect", "--help"])
            subcommand = next(a for a in args[1:] if not a.startswith("-") and a != app)
            commands.append(["celery", "-A", app, subcommand, "--help"])
        elif program in ("python", "python3") and args[1] == "-m":
            commands.append(["python", "-m", args[2], "--help"])
            if args[2] == "worker":  # it execs app.queue.worker_command: that Celery app must load too
                app = option(worker_command(["sal"]), "-A", "--app")
                assert app, "app.queue.worker_command names no Celery app"
                imports.append(f"import {app}")
                commands.append(["celery", "-A", app, "inspect", "--help"])
        else:
            commands.append([program, "--help"])
    if imports:
        commands.append(["python", "-c", "; ".join(dict.fromkeys(imports))])
    commands += [[script, "--help"] for script in project_scripts()]
    docs = [ROOT / "README.md", ROOT / "docs" / "deployment.md", ROOT / "docker-compose.yml"]
    service_packages = {"app", "worker"}
    for module in sorted(python_m_modules(*(p.read_text() for p in docs if p.exists()))):
        if module.split(".")[0] in service_packages:
            commands.append(["python", "-m", module, "--help"])
    unique = {shlex.join(c): c for c in commands}
    return list(unique.values())


@pytest.fixture(scope="module")
def scratch_database_url() -> Iterator[str]:
    name = f"sal_deploy_scratch_{os.getpid()}"
    admin = create_engine(make_url(PG_URL).set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


class Image:
    """The reproduced image: a venv holding the built service, and the runtime working directory."""

    def __init__(self, venv_dir: Path, workdir: Path, env: dict[str, str]) -> None:
        self.venv_dir = venv_dir
        self.workdir = workdir
        self.env = env

    def run(self, args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
        program = self.venv_dir / "bin" / args[0]
        assert program.exists(), f"{args[0]} is not installed in the image's venv"
        return subprocess.run(
            [str(program), *args[1:]],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def _console_scripts(site_packages: str, bin_dir: Path, python: Path) -> None:
    """The wrappers pip writes for the suite's third-party packages (celery, alembic, uvicorn...),
    which a ``--no-deps`` install leaves out of the fresh venv's bin."""
    for dist in importlib.metadata.distributions(path=[site_packages]):
        for ep in dist.entry_points.select(group="console_scripts"):
            script = bin_dir / ep.name
            if script.exists():  # the image's own (sal), installed by pip
                continue
            module, _, attr = ep.value.partition(":")
            script.write_text(
                f"#!{python}\nimport sys\nfrom {module} import {attr.split('.')[0]}\n"
                f"sys.exit({attr.strip()}())\n"
            )
            script.chmod(0o755)


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory, scratch_database_url: str) -> Image:
    tmp = tmp_path_factory.mktemp("image")
    src, workdir, wheels, venv_dir = tmp / "src", tmp / "srv", tmp / "wheels", tmp / "venv"
    reproduce_stage(COPIES[BUILD_STAGE.name], BUILD_STAGE.workdir, src)
    reproduce_stage(COPIES[RUNTIME_STAGE.name], RUNTIME_STAGE.workdir, workdir)
    quiet = ["--quiet", "--disable-pip-version-check", "--no-index", "--no-deps"]
    pip = [sys.executable, "-m", "pip"]
    subprocess.run([*pip, "wheel", *quiet, "--no-build-isolation", "-w", wheels, src], check=True)
    venv.create(venv_dir, with_pip=False)
    python = venv_dir / "bin" / "python"
    # pip runs against the fresh venv before the .pth exists, so it sees (and touches) nothing else.
    subprocess.run([*pip, "--python", python, "install", *quiet, *wheels.glob("*.whl")], check=True)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # The suite's third-party packages, after the fresh site-packages; its own .pth files (the
    # editable install of this repository among them) are not processed from a .pth line.
    suite_site_packages = sysconfig.get_path("purelib")
    Path(purelib, "_suite_site_packages.pth").write_text(suite_site_packages + "\n")
    _console_scripts(suite_site_packages, venv_dir / "bin", python)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SAL_", "PYTHON", "VIRTUAL_ENV"))}
    suite_bin = str(Path(sys.prefix, "bin"))
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != suite_bin]
    env.update(
        PATH=os.pathsep.join([str(venv_dir / "bin"), *path]),
        SAL_DATABASE_URL=scratch_database_url,
        SAL_BROKER_URL=REDIS_URL,
        SAL_AUTH="keys",
        SAL_DATA_DIR=str(tmp / "data"),
    )
    return Image(venv_dir, workdir, env)


def test_packages_come_from_the_installed_image(image: Image) -> None:
    tops = sorted({Path(p).name for p in packaged_paths() if not p.endswith((".toml", ".md"))})
    probe = f"import importlib.util as u; print(*[u.find_spec(m).origin for m in {tops!r}], sep='\\n')"
    result = image.run(["python", "-c", probe])
    assert result.returncode == 0, result.stderr
    for top, origin in zip(tops, result.stdout.split(), strict=True):
        assert origin.startswith(str(image.venv_dir)), f"{top} imported from {origin}, not the image"
    docs = [ROOT / "README.md", ROOT / "docs" / "deployment.md"]
    modules = sorted(python_m_modules(*(p.read_text() for p in docs if p.exists())))
    probe = f"import importlib.util as u; print(*[m for m in {modules!r} if u.find_spec(m) is None])"
    result = image.run(["python", "-c", probe])
    assert result.returncode == 0 and not result.stdout.strip(), (
        f"`python -m` modules the docs name but the image lacks: {result.stdout} {result.stderr}"
    )


@pytest.mark.parametrize("command", _entry_point_commands(), ids=shlex.join)
def test_entry_point_runs_from_the_image(image: Image, command: list[str], scratch_database_url: str) -> None:
    result = image.run(command)
    assert result.returncode == 0, (
        f"{shlex.join(command)} exited {result.returncode}:\n{result.stderr[-3000:]}"
    )
    if command[:3] == ["alembic", "upgrade", "head"]:
        engine = create_engine(scratch_database_url)
        try:
            with engine.connect() as conn:
                assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        finally:
            engine.dispose()


def test_admin_creates_a_key_from_the_image(image: Image) -> None:
    # The command docs/deployment.md gives for the first API key; it migrates first, in-process.
    result = image.run(["python", "-m", "app.admin", "keys", "create", "--tenant", "deploy-check"])
    assert result.returncode == 0, f"python -m app.admin keys create failed:\n{result.stderr[-3000:]}"
    assert result.stdout.strip()
