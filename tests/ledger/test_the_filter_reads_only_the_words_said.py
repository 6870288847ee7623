"""The Calls list's filter searches the words each turn said, never the JSON they are kept in (its
role names, quotes, brackets); a transcript damaged by hand holds nothing to find (ledger/search.py)."""

from __future__ import annotations

import pytest

from vap_console.ledger.search import words_said


@pytest.mark.parametrize("stored, words", [
    ('[["assistant", "Namaste"], ["user", "move my \\"slot\\""]]', 'Namaste move my "slot"'),
    ('[["user", "hi"], ["only a role"], "a string", ["a", "b", "c"], ["assistant", 7]]', "hi 7"),
    ("", ""), (None, ""), ("[", ""), ('{"user": "hi"}', ""), ('"hi"', ""),
])
def test_the_words_said_are_read_from_a_stored_transcript(stored: str | None, words: str) -> None:
    assert words_said(stored) == words
