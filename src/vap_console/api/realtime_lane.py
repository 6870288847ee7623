"""The agent's audio taken where it arrives: in the socket's own read callback, not the reader task.

The agent sends 50 ``output_audio.delta`` frames a second (20 ms each, reference voice.md §3). Through
websockets' queue each one cost the UI's loop two turns: the transport's read callback (which queued
it and woke the reader) and then the reader task's step (which took it, parsed it and handed it on).
On a 2-core VM each turn costs far more than its code, the machine's caches cold after each idle
spell (bench/talk.py: 183 µs in the callback and 218 µs in the task step per frame; the audio alone
was a third of the Talk screen's CPU). A frame of agent audio is therefore handed to the call's
sink in the callback itself when nothing is queued ahead of it.

Order is kept: a frame is taken there only when websockets' queue is empty, and the queue is empty
only once the reader has taken every frame before it; the reader handles each frame before it
awaits anything (``AgentSocket.events`` and its callers do no I/O between frames), so an
``interruption`` is always handled (the player flushed) before the audio that follows it. Anything
else, or audio behind a queued frame, takes the reader's way. The sink says whether it took the
frame; one it does not take (not audio after all, not UTF-8) goes the reader's way too, where a
malformed frame is reported as usual. If the sink raises, the lane closes itself and that frame
and every later one go the reader's way: the caller's own loop meets the failure where it always
met it, and no frame is lost.
"""

from __future__ import annotations

from collections.abc import Callable

from websockets.asyncio.client import ClientConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import Event

# How an audio frame begins as the vendor's server and the sandbox write it (json.dumps with and
# without spaces). A frame written otherwise (keys in another order) is still read, the slow way.
AUDIO_STARTS = (b'{"type": "output_audio.delta"', b'{"type":"output_audio.delta"')

# Takes a text frame's bytes; True when it was taken (handled), False to leave it to the reader.
AudioSink = Callable[[bytes], bool]


class LanedConnection(ClientConnection):
    """websockets' client connection with the audio lane: ``audio_sink`` set, agent audio that
    arrives with nothing queued ahead of it goes to the sink, not the queue."""

    audio_sink: AudioSink | None = None
    # What the sink raised when the lane closed itself (kept to be read, never raised here: a
    # read callback that raises aborts the connection, a billed call, over a frame of audio).
    sink_failure: Exception | None = None

    def process_event(self, event: Event) -> None:
        sink = self.audio_sink
        if sink is not None and isinstance(event, Frame) and _lane_audio(event) and not self._queued():
            try:
                if sink(bytes(event.data)):
                    return
            except Exception as failure:  # noqa: BLE001 - any: the frame and later ones take the reader's way
                self.audio_sink = None
                self.sink_failure = failure
        super().process_event(event)

    def _queued(self) -> int:
        # websockets keeps the frames not yet read in its assembler's queue (14 and later); a
        # websockets that keeps them otherwise gets no lane, only the reader's way.
        frames = getattr(self.recv_messages, "frames", None)
        if frames is None or not hasattr(frames, "__len__"):
            self.audio_sink = None
            return 1
        return len(frames)


def _lane_audio(frame: Frame) -> bool:
    return frame.opcode is Opcode.TEXT and frame.fin and bytes(frame.data[:30]).startswith(AUDIO_STARTS)
