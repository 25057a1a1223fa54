"""What every tool is made of, and what a tool may touch while it runs.

A tool is declared once: a name, a description written for the model, a pydantic model of its
arguments (the single source of the JSON schema, the validation and the prompt text), an
argument extractor that reads a person's reply to a question about a missing argument, and a
`run` that may be sync or async. Tools never import the agent; the agent hands them a
`ToolContext`. What the offline model knows of a tool is kept in its own package.
"""

from __future__ import annotations

import base64
import copy
import functools
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from tools.words import language_key


class ImageRef(BaseModel):
    """The one image type: a prepared image of a conversation, under its id (`img_3`).

    `width`/`height` are the prepared copy's, the one the model and the tools see; `original_*`
    describe the upload as it arrived (for a tool's image: the image the tool handed over).
    `exif` holds the original's useful EXIF as plain values; the prepared file has none.
    Smaller shapes (the trace's `ImageInfo`) are views of this one.
    """

    id: str
    width: int
    height: int
    media_type: str = "image/png"
    path: str = ""
    digest: str = ""
    original_width: int = 0
    original_height: int = 0
    original_format: str = ""
    original_mode: str = ""
    exif: dict[str, Any] = Field(default_factory=dict)
    source_name: str = ""
    label: str = ""
    # A page of a PDF: its number (from 1), the PDF's page count, and the text the PDF holds
    # for it (empty for a scanned page); 0, 0 and "" for a picture.
    page: int = 0
    pages: int = 0
    text_layer: str = ""
    # The encoded copy, read once: every model call re-sends the conversation's images.
    _data_url: str | None = PrivateAttr(default=None)

    def data_url(self) -> str:
        if self._data_url is None:
            data = Path(self.path).read_bytes()
            encoded = base64.b64encode(data).decode("ascii")
            self._data_url = f"data:{self.media_type};base64,{encoded}"
        return self._data_url


class ToolResult(BaseModel):
    """What a tool returns.

    `text` and `images` are what the model sees in the next Observation; `data` is structured
    detail for the page and the trace export only, never sent to the model.
    """

    text: str
    images: list[ImageRef] = Field(default_factory=list)
    data: dict[str, Any] | None = None


class ToolInputError(ValueError):
    """The model asked for something the tool cannot do; the message tells it what to fix."""

    def __init__(self, message: str, *, tool_name: str = "") -> None:
        super().__init__(message)
        self.tool_name = tool_name


class NeedsUserInput(Exception):
    """The tool cannot go on without the person's answer: an MCP server asked for it mid-call
    (elicitation). The agent puts `question` to the person and, on their next message, makes the
    same call again with the reply in `ToolContext.replies`. `schema` is the JSON schema of the
    answer the tool asked for."""

    def __init__(
        self, question: str, *, tool_name: str = "", schema: dict[str, Any] | None = None
    ) -> None:
        super().__init__(question)
        self.question = question
        self.tool_name = tool_name
        self.schema = schema or {}


class ToolSettings(BaseModel):
    """The settings tools read, handed over by the app (`agent.config.Settings.tool_settings()`)
    so that tools never import the agent.

    `variables` holds plain settings under their environment variable names
    (`AGENT_ENABLE_WEATHER`, `WEATHER_BASE_URL`), the names plugin manifests refer to.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    plugin_dir: Path | None = None
    mcp_config: Path | None = None
    variables: dict[str, str] = Field(default_factory=dict)


class ImageAccess(Protocol):
    """What a tool may do with its conversation's images (the agent's store provides it)."""

    def open(self, image_id: str) -> Image.Image: ...

    def add(self, image: Image.Image, label: str = "") -> ImageRef: ...

    def ids(self) -> list[str]: ...

    def meta(self, image_id: str) -> dict[str, Any]: ...


_LOOSE_IMAGE_ID = re.compile(
    r"[\[(<`'\"]*(?:img|image|图片?)?[\s_#-]*(\d{1,6})[\])>`'\"]*", re.IGNORECASE
)


class ToolContext:
    """The only door from a tool to the outside: images by id, progress notes, cancellation,
    and the conversation's language, "en" or "zh", which a tool writes its sentences in."""

    def __init__(
        self,
        images: ImageAccess,
        progress: Callable[[str], None] | None = None,
        session_id: str = "",
        language: str = "en",
        replies: Sequence[str] = (),
    ) -> None:
        self._images = images
        self._progress = progress or (lambda message: None)
        self.session_id = session_id
        self.language = language_key(language)
        # The person's answers, in order, to what this same call asked before (`NeedsUserInput`).
        self.replies = list(replies)
        self.cancelled = False

    def open_image(self, image_id: str) -> Image.Image:
        """The prepared copy of an image of this session; unknown ids are the model's mistake."""
        return self._images.open(self.resolve_image_id(image_id))

    def image_meta(self, image_id: str) -> dict[str, Any]:
        """What the store knows about an image of this session: sizes, formats, EXIF."""
        return self._images.meta(self.resolve_image_id(image_id))

    def resolve_image_id(self, image_id: Any) -> str:
        """An id of this session's images. Models also write `1`, `img1`, `Image 1` or
        `[img_1]` for `img_1`; anything else (a path, another session's id) is refused."""
        known = self._images.ids()
        text = str(image_id).strip()
        if text in known:
            return text
        match = _LOOSE_IMAGE_ID.fullmatch(text)
        if match and f"img_{int(match.group(1))}" in known:
            return f"img_{int(match.group(1))}"
        lost = getattr(self._images, "lost", ())
        if match and f"img_{int(match.group(1))}" in lost:
            raise ToolInputError(
                f"Image img_{int(match.group(1))} is no longer available on the server; "
                "ask the person to send it again."
            )
        listed = ", ".join(known) if known else "none in this conversation"
        raise ToolInputError(f"Unknown image_id {text[:80]!r}. Known image ids: {listed}.")

    def add_image(self, image: Image.Image, label: str = "") -> ImageRef:
        return self._images.add(image, label)

    def image_ids(self) -> list[str]:
        return self._images.ids()

    def progress(self, message: str) -> None:
        self._progress(message)


