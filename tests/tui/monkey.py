"""A seeded random-input run of the whole console ("monkey"), with replay and shrinking.

One seed gives one event list (``generate``); ``run_session`` plays a list into a fresh console
on an in-process sandbox with faults on (VirtualClock, the real API client, a sleep that moves
the virtual clock) and stops at the first failure:

- ``crash``: the app stopped on an exception (``app._exception``);
- ``exit``: the app exited although nothing the monkey sent asks it to (q, ctrl+c, ctrl+q, the
  key bar's Quit and the palette's Quit are never sent; see ``Session._would_quit``);
- ``unhandled-worker-error``: a worker failed and its error never reached ``VapApp.worker_failed``
  (the one handler) while its screen was still up;
- ``stalled``: a request worker did not finish within ``STALL_SECONDS``;
- ``stuck``: after the run, Escape (up to ``ESCAPES`` times, each followed by a settle) then ``q``
  (and ``q`` again to answer "Quit and discard?") did not exit the app.

Events are JSON lists, so a failing list can be pasted back:

    ["key", NAME]            a key press (Textual key name)
    ["type", TEXT]           text as a terminal sends it when typed (control characters included),
                             decoded by Textual's own xterm parser into key events
    ["paste", TEXT]          a bracketed paste
    ["click", X, Y, N, B]    N clicks (1 single, 2 double, 3 triple) of button B at X, Y, sent as
                             MouseDown/MouseUp through the driver: the app makes Click(chain=N)
    ["wheel", X, Y, DIR, N]  N wheel steps up or down at X, Y
    ["hover", X, Y]          the mouse moves to X, Y
    ["resize", W, H]         the terminal is resized
    ["tick", SECONDS]        the sandbox's virtual clock moves on (rentals progress)
    ["target", SELECTOR]     a click in the middle of the first visible widget matching SELECTOR
                             (nothing when there is none): a person aiming at a button
    ["fill", VARIANT]        fill the form on screen the way a person would (wizard step, tool
                             form, create agent, login, add by id, file picker), every VARIANTth
                             one with hostile text (markup, control characters, long strings)

Coordinates are taken modulo the terminal size at the time, so any list replays at any size.

Why a seeded ``random.Random`` and our own shrinking rather than Hypothesis's stateful testing:
a run is one long session of thousands of events in a single app (state piles up: tools created
with odd names are listed later, rentals move on), starting an app costs ~0.5 s, and pytest's
event loop runs the app; Hypothesis would restart the app per example and would need hundreds
of examples to shrink. Here a seed maps to one event list, the list is plain JSON to replay, and
``shrink`` (delta debugging, bounded in time) cuts a failing list down while the same failure
(kind, exception type, top frame in vap_console) still happens.

Command line (the harness of ``make soak``):

    python -m tests.tui.monkey soak   [--events N] [--seed S]        long run, new seed unless given
    python -m tests.tui.monkey hunt   --seeds A-B [--events N]       many seeds, failures grouped
    python -m tests.tui.monkey replay --seed S --events FILE|JSON   one list, shrunk on failure

``MONKEY_SLOW_LOOP=MS`` (any of them, and the pytest run): each turn of the event loop takes up to
MS ms more, slept, as on a machine whose cores are busy (timers fall due in the middle of what an
event set off), without burning CPU to get there.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from textual import events
from textual._xterm_parser import XTermParser
from textual.app import SystemCommand
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, Select, TextArea
from textual.worker import Worker, WorkerState

Event = list[Any]

# --- the generator ------------------------------------------------------------------------------

# Keys that quit from anywhere (priority bindings): never sent.
QUIT_KEYS = frozenset({"ctrl+c", "ctrl+q"})
# The console's keys, and the keys people press anyway. `q` is sent only where it cannot quit.
CONSOLE_KEYS = [
    "1", "2", "3", "4", "5", "6", "7", "n", "a", "d", "w", "r", "slash", "question_mark",
    "enter", "escape", "tab", "shift+tab", "up", "down", "left", "right", "pageup", "pagedown",
    "home", "end", "ctrl+p", "ctrl+s", "space", "backspace", "y", "u", "c", "q",
]
OTHER_KEYS = [
    "j", "k", "h", "o", "i", "t", "x", "delete", "insert", "f1", "f2", "f5", "f10", "ctrl+a",
    "ctrl+e", "ctrl+k", "ctrl+u", "ctrl+w", "ctrl+z", "ctrl+x", "ctrl+v", "ctrl+left",
    "ctrl+right", "shift+up", "shift+down", "shift+left", "shift+right", "shift+home", "shift+end",
    "alt+x", "ctrl+home", "ctrl+end", "ctrl+l", "ctrl+o", "ctrl+f", "ctrl+b", "ctrl+d",
    "ctrl+shift+p", "shift+enter", "ctrl+enter", "ctrl+backspace", "minus", "plus", "8", "9", "0",
]
HOSTILE = [
    "[/]", "[@click=app.quit]", "[@click=app.screenshot('/tmp','x.svg')]", "Ops [/] desk",
    "[b]bold[/b", "[red]red", "field [name] is required", "no route for [/v1/x]", "[link=https://x]x",
    "\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x1b]52;c;ZWNobyBwd25lZA==\x07", "\x1b[31mred\x1b[0m",
    "\u202eevil\u202c", "\u200b\u200d", "\x00\x01\x02\x7f\x9b", "हिन्दी नाम", "中文名字", "😀🎉👍🏽",
    "A" * 300, "x" * 10_000, "a\nb\nc", "{customer_id}", "{{tool}}", "%s%s%n", "' OR 1=1 --",
    "../../etc/passwd", "~/nowhere.pdf", "-1", "9" * 40, "1e309", "NaN", "   ", "",
]
PLAIN = [
    "pune", "Bengaluru", "lookup_order", "Front desk 2", "9122724010", "+91 80 4567 0001",
    "912272400002", "kyc/pan-card.png", "kyc/incorporation.pdf", "kyc/electricity-bill.pdf",
    "https://api.example.com/orders/{order_id}", "GET", "4567", "sandbox", "dental", "ira",
    "mulberry", "hello world", "ua_", "abc123", "tools", "agents",
]
PASTES = [
    *HOSTILE, *PLAIN, "q", "quit", "qqq", "q\n", "the quick brown fox\njumps over\nthe lazy dog q",
    "line one\r\nline two\r\n", "\t\ttabs\tand spaces  ", "\x1b[200~nested\x1b[201~", "\x03\x11",
    "https://sandbox.test/v1/agents?x=[1]", "sk_sandbox_agent", "[" * 200 + "]" * 200,
]
PALETTE_QUERIES = [
    "go to tools", "go to numbers", "go to agents", "go to profiles", "go to voices", "keys",
    "theme", "screenshot", "maximize", "minimize", "refresh", "filter", "rent", "web call",
    "delete", "create agent", "new tool", "add by id", "tem", "var", "qu", "[/]", "zzz",
]
# The buttons a person aims at (the generator's ["target", …] events).
TARGETS = [
    "#search", ".doc-browse", "#doc-add", "#wizard-next", "#wizard-back", "#wizard-cancel",
    "#yes", "#no", "#create", "#cancel", "#ok", "#close",
    "#copy-token", "#copy-host", "#login-save", "#login-session", "#login-cancel", "Banner Button",
    "ListState Button", "#results", "#rows", "#profile-rows", "#picker-tree", "Select", "Checkbox",
    "#number-type", "#f-kind", "#f-config-method", "#f-config-auth-type", "#filter",
]
MAX_W, MAX_H = 220, 60
TYPED = 24  # the longest typed text (each character is a key event)
SIZES = [(80, 24), (60, 18), (220, 60), (120, 36), (100, 30), (61, 19), (200, 50), (132, 43)]


def _text(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(HOSTILE)[:TYPED]  # typed text stays short: pastes and fills bring long ones
    if pick < 0.6:
        return rng.choice(PLAIN)
    if pick < 0.8:
        alphabet = "abcdefghijklmnopqrstuvwxyzABC0123456789 -_./[]{}@=:'\"\\!?#%&*()<>"
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 20)))
    controls = [chr(c) for c in range(32) if chr(c) not in "\x03\x11"] + ["\x7f"]
    return "".join(rng.choice(controls + list("abc[]")) for _ in range(rng.randint(1, 6)))


def _xy(rng: random.Random) -> tuple[int, int]:
    # Half the clicks land where the lists and dialogs are on common sizes; the rest anywhere.
    if rng.random() < 0.5:
        return rng.randrange(0, 120), rng.randrange(0, 36)
    return rng.randrange(0, MAX_W), rng.randrange(0, MAX_H)


def noise(rng: random.Random) -> Event:
    """One event of any kind."""
    kind = rng.choices(
        ["key", "other", "type", "paste", "click", "wheel", "hover", "resize", "tick", "target"],
        weights=[30, 8, 12, 6, 18, 6, 3, 3, 3, 6],
    )[0]
    if kind == "key":
        return ["key", rng.choice(CONSOLE_KEYS)]
    if kind == "other":
        return ["key", rng.choice(OTHER_KEYS)]
    if kind == "type":
        return ["type", _text(rng)]
    if kind == "paste":
        return ["paste", rng.choice(PASTES)]
    if kind == "click":
        x, y = _xy(rng)
        return ["click", x, y, rng.choices([1, 2, 3], weights=[6, 3, 2])[0], rng.choices([1, 3, 2], [10, 1, 1])[0]]
    if kind == "wheel":
        x, y = _xy(rng)
        return ["wheel", x, y, rng.choice(["up", "down"]), rng.randint(1, 6)]
    if kind == "hover":
        return ["hover", *_xy(rng)]
    if kind == "resize":
        if rng.random() < 0.5:
            return ["resize", *rng.choice(SIZES)]
        return ["resize", rng.randint(60, MAX_W), rng.randint(18, MAX_H)]
    if kind == "tick":
        return ["tick", rng.choice([1, 2, 5, 10, 30, 61])]
    return ["target", rng.choice(TARGETS)]


def _maybe_noise(rng: random.Random, p: float = 0.25) -> list[Event]:
    return [noise(rng)] if rng.random() < p else []


def _downs(rng: random.Random, most: int = 5) -> list[Event]:
    return [["key", "down"]] * rng.randint(0, most)


def _wizard(rng: random.Random) -> list[Event]:
    out: list[Event] = [["key", "1"], ["key", "n"]]
    stages = rng.choice([1, 2, 3, 4, 5, 5, 6, 6, 6])
    for stage in range(stages):
        out += _maybe_noise(rng, 0.3)
        if stage == 0 and rng.random() < 0.3:
            out += [["type", rng.choice(["4567", "", "0002", "9"])], ["target", "#search"],
                    ["target", "#results"], ["key", "enter"]]
        elif stage == 3 and rng.random() < 0.3:
            out += [["target", ".doc-browse"]] + [["key", rng.choice(["down", "enter", "down", "right"])]
                                                  for _ in range(rng.randint(1, 6))]
        out.append(["fill", rng.randrange(1000)])
        out.append(["key", "pagedown"] if rng.random() < 0.8 else ["target", "#wizard-next"])
    if stages == 6:  # review → confirm → send
        out += [["target", "#yes"] if rng.random() < 0.8 else ["key", "escape"]]
        out += [["tick", rng.choice([3, 5, 8])] for _ in range(rng.randint(0, 5))]
    return out


# What a person does before going elsewhere: close the dialog, discarding what was typed.
CLOSE = [["key", "escape"], ["key", "y"], ["target", "#yes"]]


def chunk(rng: random.Random) -> list[Event]:
    """A few events that do one thing a person does (open a dialog, walk the wizard…), or noise.
    Most of those that go somewhere first close what is open (CLOSE)."""
    out = _chunk(rng)
    if out and out[0][0] == "key" and out[0][1] in "1234567" and len(out) > 1 and rng.random() < 0.6:
        return [*CLOSE, *out]
    return out


def _chunk(rng: random.Random) -> list[Event]:
    kind = rng.choices(
        ["noise", "area", "wizard", "tool_form", "webcall", "create_agent", "confirm", "help",
         "palette", "timeline", "filter", "add_by_id", "profiles", "escape", "leave"],
        weights=[34, 10, 7, 4, 3, 3, 3, 2, 3, 3, 2, 1, 3, 3, 4],
    )[0]
    if kind == "noise":
        return [noise(rng) for _ in range(rng.randint(1, 6))]
    if kind == "area":
        return [["key", rng.choice("1234567")]]
    if kind == "wizard":
        return _wizard(rng)
    if kind == "tool_form":
        out = [["key", "2"], ["key", "n"], *_maybe_noise(rng), ["fill", rng.randrange(1000)]]
        out += _maybe_noise(rng)
        out.append(["key", "ctrl+s"] if rng.random() < 0.8 else ["target", "#create"])
        # "Create the tool with unknown placeholders?" when the URL has some: yes, mostly.
        return out + ([["key", "y"]] if rng.random() < 0.6 else [])
    if kind == "webcall":
        # w asks first (the call is billed): mostly yes, sometimes no, sometimes a click.
        answer = rng.choices([["key", "y"], ["key", "n"], ["target", "#yes"], ["key", "escape"]],
                             weights=[6, 1, 1, 1])[0]
        out = [["key", "6"], *_downs(rng, 4), ["key", "w"], answer]
        return out + [["key", rng.choice(["t", "h", "o", "i", "escape"])] for _ in range(rng.randint(0, 3))]
    if kind == "create_agent":
        name = rng.choice(PLAIN + HOSTILE[:24])
        return [["key", "5"], *_downs(rng), ["key", "a"], ["type", name[:TYPED]], *_maybe_noise(rng),
                ["key", "enter"] if rng.random() < 0.8 else ["target", "#create"]]
    if kind == "confirm":
        area = rng.choice(["2", "6", "7"])
        answer = rng.choice([["key", "y"], ["key", "n"], ["key", "escape"], ["target", "#yes"],
                             ["target", "#no"]])
        return [["key", area], *_downs(rng), ["key", "d"], *_maybe_noise(rng, 0.2), answer]
    if kind == "help":
        return [["key", rng.choice("123456")], ["key", "question_mark"], *_maybe_noise(rng, 0.5)]
    if kind == "palette":
        out: list[Event] = [["key", "ctrl+p"], ["type", rng.choice(PALETTE_QUERIES)]]
        out += [["key", "down"]] * rng.randint(0, 2)
        return out + [["key", rng.choice(["enter", "enter", "enter", "escape"])]]
    if kind == "timeline":
        out = [["key", "1"], *_downs(rng, 6), ["key", "enter"]]
        out += [["tick", rng.choice([2, 5, 10])] for _ in range(rng.randint(0, 4))]
        return out + [["key", rng.choice(["r", "c", "escape"])]]
    if kind == "filter":
        return [["key", rng.choice("123456")], ["key", "slash"], ["type", _text(rng)],
                ["key", rng.choice(["enter", "escape", "down"])]]
    if kind == "add_by_id":
        return [["key", rng.choice("16")], ["key", "a"], ["fill", rng.randrange(1000)],
                ["key", "enter"]]
    if kind == "profiles":
        out = [["key", "7"], *_downs(rng, 4), ["key", rng.choice(["a", "u", "d", "r", "enter"])]]
        return out + [["fill", rng.randrange(1000)],
                      ["target", rng.choice(["#login-save", "#login-session", "#yes", "#no"])]]
    if kind == "leave":  # out of a form with something typed: Escape, then "discard"
        return [["key", "escape"], rng.choice([["key", "y"], ["target", "#yes"]])]
    return [["key", "escape"]] * rng.randint(1, 4)


def generate(seed: int, count: int) -> list[Event]:
    """The event list of a seed: ``count`` events, the same on every machine and run."""
    rng = random.Random(seed)
    out: list[Event] = []
    while len(out) < count:
        out += chunk(rng)
    return out[:count]


# --- the session --------------------------------------------------------------------------------

BASE_URL = "http://sandbox.test"
# Workers that run for as long as their screen: the rental polls, DirectoryTree's loader queue, a
# talk call, which lasts until the person hangs up (on the profiles that point at the served
# sandbox it connects and goes on: seed 102 was reported "stalled" on a call in progress), and the
# Calls area reading its open calls every few seconds until they end (seeds 14 and 231).
BACKGROUND_GROUPS = frozenset({"rental-poll", "rental-resume", "_loader", "talk-call", "poll"})
STALL_SECONDS = 15.0  # a request worker still running after this (in-process sandbox): a hang
ESCAPES = 12
TOAST_EVENTS = 6  # a toast stays for this many events


class HarnessError(Exception):
    """The monkey itself failed (not the console): a bug in this file."""


@dataclass(frozen=True)
class Config:
    """Everything about a session other than its events; all of it follows from the seed."""

    seed: int
    api_key: str = "sk_sandbox_agent"
    start_screen: str = "numbers"
    size: tuple[int, int] = (120, 36)
    faults: str = ""
    rate_limit: int = 600
    hostile: bool = False  # the account's own data carries markup, control bytes, long and wide text

    @classmethod
    def for_seed(cls, seed: int) -> Config:
        rng = random.Random(f"config-{seed}")
        # Mostly the account where everything works; now and then one the console must explain.
        key = rng.choices(
            ["sk_sandbox_agent", "sk_sandbox_verified", "sk_sandbox_short", "sk_sandbox_noautopay",
             "sk_sandbox_ineligible", "sk_sandbox_notelephony", "sk_sandbox_noscope"],
            weights=[70, 6, 6, 5, 5, 4, 4],
        )[0]
        return cls(
            seed=seed,
            api_key=key,
            start_screen=rng.choice(["numbers", "tools", "variables", "voices", "templates", "agents"]),
            size=rng.choice(SIZES),
            faults=f"latency={rng.choice([0, 1, 3])},error_rate=0.1,drop_rate=0.03,seed={seed}",
            hostile=rng.random() < 0.3,
        )


@dataclass
class Failure:
    kind: str  # crash | exit | unhandled-worker-error | stalled | stuck
    exception: str  # type name (or a short tag for stuck/exit)
    frame: str  # the innermost frame in src/vap_console: "tui/widgets/rows.py:123 in _on_click"
    message: str
    screen: str  # where it happened (see ``place``)
    index: int  # the event that led to it (len(events) for the end-of-run check)
    detail: str = ""  # traceback or notes

    @property
    def signature(self) -> tuple[str, str, str]:
        return (self.kind, self.exception, self.frame)

    def describe(self) -> str:
        return (f"{self.kind}: {self.exception} at {self.frame or '?'} on {self.screen} "
                f"after event #{self.index}: {self.message[:300]}")


@dataclass
class Outcome:
    config: Config
    events: list[Event]
    failure: Failure | None
    visited: Counter[str] = field(default_factory=Counter)
    played: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time (the app, the harness, the served sandbox)
    handled_errors: Counter[str] = field(default_factory=Counter)  # worker errors that reached the handler
    sent: Counter[str] = field(default_factory=Counter)  # the requests that change something, by route
    trace: list[str] = field(default_factory=list)  # where the console was after each event


def top_frame(error: BaseException) -> str:
    """The innermost traceback frame in vap_console (else the innermost frame at all)."""
    frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ else []
    ours = [f for f in frames if "vap_console" in f.filename.replace("\\", "/")]
    chosen = ours[-1] if ours else (frames[-1] if frames else None)
    if chosen is None:
        return ""
    path = chosen.filename.replace("\\", "/")
    path = path.split("vap_console/", 1)[1] if "vap_console/" in path else path.rsplit("/", 2)[-1]
    return f"{path}:{chosen.lineno} in {chosen.name}"


def _caller() -> str:
    """The innermost vap_console frame of the current stack (who called, say, notify)."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        path = frame.filename.replace("\\", "/")
        if "vap_console/" in path:
            return f"{path.split('vap_console/', 1)[1]}:{frame.lineno} in {frame.name}"
    return "?"


