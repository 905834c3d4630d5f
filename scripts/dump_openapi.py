"""Write the app's OpenAPI document (sorted, stable) to a file: python scripts/dump_openapi.py OUT."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from app.main import create_app
from app.settings import Settings


def main() -> None:
    # Any settings will do: the document does not depend on them, and nothing connects here.
    app = create_app(Settings(database_url="sqlite://", broker_url="memory://"))
    Path(sys.argv[1]).write_text(json.dumps(app.openapi(), indent=2, sort_keys=True) + "\n")
    app.state.engine.dispose()


if __name__ == "__main__":
    main()
