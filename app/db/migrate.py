"""Run the Alembic migrations from code (start-up of the embedded mode, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config


def project_root() -> Path:
    """Where alembic.ini and migrations/ live: the source tree (a checkout or an editable install),
    else the working directory (an installed image runs from the folder that holds them, /srv)."""
    source = Path(__file__).resolve().parents[2]
    return source if (source / "alembic.ini").is_file() else Path.cwd()


def alembic_config(url: str) -> Config:
    root = project_root()
    config = Config(str(root / "alembic.ini"))
    config.set_main_option("script_location", str(root / "migrations"))
    # ConfigParser interpolation would eat '%' in URL-encoded passwords.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logging"] = False
    return config


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
