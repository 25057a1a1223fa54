"""What one browser session keeps of the scenarios it saves from its conversations: the draft
being edited (the recorded scenario's images beside it), and the run list, the scenarios added
for the Scenarios tab's Run. No gradio here; `ui.saved_scenarios.panel` shows it.

The draft's YAML comes back from the browser edited: it is untrusted. It is bounded before it
is written, read by the scenario format's own loader (`agent.scenarios.format.load_file`,
which bounds its size and values), and the images it names must be the draft's own, by the
names the recording gave them: a name that points anywhere else on the server is refused
before anything looks for it. Every method here blocks (files are written and read), so the
page calls them off the event loop.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
import uuid
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.events import export_trace
from agent.scenarios import InvalidFile, Scenario, load_file
from agent.scenarios.format import MAX_FILE_BYTES
from agent.scenarios.record import HeardTurn, record, scenario_yaml, write_scenario

from ..conversations.export import turn_status
from ..labels import t
from ..page.state import TurnRecord, traces_root
from ..typed_text import as_text

# Scenarios one session's run list holds at once; the Run's own bound (`MAX_BATCH_TURNS`)
# still holds for what it runs.
MAX_SAVED = 20
CASE = "case.yaml"


class ScenarioProblem(ValueError):
    """Why a scenario cannot be saved: a page sentence's key and the facts it names."""

    def __init__(self, key: str, **facts: Any) -> None:
        super().__init__(key)
        self.key = key
        self.facts = facts

    def sentence(self, language: str) -> str:
        return t(self.key, language).format(**self.facts)


@dataclass(frozen=True)
class SavedEntry:
    """A scenario in the run list: its key (the list's value), name, and file on the server,
    with its images beside it."""

    key: str
    name: str
    path: Path


def heard_turns(records: Sequence[TurnRecord]) -> list[HeardTurn]:
    """The page's turns as they happened, for `agent.scenarios.record`: the person's words and
    images (those still on disk), how each ended and its events in the trace export format."""
    return [
        HeardTurn(
            text=turn.text,
            images=[Path(ref.path) for ref in turn.refs if ref.path and Path(ref.path).is_file()],
            status=turn_status(turn),
            events=json.loads(export_trace(turn.events)),
        )
        for turn in records
    ]


