"""docs/deployment.md's settings table is the output of scripts/settings_doc.py, not hand-written."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from app.settings import Settings
from tests.deploy.buildfiles import ROOT


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("settings_doc", ROOT / "scripts" / "settings_doc.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_deployment_page_table_is_generated_from_settings() -> None:
    generator = _generator()
    assert generator.current() == generator.render(), (
        "docs/deployment.md's settings table is stale: run python scripts/settings_doc.py --write"
    )


def test_table_has_one_row_per_setting() -> None:
    table = _generator().render()
    prefix = str(Settings.model_config.get("env_prefix", "")).upper()
    for name in Settings.model_fields:
        assert f"| `{prefix}{name.upper()}` |" in table
    assert table.count("\n") == len(Settings.model_fields) + 2