def language_of(ctx: ToolContext | None) -> str:
    """The language a tool's result is written in; English when run without a context."""
    return ctx.language if ctx is not None else "en"


# A tool's argument model (`Tool.Args`), which its `run` takes validated.
ArgsT = TypeVar("ArgsT", bound=BaseModel)


class Tool(Generic[ArgsT]):
    """Base class for tools. Subclasses set the class attributes and implement `run`.

    `extract` pulls whatever arguments it can from the person's words: the task dialogue reads
    a reply to its question with it, whatever the model.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    Args: type[ArgsT]  # set on the class, as the others are
    timeout: ClassVar[float] = 30.0
    uses_images: ClassVar[bool] = False
    # A synchronous tool whose work is small and bounded runs on the event loop itself: for it
    # the hop to a worker thread costs more than the work.
    quick: ClassVar[bool] = False
    # Whether a call reaches past this process (an HTTP service, an MCP server) and may change
    # something there; an approval step keys on it.
    acts_on_world: ClassVar[bool] = False

    def extract(self, text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
        """Arguments read from `text`; missing ones are asked for."""
        return {}

    def reply_problem(self, text: str, known: dict[str, Any], language: str) -> str | None:
        """Why a message cannot answer this tool's question ("celsius" for 5 miles, a unit
        no one knows), said before the question is put (again); None when there is nothing to
        say. `text` is the reply to the question, or the request that left something to ask."""
        return None

    def run(self, args: ArgsT, ctx: ToolContext) -> ToolResult | Awaitable[ToolResult]:
        raise NotImplementedError

    def warm_up(self) -> None:
        """Load whatever makes the first call slow (models, tables); the app calls it in the
        background at start-up so the first person to ask does not wait."""

    # -- derived from the declaration; nothing below needs overriding -------------------------

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """The arguments' JSON schema; a copy, so callers may change it."""
        return copy.deepcopy(_schema(cls.Args))

    @classmethod
    def prompt_line(cls) -> str:
        """How the tool is listed in the ReAct header's `{tool_desc}`."""
        return _prompt_line(cls.name, cls.description, cls.Args)

    @classmethod
    def required_fields(cls) -> list[str]:
        return [n for n, f in cls.Args.model_fields.items() if f.is_required()]


def image_id_from(text: str, image_ids: Sequence[str], known: dict[str, Any]) -> dict[str, Any]:
    """For extractors: the image the person means (`img_2`, "the second image", "that one",
    "the QR code"), else the newest; an image already known stays unless the text names one."""
    from tools.image_refs import resolve_image

    choice = resolve_image(text, image_ids)
    if choice.image_id is None:
        return {}
    if known.get("image_id") and choice.way in ("content", "newest"):
        return {}
    return {"image_id": choice.image_id}


# Building a JSON schema costs pydantic real time, and the header is rendered every step.
@functools.cache
def _schema(args: type[BaseModel]) -> dict[str, Any]:
    schema = args.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        # `ask` holds the question put to the user for a missing field; not for the model.
        prop.pop("ask", None)
    return schema


@functools.cache
def _prompt_line(name: str, description: str, args: type[BaseModel]) -> str:
    schema = json.dumps(_schema(args), ensure_ascii=False)
    return f"> Tool Name: {name}\nTool Description: {description}\nTool Args: {schema}\n"


class StrictArgs(BaseModel):
    """Base for argument models: unknown keys are ignored, values are coerced where sensible."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True, str_strip_whitespace=True)
