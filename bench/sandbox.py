"""Sandbox throughput and memory on loopback, against a bare Starlette baseline in the same run.

Both servers run as separate uvicorn processes (so peak RSS is the server's alone) and are driven
by one keep-alive httpx client, sequentially:
- GET /v1/variables vs. a bare endpoint answering the same bytes;
- rental creation with 3 x 1 MB documents vs. a bare endpoint that parses the same multipart
  upload and answers the same 201 body;
- the server's peak RSS (VmHWM) after 1,000 such rentals vs. the baseline's after as many uploads.

The goals are ours (the issue set none). The upload ratio is the median of paired rounds; on the
2-core VM it was built on, whole runs still ranged from 0.63 to 1.02 around a typical 0.8 (the
sandbox parses the same upload, then checks three documents and records a rental: ~1 ms more
than the bare endpoint's ~3 ms of parsing). The bar is 0.6, under that spread: a slower sandbox
fails it, machine noise alone does not.
"""

from __future__ import annotations

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from bench._table import print_table

ROOT = Path(__file__).resolve().parents[1]
KEY = {"Authorization": "Bearer sk_sandbox_agent"}
MB = 1024 * 1024
DOC_TYPES = ["business_registration", "address_proof", "signatory_id"]
GETS = 2000
TIMED_RENTALS = 600
TOTAL_RENTALS = 1000


