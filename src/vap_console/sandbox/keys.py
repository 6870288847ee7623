"""The sandbox's API keys: each one stands for a kind of account, like a payment API's test cards."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SandboxKey:
    key: str
    description: str
    # How the key authenticates: "ok", or why it is refused with 401.
    auth: str = "ok"
    agent_scope: bool = True
    # Rental behaviour of the account behind the key.
    eligible: bool = True
    autopay: bool = True
    telephony: bool = True
    verified_kyc: bool = False
    wallet_nanos: int = 25_000 * 10**9

    @property
    def accepted(self) -> bool:
        return self.auth == "ok"


DEFAULT_KEY = "sk_sandbox_agent"

SANDBOX_KEYS: dict[str, SandboxKey] = {
    k.key: k
    for k in (
        SandboxKey(
            "sk_sandbox_agent",
            "agent scope, pay-as-you-go with auto-pay, ₹25,000 in the wallet: everything works",
        ),
        SandboxKey(
            "sk_sandbox_verified",
            "like sk_sandbox_agent with KYC already verified: rentals take the plain JSON form",
            verified_kyc=True,
        ),
        SandboxKey(
            "sk_sandbox_short",
            "wallet short of the first month's rent: a rental starts in funding, auto-pay tops up",
            wallet_nanos=150 * 10**9,
        ),
        SandboxKey(
            "sk_sandbox_noautopay",
            "no auto-pay mandate: renting answers 402 telephony_autopay_required",
            autopay=False,
        ),
        SandboxKey(
            "sk_sandbox_ineligible",
            "free-trial account: renting answers 403 telephony_account_ineligible",
            eligible=False,
        ),
        SandboxKey(
            "sk_sandbox_notelephony",
            "deployment without telephony: number endpoints answer 503 telephony_not_configured",
            telephony=False,
        ),
        SandboxKey(
            "sk_sandbox_noscope",
            "key without the agent scope: every endpoint answers 403 forbidden_scope",
            agent_scope=False,
        ),
        SandboxKey("sk_sandbox_revoked", "revoked key: every endpoint answers 401 unauthorized", auth="revoked"),
        SandboxKey("sk_sandbox_expired", "expired key: every endpoint answers 401 unauthorized", auth="expired"),
    )
}

INELIGIBLE_REASON = (
    "The account is on a free trial; renting numbers needs a pay-as-you-go or subscription plan."
)