class SavedScenarios:
    """One session's draft and run list, under a folder of its own (not served: a download is
    a copy). Its methods may run in several worker threads at once: a lock keeps them apart."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="saved-", dir=traces_root()))
        self.entries: list[SavedEntry] = []
        self._draft: Path | None = None
        self._images: list[str] = []  # the names the draft's images go by in its YAML
        self._lock = threading.Lock()

    def draft(self, records: Sequence[TurnRecord]) -> str:
        """A new draft from the conversation's finished turns: its YAML, to edit.
        `ScenarioProblem` when no turn finished yet."""
        turns = heard_turns(records)
        try:
            scenario, files = record(turns)
        except ValueError:
            raise ScenarioProblem("save_nothing") from None
        with self._lock:
            folder = self._fresh("draft-")
            write_scenario(scenario, files, folder / CASE)
            if self._draft is not None:
                shutil.rmtree(self._draft, ignore_errors=True)
            self._draft = folder
            self._images = [name for turn in scenario["turns"] for name in turn.get("images", [])]
        return scenario_yaml(scenario)

    def check(self, text: str) -> Scenario:
        """The draft's scenario as edited into `text`, or `ScenarioProblem` saying the first
        thing wrong with it."""
        with self._lock:
            return self._check(text)

    def pack(self, text: str) -> Path:
        """The edited scenario and its images as a zip to download (`case.yaml`, `images/`);
        the zip made before goes."""
        with self._lock:
            scenario = self._check(text)
            assert self._draft is not None
            target = self._draft / f"scenario-{uuid.uuid4().hex[:8]}.zip"
            with zipfile.ZipFile(target, "w") as archive:
                archive.writestr(CASE, text, compress_type=zipfile.ZIP_DEFLATED)
                for name in _images(scenario):
                    archive.write(self._draft / name, name, compress_type=zipfile.ZIP_STORED)
            for old in self._draft.glob("scenario-*.zip"):
                if old != target:
                    old.unlink(missing_ok=True)
            return target

    def add(self, text: str) -> tuple[SavedEntry, str]:
        """The edited scenario in the run list, written with its images in a folder of its
        own, so that a new draft does not change it; and what became of the list: `added`,
        `replaced` (a scenario of the same name was there: the new one takes its place, as two
        of one name could not be told apart) or `same` (it was there already, as it is)."""
        with self._lock:
            scenario = self._check(text)
            listed = self.listed()
            old = next((entry for entry in listed if entry.name == scenario.name), None)
            if old is not None and _same_case(old.path, text):
                return old, "same"
            if old is None and len(listed) >= MAX_SAVED:
                raise ScenarioProblem("save_list_full", n=MAX_SAVED)
            assert self._draft is not None
            folder = self._fresh("case-")
            for name in _images(scenario):
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self._draft / name, folder / name)
            (folder / CASE).write_text(text, encoding="utf-8")
            entry = SavedEntry(key=folder.name, name=scenario.name, path=folder / CASE)
            if old is None:
                self.entries.append(entry)
                return entry, "added"
            self.entries[self.entries.index(old)] = entry
            shutil.rmtree(old.path.parent, ignore_errors=True)
            return entry, "replaced"

    def remove(self, keys: Sequence[str]) -> None:
        """The entries of `keys` out of the run list, and their files off the server."""
        with self._lock:
            gone = [entry for entry in self.entries if entry.key in set(keys)]
            self.entries = [entry for entry in self.entries if entry not in gone]
            for entry in gone:
                shutil.rmtree(entry.path.parent, ignore_errors=True)

    def listed(self) -> list[SavedEntry]:
        """The run list: the entries whose files are still there (the idle sweep removes what
        nobody used for a long while). Marks the folder as in use."""
        self._touch()
        return [entry for entry in self.entries if entry.path.is_file()]

    def chosen(self, keys: Sequence[str] | None) -> list[SavedEntry]:
        wanted = set(keys or ())
        return [entry for entry in self.listed() if entry.key in wanted]

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _check(self, text: str) -> Scenario:
        if self._draft is None or not self._draft.is_dir():
            raise ScenarioProblem("save_gone")
        data = (text or "").encode("utf-8", errors="replace")
        if len(data) > MAX_FILE_BYTES:
            raise ScenarioProblem("save_too_big", kb=MAX_FILE_BYTES // 1024)
        path = self._draft / f"check-{uuid.uuid4().hex[:8]}.yaml"
        path.write_bytes(data)
        try:
            # Its images are not looked for by the loader: they are checked against the
            # draft's own names below, before any path they make is touched.
            (scenario, *more) = load_file(path, find_images=False)
        except InvalidFile as exc:
            raise ScenarioProblem("save_invalid", problem=_problem(exc, path)) from None
        finally:
            path.unlink(missing_ok=True)
        if more:
            raise ScenarioProblem("save_one_scenario")
        for number, turn in enumerate(scenario.turns, 1):
            for name in turn.images:
                if name not in self._images:
                    image = as_text(name)
                    if not self._images:
                        raise ScenarioProblem("save_no_images", turn=number, image=image)
                    # The names as the draft has them (each keeps its file's own kind).
                    names = ", ".join(self._images[:3]) + ("…" if len(self._images) > 3 else "")
                    raise ScenarioProblem(
                        "save_foreign_image",
                        turn=number,
                        image=image,
                        names=as_text(names),
                    )
        return scenario

    def _fresh(self, prefix: str) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=prefix, dir=self.root))

    def _touch(self) -> None:
        # The idle sweep removes folders nobody changed for a while: this one is in use.
        with contextlib.suppress(OSError):
            os.utime(self.root)


def _same_case(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except OSError:
        return False


def _images(scenario: Scenario) -> list[str]:
    """The images the scenario names, each once, in order."""
    return list(dict.fromkeys(name for turn in scenario.turns for name in turn.images))


def _problem(exc: InvalidFile, path: Path) -> str:
    """The loader's first problem, with the file called by the name it goes by in the
    download, and no folder of the server's in it; Markdown-safe."""
    first = exc.error.problems[0] if exc.error.problems else ""
    first = first.replace(str(path), CASE).replace(str(path.parent), ".")
    return as_text(first)
