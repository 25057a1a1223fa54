"""A conversation downloaded from the page (a zip, or an older single-turn trace JSON), read
back within bounds: `format` is what the file says it is, `reader` reads it. Pure data, no
gradio and no model; the page's viewer and `python -m agent.scenarios record` both read it.
"""

from .format import FORMAT, VERSION
from .reader import Conversation, UnreadableFile, ViewedTurn, load_conversation, safe_name

__all__ = [
    "FORMAT",
    "VERSION",
    "Conversation",
    "UnreadableFile",
    "ViewedTurn",
    "load_conversation",
    "safe_name",
]