def serve_baseline(json_path: str) -> None:
    """A bare Starlette app: the same answers, none of the sandbox's work."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    answers = json.loads(Path(json_path).read_text())
    variables = answers["variables"].encode()
    rental = answers["rental"].encode()

    async def get_variables(request: Request) -> Response:
        return Response(variables, media_type="application/json")

    async def post_rental(request: Request) -> Response:
        async with request.form(max_files=10) as form:
            json.loads(form["data"])  # type: ignore[arg-type]
            for upload in form.getlist("files"):
                await upload.read(16)  # type: ignore[union-attr]
        return Response(rental, status_code=201, media_type="application/json")

    app = Starlette(routes=[
        Route("/v1/variables", get_variables), Route("/v1/phone-numbers", post_rental, methods=["POST"]),
    ])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY, as the sandbox
    sock.bind(("127.0.0.1", 0))
    print(f"baseline serving at http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


def _start(args: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+", line)
    if not match:
        proc.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return proc, match.group(0)


def _peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    kb = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]
    return kb / 1024


def _documents() -> list[tuple[str, tuple[str, bytes, str]]]:
    pdf = b"%PDF-1.4\n" + os.urandom(MB - 9)
    return [("files", (f"{t}.pdf", pdf, "application/pdf")) for t in DOC_TYPES]


def _rental_data(i: int) -> dict[str, str]:
    # Distinct ordinary Mumbai numbers outside the inventory, none ending in a scenario 000x.
    number = f"+9122{4000_0000 + i * 7:08d}"
    if number[-4:] in ("0002", "0003", "0004", "0005"):
        number = number[:-1] + "9"
    body = {
        "requestedNumber": number,
        "endUser": {"name": "Bench Traders Pvt Ltd", "email": "bench@example.com"},
        "documents": [{"documentTypeId": "business_registration", "dataFields": {"gstin": "27AAACB1234F1Z5"}},
                      {"documentTypeId": "address_proof", "dataFields": {}},
                      {"documentTypeId": "signatory_id", "dataFields": {"pan": "ABCPB1234K"}}],
    }
    return {"data": json.dumps(body)}


def _rate(client: httpx.Client, n: int, send: Callable[[httpx.Client, int], httpx.Response]) -> float:
    started = time.perf_counter()
    for i in range(n):
        response = send(client, i)
        if response.status_code not in (200, 201):
            raise RuntimeError(f"{response.status_code}: {response.text[:200]}")
    return n / (time.perf_counter() - started)


def _interleaved(
    clients: tuple[httpx.Client, httpx.Client], rounds: int, n: int,
    send: Callable[[httpx.Client, int], httpx.Response],
) -> tuple[float, float, float]:
    """Median rate of each server over alternating rounds, and the median of the rounds' ratios:
    a round of one and the next of the other see nearly the same machine, so the paired ratio
    shrugs off load drift that moves both medians."""
    rates: tuple[list[float], list[float]] = ([], [])
    for r in range(rounds):
        for which, client in enumerate(clients):
            rates[which].append(_rate(client, n, lambda c, i: send(c, r * n + i)))
    ratio = statistics.median(a / b for a, b in zip(*rates))
    return statistics.median(rates[0]), statistics.median(rates[1]), ratio


def main() -> bool:
    files = _documents()
    sandbox, sandbox_url = _start([
        sys.executable, "-m", "vap_console", "sandbox", "serve", "--port", "0", "--rate-limit", "100000000",
    ])
    answers = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)  # noqa: SIM115 - closed below, read after
    baseline = None
    try:
        with httpx.Client(base_url=sandbox_url, headers=KEY, timeout=60) as sc:
            with answers:
                json.dump({
                    "variables": sc.get("/v1/variables").text,
                    "rental": sc.post("/v1/phone-numbers", data=_rental_data(10**6), files=files).text,
                }, answers)
            baseline, baseline_url = _start([
                sys.executable, "-c", f"from bench.sandbox import serve_baseline; serve_baseline({answers.name!r})",
            ])
            with httpx.Client(base_url=baseline_url, headers=KEY, timeout=60) as bc:
                get_rate, base_get, get_ratio = _interleaved((sc, bc), 5, GETS // 5, lambda c, i: c.get("/v1/variables"))
                post_rate, base_post, post_ratio = _interleaved(
                    (sc, bc), 10, TIMED_RENTALS // 10,
                    lambda c, i: c.post("/v1/phone-numbers", data=_rental_data(i), files=files),
                )
                for client in (sc, bc):  # up to 1,000 rentals (uploads) each
                    _rate(client, TOTAL_RENTALS - TIMED_RENTALS - (client is sc),
                          lambda c, i: c.post("/v1/phone-numbers", data=_rental_data(TIMED_RENTALS + i), files=files))
            count = sc.get("/v1/phone-numbers").json()["count"]
        sandbox_rss, baseline_rss = _peak_rss_mb(sandbox.pid), _peak_rss_mb(baseline.pid)
    finally:
        for proc in (sandbox, baseline):
            if proc is not None:
                proc.terminate()
                proc.wait(10)
        os.unlink(answers.name)

    rss_ratio = sandbox_rss / baseline_rss
    return print_table(
        f"Sandbox on loopback (one keep-alive client, alternating rounds, medians; {count} rentals held at the end)",
        [
            ("GET /v1/variables, sandbox", f"{get_rate:,.0f} req/s", "", None),
            ("GET /v1/variables, bare Starlette", f"{base_get:,.0f} req/s", "", None),
            ("  ratio sandbox / bare (median of rounds)", f"{get_ratio:.2f}", ">= 0.50", get_ratio >= 0.5),
            ("POST rental 3 x 1 MB, sandbox", f"{post_rate:,.1f} req/s", "", None),
            ("POST 3 x 1 MB, bare multipart", f"{base_post:,.1f} req/s", "", None),
            ("  ratio sandbox / bare (median of rounds)", f"{post_ratio:.2f}", ">= 0.60", post_ratio >= 0.6),
            (f"peak RSS after {TOTAL_RENTALS} rentals, sandbox", f"{sandbox_rss:.0f} MB", "<= 200 MB", sandbox_rss <= 200),
            (f"peak RSS after {TOTAL_RENTALS} uploads, bare", f"{baseline_rss:.0f} MB", "", None),
            ("  ratio sandbox / bare", f"{rss_ratio:.2f}", "<= 2.00", rss_ratio <= 2.0),
        ],
    )


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
