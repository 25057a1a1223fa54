"""Models behind one interface: `ChatModel.stream(request)` yields text."""

from .base import ChatModel, ModelError, ModelRequest, ToolCallPart
from .scripted import ScriptedModel

__all__ = [
    "ChatModel",
    "ModelError",
    "ModelRequest",
    "OfflineModel",
    "OpenAIChatModel",
    "ScriptedModel",
    "ToolCallPart",
]


def __getattr__(name: str):
    # Imported lazily so that scripted tests never pay for the openai client.
    if name == "OpenAIChatModel":
        from .openai_compat import OpenAIChatModel

        return OpenAIChatModel
    if name == "OfflineModel":
        from .offline import OfflineModel

        return OfflineModel
    raise AttributeError(name)
