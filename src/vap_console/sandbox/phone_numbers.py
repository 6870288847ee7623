"""Rental endpoints (spec 4.1, GET /v1/phone-numbers/{id}) and the number search and
requirements extensions (DESIGN §4)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vap_console.api.limits import DATA_FIELD_KEY, DOCUMENTS, RENTAL_TEXT, REQUESTED_NUMBER
from vap_console.sandbox import inventory
from vap_console.sandbox.documents import MAX_BYTES, sniff
from vap_console.sandbox.keys import INELIGIBLE_REASON
from vap_console.sandbox.problems import FieldProblems, Problem, invalid_field, json_object, not_found
from vap_console.sandbox.rentals import RentalRecord, plan
from vap_console.sandbox.scenarios import Scenario
from vap_console.sandbox.state import Account
from vap_console.sandbox.wire import account_of, page, parse_json, read_json, sandbox_of

MAX_DOCUMENTS = DOCUMENTS.high
UPLOAD_BODY_MAX = MAX_DOCUMENTS * (MAX_BYTES + 64 * 1024) + 1024 * 1024
END_USER_FIELDS = (
    "name", "email", "address_line1", "address_line2", "city", "state", "postal_code", "country",
    "registration_number",
)
TEXT_MAX = RENTAL_TEXT.high


def _require_telephony(account: Account) -> None:
    if not account.key.telephony:
        raise Problem(503, "telephony_not_configured", "Rented numbers are not available on this deployment.")


def held_numbers(account: Account, now: datetime) -> set[str]:
    return {number for rental in account.rentals.values() for number in rental.holds(now)}


async def list_rentals(request: Request) -> Response:
    account = account_of(request)
    now = sandbox_of(request).now()
    rentals = sorted(account.rentals.values(), key=lambda r: r.created_at, reverse=True)
    return page([r.render(now, account) for r in rentals])


async def get_rental(request: Request) -> Response:
    account = account_of(request)
    rental = account.rentals.get(request.path_params["number_id"])
    if rental is None:
        raise not_found("rental with that id")
    return JSONResponse(rental.render(sandbox_of(request).now(), account))


def _query(request: Request, p: FieldProblems, name: str) -> str | None:
    value = request.query_params.get(name)
    if value is not None and len(value) > TEXT_MAX:
        p.add(f"query.{name}", f"must be at most {TEXT_MAX} characters")
        return None
    return value or None


def _number_type(request: Request, p: FieldProblems) -> str | None:
    number_type = _query(request, p, "numberType")
    if number_type is not None and number_type not in inventory.NUMBER_TYPES:
        p.add("query.numberType", "must be one of " + ", ".join(inventory.NUMBER_TYPES))
    return number_type


async def search_numbers(request: Request) -> Response:
    account = account_of(request)
    _require_telephony(account)
    p = FieldProblems()
    country = (_query(request, p, "countryIso") or inventory.COUNTRY).upper()
    number_type = _number_type(request, p)
    pattern = _query(request, p, "pattern")
    city = _query(request, p, "city")
    p.raise_if_any()
    if country != inventory.COUNTRY:
        return page([])
    found = inventory.search(
        number_type=number_type, pattern=pattern, city=city,
        exclude=held_numbers(account, sandbox_of(request).now()),
    )
    return page([item.to_wire() for item in found])


async def requirements(request: Request) -> Response:
    account = account_of(request)
    _require_telephony(account)
    p = FieldProblems()
    country = (_query(request, p, "countryIso") or inventory.COUNTRY).upper()
    number_type = _number_type(request, p) or "local"
    p.raise_if_any()
    key = account.key
    price = inventory.PRICES[number_type]
    if country != inventory.COUNTRY:
        eligibility = {"eligible": False, "reason": "The sandbox rents Indian (IN) numbers only."}
    elif not key.eligible:
        eligibility = {"eligible": False, "reason": INELIGIBLE_REASON}
    else:
        eligibility = {"eligible": True, "reason": None}
    return JSONResponse({
        "countryIso": country,
        "numberType": number_type,
        "verifiedKyc": key.verified_kyc,
        "eligibility": eligibility,
        "documentTypes": [] if key.verified_kyc else list(inventory.DOCUMENT_TYPES),
        "monthlyRentNanos": price.monthly_rent_nanos,
        "setupNanos": price.setup_nanos,
        "currency": inventory.CURRENCY,
    })


def _read_form(form: Any) -> tuple[Any, list[UploadFile]]:
    data = form.get("data")
    if data is None:
        raise invalid_field("body.data", "is required: the rental payload as a JSON string")
    if not isinstance(data, str):
        raise invalid_field("body.data", "must be a JSON string field, not a file")
    files = [f for name in ("files", "files[]") for f in form.getlist(name)]
    for i, item in enumerate(files):
        if not isinstance(item, UploadFile):
            raise invalid_field(f"body.files.{i}", "must be a file")
    return parse_json(data, "body.data"), files


def _check_payload(payload: Any, files: list[Any] | None) -> dict[str, Any]:
    payload = json_object(payload)
    p = FieldProblems()
    out: dict[str, Any] = {}
    requested = payload.get("requestedNumber")
    if requested is None:
        p.add("requestedNumber", "is required")
    elif (not isinstance(requested, str) or not REQUESTED_NUMBER.allows(len(requested))
          or inventory.normalise(requested) is None):
        p.add("requestedNumber", "must be an Indian number as bare digits (91…) or E.164 (+91…)")
    else:
        out["requested"] = requested
        out["number"] = inventory.normalise(requested)
    filters = payload.get("searchFilters")
    if filters is not None:
        if not isinstance(filters, dict):
            p.add("searchFilters", "must be an object with pattern and city")
        else:
            clean = {}
            for key in ("pattern", "city"):
                value = filters.get(key)
                if value is not None and (not isinstance(value, str) or len(value) > TEXT_MAX):
                    p.add(f"searchFilters.{key}", f"must be a string of at most {TEXT_MAX} characters")
                elif value:
                    clean[key] = value
            out["searchFilters"] = clean
    multipart = files is not None
    end_user = payload.get("endUser")
    if end_user is None:
        if multipart:
            p.add("endUser", "is required when documents are sent")
    elif not isinstance(end_user, dict):
        p.add("endUser", "must be an object")
    else:
        clean_user = {}
        for key in END_USER_FIELDS:
            value = end_user.get(key)
            if value is None:
                continue
            if not isinstance(value, str) or len(value) > TEXT_MAX:
                p.add(f"endUser.{key}", f"must be a string of at most {TEXT_MAX} characters")
            else:
                clean_user[key] = value
        if not (clean_user.get("name") or "").strip():
            p.add("endUser.name", "is required: the business's legal name")
        if clean_user.get("email") and "@" not in clean_user["email"]:
            p.add("endUser.email", "must be an email address")
        out["endUser"] = clean_user
    documents = payload.get("documents")
    if documents is None:
        if multipart:
            p.add("documents", "is required when files are sent")
    elif not isinstance(documents, list):
        p.add("documents", "must be a list")
    elif len(documents) > MAX_DOCUMENTS:
        p.add("documents", f"must have at most {MAX_DOCUMENTS} entries")
    else:
        out["documents"] = _check_documents(p, documents)
    p.raise_if_any()
    return out


def _check_documents(p: FieldProblems, documents: list[Any]) -> list[dict[str, Any]]:
    known = {d["id"]: d for d in inventory.DOCUMENT_TYPES}
    seen: set[str] = set()
    clean = []
    for i, entry in enumerate(documents):
        loc = f"documents.{i}"
        if not isinstance(entry, dict):
            p.add(loc, "must be an object with documentTypeId and dataFields")
            continue
        type_id = entry.get("documentTypeId")
        if not isinstance(type_id, str) or type_id not in known:
            p.add(f"{loc}.documentTypeId", "must be one of " + ", ".join(known))
            continue
        if type_id in seen:
            p.add(f"{loc}.documentTypeId", f"{type_id} is listed twice")
        seen.add(type_id)
        fields = entry.get("dataFields") or {}
        if not isinstance(fields, dict):
            p.add(f"{loc}.dataFields", "must be an object of strings")
            fields = {}
        values = {}
        for key, value in fields.items():
            if not DATA_FIELD_KEY.allows(len(key)):
                p.add(f"{loc}.dataFields.{key[:DATA_FIELD_KEY.high]}", f"key must be {DATA_FIELD_KEY.rule()}")
            elif not isinstance(value, str) or not RENTAL_TEXT.allows(len(value)):
                p.add(f"{loc}.dataFields.{key}", f"must be a string of {RENTAL_TEXT.rule()}")
            else:
                values[key] = value
        for spec in known[type_id]["dataFields"]:
            if spec["required"] and not values.get(spec["key"], "").strip():
                p.add(f"{loc}.dataFields.{spec['key']}", f"is required ({spec['label']})")
        clean.append({"documentTypeId": type_id, "dataFields": values})
    return clean


async def _check_files(documents: list[dict[str, Any]], files: list[UploadFile]) -> None:
    if len(files) != len(documents):
        raise Problem(422, "telephony_document_invalid",
                      f"Send one file per documents entry, in the same order: "
                      f"{len(documents)} entries but {len(files)} files.")
    missing = [d["id"] for d in inventory.DOCUMENT_TYPES if d["id"] not in {e["documentTypeId"] for e in documents}]
    if missing:
        raise Problem(422, "telephony_document_invalid",
                      "Required document types are missing: " + ", ".join(missing) + ".")
    for i, (entry, upload) in enumerate(zip(documents, files, strict=True)):
        name = (upload.filename or f"file {i + 1}")[:120]
        size = upload.size if upload.size is not None else len(await upload.read())
        if size > MAX_BYTES:
            raise Problem(422, "telephony_document_invalid",
                          f"documents.{i} ({entry['documentTypeId']}): {name} is {size} bytes; "
                          f"the limit is 5 MB ({MAX_BYTES} bytes).")
        await upload.seek(0)
        kind = sniff(await upload.read(16))
        if kind is None:
            raise Problem(422, "telephony_document_invalid",
                          f"documents.{i} ({entry['documentTypeId']}): {name} is not a PDF, JPEG or PNG file.")
        entry.update(fileName=name, contentType=kind, size=size)


async def rent_number(request: Request) -> Response:
    account = account_of(request)
    key = account.key
    _require_telephony(account)
    if not key.eligible:
        raise Problem(403, "telephony_account_ineligible", INELIGIBLE_REASON)
    if not key.autopay:
        raise Problem(402, "telephony_autopay_required",
                      "Renting needs an auto-pay mandate covering at least the first month's rent; "
                      "set one up in the dashboard.")
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "multipart/form-data":
        return await _rent(request, account, _check_payload(await read_json(request), None), None)
    try:
        form_context = request.form(max_files=MAX_DOCUMENTS, max_fields=20, max_part_size=1024 * 1024)
        async with form_context as form:
            payload, files = _read_form(form)
            # Inside the block: the uploads' temporary files are closed when it ends.
            return await _rent(request, account, _check_payload(payload, files), files)
    except HTTPException as exc:
        if exc.status_code != 400:
            raise
        raise invalid_field("body", f"is not readable multipart/form-data ({exc.detail})") from None


async def _rent(
    request: Request, account: Account, fields: dict[str, Any], files: list[UploadFile] | None
) -> Response:
    key = account.key
    if files is None:
        if not key.verified_kyc:
            raise Problem(422, "telephony_document_invalid",
                          "This account's KYC is not verified: send endUser, documents and their files "
                          "as multipart/form-data.")
        fields.setdefault("documents", [])
    else:
        await _check_files(fields["documents"], files)
    sandbox = sandbox_of(request)
    now = sandbox.now()
    number = fields["number"]
    held = held_numbers(account, now)
    if number in held:
        raise invalid_field("body.requestedNumber", "this account already holds or is renting this number")
    scenario = Scenario.of(number)
    if scenario is Scenario.CARRIER_REFUSES:
        raise Problem(502, "telephony_sandbox_error",
                      "The carrier refused the request (sandbox scenario 0005); nothing was charged. "
                      "Safe to retry later.")
    listing = inventory.lookup(number)
    charge = listing.price.first_charge_nanos
    short = max(0, charge - account.balance())
    milestones, ledger = plan(
        start=now, scenario=scenario, listing=listing, search_filters=fields.get("searchFilters"),
        short_nanos=short, known_kyc=files is None, exclude=held,
    )
    rental_id = account.next_id("rental")
    end_user = fields.get("endUser") or {"name": "Sandbox verified business"}
    record = RentalRecord(
        id=rental_id, requested_number=fields["requested"], listing=listing,
        search_filters=fields.get("searchFilters"), end_user=end_user, documents=fields["documents"],
        alias=f"{end_user['name'][:60]} – {listing.city or listing.e164}",
        compliance_id=account.next_id("compliance"),
        carrier_compliance_id="CA" + rental_id.replace("-", "")[:16].upper(),
        created_at=now, milestones=milestones,
    )
    account.rentals[rental_id] = record
    account.ledger.extend(ledger)
    return JSONResponse(record.render(now, account), status_code=201)
