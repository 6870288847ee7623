"""A bracketed paste reaches the console whole, as one Paste event, whatever it holds.

Why this exists: Textual's XTermParser (measured against Textual 8.2.8) reads an ESC inside a
bracketed paste as the start of an escape sequence. What precedes the first ESC becomes the Paste;
the rest is handed on as key presses (ESC as "^", BEL dropped), after the paste. A pasted text
could then press the console's keys: "\\x1bd" deletes, "\\x1by" answers a question. Here the paste
start marker hands the reading to a loop that takes every character, ESC included, until the end
marker ESC[201~ (the only thing that ends a paste); the whole text is one Paste, which the console
shows literally (LiteralApp cleans every paste: an ESC is drawn as a stand-in, never written).

Outside a paste, Textual's own parser reads as before. Textual's drivers build their parser inside
their input thread; ``reading_whole_pastes`` gives a driver that same code with this parser in
place of Textual's, so nothing of the input loop is copied here.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from textual import events
from textual._parser import ParseEOF, ParseError, Peek1, Read1, TokenCallback
from textual._xterm_parser import BRACKETED_PASTE_END, BRACKETED_PASTE_START, XTermParser
from textual.message import Message

F = TypeVar("F", bound=Callable[..., Any])


class WholePasteParser(XTermParser):
    def parse(self, token_callback: TokenCallback[Message]) -> Generator[Read1 | Peek1, str, None]:
        while True:
            # Textual's parser, fresh (its own paste state unused), until it has read a paste start.
            textual = super().parse(token_callback)
            request = next(textual)
            last = ""
            while last != BRACKETED_PASTE_START:
                try:
                    character = yield request
                except ParseError as error:  # its escape-key timeout, or the end of input
                    try:
                        request = textual.throw(error)
                    except StopIteration:
                        return
                    continue
                try:
                    request = textual.send(character)
                except StopIteration:
                    return
                last = (last + character)[-len(BRACKETED_PASTE_START):]
            textual.close()
            # The paste: everything up to the end marker, read here.
            pasted: list[str] = []
            while "".join(pasted[-len(BRACKETED_PASTE_END):]) != BRACKETED_PASTE_END:
                try:
                    pasted.append((yield self.read1()))
                except ParseEOF:
                    return  # input ended inside a paste: Textual drops such a paste too
            text = "".join(pasted[:-len(BRACKETED_PASTE_END)])
            token_callback(events.Paste(text.replace("\x00", "")))  # NUL removed, as Textual does


def reading_whole_pastes(run_input_thread: F) -> F:
    """A Textual driver's ``run_input_thread``, the same code, building a WholePasteParser where it
    builds an XTermParser (a name it looks up in its module when the thread starts)."""
    function: Any = run_input_thread
    if "XTermParser" not in function.__code__.co_names:
        raise TypeError(f"{function.__qualname__} builds no XTermParser: nothing to replace")
    return types.FunctionType(  # type: ignore[return-value]  # the same signature as given
        function.__code__, {**function.__globals__, "XTermParser": WholePasteParser},
        function.__name__, function.__defaults__, function.__closure__,
    )
