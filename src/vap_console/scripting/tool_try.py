"""`vap tools try NAME|ID` (or `--all`): a tool's webhook called as the platform calls it, and checked.

The request comes from api/tool_call.py (the spec's placeholder rule, the auth header), goes out
through api/tool_webhook.py (the tool's timeout, no redirects, a read cap, never the platform's
key) and is judged by api/tool_result.py. Everything is checked before anything is sent: an
option that names nothing, a placeholder nothing fills, a missing secret variable are exit 2 with
nothing sent. Exit 0 when every contract holds, 1 when one does not. docs/tools.md.

The secret is the person's (the platform never returns it): from ``--secret-env VAR`` or asked
hidden on a terminal; it is masked in every line, JSON document and JUnit file, and written nowhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from vap_console.literal import clean
from vap_console.scripting.base import (
    EXIT_REFUSED,
    EXIT_USAGE,
    Failure,
    Session,
    common,
    emit_json,
    emit_pairs,
    emit_rows,
    example,
    say,
)
from vap_console.scripting.output import Fit

if TYPE_CHECKING:
    from vap_console.api.tool_call import Sources, ToolRequest
    from vap_console.api.tool_result import TryResult
    from vap_console.api.tool_view import AnyTool as Tool
    from vap_console.api.tool_view import AnyVariable as Variable


def _pairs(option: str, given: tuple[str, ...]) -> dict[str, str]:
    """``k=v`` options as a dict; Failure (exit 2) naming the option for one without ``=``."""
    out: dict[str, str] = {}
    for item in given:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise Failure(f"{option} {item}: write NAME=VALUE; nothing was sent", EXIT_USAGE)
        out[name.strip()] = value
    return out


@click.command("try", epilog=example(
    "vap tools try lookup_customer --dry-run",
    "Placeholders are filled as the platform fills them: the model's arguments (--arg, one per "
    "llmParams entry), then the account's variables (their defaults; --var overrides), then the "
    "call's context ({call_id}, {agent_id}, {phone_number}: --context, else plain stand-ins). A "
    "placeholder nothing fills is an error before anything is sent. The tool's secret is write-only "
    "on the platform: give it with --secret-env VAR (or type it when asked on a terminal); without "
    "it the request goes without its auth header. Exit 0: the contract holds (a 2xx within "
    "timeoutMs, a JSON body where there are outputs, every output path present); 1: it does not; "
    "2: an option is wrong (nothing sent). CI: vap tools try --all --junit out.xml. docs/tools.md"))
@click.argument("tool_ref", metavar="NAME|ID", required=False)
@click.option("--all", "every", is_flag=True, help="Every tool of the account but the built-in ones.")
@click.option("--arg", "args", multiple=True, metavar="NAME=VALUE", help="An argument the model would give.")
@click.option("--var", "variables", multiple=True, metavar="NAME=VALUE",
              help="A variable's value instead of its default.")
@click.option("--context", "context", multiple=True, metavar="NAME=VALUE",
              help="call_id, agent_id or phone_number for this try.")
@click.option("--secret-env", "secret_envs", multiple=True, metavar="[TOOL=]VAR",
              help="Read the tool's secret from this environment variable (TOOL= for one tool of --all).")
@click.option("--dry-run", is_flag=True, help="Print the request and send nothing.")
@click.option("--junit", "junit_path", metavar="PATH", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write JUnit XML: a test case per tool.")
@common
def try_(session: Session, tool_ref: str | None, every: bool, args: tuple[str, ...], variables: tuple[str, ...],
         context: tuple[str, ...], secret_envs: tuple[str, ...], dry_run: bool, junit_path: Path | None) -> None:
    """Call a tool's webhook as the platform would, and check its answer against the tool."""
    from vap_console.api.tool_call import CONTEXT_PARAMS

    if bool(tool_ref) == every:
        raise Failure("name one tool (NAME or ID) or give --all; nothing was sent", EXIT_USAGE)
    if junit_path is not None and dry_run:
        raise Failure("--junit records what was sent: it does not go with --dry-run", EXIT_USAGE)
    if junit_path is not None and not junit_path.parent.is_dir():
        raise Failure(f"--junit: the folder {junit_path.parent} does not exist; nothing was sent", EXIT_USAGE)
    arguments, overrides, ctx = _pairs("--arg", args), _pairs("--var", variables), _pairs("--context", context)
    for name in ctx:
        if name not in CONTEXT_PARAMS:
            raise Failure(f"--context {name}: the context params are {', '.join(CONTEXT_PARAMS)}; nothing was sent",
                          EXIT_USAGE)
    secrets = _secrets(secret_envs)
    tools, account_vars = _load(session)
    chosen = _choose(tools, tool_ref)
    for target in secrets:
        if target is not None and target not in {t.name for t in chosen}:
            raise Failure(f"--secret-env {target}=…: {target} is not a tool being tried; nothing was sent",
                          EXIT_USAGE)
    _check_names(chosen, arguments, overrides, account_vars)
    sources = _sources(arguments, overrides, ctx, account_vars)
    requests = _build(session, chosen, sources, secrets, ask=not every and not dry_run)
    if dry_run:
        return _show_dry(session, chosen, requests, every)
    results = _send_all(chosen, requests)
    _report(session, results, every)
    if junit_path is not None:
        from vap_console.scripting.tool_junit import junit

        try:
            junit_path.write_text(junit(results), encoding="utf-8")
        except OSError as exc:
            raise Failure(f"--junit: cannot write {junit_path} ({exc.strerror})", EXIT_USAGE) from None
    failed = [r for r in results if not r.ok]
    if every:
        summary = f"{len(results)} tool{'s' if len(results) != 1 else ''} tried: " \
                  f"{len(results) - len(failed)} held, {len(failed)} did not"
        if failed:
            raise Failure(summary, EXIT_REFUSED)
        say(summary + ".")
    elif failed:
        raise Failure(failed[0].verdict(), EXIT_REFUSED)


