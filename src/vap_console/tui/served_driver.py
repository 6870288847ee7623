"""The driver of a console `vap web` serves: Textual's WebDriver, ending with the server.

The console lives exactly as long as the pipe on its stdin, as the embedded sandbox's child does
(sandbox/process.py): `vap web` holds the other end, so however the server ends, even killed with
SIGKILL, the kernel closes it, the console reads end of file and quits (its own sandbox child then
stops the same way). Textual's WebDriver stopped reading there and left the console running,
orphaned, holding the profile's key. It also reads a bracketed paste whole (tui/whole_paste.py).

`vap web` names this class in TEXTUAL_DRIVER for each console it starts.
"""

from __future__ import annotations

import asyncio
import os
import threading

from textual import messages
from textual.drivers.web_driver import WebDriver

from vap_console.tui.whole_paste import reading_whole_pastes

# A console told to quit gets this long; one that cannot (its output pipe is gone too, and a write
# may fail anywhere in the shutdown) is ended without its clean-ups. Its sandbox child still stops:
# that child's own stdin pipe closes with this process.
QUIT_GRACE = 5.0


class ServedDriver(WebDriver):
    def start_application_mode(self) -> None:
        self._loop = asyncio.get_running_loop()
        super().start_application_mode()

    # WebDriver's input loop, with a parser that keeps a paste whole.
    _read_input = reading_whole_pastes(WebDriver.run_input_thread)

    def run_input_thread(self) -> None:
        self._read_input()
        if self.exit_event.is_set():
            return  # the console is stopping on its own
        # End of file on stdin: the server that started this console is gone.
        asyncio.run_coroutine_threadsafe(self._app._post_message(messages.ExitApp()), self._loop)
        timer = threading.Timer(QUIT_GRACE, os._exit, (1,))
        timer.daemon = True
        timer.start()
