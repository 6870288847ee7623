"""Shared fixtures: a sandbox on a virtual clock, in-process or served on loopback.

Stable for every test directory: ``sandbox_clock`` (a VirtualClock at the sandbox EPOCH; advance
it to move rentals on), ``sandbox_app`` (the ASGI app on that clock, state in
``sandbox_app.state.sandbox``), ``sandbox_transport`` (an httpx.ASGITransport over it) and
``live_sandbox`` (the same app served by uvicorn on a free loopback port: ``.base_url``).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import settings

from vap_console.sandbox.app import create_app
from vap_console.sandbox.clock import VirtualClock
from vap_console.sandbox.server import RunningSandbox, start_in_thread

# pytest-xdist's workers run with COLUMNS=80 and LINES=24 set. Textual reads them before asking
# the terminal, so a console the tests start in a 120x36 tmux pane would lay itself out at 80x24.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

# Hypothesis's default deadline (200 ms an example) assumes a quick machine: on a busy one an
# example that merely waited for the CPU failed as DeadlineExceeded, then Flaky when its rerun was
# quick. A loaded machine makes a test slower, never red: no deadline for any property here
# (a hang is still bounded, by pytest-timeout).
settings.register_profile("vap-console", deadline=None)
settings.load_profile("vap-console")

# The garbage collector's passes, made rarer in the test processes (the default: a young pass
# every 700 allocations, a full one every ten middle ones once the heap grew by a quarter). A test
# process builds and drops a console after another, and each full pass walked everything alive:
# tests/tui/test_tool_form_live.py and test_wizard.py, 36 tests in one process, spent 22.5 s of
# their 125 s of CPU in collections, 17 s of it in 66 full passes; with these thresholds 4.9 s of
# 93.5 s, and no full pass. Garbage in cycles still goes at the young and middle passes (objects
# kept alive by nothing else go at once, by reference count); the tests that measure memory
# collect explicitly first. The console's own settings (tui/screens/base.py's no_full_collections)
# save and restore these.
GC_THRESHOLDS = (10_000, 50, 100)
gc.set_threshold(*GC_THRESHOLDS)


def _share_parsed_css() -> None:
    """Parse each piece of Textual CSS once per test process, not once per app.

    Every test that starts the console builds a new App, and with it a new Stylesheet whose own
    parse cache starts empty: each start re-parsed every widget's DEFAULT_CSS and the app's CSS,
    a fifth of a plain scene's CPU (0.06-0.15 s of 0.35-1.3 s, measured on the Tools and wizard
    scenes), a thousand times and more in `make test`. The parse is a pure function of the text,
    where it was read from, its scope and tie-breaker, and the theme's variables: all of them are
    the key here, so an app gets the very rules it would have parsed itself. (Textual already
    shares one parse between the stylesheets of an app the same way; an invalid CSS still raises,
    as nothing is kept for it.)
    """
    from textual.css.model import RuleSet
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules
    parsed: dict[tuple[object, ...], list[RuleSet]] = {}

    def shared(self: Stylesheet, css: str, read_from: object, is_default_rules: bool = False,
               tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(sorted(self._variables.items())))
        if key not in parsed:
            parsed[key] = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)  # type: ignore[arg-type]
        return parsed[key]

    Stylesheet._parse_rules = shared  # type: ignore[method-assign]


_share_parsed_css()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` first on every worker, so the short ones fill in around them.

    `make test` runs pytest-xdist's ``worksteal``: each of the k workers is given one contiguous
    k-th of the collection and an idle worker takes half of the longest queue left. In collection
    order the few tests of a minute or more came last, and the run ended waiting for one worker
    while the other idled. Here the slow tests are dealt out, one each in turn, to the front of
    each worker's share (every worker collects, and orders, the same way).
    """
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    slow = [item for item in items if item.get_closest_marker("slow")]
    rest = [item for item in items if not item.get_closest_marker("slow")]
    shares: list[list[pytest.Item]] = [slow[n::workers] for n in range(workers)]
    # Worker n gets the n-th slice of len(items) // workers items (xdist's first split).
    sizes = [len(items) // workers] * workers
    sizes[-1] += len(items) - sum(sizes)
    for share, size in zip(shares, sizes, strict=True):
        take = max(size - len(share), 0)
        share.extend(rest[:take])
        del rest[:take]
    shares[-1].extend(rest)
    items[:] = [item for share in shares for item in share]


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """The end-of-run garbage collections, done while the run is still the run's.

    pytest collects garbage five times once a process is done, to report exceptions raised in
    finalizers. In an xdist worker that came after the worker had said it was finished, and
    execnet gives a finished worker 5 s before it sends it a SIGINT: on a busy machine five full
    passes over a worker's heap took longer, and the green run ended with a KeyboardInterrupt
    traceback (raised inside Hypothesis's garbage-collector callback, which runs in each pass).
    Here, last of the session's end (after its fixtures are torn down, before xdist reports the
    worker finished), the same five passes run with pytest's hook still catching what they raise;
    then what is left alive is frozen, so the passes at exit walk nothing it already walked.
    """
    for _ in range(5):
        gc.collect()
    gc.freeze()


@pytest.fixture
def sandbox_clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def sandbox_app(sandbox_clock: VirtualClock):  # a Starlette app
    return create_app(clock=sandbox_clock)


@pytest.fixture
def sandbox_transport(sandbox_app) -> httpx.ASGITransport:
    return httpx.ASGITransport(app=sandbox_app)


@pytest.fixture
def live_sandbox(sandbox_clock: VirtualClock) -> Iterator[RunningSandbox]:
    # Its agents answer at once: tests move its clock by hand (tests/sandbox/socket_calls.py instant).
    with start_in_thread(clock=sandbox_clock, faults="agent_delay_ms=*:0") as running:
        yield running
