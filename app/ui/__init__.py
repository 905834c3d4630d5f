"""The web dashboard at ``/ui``: static assets checked in, no build step.

One HTML shell, a small vanilla JavaScript application and a stylesheet, served from this package.
The page talks to the service only through the public JSON API (``fetch`` with the user's key),
so it holds no tenant data and needs no key itself; tenant isolation is the API's.
"""

from app.ui.routes import router

__all__ = ["router"]
