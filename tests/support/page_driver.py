"""Driving the page in a test: sizes to open it at, sending a message, waiting for a turn."""

from __future__ import annotations

from pathlib import Path

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 1000}
EXAMPLES = Path(__file__).resolve().parents[2] / "assets" / "examples"


def send(page, text: str, *images: Path) -> None:
    if images:
        page.set_input_files("#input input[type=file]", [str(i) for i in images])
        page.wait_for_function(
            "n => document.querySelectorAll('#input img').length >= n", arg=len(images)
        )
    page.fill("#input textarea", text)
    page.press("#input textarea", "Enter")


def settled(page, change) -> None:
    """Make a `change` to a setting and wait until the server has it: each setting is a call
    of its own, which a turn sent at once could overtake."""
    with page.expect_response(lambda response: "/run/predict" in response.url):
        change()


def wait_done(page, done: str = "model call", timeout: float = 60_000) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#run-status")).to_contain_text(done, timeout=timeout)


def serious_violations(page) -> list[str]:
    """axe's serious and critical findings on the page as it is now, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']}: {[n['target'] for n in v['nodes']]} {v['nodes'][0]['failureSummary']}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]
