"""A conversation downloaded from the page (a zip, or an older single-turn trace JSON), read
back within bounds: `format` is what the file says it is, `reader` reads it, and `reopen`
reads a zip to go on with in the chat (its images checked as uploads, the agent's memory). Pure
data, no gradio and no model; the page's viewer, the chat and `python -m agent.scenarios record`
read it.
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
