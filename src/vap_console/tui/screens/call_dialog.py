"""Placing an outbound call (`o` on Agents and on Calls): the dialog that asks who calls whom,
the confirm that says it is billed, and the placing itself (``PlacesCalls``, shared by both
screens).

``POST /v1/calls`` is sent once and never again by the console, not even after a 429: a lost
answer may mean the phone is ringing (reference voice.md §4). Such a placement is kept in the
calls ledger as "outcome unknown" with its Idempotency-Key, and the Calls screen says how to look
it up. A 202 puts the call in the ledger at once and shows it on the Calls screen, read live.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Static

from vap_console.api import errors
from vap_console.api.idempotency import new_idempotency_key
from vap_console.api.models import AgentLimits
from vap_console.api.models.calls import PlacedCall, e164_problem
from vap_console.tui import untrusted
from vap_console.tui.failures import describe_error
from vap_console.tui.screens.dialog import Confirm, Dialog, DialogBox, billed_call_keys, confirm_then
from vap_console.tui.screens.webcall import rate_line
from vap_console.tui.widgets.field_error import FieldError

if TYPE_CHECKING:
    from vap_console.tui.services import Services

COST_NOTE = ("An outbound call is billed for its time on the line once it is answered (nothing if "
             "nobody answers), and holds one of the account's call slots while it rings and talks.")
LOST_NOTE = ("No answer came back: the phone may be ringing now. Nothing was sent again. It is kept "
             "in Calls as 'outcome unknown'; its detail there says how to look it up.")


@dataclass(frozen=True)
class CallRequest:
    agent: str
    to_number: str
    # What the person typed (a trunk id, a rental id or an E.164 number) and what is sent.
    caller: str
    from_trunk_id: str


class PlaceCallDialog(Dialog[CallRequest | None]):
    """Who calls whom. ``numbers``: the account's active rented numbers (E.164 → rental id);
    ``used``: callers used before (from the ledger), offered as suggestions."""

    LABEL = "Place an outbound call"
    DEFAULT_CSS = """
    PlaceCallDialog Input { border-title-color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="placecall.cancel", tooltip="Close; nothing is placed"),
        Binding("ctrl+s", "submit", "Next", id="placecall.next", tooltip="Check the fields, then confirm"),
    ]
    AUTO_FOCUS = "#call-to"

    def __init__(self, agent: str, numbers: dict[str, str], used: list[str]) -> None:
        super().__init__()
        self.agent = agent
        self.numbers = numbers
        self.used = used

    def compose(self) -> ComposeResult:
        # Each field's name is its border's title (as on the tool form): a row a field saved, so
        # the dialog keeps its buttons on screen at 80×24.
        with DialogBox(classes="dialog"):
            yield Static("Place an outbound call", classes="dialog-title")
            agent = Input(self.agent, id="call-agent", select_on_focus=False)
            agent.border_title = "Agent (ua_… or id)"
            yield agent
            yield FieldError(id="call-agent-error")
            number = Input(id="call-to", placeholder="+919812340001", select_on_focus=False)
            number.border_title = "Number to call (E.164)"
            yield number
            yield FieldError(id="call-to-error")
            choices = sorted(self.numbers) + [u for u in self.used if u not in self.numbers]
            caller = Input(id="call-from", select_on_focus=False, placeholder="SIP trunk id or +number",
                           suggester=SuggestFromList(choices, case_sensitive=False) if choices else None)
            caller.border_title = "Caller: a SIP trunk or a rented number"
            yield caller
            yield FieldError(id="call-from-error")
            held = ", ".join(sorted(self.numbers)) or "none found"
            yield Static(untrusted.content(f"Rented numbers held: {held} (→ takes a suggestion)"),
                         classes="dialog-help")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Next", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Input.Changed, "#call-to")
    def _number_typed(self, event: Input.Changed) -> None:
        # Checked as typed: the rule shows once something is there, and goes when it is right.
        problem = e164_problem(event.value) if event.value.strip() else None
        self.query_one("#call-to-error", FieldError).show(f"number: {problem}" if problem else "")

    def _problems(self) -> dict[str, str]:
        agent = self.query_one("#call-agent", Input).value.strip()
        number = self.query_one("#call-to", Input).value
        caller = self.query_one("#call-from", Input).value.strip()
        found: dict[str, str] = {}
        if not agent:
            found["call-agent"] = "agent: the agent is required"
        problem = e164_problem(number)
        if problem:
            found["call-to"] = f"number: {problem}"
        if not caller:
            found["call-from"] = "caller: a SIP trunk id or a rented number is required"
        elif caller.startswith("+") and caller not in self.numbers:
            found["call-from"] = (f"caller: {caller} is not an active rented number of this account; "
                                  "type a SIP trunk id or one of the numbers listed")
        return found

    @on(Button.Pressed, "#ok")
    @on(Input.Submitted)
    def action_submit(self) -> None:
        problems = self._problems()
        for name in ("call-agent", "call-to", "call-from"):
            self.query_one(f"#{name}-error", FieldError).show(problems.get(name, ""))
        if problems:
            self.query_one(f"#{next(iter(problems))}", Input).focus()
            return
        caller = self.query_one("#call-from", Input).value.strip()
        self.dismiss(CallRequest(
            agent=self.query_one("#call-agent", Input).value.strip(),
            to_number=self.query_one("#call-to", Input).value.strip(),
            caller=caller, from_trunk_id=self.numbers.get(caller, caller),
        ))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class PlaceCallConfirm(Confirm):
    LABEL = "Place a billed call"
    BINDINGS = billed_call_keys(("placecall.no", "Place no call"), (
        "placecall.yes", "Place billed call", "Place the call: billed once answered, holds a call slot"))

    def __init__(self, request: CallRequest, limits: AgentLimits | None) -> None:
        super().__init__(
            f"{request.agent} calls {request.to_number} from {request.caller}.\n\n{COST_NOTE} "
            f"{rate_line(limits)}",
            yes="Place billed call", title="Place an outbound call?")


