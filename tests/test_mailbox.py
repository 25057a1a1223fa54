"""The turn's event mailbox: order kept, a waiting reader woken, nothing lost."""

import asyncio

import pytest

from agent.mailbox import Mailbox


def test_items_come_out_in_the_order_they_went_in():
    box = Mailbox()
    for n in range(5):
        box.put(n)
    assert len(box) == 5
    assert [box.get_nowait() for _ in range(5)] == [0, 1, 2, 3, 4]
    with pytest.raises(IndexError):
        box.get_nowait()


def test_a_waiting_reader_wakes_when_an_item_arrives():
    async def scenario():
        box = Mailbox()
        reader = asyncio.ensure_future(box.get())
        await asyncio.sleep(0)
        assert not reader.done()
        box.put("event")
        return await asyncio.wait_for(reader, 1)

    assert asyncio.run(scenario()) == "event"


def test_a_cancelled_reader_leaves_the_next_item_for_the_next_reader():
    async def scenario():
        box = Mailbox()
        reader = asyncio.ensure_future(box.get())
        await asyncio.sleep(0)
        reader.cancel()
        await asyncio.sleep(0)
        box.put("kept")
        return await asyncio.wait_for(box.get(), 1)

    assert asyncio.run(scenario()) == "kept"
