"""Save as scenario in a real browser: a conversation on the page (an image, a question the
agent asks and the person answers, a call the person is asked to approve) saved as a
scenario, added to the Scenarios run list and run there, and its download run from the
command line; both pass.

The page runs the offline model, with the weather plugin answered by a local server and
approval asked for. The person denies the call: runs from the Scenarios tab have nobody to
ask, so under the operator's `ask` a call that needs approval is refused there
(`agent.approval.effective_policy`), and a denied call is what replays the same way on the
page and from the command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import app
from agent.config import Settings
from agent.models import OfflineModel
from tests.support.local import CHROMIUM, open_page, serve
from tests.support.weather_server import WeatherServer
from tools import default_tools

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
ROOT = Path(app.__file__).resolve().parent
SIGN = ROOT / "assets" / "examples" / "sign.png"


@pytest.fixture(scope="module")
def weather():
    with WeatherServer() as server:
        yield server


@pytest.fixture(scope="module")
def url(weather):
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")
    env = Settings(approval="ask", enable_weather=True, weather_base_url=weather.url)
    tools = default_tools(env.tool_settings())
    demo = app.build_demo(model_factory=lambda prefs: OfflineModel(), env=env, tools=tools)
    try:
        yield serve(demo, **app.launch_options(env))
    finally:
        demo.close()


@pytest.fixture
def page(browser, url):
    page = open_page(browser, url)
    yield page
    page.context.close()


def ask(page, text: str, *images: Path) -> None:
    if images:
        page.set_input_files("#input input[type=file]", [str(i) for i in images])
        page.wait_for_function(
            "n => document.querySelectorAll('#input img').length >= n", arg=len(images)
        )
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")


def answered(page, turns: int, text: str) -> None:
    """The chat holds `turns` answers, the last saying `text`, and the turn has ended."""
    expect(page.locator("#chat .bot-row")).to_have_count(turns)
    expect(page.locator("#chat .bot-row").last).to_contain_text(text)
    expect(page.locator("#run-status")).to_contain_text("model call")


def first_line(page, text: str) -> None:
    """The editor's first line replaced by `text`, as a person types it."""
    page.locator("#save-scenario-yaml .cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Shift+End")
    page.keyboard.insert_text(text)


def run_from_the_command_line(
    scenario: Path, weather: WeatherServer
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "HF_TOKEN")}
    env.update(AGENT_ENABLE_WEATHER="1", WEATHER_BASE_URL=weather.url, OPENAI_BASE_URL="")
    return subprocess.run(
        [sys.executable, "-m", "agent.scenarios", str(scenario), "--offline"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_conversation_saved_as_a_scenario_passes_in_the_tab_and_from_the_cli(
    page, weather, tmp_path
):
    ask(page, "what size is this image?", SIGN)
    answered(page, 1, "900x520")
    ask(page, "convert 5 miles")
    answered(page, 2, "Which unit")
    ask(page, "km")
    answered(page, 3, "8.04672")
    ask(page, "what's the weather in Paris?")
    expect(page.locator("#approval-deny")).to_be_visible()
    page.click("#approval-deny")
    answered(page, 5, "denied")

    page.click("#save-scenario")
    editor = page.locator("#save-scenario-yaml .cm-content")
    expect(editor).to_be_visible()
    for said in ("what size is this image?", "images/1.jpg", "to_unit", "8.04672", "never"):
        expect(editor).to_contain_text(said)
    download = page.locator("#save-scenario-download")
    expect(download).to_be_enabled()
    # An edit that is no scenario: one sentence, nothing to download until it is mended.
    message = page.locator("#save-scenario-message")
    first_line(page, "name: [")
    expect(message).to_contain_text("This scenario cannot be used as it is")
    expect(download).to_be_disabled()
    first_line(page, "name: my saved conversation")
    expect(download).to_be_enabled()
    expect(message).to_be_empty()
    with page.expect_download() as info:
        download.click()
    packed = tmp_path / "scenario.zip"
    info.value.save_as(packed)
    with zipfile.ZipFile(packed) as archive:
        assert sorted(archive.namelist()) == ["case.yaml", "images/1.jpg"]
        archive.extractall(tmp_path / "case")
    written = (tmp_path / "case" / "case.yaml").read_text(encoding="utf-8")
    assert written.startswith("name: my saved conversation\n")

    page.click("#save-scenario-add")
    expect(message).to_contain_text("Added “my saved conversation”")
    # Nothing of the conversation went: its turns and the input are as they were.
    expect(page.locator("#chat .bot-row")).to_have_count(5)

    page.get_by_role("tab", name="Scenarios").click()
    saved = page.locator("#scenario-saved")
    expect(saved).to_contain_text("my saved conversation")
    expect(saved.locator("input[type=checkbox]")).to_be_checked()
    page.click("#scenario-run")
    results = page.locator("#scenario-results")
    expect(results).to_contain_text("my saved conversation", timeout=120_000)
    expect(results).to_contain_text("pass")
    expect(results).not_to_contain_text("FAIL")
    expect(page.locator("#scenario-scores")).to_contain_text("1/1")

    ran = run_from_the_command_line(tmp_path / "case" / "case.yaml", weather)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "PASS" in ran.stdout