class PlacesCalls:
    """`o`: the dialog, the confirm, the one POST, and where its outcome goes. Mixed into a
    ListScreen (it has ``services``, ``banner()``, workers)."""

    services: Services

    class CallersRead(Message):
        def __init__(self, agent: str, numbers: dict[str, str], used: list[str],
                     limits: AgentLimits | None) -> None:
            super().__init__()
            self.agent, self.numbers, self.used, self.limits = agent, numbers, used, limits

    class CallPlaced(Message):
        def __init__(self, request: CallRequest, placed: PlacedCall) -> None:
            super().__init__()
            self.request, self.placed = request, placed

    def agent_to_call_with(self) -> str:
        """Hook: the agent the dialog starts with (the highlighted one)."""
        return ""

    def action_place_call(self) -> None:
        self.read_callers(self.agent_to_call_with())

    @work(exclusive=True, group="callers", exit_on_error=False)
    async def read_callers(self, agent: str) -> None:
        numbers: dict[str, str] = {}
        try:
            rentals = (await self.services.call_api(lambda c: c.list_rentals())).items
            numbers = {str(r.e164 or r.number): r.id for r in rentals if r.status == "active" and (r.e164 or r.number)}
        except errors.ApiError:
            pass  # a server without the list: the caller is typed (a trunk id)
        used: list[str] = []
        if self.services.calls is not None:
            entries = await self.services.calls.run(self.services.calls.ledger.entries, "outbound")
            used = list(dict.fromkeys(e.from_ref for e in entries if e.from_ref))
        limits: AgentLimits | None = None
        # The rate the confirm states; a server without it: the confirm says none is published.
        with contextlib.suppress(errors.ApiError):
            limits = await self.services.call_api(lambda c: c.agent_limits())
        self.post_message(self.CallersRead(agent, numbers, used, limits))  # type: ignore[attr-defined]  # a Screen mixin

    # Named handlers, not @on: Textual collects @on handlers only from its own classes' bodies,
    # and this mixin is not one.
    def on_places_calls_callers_read(self, message: CallersRead) -> None:
        def chosen(request: CallRequest | None) -> None:
            if request is not None:
                confirm_then(self.app, PlaceCallConfirm(request, message.limits),  # type: ignore[attr-defined]  # a Screen mixin
                             lambda: self._place_unless_placing(request))

        self.app.push_screen(  # type: ignore[attr-defined]  # a Screen mixin
            PlaceCallDialog(message.agent, message.numbers, message.used), chosen)

    def _place_unless_placing(self, request: CallRequest) -> None:
        # Billed: never a second placement while one is under way (a second yes from one gesture).
        if not any(w.group == "placecall" and not w.is_finished for w in self.workers):  # type: ignore[attr-defined]
            self.place_call(request)

    # Not exclusive: cancelling a placement under way could leave a ringing call unrecorded.
    @work(group="placecall", exit_on_error=False)
    async def place_call(self, request: CallRequest) -> None:
        key = new_idempotency_key()
        try:
            placed = await self.services.call_api(
                lambda c: c.place_call(request.agent, request.to_number, request.from_trunk_id,
                                       idempotency_key=key), resend=False)
        except errors.ApiError as error:
            if error.maybe_applied and self.services.calls is not None:
                self.services.calls.record_unknown(request.agent, "outbound", idempotency_key=key,
                                                   to_number=request.to_number, from_ref=request.caller)
                self.services.invalidate("calls")
            raise
        if self.services.calls is not None:
            self.services.calls.record_started(placed.call_id, request.agent, "outbound",
                                               to_number=request.to_number, from_ref=request.caller)
            self.services.calls.last_started = placed.call_id
        self.post_message(self.CallPlaced(request, placed))  # type: ignore[attr-defined]  # a Screen mixin

    def on_places_calls_call_placed(self, message: CallPlaced) -> None:
        self.services.invalidate("calls")
        self.app.notify(  # type: ignore[attr-defined]  # a Screen mixin
            f"Calling {message.request.to_number}: Calls follows it live.", title="Call placed", markup=False)
        self.app.switch_mode("calls")  # type: ignore[attr-defined]  # a Screen mixin

    def place_call_failed(self, error: BaseException) -> bool:
        """The placing worker failed: a lost answer is said in full; others go to the one handler."""
        if isinstance(error, errors.ApiError) and error.maybe_applied:
            self.banner().show(f"{describe_error(error)} {LOST_NOTE}")  # type: ignore[attr-defined]
            return True
        return False
