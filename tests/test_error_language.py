"""A turn that ends in error says so in the conversation's language: a Chinese question that
meets a rate limit, the step limit or the turn's time limit reads Chinese, an English one
English, whatever the agent's language setting."""

from __future__ import annotations

import re

import pytest

from agent import Agent
from agent.config import Settings
from agent.error_words import SENTENCES, say
from agent.models import ModelError, ScriptedModel
from tests.conftest import collect
from tests.support.openai_fixtures import make_model, serve, stopping
from tests.support.openai_server import Hang, rate_limited, server_error, unauthorized

__all__ = ["serve", "stopping"]  # fixtures

HAN = re.compile(r"[\u4e00-\u9fff]")
LOOP = [f'Thought: again\nAction: echo\nAction Input: {{"text": "{i}"}}' for i in range(20)]


def test_every_sentence_has_both_languages_with_the_same_facts():
    assert SENTENCES["en"].keys() == SENTENCES["zh"].keys()
    field = re.compile(r"\{(\w+)")
    for key, english in SENTENCES["en"].items():
        assert set(field.findall(english)) == set(field.findall(SENTENCES["zh"][key])), key
        assert HAN.search(SENTENCES["zh"][key]), key


def test_seconds_are_said_each_language_s_way():
    assert say("deadline", "en", limit_s=1).startswith("This turn took longer than 1 second,")
    assert "240 seconds" in say("deadline", "en", limit_s=240)
    assert "240 秒" in say("deadline", "zh-CN", limit_s=240)


@pytest.mark.parametrize(
    ("question", "chinese"),
    [("一直重复直到停下", True), ("loop until you stop", False), ("请 loop 一下", True)],
)
async def test_the_step_limit_in_the_question_s_language(test_tools, question, chinese):
    agent = Agent(ScriptedModel(LOOP), test_tools, max_steps=2, language="en")
    events = await collect(agent, question)
    last = events[-1]
    assert last.type == "error" and last.kind == "step_limit"
    assert bool(HAN.search(last.message)) is chinese
    assert "2" in last.message


async def test_one_model_call_is_singular(test_tools):
    events = await collect(Agent(ScriptedModel(LOOP), test_tools, max_steps=1), "loop")
    assert "after 1 model call without" in events[-1].message


async def test_the_turn_time_limit_in_chinese(test_tools):
    settings = Settings(turn_timeout=0.3)
    model = ScriptedModel(['Thought: x\nAction: slow\nAction Input: {"seconds": 5}'] * 3)
    events = await collect(Agent(model, test_tools, settings=settings), "慢慢来")
    assert events[-1].kind == "deadline"
    assert "0.3 秒" in events[-1].message and HAN.search(events[-1].message)


async def test_a_crashing_tool_in_chinese(test_tools):
    model = ScriptedModel(['Thought: x\nAction: boom\nAction Input: {"text": "kaput"}'])
    events = await collect(Agent(model, test_tools), "试试这个工具")
    assert events[-1].kind == "internal"
    assert "boom" in events[-1].message and "服务器日志" in events[-1].message


async def test_unreadable_replies_in_chinese(test_tools):
    agent = Agent(ScriptedModel(["", "", "", ""]), test_tools, max_parse_retries=1)
    events = await collect(agent, "你好")
    assert events[-1].kind == "parse" and "无法理解" in events[-1].message


@pytest.mark.parametrize(
    ("reply", "words_en", "words_zh"),
    [
        (rate_limited(retry_after=7), "7 seconds", "7 秒"),
        (rate_limited(retry_after=None), "wait a moment", "稍候"),
        (unauthorized("sk-x"), "API key", "API 密钥"),
        (server_error(), "internal error", "内部出错"),
        (Hang(seconds=5), "did not answer within 1 second", "1 秒内没有回应"),
    ],
)
async def test_model_service_failures_over_http_in_both_languages(
    test_tools, serve, reply, words_en, words_zh
):
    for question, words in (("what is this?", words_en), ("这是什么？", words_zh)):
        server = serve([reply])
        model = make_model(server, timeout=1.0)
        try:
            events = await collect(Agent(model, test_tools, tool_protocol="react"), question)
        finally:
            await model.aclose()
        assert events[-1].type == "error"
        assert words in events[-1].message, (question, events[-1].message)


def test_the_english_text_stays_the_error_s_own():
    error = ModelError.said("http_404", "not_found", 404, model="m")
    assert (
        str(error) == "The model service does not know model 'm' (404); check the model name "
        "and the base URL."
    )
    assert "模型服务不认识模型 'm'" in error.sentence("zh")
    assert ModelError("plain words").sentence("zh") == "plain words"
