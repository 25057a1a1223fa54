"""What the page's browser tests share: the app launched once per module with a model each
test may choose (`page_model`), Chromium, and opening the page at a phone's or a desktop's
size in a language."""

from __future__ import annotations

from pathlib import Path

import pytest

import app
from agent.models import OfflineModel
from tests.support.local import CHROMIUM, CHROMIUM_FLAGS, serve
from tests.support.page_driver import DESKTOP


@pytest.fixture(scope="module")
def chosen_model():
    return {"factory": lambda: OfflineModel()}


@pytest.fixture(scope="module")
def page_url(chosen_model):
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")
    demo = app.build_demo(model_factory=lambda prefs: chosen_model["factory"]())
    try:
        yield serve(demo, **app.launch_options())
    finally:
        demo.close()


@pytest.fixture(scope="module")
def chromium(page_url):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page_model(chosen_model):
    """Set the model for this test's turns; the offline model comes back afterwards."""
    yield chosen_model
    chosen_model["factory"] = lambda: OfflineModel()


@pytest.fixture
def open_at(chromium, page_url):
    """`open_at(viewport, locale)` opens the page in a context of its own, closed afterwards."""
    contexts = []

    def opener(viewport=DESKTOP, locale="en-US"):
        context = chromium.new_context(locale=locale, viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(page_url)
        page.wait_for_selector("#input textarea")
        return page

    yield opener
    for context in contexts:
        context.close()
