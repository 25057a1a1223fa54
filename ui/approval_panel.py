"""The approval panel: when a turn ends asking to approve a call to a tool that acts on the
outside world (`agent.approval`), the page shows the call, its arguments as JSON, and Approve,
Edit arguments (a JSON box, prefilled) and Deny, with "always allow this tool in this
conversation". Each button runs the next turn with that decision (`ui.handlers.PageHandlers.
run_turn`); typing "yes" or "no" in the input decides too. The panel shows whenever the
session has a call waiting, and hides while a decision runs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator
from types import SimpleNamespace
from typing import Any

import gradio as gr

from agent.approval import Action, ApprovalDecision, decision_text

from .handlers import PageHandlers
from .labels import t
from .listeners import Quiet
from .page.state import PageState
from .page.values import page_values
from .page.words import PageWords
from .turn_runner import on_page


def build(i18n: Any, words: PageWords) -> SimpleNamespace:
    """The panel's components, hidden until a call waits for approval. Their words follow the
    language chosen (`words`): Gradio translates a part once, when it is first drawn, so a
    panel first shown in one language would keep it."""
    with gr.Group(visible=False, elem_id="approval") as group:
        call = gr.Markdown(elem_id="approval-call")
        with gr.Row():
            approve = gr.Button(
                i18n("approval_approve"), variant="primary", elem_id="approval-approve"
            )
            deny = gr.Button(i18n("approval_deny"), variant="stop", elem_id="approval-deny")
        always = gr.Checkbox(False, label=i18n("approval_always"), elem_id="approval-always")
        with gr.Accordion(i18n("approval_edit"), open=False, elem_id="approval-edit") as edit:
            arguments = gr.Code(
                "{}",
                language="json",
                label=i18n("approval_args"),
                interactive=True,
                elem_id="approval-args",
            )
            run_edited = gr.Button(i18n("approval_run_edited"), elem_id="approval-run-edited")
    for button, key in [
        (approve, "approval_approve"),
        (deny, "approval_deny"),
        (run_edited, "approval_run_edited"),
    ]:
        words.add(button, value=key)
    words.add(always, label="approval_always")
    words.add(edit, label="approval_edit")
    words.add(arguments, label="approval_args")
    return SimpleNamespace(
        group=group,
        call=call,
        approve=approve,
        deny=deny,
        always=always,
        edit=edit,
        arguments=arguments,
        run_edited=run_edited,
    )


def refresh(state: PageState | None) -> tuple:
    """The panel for the session now: shown with the waiting call, else hidden. The JSON box
    is filled only for a call it has not shown yet, so an edit that did not fit stays there
    to be fixed."""
    session = getattr(state, "_session", None)
    pending = session.approval if session is not None else None
    if state is None or pending is None:
        if state is not None:
            state.approval_shown = None
        return gr.update(visible=False), gr.skip(), gr.skip(), gr.skip()
    language = state.prefs.language
    lines = [
        f"**{t('approval_title', language)}**",
        t("approval_call", language).format(tool=pending.tool),
        "```json\n" + json.dumps(pending.arguments, ensure_ascii=False, indent=2) + "\n```",
    ]
    final = state.turns[-1].view.final if state.turns else None
    problem = getattr(final, "problem", None)
    if problem:
        lines.append(f"⚠️ {problem}")
    fresh = state.approval_shown != pending.call_id
    state.approval_shown = pending.call_id
    code = json.dumps(pending.arguments, ensure_ascii=False, indent=2) if fresh else gr.skip()
    return gr.update(visible=True), "\n\n".join(lines), code, False if fresh else gr.skip()


def hidden() -> tuple:
    """The panel hidden, and the input's stop square shown: the decision's turn runs."""
    return gr.update(visible=False), gr.MultimodalTextbox(stop_btn=True)


def decide(page: PageHandlers, action: Action) -> Any:
    """The handler of one button: the next turn, with this decision."""

    async def handler(
        state: PageState | None, arguments: str | None, always: bool
    ) -> AsyncGenerator[tuple, None]:
        state = page.use(state)
        if state.running:  # a typed message is deciding it now
            gr.Info(t("wait_turn", state.prefs.language))
            yield page_values(state)
            return
        if state.session.approval is None:
            gr.Warning(t("approval_none", state.prefs.language))
            yield page_values(state)
            return
        decision = ApprovalDecision(
            action=action,
            arguments=(arguments or "") if action == "edit" else None,
            always=bool(always) and action != "deny",
        )
        text = decision_text(decision, state.prefs.language)
        turn = page.run_turn(state, text, [], decision=decision)
        async with contextlib.aclosing(on_page(turn, state)) as updates:
            async for update in updates:
                yield update

    return handler


def wire(panel: SimpleNamespace, page: PageHandlers, state: Any, turn: dict, box: Any) -> list[Any]:
    """Each button hides the panel at once and shows the stop square in the input (`box`),
    then runs its turn; returns the turn events, for Stop to cancel and for what follows
    every turn (`refresh` among it)."""
    quiet: Quiet = {"api_visibility": "private", "show_progress": "hidden"}
    events = []
    buttons: list[tuple[Any, Action]] = [
        (panel.approve, "approve"),
        (panel.run_edited, "edit"),
        (panel.deny, "deny"),
    ]
    for button, action in buttons:
        hide = button.click(hidden, None, [panel.group, box], queue=False, **quiet)
        inputs = [state, panel.arguments, panel.always]
        events.append(hide.then(decide(page, action), inputs, api_visibility="private", **turn))
    return events


def outputs(panel: SimpleNamespace) -> list[Any]:
    return [panel.group, panel.call, panel.arguments, panel.always]
