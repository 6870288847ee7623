"""`make bench`'s agent-socket bench keeps working: one of its calls (register, connect, stream
both ways, two agent turns, hang up) runs here against a sandbox child at 20x, so a bench that no
longer fits the socket fails in `make test` rather than when someone next measures."""

from __future__ import annotations

from bench import voice_socket


async def test_the_socket_bench_plays_a_call_and_measures_it() -> None:
    proc, url = voice_socket._start_sandbox(speed=20.0)
    try:
        jitter, cpu, share = await voice_socket._run(url, proc.pid, 1)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(10)
    assert len(jitter) > 100  # the frames of both turns, each measured
    assert cpu > 0 and 0 < share < 1
