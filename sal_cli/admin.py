"""``sal admin``: what an operator's key does (the admin scope of a tenant in
SAL_OPERATOR_TENANTS; in single-user mode, the one user).

    sal admin keys create --tenant alice --scope read --expires-in-days 30 --name dashboard
    sal admin keys list [--tenant alice] [--state active]
    sal admin keys revoke KEY_ID
    sal admin tenants erase NAME --yes      every job, result, sweep, dataset and key of NAME
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sal_cli import output
from sal_cli.common import call, fail, raw, show

app = typer.Typer(help="Operator commands: API keys, tenants.", no_args_is_help=True)
keys = typer.Typer(help="Create, list and revoke API keys.", no_args_is_help=True)
tenants = typer.Typer(help="Erase a tenant.", no_args_is_help=True)
app.add_typer(keys, name="keys")
app.add_typer(tenants, name="tenants")

KEY_COLUMNS = ("id", "tenant", "name", "prefix", "scopes", "state", "created_at", "expires_at")


def _cell(key: dict[str, Any], column: str) -> Any:
    value = key.get(column)
    if column == "scopes":
        return ",".join(value or [])
    if column.endswith("_at") and isinstance(value, str):
        return value[:16].replace("T", " ")  # to the minute, UTC
    return value


def _keys_table(doc: dict[str, Any]) -> None:
    output.table(None, KEY_COLUMNS, [[_cell(k, c) for c in KEY_COLUMNS] for k in doc["items"]])


def _key_fields(doc: dict[str, Any]) -> None:
    output.fields({c: _cell(doc, c) for c in doc}, (*KEY_COLUMNS, "revoked_at", "key"), title="key")


@keys.command("create")
def keys_create(
    tenant: Annotated[str, typer.Option(help="The tenant the key acts as (created if new).")],
    scope: Annotated[
        list[str] | None,
        typer.Option(help="read, write or admin; repeat for several (default: read and write)."),
    ] = None,
    name: Annotated[str | None, typer.Option(help="What the key is for, shown in lists.")] = None,
    expires_in_days: Annotated[
        float | None, typer.Option(help="The key stops working this many days from now (default: never).")
    ] = None,
) -> None:
    """Create a key and print it: it is shown this once."""
    from sal_client.api.admin import create_key
    from sal_client.models import KeyCreate, KeyCreateScopesItem
    from sal_client.types import UNSET

    try:
        scopes = [KeyCreateScopesItem(s) for s in (scope or ["read", "write"])]
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--scope") from None
    body = KeyCreate(
        tenant=tenant,
        scopes=scopes,
        name=name if name is not None else UNSET,
        expires_in_days=expires_in_days if expires_in_days is not None else UNSET,
    )
    created = call(create_key, body=body).to_dict()
    show(created, _key_fields)
    typer.echo(
        "Store the key now: it is not shown again. Send it as 'Authorization: Bearer <key>'.", err=True
    )


@keys.command("list")
def keys_list(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's keys.")] = None,
    state: Annotated[str | None, typer.Option(help="Only keys that are active, revoked or expired.")] = None,
) -> None:
    """List keys, oldest first (never the keys themselves)."""
    from sal_client.api.admin import list_keys
    from sal_client.models import ListKeysStateType0
    from sal_client.types import UNSET

    try:
        state_ = ListKeysStateType0(state) if state is not None else UNSET
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--state") from None
    show(call(list_keys, tenant=tenant if tenant is not None else UNSET, state=state_).to_dict(), _keys_table)


@keys.command("revoke")
def keys_revoke(key_id: str) -> None:
    """Revoke a key: it stops working at once, and its open event streams end within seconds."""
    from sal_client.api.admin import revoke_key

    show(call(revoke_key, key_id).to_dict(), _key_fields)


@tenants.command("erase")
def tenants_erase(
    name: str,
    yes: Annotated[bool, typer.Option("--yes", help="Erase without asking (there is no undo).")] = False,
) -> None:
    """Erase a tenant: its jobs, results, weights, sweeps, datasets, idempotency records and keys
    (refused while its jobs run). Prints the rows deleted per table."""
    from urllib.parse import quote

    if not yes and not typer.confirm(f"Erase tenant {name!r} and everything it stored?", err=True):
        fail("not erased")
    counts = raw("DELETE", f"/admin/tenants/{quote(name, safe='')}")
    show(
        counts,
        lambda d: output.table(
            f"erased tenant {name}", ["table", "rows"], [[t, n] for t, n in d.items() if n]
        ),
    )
