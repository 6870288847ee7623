"""`vap variables list`, `vap voices list|say`, `vap templates list|show`: what the account reads,
and the one thing here that costs money, a voice sample (`vap voices say`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from vap_console.scripting.base import (
    EXIT_REFUSED,
    EXIT_USAGE,
    Failure,
    Session,
    ask_money,
    call,
    common,
    confirm_money,
    emit_json,
    emit_pairs,
    emit_rows,
    example,
    say,
)
from vap_console.scripting.output import Fit


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
    emit_rows(session, ["NAME", "DEFAULT", "TOOL OUTPUT", "TOOL"], rows, empty="No variables.",
              fit=Fit("NAME", drop=("TOOL", "TOOL OUTPUT")))


@click.group(epilog=example("vap voices list"))
def voices() -> None:
    """Voice engines and their voices: list, say (a sample)."""


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
              rows, empty="No voice engines.",
              fit=Fit("ENGINE", drop=("LABEL", "PHONE", "ENABLED", "STEERED BY", "LANGUAGES")))


SAY_EXAMPLE = 'vap voices say "[happy] Namaste! Aapka appointment confirm ho gaya hai." --model muga -o namaste.wav'


@voices.command("say", epilog=example(
    SAY_EXAMPLE,
    "Writes a 24 kHz mono 16-bit WAV to FILE, or to stdout when it is piped (`| aplay`); never to a "
    "terminal. muga's TEXT may start with one tone tag ([neutral], [happy], [sad], [excited], "
    "[angry], [whisper]; plain text is fine too); mulberry takes --speaker speaker_1..speaker_4 or "
    "--description; mulberry-1.6 --speaker ira, aisha, siya or zoya. Every sample is kept in the "
    "user's cache folder: the same one again sends nothing.",
    "Costs money on the real service (per character): it says so and asks on a terminal (No by "
    "default); without a terminal it needs --yes. On a sandbox (a base URL on this machine) it is "
    "free and asks nothing.",
))
@click.argument("text", metavar="TEXT")
@click.option("--model", required=True, metavar="MODEL", help="muga, mulberry or mulberry-1.6.")
@click.option("--speaker", metavar="S", help="A preset voice (mulberry, mulberry-1.6).")
@click.option("--description", metavar="D", help="The voice in words (mulberry only).")
@click.option("-o", "--output", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the WAV (default: stdout, when it is not a terminal).")
@click.option("--yes", is_flag=True, help="Do not ask before a paid request (needed without a terminal).")
@common
def voices_say(session: Session, text: str, model: str, speaker: str | None, description: str | None,
               output: Path | None, yes: bool) -> None:
    """Say TEXT in a voice: a WAV sample of it, to judge the voice before choosing it."""
    from vap_console.api.sample_cache import SampleCache
    from vap_console.api.speech import price_rupees, speech_problems, wav_info
    from vap_console.cleartext import is_this_machine

    problems = speech_problems(text, model, speaker, description)
    if problems:
        raise Failure("nothing was sent: " + "; ".join(str(p) for p in problems), EXIT_USAGE)
    to_stdout = output is None or str(output) == "-"
    if to_stdout and session.as_json:
        raise Failure("--json prints the sample's details on stdout: pass -o FILE for the audio. "
                      "Nothing was sent", EXIT_USAGE)
    if to_stdout and session.on_terminal:
        raise Failure("refusing to write binary audio to a terminal: pass -o FILE, or pipe it "
                      "(`| aplay`). Nothing was sent", EXIT_USAGE)
    client = session.client()
    cache = SampleCache()
    path = cache.path_for(f"{session.resolved_profile}@{client.base_url}", model, speaker, description, text)
    data = cache.get(path)
    cached = data is not None
    if data is None:
        import httpx

        if not is_this_machine(httpx.URL(client.base_url).host):
            price = price_rupees(model, len(text))
            cost = f"a voice sample of {len(text):,} characters of {model}" + (
                f", about ₹{price:,.2f} (prices are not published; an estimate)" if price is not None else "")
            confirm_money(session, "vap voices say", yes=yes)
            ask_money(session, cost, yes=yes)

        async def go() -> bytes:
            async with client:
                return await client.synthesize(text, model, speaker=speaker, description=description)

        data = asyncio.run(go())
        cache.put(path, data)
    if to_stdout:
        out = sys.stdout.buffer
        out.write(data)
        out.flush()
        where = "stdout"
    else:
        assert output is not None
        try:
            output.write_bytes(data)
        except OSError as exc:
            raise Failure(f"-o {output}: cannot write it ({exc.strerror or exc})", EXIT_USAGE) from None
        where = str(output)
    seconds = wav_info(data).seconds
    if session.as_json:
        return emit_json({"path": where, "duration": round(seconds, 3), "bytes": len(data), "cached": cached,
                          "model": model, "sampleRate": 24_000, "cache": str(path)})
    say(f"Wrote {where}: {seconds:.2f} s, {len(data):,} bytes" +
        (" (from the cache: nothing sent)" if cached else ""))


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
    emit_rows(session, ["SLUG", "NAME", "ENGINE", "DESCRIPTION"], rows, empty="No templates.",
              fit=Fit("SLUG", drop=("ENGINE",)))


@templates.command("show", epilog=example("vap templates show clinic-receptionist --json"))
@click.argument("slug", metavar="SLUG")
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
