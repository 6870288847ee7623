"""`vap tools …`: list, show, create from a JSON file (checked with the console form's rules), delete;
`try` is in tool_try.py."""

from __future__ import annotations

import click

from vap_console.scripting.base import (
    EXIT_REFUSED,
    EXIT_USAGE,
    Failure,
    Session,
    call,
    common,
    emit_json,
    emit_pairs,
    emit_rows,
    example,
    say,
)
from vap_console.scripting.output import Fit


@click.group(epilog=example("vap tools show lookup_customer --json"))
def tools() -> None:
    """HTTP tools: list, show, create, delete, try (call the webhook)."""


@tools.command("list", epilog=example("vap tools list | cut -f1"))
@common
def list_(session: Session) -> None:
    """Every tool: id, name, kind, method, URL (built-in tools are marked)."""
    page, raw = call(session, lambda c: c.list_tools())
    if session.as_json:
        return emit_json(raw["items"])
    rows = [[t.id, t.name, t.kind, t.config.method, t.config.url, "yes" if t.builtin else "no"]
            for t in page.items]
    emit_rows(session, ["ID", "NAME", "KIND", "METHOD", "URL", "BUILT-IN"], rows,
              empty="No tools yet: `vap tools create --file tool.json` creates one.",
              fit=Fit("ID", drop=("BUILT-IN", "KIND", "METHOD")))


@tools.command(epilog=example("vap tools show lookup_customer"))
@click.argument("tool_id", metavar="ID")
@common
def show(session: Session, tool_id: str) -> None:
    """One tool (its credential never: auth shows only whether one is stored)."""
    page, raw = call(session, lambda c: c.list_tools())
    index = next((i for i, t in enumerate(page.items) if tool_id in (t.id, t.name)), None)
    if index is None:
        raise Failure(f"agent_tool_not_found: no tool {tool_id} on this account", EXIT_REFUSED)
    if session.as_json:
        return emit_json(raw["items"][index])
    t = page.items[index]
    auth = t.config.auth
    pairs: list[tuple[str, object]] = [
        ("id", t.id), ("name", t.name), ("kind", t.kind), ("description", t.description),
        ("method", t.config.method), ("url", t.config.url), ("timeout ms", t.config.timeout_ms),
        ("wait for response", t.config.wait_for_response),
        ("auth", auth.type if auth else "none"), ("auth hasSecret", auth.has_secret if auth else False),
    ]
    pairs += [(f"param {p.name}", p.value) for p in t.config.params]
    pairs += [(f"header {h.name}", h.value) for h in t.config.headers]
    pairs += [(f"output {o.name}", o.path) for o in t.config.outputs]
    pairs.append(("built-in", t.builtin))
    emit_pairs(session, pairs)


@tools.command(epilog=example(
    "vap tools create --file tool.json",
    "The file is the API's body for POST /v1/tools: {\"name\", \"description\", \"kind\", "
    "\"config\": {\"method\", \"url\", \"params\", \"headers\", \"body\", \"timeoutMs\", \"auth\", "
    "\"llmParams\", \"outputs\"}}. It is checked with the console's tool-form rules first: a "
    "problem names the field and nothing is sent."))
@click.option("--file", "path", required=True, metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True),
              help="The tool as JSON; - reads stdin.")
@common
def create(session: Session, path: str) -> None:
    """Create a tool from a JSON file."""
    from vap_console.api.tool_rules import check_tool_document
    from vap_console.scripting.rent import read_json

    body, problems = check_tool_document(read_json(path, "tool file"))
    if body is None:
        listed = "; ".join(f"{field}: {', '.join(msgs)}" for field, msgs in problems.items())
        raise Failure(f"tool file {path}: {listed}; nothing was sent", EXIT_USAGE)
    tool, raw = call(session, lambda c: c.create_tool(body))
    if session.as_json:
        return emit_json(raw)
    say(f"Created tool {tool.name}.")
    click.echo(tool.id)


@tools.command(epilog=example("vap tools delete a23194c9-e643-5204-af92-5245d497b3bf"))
@click.argument("tool_id", metavar="ID")
@common
def delete(session: Session, tool_id: str) -> None:
    """Delete a tool (variables it fed fall back to their defaults)."""
    call(session, lambda c: c.delete_tool(tool_id))
    if not session.as_json:  # the API answers a delete with no body: --json prints nothing
        say(f"Deleted tool {tool_id}.")


def _add_try() -> None:
    # Its own module (the builder, the webhook sender and the report); its heavy imports wait
    # until it runs.
    from vap_console.scripting.tool_try import try_

    tools.add_command(try_, "try")


_add_try()
