"""`agent.parser.parse_step`, the stable way in to reading one ReAct reply; the reading itself
is `agent.react.parser`'s."""

from .react.parser import ParseError, Step, parse_step

__all__ = ["ParseError", "Step", "parse_step"]
