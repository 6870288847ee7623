"""Outcomes picked by a requested number's last four digits, like a payment API's test cards."""

from __future__ import annotations

from enum import Enum


class Scenario(Enum):
    SUCCEEDS = "succeeds"
    KYC_REJECTED = "0002"
    PURCHASE_FAILS = "0003"
    NUMBER_TAKEN = "0004"
    CARRIER_REFUSES = "0005"

    @classmethod
    def of(cls, number: str) -> Scenario:
        for scenario in cls:
            if scenario.value == number[-4:]:
                return scenario
        return cls.SUCCEEDS


DESCRIPTIONS = {
    Scenario.KYC_REJECTED: "KYC rejected: status kyc_rejected, verification step failed, rejectionReason",
    Scenario.PURCHASE_FAILS: "purchase fails: status failed, purchase step failed, lastError",
    Scenario.NUMBER_TAKEN: "number taken meanwhile: a substitute from searchFilters is bought",
    Scenario.CARRIER_REFUSES: "the carrier refuses at once: POST answers 502 telephony_sandbox_error",
}
