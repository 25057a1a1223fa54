"""How a turn went wrong, in one sentence, in English and in Chinese.

A `ModelError` and the runner's own `error` events carry a key and the facts the sentence
needs; the sentence is said in the conversation's language when the turn ends, so a Chinese
question that meets a rate limit reads Chinese. `str(ModelError)` stays English, for the log.
Durations are numbers of seconds and are said the language's way.
"""

from __future__ import annotations

from typing import Any

from .prompts import language_key

# Facts that are seconds; said as "1 second", "2.5 seconds", "3 秒".
_SECONDS = ("timeout", "wait", "limit_s")

SENTENCES: dict[str, dict[str, str]] = {
    "en": {
        "retry_status": "The model service answered HTTP {code}; trying again in {wait} "
        "(attempt {attempt} of {attempts}).",
        "retry_connection": "The connection to the model service failed; trying again in "
        "{wait} (attempt {attempt} of {attempts}).",
        "http_401": "The model service rejected the API key (401); check that the key is right "
        "and has not expired.",
        "http_403": "The API key is not allowed to use model {model!r} (403); check the key's "
        "permissions.",
        "http_404": "The model service does not know model {model!r} (404); check the model "
        "name and the base URL.",
        "quota": "The account behind the API key has run out of quota (429); check its billing.",
        "rate_limit": "The model service is limiting the rate of requests (429); wait a moment "
        "and try again.",
        "rate_limit_wait": "The model service is limiting the rate of requests (429); try again "
        "in {wait}.",
        "http_500": "The model service had an internal error (500); try again in a moment.",
        "http_502": "The gateway in front of the model service got no valid answer from it "
        "(502); try again in a moment.",
        "http_503": "The model service is unavailable right now (503); try again in a moment.",
        "http_503_wait": "The model service is unavailable right now (503); try again in {wait}.",
        "http_504": "The gateway in front of the model service timed out waiting for the model "
        "(504); try again in a moment, or send a shorter conversation.",
        "http_5xx": "The model service failed with HTTP {code}; try again in a moment.",
        "too_long": "The conversation is too long for model {model!r} ({code}); start a new "
        "conversation or send fewer images.",
        "http_413": "The request was too large for the model service (413); send fewer or "
        "smaller images, or start a new conversation.",
        "bad_request": "Model {model!r} refused the request ({code}), perhaps because it does "
        "not accept images or one of the settings; try without images, or choose another model.",
        "http_other": "The model service answered with HTTP {code}; check the base URL and try "
        "again.",
        "images_refused": "Model {model!r} does not take images ({code}); choose Automatic or "
        "Never for Images to the model in Settings (AGENT_VISION), or choose a vision model.",
        "vision_fallback": "Model {model!r} cannot take images, so they are no longer sent to "
        "it: it is told each image's id, size and kind, and looks at them with the tools (text "
        "reading, codes, colours, zoom).",
        "repeating": "Model {model!r} kept repeating the same text, so its reply was cut off; "
        "try again, ask in other words, or choose a stronger model.",
        "cut_off_limit": "The model's reply ran past its limit of {limit:,} tokens without "
        "ending, so it was cut off; try again, or ask for a shorter answer.",
        "stalled": "The model service stopped sending the reply for {timeout}; try again or "
        "raise the timeout.",
        "cut_off_closed": "The model's reply was cut off part-way because the connection "
        "closed; try again.",
        "closed_early": "The model service closed the connection before sending a reply; try "
        "again.",
        "stream_error": "The model service reported an error part-way through the reply; try "
        "again.",
        "unreadable_reply": "The model service sent a reply this client cannot read; check the "
        "base URL points at an OpenAI-compatible API.",
        "thinking_only": "Model {model!r} used its whole token budget thinking and gave no "
        "reply; raise max_tokens or try again.",
        "empty_reply": "Model {model!r} returned an empty reply; try again or choose another "
        "model.",
        "no_answer": "The model service at {url} did not answer within {timeout}; try again or "
        "raise the timeout.",
        "tools_unsupported": "Model {model!r} does not take tools natively here; use the ReAct "
        "text protocol (tool protocol react or auto).",
        "client_start": "The model client could not start the call; check the model settings.",
        "no_connection": "Could not connect to the model service at {url}; check that it is "
        "running and that the base URL is right.",
        "offline_timeout": "The offline model could not work out a reply in time; try a shorter "
        "or simpler request.",
        "scripted_done": "The scripted model has no more replies.",
        "deadline": "This turn took longer than {limit_s}, so it was stopped. Try a simpler "
        "request, or raise the turn time limit in the settings.",
        "step_limit_1": "Stopped after 1 model call without an answer. Try a simpler question "
        "or raise the step limit in Settings.",
        "step_limit": "Stopped after {steps} model calls without an answer. Try a simpler "
        "question or raise the step limit in Settings.",
        "tool_crashed": "The {tool} tool failed unexpectedly; the details are in the server "
        "log. Please try again, or ask in another way.",
        "internal": "Something went wrong inside the agent; the details are in the server log. "
        "Please try again.",
        "parse": "The model's replies could not be understood, so the agent stopped. Try "
        "again, or choose a stronger model in Settings.",
        "repeat": "The model kept repeating the same tool call, so the agent stopped. Please "
        "rephrase.",
        "native_refused": "The model's endpoint refused native tool calls, so the agent uses "
        "the ReAct text protocol with it.",
    },
    "zh": {
        "retry_status": "模型服务返回 HTTP {code}；{wait}后重试（第 {attempt} 次，共 {attempts} 次）。",
        "retry_connection": "无法连接模型服务；{wait}后重试（第 {attempt} 次，共 {attempts} 次）。",
        "http_401": "模型服务拒绝了 API 密钥（401）；请检查密钥是否正确、是否已过期。",
        "http_403": "该 API 密钥无权使用模型 {model!r}（403）；请检查密钥的权限。",
        "http_404": "模型服务不认识模型 {model!r}（404）；请检查模型名称和 Base URL。",
        "quota": "API 密钥所属账户的额度已用完（429）；请检查账单。",
        "rate_limit": "模型服务正在限制请求频率（429）；请稍候再试。",
        "rate_limit_wait": "模型服务正在限制请求频率（429）；请在 {wait}后再试。",
        "http_500": "模型服务内部出错（500）；请稍后再试。",
        "http_502": "模型服务前面的网关没有从它得到有效回应（502）；请稍后再试。",
        "http_503": "模型服务暂时不可用（503）；请稍后再试。",
        "http_503_wait": "模型服务暂时不可用（503）；请在 {wait}后再试。",
        "http_504": "模型服务前面的网关等待模型超时（504）；请稍后再试，或发送更短的对话。",
        "http_5xx": "模型服务出错（HTTP {code}）；请稍后再试。",
        "too_long": "对话对模型 {model!r} 来说太长了（{code}）；请开始新对话，或少发几张图片。",
        "http_413": "请求对模型服务来说太大了（413）；请少发或发更小的图片，或开始新对话。",
        "bad_request": "模型 {model!r} 拒绝了请求（{code}），可能是它不接受图片或某项设置；"
        "请去掉图片再试，或换一个模型。",
        "http_other": "模型服务返回了 HTTP {code}；请检查 Base URL 后再试。",
        "images_refused": "模型 {model!r} 不接受图片（{code}）；请在设置中把“发给模型的图片”设为"
        "“自动”或“从不”（AGENT_VISION），或换一个能看图的模型。",
        "vision_fallback": "模型 {model!r} 无法接收图片，因此不再向它发送图片：它会得到每张图片的"
        "编号、尺寸和类型，并用工具查看图片（识别文字、扫码、颜色、放大）。",
        "repeating": "模型 {model!r} 一直在重复同样的内容，回复已被中断；请重试、换一种问法，"
        "或换一个更强的模型。",
        "cut_off_limit": "模型的回复超过了 {limit:,} 个 token 的上限仍未结束，已被截断；"
        "请重试，或要求更短的回答。",
        "stalled": "模型服务已有 {timeout}没有发送回复；请重试，或调大超时时间。",
        "cut_off_closed": "连接中断，模型的回复只收到一部分；请重试。",
        "closed_early": "模型服务在发送回复之前关闭了连接；请重试。",
        "stream_error": "模型服务在回复途中报告了错误；请重试。",
        "unreadable_reply": "模型服务发来的回复无法读取；请确认 Base URL 指向 OpenAI 兼容的 API。",
        "thinking_only": "模型 {model!r} 把全部 token 预算都用在了思考上，没有给出回复；"
        "请调大 max_tokens 或重试。",
        "empty_reply": "模型 {model!r} 返回了空回复；请重试，或换一个模型。",
        "no_answer": "位于 {url} 的模型服务在 {timeout}内没有回应；请重试，或调大超时时间。",
        "tools_unsupported": "模型 {model!r} 在这里不支持原生工具调用；请使用 ReAct 文本协议"
        "（工具协议选 react 或 auto）。",
        "client_start": "模型客户端无法发起调用；请检查模型设置。",
        "no_connection": "无法连接位于 {url} 的模型服务；请确认它正在运行，且 Base URL 正确。",
        "offline_timeout": "离线模型没能及时想出回复；请换一个更短或更简单的请求。",
        "scripted_done": "脚本模型已经没有更多回复了。",
        "deadline": "这一轮用时超过 {limit_s}，已被停止。请换一个更简单的请求，或在设置中调大单轮时间上限。",
        "step_limit_1": "调用模型 1 次后仍没有答案，已停止。请换一个更简单的问题，或在设置中调大步数上限。",
        "step_limit": "调用模型 {steps} 次后仍没有答案，已停止。请换一个更简单的问题，或在设置中调大步数上限。",
        "tool_crashed": "工具 {tool} 意外出错，详情见服务器日志。请重试，或换一种问法。",
        "internal": "智能体内部出错，详情见服务器日志。请重试。",
        "parse": "无法理解模型的回复，智能体已停止。请重试，或在设置中选择更强的模型。",
        "repeat": "模型一直重复同一个工具调用，智能体已停止。请换一种说法。",
        "native_refused": "模型的端点拒绝了原生工具调用，因此智能体改用 ReAct 文本协议与它交流。",
    },
}


def seconds(value: float, language: str = "en") -> str:
    """ "1 second", "0.5 seconds", "60 seconds"; "60 秒"."""
    if language_key(language) == "zh":
        return f"{value:g} 秒"
    return f"{value:g} second" if value == 1 else f"{value:g} seconds"


def say(key: str, language: str = "en", **facts: Any) -> str:
    """The sentence `key` in `language` (en or zh, any spelling), with its facts."""
    lang = language_key(language)
    for name in _SECONDS:
        if isinstance(facts.get(name), int | float):
            facts[name] = seconds(facts[name], lang)
    return SENTENCES[lang][key].format(**facts)
