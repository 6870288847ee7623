"""Step 3, the end user: the business renting the number, as on its KYC documents."""

from __future__ import annotations

from functools import partial

from textual import on
from textual.app import ComposeResult
from textual.validation import Validator
from textual.widgets import Input, Label, Select, Static

from vap_console.tui import untrusted
from vap_console.tui.screens.dialog import Confirm, confirm_then
from vap_console.tui.screens.wizard.earlier import END_USER_KEYS, EndUserChoice
from vap_console.tui.screens.wizard.fields import Step, field
from vap_console.tui.screens.wizard.rules import END_USER_FIELDS, Email, Required, TextLength


class EndUserStep(Step):
    """The end user's fields (``eu-<key>``), fillable from an earlier application of this account."""

    def __init__(self, choices: list[EndUserChoice]) -> None:
        super().__init__(id="step-enduser")
        self._choices = choices

    def compose(self) -> ComposeResult:
        yield Static("The business renting the number, as on its KYC documents.", classes="hint")
        if self._choices:
            yield Label("Fill from an earlier application", classes="field-label")
            yield Select([(untrusted.text(choice.label, multiline=False), n)
                          for n, choice in enumerate(self._choices)],
                         prompt="choose one, or type below", id="eu-from")
        for key, label, required in END_USER_FIELDS:
            validators: list[Validator] = []
            if required:
                validators.append(Required(label))
            validators.append(TextLength(label))
            if key == "email":
                validators.append(Email())
            yield from field(label + ("" if required else " (optional)"), f"eu-{key}", validators=validators)

    def values(self) -> dict[str, str]:
        """Each field by its wire key, as typed."""
        return {key: self.value_of(f"eu-{key}") for key in END_USER_KEYS}

    @on(Select.Changed, "#eu-from")
    def _fill_from_earlier(self, event: Select.Changed) -> None:
        if not isinstance(event.value, int):
            return
        target = {key: self._choices[event.value].values.get(key, "") for key in END_USER_KEYS}
        typed_over = [key for key in END_USER_KEYS
                      if self.value_of(f"eu-{key}").strip() and self.value_of(f"eu-{key}").strip() != target[key]]
        if not typed_over:
            self._fill(target)
            return
        labels = {key: label for key, label, _ in END_USER_FIELDS}
        names = ", ".join(labels[key] for key in typed_over)
        confirm_then(self.app, Confirm(f"Replace what you typed in {names}?", yes="Replace", no="Keep mine"),
                     partial(self._fill, target))

    def _fill(self, values: dict[str, str]) -> None:
        for key in END_USER_KEYS:
            self.query_one(f"#eu-{key}", Input).value = values.get(key, "")
        self.query_one("#eu-name", Input).focus()
