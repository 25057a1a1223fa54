"""Nothing piles up: idle conversations, their files, orphan folders and Gradio's sessions go.

The register and the sweep are tested directly with small idle times, then through a launched
page whose sessions come from the plain REST API (no heartbeat, so Gradio never closes them),
from `gradio_client` (a heartbeat) and past a full Gradio session store.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from gradio_client import Client, handle_file

import app
from agent.config import Settings
from agent.models import OfflineModel
from tests.support.local import serve
from tools.zoom import Zoom
from ui.examples import EXAMPLES_DIR
from ui.handlers import PageHandlers
from ui.page.state import sessions_root, traces_root
from ui.sweeper import Sessions, remove_empty_folders, remove_orphans, sweep_cache

LABEL = EXAMPLES_DIR / "label.png"


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "HF_TOKEN", "SPACE_ID"):
        monkeypatch.delenv(name, raising=False)


def handlers(idle_minutes: float = 0.01) -> PageHandlers:
    env = Settings(AGENT_SESSION_IDLE_MINUTES=idle_minutes)
    return PageHandlers(lambda prefs: OfflineModel(), env, [Zoom()])


async def zoom_turn(page: PageHandlers, state=None):
    message = {"text": "Zoom into the top left", "files": [str(LABEL)]}
    return [update async for update in page.chat(message, state)][-1]


async def test_an_idle_conversation_is_closed_with_its_files_and_starts_over_when_used():
    page, register = handlers(), Sessions()
    chat, _, state, _ = await zoom_turn(page)
    register.touch(state)
    folders = state.folders()
    assert len(folders) == 2 and all(f.exists() for f in folders)
    assert len(list(folders[0].iterdir())) == 2  # the upload and the zoomed copy
    assert register.sweep(orphan_age=3600).closed == 0  # not idle yet
    swept = register.sweep(orphan_age=3600, now=time.monotonic() + 1)
    assert swept.closed == 1 and state not in register
    assert not any(f.exists() for f in folders) and state.turns == []
    # Used again, it says so once and starts a new conversation.
    with pytest.warns(UserWarning, match="idle for more than 0.01 minutes"):
        chat, *_ = await zoom_turn(page, state)
    assert [m["role"] for m in chat] == ["user", "assistant"]


async def test_a_conversation_with_a_turn_running_is_never_swept():
    page, register = handlers(), Sessions()
    state = page.new_state()
    register.touch(state)
    state.running = 1
    assert register.sweep(orphan_age=3600, now=time.monotonic() + 60).closed == 0
    state.running = 0
    assert register.sweep(orphan_age=3600, now=time.monotonic() + 60).closed == 1


async def test_past_capacity_the_least_recently_used_conversation_goes_first():
    page, register = handlers(idle_minutes=60), Sessions(capacity=2)
    first, second, third = (page.new_state() for _ in range(3))
    for state in (first, second):
        register.touch(state)
    first.session  # noqa: B018  (its folder exists now)
    register.touch(first)  # used again: now the second is the oldest
    register.touch(third)
    assert second not in register and first in register and third in register
    assert second.expired and not first.expired and first.folders()[0].exists()


def test_orphan_folders_go_once_they_are_old_and_owned_ones_stay(tmp_path):
    owned, orphan, young = (tmp_path / name for name in ("owned", "orphan", "young"))
    for folder in (owned, orphan, young):
        folder.mkdir()
        (folder / "img_1-0123abcd.png").write_bytes(b"x")
    hour_ago = time.time() - 3600
    for folder in (owned, orphan):
        os.utime(folder, (hour_ago, hour_ago))
    assert remove_orphans({owned}, age=60, roots=(tmp_path,)) == 1
    assert owned.exists() and young.exists() and not orphan.exists()


def test_the_empty_folders_of_gradios_cache_go_and_full_ones_stay(tmp_path):
    empty, full = tmp_path / "empty", tmp_path / "full"
    empty.mkdir()
    full.mkdir()
    (full / "upload.png").write_bytes(b"x")
    old = time.time() - 3600
    for folder in (empty, full):
        os.utime(folder, (old, old))
    assert remove_empty_folders(tmp_path, age=60) == 1
    assert full.exists() and not empty.exists()


def test_the_cache_sweep_keeps_going_while_requests_add_files(tmp_path):
    """Gradio's own sweep walks the live sets while requests add to them, and its task ends
    at the first clash; this one takes a copy and deletes only what is old and not kept."""
    old, new, kept = (tmp_path / name for name in ("old.png", "new.png", "example.png"))
    for path in (old, new, kept):
        path.write_bytes(b"x")
    uploads = {str(old), str(new), str(kept)}
    blocks = SimpleNamespace(
        blocks={1: SimpleNamespace(keep_in_cache={str(kept)})}, temp_file_sets=[uploads]
    )

    def add_files() -> None:
        for n in range(20_000):
            uploads.add(str(tmp_path / f"gone-{n}.png"))  # as a request would, meanwhile

    adder = threading.Thread(target=add_files)
    adder.start()
    while adder.is_alive():
        sweep_cache(blocks, age=-1)  # every file is old enough: only `kept` stays
    adder.join()
    sweep_cache(blocks, age=-1)
    assert not old.exists() and not new.exists() and kept.exists()
    assert str(old) not in uploads and str(kept) in uploads
    future = time.time() + 3600
    os.utime(kept, (future, future))
    assert sweep_cache(blocks, age=60) == 0


# -- through the launched page ------------------------------------------------------------------


def disk(root: Path) -> tuple[int, int]:
    """Bytes and entries (files and folders) under a folder."""
    size = count = 0
    for base, folders, files in os.walk(root):
        count += len(folders) + len(files)
        size += sum(os.path.getsize(os.path.join(base, f)) for f in files)
    return size, count


# Plain HTTP on 127.0.0.1: with certificate checking on, each request through a new httpx
# client (gradio_client's too) first loads the system's certificates, 50 ms of CPU.
PLAIN = httpx.Client(verify=False, timeout=60)


def rest_turn(url: str, text: str, upload: Path | None = None) -> str:
    """One turn through the plain REST API: a new session each time, with no heartbeat."""
    files = []
    if upload is not None:
        sent = PLAIN.post(
            f"{url}gradio_api/upload", files={"files": (upload.name, upload.read_bytes())}
        )
        files = [{"path": sent.json()[0], "meta": {"_type": "gradio.FileData"}}]
    started = PLAIN.post(
        f"{url}gradio_api/call/chat", json={"data": [{"text": text, "files": files}]}
    )
    event_id = started.json()["event_id"]
    with PLAIN.stream("GET", f"{url}gradio_api/call/chat/{event_id}") as stream:
        return "".join(stream.iter_text())


def wait_until(check, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_every_sessions_files_go_within_the_idle_time(tmp_path, monkeypatch):
    cache = tmp_path / "gradio-cache"
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(cache))
    env = Settings(AGENT_SESSION_IDLE_MINUTES=0.03)  # 1.8 s
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=env, tools=[Zoom()])
    roots = (sessions_root(), traces_root())
    before = {p for root in roots for p in root.iterdir()}
    # Gradio keeps at most 2 sessions here; the ones it drops are still the page's to sweep.
    url = serve(demo, state_session_capacity=2, **app.launch_options(env))
    try:
        cache_before = disk(cache)
        made: set[Path] = set()
        for _ in range(5):
            assert "Tool: zoom" in rest_turn(url, "Zoom into the top left", LABEL)
            made |= {p for root in roots for p in root.iterdir()} - before
        # A browser-like session, heartbeat and all; the zoomed image it is sent stays on the
        # server (a download could come after the short idle time has swept it).
        client = Client(url, verbose=False, download_files=False, ssl_verify=False)
        client.predict({"text": "Zoom in", "files": [handle_file(str(LABEL))]}, api_name="/chat")
        made |= {p for root in roots for p in root.iterdir()} - before
        # Each session made an image folder and a trace folder; the first ones may be gone.
        assert len(made) == 2 * 6 and disk(cache)[0] > cache_before[0]
        holder = demo.server_app.state_holder  # the FastAPI app Gradio serves
        assert 0 < len(holder.session_data) <= 2

        def swept() -> bool:
            return not any(p.exists() for p in made) and disk(cache) == cache_before

        # The heartbeat session is still open: its files go too, without an hour's wait.
        assert wait_until(swept), (disk(cache), cache_before, [p for p in made if p.exists()])
        assert wait_until(lambda: not holder.session_data)
        client.close()
        # The page still works after a sweep, and the next session sweeps again.
        assert "Tool: zoom" in rest_turn(url, "Zoom into the top left", LABEL)
    finally:
        demo.close()
