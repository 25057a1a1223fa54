"""Models behind one interface: `ChatModel.stream(request)` yields text."""

from typing import TYPE_CHECKING

from .base import ChatModel, ModelError, ModelRequest, ToolCallPart
from .scripted import ScriptedModel

if TYPE_CHECKING:
    from .offline import OfflineModel
    from .openai_compat import OpenAIChatModel

__all__ = [
    "ChatModel",
    "ModelError",
    "ModelRequest",
    "OfflineModel",
    "OpenAIChatModel",
    "ScriptedModel",
    "ToolCallPart",
]


def __getattr__(name: str) -> type:
    # Imported lazily so that scripted tests never pay for the openai client.
    if name == "OpenAIChatModel":
        from .openai_compat import OpenAIChatModel

        return OpenAIChatModel
    if name == "OfflineModel":
        from .offline import OfflineModel

        return OfflineModel
    raise AttributeError(name)