def _secrets(given: tuple[str, ...]) -> dict[str | None, str]:
    """``--secret-env`` read now: {tool name or None for every tool: the secret}."""
    out: dict[str | None, str] = {}
    for item in given:
        tool, sep, var = item.rpartition("=")
        if not var or (sep and not tool):
            raise Failure(f"--secret-env {item}: write VAR or TOOL=VAR; nothing was sent", EXIT_USAGE)
        value = os.environ.get(var, "")
        if not value:
            raise Failure(f"--secret-env {var}: that environment variable is not set or empty; nothing was sent",
                          EXIT_USAGE)
        out[tool or None] = value
    return out


def _load(session: Session) -> tuple[list[Tool], list[Variable]]:
    """The account's tools and variables, fetched together; read without pydantic when the answers
    are plainly well-formed (api/tool_view.py: its import and models were ~200 ms of a try), else
    by the models, as `vap tools list` reads them."""
    import asyncio

    from vap_console.api import errors, models, tool_view

    client = session.client()

    async def tools() -> list[Tool]:
        got = await client.get_light("/v1/tools", tool_view.tools_page, lambda: models.Page[models.Tool],
                                     extension=True)
        return list(got if isinstance(got, list) else got.items)

    async def variables() -> list[Variable]:
        got = await client.get_light("/v1/variables", tool_view.variables_page,
                                     lambda: models.Page[models.Variable])
        return list(got if isinstance(got, list) else got.items)

    async def go() -> tuple[list[Tool], list[Variable]]:
        async with client:
            return await asyncio.gather(tools(), variables())

    try:
        return asyncio.run(go())
    except errors.NotSupported:
        raise Failure("this server does not list tools (GET /v1/tools), which `vap tools try` reads the tool "
                      "from; nothing was sent", EXIT_REFUSED) from None


def _choose(tools: list[Tool], ref: str | None) -> list[Tool]:
    if ref is None:
        return [t for t in tools if not t.builtin]
    found = next((t for t in tools if ref in (t.id, t.name)), None)
    if found is None:
        raise Failure(f"agent_tool_not_found: no tool {ref} on this account", EXIT_REFUSED)
    return [found]


def _check_names(tools: list[Tool], arguments: dict[str, str], overrides: dict[str, str],
                 account_vars: list[Variable]) -> None:
    """An --arg no chosen tool takes, or a --var the account does not have: a typo, refused."""
    from vap_console.api.tool_call import llm_param_names, unknown_names

    params = [p for t in tools for p in llm_param_names(t)]
    for name in unknown_names(arguments, params):
        takes = ", ".join(dict.fromkeys(params)) or "none"
        raise Failure(f"--arg {name}: no llmParams entry of that name (arguments taken: {takes}); nothing was sent",
                      EXIT_USAGE)
    for name in unknown_names(overrides, (v.name for v in account_vars)):
        raise Failure(f"--var {name}: no variable of that name on this account; nothing was sent", EXIT_USAGE)


def _sources(arguments: dict[str, str], overrides: dict[str, str], ctx: dict[str, str],
             account_vars: list[Variable]) -> Sources:
    from vap_console.api.tool_call import CONTEXT_STAND_INS, Sources

    values = {v.name: v.default_value for v in account_vars} | overrides
    return Sources(arguments, values, {**CONTEXT_STAND_INS, **ctx})


