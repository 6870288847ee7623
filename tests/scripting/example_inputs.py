"""The files the `--help` examples name as their input (tool.json, application.json, the three
KYC documents, the conversation test the repository ships), as a person running them would have
them: for tests/scripting/test_help_examples.py and every command run on a hostile sandbox."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.e2e.documents import make_kyc_set
from vap_console.sandbox import inventory
from vap_console.sandbox.seed import END_USER

ROOT = Path(__file__).resolve().parents[2]


def example_inputs(folder: Path) -> Path:
    """``folder`` made and filled with the files the examples read."""
    kyc = make_kyc_set(folder)
    assert [p.name for p in kyc.values()] == ["incorporation.pdf", "electricity-bill.pdf", "pan-card.png"]
    (folder / "tool.json").write_text(json.dumps({
        "name": "order_lookup", "description": "Looks an order up by its number", "kind": "during_call",
        "config": {"method": "GET", "url": "https://shop.example/api/orders/{order_id}",
                   "llmParams": [{"name": "order_id", "type": "string", "description": "the order number"}]},
    }), encoding="utf-8")
    number = inventory.search(number_type=None, pattern=None, city=None, exclude=set())[0]
    (folder / "application.json").write_text(json.dumps({
        "requestedNumber": number.e164, "endUser": END_USER,
        "documents": [
            {"documentTypeId": "business_registration", "dataFields": {"gstin": "27AAACS1234F1ZS"}},
            {"documentTypeId": "address_proof", "dataFields": {}},
            {"documentTypeId": "signatory_id", "dataFields": {"pan": "ABCPS1234K", "signatory_name": "Dr Anjali Sharma"}},
        ],
    }), encoding="utf-8")
    # vap agents test's example reads the conversation test the repository ships.
    shutil.copy(ROOT / "examples" / "front-desk.test.json", folder / "front-desk.test.json")
    return folder
