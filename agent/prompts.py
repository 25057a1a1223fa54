"""Prompt text: the multimodal ReAct header and the task-dialogue prompts, in English and Chinese.

The per-language text (the ReAct header, the native protocol's system message, the plugin
seed's Thought line, the control actions' descriptions) is the `prompts` group of the word
catalogs (assets/words/); the seed templates that are the same in both languages stay here.

Origins (protocols kept exactly; wording cleaned):
- The ReAct header (`prompts.react_header`) follows llama-index's multimodal ReAct chat header
  (`llama_index/core/agent/react_multimodal/prompts.py`, MIT). Its stray indentation is gone, and
  its advice that tool inputs "should not assume knowledge of the image" is replaced: here tools
  that look at images take an `image_id`.
- `INTENT_PROMPT`, `FILLING_SLOT_PROMPT` and `FINAL_PROMPT` follow OrionStar's Orion-14B plugin
  demo (`gradio_demo/plugin_task/prompt.py`, Apache-2.0): the four control actions, the JSON
  Thought with `content`, `tool_to_use_for_user` and `known_params`, and the final-answer prompt.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from typing import Any

from tools import words
from tools.words import language_key

CONTROL_ACTIONS = (
    "end_conversation",
    "ASK_USER_FOR_INTENT",
    "ASK_USER_FOR_REQUIRED_PARAMS",
    "TOOL_OTHER",
)

# The parameter each control action takes; what the action and the parameter are for is said
# in the word catalogs (`prompts.controls`).
_CONTROL_PARAMS = {
    "end_conversation": "end_phrase",
    "ASK_USER_FOR_INTENT": "question",
    "ASK_USER_FOR_REQUIRED_PARAMS": "question",
    "TOOL_OTHER": "intent",
}


def _control(language: str, name: str) -> tuple[str, str, str]:
    """A control action's (text, parameter, parameter description) in `language`."""
    said = words.words(language, f"prompts.controls.{name}")
    return said["text"], _CONTROL_PARAMS[name], said["description"]


INTENT_PROMPT = """\
Answer the following questions as best you can. You have access to the following tools:

{plugins}{controls}Use the following format:

Question: the input question you must answer
%(thought)s
Action: the action to take, should be one of [{plugin_names},end_conversation,\
ASK_USER_FOR_INTENT,ASK_USER_FOR_REQUIRED_PARAMS,TOOL_OTHER]
Action Input: the input to the action


%(begin)s

Question: {question}
"""

FILLING_SLOT_PROMPT = """\
Answer the following questions as best you can. You have access to the following tools:

{plugin_name}: {description_for_human} Parameters: {parameter_schema} Format the arguments \
as a JSON object.

{controls}{task_state}Use the following format:

Question: the input question you must answer
%(thought)s
Action: the action to take, should be one of [{plugin_name},end_conversation,\
ASK_USER_FOR_REQUIRED_PARAMS]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can be repeated zero or more times)

%(begin)s

Question: {question}
{reAct_step_str}
"""

FINAL_PROMPT = """\
Question: {question}
{reAct_step_str}
Final Answer: """


def _seed_words(language: str) -> dict[str, str]:
    """The plugin seed's Thought line and its "Begin!", in `language`."""
    return {
        "thought": words.words(language, "prompts.thought_line"),
        "begin": words.words(language, "prompts.begin"),
    }


class PromptError(KeyError):
    """A template was rendered without one of its placeholders."""


def render(template: str, **values: Any) -> str:
    """`str.format` that names the missing placeholder instead of a bare KeyError."""
    needed = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    missing = needed - values.keys()
    if missing:
        raise PromptError(f"prompt placeholder(s) not filled: {', '.join(sorted(missing))}")
    return template.format(**values)


def orion_schema(tool: Any) -> str:
    """A tool's arguments in the plugin seed's `{"name": {"description", "required"}}` form."""
    schema = tool.schema()
    required = set(schema.get("required", []))
    fields: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        entry: dict[str, Any] = {
            "description": prop.get("description", ""),
            "required": name in required,
        }
        kind = prop.get("type")
        if kind:
            entry["type"] = kind
        if "enum" in prop:
            entry["enum"] = prop["enum"]
        fields[name] = entry
    return json.dumps(fields, ensure_ascii=False)


def _control_lines(language: str, names: Sequence[str]) -> str:
    lines = []
    for name in names:
        text, param, desc = _control(language, name)
        schema = json.dumps({param: {"description": desc, "required": True}}, ensure_ascii=False)
        lines.append(
            f"{name}: {text} Parameters: {schema} Format the arguments as a JSON object.\n\n"
        )
    return "".join(lines)


def react_tool_desc(tools: Sequence[Any], language: str) -> str:
    parts = [tool.prompt_line() for tool in tools]
    for name in CONTROL_ACTIONS:
        text, param, desc = _control(language, name)
        args = {
            "type": "object",
            "properties": {param: {"type": "string", "description": desc}},
            "required": [param],
        }
        parts.append(
            f"> Tool Name: {name}\nTool Description: {text}\n"
            f"Tool Args: {json.dumps(args, ensure_ascii=False)}\n"
        )
    return "\n".join(parts)


def react_header(tools: Sequence[Any], language: str = "en", task_state: str = "") -> str:
    names = [tool.name for tool in tools] + list(CONTROL_ACTIONS)
    return render(
        words.words(language, "prompts.react_header"),
        tool_desc=react_tool_desc(tools, language_key(language)),
        tool_names=", ".join(names),
        task_state=f"\n{task_state}\n" if task_state else "",
    )


def intent_prompt(tools: Sequence[Any], question: str, language: str = "en") -> str:
    lang = language_key(language)
    template = INTENT_PROMPT % _seed_words(lang)
    plugins = "".join(
        f"{tool.name}: {tool.description} Parameters: {orion_schema(tool)} "
        "Format the arguments as a JSON object.\n\n"
        for tool in tools
    )
    return render(
        template,
        plugins=plugins,
        controls=_control_lines(lang, CONTROL_ACTIONS),
        plugin_names=",".join(tool.name for tool in tools),
        question=question,
    )


def filling_slot_prompt(
    tool: Any, question: str, steps: str, language: str = "en", task_state: str = ""
) -> str:
    lang = language_key(language)
    template = FILLING_SLOT_PROMPT % _seed_words(lang)
    return render(
        template,
        plugin_name=tool.name,
        description_for_human=tool.description,
        parameter_schema=orion_schema(tool),
        controls=_control_lines(lang, ("end_conversation", "ASK_USER_FOR_REQUIRED_PARAMS")),
        task_state=f"{task_state}\n\n" if task_state else "",
        question=question,
        reAct_step_str=steps,
    )


def final_prompt(question: str, steps: str) -> str:
    return render(FINAL_PROMPT, question=question, reAct_step_str=steps)


def native_system(language: str, task_state: str = "") -> str:
    text = words.words(language, "prompts.native_system")
    return f"{text}\n\n{task_state}" if task_state else text


def task_state_text(tool: str, known: dict[str, Any], missing: Sequence[str], language: str) -> str:
    listed = ", ".join(missing) or words.say(language, "prompts.nothing_missing")
    known_json = json.dumps(known, ensure_ascii=False)
    return words.say(language, "prompts.task_state", tool=tool, known=known_json, missing=listed)


# Sentences the agent itself says, per language.
PHRASES = words.both("phrases")


def phrase(language: str, key: str, **values: Any) -> str:
    return render(words.words(language, f"phrases.{key}"), **values)
