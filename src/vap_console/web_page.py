"""The page `vap web` serves, and the headers every answer carries.

textual-serve's own template asks a public font service for its font: a request to another host
from every tab, which also tells that host the console is in use. This page is that template
without it: everything it loads comes from the server that served it (textual-serve's script and
stylesheet, its background picture, its bundled Roboto Mono), and its Content-Security-Policy lets
the browser load nothing else. Its one inline style and one inline script are allowed by their
hashes, computed here from the very text served; the buttons get their handlers from that script,
since an inline ``onclick`` would need 'unsafe-inline'.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape

# textual.js inserts this stylesheet itself (webpack's style-loader) as an inline <style>, empty
# first and filled after: both allowed by their hashes (an empty style can do nothing). Its rules
# are repeated in PAGE_STYLE so the page lays out even if a later textual.js changes it (the
# browser test then reports the refused style).
BUNDLED_STYLE = ("h1{color:#fff;background-color:#000}body{margin:0;padding:0}"
                 ".textual-terminal{width:100vw;height:100vh}")

PAGE_STYLE = """
@font-face {
  font-family: "Roboto Mono";
  src: url("%(static)sfonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
  font-weight: 100 700;
  font-style: normal;
}
body { background: #0c181f; margin: 0; padding: 0; }
.textual-terminal { width: 100vw; height: 100vh; }
.dialog-container {
  position: absolute; width: 100vw; height: 100vh; display: flex; align-items: center;
  justify-content: center; z-index: 10;
}
.shade {
  position: absolute; width: 100%%; height: 100%%; background: #0c181f;
  background-image: url("%(static)simages/background.png");
}
.intro {
  width: 640px; height: 240px; font-size: 16px; z-index: 20;
  font-family: "Roboto Mono", menlo, monospace; text-align: center;
  color: rgba(255, 255, 255, 0.95); background-color: #12232d;
  display: flex; align-items: center; justify-content: center; margin: 32px;
}
body.-first-byte .intro-dialog, body.-first-byte .intro-dialog .shade {
  opacity: 0; transition: opacity 0.3s ease-out; display: none;
}
body .textual-terminal { opacity: 0; transition: opacity 0.3s ease-out; }
body.-first-byte .textual-terminal { opacity: 1; transition: opacity 0.3s ease-out; }
body button {
  padding: 16px 32px; background-color: #5e0ba7; color: rgba(255, 255, 255, 0.95); border: none;
  font-family: "Roboto Mono", menlo, monospace; margin: 16px; display: block;
}
button:hover { background: #ac5af4; cursor: pointer; }
.closed-dialog { opacity: 0; display: none; }
body.-closed .closed-dialog { opacity: 1; display: flex; }
#start { display: none; }
#start.-delay { display: flex; }
"""

# Start (after ?delay) and Restart (after the session ended) load the page again, without ?delay.
PAGE_SCRIPT = """
document.addEventListener("DOMContentLoaded", function () {
  function restart() {
    var url = new URL(window.location.href);
    url.searchParams.delete("delay");
    window.location.href = url.pathname + "?" + url.searchParams.toString();
  }
  document.querySelectorAll("button.restart").forEach(function (b) { b.addEventListener("click", restart); });
});
"""

PAGE = """<!DOCTYPE html>
<html>
  <head>
    <meta charset="utf-8">
    <title>%(title)s</title>
    <link rel="preload" href="%(static)sfonts/RobotoMono-VariableFont_wght.ttf" as="font" type="font/ttf" crossorigin>
    <link rel="stylesheet" href="%(static)scss/xterm.css">
    <script src="%(static)sjs/textual.js"></script>
    <style>%(style)s</style>
    <script>%(script)s</script>
  </head>
  <body>
    <div class="dialog-container intro-dialog">
      <div class="shade"></div>
      <div class="intro">
        <div>%(title)s</div>
        <button type="button" class="restart" id="start">Start</button>
      </div>
    </div>
    <div class="dialog-container closed-dialog">
      <div class="shade"></div>
      <div class="intro">
        <div class="message">Session ended.</div>
        <button type="button" class="restart">Restart</button>
      </div>
    </div>
    <div id="terminal" class="textual-terminal" data-session-websocket-url="%(websocket)s"
         data-font-size="%(font_size)d"></div>
  </body>
</html>
"""


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def page(*, title: str, static_url: str, websocket_url: str, font_size: int = 16) -> tuple[str, str]:
    """The page's HTML and the Content-Security-Policy that goes with it."""
    # A path (/SECRET/static/) from the router: no host, nothing to escape inside the <style>.
    static = escape(static_url, quote=True)
    if static != static_url:
        raise ValueError(f"static_url must be a plain path, got {static_url!r}")
    style = PAGE_STYLE % {"static": static}
    html = PAGE % {"title": escape(title), "static": static, "websocket": escape(websocket_url, quote=True),
                   "font_size": font_size, "style": style, "script": PAGE_SCRIPT}
    policy = "; ".join([
        "default-src 'self'",
        f"script-src 'self' {_hash(PAGE_SCRIPT)}",
        f"style-src 'self' {_hash(style)} {_hash('')} {_hash(BUNDLED_STYLE)}",
        # the console's websocket: same host and port ('self' covers ws:// to it)
        "connect-src 'self'",
        "img-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ])
    return html, policy


# On every answer (the page, its static files, a 403): no Referer leaves with the secret in it, and
# a file is never run as something other than its declared type.
COMMON_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