def _build(session: Session, tools: list[Tool], sources: Sources, secrets: dict[str | None, str],
           *, ask: bool) -> list[ToolRequest]:
    """Every request, built before any is sent: each problem named, exit 2, nothing sent."""
    from vap_console.api.tool_call import (
        BadHeader,
        UnfilledPlaceholders,
        auth_kind,
        build_request,
        sources_for,
    )

    problems: list[str] = []
    requests: list[ToolRequest] = []
    for tool in tools:
        secret = secrets.get(tool.name, secrets.get(None))
        kind = auth_kind(tool)
        if secret is None and kind != "none" and ask and session.can_ask:
            # The name and kind come from the server: shown literally, as every other line.
            secret = click.prompt(clean(f"{tool.name}'s {kind} secret (not shown; Enter sends without it)",
                                        multiline=False),
                                  hide_input=True, default="", show_default=False, err=True) or None
        # Each tool gets only the arguments its own llmParams name (--all shares the options).
        own = sources_for(tool, sources.arguments, sources.variables, sources.context)
        try:
            requests.append(build_request(tool, own, secret))
        except UnfilledPlaceholders as exc:
            hints = ", ".join(_hint(tool, token) for token in exc.where)
            problems.append(f"{exc} (give {hints})")
        except BadHeader as exc:
            problems.append(str(exc))
        except ValueError as exc:  # an auth type the console cannot send
            problems.append(f"tool {tool.name}: {exc}")
    if problems:
        raise Failure("; ".join(problems) + "; nothing was sent", EXIT_USAGE)
    return requests


def _hint(tool: Tool, token: str) -> str:
    from vap_console.api.tool_call import llm_param_names

    option = "--arg" if token in llm_param_names(tool) else "--var"
    return f"{option} {token}=…"


def _send_all(tools: list[Tool], requests: list[ToolRequest]) -> list[TryResult]:
    import asyncio

    from vap_console.api import tool_webhook
    from vap_console.api.tool_result import judge

    async def go() -> list[TryResult]:
        async with tool_webhook.webhook_client(plain=tool_webhook.plain_only(requests)) as client:
            return [judge(t, r, await tool_webhook.send(r, client)) for t, r in zip(tools, requests, strict=True)]

    return asyncio.run(go())


# --- printing ---


def _request_pairs(request: ToolRequest) -> list[tuple[str, object]]:
    from vap_console.api.tool_webhook import full_url

    pairs: list[tuple[str, object]] = [("tool", request.tool), ("request", f"{request.method} {full_url(request)}")]
    pairs += [(f"header {n}", v) for n, v in request.shown_headers()]
    if request.body:
        pairs.append(("body", request.body))
    pairs.append(("timeout", f"{request.timeout_ms} ms"
                  + ("" if request.wait_for_response else " (waitForResponse false: not waited for)")))
    if request.secret_missing:
        pairs.append(("auth", f"{request.auth_kind}: no secret given (--secret-env VAR): sent without it"))
    elif request.auth_kind != "none":
        pairs.append(("auth", f"{request.auth_kind}: secret given, shown masked"))
    pairs += [(f"filled {{{f.token}}}", f"{f.value}  ({f.source})") for f in request.filled]
    return pairs


def _show_dry(session: Session, tools: list[Tool], requests: list[ToolRequest], every: bool) -> None:
    if session.as_json:
        wires = [{"tool": {"id": t.id, "name": t.name, "kind": t.kind}, "request": r.wire(), "sent": False}
                 for t, r in zip(tools, requests, strict=True)]
        return emit_json({"tools": wires} if every else wires[0])
    for n, request in enumerate(requests):
        if n:
            click.echo()
        emit_pairs(session, _request_pairs(request))
    say(f"--dry-run: nothing was sent ({len(requests)} request{'s' if len(requests) != 1 else ''}).")


def _report(session: Session, results: list[TryResult], every: bool) -> None:
    if session.as_json:
        wires = [r.wire() for r in results]
        emit_json({"ok": all(r.ok for r in results), "tools": wires} if every else wires[0])
        return
    for n, result in enumerate(results):
        if n:
            click.echo()
        _show(session, result)
        if every or result.ok:
            say(result.verdict())


def _show(session: Session, result: TryResult) -> None:
    answer = result.answer
    assert answer is not None
    mask = result.request.mask
    # One block, request then answer, so the values line up on a terminal.
    pairs = _request_pairs(result.request)
    if answer.status is not None:
        pairs.append(("status", f"{answer.status} {answer.reason}".strip()))
    elif answer.waited or answer.failure:
        pairs.append(("status", mask(f"no answer: {answer.failure or 'none'}")))
    else:
        pairs.append(("status", "sent; the answer is not waited for (waitForResponse false)"))
    pairs.append(("time", f"{answer.ms:.0f} ms of {result.request.timeout_ms} ms (timeoutMs)"))
    pairs += [(f"answer {name}", mask(value)) for name, value in answer.headers]
    body, cut = result.body_text()
    if answer.status is not None:
        more = ", cut for showing" if cut and not answer.over_cap else ""
        pairs.append(("answer body", result.body_summary() + more))
    emit_pairs(session, pairs)
    if body:
        # The webhook's text, shown literally: control characters visible, never run.
        click.echo(clean(body).rstrip("\n") + ("\n…" if cut else ""))
    if result.outputs:
        rows = [[o.name, o.path or "(the whole answer)", o.value if o.found else "missing", o.name]
                for o in result.outputs]
        emit_rows(session, ["OUTPUT", "PATH", "VALUE", "FILLS VARIABLE"], [[mask(str(c)) for c in r] for r in rows],
                  empty="", fit=Fit("OUTPUT", drop=("FILLS VARIABLE", "PATH")))

