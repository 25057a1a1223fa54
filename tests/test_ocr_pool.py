"""OCR worker processes: a call past its time or cancelled stops its worker, whose slot gets a
fresh one; a busy pool says so; no worker outlives the pool or its parent process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from agent import Agent
from agent.models import OfflineModel
from tests.conftest import collect
from tools.base import ToolContext
from tools.ocr.pool import (
    EngineSpec,
    EngineUnavailable,
    OcrPool,
    Stopped,
    WorkerLost,
    WorkersBusy,
)
from tools.read_text import OcrBusy, ReadText, recognise

pytestmark = pytest.mark.real_ocr

ROOT = Path(__file__).resolve().parent.parent
PIXELS = np.zeros((40, 80, 3), np.uint8)


@pytest.fixture
def pool():
    made: list[OcrPool] = []

    def make(name: str, size: int = 1) -> OcrPool:
        made.append(OcrPool(EngineSpec(factory=f"tests.support.fake_ocr:{name}"), size))
        return made[-1]

    yield make
    for each in made:
        each.shutdown()


def gone(pid: int, within: float = 5.0) -> bool:
    """Whether the process has ended (a zombie no longer runs) within `within` seconds."""
    until = time.monotonic() + within
    while time.monotonic() < until:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_a_call_past_its_deadline_stops_its_worker(pool):
    spinning = pool("Spinner")
    spinning.warm_up()
    (pid,) = spinning.pids()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        spinning.read(PIXELS, deadline=started + 1.0)
    assert time.monotonic() - started < 3.0
    assert gone(pid) and spinning.pids() == []


def test_the_slot_of_a_stopped_worker_gets_a_fresh_one(pool):
    sleepy = pool("Sleeper")
    with pytest.raises(TimeoutError):
        sleepy.read(PIXELS, deadline=time.monotonic() + 0.3)
    notes: list[str] = []
    found = sleepy.read(PIXELS, note=notes.append)
    assert found[0][1] == "slept" and notes == ["loading", "reading"]


def test_cancelling_a_call_stops_its_worker(pool):
    spinning = pool("Spinner")
    spinning.warm_up()
    (pid,) = spinning.pids()
    flag = threading.Event()
    threading.Timer(0.5, flag.set).start()
    with pytest.raises(Stopped):
        spinning.read(PIXELS, cancelled=flag.is_set)
    assert gone(pid)


def test_waiting_for_a_busy_pool_counts_against_the_deadline(pool):
    sleepy = pool("Sleeper")
    sleepy.warm_up()
    first = threading.Thread(target=sleepy.read, args=(PIXELS,))
    first.start()
    time.sleep(0.2)
    notes: list[str] = []
    with pytest.raises(WorkersBusy):
        sleepy.read(PIXELS, deadline=time.monotonic() + 0.3, note=notes.append)
    assert notes == ["waiting"]
    notes.clear()
    assert sleepy.read(PIXELS, note=notes.append)[0][1] == "slept"
    assert notes == ["waiting", "reading"]
    first.join()


def test_past_the_queue_a_call_is_turned_away_at_once(pool):
    sleepy = pool("Sleeper")
    sleepy.warm_up()
    sleepy.queue = 1
    running = threading.Thread(target=sleepy.read, args=(PIXELS,))
    waiting = threading.Thread(target=sleepy.read, args=(PIXELS,))
    running.start()
    time.sleep(0.2)
    waiting.start()
    time.sleep(0.2)
    started = time.monotonic()
    with pytest.raises(WorkersBusy) as caught:
        sleepy.read(PIXELS)
    assert caught.value.queued == 1 and time.monotonic() - started < 0.5
    running.join()
    waiting.join()
    assert sleepy.read(PIXELS)[0][1] == "slept"


def test_a_worker_killed_from_outside_is_reported_and_replaced(pool):
    sleepy = pool("Sleeper")
    sleepy.warm_up()
    (pid,) = sleepy.pids()
    threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()
    with pytest.raises(WorkerLost) as caught:
        sleepy.read(PIXELS)
    assert caught.value.exitcode == -signal.SIGKILL
    assert sleepy.read(PIXELS)[0][1] == "slept" and sleepy.pids() != [pid]


def test_an_engine_that_cannot_load_says_why_and_its_worker_stays(pool):
    broken = pool("without_package")
    for _ in range(2):
        with pytest.raises(EngineUnavailable) as caught:
            broken.read(PIXELS)
        assert caught.value.reason == "the Python package rapidocr is missing or broken"
    assert len(broken.pids()) == 1 and not broken.loaded()


def test_shutdown_ends_every_worker_and_the_pool_starts_again_on_use(pool):
    two = pool("Hi", size=2)
    two.warm_up()
    pids = two.pids()
    assert len(pids) == two.size and two.loaded()
    two.shutdown()
    assert all(gone(pid) for pid in pids) and two.pids() == [] and not two.loaded()
    assert two.read(PIXELS)[0][1] == "hi"


def test_there_are_never_more_workers_than_cores():
    assert OcrPool(EngineSpec(factory="x:y"), size=64).size == os.cpu_count()
    assert OcrPool(EngineSpec(factory="x:y")).size == min(2, os.cpu_count() or 1)


PARENT = """
import os, threading, time
import numpy as np
from tools.ocr.pool import EngineSpec, OcrPool
pool = OcrPool(EngineSpec(factory="tests.support.fake_ocr:Spinner"))
pool.warm_up()
pixels = np.zeros((4, 4, 3), np.uint8)
threading.Thread(target=pool.read, args=(pixels,), daemon=True).start()
time.sleep(0.5)
print(pool.pids()[0], flush=True)
os._exit(0)  # as a crash or SIGKILL would: no atexit
"""


def test_a_worker_ends_when_its_parent_dies_in_the_middle_of_a_job():
    parent = subprocess.run(
        [sys.executable, "-c", PARENT],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    pid = int(parent.stdout.split()[0])
    assert gone(pid), f"worker {pid} still runs after its parent died"


async def test_a_reading_that_times_out_in_a_turn_stops_its_worker(ocr_engine, monkeypatch, png):
    workers = ocr_engine("Spinner")
    workers.warm_up()
    (pid,) = workers.pids()
    monkeypatch.setattr(ReadText, "timeout", 1.0)
    events = await collect(Agent(OfflineModel(), [ReadText()]), "read the text", [png])
    result = next(e for e in events if e.type == "tool_result")
    assert not result.ok and "did not finish within 1 seconds" in result.text
    assert gone(pid)


def test_a_busy_pool_says_so_to_the_model(ocr_engine, store, png):
    ocr_engine("Sleeper")
    image = store.open(store.load(png).id)
    first = threading.Thread(target=recognise, args=(image,))
    first.start()
    time.sleep(0.3)
    with pytest.raises(OcrBusy) as caught:
        recognise(image, ctx=ToolContext(store), timeout=0.5)
    message = str(caught.value)
    assert message.startswith("All OCR workers are busy") and "within 0.5 seconds" in message
    assert message.count(". ") == 0 and message.endswith(".")
    first.join()
