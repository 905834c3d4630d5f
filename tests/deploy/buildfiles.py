"""Read the deployment files the way Docker and Compose do, closely enough to test them without an engine.

- ``dockerfile_stages``: each stage's WORKDIR and its ``COPY`` sources (``--from`` copies apart);
- ``dockerignore``: BuildKit's rules (last matching pattern wins, ``!`` re-includes, a pattern
  that matches a directory matches everything under it);
- ``packaged_paths``: the paths ``pip install .`` reads, from pyproject.toml;
- ``build_context`` / ``reproduce_stage``: the files a ``docker build .`` would send, and a
  stage's copied file tree rebuilt in a folder.
"""

from __future__ import annotations

import configparser
import os
import re
import shlex
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Copy:
    sources: list[str]
    dest: str
    from_stage: str | None


@dataclass
class Stage:
    name: str
    workdir: str = "/"
    copies: list[Copy] = field(default_factory=list)
    args: set[str] = field(default_factory=set)
    user: str = "root"


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, rest) pairs, comments dropped and backslash continuations joined."""
    out: list[tuple[str, str]] = []
    buf = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if buf and line.startswith("#"):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        word, _, rest = buf.partition(" ")
        out.append((word.upper(), rest.strip()))
        buf = ""
    return out


def dockerfile_stages(path: Path = ROOT / "Dockerfile") -> list[Stage]:
    stages: list[Stage] = []
    global_args: set[str] = set()
    for word, rest in _instructions(path.read_text()):
        if word == "FROM":
            parts = rest.split()
            name = parts[parts.index("AS") + 1] if "AS" in parts else str(len(stages))
            stages.append(Stage(name=name))
        elif word == "ARG":
            (stages[-1].args if stages else global_args).add(rest.split("=")[0].strip())
        elif word == "USER":
            stages[-1].user = rest.split(":")[0]
        elif word == "WORKDIR":
            stages[-1].workdir = str(PurePosixPath(stages[-1].workdir) / rest)
        elif word == "COPY":
            tokens = shlex.split(rest)
            flags = [t for t in tokens if t.startswith("--")]
            paths = [t for t in tokens if not t.startswith("--")]
            from_stage = next((f.split("=", 1)[1] for f in flags if f.startswith("--from=")), None)
            stages[-1].copies.append(Copy(sources=paths[:-1], dest=paths[-1], from_stage=from_stage))
    for stage in stages:
        stage.args |= global_args
    return stages


def context_copies(stages: list[Stage]) -> dict[str, list[Copy]]:
    """Per stage, the COPY instructions that read the build context (not another stage)."""
    return {s.name: [c for c in s.copies if c.from_stage is None] for s in stages}


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + r"\Z")


@dataclass(frozen=True)
class IgnoreRule:
    pattern: str
    excludes: bool
    regex: re.Pattern[str]


def dockerignore(path: Path = ROOT / ".dockerignore") -> list[IgnoreRule]:
    """The patterns, in file order."""
    rules = []
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = str(PurePosixPath(line.lstrip("!").strip().strip("/")))
        rules.append(IgnoreRule(pattern, not negate, _pattern_regex(pattern)))
    return rules


def is_ignored(rel: str, rules: list[IgnoreRule]) -> bool:
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for rule in rules:
        if any(rule.regex.match(p) for p in prefixes):
            ignored = rule.excludes
    return ignored


def build_context(root: Path = ROOT) -> set[str]:
    """Every file a ``docker build`` of ``root`` sends, as POSIX paths relative to ``root``."""
    rules = dockerignore(root / ".dockerignore")
    reincludes = [r.pattern for r in rules if not r.excludes]
    files: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if here == "." else here + "/"
        # Skip an ignored folder unless a `!` pattern may re-include something under it.
        dirnames[:] = [
            d
            for d in dirnames
            if not is_ignored(prefix + d, rules)
            or any(p.startswith(prefix + d + "/") or "*" in p for p in reincludes)
        ]
        files |= {prefix + f for f in filenames if not is_ignored(prefix + f, rules)}
    return files


def packaged_paths(root: Path = ROOT) -> set[str]:
    """What ``pip install .`` reads: pyproject.toml, its readme, and each top-level package folder
    [tool.setuptools.packages.find] finds (as a path relative to ``root``)."""
    from setuptools import find_namespace_packages, find_packages

    project = tomllib.loads((root / "pyproject.toml").read_text())
    find = project["tool"]["setuptools"]["packages"]["find"]
    finder = find_namespace_packages if find.get("namespaces", True) else find_packages
    paths = {"pyproject.toml"}
    readme = project["project"].get("readme")
    if readme:
        paths.add(readme if isinstance(readme, str) else readme["file"])
    for where in find.get("where", ["."]):
        for package in finder(
            str(root / where), include=find.get("include", ["*"]), exclude=find.get("exclude", [])
        ):
            top = package.split(".")[0]
            paths.add((PurePosixPath(where) / top).as_posix().removeprefix("./"))
    return paths


def alembic_paths(root: Path = ROOT) -> set[str]:
    """alembic.ini and its script_location, which ``alembic upgrade head`` reads from the working directory."""
    ini = configparser.ConfigParser(defaults={"here": "."})
    ini.read(root / "alembic.ini")
    location = ini["alembic"]["script_location"]
    return {"alembic.ini", PurePosixPath(location).as_posix().removeprefix("./")}


def covered(path: str, sources: set[str]) -> bool:
    return any(path == s or path.startswith(s.rstrip("/") + "/") for s in sources)


def reproduce_stage(copies: list[Copy], workdir: str, dest_root: Path, root: Path = ROOT) -> None:
    """Rebuild what a stage's context COPYs put under its WORKDIR, in ``dest_root``.

    Docker's rules: a folder source copies its contents into ``dest``; a file source is copied to
    ``dest``, or into it when ``dest`` ends in ``/`` or there are several sources. Only context files count
    (so .dockerignore applies), and absolute destinations outside WORKDIR are refused here.
    """
    context = build_context(root)
    for copy in copies:
        dest = PurePosixPath(workdir) / copy.dest
        rel_dest = dest.relative_to(workdir)  # raises for a destination outside WORKDIR
        into_dir = copy.dest.endswith("/") or copy.dest in (".", "./") or len(copy.sources) > 1
        for source in copy.sources:
            src = source.rstrip("/").removeprefix("./")
            matched = {f for f in context if f == src or f.startswith(src + "/")}
            if not matched:
                raise FileNotFoundError(f"COPY {source}: nothing in the build context")
            for f in matched:
                if f == src:  # a file
                    target = rel_dest / PurePosixPath(src).name if into_dir else rel_dest
                else:  # inside a folder: its contents go to dest (or dest/<name> when copying into)
                    inner = PurePosixPath(f).relative_to(src)
                    target = rel_dest / inner
                out = dest_root / target
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / f, out)


def compose(path: Path = ROOT / "docker-compose.yml") -> dict[str, Any]:
    """docker-compose.yml as Compose reads it (YAML anchors and ``<<`` merges resolved)."""
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    return data


def service_image_services(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run this repository's image (built from it), by name."""
    return {name: svc for name, svc in spec["services"].items() if "build" in svc}


def option(args: list[str], short: str, long: str) -> str | None:
    """The value of ``-X v``, ``-Xv``, ``--long v`` or ``--long=v`` in a command line."""
    for i, arg in enumerate(args):
        if arg in (short, long) and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(long + "="):
            return arg.split("=", 1)[1]
        if len(short) == 2 and arg.startswith(short) and len(arg) > 2 and not arg.startswith("--"):
            return arg[2:]
    return None


def project_scripts(root: Path = ROOT) -> dict[str, str]:
    return dict(tomllib.loads((root / "pyproject.toml").read_text())["project"].get("scripts", {}))


def python_m_modules(*texts: str) -> set[str]:
    """Modules run as ``python -m M`` in prose or commands."""
    return set(re.findall(r"python -m ([A-Za-z_][\w.]*)", "\n".join(texts)))
