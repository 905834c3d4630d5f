"""/docs and /redoc work with no internet: their scripts and styles come from the service itself
(the fastapi-offline package's assets), so Swagger UI draws every operation while the browser may
reach nothing but the service."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_docs_render_with_every_other_host_blocked(browser: Any, ui_server: str) -> None:
    context = browser.new_context()
    foreign: list[str] = []

    def only_the_service(route: Any) -> None:
        if route.request.url.startswith(ui_server):
            route.continue_()
        else:
            foreign.append(f"{route.request.resource_type} {route.request.url}")
            route.abort()

    context.route("**/*", only_the_service)
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        page.goto(f"{ui_server}/docs")
        page.locator(".opblock").first.wait_for()  # Swagger UI 5 read the OpenAPI 3.1 document
        assert page.locator(".opblock").count() >= 20
        assert page.get_by_text("/jobs/compare").count() >= 1
        page.goto(f"{ui_server}/redoc")
        page.locator("[role=navigation], .menu-content").first.wait_for()
    finally:
        context.close()
    # Nothing the pages need left the machine (ReDoc asks for its own logo, an image, and does without).
    assert [f for f in foreign if not f.startswith("image ")] == []
    for name in ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js"):
        assert httpx.get(f"{ui_server}/docs-assets/{name}").status_code == 200
