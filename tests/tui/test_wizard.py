"""The KYC rental wizard driven with Pilot against the sandbox on a virtual clock (issue 6, 1–4)."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Button, DirectoryTree, Input, ProgressBar

from tests.e2e.documents import make_pdf
from tests.tui.wizard_host import (
    answer,
    click,
    confirm_rent,
    fill_documents,
    fill_end_user,
    follow_to,
    lose_answer,
    next_step,
    pick_from_search,
    quiet,
    rental_screen,
    rental_shown,
    set_value,
    to_documents,
    to_review,
    until,
    values,
    wizard_of,
)
from vap_console.tui.screens.dialog import Confirm, FilePicker
from vap_console.tui.screens.wizard import RentalWizard

pytestmark = pytest.mark.usefixtures("fast_polls")


# --- the happy path, all the way to a live number ---


async def test_happy_path_from_search_to_active_number(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        assert wizard.step == "number"
        await pick_from_search(pilot, wizard, "1010")
        assert wizard.query_one("#number", Input).value == "912272401010"
        await next_step(pilot, wizard, "requirements")
        text = str(wizard.query_one("#requirements").content)
        assert "Business registration certificate" in text and "GSTIN" in text
        await next_step(pilot, wizard, "enduser")
        # Typed with keys, as a person would.
        await click(pilot, "#eu-name")
        await pilot.press(*"Acme Telecom Pvt Ltd")
        await fill_end_user(pilot, wizard)
        await next_step(pilot, wizard, "documents")
        await fill_documents(pilot, wizard)
        assert "✔ incorporation.pdf" in str(wizard.query_one("#doc-0-path-error").content)
        assert "· png" in str(wizard.query_one("#doc-2-path-error").content)
        await next_step(pilot, wizard, "review")
        review = str(wizard.query_one("#review").content)
        for expected in ("912272401010", "Acme Telecom Pvt Ltd", "ops@acme.example",
                         "pan-card.png", "· png", "incorporation.pdf", "· pdf", "29ABCDE1234F1ZW",
                         "Charged to the wallet up front"):
            assert expected in review
        await pilot.press("pagedown")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        question = str(app.screen.query_one("#confirm-text").content)
        assert "charges" in question and "to your wallet" in question and "₹" in question
        await click(pilot, "#yes")
        status = await follow_to(pilot, app, "active", step_seconds=1, limit=80)
        assert status == "active"
        screen = rental_screen(app)
        assert screen.rental.e164 and screen.rental.e164.endswith("2272401010")
        assert screen.timeline.render().plain.count("✔") == 5
        # Each status change rang the bell and showed a toast, in order.
        changes = [t for t in app.toasts if t.startswith(("+912272401010", "912272401010"))]
        assert [t.split(": ")[1].split(" ")[0] for t in changes] == ["kyc_accepted", "purchasing", "active"]
        assert app.bells == 3
        # Remembered for this profile: the id only.
        await app.local_index.flushed()
        assert app.local_index.index.ids("rentals") == [screen.rental_id]
        # Sent as multipart: one data field, three files in the documents' order.
        post = app.spy.posts[-1]
        assert post.headers["content-type"].startswith("multipart/form-data")
        body = post.content
        assert body.count(b'name="files"') == 3
        assert body.index(b"incorporation.pdf") < body.index(b"electricity-bill.pdf") < body.index(b"pan-card.png")
        compliance = screen.rental.compliance
        assert compliance is not None and compliance.end_user["name"] == "Acme Telecom Pvt Ltd"


async def test_typed_e164_number_is_normalised_and_sent(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard, number="+91 22 7240-1010")
        assert "+912272401010" in str(wizard.query_one("#review").content)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: rental_screen(app) is not None)
        payload = json.loads(_data_part(app.spy.posts[-1]))
        assert payload["requestedNumber"] == "+912272401010"
        assert "searchFilters" not in payload


async def test_search_filters_are_sent_with_a_searched_number(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard, pattern="1010", city="Mumbai")
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: rental_screen(app) is not None)
        payload = json.loads(_data_part(app.spy.posts[-1]))
        assert payload["searchFilters"] == {"pattern": "1010", "city": "Mumbai"}
        assert [d["documentTypeId"] for d in payload["documents"]] == [
            "business_registration", "address_proof", "signatory_id"]
        assert payload["documents"][2]["dataFields"] == {"pan": "ABCDE1234F"}


def _data_part(request) -> str:
    body = request.content.decode("latin-1")
    start = body.index('name="data"') + len('name="data"\r\n\r\n')
    return body[start: body.index("\r\n--", start)]


# --- each scenario number ---


@pytest.mark.parametrize(
    ("pattern", "final", "shown"),
    [
        ("0002", "kyc_rejected", ("✖", "verification")),
        ("0003", "failed", ("✖", "purchase")),
        ("0004", "active", ("✔", "active")),
    ],
)
async def test_scenario_numbers_end_in_their_state(make_host, pattern, final, shown):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        if pattern == "0004":  # a city-wide search, so a substitute can come from it
            await to_review(pilot, wizard, pattern="", city="Mumbai", ending=pattern)
        else:
            await to_review(pilot, wizard, pattern=pattern)
        requested = wizard.query_one("#number", Input).value
        await confirm_rent(pilot, wizard)
        assert await follow_to(pilot, app, final) == final
        screen = rental_screen(app)
        text = screen.timeline.render().plain
        words = " ".join(text.split())  # reasons wrap with a hanging indent
        glyph, key = shown
        assert f"{glyph} {screen.rental.step(key).label}" in text
        if final == "kyc_rejected":
            assert " ".join(screen.rental.compliance.rejection_reason.split()) in words
        if final == "failed":
            assert " ".join(screen.rental.last_error.split()) in words
        if pattern == "0004":  # taken meanwhile: a substitute from the same search was bought
            assert screen.rental.number != requested
        assert not screen.polling


async def test_0005_carrier_error_keeps_the_form_and_retries_with_the_same_key(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard, pattern="0005")
        before = values(wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.banner.message)
        assert wizard.step == "review"
        assert "telephony_sandbox_error" in wizard.banner.message
        assert "same Idempotency-Key" in wizard.banner.message
        assert values(wizard) == before
        await click(pilot, "#banner-retry")
        await until(pilot, lambda: len(app.spy.posts) == 2 and not wizard._submitting)
        assert app.spy.keys[0] == app.spy.keys[1]
        assert values(wizard) == before


# --- each key that changes the outcome ---


async def test_short_wallet_starts_in_funding_then_proceeds(make_host):
    app = make_host("sk_sandbox_short")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        assert (await rental_shown(pilot, app)).rental.status == "funding"
        assert await follow_to(pilot, app, "active") == "active"


async def test_no_autopay_explains_and_keeps_everything_typed(make_host):
    app = make_host("sk_sandbox_noautopay")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        before = values(wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.banner.message)
        assert wizard.step == "review"
        assert "auto-pay" in wizard.banner.message and "telephony_autopay_required" in wizard.banner.message
        assert values(wizard) == before
        assert app.screen is wizard


async def test_ineligible_account_shows_the_reason_and_stops(make_host):
    app = make_host("sk_sandbox_ineligible")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await pick_from_search(pilot, wizard, "1010")
        await next_step(pilot, wizard, "requirements")
        text = str(wizard.query_one("#requirements").content)
        assert "cannot rent numbers" in text and "free trial" in text
        assert wizard.query_one("#wizard-next", Button).disabled
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "requirements"
        assert app.spy.posts == []


async def test_verified_kyc_goes_straight_to_review_and_sends_plain_json(make_host):
    app = make_host("sk_sandbox_verified")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await pick_from_search(pilot, wizard, "1010")
        await next_step(pilot, wizard, "requirements")
        assert "KYC already verified" in str(wizard.query_one("#requirements").content)
        await next_step(pilot, wizard, "review")
        assert "plain JSON" in str(wizard.query_one("#review").content)
        await confirm_rent(pilot, wizard)
        assert await follow_to(pilot, app, "active") == "active"
        post = app.spy.posts[-1]
        assert post.headers["content-type"] == "application/json"
        assert json.loads(post.content) == {"requestedNumber": "912272401010"}


async def test_deployment_without_telephony_says_rentals_are_unavailable(make_host):
    app = make_host("sk_sandbox_notelephony")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await until(pilot, lambda: wizard.banner.message)
        assert "unavailable on this deployment" in wizard.banner.message
        assert wizard.query_one("#wizard-next", Button).disabled
        await quiet(pilot)  # a reload loop would never settle
        assert app.spy.gets == 1  # asked once, not again and again


# --- server errors land where they belong; nothing typed is lost ---


async def test_422_on_the_number_jumps_back_to_it_and_marks_it(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard, number="+14155550100")
        before = values(wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.step == "number" and wizard.banner.message)
        assert "invalid_request" in wizard.banner.message
        assert "Indian number" in str(wizard.query_one("#number-error").content)
        assert wizard.query_one("#number", Input).has_class("-invalid")
        assert values(wizard) == before


async def test_422_document_invalid_marks_the_file_it_names(make_host):
    app = make_host()
    app.spy.plan.append(answer(422, {
        "error": "documents.1 (address_proof): electricity-bill.pdf is not a PDF, JPEG or PNG file.",
        "code": "telephony_document_invalid",
    }))
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        before = values(wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.step == "documents")
        assert "✖" in str(wizard.query_one("#doc-1-path-error").content)
        assert "✔" in str(wizard.query_one("#doc-0-path-error").content)
        assert values(wizard) == before


async def test_429_waits_retry_after_with_a_countdown_then_sends_the_same_key(make_host):
    app = make_host()
    limited = answer(429, {"error": "Too many requests", "code": "rate_limited", "limit": 60, "current": 61},
                     {"Retry-After": "1"})
    app.spy.plan.extend([limited, limited, limited])  # the client's own two retries, then the wizard's
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: "Sending again in" in str(wizard.query_one("#submit-status").content))
        assert "429" in str(wizard.query_one("#submit-status").content)
        await until(pilot, lambda: rental_screen(app) is not None)
        assert len(app.spy.posts) == 4
        assert len(set(app.spy.keys)) == 1


async def test_lost_answer_finds_the_rental_instead_of_sending_again(make_host):
    app = make_host()
    app.spy.plan.append(lose_answer(after_sending=True))
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: rental_screen(app) is not None)
        assert len(app.spy.posts) == 1  # checked, never resent
        assert any("created after all" in toast for toast in app.toasts)
        await app.local_index.flushed()
        assert app.local_index.index.ids("rentals") == [rental_screen(app).rental_id]


async def test_lost_answer_with_no_rental_offers_a_safe_resend_with_the_same_key(make_host):
    app = make_host()
    app.spy.plan.append(lose_answer(after_sending=False))
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        before = values(wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: "safe to send again" in wizard.banner.message)
        assert values(wizard) == before
        await click(pilot, "#banner-retry")
        await until(pilot, lambda: rental_screen(app) is not None)
        assert len(app.spy.posts) == 2 and app.spy.keys[0] == app.spy.keys[1]


async def test_a_changed_application_gets_a_new_idempotency_key(make_host):
    app = make_host("sk_sandbox_noautopay")
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.banner.message)
        set_value(wizard, "eu-name", "Acme Telecom Private Limited")
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: len(app.spy.posts) == 2 and not wizard._submitting)
        # The keys as the server received them: both sent, and not the same.
        first, second = app.spy.keys
        assert first and second and second != first


# --- inline validation before anything is sent ---


async def test_fields_are_checked_inline_and_again_on_next(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await click(pilot, "#number")
        await pilot.press(*"12ab")
        await quiet(pilot)
        assert "bare digits or E.164" in str(wizard.query_one("#number-error").content)
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "number"
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await next_step(pilot, wizard, "enduser")
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "enduser"
        assert "Legal name: required" in str(wizard.query_one("#eu-name-error").content)
        set_value(wizard, "eu-name", "Acme")
        set_value(wizard, "eu-email", "ops@")
        await quiet(pilot)
        assert "Email" in str(wizard.query_one("#eu-email-error").content)
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "enduser"
        assert app.spy.posts == []


async def test_each_file_is_checked_as_soon_as_it_is_chosen(make_host, kyc_dir):
    (kyc_dir / "notes.pdf").write_text("not really a pdf")
    make_pdf(kyc_dir / "huge.pdf", pad_to=5 * 1024 * 1024 + 4096)
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_documents(pilot, wizard)
        set_value(wizard, "doc-0-path", "kyc/notes.pdf")
        set_value(wizard, "doc-1-path", "kyc/huge.pdf")
        set_value(wizard, "doc-2-path", "kyc/missing.png")
        await quiet(pilot)
        assert "not a PDF, JPEG or PNG" in str(wizard.query_one("#doc-0-path-error").content)
        assert "limit is 5 MB" in str(wizard.query_one("#doc-1-path-error").content)
        assert "not found" in str(wizard.query_one("#doc-2-path-error").content)
        await pilot.press("pagedown")
        await quiet(pilot)
        assert wizard.step == "documents"
        assert "GSTIN: required" in str(wizard.query_one("#doc-0-field-gstin-error").content)


async def test_file_picker_shows_only_documents_and_fills_the_path(make_host, kyc_dir):
    (kyc_dir / "readme.txt").write_text("not a document")
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_documents(pilot, wizard)
        wizard.query_one("#doc-2-browse", Button).press()
        # pushed is not yet composed: on a busy machine its tree came a moment later
        await until(pilot, lambda: isinstance(app.screen, FilePicker) and bool(app.screen.query(DirectoryTree)))
        tree = app.screen.query_one(DirectoryTree)
        await until(pilot, lambda: len(tree.root.children) > 0)
        names = sorted(str(node.label) for node in tree.root.children)
        assert names == ["electricity-bill.pdf", "incorporation.pdf", "pan-card.png"]
        png = next(i for i, node in enumerate(tree.root.children) if str(node.label) == "pan-card.png")
        tree.move_cursor(tree.root.children[png])
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is wizard)
        assert wizard.query_one("#doc-2-path", Input).value.endswith("pan-card.png")
        assert "✔ pan-card.png" in str(wizard.query_one("#doc-2-path-error").content)


async def test_back_and_next_keep_everything_typed(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        before = values(wizard)
        for expected in ("documents", "enduser", "requirements", "number"):
            await pilot.press("pageup")
            await until(pilot, lambda: wizard.step == expected)
        assert values(wizard) == before


async def test_leaving_with_unsent_data_asks_first(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        set_value(wizard, "number", "912272401010")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await click(pilot, "#no")
        await until(pilot, lambda: app.screen is wizard)
        assert wizard.query_one("#number", Input).value == "912272401010"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await click(pilot, "#yes")
        await until(pilot, lambda: wizard not in app.screen_stack)


async def test_leaving_an_empty_wizard_does_not_ask(make_host):
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await pilot.press("escape")
        await until(pilot, lambda: wizard not in app.screen_stack)


async def test_back_stops_a_429_wait_and_keeps_the_form(make_host):
    app = make_host()
    limited = answer(429, {"error": "Too many requests", "code": "rate_limited"}, {"Retry-After": "30"})
    app.spy.plan.extend([limited, limited, limited])
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        before = values(wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: "Sending again in 30 s" in str(wizard.query_one("#submit-status").content))
        await pilot.press("pageup")
        await until(pilot, lambda: wizard.step == "review")
        await quiet(pilot)
        # The countdown that would send again is stopped (the wait is 30 s: watching the clock
        # for it would make the test slow or prove nothing), and nothing more was sent.
        assert wizard._countdown_timer is None
        assert len(app.spy.posts) == 3
        assert values(wizard) == before


# --- a server without the extensions (search, requirements, rentals list) ---


def without_extensions(inner):
    """A deployment that only has what the spec defines: the extension GETs answer 404."""
    import httpx

    extension_paths = {"/v1/phone-numbers/available", "/v1/phone-numbers/requirements", "/v1/phone-numbers"}

    class Plain(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request):
            if request.method == "GET" and request.url.path in extension_paths:
                return httpx.Response(404, json={"error": "Not Found", "code": "not_found"})
            return await inner.handle_async_request(request)

    return Plain()


async def test_without_extensions_the_number_is_typed_and_documents_are_named_by_hand(make_host):
    app = make_host()
    app.spy.inner = without_extensions(app.spy.inner)
    app.spy.plan.append(lose_answer(after_sending=True))
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await click(pilot, "#search")
        await until(pilot, lambda: "does not offer number search" in str(wizard.query_one("#search-status").content))
        set_value(wizard, "number", "912272401010")
        await next_step(pilot, wizard, "requirements")
        await until(pilot, lambda: "does not describe its rental requirements"
                    in str(wizard.query_one("#requirements").content))
        await next_step(pilot, wizard, "enduser")
        await fill_end_user(pilot, wizard)
        await next_step(pilot, wizard, "documents")
        documents = [("business_registration", "gstin=29ABCDE1234F1ZW", "kyc/incorporation.pdf"),
                     ("address_proof", "", "kyc/electricity-bill.pdf"),
                     ("signatory_id", "pan=ABCDE1234F, signatory_name=R. Rao", "kyc/pan-card.png")]
        for index, (type_id, data, path) in enumerate(documents):
            if index:
                wizard.query_one("#doc-add", Button).press()
                # The new entry mounts in parts: wait for its last field, not only its first.
                await until(pilot, lambda: wizard.query(f"#doc-{index}-type")
                            and wizard.query(f"#doc-{index}-data")
                            and wizard.query(f"#doc-{index}-path"))
            set_value(wizard, f"doc-{index}-type", type_id)
            set_value(wizard, f"doc-{index}-data", data)
            set_value(wizard, f"doc-{index}-path", path)
        await next_step(pilot, wizard, "review")
        await confirm_rent(pilot, wizard)
        # The answer was lost and there is no list to look in: the local index knows nothing of
        # it, so the wizard offers a resend — with the same key, which the server deduplicates.
        await until(pilot, lambda: "safe to send again" in wizard.banner.message)
        assert "rentals this profile remembers" in wizard.banner.message
        await click(pilot, "#banner-retry")
        await until(pilot, lambda: rental_screen(app) is not None)
        assert len(app.spy.posts) == 2 and app.spy.keys[0] == app.spy.keys[1]
        payload = json.loads(_data_part(app.spy.posts[-1]))
        assert [d["documentTypeId"] for d in payload["documents"]] == [
            "business_registration", "address_proof", "signatory_id"]
        assert payload["documents"][2]["dataFields"] == {"pan": "ABCDE1234F", "signatory_name": "R. Rao"}


async def test_server_text_with_brackets_is_shown_as_it_is(make_host):
    app = make_host()
    message = "documents.1 (address_proof): scan [final].pdf is not a PDF [/] [bold]file[/bold]."
    app.spy.plan.append(answer(422, {"error": message, "code": "telephony_document_invalid"}))
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: wizard.step == "documents")
        assert message.rstrip(".") in wizard.banner.message
        assert "[final]" in str(wizard.query_one("#doc-1-path-error").content)


async def test_upload_streams_with_a_progress_bar(make_host, kyc_dir, monkeypatch):
    make_pdf(kyc_dir / "incorporation.pdf", pad_to=3 * 1024 * 1024)  # a realistic scan
    seen: list[tuple[int, int]] = []
    original = RentalWizard._progress

    def spy(self, sent: int, total: int) -> None:
        seen.append((sent, total))
        original(self, sent, total)

    monkeypatch.setattr(RentalWizard, "_progress", spy)
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_review(pilot, wizard)
        bar = wizard.query_one("#upload", ProgressBar)
        await confirm_rent(pilot, wizard)
        await until(pilot, lambda: rental_screen(app) is not None)
    total = seen[-1][1]
    assert total > 3 * 1024 * 1024
    assert len(seen) > 40  # chunk by chunk, not one lump
    assert [sent for sent, _ in seen] == sorted(sent for sent, _ in seen)
    assert seen[-1][0] == total and bar.percentage == 1.0


async def test_a_document_file_name_is_shown_literally_beside_its_field(make_host, tmp_path):
    # A file's name is its creator's choice: markup and an OSC 52 clipboard write in it.
    hostile = make_pdf(tmp_path / "[@click=app.quit]deed[b] \x1b]52;c;ZXZpbA==\x07.pdf")
    app = make_host()
    async with app.run_test(size=(120, 36)) as pilot:
        wizard = wizard_of(app)
        await to_documents(pilot, wizard)
        # As the picker puts it there (no keyboard types an ESC): shown with stand-ins, read as is.
        wizard.documents_step.entries[0].set_path(str(hostile))
        status = wizard.query_one("#doc-0-path-error")
        await until(pilot, lambda: "✔" in str(status.render()))
        shown = str(status.render())
        assert "[@click=app.quit]deed[b]" in shown and "\x1b" not in shown and "\x07" not in shown
