"""The page's download (#download): the whole conversation as one zip.

    conversation.json   {"format": "multimodal-react-agent/conversation", "version": 1,
                         "turns": [...], "images": [...], "memory": {...}}
    conversation.md     the same conversation for a person to read (`ui.conversations.transcript`)
    images/<id>.<ext>   each image of the conversation: the person's uploads as the agent
                        saw them (oriented, downscaled) and the images tools made

Each turn is {"number", "text" (the person's words), "images" (the ids of the images they
sent with it), "status", "events"}. `status` is how the turn ended: "answered", "asked",
"ended", "error", or "stopped" when it was stopped (or cancelled) before it finished, and
"running" for a turn still under way. `events` is the turn's events in the trace export format
(`agent.events.export_trace`), which names images by id. Each entry of "images" is
{"id", "width", "height", "label", "file"}, `file` the image's name inside the zip. "memory" is
what the agent remembers of the conversation, so that it can be opened again and continued
(`ui.conversations.reopen`): "history" (its turns, `agent.session.Turn`), "task" and "approval"
(a question's pending task, a call waiting for approval), "allowed_tools", and "images", what is
known of each image of the zip (`tools.base.ImageRef` without its path). Paths on the server
appear nowhere.
"""

from __future__ import annotations

import json
import logging
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.conversation_file.format import FORMAT, VERSION
from agent.events import RunFinishedEvent, ToolResultEvent, export_trace

from .transcript import transcript

if TYPE_CHECKING:
    from agent.session import Session

    from ..page.state import PageState, TurnRecord

log = logging.getLogger(__name__)


def turn_status(record: TurnRecord) -> str:
    finished = next((e for e in record.events if isinstance(e, RunFinishedEvent)), None)
    if finished is not None:
        return finished.status
    return "stopped" if record.view.stopped else "running"


def memory_data(session: Session, image_ids: Iterable[str] = ()) -> dict[str, Any]:
    """What the agent remembers of the conversation, and what is known of the images
    `image_ids`, as plain data without a path on the server."""
    wanted = set(image_ids)
    return {
        "history": [turn.model_dump(mode="json") for turn in session.history],
        "task": session.task.model_dump(mode="json") if session.task else None,
        "approval": session.approval.model_dump(mode="json") if session.approval else None,
        "allowed_tools": list(session.allowed_tools),
        "images": [
            ref.model_dump(mode="json", exclude={"path"})
            for ref in session.images.refs()
            if ref.id in wanted
        ],
    }


def conversation_data(
    records: Iterable[TurnRecord], session: Session | None = None
) -> tuple[dict[str, Any], dict[str, Path]]:
    """The conversation's JSON and the files of its images, by name inside the zip; with the
    agent's memory of it when its `session` is given."""
    turns, images, files = [], [], {}

    def keep(image: Any) -> None:
        path = Path(image.path) if image.path else None
        name = f"images/{image.id}{path.suffix if path else ''}"
        if image.id in {i["id"] for i in images} or path is None or not path.is_file():
            return
        files[name] = path
        label = getattr(image, "label", "") or getattr(image, "source_name", "")
        images.append(
            {
                "id": image.id,
                "width": image.width,
                "height": image.height,
                "label": label,
                "file": name,
            }
        )

    for record in records:
        for ref in record.refs:
            keep(ref)
        for event in record.events:
            if isinstance(event, ToolResultEvent):
                for image in event.images:
                    keep(image)
        turns.append(
            {
                "number": record.view.number,
                "text": record.text,
                # Those gone too (`TurnRecord.gone`): a copy restored from this says so again.
                "images": [ref.id for ref in record.refs] + record.gone,
                "status": turn_status(record),
                "events": json.loads(export_trace(record.events)),
            }
        )
    data = {"format": FORMAT, "version": VERSION, "turns": turns, "images": images}
    if session is not None:
        data["memory"] = memory_data(session, [image["id"] for image in images])
    return data, files


def write_conversation(
    records: Iterable[TurnRecord], target: Path, session: Session | None = None
) -> Path:
    """Write the conversation's zip to `target` (written aside, then moved into place), with
    the agent's memory of it when its `session` is given."""
    data, files = conversation_data(records, session)
    partial = target.with_name(target.name + ".part")
    with zipfile.ZipFile(partial, "w") as archive:
        text = json.dumps(data, indent=2, ensure_ascii=False)
        archive.writestr("conversation.json", text, compress_type=zipfile.ZIP_DEFLATED)
        readable = transcript(data)
        archive.writestr("conversation.md", readable, compress_type=zipfile.ZIP_DEFLATED)
        for name, path in files.items():
            # Image files are compressed already.
            archive.write(path, name, compress_type=zipfile.ZIP_STORED)
    partial.replace(target)
    return target


def with_memory(state: PageState) -> None:
    """Write the page's download again, with the agent's memory of the conversation as it is
    now: a turn's download is written at its last event, and the turn changes the memory only
    after that one has been taken (`agent.session`). Blocking: not on the event loop."""
    if state.trace_file and state.turns and not state.running:
        try:
            write_conversation(state.turns, Path(state.trace_file), state.session)
        except OSError:  # the download written at the turn's end stays, without it
            log.warning("the download could not be written again", exc_info=True)
