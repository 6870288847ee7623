"""`vap variables list`, `vap voices list`, `vap templates list|show`: what the account reads."""

from __future__ import annotations

import click

from vap_console.scripting.base import (
    EXIT_REFUSED,
    Failure,
    Session,
    call,
    common,
    emit_json,
    emit_pairs,
    emit_rows,
    example,
)


@click.group(epilog=example("vap variables list --json"))
def variables() -> None:
    """Prompt variables."""


@variables.command("list", epilog=example("vap variables list"))
@common
def variables_list(session: Session) -> None:
    """Every variable: name, default, the tool output that feeds it."""
    page, raw = call(session, lambda c: c.list_variables())
    if session.as_json:
        return emit_json(raw["items"])
    rows = [[v.name, v.default_value, v.tool_output, v.tool_id] for v in page.items]
    emit_rows(session, ["NAME", "DEFAULT", "TOOL OUTPUT", "TOOL"], rows, empty="No variables.")


@click.group(epilog=example("vap voices list"))
def voices() -> None:
    """Voice engines and their voices."""


@voices.command("list", epilog=example("vap voices list --json"))
@common
def voices_list(session: Session) -> None:
    """Every engine: whether it takes phone calls, its languages and preset voices."""
    from vap_console.api.voices import steering

    catalog, raw = call(session, lambda c: c.list_voices())
    if session.as_json:
        return emit_json(raw)
    rows = [[e.id + (" (default)" if e.id == catalog.default_model else ""), e.label,
             not e.disabled, e.phone_calls, steering(e), ", ".join(lang.id for lang in e.languages),
             ", ".join(e.voices)] for e in catalog.models]
    emit_rows(session, ["ENGINE", "LABEL", "ENABLED", "PHONE", "STEERED BY", "LANGUAGES", "VOICES"],
              rows, empty="No voice engines.")


@click.group(epilog=example("vap templates show clinic-receptionist"))
def templates() -> None:
    """Agent templates."""


@templates.command("list", epilog=example("vap templates list"))
@common
def templates_list(session: Session) -> None:
    """Every template: slug, name, voice engine, description."""
    page, raw = call(session, lambda c: c.list_templates())
    if session.as_json:
        return emit_json(raw["items"])
    rows = [[t.slug, t.name, t.tts_config.model, t.description] for t in page.items]
    emit_rows(session, ["SLUG", "NAME", "ENGINE", "DESCRIPTION"], rows, empty="No templates.")


@templates.command("show", epilog=example("vap templates show clinic-receptionist --json"))
@click.argument("slug")
@common
def templates_show(session: Session, slug: str) -> None:
    """One template with its prompt, greeting and voice settings."""
    page, raw = call(session, lambda c: c.list_templates())
    index = next((i for i, t in enumerate(page.items) if slug in (t.slug, t.id)), None)
    if index is None:
        raise Failure(f"not_found: no template {slug}; `vap templates list` lists them", EXIT_REFUSED)
    if session.as_json:
        return emit_json(raw["items"][index])
    t = page.items[index]
    tts = t.tts_config.model_dump(exclude_none=True)
    emit_pairs(session, [("slug", t.slug), ("id", t.id), ("name", t.name), ("description", t.description),
                         ("greeting", t.greeting), ("system instruction", t.system_instruction),
                         *((f"tts {k}", v) for k, v in tts.items())])
