"""axe finds nothing serious in the page's newer states: on a phone (with the trace reached by
its jump), with a tool's image and an error in the conversation, and after Language in
Settings changed the page's language."""

from __future__ import annotations

import pytest

from agent.models import ScriptedModel
from agent.models.base import ModelError
from tests.support.page_driver import DESKTOP, EXAMPLES, PHONE, send, serious_violations, wait_done

pytestmark = pytest.mark.browser
pytest.importorskip("playwright.sync_api")
pytest.importorskip("axe_playwright_python")


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_a_phone_before_and_after_a_turn(open_at, locale):
    page = open_at(PHONE, locale)
    page.wait_for_timeout(500)
    assert serious_violations(page) == [], "empty page"
    send(page, "Zoom into the bottom right corner", EXAMPLES / "label.png")
    wait_done(page, "次模型调用" if locale.startswith("zh") else "model call")
    page.wait_for_timeout(500)
    assert serious_violations(page) == [], "after the turn"
    page.click("#to-trace")
    page.wait_for_timeout(300)
    assert serious_violations(page) == [], "at the trace"


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_an_error_reply_and_a_switched_language(open_at, page_model, locale):
    page_model["factory"] = lambda: ScriptedModel([ModelError("The model service is down.")])
    page = open_at(DESKTOP, locale)
    send(page, "hello")
    page.locator("#chat .reply-error").wait_for()
    page.wait_for_timeout(500)
    assert serious_violations(page) == [], "error reply"
    page.locator("#settings .label-wrap").first.click()
    other = "English" if locale.startswith("zh") else "中文"
    page.locator("#language").get_by_text(other, exact=True).click()
    page.wait_for_timeout(800)
    assert serious_violations(page) == [], "language switched"
