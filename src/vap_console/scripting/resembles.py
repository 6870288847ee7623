"""The ``resembles`` expectation of a conversation test: an answer that may be reworded, judged
without a model by the share of a recorded answer's words it says again (docs/testing.md).

``{"resembles": {"text": "Our hours are 9 am to 6 pm.", "min_share": 0.6}}`` holds when at least
60 % of the distinct words of ``text`` (letters and digits, any case) are in the answer. An agent
on a language model says the same thing in other words from one call to the next; the words that
carry the facts (the hours, the name, the date) are what the share keeps. ``vap calls to-test``
writes one for every answer of a kept call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from vap_console.api.figures import percent

# A call turned into a test asks this share unless told otherwise (`vap calls to-test --min-share`).
DEFAULT_SHARE = 0.6
KEYS = {"text", "min_share"}
_WORD = re.compile(r"\w+")


class ResemblesError(ValueError):
    """A ``resembles`` value that breaks its rule: ``at`` the field, ``rule`` in words."""

    def __init__(self, at: str, rule: str) -> None:
        super().__init__(f"{at}: {rule}")
        self.at = at
        self.rule = rule


def words(text: str) -> set[str]:
    """The distinct words of ``text``, lower case: what the share counts."""
    return {w.casefold() for w in _WORD.findall(text)}


def check_share(at: str, value: Any) -> float:
    """A share above 0 and at most 1, else ResemblesError naming ``at``."""
    number = not isinstance(value, bool) and isinstance(value, (int, float))
    if not number or not 0 < value <= 1:
        raise ResemblesError(at, "must be a number above 0 and at most 1 (the share of the recorded "
                                 "answer's words the answer must say: 0.6 is 60 %)")
    return float(value)


@dataclass(frozen=True)
class Resembles:
    text: str
    min_share: float = DEFAULT_SHARE

    @classmethod
    def read(cls, at: str, value: Any) -> Resembles:
        """From a test file's ``resembles`` value; ResemblesError naming the field and the rule."""
        if not isinstance(value, dict):
            raise ResemblesError(at, 'must be an object such as {"text": "the recorded answer", "min_share": 0.6}')
        unknown = sorted(set(value) - KEYS)
        if unknown:
            raise ResemblesError(f"{at}.{unknown[0]}", f"unknown field (known: {', '.join(sorted(KEYS))})")
        text = value.get("text")
        if not isinstance(text, str) or not words(text):
            raise ResemblesError(f"{at}.text", "required: the recorded answer, with at least one word")
        share = check_share(f"{at}.min_share", value["min_share"]) if "min_share" in value else DEFAULT_SHARE
        return cls(text, share)

    def share_in(self, answer: str) -> float:
        """The share of this text's distinct words that ``answer`` says too (0 to 1)."""
        wanted = words(self.text)
        return len(wanted & words(answer)) / len(wanted)

    def holds(self, answer: str) -> bool:
        # A hair of tolerance: 3 words of 5 are 0.6 exactly, whatever the float arithmetic says.
        return self.share_in(answer) + 1e-9 >= self.min_share

    def in_words(self) -> str:
        return f"resembles the recorded answer (at least {percent(self.min_share)} of its words)"
