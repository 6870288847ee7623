"""Rental benchmarks: the console itself (Textual app, wizard, rental screen), each in a child process.

(a) Peak RSS of the console while its wizard uploads 5 documents of 5 MB, against its idle RSS
    with the wizard open (the baseline, measured in the same child just before). The peak is the
    kernel's high-water mark (VmHWM), reset through /proc/self/clear_refs once everything is
    imported and drawn, so only the upload counts. The server is a byte sink in another process
    that reads the whole body and answers 201 with a rental. Goal: peak − idle ≤ 20 MB.
(b) CPU used by an idle console whose rental screen polls one rental for 60 s, against the
    same console idle on the Numbers screen for 15 s (the baseline) in the same run. The rental
    sits waiting on a `vap sandbox serve --speed 0.05` in another process, so it never settles
    during the window and polling never stops. CPU is the child's own user+system time
    (getrusage), over wall time. Goal: < 2 % of one core.

Both consoles run headless (Textual's headless driver renders every frame, without a terminal).
Run with `make bench` (or `python -m bench rental`).
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench._memory import reset_peak, status_kb
from tests.net import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[1]
MB = 1024 * 1024
FILES = 5
FILE_BYTES = 5 * MB - 4096  # just under the 5 MB limit
RSS_GOAL_MB = 20.0
CPU_GOAL_PERCENT = 2.0
POLL_WINDOW = 60.0
IDLE_WINDOW = 15.0
SINK_KEY = "sk_bench_rental_00000000"
STAMP = "2026-01-02T03:04:05Z"
RENTAL_ID = "00000000-0000-4000-8000-0000000000aa"


def _rental_body() -> dict:
    steps = [
        ("prepaid", "First month's rent paid", "done"),
        ("submitted", "Documents submitted", "done"),
        ("verification", "KYC verification", "active"),
        ("purchase", "Number purchase", "pending"),
        ("active", "Number active", "pending"),
    ]
    return {
        "id": RENTAL_ID, "status": "kyc_submitted", "requestedNumber": "912272401010",
        "numberType": "local", "countryIso": "IN", "currency": "INR",
        "timeline": [{"key": k, "label": label, "state": state, "at": STAMP if state == "done" else None}
                     for k, label, state in steps],
        "events": [], "createdAt": STAMP, "updatedAt": STAMP,
    }


# --- the byte sink (its own process): reads every uploaded byte, answers like the API ---


def _sink_app():
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def rent(request: Request) -> JSONResponse:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
        return JSONResponse(_rental_body() | {"uploadedBytes": size}, status_code=201)

    async def rentals(request: Request) -> JSONResponse:
        return JSONResponse({"items": [], "count": 0})

    async def rental(request: Request) -> JSONResponse:
        return JSONResponse(_rental_body())

    return Starlette(routes=[
        Route("/v1/phone-numbers", rent, methods=["POST"]),
        Route("/v1/phone-numbers", rentals, methods=["GET"]),
        Route("/v1/phone-numbers/{rental_id}", rental, methods=["GET"]),
    ])


def _serve_sink(port: int) -> None:
    import uvicorn

    uvicorn.run(_sink_app(), host="127.0.0.1", port=port, log_level="warning")


# --- helpers ---


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _console(base_url: str, key: str):
    from vap_console.api import VapClient
    from vap_console.tui.app import make_app
    from vap_console.tui.settings import Settings

    return make_app(client_factory=lambda: VapClient(base_url, key), profile_name="bench",
                    base_url=base_url, settings=Settings())


async def _until(pilot, predicate, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError("the console did not get there in time")
        await pilot.pause(0.05)


# --- (a) child: the console uploads 5 × 5 MB ---


async def _upload_child(base_url: str, folder: Path) -> dict:
    from vap_console.api import RentalApplication, RentalDocument
    from vap_console.api.models import EndUser
    from vap_console.tui.screens.rental import RentalScreen
    from vap_console.tui.screens.wizard import RentalWizard

    app = _console(base_url, SINK_KEY)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.5)
        wizard = RentalWizard(app, start_dir=folder)  # the console is the wizard's host
        await app.push_screen(wizard)
        await pilot.pause(0.5)
        application = RentalApplication(
            requested_number="912272401010",
            end_user=EndUser(name="Bench Pvt Ltd"),
            documents=[RentalDocument(document_type_id=f"type_{i}", path=folder / f"doc{i}.pdf")
                       for i in range(FILES)],
        )
        import gc

        gc.collect()
        await pilot.pause(0.5)
        idle = status_kb("VmRSS")
        exact = reset_peak()
        sampled = [idle]
        stop = threading.Event()

        def sample() -> None:  # a fallback where the high-water mark cannot be reset
            while not stop.is_set():
                sampled.append(status_kb("VmRSS"))
                time.sleep(0.002)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.perf_counter()
        wizard.submit(application)
        await _until(pilot, lambda: isinstance(app.screen, RentalScreen))
        seconds = time.perf_counter() - started
        stop.set()
        sampler.join()
        peak = status_kb("VmHWM") if exact else max(sampled)
        received = (app.screen.rental.model_extra or {}).get("uploadedBytes", 0)
        return {"idle_kb": idle, "peak_kb": peak, "exact": exact, "seconds": seconds, "received": received}


def _make_documents(folder: Path) -> None:
    chunk = b"0" * MB
    for i in range(FILES):
        with open(folder / f"doc{i}.pdf", "wb") as fh:
            fh.write(b"%PDF-1.4\n%")
            remaining = FILE_BYTES - 10 - len(b"\n%%EOF\n")
            while remaining > 0:
                fh.write(chunk[: min(MB, remaining)])
                remaining -= min(MB, remaining)
            fh.write(b"\n%%EOF\n")


# --- (b) child: the console polls one waiting rental ---


async def _poll_child(base_url: str, rental_id: str, window: float, poll: bool) -> dict:
    from vap_console.tui.screens.rental import RentalScreen

    app = _console(base_url, "sk_sandbox_verified")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(2.0)  # the Numbers list loads and draws
        screen = RentalScreen(rental_id)
        if poll:
            await app.push_screen(screen)
            await _until(pilot, lambda: screen.rental is not None)
            await pilot.pause(1.0)
        cpu0, wall0 = _cpu_seconds(), time.monotonic()
        await asyncio.sleep(window)
        cpu, wall = _cpu_seconds() - cpu0, time.monotonic() - wall0
        status = screen.rental.status if poll and screen.rental is not None else None
        return {"cpu_s": cpu, "wall_s": wall, "status": status, "polling": poll and screen.polling}


def _rent_waiting(base_url: str) -> str:
    from vap_console.api import RentalApplication, VapClient

    async def go() -> str:
        async with VapClient(base_url, "sk_sandbox_verified") as client:
            return (await client.rent_number(RentalApplication(requested_number="912272401010"))).id

    return asyncio.run(go())


# --- the parent: start servers and children, print the table ---


def _child(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "bench.rental", "--child", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"child {args[0]} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _measure_upload() -> dict:
    port = free_port()
    sink = subprocess.Popen([sys.executable, "-m", "bench.rental", "--child", "sink", str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        with tempfile.TemporaryDirectory(prefix="vap-bench-") as folder:
            _make_documents(Path(folder))
            return _child("upload", f"http://127.0.0.1:{port}", folder)
    finally:
        sink.terminate()
        sink.wait(10)


def _measure_polling() -> tuple[dict, dict]:
    port = free_port()
    vap = Path(sys.executable).with_name("vap")
    server = subprocess.Popen([str(vap), "sandbox", "serve", "--port", str(port), "--speed", "0.05"],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        base_url = f"http://127.0.0.1:{port}"
        rental_id = _rent_waiting(base_url)
        idle = _child("poll", base_url, rental_id, str(IDLE_WINDOW), "0")
        polling = _child("poll", base_url, rental_id, str(POLL_WINDOW), "1")
        return idle, polling
    finally:
        server.terminate()
        server.wait(10)


def main() -> int:
    from bench._table import print_table

    upload = _measure_upload()
    idle, polling = _measure_polling()
    grew_mb = (upload["peak_kb"] - upload["idle_kb"]) / 1024
    idle_pct = 100 * idle["cpu_s"] / idle["wall_s"]
    poll_pct = 100 * polling["cpu_s"] / polling["wall_s"]
    how = "VmHWM reset via clear_refs" if upload["exact"] else "VmRSS sampled every 2 ms"
    rows = [
        ("(a) console idle RSS, wizard open (baseline)", f"{upload['idle_kb'] / 1024:.1f} MB", "", None),
        (f"(a) peak RSS during 5 × 5 MB upload ({how})", f"{upload['peak_kb'] / 1024:.1f} MB", "", None),
        ("(a) peak − idle", f"{grew_mb:.1f} MB ({upload['peak_kb'] / upload['idle_kb']:.2f}× idle)",
         f"≤ {RSS_GOAL_MB:g} MB", grew_mb <= RSS_GOAL_MB),
        ("(a) bytes the sink received, upload time",
         f"{upload['received'] / MB:.1f} MB in {upload['seconds']:.2f} s",
         f"≥ {FILES * FILE_BYTES / MB:.1f} MB", upload["received"] >= FILES * FILE_BYTES),
        (f"(b) console idle on Numbers, {idle['wall_s']:.0f} s (baseline)",
         f"{idle_pct:.2f} % of a core", "", None),
        (f"(b) console polling a waiting rental, {polling['wall_s']:.0f} s",
         f"{poll_pct:.2f} % of a core ({poll_pct / idle_pct:.2f}× idle)" if idle_pct else f"{poll_pct:.2f} %",
         f"< {CPU_GOAL_PERCENT:g} %", poll_pct < CPU_GOAL_PERCENT),
        ("(b) rental still polled at the end", f"{polling['status']}, polling={polling['polling']}",
         "still waiting", polling["polling"] is True),
    ]
    return 0 if print_table("Rental wizard upload and timeline polling (the console, headless)", rows) else 1


def _child_main(argv: list[str]) -> None:
    kind = argv[0]
    if kind == "sink":
        _serve_sink(int(argv[1]))
        return
    if kind == "upload":
        result = asyncio.run(_upload_child(argv[1], Path(argv[2])))
    elif kind == "poll":
        result = asyncio.run(_poll_child(argv[1], argv[2], float(argv[3]), argv[4] == "1"))
    else:
        raise SystemExit(f"unknown child {kind!r}")
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child_main(sys.argv[2:])
    else:
        sys.exit(main())
