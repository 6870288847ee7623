"""What every step is made of: labelled inputs with their error line, the step container, and
what a step says to the wizard about the whole rental."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.validation import Validator
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from vap_console.tui import untrusted
from vap_console.tui.untrusted import Literal, LiteralInput


class RentingUnavailable(Message):
    """503 telephony_not_configured, from the search or the requirements: nothing on this
    deployment can rent a number. Bubbles to the wizard, which stops there."""


class Field(LiteralInput):
    """A wizard input that leaves "?" to the wizard's key list: no value it takes contains one.

    Its placeholder (a document field's description) and any value a step sets come from outside
    the keyboard: shown with their control characters visible (LiteralInput)."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character != "?" and super().check_consume_key(key, character)


def field(label: str, input_id: str, *, validators: list[Validator] | None = None, placeholder: str = "",
          value: str = "") -> ComposeResult:
    """A label, the input and the line under it where its problem is said (``<id>-error``)."""
    yield Label(untrusted.content(label), classes="field-label")
    yield Field(value, id=input_id, placeholder=placeholder, validators=validators or [],
                validate_on=["changed", "submitted"])
    yield Literal("", id=f"{input_id}-error", classes="field-error")


def mark_field(root: Widget, input_id: str, message: str) -> None:
    """Show ``message`` as the problem of the input ``input_id`` under ``root``."""
    widget = root.query_one(f"#{input_id}")
    if isinstance(widget, Input):
        widget.add_class("-invalid")
    errors_static = root.query(f"#{input_id}-error")
    if errors_static:
        errors_static.first(Static).update(message)


def check_fields(root: Widget) -> bool:
    """Run every input's validators again, show each failure beside it; True when all pass."""
    fine = True
    for widget in root.query(Input):
        if not widget.validators:
            continue
        result = widget.validate(widget.value)
        if result is not None and not result.is_valid:
            fine = False
            mark_field(root, widget.id or "", "\n".join(result.failure_descriptions))
    return fine


class Step(VerticalScroll):
    """One page of the wizard (the ContentSwitcher shows one at a time): it composes its fields,
    checks them, and says each field's problem under it as it is typed."""

    def value_of(self, input_id: str) -> str:
        return self.query_one(f"#{input_id}", Input).value

    def check(self) -> bool:
        """This step's own checks before the wizard moves on; True when it may."""
        return check_fields(self)

    @on(Input.Changed)
    def _say_problem(self, event: Input.Changed) -> None:
        if event.validation_result is not None and event.input.id:
            errors_static = self.query(f"#{event.input.id}-error")
            if errors_static:
                errors_static.first(Static).update("\n".join(event.validation_result.failure_descriptions))
