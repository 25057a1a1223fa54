"""What the page's browser tests share: one launched app per test process (each test opens its
own page, its own session), Chromium for each file, a model each test may choose
(`page_model`), and opening the page at a phone's or a desktop's size in a language. A file
that needs an app of its own (other tools or settings) launches it as its `url`.

Chromium is not kept for the whole process: Playwright's synchronous API keeps an event loop
running in the test thread while it is open, and the asyncio tests that a worker runs after
the browser files need that thread's loop free."""

from __future__ import annotations

from pathlib import Path

import pytest

import app
from agent.models import OfflineModel
from tests.support.local import CHROMIUM, launched_chromium, open_page, serve
from tests.support.page_driver import DESKTOP


@pytest.fixture(scope="session", autouse=True)
def _patient_expect():
    """`expect` waits for its condition for up to 20 s, not Playwright's 5: a loaded machine
    draws the page late, and a condition met sooner ends the wait sooner."""
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect.set_options(timeout=20_000)


def offline_model() -> OfflineModel:
    return OfflineModel()


@pytest.fixture(scope="session")
def chosen_model():
    return {"factory": offline_model}


@pytest.fixture(scope="session")
def page_url(chosen_model):
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")

    def factory(prefs):
        # The Settings' model source is honoured, so a hosted model without a key says so.
        if prefs.source != "offline":
            return app.default_model(prefs, app.Settings())
        return chosen_model["factory"]()

    demo = app.build_demo(model_factory=factory)
    try:
        yield serve(demo, **app.launch_options())
    finally:
        demo.close()


@pytest.fixture(scope="module")
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")
    pytest.importorskip("playwright.sync_api")
    with launched_chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium


@pytest.fixture
def page_model(chosen_model):
    """Set the model for this test's turns; the offline model comes back afterwards."""
    yield chosen_model
    chosen_model["factory"] = offline_model


@pytest.fixture
def open_at(chromium, page_url):
    """`open_at(viewport, locale)` opens the page in a context of its own, closed afterwards."""
    contexts = []

    def opener(viewport=DESKTOP, locale="en-US"):
        page = open_page(chromium, page_url, locale=locale, viewport=viewport)
        contexts.append(page.context)
        return page

    yield opener
    for context in contexts:
        context.close()
