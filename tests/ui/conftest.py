"""A real API (uvicorn, API keys required) and Celery worker on PostgreSQL + Redis, and headless
Chromium driven by Playwright, for the dashboard tests.

The browser is Debian's ``chromium`` (Playwright's own browser builds are never downloaded); the
tests skip, as the report tests do, where either is missing.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine

from app.settings import Settings
from tests.conftest import ROOT, Proc, _wait_for, free_port, make_api_key, service_env

# The tracked docs/screenshots/*.png change only on request: SAL_UI_SCREENSHOTS=1 refreshes them
# (CONTRIBUTING.md). Otherwise each page is still screenshotted, into a scratch directory.
REFRESH_SCREENSHOTS = os.environ.get("SAL_UI_SCREENSHOTS") == "1"
SCREENSHOTS = (
    ROOT / "docs" / "screenshots"
    if REFRESH_SCREENSHOTS
    else Path(tempfile.gettempdir()) / "sal-ui-screenshots"
)
LAPTOP = {"width": 1366, "height": 800}


@pytest.fixture(scope="session")
def ui_server(
    pg_settings: Settings, pg_worker: Proc, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """uvicorn serving ``app.main:app`` with keys required, beside the session's worker; its URL."""
    port = free_port()
    env = service_env(pg_settings.model_copy(update={"auth": "keys"}))
    log = tmp_path_factory.mktemp("ui-logs") / "api.log"
    args = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)]
    proc = Proc(args, env, log)
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        if proc.popen.poll() is not None:
            raise RuntimeError(f"uvicorn exited:\n{proc.log()[-4000:]}")
        try:
            return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        _wait_for(ready, 90, "the API under uvicorn")
        yield base
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def tenant_keys(pg_engine: Engine, ui_server: str) -> dict[str, str]:
    """One API key for each of two tenants."""
    return {t: make_api_key(pg_engine, f"ui-{t}") for t in ("a", "b")}


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (scripts/test.sh installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield browser
        browser.close()


def sign_in(browser: Any, base: str, key: str) -> Any:
    """A fresh browser context on /ui, the key typed into the page's form; returns the page."""
    context = browser.new_context(viewport=LAPTOP, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{base}/ui")
    page.get_by_label("API key", exact=True).fill(key)
    page.get_by_role("button", name="Use key").click()
    page.get_by_role("heading", name="Datasets", exact=True).wait_for()
    return page


def go(page: Any, hash_: str) -> None:
    """Navigate inside the page (the hash only): a reload would forget the key, by design."""
    page.evaluate("h => { location.hash = h; }", hash_)
    drawn(page, hash_, exact=True)


def drawn(page: Any, fragment: str, exact: bool = False) -> None:
    """Wait until the page for the address ``fragment`` (or one containing it) is drawn."""
    page.locator(f'#main[data-route{"" if exact else "*"}="{fragment}"]').wait_for(state="attached")


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
