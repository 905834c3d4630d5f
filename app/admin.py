"""Administer API keys against the service's database (SAL_DATABASE_URL, or the embedded SQLite).

    python -m app.admin keys create --tenant NAME [--scope read|write|admin ...] [--name TEXT]
                                    [--expires-in-days N]
                                                      print a new key for NAME (created if new);
                                                      default scopes: read and write, and admin
                                                      for an operator tenant
    python -m app.admin keys revoke KEY_ID            the key stops working at once
    python -m app.admin keys list [--tenant NAME]
    python -m app.admin tenants erase NAME --yes      erase a tenant: its jobs, results, weights,
                                                      sweeps, datasets (and their objects),
                                                      idempotency records and keys
    python -m app.admin datasets migrate-storage [--to local|s3] [--dry-run]
                                                      move datasets stored in database rows into
                                                      the object store (content ids unchanged)
    python -m app.admin datasets verify [--content]   every stored dataset's object is there

A key is shown once, when it is created; only its sha256 is stored. An operator's key does the
same through the API (POST/GET/DELETE /admin/keys, ``sal admin keys``); this command is for the
first one, from a shell on the server.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import NoReturn

from pydantic import ValidationError
from sqlalchemy.orm import Session, sessionmaker

from app import auth
from app.db import migrate, tenancy
from app.db.session import make_engine, make_sessionmaker
from app.errors import Conflict, NotFound, UnprocessableEntity
from app.keys import service as keys_service
from app.keys.schemas import KeyCreate
from app.settings import Settings, get_settings
from app.tenants import service as tenants_service


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.admin", description=__doc__.splitlines()[0])
    groups = parser.add_subparsers(dest="group", required=True)
    keys = groups.add_parser("keys", help="API keys").add_subparsers(dest="command", required=True)
    create = keys.add_parser("create", help="create a key for a tenant (and the tenant if it is new)")
    create.add_argument("--tenant", required=True)
    create.add_argument(
        "--scope",
        dest="scopes",
        action="append",
        choices=auth.SCOPES,
        help="repeat for several (default: read and write, and admin for an operator tenant)",
    )
    create.add_argument("--name", default=None, help="what the key is for, shown in lists")
    create.add_argument(
        "--expires-in-days",
        type=float,
        default=None,
        help="the key stops working after this long (default: never)",
    )
    revoke = keys.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    listing = keys.add_parser("list", help="list keys (never the keys themselves)")
    listing.add_argument("--tenant")
    tenants = groups.add_parser("tenants", help="tenants").add_subparsers(dest="command", required=True)
    erasing = tenants.add_parser(
        "erase", help="erase a tenant and everything it stored (409 while its jobs run)"
    )
    erasing.add_argument("name")
    erasing.add_argument("--yes", action="store_true", help="required: there is no undo")
    datasets = groups.add_parser("datasets", help="stored datasets").add_subparsers(
        dest="command", required=True
    )
    migrating = datasets.add_parser(
        "migrate-storage", help="move datasets kept in database rows into the object store (idempotent)"
    )
    migrating.add_argument(
        "--to", choices=["local", "s3"], default=None, help="the store (default: SAL_DATASET_STORE's)"
    )
    migrating.add_argument("--dry-run", action="store_true", help="list what would move; move nothing")
    verify = datasets.add_parser("verify", help="check every dataset in a store has its object, of its size")
    verify.add_argument("--content", action="store_true", help="also decode each and check its sha256")
    args = parser.parse_args(argv)
    if args.group == "datasets":
        # The table code (pandas, pyarrow, torch) loads first, before any database work, as it did
        # when this module imported it; key and tenant commands never load it.
        import app.datasets.relocate  # noqa: F401

    settings = get_settings()
    migrate.upgrade(settings.database_url)  # a no-op when the schema is current
    engine = make_engine(settings.database_url)
    try:
        if args.group == "datasets" and args.command == "verify":
            from app.datasets import relocate  # torch and the table code only for dataset commands

            problems = relocate.verify_storage(make_sessionmaker(engine), settings, content=args.content)
            return 1 if problems else 0
        if args.group == "datasets":
            return _migrate_storage(parser, args, settings, make_sessionmaker(engine))
        if args.group == "tenants":
            return _erase_tenant(parser, args, settings, make_sessionmaker(engine))
        with make_sessionmaker(engine)() as session:
            if args.command == "create":
                return _create_key(parser, args, settings, session)
            if args.command == "revoke":
                if not tenancy.revoke_api_key(session, args.key_id):
                    print(f"no active key {args.key_id}", file=sys.stderr)
                    return 1
                session.commit()
                print(f"revoked {args.key_id}")
            else:
                for k in keys_service.list_keys(session, settings.operator_tenants, args.tenant):
                    state: str = k.state
                    if k.expires_at is not None and k.state == "active":
                        state += f" (expires {k.expires_at:%Y-%m-%d %H:%M})"
                    print(
                        f"{k.id}  {k.tenant}  {k.prefix}…  {','.join(k.scopes)}  {state}  "
                        f"created {k.created_at:%Y-%m-%d %H:%M}" + (f"  {k.name}" if k.name else "")
                    )
    finally:
        engine.dispose()
    return 0


# KeyCreate's fields as this command's options, for its errors.
_OPTION = {
    "tenant": "--tenant",
    "scopes": "--scope",
    "name": "--name",
    "expires_in_days": "--expires-in-days",
}


def _create_key(
    parser: argparse.ArgumentParser, args: argparse.Namespace, settings: Settings, session: Session
) -> int:
    name = args.tenant.strip()
    if not name:
        parser.error("--tenant must not be empty")
    if args.expires_in_days is not None and args.expires_in_days <= 0:
        parser.error("--expires-in-days must be positive")
    scopes = args.scopes or ["read", "write", *(["admin"] if name in settings.operator_tenants else [])]
    try:
        body = KeyCreate(tenant=name, scopes=scopes, name=args.name, expires_in_days=args.expires_in_days)
        created = keys_service.create_key(session, body, settings.operator_tenants)
    except ValidationError as exc:
        parser.error(
            "; ".join(f"{_OPTION.get(str(e['loc'][0]), e['loc'][0])}: {e['msg']}" for e in exc.errors())
        )
    except UnprocessableEntity as exc:
        parser.error("; ".join(f"{_OPTION.get(e.field, e.field)}: {e.message}" for e in exc.errors))
    session.commit()
    print(
        f"tenant  {created.tenant}\nkey id  {created.id}\nscopes  {' '.join(created.scopes)}\nkey     {created.key}"
    )
    print(
        "Store the key now: it is not shown again. Send it as 'Authorization: Bearer <key>'.", file=sys.stderr
    )
    return 0


def _erase_tenant(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    settings: Settings,
    sessions: sessionmaker[Session],
) -> int:
    if not args.yes:
        parser.error(f"erasing {args.name!r} deletes everything it stored, with no undo: add --yes")
    with sessions() as session:
        try:
            counts = tenants_service.erase_tenant(session, args.name, settings)
        except (NotFound, Conflict) as exc:
            print(f"error: {exc.detail}", file=sys.stderr)
            return 1
    print(f"erased tenant {args.name}: " + ", ".join(f"{n} {table}" for table, n in counts.items() if n))
    return 0


def _migrate_storage(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    settings: Settings,
    sessions: sessionmaker[Session],
) -> int:
    kind = args.to or settings.dataset_store_kind
    if kind == "database":
        parser.error("datasets stay in the database with these settings: pass --to, or set SAL_DATASET_STORE")
    from app.datasets import relocate  # torch and the table code only for dataset commands

    report = relocate.migrate_storage(sessions, settings, kind, dry_run=args.dry_run)
    print(
        f"moved {len(report.moved)} dataset(s), {report.bytes_moved} bytes, to the {kind} store; "
        f"{report.already} were in a store already; {len(report.failed)} left in the database"
    )
    return 1 if report.failed else 0


def exit_without_native_teardown(code: int) -> NoReturn:
    """End the command with ``code`` once its output is flushed, skipping the interpreter's
    teardown of native libraries. Dataset commands load pyarrow, whose thread pools can abort the
    process at exit after the work is done ("terminate called without an active exception",
    SIGABRT: apache/arrow#34314, #38352; seen twice in this project's test runs, after
    ``datasets verify --content`` had printed its answer). Nothing is left to clean up by then:
    the database sessions are closed, and stdout, stderr and the log handlers are flushed here."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_without_native_teardown(main())
