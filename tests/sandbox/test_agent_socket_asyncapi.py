"""Every event the agent socket sends is the message /asyncapi.json describes, with exactly its
fields: a client generated from the document reads what the sandbox sends."""

from __future__ import annotations

import jsonschema

from vap_console.sandbox.voice.asyncapi import AGENT_SENT, build_asyncapi

from .socket_calls import dialled, loud, register, types


async def test_every_event_sent_is_its_documented_message_with_exactly_its_fields(live_sandbox) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.greeted()
        await call.send(type="input_audio_buffer.append", audio="not base64!")
        await call.until("error")
        await call.send(type="input_text.send", text="tell me something long enough to cut in on")
        await call.until("output_audio.delta")
        await call.append(loud(0.1))
        await call.until("agent_stop_talking")
        await call.send(type="session.close")
        await call.to_close()
    messages = build_asyncapi()["components"]["messages"]
    by_type = {messages[name]["payload"]["properties"]["type"]["const"]: messages[name]["payload"]
               for name in AGENT_SENT}
    sent = types(call.events)
    assert set(sent) == {"session.created", "agent_start_talking", "transcript.delta", "output_audio.delta",
                         "transcript", "agent_stop_talking", "error", "interruption", "session.closed"}
    for event in call.events:
        schema = by_type[event["type"]]
        jsonschema.validate(event, schema)
        assert set(event) == set(schema["properties"]), event
