"""A multimodal ReAct agent: `Agent(model, tools).run(text, images, session)` yields events."""

from .runner import Agent
from .session import Session

__all__ = ["Agent", "Session"]
