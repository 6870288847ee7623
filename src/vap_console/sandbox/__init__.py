"""A stateful local emulator of the Voice Agent Platform API (DESIGN §4, README "Sandbox").

``app.create_app`` builds the ASGI app, ``server.start_in_thread`` / ``server.serve_main`` serve
it, ``clock`` drives rental progress, ``keys`` lists the sandbox's API keys. Textual-free.
"""