def _unwrap(error: BaseException) -> BaseException:
    from textual.worker import WorkerFailed

    while isinstance(error, WorkerFailed) and error.error is not None:
        error = error.error
    return error


def place(app: Any) -> str:
    """Where the console is: the top screen's class, the wizard's step."""
    try:
        screen = app.screen
    except Exception:  # noqa: BLE001 - no screen while starting or stopping
        return "-"
    name = type(screen).__name__
    if name == "RentalWizard":
        return f"RentalWizard/{getattr(screen, 'step', '?')}"
    return name


class CutConnection(httpx.AsyncBaseTransport):
    """What a cut connection is over real HTTP, for the in-process sandbox.

    The sandbox's ``drop_rate`` starts an answer and ends the ASGI call before the announced body
    arrives. Over a socket httpx raises RemoteProtocolError ("peer closed connection without
    sending complete message body"); httpx.ASGITransport trips an ``assert`` instead. This gives
    the client the error it would get from a real server.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sent: Counter[str] = Counter()  # "POST /v1/tools", "DELETE /v1/agents/{id}"…
        self.in_flight = 0  # requests sent and not answered yet, background polls included

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent[_route(request)] += 1
        self.in_flight += 1
        try:
            return await self.inner.handle_async_request(request)
        except AssertionError:
            raise httpx.RemoteProtocolError(
                "peer closed connection without sending complete message body", request=request
            ) from None
        finally:
            self.in_flight -= 1


_KNOWN_SEGMENTS = {"v1", "phone-numbers", "available", "requirements", "tools", "variables", "voices",
                   "agents", "templates", "webcall"}


def _route(request: httpx.Request) -> str:
    parts = ["{id}" if p and p not in _KNOWN_SEGMENTS else p for p in request.url.path.split("/")]
    return f"{request.method} {'/'.join(parts)}"


# What a hostile server (or a careless colleague) puts in names, descriptions and values.
SERVER_TEXT = [
    "Ops [/] desk", "[@click=app.quit]quit[/]", "[b]bold", "no route for [/v1/x]", "field [name] is required",
    "\x1b]52;c;ZWNobyBwd25lZA==\x07clipboard", "\x1b]0;title\x07", "\x1b[2J\x1b[Hclear", "bell\x07",
    "\u202eevil\u202c", "ज़ोया हिन्दी", "前台接待员", "👩🏽‍💼🎉", "x" * 10_000, "a\nb\r\nc\td", "\x00\x7f\x9b", "",
]


def make_hostile(sandbox: Any, api_key: str) -> None:
    """Give the account's own records hostile text: agents, tools, variables and rentals."""
    from vap_console.sandbox.keys import SANDBOX_KEYS

    account = sandbox.state.sandbox.account(SANDBOX_KEYS[api_key])
    texts = SERVER_TEXT
    for n, agent in enumerate(account.agents.values()):
        agent.name = texts[n % len(texts)]
        agent.greeting = texts[(n + 3) % len(texts)]
        agent.system_instruction = texts[(n + 5) % len(texts)]
    for n, tool in enumerate(account.tools.values()):
        tool.description = texts[(n + 1) % len(texts)]
        if not tool.is_default:
            tool.name = texts[(n + 7) % len(texts)]
    for n, variable in enumerate(account.variables.values()):
        variable.default_value = texts[(n + 2) % len(texts)]
    for n, rental in enumerate(account.rentals.values()):
        rental.alias = texts[(n + 4) % len(texts)]
        rental.end_user = {**rental.end_user, "name": texts[(n + 6) % len(texts)]}


