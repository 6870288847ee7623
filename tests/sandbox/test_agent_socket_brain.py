"""The sandbox agent on the socket answers by the documented rules (docs/sandbox-voice.md):
its greeting filled from before_call tools' outputs, tools called by name, variables answered,
goodbye ending the call, anything else echoed; the same text always sounds the same."""

from __future__ import annotations

from vap_console.sandbox.voice.call_records import COMPLETED

from .socket_calls import PRIYA_GREETING, account_of, deltas, dialled, register, types


async def _greeting_of(sandbox, agent: str) -> str:
    async with dialled(sandbox, (await register(sandbox, agent))["access_token"]) as call:
        await call.until("agent_start_talking")
        call.clock.advance(30)  # longer than any of these greetings takes to say
        events = await call.until("agent_stop_talking")
    return events[-2]["text"]


async def test_the_greeting_is_filled_from_before_call_tool_outputs(live_sandbox) -> None:
    # {customer_name} is fed by lookup_customer, whose sandbox stand-in answers Rahul Verma.
    greeting = await _greeting_of(live_sandbox, "Arjun")
    assert greeting == ("Hello Rahul Verma, this is Priya from Sharma Dental Clinic. You enquired about a flat "
                        "with us. Is this a good time to talk?")


async def test_a_variable_no_tool_feeds_keeps_its_default(live_sandbox) -> None:
    account = account_of(live_sandbox)
    account.variables["agent_name"].default_value = "Anita"
    assert await _greeting_of(live_sandbox, "Priya") == PRIYA_GREETING.replace("Priya", "Anita")


async def test_an_agent_without_a_greeting_uses_its_templates(live_sandbox) -> None:
    agent = next(a for a in account_of(live_sandbox).agents.values() if a.name.startswith("Priya"))
    agent.greeting = ""
    assert await _greeting_of(live_sandbox, "Priya") == PRIYA_GREETING


async def test_a_turn_naming_a_during_call_tool_calls_it(live_sandbox) -> None:
    registered = await register(live_sandbox)
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.greeted()
        events = await call.answered("Please book an appointment, book_appointment for Monday",
                                     "Done: I used book appointment.")
        await call.send(type="session.close")
        await call.to_close()
    assert events[-2]["text"] == "Done: I used book appointment."
    assert account_of(live_sandbox).calls[registered["call_id"]].tools_called == ["book_appointment"]


async def test_a_tool_the_agent_lacks_is_not_called(live_sandbox) -> None:
    registered = await register(live_sandbox, "Kabir")  # its prompt attaches no book_appointment
    greeting = "Hi Rahul Verma, this is Priya from Sharma Dental Clinic. Do you have a minute for feedback?"
    async with dialled(live_sandbox, registered["access_token"]) as call:
        call.agent = "Kabir"
        await call.next()
        await call.greeted(greeting)
        reply = "This is Priya. You said: book appointment. How else can I help?"
        events = await call.answered("book appointment", reply)
        await call.send(type="session.close")
        await call.to_close()
    assert events[-2]["text"] == reply
    assert account_of(live_sandbox).calls[registered["call_id"]].tools_called == []


async def test_a_question_about_a_variable_is_answered_its_value(live_sandbox) -> None:
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.greeted()
        events = await call.answered("What are your support hours?",
                                     "The support hours is 9 am to 7 pm, Monday to Saturday.")
    assert events[-2]["text"] == "The support hours is 9 am to 7 pm, Monday to Saturday."


async def test_anything_else_is_echoed_in_the_persona(live_sandbox) -> None:
    reply = "This is Priya. You said: my tooth hurts. How else can I help?"
    async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
        await call.next()
        await call.greeted()
        events = await call.answered("my tooth hurts", reply)
    assert events[-2]["text"] == reply


async def test_goodbye_ends_the_call(live_sandbox) -> None:
    registered = await register(live_sandbox)
    goodbye = "Thank you for calling Sharma Dental Clinic. Goodbye!"
    async with dialled(live_sandbox, registered["access_token"]) as call:
        await call.next()
        await call.greeted()
        events = await call.answered("ok, bye", goodbye)
        assert events[-2]["text"] == goodbye
        assert await call.to_close() == [{"type": "session.closed", "reason": "ended"}]
    assert call.close_code == 1000
    record = account_of(live_sandbox).calls[registered["call_id"]]
    assert record.status == COMPLETED and record.end_reason == "ended"
    assert record.tools_called == ["end_call"]
    assert [t["role"] for t in record.transcript] == ["assistant", "user", "assistant"]


async def test_the_same_words_give_the_same_audio_on_every_call(live_sandbox) -> None:
    heard = []
    for _ in range(2):
        async with dialled(live_sandbox, (await register(live_sandbox))["access_token"]) as call:
            await call.next()
            heard.append(deltas(await call.greeted()))
            await call.send(type="session.close")
            assert types(await call.to_close()) == ["session.closed"]
    assert heard[0] == heard[1] and heard[0]
