"""Audio saved from Talk (ctrl+s) and from Calls (s) is named after the call id the server gave,
checked first (local_files.name_part): an id with ``../`` writes nothing outside the folder, an
id with NUL does not stop the console, and both screens name a call's audio the same way."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.console_scenes import until
from tests.tui.talk_console import talk_console
from vap_console.local_files import call_audio_name, name_part
from vap_console.sandbox.keys import KEYS


@pytest.mark.parametrize("call_id", ["../../escaped", "bad\x00id", "/etc/passwd", "..", "a b\x1b[31m", ""])
def test_a_name_part_is_a_plain_word_whatever_the_server_said(call_id: str) -> None:
    part = name_part(call_id)
    assert part and part[0].isalnum() and all(c.isalnum() or c in "_-" for c in part)
    assert "/" not in call_audio_name(call_id, "agent") and "\x00" not in call_audio_name(call_id, "agent")


def test_a_plain_call_id_names_the_file_as_it_is() -> None:
    uuid = "66f4cf40-e120-5f9c-a804-19221f0e3bcb"
    assert call_audio_name(uuid, "agent") == f"vap-call-{uuid}-agent.wav"
    assert call_audio_name(uuid, "recording") == f"vap-call-{uuid}-recording.wav"
    # Two hostile ids never share a name.
    assert name_part("../a") != name_part("../b")


@pytest.fixture
def inside(tmp_path: Path) -> Iterator[Path]:
    """A folder two levels down, so that ``../../`` would leave it and land in ``tmp_path``."""
    folder = tmp_path / "one" / "two"
    folder.mkdir(parents=True)
    yield folder


@pytest.mark.parametrize("hostile", ["../../escaped", "call\x00id"])
async def test_ctrl_s_saves_inside_the_folder_whatever_call_id_the_server_gives(
        hostile: str, tmp_path: Path, inside: Path) -> None:
    with talk_console() as console:
        account = console.sandbox.state.account(KEYS[0])
        own = account.next_id
        account.next_id = lambda kind: hostile if kind == "call" else own(kind)  # type: ignore[method-assign]
        async with console.app.run_test(size=(120, 36)) as pilot:
            screen = await console.talking(pilot)
            assert screen.talk.call_id == hostile
            await console.save_audio_to(pilot, inside, 0.5)
            await until(pilot, lambda: list(inside.iterdir()))
            [saved] = list(inside.iterdir())
            assert saved.name == f"vap-call-{name_part(hostile)}-agent.wav"
            assert stat.S_IMODE(os.stat(saved).st_mode) == 0o600
            # Nothing landed where ../../ points, and the call is still on.
            assert sorted(p.name for p in tmp_path.iterdir()) == ["one"]
            assert console.app.is_running and not screen.ended


async def test_the_saved_toast_shows_the_folder_literally(tmp_path: Path) -> None:
    # The folder is the person's, the name part the server's: markup in it is text, and a control
    # character shows as a visible stand-in, never reaching the terminal.
    folder = tmp_path / "[bold]loud\x1b[31mred"
    folder.mkdir()
    with talk_console() as console:
        async with console.app.run_test(size=(120, 36)) as pilot:
            await console.talking(pilot)
            await console.save_audio_to(pilot, folder, 0.5)
            await until(pilot, lambda: list(folder.iterdir()) and list(console.app._notifications))
            said = [n for n in console.app._notifications if "Saved" in n.message]
            assert said and not said[0].markup
            assert "[bold]loud␛[31mred" in said[0].message and "\x1b" not in said[0].message
