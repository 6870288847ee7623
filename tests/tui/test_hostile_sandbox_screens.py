"""Every screen of the console on a sandbox whose every string carries terminal control
(`--faults hostile_text=1`: OSC 52, CSI, C1, a bidi override, NUL and U+FFFF in every name, id,
status, reason, role, key and transcript, over HTTP and on the agent socket): what Textual draws
holds no raw control character. The areas and each row's detail, a web call's credentials, an
outbound call followed in Calls with its transcript, and a Talk call with its turn labels."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui.console_scenes import SCENES, build_console, until, web_call
from tests.tui.talk_console import talk_console
from tests.tui.test_calls_screen import calls_screen, place
from tests.tui.test_hostile import shown
from vap_console.tui.screens.calls import CallsScreen
from vap_console.tui.screens.rental import RentalScreen
from vap_console.tui.screens.talk import TalkScreen
from vap_console.tui.widgets.rows import RowTable

SIZE = (120, 36)
AREAS = {"1": "numbers", "2": "tools", "3": "variables", "4": "voices", "5": "templates", "6": "agents"}
HOSTILE = "hostile_text=1"
STAND_IN = "␛]52;c;"  # the fault's OSC 52, as the console shows it


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CallsScreen, "POLL_SECONDS", 0.05)


# A call whose status the console does not know is read again and again: not awaited.
POLLING = {"poll", "rental-poll", "rental-resume"}


async def walk_rows(pilot: Pilot, where: str) -> list[str]:
    rows = pilot.app.screen.query_one(RowTable)
    assert rows.total_count > 0, f"{where}: no rows"
    seen = [await shown(pilot, where, POLLING)]
    for n in range(min(rows.total_count, 8)):
        rows.cursor = n  # each row's detail pane in turn
        seen.append(await shown(pilot, f"{where} row {n}", POLLING))
    return seen


@pytest.mark.parametrize("key", sorted(AREAS), ids=AREAS.get)
async def test_every_area_and_each_rows_detail_show_no_raw_control(key: str) -> None:
    console = build_console(faults=HOSTILE)
    async with console.app.run_test(size=SIZE) as pilot:
        await pilot.press(key)
        seen = await walk_rows(pilot, AREAS[key])
    assert STAND_IN in "".join(seen)  # the hostile text was on screen, shown


async def test_a_web_call_and_an_outbound_call_in_calls_show_no_raw_control(tmp_path: Path) -> None:
    console = build_console(start_screen="agents", index_dir=tmp_path / "index", faults=HOSTILE)
    async with console.app.run_test(size=SIZE) as pilot:
        await shown(pilot, "agents", POLLING)
        # A web call's credentials (server text the person copies).
        await web_call(pilot)
        seen = [await shown(pilot, "web call", POLLING)]
        await pilot.press("escape")
        # An outbound call, followed in Calls to its transcript (roles and words hostile).
        await shown(pilot, "agents", POLLING)
        await place(pilot, console, "+919812340001")
        console.clock.advance(60)
        await until(pilot, lambda: any(e.transcript for e in calls_screen(pilot.app).items.values()))
        seen += await walk_rows(pilot, "calls")
    assert STAND_IN in "".join(seen)


async def test_a_talk_call_shows_the_servers_roles_and_words_literally() -> None:
    with talk_console(HOSTILE) as talk:
        async with talk.app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: talk.app.screen.query(RowTable) and talk.app.screen.query_one(RowTable).row_count)
            await pilot.press("t")
            await until(pilot, lambda: talk.app.screen.__class__.__name__ == "TalkConfirm")
            await pilot.press("y")
            await until(pilot, lambda: isinstance(talk.app.screen, TalkScreen))
            # The agent has started its greeting (on the sandbox clock), then has said it whole.
            await until(pilot, lambda: talk.screen.talk.live is not None or talk.screen.ended)
            talk.clock.advance(30)
            # Said under a role the console does not know, the greeting's words are a turn of
            # their own (held while the agent's turn, which never settles, is arriving).
            await until(pilot, lambda: talk.screen.talk.turns or talk.screen.talk.held)
            drawn = await shown(pilot, "talk", POLLING | {"talk-call", "talk-audio", "talk-mic"})
            # The role is the server's word here: its label shows it, with its control visible.
            assert f"{STAND_IN}" in drawn and "Assistant" in drawn, drawn


@pytest.mark.parametrize("name", sorted(SCENES))
async def test_every_scene_on_the_hostile_sandbox_shows_no_raw_control(name: str) -> None:
    """Every scene of the snapshot tests (each area, empty and failed, every dialog and state)."""
    scene = SCENES[name]
    console = build_console(start_screen=scene.start, api_key=scene.api_key, empty=scene.empty,
                            transport_wrapper=scene.transport_wrapper, faults=HOSTILE)
    async with console.app.run_test(size=SIZE) as pilot:
        if name == "rental":
            # Its steps wait for every worker to end; a rental whose status the console does not
            # know is followed for ever, so the same keys are pressed here without that wait.
            await shown(pilot, "numbers", POLLING)
            await pilot.press("down", "down", "down", "enter")
            await until(pilot, lambda: isinstance(pilot.app.screen, RentalScreen))
        else:
            await scene.run(pilot)
        await shown(pilot, name, POLLING)
