"""Model calls and tokens per task in each tool protocol: ReAct text against native tool calls.

The same scripted tasks run through `Agent` against the local OpenAI-compatible test server,
once with the ReAct text protocol and once with native tool calling; the server counts tokens
(a word is a token, so the figures compare like with like, not with a real tokenizer). Printed
per task and protocol: model calls, prompt tokens and completion tokens, summed over the task.

    .venv/bin/python bench/protocols.py
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent import Agent, Session
from agent.models import OpenAIChatModel
from tests.support.openai_server import OpenAIServer, token_usage
from tests.support.openai_tool_calls import Calls
from tools import default_tools


@dataclass
class Task:
    name: str
    turns: list[str]
    react: list[str]
    native: list[object]


def react_call(tool: str, args: dict) -> str:
    return f"Thought: I will use {tool}.\nAction: {tool}\nAction Input: {json.dumps(args)}"


TASKS = [
    Task(
        "one tool, then the answer",
        ["Convert 5 miles to km"],
        [
            react_call("convert_units", {"value": 5, "from_unit": "mile", "to_unit": "km"}),
            "Thought: I have it.\nAnswer: 5 miles is 8.05 km.",
        ],
        [
            Calls([("convert_units", {"value": 5, "from_unit": "mile", "to_unit": "km"})]),
            "5 miles is 8.05 km.",
        ],
    ),
    Task(
        "two independent tools",
        ["What is 12.5% of 2480, and what time is it in Tokyo?"],
        [
            react_call("calculator", {"expression": "12.5% of 2480"}),
            react_call("world_clock", {"place": "Tokyo"}),
            "Thought: I have both.\nAnswer: 310, and the time in Tokyo is above.",
        ],
        [
            Calls(
                [
                    ("calculator", {"expression": "12.5% of 2480"}),
                    ("world_clock", {"place": "Tokyo"}),
                ]
            ),
            "310, and the time in Tokyo is above.",
        ],
    ),
    Task(
        "a missing value asked, then given",
        ["Convert 5 miles", "km"],
        [
            react_call("convert_units", {"value": 5, "from_unit": "mile"}),
            react_call("convert_units", {"value": 5, "from_unit": "mile", "to_unit": "km"}),
            "Thought: Done.\nAnswer: 5 miles is 8.05 km.",
        ],
        [
            Calls([("convert_units", {"value": 5, "from_unit": "mile"})]),
            Calls([("convert_units", {"value": 5, "from_unit": "mile", "to_unit": "km"})]),
            "5 miles is 8.05 km.",
        ],
    ),
]


async def run(task: Task, protocol: str) -> tuple[int, int, int, str]:
    replies = task.react if protocol == "react" else task.native
    with OpenAIServer(replies=replies) as server:
        model = OpenAIChatModel(model="m", base_url=server.base_url, api_key="k", max_retries=0)
        agent = Agent(model, default_tools(), tool_protocol=protocol)
        session = Session()
        last = None
        for text in task.turns:
            async for event in agent.run(text, session=session):
                last = event
        await model.aclose()
        requests = list(server.requests)
    prompt = sum(token_usage(body, "")["prompt_tokens"] for body in requests)
    prompt += sum(len(json.dumps(body.get("tools", [])).split()) for body in requests)
    completion = sum(
        len((r if isinstance(r, str) else json.dumps(getattr(r, "calls", ""))).split())
        for r in replies
    )
    outcome = getattr(last, "type", "?")
    return len(requests), prompt, completion, outcome


async def main() -> int:
    print(f"{'task':<36} {'protocol':<8} {'calls':>5} {'prompt tok':>10} {'reply tok':>9}")
    for task in TASKS:
        for protocol in ("react", "native"):
            calls, prompt, completion, outcome = await run(task, protocol)
            print(f"{task.name:<36} {protocol:<8} {calls:>5} {prompt:>10} {completion:>9}")
            if outcome != "answer":
                print(f"  (ended with {outcome})")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
