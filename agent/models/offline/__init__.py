"""The built-in offline model: no key, no network, deterministic.

It does not understand language. It reads the request every model is given (`reading`): the
messages (the person's words, the image notes of the conversation, this turn's actions and
their Observations, the pending task and refused uploads the prompt states), the typed tools
and the language; and it writes the same ReAct text a hosted model would, streamed, so every
other part of the agent runs unchanged.
What it knows about each tool (the phrases that ask for it, how to read its arguments) is kept
here, keyed by the tool's name (`tool_hints`): a new tool works with it by one entry there.
Images are picked the way every extractor picks them (`tools.image_refs`).
"""

from .model import NAME, OfflineModel

__all__ = ["NAME", "OfflineModel"]
