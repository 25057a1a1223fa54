"""Prompt text: the multimodal ReAct header and the task-dialogue prompts, in English and Chinese.

Origins (protocols kept exactly; wording cleaned):
- `REACT_HEADER` follows llama-index's multimodal ReAct chat header
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


REACT_HEADER = {
    "en": """\
You are designed to help with a variety of tasks, from answering questions to providing \
summaries to other types of analyses. You can take in both text and images.

## Tools
You have access to a wide variety of tools. You are responsible for using the tools in any \
sequence you deem appropriate to complete the task at hand. This may require breaking the task \
into subtasks and using different tools to complete each subtask.

NOTE: you do NOT need to use a tool to understand the provided images. You can use both the \
input text and images as context to decide which tool to use.

You have access to the following tools:
{tool_desc}

## Input
The user will specify a task (in text) and a set of images. Treat the images as additional \
context for the task. Each image has an id such as img_1; tools that look at an image take that \
id as `image_id`, and images that tools return get new ids you can use in later steps.

## Output Format
To answer the question, please use the following format.

```
Thought: I need to use a tool to help me answer the question.
Action: tool name (one of {tool_names}) if using a tool.
Action Input: the input to the tool, in a JSON format representing the kwargs \
(e.g. {{"input": "hello world", "num_beams": 5}})
```

Please ALWAYS start with a Thought.

Please use a valid JSON format for the Action Input. Do NOT do this \
{{'input': 'hello world', 'num_beams': 5}}.

If this format is used, the user will respond in the following format:

```
Observation: tool response
```

Here's a concrete example. Again, you can take in both text and images as input. This can \
generate a thought which can be used to decide which tool to use. Tools that do not take an \
image_id cannot see the images, so it is your responsibility to translate the input \
text/images into a format that such a tool can understand.

For example:
```
Thought: This image is a picture of a brown dog. The text asked me to identify its name, so I \
need to use a tool to lookup its name.
Action: churchill_bio_tool
Action Input: {{"input": "brown dog name"}}
```

Example user response:

```
Observation: The name of the brown dog is Rufus.
```

If a tool you need is missing required information that only the user can give, call \
ASK_USER_FOR_REQUIRED_PARAMS with your question instead of guessing.

You should keep repeating the above format until you have enough information to answer the \
question without using any more tools. At that point, you MUST respond in the one of the \
following two formats:

```
Thought: I can answer without using any more tools.
Answer: [your answer here]
```

```
Thought: I cannot answer the question with the provided tools.
Answer: Sorry, I cannot answer your query.
```

The answer MUST be grounded in the input text and images. Do not give an answer that is \
irrelevant to the images provided. Answer in English.
{task_state}
## Current Conversation
Below is the current conversation consisting of interleaving human and assistant messages.
""",
    "zh": """\
你可以帮助完成各种任务：回答问题、总结内容以及其他分析。你可以同时接收文字和图片。

## 工具
你可以使用多种工具，并自行决定使用的顺序来完成当前任务。这可能需要把任务拆分为若干子任务，\
分别使用不同的工具完成。

注意：理解所提供的图片不需要使用工具。你可以结合输入的文字和图片来决定使用哪个工具。

你可以使用以下工具：
{tool_desc}

## 输入
用户会用文字说明任务，并提供一组图片。请把图片当作任务的补充信息。每张图片都有一个编号，例如 \
img_1；查看图片的工具通过 `image_id` 接收这个编号，工具返回的图片会得到新的编号，可在后续步骤中使用。

## 输出格式
请使用以下格式回答问题（标签保持英文）。

```
Thought: 我需要使用工具来帮助回答问题。
Action: 工具名称（{tool_names} 之一）
Action Input: 工具的输入，使用表示参数的 JSON 格式（例如 {{"input": "hello world", "num_beams": 5}}）
```

请始终以 Thought 开头。

Action Input 必须是合法的 JSON。不要写成 {{'input': 'hello world', 'num_beams': 5}}。

使用这种格式后，用户会这样回复：

```
Observation: 工具的返回结果
```

具体例子如下。不接收 image_id 的工具看不到图片，因此你需要把文字和图片中的信息转换成这类工具能理解的输入。

例如：
```
Thought: 这张图片是一只棕色的狗。用户想知道它的名字，所以我需要用工具查询。
Action: churchill_bio_tool
Action Input: {{"input": "brown dog name"}}
```

用户的回复示例：

```
Observation: 这只棕色的狗叫 Rufus。
```

如果需要的工具缺少只有用户才能提供的必要信息，请调用 ASK_USER_FOR_REQUIRED_PARAMS 提问，不要猜测。

