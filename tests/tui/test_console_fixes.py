"""QA's defects on the console, each as the person who found it would check it again."""

from __future__ import annotations

import asyncio
import io
import re

import httpx
from rich.console import Console
from textual.widgets import Button, Static

from tests.tui.console_scenes import (
    build_console,
    click,
    console_with_outage,
    run_from_palette,
    settle,
    until,
    web_call,
)
from vap_console.tui.screens.agents import AgentsScreen
from vap_console.tui.screens.dialog import Confirm
from vap_console.tui.screens.webcall import WebCallConfirm, WebCallScreen
from vap_console.tui.widgets.banner import Banner
from vap_console.tui.widgets.rows import RowTable
from vap_console.tui.widgets.status_bar import StatusBar

SIZE = (120, 36)


def plain(widget: Static, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def table(app) -> RowTable:
    return app.screen.query_one(RowTable)


def agent_id(console, prefix: str) -> str:
    return next(a.id for a in console.account.agents.values() if a.name.startswith(prefix))


# --- 3: banners clear, Retry repeats the request that failed ---


async def test_a_banner_clears_when_the_next_action_works_and_retry_repeats_the_failed_one() -> None:
    console = build_console(start_screen="agents")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        banner = console.app.screen.query_one(Banner)
        # Arjun made a draft after the list loaded: the list says deployed, the server refuses.
        console.account.agents[agent_id(console, "Arjun")].deployed = False
        table(console.app).move_to_key(agent_id(console, "Arjun"))
        await web_call(pilot)
        assert "agent_not_deployed" in banner.message
        # Retry pressed with Kabir highlighted asks again for Arjun's call (a billed call is never
        # started without a yes), and fails the same way.
        table(console.app).move_to_key(agent_id(console, "Kabir"))
        await settle(pilot)
        await click(pilot, "#banner-retry")
        await until(pilot, lambda: isinstance(console.app.screen, WebCallConfirm))
        assert "Arjun" in plain(console.app.screen.query_one(".dialog-title", Static))
        assert console.account.webcalls == []
        await pilot.press("y")
        await settle(pilot, expect_failed_workers=True)
        assert isinstance(console.app.screen, AgentsScreen)
        assert console.account.webcalls == []
        assert "agent_not_deployed" in banner.message
        # Kabir's call works: the old banner goes.
        await web_call(pilot)
        assert isinstance(console.app.screen, WebCallScreen)
        assert console.account.webcalls[-1]["agentId"] == agent_id(console, "Kabir")
        await pilot.press("escape")
        await settle(pilot)
        assert banner.message == ""


async def test_escape_clears_a_banner() -> None:
    console = build_console(start_screen="agents")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(console.app).move_to_key(agent_id(console, "Meera"))
        banner = console.app.screen.query_one(Banner)
        await pilot.press("w")  # a draft: the banner says so and how to deploy it
        await until(pilot, lambda: "is a draft" in banner.message)
        await pilot.press("escape")
        await settle(pilot)
        assert banner.message == ""
        assert not banner.query_one("#banner-retry", Button).region


async def test_the_builtin_note_does_not_stay_above_the_next_confirm() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tools = console.app.screen
        await pilot.press("d")  # end_call, built-in
        await settle(pilot)
        assert "cannot be edited or deleted" in tools.query_one(Banner).message
        custom = next(t.id for t in console.account.tools.values() if not t.id.startswith("default-"))
        table(console.app).move_to_key(custom)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(console.app.screen, Confirm)
        assert tools.query_one(Banner).message == ""


# --- 4: a 429 is said on screen with its Retry-After counting down ---


class HoldAfter429(httpx.AsyncBaseTransport):
    """Passes requests through; once the server has answered 429, holds the next one until released."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.limited = False
        self.release = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.limited:
            await self.release.wait()
        response = await self.inner.handle_async_request(request)
        if response.status_code == 429:
            self.limited = True
        return response


def status_line(app) -> str:
    return str(app.screen.query_one(StatusBar).render())


async def test_a_429_the_client_waits_out_shows_a_banner_naming_it() -> None:
    held: list[HoldAfter429] = []
    # The client's own retries (as `vap` makes it), not the app's: the wait QA saw as a silent "Loading…".
    console = build_console(rate_limit=3, transport_wrapper=lambda t: held.append(HoldAfter429(t)) or held[-1])
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("5")  # the fourth request of the minute
        await until(pilot, lambda: held[0].limited)
        await until(pilot, lambda: "HTTP 429" in console.app.screen.query_one(Banner).message)
        banner = console.app.screen.query_one(Banner)
        assert "HTTP 429, rate_limited" in banner.message
        assert re.search(r"Trying again in \d+ s \(Retry-After\)", banner.message)
        assert "rate limited (429)" in status_line(console.app)
        held[0].release.set()
        await settle(pilot)
        assert banner.message == ""
        assert "online" in status_line(console.app)
        assert table(console.app).row_count > 0


async def test_the_429_banner_counts_down() -> None:
    console = build_console(rate_limit=3, max_retries=0)
    go = asyncio.Event()

    async def held_sleep(seconds: float) -> None:
        await go.wait()
        console.clock.advance(seconds)

    console.app.sleep = held_sleep
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("2", "3"):
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("4")
        await until(pilot, lambda: re.search(r"in (\d+) s", console.app.screen.query_one(Banner).message))
        banner = console.app.screen.query_one(Banner)
        first = int(re.search(r"in (\d+) s", banner.message).group(1))
        assert first > 20
        console.clock.advance(20)
        await until(pilot, lambda: f"in {first - 20} s" in banner.message)  # redrawn every second
        go.set()
        await settle(pilot)
        assert banner.message == ""
        assert table(console.app).keys == ["muga", "mulberry", "mulberry-1.6"]


# --- 8: columns and the detail pane use the width there is; long values wrap, ids whole ---


def shown_rows(app) -> list[str]:
    rows = table(app)
    return [rows.render_line(y).text for y in range(1, rows.row_count + 1)]


async def test_a_wide_terminal_shows_whole_urls_and_a_wider_detail() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        # The list leaves https:// to the detail.
        urls = [t.config["url"].removeprefix("https://") for t in (console.account.tools[k] for k in table(console.app).keys)]
        for line, url in zip(shown_rows(console.app), urls):
            assert url in line
        assert console.app.screen.query_one("#detail-pane").outer_size.width > 46


async def test_ids_in_the_detail_are_never_cut() -> None:
    console = build_console(start_screen="agents")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail = console.app.screen.query_one("#detail", Static)
        text = plain(detail, width=detail.content_region.width)
        assert "…" not in text
        agent = table(console.app).cursor_key
        assert agent in "".join(line.strip() for line in text.splitlines())
    console = build_console(start_screen="agents")
    async with console.app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        detail = console.app.screen.query_one("#detail", Static)
        assert table(console.app).cursor_key in plain(detail, width=detail.content_region.width)


# --- 5: the Profiles screen lets the area keys and the palette take you away ---


async def test_area_keys_and_the_palette_leave_profiles() -> None:
    from vap_console.tui.screens.numbers import NumbersScreen
    from vap_console.tui.screens.profiles import ProfilesScreen
    from vap_console.tui.screens.tools import ToolsScreen

    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        assert isinstance(console.app.screen, ProfilesScreen)
        await pilot.press("1")  # the area it was opened from
        await settle(pilot)
        assert isinstance(console.app.screen, NumbersScreen)
        await pilot.press("7")
        await settle(pilot)
        await run_from_palette(pilot, "Go to Tools")
        await settle(pilot)
        assert isinstance(console.app.screen, ToolsScreen)
        await pilot.press("1")  # Profiles does not wait on top of Numbers
        await settle(pilot)
        assert isinstance(console.app.screen, NumbersScreen)


# --- 6: the Numbers list follows a rental that went live ---


async def test_numbers_list_shows_the_status_the_rental_screen_saw() -> None:
    from datetime import timedelta

    from vap_console.sandbox.rentals import Milestone
    from vap_console.tui.screens.numbers import NumbersScreen
    from vap_console.tui.screens.rental import RentalScreen

    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = table(console.app)
        assert rows.row_text(0)[0] == "kyc_submitted"
        rental_id = rows.keys[0]
        await pilot.press("enter")
        # Not settle(): the rental screen's polling worker runs on.
        await until(pilot, lambda: isinstance(console.app.screen, RentalScreen))
        screen = console.app.screen
        assert isinstance(screen, RentalScreen)
        # The carrier decides and the number is bought, on the server, while the screen is open.
        record = console.account.rentals[rental_id]
        now = console.clock.now()
        record.milestones += [Milestone(now + timedelta(minutes=m), kind, {}) for m, kind in
                              ((1, "kyc_accepted"), (2, "purchasing"), (3, "purchased"), (4, "active"))]
        console.clock.advance(300)
        await pilot.press("r")
        await until(pilot, lambda: screen.rental is not None and screen.rental.status == "active")
        await pilot.press("escape")

        def listed_status() -> str | None:
            if not isinstance(console.app.screen, NumbersScreen):
                return None
            rows = table(console.app)
            return rows.row_text(rows.keys.index(rental_id))[0] if rental_id in rows.keys else None

        await until(pilot, lambda: listed_status() == "active")
        assert isinstance(console.app.screen, NumbersScreen)
        assert listed_status() == "active"


# --- 9: add by id checks the id and keeps the dialog (and the id) on a problem ---


async def type_id(pilot, value: str) -> None:
    from textual.widgets import Input

    box = pilot.app.screen.query_one("#id-input", Input)
    box.value = value  # as pasted
    await pilot.press("enter")
    await settle(pilot)


def id_error(app) -> str:
    from vap_console.tui.widgets.field_error import FieldError

    return app.screen.query_one("#id-error", FieldError).message


async def test_add_agent_by_id_says_what_is_wrong_and_keeps_the_id() -> None:
    from textual.widgets import Input

    from vap_console.tui.screens.prompt_id import PromptIdScreen

    console = build_console(start_screen="agents")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await type_id(pilot, "ua_zzz")
        assert isinstance(console.app.screen, PromptIdScreen)
        assert "no agent with this id or ua_ handle" in id_error(console.app)
        assert console.app.screen.query_one("#id-input", Input).value == "ua_zzz"
        await type_id(pilot, "Kabir")
        assert "uuid or ua_" in id_error(console.app)
        kabir = console.account.agents[agent_id(console, "Kabir")]
        await type_id(pilot, f"ua_{kabir.handle}" if not kabir.handle.startswith("ua_") else kabir.handle)
        assert isinstance(console.app.screen, AgentsScreen)
        assert table(console.app).cursor_key == kabir.id


async def test_add_rental_by_id_checks_the_uuid_and_a_404_stays_in_the_dialog() -> None:
    from textual.widgets import Input

    from vap_console.tui.screens.numbers import NumbersScreen
    from vap_console.tui.screens.prompt_id import PromptIdScreen

    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        known = table(console.app).keys[-1]
        await pilot.press("a")
        await settle(pilot)
        await type_id(pilot, "not-a-uuid")
        assert isinstance(console.app.screen, PromptIdScreen)
        assert "a rental id is a uuid" in id_error(console.app)
        missing = "0b6c1f7e-3d2a-4c5b-9e8f-1a2b3c4d5e6f"
        await type_id(pilot, missing)
        assert isinstance(console.app.screen, PromptIdScreen)
        assert "404" in id_error(console.app)
        assert console.app.screen.query_one("#id-input", Input).value == missing
        await type_id(pilot, known)
        assert isinstance(console.app.screen, NumbersScreen)
        assert table(console.app).cursor_key == known
        assert console.app.screen.query_one(Banner).message == ""


# --- 17: a list that could not connect tries again once the server answers ---


async def test_could_not_connect_goes_once_the_server_answers_elsewhere() -> None:
    from vap_console.tui.screens.tools import ToolsScreen

    console, network = console_with_outage(down=False, start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        network.down = True
        await pilot.press("r")
        await settle(pilot)
        tools = console.app.screen
        assert isinstance(tools, ToolsScreen)
        # The rows stay, marked as from before the outage (issue 11: no longer wiped).
        assert table(console.app).row_count == len(console.account.tools)
        assert "offline: as of" in plain(console.app.screen.query_one("#list-count", Static))
        network.down = False
        await pilot.press("3")  # Variables loads: the server is back
        await settle(pilot)
        assert console.app.connection == "online"
        await pilot.press("2")
        await settle(pilot)
        assert console.app.screen is tools
        assert "offline" not in plain(tools.query_one("#list-count", Static))
        assert table(console.app).row_count == len(console.account.tools)


# --- 15: requested numbers are not shown as owned; one way to write a number ---


async def test_requested_numbers_are_marked_and_written_like_owned_ones() -> None:
    console = build_console()
    rejected = next(r for r in console.account.rentals.values() if r.listing.city == "Bengaluru")
    rejected.requested_number = rejected.listing.number.lstrip("+")  # bare digits, as a request may carry them
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = table(console.app)
        cells = {key: rows.row_text(n) for n, key in enumerate(rows.keys)}
        by_status = {c[0]: c[1] for c in cells.values()}
        # Rejected: not bought and never will be, marked apart from one still on its way (†, not *).
        assert by_status["kyc_rejected"] == f"+{rejected.requested_number}†"
        assert by_status["kyc_submitted"].endswith("*")
        assert by_status["active"].startswith("+91") and not by_status["active"].endswith(("*", "†"))
        count_line = console.app.screen.query_one("#list-count", Static)
        count = plain(count_line, width=300)
        assert "* not bought yet" in count and "† stopped: refund in detail" in count
        assert len(count.strip()) <= count_line.content_region.width  # the whole note is on screen, not cut
        rows.move_to_key(rejected.id)
        await settle(pilot)
        head = plain(console.app.screen.query_one("#detail", Static)).splitlines()[0]
        assert f"+{rejected.requested_number} requested; kyc_rejected, not bought" in head
        await pilot.press("c")
        await settle(pilot)
        assert "no number yet" in list(console.app._notifications)[-1].message


# --- 7: Esc on the New tool form asks before throwing typed work away ---


async def test_escape_on_a_typed_tool_form_asks_first() -> None:
    from textual.widgets import Input

    from vap_console.tui.screens.tool_form import ToolFormScreen
    from vap_console.tui.screens.tools import ToolsScreen

    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("escape")  # nothing typed: closes at once
        await settle(pilot)
        assert isinstance(console.app.screen, ToolsScreen)
        await pilot.press("n")
        await settle(pilot)
        form = console.app.screen
        assert isinstance(form, ToolFormScreen)
        await pilot.press(*"lookup_order")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(console.app.screen, Confirm)
        await pilot.press("escape")  # Keep
        await settle(pilot)
        assert console.app.screen is form
        assert form.query_one("#f-name", Input).value == "lookup_order"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("y")  # Discard
        await settle(pilot)
        assert isinstance(console.app.screen, ToolsScreen)


# --- 16: the detail shows llmParam descriptions, and a rental's events and KYC history themselves ---


async def test_tool_detail_shows_what_each_llm_param_means() -> None:
    console = build_console(start_screen="tools")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(console.app).move_to_key("default-transfer-call")
        await settle(pilot)
        detail = plain(console.app.screen.query_one("#detail", Static))
        assert "reason (string): why the caller is transferred" in detail
        table(console.app).move_to_key("default-switch-language")
        await settle(pilot)
        detail = plain(console.app.screen.query_one("#detail", Static))
        assert "language (string, one of english, hinglish, hindi)" in detail


async def test_rental_detail_lists_events_and_compliance_history() -> None:
    console = build_console()
    rejected = next(r for r in console.account.rentals.values() if r.listing.city == "Bengaluru")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(console.app).move_to_key(rejected.id)
        await settle(pilot)
        detail = " ".join(plain(console.app.screen.query_one("#detail", Static)).split())
        assert "Events (3)" in detail
        assert "compliance.rejected · reason The address proof is older than three months." in detail
        assert "rental.refunded · amount ₹1,000.00" in detail
        assert "Compliance history (3)" in detail
        assert "2026-10-31 11:00 UTC rejected · The address proof is older than three months." in detail


# --- the Numbers pane's timeline ages ("2 h ago") where the pane is scrolled ---


async def test_the_numbers_pane_timeline_ages_in_place() -> None:
    console = build_console()
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail = console.app.screen.query_one("#detail", Static)

        def on_screen() -> str:
            lines = range(detail.scrollable_content_region.height)
            return "\n".join("".join(s.text for s in detail.render_line(y)) for y in lines)

        assert "2 h ago" in on_screen()
        detail.scroll_to(0, 1, animate=False, immediate=True)
        console.clock.advance(3 * 3600)
        detail.renew()  # what the screen's 15-second interval calls
        await settle(pilot)
        assert "5 h ago" in on_screen() and "2 h ago" not in on_screen()
        assert detail.scroll_y == 1
