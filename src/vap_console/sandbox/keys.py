"""The sandbox's API keys: each one stands for a kind of account, like a payment API's test cards.

Real keys are ``rk_live_`` and 24 characters. Sandbox keys have the same shape with ``rk_test_``
(``rk_test_0000000000000000000agent``), so code that checks a key's form treats both alike, and a
test key is still told apart from a live one at a glance. The name ends the key because keys are
shown masked to their last 4 characters: ``…gent`` and ``…hony`` tell two profiles apart, where
the zeros that ended the first spelling (``rk_test_agent0000000000000000000``) did not. Both older
spellings still work and reach the same account: that one, and ``sk_sandbox_<name>``.
"""

from __future__ import annotations

from dataclasses import dataclass

TEST_PREFIX = "rk_test_"
LEGACY_PREFIX = "sk_sandbox_"
# What follows the prefix in a real key (rk_live_ + 24 characters).
KEY_BODY_LENGTH = 24


def test_key(name: str) -> str:
    """``rk_test_`` + zeros + the account's name, 24 characters after the prefix."""
    if len(name) > KEY_BODY_LENGTH:
        raise ValueError(f"a sandbox key name has at most {KEY_BODY_LENGTH} characters")
    return TEST_PREFIX + name.rjust(KEY_BODY_LENGTH, "0")


def padded_after_key(name: str) -> str:
    """The first ``rk_test_`` spelling, the name first and the zeros after; still accepted."""
    return TEST_PREFIX + name.ljust(KEY_BODY_LENGTH, "0")


@dataclass(frozen=True)
class SandboxKey:
    name: str
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
    # Web calls (the call endpoints' own errors, reference/real-service.md).
    call_slots: int = 4
    plan: str = "payg"
    voice_agents: bool = True  # False: 503 not_configured
    call_balance: bool = True  # False: 402 insufficient_balance
    blocked: bool = False  # True: 402 access_blocked
    start_fails_first: bool = False  # True: each agent's first web call answers 502 agent_start_failed

    @property
    def key(self) -> str:
        return test_key(self.name)

    @property
    def legacy(self) -> str:
        return LEGACY_PREFIX + self.name

    @property
    def id_seed(self) -> str:
        # Ids made later are derived from this: the old key name keeps them what they always were.
        return self.legacy

    @property
    def accepted(self) -> bool:
        return self.auth == "ok"


KEYS: tuple[SandboxKey, ...] = (
    SandboxKey("agent", "agent scope, pay-as-you-go with auto-pay, ₹25,000 in the wallet, 4 call slots: "
               "everything works"),
    SandboxKey("verified", "like agent with KYC already verified: rentals take the plain JSON form",
               verified_kyc=True),
    SandboxKey("short", "wallet short of the first month's rent: a rental starts in funding, auto-pay tops up",
               wallet_nanos=150 * 10**9),
    SandboxKey("noautopay", "no auto-pay mandate: renting answers 402 telephony_autopay_required",
               autopay=False),
    SandboxKey("ineligible", "free-trial account: renting answers 403 telephony_account_ineligible",
               eligible=False),
    SandboxKey("notelephony", "deployment without telephony: renting, the number search and the requirements "
               "answer 503 telephony_not_configured; the seeded rentals still list and open",
               telephony=False),
    SandboxKey("nobalance", "no call credit left: a web call answers 402 insufficient_balance",
               call_balance=False),
    SandboxKey("blocked", "account paused after a failed payment: a web call answers 402 access_blocked",
               blocked=True),
    SandboxKey("noagents", "deployment without voice agents: agent endpoints, web calls and speech answer 503 "
               "not_configured", voice_agents=False),
    SandboxKey("flaky", "each agent's first web call answers 502 agent_start_failed; the next one starts",
               start_fails_first=True),
    SandboxKey("noscope", "key without the agent scope: every endpoint answers 403 forbidden_scope",
               agent_scope=False),
    SandboxKey("revoked", "revoked key: every endpoint answers 401 unauthorized", auth="revoked"),
    SandboxKey("expired", "expired key: every endpoint answers 401 unauthorized", auth="expired"),
)

DEFAULT_KEY = KEYS[0].key

# Every accepted spelling: the rk_test_ key and its two older aliases, all to the same record.
SANDBOX_KEYS: dict[str, SandboxKey] = {
    **{k.key: k for k in KEYS},
    **{padded_after_key(k.name): k for k in KEYS},
    **{k.legacy: k for k in KEYS},
}


def by_name(name: str) -> SandboxKey:
    return next(k for k in KEYS if k.name == name)


INELIGIBLE_REASON = (
    "The account is on a free trial; renting numbers needs a pay-as-you-go or subscription plan."
)
