"""The server's temp folders (sessions' images, traces) go with it: on SIGTERM while it serves,
and, when it was killed instead, at the next start; never another running server's.

Real processes in a temp folder of the test's own (TMPDIR): `python app.py`, and small helpers
that claim folders as the page does and are then killed or kept running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from gradio_client import Client, handle_file
from PIL import Image

from tests.support import recorded_run
from tests.support.local import free_port
from ui import process_folders
from ui.process_folders import GRACE, claim, lock_path, sweep_stale

ROOT = Path(__file__).resolve().parent.parent
OURS = ("agent-sessions-*", "agent-traces-*")

# Claims both folders as the page does, writes a file in each, says where, then waits.
HELPER = """
import sys
from ui.process_folders import claim
for prefix in ("agent-sessions-", "agent-traces-"):
    root = claim(prefix)
    (root / "user-image.jpg").write_bytes(b"private")
    print(root, flush=True)
sys.stdin.read()
"""

pytestmark = pytest.mark.skipif(process_folders.fcntl is None, reason="needs flock (POSIX)")


def env_in(folder: Path, **more: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(folder),
        "TMPDIR": str(folder),
        "PYTHONPATH": str(ROOT),
        "GRADIO_ANALYTICS_ENABLED": "False",
        **more,
    }


def helper(folder: Path) -> tuple[subprocess.Popen[str], list[Path]]:
    child = subprocess.Popen(
        [sys.executable, "-c", HELPER],
        cwd=ROOT,
        env=env_in(folder),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    return child, [Path(child.stdout.readline().strip()) for _ in range(2)]


def age(paths: list[Path], seconds: float) -> None:
    """Make the folders' lock files look `seconds` old, past the grace a new lock gets."""
    past = time.time() - seconds
    for path in paths:
        os.utime(lock_path(path), (past, past))


def ours(folder: Path) -> list[str]:
    return sorted(p.name for pattern in OURS for p in folder.glob(pattern))


def wait_for_page(url: str, process: subprocess.Popen[bytes]) -> Client:
    deadline = time.monotonic() + 120
    while True:
        try:
            # Plain HTTP: no certificates to load for each try and each request after.
            return Client(url, verbose=False, ssl_verify=False)
        except Exception:
            if time.monotonic() > deadline or process.poll() is not None:
                raise
            time.sleep(0.5)


def test_sigterm_removes_the_servers_folders_and_a_start_sweeps_only_ended_servers(tmp_path):
    killed, killed_roots = helper(tmp_path)
    killed.kill()  # as SIGKILL or a power cut would: nothing of it cleans up
    killed.wait(10)
    running, running_roots = helper(tmp_path)
    legacy = tmp_path / "agent-sessions-older-version"  # no lock file: whose it is is unknown
    legacy.mkdir()
    age([*killed_roots, *running_roots], 2 * GRACE)
    assert all(root.is_dir() for root in [*killed_roots, *running_roots])

    port = free_port()
    # Reading text is not what is tested: the OCR workers answer with recorded replies.
    server = subprocess.Popen(
        [sys.executable, *recorded_run.command("app.py")],
        cwd=ROOT,
        env=env_in(tmp_path, GRADIO_SERVER_PORT=str(port)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = wait_for_page(f"http://127.0.0.1:{port}/", server)
        # Swept at start: the killed helper's folders and locks; kept: the running one's.
        assert not any(root.exists() or lock_path(root).exists() for root in killed_roots)
        assert all(root.is_dir() and lock_path(root).exists() for root in running_roots)
        assert legacy.is_dir()

        photo = tmp_path / "holiday.png"
        Image.new("RGB", (64, 48), (200, 30, 90)).save(photo)
        message = {"text": "What colours are in this photo?", "files": [handle_file(photo)]}
        client.predict(message, api_name="/chat")
        before = ours(tmp_path)
        served = list((tmp_path / "gradio").rglob("holiday.png"))
        images = [p for root in before for p in (tmp_path / root).rglob("img_*")]
        assert images and served  # the turn wrote the prepared image; Gradio cached the upload

        server.send_signal(signal.SIGTERM)
        assert server.wait(60) == 0
    finally:
        if server.poll() is None:
            server.kill()
        running.kill()
    others = {p.name for root in running_roots for p in (root, lock_path(root))} | {legacy.name}
    mine = set(before) - others
    assert len(mine) == 4  # the server's two folders and their lock files...
    assert set(ours(tmp_path)) == others  # ...are gone, and only they
    assert not any(p.exists() for p in served)
    assert all(root.is_dir() for root in running_roots) and legacy.is_dir()


def test_a_running_servers_folders_are_never_swept(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    own = claim("agent-sessions-")  # this process holds its lock
    age([own], 10 * GRACE)
    assert sweep_stale(tmp_path) == 0 and own.is_dir()


def test_a_young_lock_is_left_to_its_server(tmp_path):
    # A server between making its folder and locking it: the lock file is seconds old.
    root = tmp_path / "agent-traces-justmade"
    root.mkdir()
    lock_path(root).touch()
    assert sweep_stale(tmp_path) == 0 and root.is_dir()
    assert sweep_stale(tmp_path, now=time.time() + 2 * GRACE) == 1
    assert not root.exists() and not lock_path(root).exists()


def test_only_the_pages_own_folders_are_swept(tmp_path):
    other = tmp_path / "someone-elses-folder"
    other.mkdir()
    lock_path(other).touch()  # nothing holds it, but the name is not one the page makes
    assert sweep_stale(tmp_path, now=time.time() + 2 * GRACE) == 0 and other.is_dir()