请重复上述格式，直到信息足够、无需再使用工具即可回答。此时你必须使用以下两种格式之一：

```
Thought: 我无需再使用工具即可回答。
Answer: [你的回答]
```

```
Thought: 我无法用所提供的工具回答这个问题。
Answer: 抱歉，我无法回答您的问题。
```

回答必须基于输入的文字和图片，不要给出与图片无关的回答。请用中文回答。
{task_state}
## 当前对话
以下是当前对话，由用户和助手的消息交替组成。
""",
}

_THOUGHT_LINE = {
    "en": (
        'Thought: {{"content": {{"description": "you should always think about what to do", '
        '"required": true}}, "tool_to_use_for_user": {{"description": "when a tool is missing '
        'required parameters, the name of that tool", "required": true}}, "known_params": '
        '{{"description": "the parameters already extracted for the tool to call", '
        '"required": true}}}} Format the arguments as a JSON object.'
    ),
    "zh": (
        'Thought: {{"content": {{"description": "you should always think about what to do", '
        '"required": true}}, "tool_to_use_for_user": {{"description": "当调用某个工具缺少必要参数时'
        '，填写这个工具的名字", "required": true}}, "known_params": {{"description": '
        '"已经提取到的当前要调用工具的参数列表", "required": true}}}} Format the arguments as a '
        "JSON object."
    ),
}

_BEGIN = {"en": "Begin!", "zh": "开始！"}

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

{controls}Use the following format:

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
        REACT_HEADER[language_key(language)],
        tool_desc=react_tool_desc(tools, language_key(language)),
        tool_names=", ".join(names),
        task_state=f"\n{task_state}\n" if task_state else "",
    )


def intent_prompt(tools: Sequence[Any], question: str, language: str = "en") -> str:
    lang = language_key(language)
    template = INTENT_PROMPT % {"thought": _THOUGHT_LINE[lang], "begin": _BEGIN[lang]}
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


def filling_slot_prompt(tool: Any, question: str, steps: str, language: str = "en") -> str:
    lang = language_key(language)
    template = FILLING_SLOT_PROMPT % {"thought": _THOUGHT_LINE[lang], "begin": _BEGIN[lang]}
    return render(
        template,
        plugin_name=tool.name,
        description_for_human=tool.description,
        parameter_schema=orion_schema(tool),
        controls=_control_lines(lang, ("end_conversation", "ASK_USER_FOR_REQUIRED_PARAMS")),
        question=question,
        reAct_step_str=steps,
    )


def final_prompt(question: str, steps: str) -> str:
    return render(FINAL_PROMPT, question=question, reAct_step_str=steps)


# The system message of the native tool-calling protocol (our own words; the tools themselves go
# in the endpoint's `tools` parameter). The control actions of the task dialogue are tools too.
NATIVE_SYSTEM = {
    "en": """You are a helpful assistant that can look at images and use tools.
Images in the conversation have ids (img_1, img_2, ...); tools that look at an image take its id.
Call a tool when it helps. When a tool needs a value only the user knows, call ASK_USER_FOR_REQUIRED_PARAMS with your question instead of guessing; when you cannot tell what the user wants, call ASK_USER_FOR_INTENT; when the user wants to stop, call end_conversation; when no tool fits, call TOOL_OTHER or answer from what you know.
Base your answer on the images and the tools' results. Answer in the user's language.""",
    "zh": """你是一个能看图片、会使用工具的助手。
对话中的图片都有编号（img_1、img_2……）；查看图片的工具用编号指定图片。
需要时调用工具。工具需要只有用户知道的信息时，调用 ASK_USER_FOR_REQUIRED_PARAMS 提问，不要猜；不清楚用户想做什么时，调用 ASK_USER_FOR_INTENT；用户想结束时，调用 end_conversation；没有合适的工具时，调用 TOOL_OTHER 或凭已知回答。
回答要以图片和工具结果为依据，并使用用户的语言。""",
}


def native_system(language: str, task_state: str = "") -> str:
    text = NATIVE_SYSTEM[language_key(language)]
    return f"{text}\n\n{task_state}" if task_state else text


def task_state_text(tool: str, known: dict[str, Any], missing: Sequence[str], language: str) -> str:
    listed = ", ".join(missing) or words.say(language, "prompts.nothing_missing")
    known_json = json.dumps(known, ensure_ascii=False)
    return words.say(language, "prompts.task_state", tool=tool, known=known_json, missing=listed)


# Sentences the agent itself says, per language.
PHRASES = words.both("phrases")


def phrase(language: str, key: str, **values: Any) -> str:
    return render(words.words(language, f"phrases.{key}"), **values)