def _isolate(workdir: Path) -> dict[str, str]:
    """XDG dirs under ``workdir``, no VAP_* variables; the previous values, to restore."""
    saved = {k: os.environ.get(k, "") for k in
             ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "VAP_API_KEY", "VAP_BASE_URL")}
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        path = workdir / "xdg" / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        os.environ[f"XDG_{name}_HOME"] = str(path)
    os.environ.pop("VAP_API_KEY", None)
    os.environ.pop("VAP_BASE_URL", None)
    return saved


def _restore(saved: dict[str, str]) -> None:
    for key, value in saved.items():
        if value:
            os.environ[key] = value
        else:
            os.environ.pop(key, None)


@contextlib.contextmanager
def workspace(path: Path | None = None) -> Iterator[Path]:
    """A working folder with real KYC documents in ./kyc, isolated config dirs; cwd moves there."""
    from tests.e2e.documents import make_kyc_set

    with contextlib.ExitStack() as stack:
        root = path or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="monkey-")))
        if not (root / "kyc").exists():
            make_kyc_set(root / "kyc")
        old = Path.cwd()
        saved = _isolate(root)
        os.chdir(root)
        try:
            yield root
        finally:
            os.chdir(old)
            _restore(saved)


def _slow_loop(ms: float) -> Callable[[], None]:
    """MONKEY_SLOW_LOOP=MS: each turn of the running event loop takes up to MS ms more (a random
    share, slept rather than spun), as on a machine whose cores are busy: timers come due in the
    middle of what an event set off, not only after it. Gives back what undoes it."""
    if ms <= 0:
        return lambda: None
    loop = asyncio.get_running_loop()
    run_once = loop._run_once  # type: ignore[attr-defined]
    draw = random.Random().random

    def slow_run_once() -> None:
        time.sleep(draw() * ms / 1000)
        run_once()

    loop._run_once = slow_run_once  # type: ignore[attr-defined]
    return lambda: delattr(loop, "_run_once")


