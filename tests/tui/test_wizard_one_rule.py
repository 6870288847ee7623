"""The rental wizard says each limit of api/limits.py beside its field, as the client, `vap` and the
sandbox apply it (tests/test_one_rental_rule_each.py walks those): an end user's field, a
document's data field and a document's file size, just inside (no problem) and just outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.console_scenes import quiet, until
from tests.tui.wizard_host import next_step, set_value, wizard_of
from vap_console.api import limits
from vap_console.tui.untrusted import Literal

pytestmark = pytest.mark.usefixtures("fast_polls")
TEXT = limits.RENTAL_TEXT.high
BYTES = limits.DOCUMENT_BYTES.high


async def test_the_wizard_says_each_rule_beside_its_field(make_host, kyc_dir: Path) -> None:
    host = make_host()
    big = kyc_dir / "big.pdf"
    big.write_bytes((b"%PDF-1.7\n" + b" " * BYTES)[:BYTES + 1])
    edge = kyc_dir / "edge.pdf"
    edge.write_bytes((b"%PDF-1.7\n" + b" " * BYTES)[:BYTES])
    async with host.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(host)
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        wrong = []
        for input_id, value, inside in (("eu-name", "N" * TEXT, True), ("eu-name", "N" * (TEXT + 1), False),
                                        ("eu-city", "P" * TEXT, True), ("eu-city", "P" * (TEXT + 1), False)):
            set_value(wizard, input_id, value)
            await quiet(pilot)
            said = str(wizard.query_one(f"#{input_id}-error", Literal).content)
            if (f"at most {TEXT} characters" in said) is inside:
                wrong.append(f"{input_id}[{len(value)}]: {said!r}")
        set_value(wizard, "eu-name", "Acme Telecom Pvt Ltd")
        set_value(wizard, "eu-city", "Pune")
        await quiet(pilot)
        await next_step(pilot, wizard, "documents")
        for value, inside in (("A" * TEXT, True), ("A" * (TEXT + 1), False)):
            set_value(wizard, "doc-2-field-signatory_name", value)
            await quiet(pilot)
            said = str(wizard.query_one("#doc-2-field-signatory_name-error", Literal).content)
            if (f"at most {TEXT} characters" in said) is inside:
                wrong.append(f"signatory_name[{len(value)}]: {said!r}")
        for path, inside in ((edge, True), (big, False)):
            set_value(wizard, "doc-0-path", str(path))
            status = wizard.query_one("#doc-0-path-error", Literal)
            await until(pilot, lambda status=status, path=path: path.name in str(status.content)
                        or "limit is 5 MB" in str(status.content))
            said = str(status.content)
            if ("limit is 5 MB" in said) is inside:
                wrong.append(f"{path.name}: {said!r}")
        assert host.spy.posts == []
    assert wrong == []
