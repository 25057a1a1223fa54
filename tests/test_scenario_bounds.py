"""Scenario files from anyone who can open the page: a catastrophic pattern, an alias bomb, an
oversized or deeply nested file and a file naming the server's own files each end within their
bound with one sentence, and reading them never holds the event loop."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from agent.config import Settings
from agent.models import OfflineModel
from agent.scenarios import InvalidFile, load_file
from agent.scenarios.expect import check_turn
from agent.scenarios.format import MAX_FILE_BYTES, Expect
from agent.scenarios.patterns import MAX_PATTERN_CHARS, MAX_SUBJECT_CHARS, search
from agent.scenarios.results import TurnResult
from ui.handlers import PageHandlers
from ui.scenarios_tab.handlers import ScenarioTab
from ui.scenarios_tab.runs import collect, invalid_sentence

CATASTROPHIC = r"(.|.)*QQQ"


pytestmark = pytest.mark.usefixtures("no_model_env")


def written(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def alias_bomb(levels: int = 7) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels + 1):
        ref = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([ref] * 9)}]")
    return "name: laughs\nturns:\n  - user: hi\n    expect: {outcome: answer}\nx:\n" + "".join(
        f"  {line}\n" for line in lines
    )


def problems_of(path: Path) -> list[str]:
    with pytest.raises(InvalidFile) as caught:
        load_file(path)
    return caught.value.error.problems


def turn_saying(text: str) -> TurnResult:
    return TurnResult(user="hi", outcome="answer", decision="no_tool", text=text)


def test_a_catastrophic_pattern_is_matched_in_linear_time():
    # With Python's re, 30 characters of subject already take longer than the suite.
    assert not search(CATASTROPHIC, "x" * 30)
    assert not search(CATASTROPHIC, "x" * (MAX_SUBJECT_CHARS * 5))
    assert search(CATASTROPHIC, "x" * 30 + "QQQ")
    checked = check_turn(
        1, Expect(outcome="answer", answer_matches=CATASTROPHIC), turn_saying("x" * 5000)
    )
    assert checked.failures and "not found" in checked.failures[0]


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        ("(?=look)ahead", "look-around or back-references"),
        (r"(a)\1", "look-around or back-references"),
        ("(unclosed", "missing )"),
        ("a" * (MAX_PATTERN_CHARS + 1), "over the limit"),
        ("((a{100}){100}){100}", "not a valid regular expression"),
    ],
)
def test_a_pattern_that_cannot_be_used_is_one_sentence_with_its_line(tmp_path, pattern, says):
    escaped = pattern.replace("\\", "\\\\")
    path = written(
        tmp_path,
        "p.yaml",
        "name: p\nturns:\n  - user: hi\n    expect:\n      outcome: answer\n"
        f'      answer_matches: "{escaped}"\n',
    )
    (problem,) = problems_of(path)
    assert says in problem and problem.startswith(f"{path}:6:")


def test_the_patterns_real_scenarios_use_still_work():
    assert search(r"8\.0[45]", "5 mi = 8.04672 km")
    assert search(r"= 12\b", "3 * 4 = 12.")
    assert search(r"Asia/Tokyo\) it is \d{2}:\d{2}", "In Tokyo (Asia/Tokyo) it is 09:41.")
    assert search("周六", "周六 10:00-16:00")
    assert not search(r"\b4\b", "14")


def test_an_alias_bomb_is_refused_before_anything_walks_it(tmp_path):
    (problem,) = problems_of(written(tmp_path, "laughs.yaml", alias_bomb()))
    assert "aliases written out" in problem and "20,000" in problem


def test_aliases_a_person_would_write_still_read(tmp_path):
    path = written(
        tmp_path,
        "shared.yaml",
        """
        name: shared
        turns:
          - user: "What is 3 + 4?"
            expect: &sum {outcome: answer, tools: [calculator]}
          - user: "What is 4 + 3?"
            expect: *sum
        """,
    )
    (scenario,) = load_file(path)
    assert scenario.turns[0].expect == scenario.turns[1].expect


def test_an_alias_inside_itself_is_refused(tmp_path):
    (problem,) = problems_of(written(tmp_path, "loop.yaml", "&a [*a]\n"))
    assert "containing itself" in problem


def test_an_oversized_file_is_refused_unread(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_bytes(b"# " + b"x" * (5 * 1024 * 1024))
    (problem,) = problems_of(path)
    assert f"larger than {MAX_FILE_BYTES // 1024} KB" in problem


@pytest.mark.parametrize("doc", ["[" * 5000 + "]" * 5000, "[" * 300 + "]" * 300])
def test_deep_nesting_is_one_sentence(tmp_path, doc):
    for suffix in (".yaml", ".json"):
        (problem,) = problems_of(written(tmp_path, "deep" + suffix, doc))
        assert "deep" in problem or "not valid YAML" in problem


def test_an_upload_cannot_tell_whether_a_server_file_exists(tmp_path):
    secret = tmp_path / ".hidden-secret"
    secret.write_text("x", encoding="utf-8")
    sentences = []
    for name in (str(secret), str(tmp_path / ".no-such-file")):
        upload = written(
            tmp_path,
            "probe.yaml",
            f'name: probe\nturns:\n  - user: hi\n    images: ["{name}"]\n'
            "    expect: {outcome: answer}\n",
        )
        batch = collect([], [str(upload)], "en")
        assert not batch.scenarios
        sentences.append(invalid_sentence(batch.invalid[0], "en"))
    assert sentences[0] == sentences[1]
    assert str(tmp_path) not in sentences[0] and "python -m agent.scenarios" in sentences[0]


async def test_the_tab_runs_a_catastrophic_file_while_the_loop_keeps_serving(tmp_path):
    upload = written(
        tmp_path,
        "evil.yaml",
        f"""
        name: evil
        language: en
        turns:
          - user: "What is 3 + 4?"
            expect: {{outcome: answer, answer_matches: '^.{{7}}{CATASTROPHIC}'}}
        """,
    )
    bomb = written(tmp_path, "laughs.yaml", alias_bomb(8))
    page = PageHandlers(lambda prefs: OfflineModel(), Settings())
    state = page.new_state()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    beside = asyncio.create_task(ticker())
    try:
        message, _, table, *_ = await ScenarioTab(page).run(
            [], [str(upload), str(bomb)], state, lambda *a, **k: None
        )
    finally:
        beside.cancel()
        state.close()
    assert "laughs.yaml" in message and "aliases" in message
    (row,) = table.value["data"]
    assert row[0] == "evil" and row[1] == "FAIL" and "answer_matches" in row[2]
    assert ticks > 10  # the loop went on serving while the files were read and checked


def test_one_run_holds_a_bounded_number_of_turns(tmp_path):
    from ui.scenarios_tab.runs import MAX_BATCH_TURNS

    turns = "".join(
        f'  - user: "what is {i} + 1?"\n    expect: {{outcome: answer}}\n' for i in range(200)
    )
    uploads = [
        str(written(tmp_path, f"part{n}.yaml", f"name: part {n}\nturns:\n{turns}"))
        for n in range(4)
    ]
    batch = collect([], uploads, "en")
    assert sum(len(s.turns) for s in batch.scenarios) <= MAX_BATCH_TURNS
    assert [e.file for e in batch.invalid] == ["part2.yaml", "part3.yaml"]
    assert "past 500 turns" in invalid_sentence(batch.invalid[0], "en")


def test_a_yaml_error_says_what_the_parser_found(tmp_path):
    path = written(tmp_path, "u.yaml", 'name: x\nturns:\n  - user: "hi"\n    expect: [a\n')
    (problem,) = problems_of(path)
    assert "<stream end>" in problem and "began on line 4" in problem