class Session:
    """One console, one event list."""

    def __init__(self, config: Config, events: Sequence[Event], workdir: Path, *,
                 on_progress: Callable[[int, Session], None] | None = None) -> None:
        self.config = config
        self.events = list(events)
        self.workdir = workdir
        self.on_progress = on_progress
        self.outcome = Outcome(config, self.events, None)
        self.handled: set[int] = set()  # id() of workers whose error reached app.worker_failed
        self.workers: list[Worker[Any]] = []
        self.suspects: dict[int, int] = {}  # id(worker) -> checks it has been seen failed, unhandled
        self.expect_exit = False
        self.notifications: list[tuple[str, bool, str]] = []  # (message, markup, caller)
        self.sleepers: list[tuple[Any, asyncio.Future[None], Any]] = []  # (wake at, future, task)
        self.awake: set[Any] = set()  # poll tasks woken by the clock, not asleep again yet
        self.threads = 0  # asyncio.to_thread calls not back yet
        self._real_to_thread = asyncio.to_thread

    # --- building the console ---

    def build(self, live_url: str) -> Any:
        from tests.credentials.backends import MemoryKeyring
        from vap_console.api import VapClient
        from vap_console.credentials import KeyStore, LocalIndex
        from vap_console.sandbox.app import create_app
        from vap_console.sandbox.clock import VirtualClock
        from vap_console.tui.app import make_app
        from vap_console.tui.settings import Settings

        config = self.config
        self.clock = clock = VirtualClock()
        self.sandbox = create_app(clock=clock, rate_limit=config.rate_limit, faults=config.faults)
        if config.hostile:
            make_hostile(self.sandbox, config.api_key)
        transport = self.transport = CutConnection(httpx.ASGITransport(app=self.sandbox))

        async def advance(seconds: float) -> None:
            # Waiting (Retry-After, backoff) moves the virtual clock instead of real time.
            self.advance(seconds)

        def client() -> VapClient:
            return VapClient(BASE_URL, config.api_key, transport=transport, sleep=advance)

        # Profiles to switch to: a served sandbox (faults on too), a revoked key (the login screen),
        # a server that refuses connections, a profile with no key.
        store = KeyStore(backend=MemoryKeyring(), env={})
        store.store_login("sandbox", live_url, config.api_key)  # the console itself runs in-process
        store.store_login("served", live_url, "sk_sandbox_verified")
        store.store_login("revoked", live_url, "sk_sandbox_revoked")
        store.store_login("nowhere", "http://127.0.0.1:9", "sk_sandbox_agent")
        store.profiles.add("nokey", live_url)
        self.live_url = live_url

        app = make_app(
            client_factory=client,
            profile_name="sandbox",
            base_url=BASE_URL,
            clock=clock.now,
            local_index=LocalIndex("sandbox", data_dir=self.home / "index"),
            settings=Settings(path=self.home / "config.toml"),
            credentials=store,
            start_screen=config.start_screen,
        )
        app.sleep = advance
        # The palette's Quit would end the run; every other command stays.
        original_commands = app.get_system_commands

        def commands(screen: Screen[Any]) -> Iterator[SystemCommand]:
            return (c for c in original_commands(screen) if c.title != "Quit")

        app.get_system_commands = commands  # type: ignore[method-assign]
        # Every worker, and which of their failures reached the app's one handler.
        add_worker = app.workers.add_worker

        def track(worker: Worker[Any], start: bool = True, exclusive: bool = True) -> None:
            self.workers.append(worker)
            add_worker(worker, start=start, exclusive=exclusive)

        app.workers.add_worker = track  # type: ignore[method-assign]
        worker_failed = app.worker_failed

        def handled(worker: Worker[Any], node: Any) -> None:
            self.handled.add(id(worker))
            if worker.error is not None and not isinstance(worker.error, asyncio.CancelledError):
                self.outcome.handled_errors[f"{type(worker.error).__name__} at {top_frame(worker.error)}"] += 1
            worker_failed(worker, node)

        app.worker_failed = handled  # type: ignore[method-assign]
        original_exit = app.exit

        def exit_(*args: Any, **kwargs: Any) -> None:
            if not self.expect_exit and self.outcome.failure is None:
                self.outcome.failure = Failure(
                    "exit", "UnexpectedExit", "", "the app exited on its own (nothing sent asks it to)",
                    place(app), self.current, "".join(traceback.format_stack(limit=12)),
                )
            original_exit(*args, **kwargs)

        app.exit = exit_  # type: ignore[method-assign]
        # Toasts render later, outside the code that sent them: remember who sent each one, so a
        # toast that cannot be drawn is traced back to its notify() call.
        notify = app.notify

        def notify_(message: str, **kwargs: Any) -> None:
            self.notifications.append((str(message), kwargs.get("markup", True), _caller()))
            del self.notifications[:-50]
            # Toasts leave after TOAST_EVENTS events (see play), not after real seconds: where a
            # click lands must not depend on the machine's speed.
            kwargs["timeout"] = 24 * 3600
            notify(message, **kwargs)

        app.notify = notify_  # type: ignore[method-assign]
        # The failure report carries the traceback; the app's own exit message would only repeat it.
        app._print_error_renderables = app._exit_renderables.clear  # type: ignore[method-assign]
        self.app = app
        return app

    # --- time: the sandbox's virtual clock; rental polls wait on it ---

    def advance(self, seconds: float) -> None:
        """Move the virtual clock on and wake the polls whose wait is over."""
        self.clock.advance(seconds)
        now = self.clock.now()
        for entry in list(self.sleepers):
            wake_at, future, task = entry
            if wake_at <= now:
                self.sleepers.remove(entry)
                if not future.done():
                    self.awake.add(task)
                    future.set_result(None)

    async def poll_sleep(self, seconds: float) -> None:
        """The rental polls' sleep: until the virtual clock has moved ``seconds`` on (a tick).

        Polls then go out at known points of the event list, not whenever real time allows, so
        the injected faults (one draw per request, in arrival order) fall the same on a replay.
        """
        task = asyncio.current_task()
        self.awake.discard(task)
        future = asyncio.get_running_loop().create_future()
        from datetime import timedelta

        entry = (self.clock.now() + timedelta(seconds=max(seconds, 0)), future, task)
        self.sleepers.append(entry)
        try:
            await future
        finally:
            if entry in self.sleepers:
                self.sleepers.remove(entry)

    def _background_busy(self) -> bool:
        """A request in flight, a file check in a thread (asyncio.to_thread: the wizard's document
        checks, DirectoryTree's stat calls), or a poll woken by the clock not asleep again yet."""
        self.awake = {t for t in self.awake if not t.done()}
        return bool(self.transport.in_flight or self.threads or self.awake)

    async def _to_thread(self, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        self.threads += 1
        try:
            return await self._real_to_thread(func, *args, **kwargs)
        finally:
            self.threads -= 1

    # --- running ---

    current = -1

    async def run(self) -> Outcome:
        import functools

        from vap_console.sandbox.server import start_in_thread
        from vap_console.tui.screens import rental as rental_module

        started, cpu = time.monotonic(), time.process_time()
        # Nothing carries over from an earlier session (profiles, remembered rentals, the theme):
        # a list replays the same in a fresh workspace.
        self.home = Path(tempfile.mkdtemp(prefix="session-", dir=self.workdir))
        saved = _isolate(self.home)
        follow_rental = rental_module.follow_rental
        rental_module.follow_rental = functools.partial(follow_rental, sleep=self.poll_sleep)  # type: ignore[assignment]
        asyncio.to_thread = self._to_thread  # type: ignore[assignment]  # counted, so settling waits for them
        slowed = _slow_loop(float(os.environ.get("MONKEY_SLOW_LOOP") or 0))
        try:
            with start_in_thread(faults=self.config.faults, rate_limit=self.config.rate_limit) as live:
                app = self.build(live.base_url)
                try:
                    # No tooltips: they appear after half a real second, and a click could land on one
                    # or not depending on the machine's speed.
                    async with app.run_test(size=self.config.size, notifications=True, tooltips=False) as pilot:
                        self.pilot = pilot
                        await self._settle()
                        self._check()
                        for index, event in enumerate(self.events):
                            if self.outcome.failure is not None:
                                break
                            self.current = index
                            try:
                                await self.play(event)
                            except Exception as error:
                                if app._exception is None and app.is_running:
                                    raise HarnessError(f"event #{index} {event!r}: {error!r}") from error
                            self.outcome.played = index + 1
                            if self.outcome.failure is None:
                                await self._settle()
                                self._check()
                            if self.on_progress is not None:
                                self.on_progress(index, self)
                        if self.outcome.failure is None:
                            self.current = len(self.events)
                            await self._quit()
                except HarnessError:
                    raise
                except Exception:  # run_test re-raises the app's exception on the way out
                    if app._exception is None:
                        raise
                    if self.outcome.failure is None or self.outcome.failure.kind != "crash":
                        self._crashed(app._exception)
        finally:
            slowed()
            _restore(saved)
            shutil.rmtree(self.home, ignore_errors=True)
            rental_module.follow_rental = follow_rental  # type: ignore[assignment]
            asyncio.to_thread = self._real_to_thread  # type: ignore[assignment]
            self.outcome.seconds = time.monotonic() - started
            self.outcome.cpu_seconds = time.process_time() - cpu
            transport = getattr(self, "transport", None)
            if transport is not None:
                self.outcome.sent = Counter({k: v for k, v in transport.sent.items() if not k.startswith("GET")})
        return self.outcome

    def _crashed(self, error: BaseException) -> None:
        error = _unwrap(error)
        previous = self.outcome.failure
        frame = top_frame(error)
        detail = "".join(traceback.format_exception(error))
        if "vap_console" not in detail and "/_toast.py" in detail:
            # A toast that cannot be drawn: name the notify() call that sent it.
            from textual.content import Content

            for message, markup, caller in reversed(self.notifications):
                try:
                    if markup:
                        Content.from_markup(message)
                except Exception:  # noqa: BLE001 - this is the one
                    frame = f"toast from {caller}"
                    detail += f"\nthe toast: notify({message!r}, markup=True) from {caller}"
                    break
        self.outcome.failure = Failure(
            "crash", type(error).__name__, frame, str(error), place(self.app), self.current, detail,
        )
        if previous is not None and previous.kind == "exit":
            # The exception is what made it exit.
            self.outcome.failure.detail += "\n(the app exited because of it)"

    def _check(self) -> None:
        app = self.app
        if self.outcome.failure is not None and self.outcome.failure.kind != "exit":
            return
        if app._exception is not None:
            self._crashed(app._exception)
            return
        if self.outcome.failure is not None:
            return
        if not app.is_running and not self.expect_exit:
            self.outcome.failure = Failure("exit", "NotRunning", "", "the app is no longer running",
                                           place(app), self.current)
            return
        self.outcome.visited[place(app)] += 1
        self.outcome.trace.append(place(app))
        # A failed worker whose error never reached the app's handler (two checks in a row, its
        # screen still up): nothing showed it.
        for worker in self.workers:
            if worker.state != WorkerState.ERROR or id(worker) in self.handled:
                continue
            node = worker.node
            if not getattr(node, "is_attached", False) and node is not app:
                continue
            seen = self.suspects.get(id(worker), 0) + 1
            self.suspects[id(worker)] = seen
            if seen >= 2:
                error = worker.error
                assert error is not None
                self.outcome.failure = Failure(
                    "unhandled-worker-error", type(error).__name__, top_frame(error), str(error),
                    place(app), self.current,
                    f"worker {worker.name!r} (group {worker.group!r}) on {type(node).__name__}\n"
                    + "".join(traceback.format_exception(error)),
                )
                return
        # Forget finished workers that are fine, so the list stays short over a long run.
        self.workers = [w for w in self.workers if not w.is_finished or
                        (w.state == WorkerState.ERROR and id(w) not in self.handled)]

    async def _pump(self, quiet_rounds: int = 3) -> None:
        """Let the app handle what was sent: loop until no message queue of the app or the screen
        on top holds anything for ``quiet_rounds`` turns of the event loop in a row.

        Not Pilot.pause(): it waits for the *process* to be idle, which the served sandbox's
        thread and the rental polls keep from happening (~150 ms an event, up to 1 s). Nor
        Pilot._wait_for_screen(), which posts a callback to every widget (~8 ms on the wizard).
        A handler that never returns leaves its queue filling up: ``stalled`` after STALL_SECONDS.
        """
        app = self.app
        quiet = 0
        deadline = time.monotonic() + STALL_SECONDS
        while quiet < quiet_rounds:
            await asyncio.sleep(0)
            if app._exception is not None or not app.is_running:
                return
            try:
                nodes = [app, *app.screen.walk_children(with_self=True)]
            except Exception:  # noqa: BLE001 - no screen for a moment while screens are swapped
                quiet = 0
                continue
            waiting = [n for n in nodes if n._message_queue.qsize()]
            if not waiting:
                quiet += 1
                continue
            quiet = 0
            if time.monotonic() > deadline:
                if self.outcome.failure is None:
                    names = ", ".join(sorted({repr(n) for n in waiting})[:5])
                    self.outcome.failure = Failure(
                        "stalled", "Unresponsive", "", f"messages to {names} not handled within "
                        f"{STALL_SECONDS:g} s (a handler that does not return)", place(app), self.current,
                    )
                return

    def _paint(self) -> None:
        """Run pending layout and paint now, so an exception while drawing surfaces at the event
        that caused it (the screen's own timer would paint a moment later): it is the run's
        failure, a crash, as it would be the app's."""
        from textual.app import ScreenStackError

        app = self.app
        try:
            screen = app.screen
        except ScreenStackError:  # no screen while one is being swapped: nothing to paint
            return
        try:
            # In the app's and the screen's context, as the screen's update timer runs it.
            with app._context(), screen._context():
                screen._on_timer_update()
        except Exception as error:  # noqa: BLE001 - reported, not swallowed
            if self.outcome.failure is None:
                self._crashed(error)

    async def _settle(self) -> None:
        """Until no request worker runs (the rental polls go on) and the screen has caught up."""
        app = self.app
        deadline = time.monotonic() + STALL_SECONDS
        while True:
            await self._pump()
            if app._exception is not None or not app.is_running:
                return
            if self.outcome.failure is not None:
                return
            busy = [w for w in list(app.workers) if not w.is_finished and w.group not in BACKGROUND_GROUPS]
            background = self._background_busy()
            if not busy and not background:
                self._paint()
                await self._pump(1)
                return
            left = deadline - time.monotonic()
            if left <= 0:
                what = (f"worker {busy[0].name!r} (group {busy[0].group!r})" if busy else
                        f"{self.transport.in_flight} request(s) in flight / {len(self.awake)} poll(s) awake")
                self.outcome.failure = Failure(
                    "stalled", "Stalled", "", f"{what} still running after {STALL_SECONDS:g} s",
                    place(app), self.current,
                    f"running workers: {[(w.name, w.group, type(w.node).__name__) for w in busy]}",
                )
                return
            # asyncio.wait never cancels what it waits for (cancelling a task awaiting a worker's
            # task would cancel the worker).
            tasks = {w._task for w in busy if w._task is not None}
            if tasks:
                await asyncio.wait(tasks, timeout=min(left, 0.5))
            else:
                await asyncio.sleep(0.001 if background else 0)  # a background request finishing

    # --- one event ---

    def _text_box_focused(self) -> bool:
        return isinstance(self.app.focused, (Input, TextArea))

    def _would_quit(self, key: str) -> bool:
        """Whether this key would leave the console (the only keys the monkey holds back)."""
        from vap_console.tui.screens.keys_help import KeysHelpScreen

        if key in QUIT_KEYS:
            return True
        if key == "q":
            return not (self._text_box_focused() or isinstance(self.app.screen, KeysHelpScreen))
        return False

    async def _send_key(self, key: str, character: str | None) -> None:
        if self.app._exception is not None or not self.app.is_running:
            return  # typed text stops at the key that crashed the app
        if self._would_quit(key):
            self.outcome.skipped[f"key {key}"] += 1
            return
        event = events.Key(key, character)
        event.set_sender(self.app)
        self.app._driver.send_message(event)  # as the terminal driver does
        await self._pump()

    def _events_apart(self) -> None:
        """Make this event come well after the last one, whatever the machine's speed: no click
        chains across events (Textual joins clicks 0.5 s apart), no button still in its 0.2 s press
        effect (it ignores clicks and Enter meanwhile), toasts gone after TOAST_EVENTS events."""
        app = self.app
        app._click_chain_last_time = None
        app._click_chain_last_offset = None
        with contextlib.suppress(Exception):
            for button in app.screen.query(Button):
                if button.has_class("-active"):
                    button.remove_class("-active")
        if self.current % TOAST_EVENTS == 0:
            with contextlib.suppress(Exception):
                app.clear_notifications()

    async def play(self, event: Event) -> None:
        self._events_apart()
        kind = event[0]
        app = self.app
        width, height = app.size
        if kind == "key":
            key = event[1]
            await self._send_key(key, _character(key))
        elif kind == "type":
            parser = XTermParser()
            text = event[1]
            for message in [*(parser.feed(text) if text else ()), *parser.feed("")]:
                if isinstance(message, events.Key):
                    await self._send_key(message.key, message.character)
                else:  # a typed ESC sequence the parser reads as a terminal report: sent as is
                    message.set_sender(app)
                    app.post_message(message)
                    await self._pump()
        elif kind == "paste":
            paste = events.Paste(event[1])
            paste.set_sender(app)
            app.post_message(paste)
            await self._pump()
        elif kind == "click":
            x, y, times = event[1] % width, event[2] % height, event[3]
            button = event[4] if len(event) > 4 else 1
            await self._click(x, y, times, button)
        elif kind == "wheel":
            x, y, direction, steps = event[1] % width, event[2] % height, event[3], event[4]
            cls = events.MouseScrollUp if direction == "up" else events.MouseScrollDown
            for _ in range(steps):
                self._mouse(cls, x, y, 0)
            await self._pump()
        elif kind == "hover":
            self._mouse(events.MouseMove, event[1] % width, event[2] % height, 0)
            await self._pump()
        elif kind == "resize":
            size = Size(event[1], event[2])
            app._driver._size = size  # what Pilot.resize_terminal does for the headless driver
            app.post_message(events.Resize(size, size))
            await self._pump()
        elif kind == "tick":
            self.advance(event[1])
            await self._pump()
        elif kind == "target":
            await self._target(event[1])
        elif kind == "fill":
            await self._fill(event[1])
        else:
            raise ValueError(f"unknown event {event!r}")

    def _mouse(self, cls: type[events.MouseEvent], x: int, y: int, button: int) -> None:
        event = cls(None, x, y, 0, 0, button, False, False, False, screen_x=x, screen_y=y)
        self.app._driver.process_message(event)  # the driver's own path: it tracks held buttons

    def _click_would_quit(self, x: int, y: int) -> bool:
        from vap_console.tui.widgets.key_bar import KeyBar

        try:
            widget, region = self.app.get_widget_at(x, y)
        except Exception:  # noqa: BLE001 - nothing there
            return False
        if isinstance(widget, KeyBar):
            key = widget._key_at(x - region.x)
            return key is not None and (key.key == "q" or key.key in QUIT_KEYS) and self._would_quit(key.key)
        return False

    async def _click(self, x: int, y: int, times: int, button: int) -> None:
        if self._click_would_quit(x, y):
            self.outcome.skipped["click on the key bar's Quit"] += 1
            return
        self._mouse(events.MouseMove, x, y, 0)
        for _ in range(times):
            self._mouse(events.MouseDown, x, y, button)
            self._mouse(events.MouseUp, x, y, button)
        await self._pump()

    async def _target(self, selector: str) -> None:
        app = self.app
        try:
            candidates = [w for w in app.screen.query(selector) if w.display and w.region.area]
        except Exception:  # noqa: BLE001 - a selector this screen cannot parse: nothing to aim at
            return
        visible = [w for w in candidates if _visible_point(app, w) is not None]
        if not visible:
            return
        x, y = _visible_point(app, visible[0])  # type: ignore[misc]
        await self._click(x, y, 1, 1)

    async def _fill(self, variant: int) -> None:
        await fill(self, variant)

    # --- the end of a run: Escape, then q ---

    async def _quit(self) -> None:
        """Escape (at least once, then again while a text box has the keys or a dialog is on top,
        where q does nothing: up to ESCAPES times), then q; q again answers "Quit and discard?".
        The app must exit."""
        from textual.screen import ModalScreen

        app = self.app
        trail: list[str] = []
        for count in range(ESCAPES):
            if count and not (self._text_box_focused() or isinstance(app.screen, ModalScreen)):
                break
            # Escape on "Discard what you typed?" (the tool form's, the wizard's "Leave and
            # discard") keeps the form: nothing typed is lost by a stray key. A person who wants
            # out answers it.
            await self._press("y" if self._discard_question() else "escape")
            await self._settle()
            self._check()
            if self.outcome.failure is not None:
                return
            trail.append(place(app))
        focus = type(app.focused).__name__ if app.focused is not None else "nothing"
        before = place(app)
        self.expect_exit = True
        presses = 0
        while not app._exit and presses < 2:
            await self._press("q")
            presses += 1
            await self._settle()
            if app._exception is not None:
                self._crashed(app._exception)
                return
        if not app._exit:
            self.outcome.failure = Failure(
                "stuck", "NoExit", " ↔ ".join(sorted(set(trail))) or place(app),
                f"Escape ×{len(trail)} then q ×{presses} did not quit: Escape led "
                f"through {' → '.join(trail)}; q pressed on {before} (focus on {focus}), which stayed on "
                f"{place(app)}", place(app), len(self.events),
            )

    def _discard_question(self) -> bool:
        from vap_console.tui.screens.dialog import Confirm

        screen = self.app.screen
        return isinstance(screen, Confirm) and "discard" in screen.yes_label.lower()

    async def _press(self, key: str) -> None:
        event = events.Key(key, _character(key))
        event.set_sender(self.app)
        self.app._driver.send_message(event)
        await self._pump()


def _character(key: str) -> str | None:
    """The character a key name types, as Pilot.press works it out."""
    import unicodedata

    from textual.keys import _get_unicode_name_from_key

    if len(key) == 1:
        return key
    try:
        return unicodedata.lookup(_get_unicode_name_from_key(key))
    except KeyError:
        return None


def _visible_point(app: Any, widget: Widget) -> tuple[int, int] | None:
    """A point inside the widget that the widget owns on screen (not covered by another)."""
    region = widget.region
    width, height = app.size
    x, y = region.x + region.width // 2, region.y + region.height // 2
    if not (0 <= x < width and 0 <= y < height):
        return None
    try:
        hit, _ = app.get_widget_at(x, y)
    except Exception:  # noqa: BLE001 - whatever Textual raises for a point off the map: nothing there
        return None
    if hit is widget or widget in hit.ancestors:
        return x, y
    return None


# --- filling forms the way a person would ------------------------------------------------------

ENDINGS = ["1010", "1010", "1010", "0002", "0003", "0004", "0005", "7777"]
END_USER = {
    "eu-name": "Acme Telecom Pvt Ltd", "eu-email": "ops@acme.example", "eu-address_line1": "12 MG Road",
    "eu-city": "Bengaluru", "eu-postal_code": "560001", "eu-country": "IN",
    "eu-registration_number": "U64200KA2020PTC123456",
}
DOCUMENTS = {
    "doc-0-field-gstin": "29ABCDE1234F1ZW", "doc-0-path": "kyc/incorporation.pdf",
    "doc-1-path": "kyc/electricity-bill.pdf", "doc-2-field-pan": "ABCDE1234F", "doc-2-path": "kyc/pan-card.png",
}


def _hostile(variant: int) -> str:
    return HOSTILE[variant % len(HOSTILE)]


def _set(screen: Screen[Any], selector: str, value: str) -> bool:
    found = screen.query(selector)
    if not found:
        return False
    widget = found.first()
    if isinstance(widget, Input):
        widget.value = value
    elif isinstance(widget, TextArea):
        widget.text = value
    elif isinstance(widget, Select):
        with contextlib.suppress(Exception):  # not one of its options
            widget.value = value
    else:
        return False
    return True


async def fill(session: Session, variant: int) -> None:
    """Fill the form on top the way a person would (one in five with hostile text)."""
    app = session.app
    screen = app.screen
    name = type(screen).__name__
    hostile = variant % 5 == 0
    if name == "RentalWizard":
        step = getattr(screen, "step", "")
        if step == "number":
            number = f"9180{(variant * 7919) % 10_000:04d}{ENDINGS[variant % len(ENDINGS)]}"
            _set(screen, "#number", _hostile(variant) if hostile and variant % 2 else number)
        elif step == "enduser":
            for selector, value in END_USER.items():
                _set(screen, f"#{selector}", value)
            if hostile:
                _set(screen, "#eu-name", _hostile(variant))
        elif step == "documents":
            for selector, value in DOCUMENTS.items():
                _set(screen, f"#{selector}", value)
            for entry in screen.query("#documents Input"):
                if isinstance(entry, Input) and entry.id and entry.id.endswith("-type") and not entry.value:
                    entry.value = "business_registration"
            if hostile:
                _set(screen, "#doc-1-path", _hostile(variant)[:200])
    elif name == "ToolFormScreen":
        # Valid but for one field in five; hostile text goes where the server keeps it as is.
        _set(screen, "#f-name", f"monkey_{variant}" if variant % 7 else f"9 {variant}")
        _set(screen, "#f-description", _hostile(variant)[:500] or "x" if hostile else "Looks up an order")
        _set(screen, "#f-config-url", "https://api.example.com/orders" if variant % 2 else
             "https://api.example.com/orders/{order_id}?q={customer_id}")  # asks first: unknown
        _set(screen, "#f-config-timeoutMs", str([10000, 500, 60000, 10000, -5][variant % 5]))
        if variant % 3 == 0:
            _set(screen, "#f-config-params", "phone={caller_number}")
        if variant % 4 == 2:
            _set(screen, "#f-kind", "during_call")
            _set(screen, "#f-config-llmParams", "order_id: the order number")
        if variant % 4 == 1:
            _set(screen, "#f-config-outputs", f"status_{variant} = status")
    elif name == "CreateAgentScreen":
        _set(screen, "#agent-name", _hostile(variant)[:200] if hostile else f"Monkey agent {variant}")
    elif name == "PromptIdScreen":
        # The ids the list underneath shows (rentals on Numbers, agents on Agents), and some it does not.
        under = app.screen_stack[-2] if len(app.screen_stack) > 1 else None
        ids = sorted(getattr(under, "items", {}) or {})
        choices = [*ids, "00000000-0000-0000-0000-000000000000", "ua_nonexistent", _hostile(variant)]
        _set(screen, "#id-input", choices[variant % len(choices)])
    elif name == "LoginScreen":
        _set(screen, "#profile", _hostile(variant)[:40] if hostile else f"p{variant}")
        _set(screen, "#base-url", [session.live_url, BASE_URL, "http://127.0.0.1:9", "not a url"][variant % 4])
        _set(screen, "#key", ["sk_sandbox_agent", "sk_sandbox_revoked", "sk_sandbox_noscope", ""][variant % 4])
    elif name == "FilePicker":
        _set(screen, "#picker-root", ["kyc", ".", "/nonexistent", _hostile(variant)][variant % 4])
    elif name in ("CommandPalette", "Palette"):
        _set(screen, "Input", PALETTE_QUERIES[variant % len(PALETTE_QUERIES)])
    await session._pump()


def _in_palette(app: Any) -> bool:
    return type(app.screen).__name__ in ("CommandPalette", "Palette")


# --- running, replaying and shrinking ----------------------------------------------------------


async def run_session(config: Config, events: Sequence[Event], workdir: Path,
                      on_progress: Callable[[int, Session], None] | None = None) -> Outcome:
    return await Session(config, events, workdir, on_progress=on_progress).run()


async def reproduces(config: Config, events: Sequence[Event], workdir: Path,
                     signature: tuple[str, str, str]) -> bool:
    outcome = await run_session(config, events, workdir)
    return outcome.failure is not None and outcome.failure.signature == signature


def _simpler(event: Event) -> list[Event]:
    """Smaller versions of one event, simplest first: fewer clicks, shorter text."""
    kind = event[0]
    if kind == "click" and event[3] > 1:
        return [[*event[:3], n, *event[4:]] for n in range(1, event[3])]
    if kind == "wheel" and event[4] > 1:
        return [[*event[:4], 1]]
    if kind in ("type", "paste") and len(event[1]) > 1:
        text = event[1]
        half = len(text) // 2
        return [[kind, text[:half]], [kind, text[half:]]]
    return []


async def shrink(config: Config, events: Sequence[Event], failure: Failure, workdir: Path, *,
                 seconds: float = 60.0, log: Callable[[str], None] = lambda _: None) -> list[Event]:
    """The shortest list found within ``seconds`` that still fails with the same signature.

    Everything after the failing event goes first; then delta debugging (drop halves, quarters…
    down to single events while it still fails); then events are made simpler (fewer clicks in a
    chain, shorter text) while time remains.
    """
    deadline = time.monotonic() + seconds
    signature = failure.signature
    current = list(events[: failure.index + 1]) if failure.index < len(events) else list(events)
    if not await reproduces(config, current, workdir, signature):
        if current == list(events) or not await reproduces(config, events, workdir, signature):
            log("shrink: the failure did not happen again on replay (it depends on timing): "
                "the list up to the failing event is kept as it is")
            return current
        current = list(events)
    chunks = 2
    while len(current) >= 2 and time.monotonic() < deadline:
        size = max(1, len(current) // chunks)
        reduced = False
        for start in range(0, len(current), size):
            if time.monotonic() >= deadline:
                break
            candidate = current[:start] + current[start + size:]
            if candidate and await reproduces(config, candidate, workdir, signature):
                current = candidate
                chunks = max(chunks - 1, 2)
                reduced = True
                log(f"shrink: {len(current)} events")
                break
        if not reduced:
            if size == 1:
                break
            chunks = min(len(current), chunks * 2)
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for index, event in enumerate(current):
            for simpler in _simpler(event):
                if time.monotonic() >= deadline:
                    return current
                candidate = current[:index] + [simpler] + current[index + 1:]
                if await reproduces(config, candidate, workdir, signature):
                    current, changed = candidate, True
                    log(f"shrink: event #{index} → {simpler!r}")
                    break
    return current


def events_json(events: Sequence[Event]) -> str:
    return json.dumps(events, ensure_ascii=True, separators=(",", ":"))


def replay_hint(seed: int, events: Sequence[Event], *, save_to: Path | None = None) -> str:
    """How to replay: the list inline when short, else saved to a file."""
    text = events_json(events)
    if save_to is not None and len(text) > 2000:
        save_to.write_text(text)
        where = str(save_to)
    else:
        where = text
    return (f"MONKEY_SEED={seed} MONKEY_EVENTS='{where}' "
            f".venv/bin/python -m pytest tests/tui/test_monkey.py -s")


def load_events(value: str) -> list[Event]:
    """MONKEY_EVENTS: a JSON list, or the path of a file holding one."""
    value = value.strip()
    if not value.startswith("["):
        value = Path(value).read_text()
    events = json.loads(value)
    if not isinstance(events, list) or not all(isinstance(e, list) and e for e in events):
        raise ValueError("MONKEY_EVENTS must be a JSON list of events (lists)")
    return events


def report(outcome: Outcome) -> str:
    lines = [f"seed {outcome.config.seed}: {outcome.played}/{len(outcome.events)} events in "
             f"{outcome.seconds:.1f} s, {outcome.cpu_seconds:.1f} s CPU ({outcome.config.api_key}, start {outcome.config.start_screen}, "
             f"{outcome.config.size[0]}x{outcome.config.size[1]}, faults {outcome.config.faults}"
             f"{', hostile account data' if outcome.config.hostile else ''})"]
    if outcome.failure is not None:
        lines.append("  FAILED " + outcome.failure.describe())
    lines.append("  visited: " + ", ".join(f"{k} {v}" for k, v in sorted(outcome.visited.items())))
    if outcome.sent:
        lines.append("  sent: " + ", ".join(f"{k} ×{v}" for k, v in sorted(outcome.sent.items())))
    if outcome.skipped:
        lines.append("  held back: " + ", ".join(f"{k} ×{v}" for k, v in sorted(outcome.skipped.items())))
    if outcome.handled_errors:
        odd = {k: v for k, v in outcome.handled_errors.items() if not _api_error_name(k)}
        if odd:
            lines.append("  handled worker errors that are not ApiError: "
                         + "; ".join(f"{k} ×{v}" for k, v in sorted(odd.items())))
    return "\n".join(lines)


def _api_error_name(description: str) -> bool:
    from vap_console.api import errors

    name = description.split(" ", 1)[0]
    cls = getattr(errors, name, None)
    return isinstance(cls, type) and issubclass(cls, errors.ApiError)


# --- the command line (make soak) ---------------------------------------------------------------


def _progress_printer(every: int) -> Callable[[int, Session], None]:
    started = time.monotonic()

    def show(index: int, session: Session) -> None:
        if (index + 1) % every == 0:
            rate = (index + 1) / max(time.monotonic() - started, 1e-9)
            print(f"  {index + 1} events, {rate:.0f}/s, on {place(session.app)}", flush=True)

    return show


async def explain(outcome: Outcome, root: Path, shrink_seconds: float,
                  log: Callable[[str], None] = print) -> list[Event]:
    """Print a failure, shrink it, print the shortest list and the replay command; the list."""
    failure = outcome.failure
    assert failure is not None
    seed = outcome.config.seed
    log(failure.detail[-4000:])
    shortest = outcome.events[: failure.index + 1]
    if shrink_seconds > 0:
        log(f"shrinking for up to {shrink_seconds:g} s…")
        shortest = await shrink(outcome.config, outcome.events, failure, root, seconds=shrink_seconds,
                                log=lambda line: log(line) if "did not happen" in line else None)
    text = events_json(shortest)
    log(f"shortest failing list ({len(shortest)} events, seed {seed}): {text if len(text) < 4000 else text[:4000] + '…'}")
    log("replay: " + replay_hint(seed, shortest, save_to=Path(tempfile.gettempdir()) / f"monkey-{seed}.json"))
    return shortest


async def soak(seed: int, total: int, *, session_events: int = 10_000, shrink_seconds: float = 300.0) -> int:
    """``total`` events in sessions of ``session_events``, seeds ``seed``, ``seed + 1``…"""
    print(f"MONKEY_SEED={seed} (soak: {total} events in sessions of {session_events})", flush=True)
    with workspace() as root:
        done, session = 0, 0
        while done < total:
            count = min(session_events, total - done)
            config = Config.for_seed(seed + session)
            print(f"session {session + 1}: seed {config.seed}", flush=True)
            outcome = await run_session(config, generate(config.seed, count), root,
                                        on_progress=_progress_printer(1000))
            print(report(outcome), flush=True)
            if outcome.failure is not None:
                await explain(outcome, root, shrink_seconds)
                return 1
            done += count
            session += 1
    print(f"soak passed: {total} events, seeds {seed}–{seed + session - 1}")
    return 0


async def hunt(seeds: list[int], count: int, shrink_seconds: float) -> int:
    """Run every seed; after a failure start a fresh console on the events that remain (so one
    frequent crash does not hide the others); group failures by (kind, exception, frame) and
    shrink the shortest of each group."""
    groups: dict[tuple[str, str, str], list[Outcome]] = {}
    visited: Counter[str] = Counter()
    played = 0
    started = time.monotonic()
    with workspace() as root:
        for seed in seeds:
            events = generate(seed, count)
            while events:
                outcome = await run_session(Config.for_seed(seed), events, root)
                played += outcome.played
                visited.update(outcome.visited)
                print(report(outcome), flush=True)
                if outcome.failure is None or outcome.failure.index >= len(events) - 1:
                    if outcome.failure is not None:
                        groups.setdefault(outcome.failure.signature, []).append(outcome)
                    break
                groups.setdefault(outcome.failure.signature, []).append(outcome)
                events = events[outcome.failure.index + 1:]
        print(f"\n{len(seeds)} seeds, {played} events in {time.monotonic() - started:.0f} s; "
              f"{len(groups)} distinct failures")
        print("visited: " + ", ".join(f"{k} {v}" for k, v in sorted(visited.items())))
        for signature, found in sorted(groups.items(), key=lambda item: -len(item[1])):
            first = min(found, key=lambda o: o.failure.index)  # type: ignore[union-attr]
            print(f"\n=== {' | '.join(signature)} — {len(found)} times, seeds "
                  f"{sorted({o.config.seed for o in found})}")
            print(first.failure.describe())  # type: ignore[union-attr]
            await explain(first, root, shrink_seconds)
    return 1 if groups else 0


async def replay(seed: int, events: list[Event], shrink_seconds: float) -> int:
    with workspace() as root:
        outcome = await run_session(Config.for_seed(seed), events, root)
        print(report(outcome))
        if outcome.failure is None:
            return 0
        await explain(outcome, root, shrink_seconds)
        return 1


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            low, high = part.split("-")
            out += range(int(low), int(high) + 1)
        elif part:
            out.append(int(part))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tui.monkey", description=(__doc__ or "").split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    soak_ = sub.add_parser("soak", help="a long run: SOAK_EVENTS events, a new seed unless MONKEY_SEED")
    soak_.add_argument("--events", type=int, default=int(os.environ.get("SOAK_EVENTS") or 50_000))
    soak_.add_argument("--session-events", type=int, default=10_000)
    soak_.add_argument("--seed", type=int, default=None)
    hunt_ = sub.add_parser("hunt", help="many seeds; failures grouped by exception and frame, each shrunk")
    hunt_.add_argument("--seeds", default="1-20", help="e.g. 1-50 or 3,7,9")
    hunt_.add_argument("--events", type=int, default=2000)
    replay_ = sub.add_parser("replay", help="play one list (a JSON list or a file holding one)")
    replay_.add_argument("--seed", type=int, required=True)
    replay_.add_argument("--events", required=True)
    for p in (soak_, hunt_, replay_):
        p.add_argument("--shrink-seconds", type=float, default=120.0)
    args = parser.parse_args(argv)
    if args.command == "soak":
        seed = args.seed
        if seed is None and os.environ.get("MONKEY_SEED"):
            seed = int(os.environ["MONKEY_SEED"])
        if seed is None:
            seed = random.SystemRandom().randrange(10**9)
        return asyncio.run(soak(seed, args.events, session_events=args.session_events,
                                shrink_seconds=args.shrink_seconds))
    if args.command == "hunt":
        return asyncio.run(hunt(_seeds(args.seeds), args.events, args.shrink_seconds))
    return asyncio.run(replay(args.seed, load_events(args.events), args.shrink_seconds))


if __name__ == "__main__":
    sys.exit(main())
