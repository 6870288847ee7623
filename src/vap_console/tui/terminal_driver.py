"""The driver of the console in a terminal: Textual's LinuxDriver, reading a bracketed paste whole
(tui/whole_paste.py says why). ``VapApp.get_driver_class`` picks it where Textual would pick
LinuxDriver; `vap web`'s ServedDriver does the same for Textual's WebDriver."""

from __future__ import annotations

from textual.drivers.linux_driver import LinuxDriver

from vap_console.tui.whole_paste import reading_whole_pastes


class TerminalDriver(LinuxDriver):
    run_input_thread = reading_whole_pastes(LinuxDriver.run_input_thread)
