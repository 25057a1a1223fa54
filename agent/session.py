"""One conversation: its turns, its images and its pending task. Nothing here is shared."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .dialogue import PendingTask
from .images import ImageStore


class Turn(BaseModel):
    user_text: str
    image_ids: list[str] = Field(default_factory=list)
    reply: str = ""
    outcome: Literal["answered", "asked", "ended", "error"] = "answered"
    language: str = "en"


class Session(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    images: ImageStore = Field(default_factory=ImageStore)
    history: list[Turn] = Field(default_factory=list)
    task: PendingTask | None = None

    def reset(self) -> None:
        self.history.clear()
        self.task = None
