"""Every HTTP stream of OpenAIChatModel is closed on every path, and the client closes from
anywhere: no connection is left open, or half-closed in CLOSE_WAIT, after faults."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time

import pytest

from agent.models import ModelError
from tests.support.openai_fixtures import ask, make_model, reply_of, serve, stopping
from tests.support.openai_server import CutOff, Forever, Hang, StreamError
from tests.support.sockets import sockets, wait_until_closed

__all__ = ["serve", "stopping"]  # fixtures

STEP = 'Thought: add.\nAction: calculator\nAction Input: {"expression": "2+2"}\n'
LONG = "x" * 4000


async def until_error(model, request=None) -> None:
    with contextlib.suppress(ModelError):
        await reply_of(model, request)


async def close_after_first_piece(model) -> None:
    stream = model.stream(ask())
    await anext(stream)
    await stream.aclose()


async def cancel_mid_reply(model) -> None:
    # Cancelled once the reply is under way: a cancel before the request reached the server
    # would leave its reply to the next call.
    under_way = asyncio.Event()

    async def read() -> None:
        async for _ in model.stream(ask()):
            under_way.set()

    task = asyncio.create_task(read())
    await asyncio.wait_for(under_way.wait(), 10)
    await asyncio.sleep(0.05)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def fail_while_reading(model) -> None:
    with contextlib.suppress(RuntimeError):
        async with contextlib.aclosing(model.stream(ask())) as stream:
            async for _ in stream:
                raise RuntimeError("the consumer failed")


async def drop_without_closing(model) -> None:
    # A consumer that breaks out and forgets the iterator: the collector must close it.
    stream = model.stream(ask())
    await anext(stream)
    del stream
    gc.collect()
    await asyncio.sleep(0.05)


# (reply from the server, what the client does)
FAULTS = [
    (CutOff("Thought: I will look"), until_error),
    (CutOff(""), until_error),
    (StreamError("Thought: I"), until_error),
    (Hang(seconds=30, text="Thought: I"), until_error),
    (Hang(seconds=30), until_error),
    (Forever(), until_error),
    (STEP + "Observation: invented\n" + LONG, reply_of),
    (LONG, close_after_first_piece),
    (LONG, cancel_mid_reply),
    (LONG, fail_while_reading),
    (LONG, drop_without_closing),
]


async def test_twenty_faulty_calls_leave_no_connection_behind(serve):
    calls = [FAULTS[i % len(FAULTS)] for i in range(22)]
    server = serve([reply for reply, _ in calls], chunk_size=4, chunk_delay=0.002)
    model = make_model(server, timeout=0.5, max_tokens=200)
    seen_states: set[str] = set()

    for _, action in calls:
        await action(model)
        seen_states.update(s.state for s in sockets(server.port) if s.side == "client")

    assert wait_until_closed(server.port, timeout=1.0) == []
    assert "CLOSE_WAIT" not in seen_states
    assert len(server.requests) == len(calls)
    await model.aclose()


async def test_a_normal_reply_keeps_one_pooled_connection_until_close(serve):
    server = serve(["Answer: 1", "Answer: 2"])
    model = make_model(server)

    assert await reply_of(model) == "Answer: 1"
    assert await reply_of(model) == "Answer: 2"
    # Both calls shared one kept-alive connection.
    assert [s.side for s in sockets(server.port)].count("client") == 1

    model.close()  # the synchronous close, from inside the running loop: it schedules
    assert await asyncio.to_thread(wait_until_closed, server.port) == []


async def test_aclose_then_the_model_works_again(serve):
    server = serve(["Answer: 1", "Answer: 2"])
    model = make_model(server)

    await reply_of(model)
    await model.aclose()
    assert wait_until_closed(server.port) == []
    assert await reply_of(model) == "Answer: 2"
    await model.aclose()


def test_close_from_another_thread_closes_the_client_in_its_loop(serve):
    # A page session ends on a thread other than the one whose loop made the calls.
    server = serve(["Answer: 1"])
    model = make_model(server)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        reply = asyncio.run_coroutine_threadsafe(reply_of(model), loop).result(timeout=10)
        client = model._client
        assert reply == "Answer: 1" and client is not None

        model.close()

        deadline = time.monotonic() + 2
        while not client.is_closed() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert client.is_closed()
        assert wait_until_closed(server.port) == []
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()


def test_close_after_the_loop_ended_is_harmless(serve):
    server = serve(["Answer: 1", "Answer: 2"])
    model = make_model(server)

    assert asyncio.run(reply_of(model)) == "Answer: 1"
    model.close()
    model.close()
    assert asyncio.run(reply_of(model)) == "Answer: 2"
    asyncio.run(model.aclose())


@pytest.mark.parametrize("timeout", [0.3, 1.0])
async def test_a_stall_mid_reply_is_closed_at_the_timeout(serve, timeout):
    server = serve([Hang(seconds=30, text="Thought: I am")])
    model = make_model(server, timeout=timeout)

    started = time.monotonic()
    with pytest.raises(ModelError, match="stopped sending the reply"):
        await reply_of(model)

    assert timeout - 0.05 <= time.monotonic() - started < timeout + 0.8
    assert server.wait_for_disconnects(1)
    assert wait_until_closed(server.port) == []
    await model.aclose()


async def test_closing_the_model_mid_reply_ends_the_call_with_a_sentence(serve):
    server = serve(["x" * 400], chunk_size=2, chunk_delay=0.01)
    model = make_model(server)
    got = ""

    with pytest.raises(ModelError, match="cut off part-way") as caught:
        async for piece in model.stream(ask()):
            got += piece
            model.close()

    assert caught.value.kind == "cut_off" and got == "xx"
    assert await asyncio.to_thread(wait_until_closed, server.port) == []
