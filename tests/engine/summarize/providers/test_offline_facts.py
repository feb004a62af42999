"""The offline summary is a summary (issue 39 item 5): the goal in a sentence or two, no
slash commands or continuations as asks, identifiers as whole tokens of the transcript, no
noise identifiers, no line twice, and it passes its own audit."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from fixtures.factories import TranscriptBuilder
from fixtures.sample_writes import WRITABLE_SAMPLES, WrittenSample, run_cli_json
from sessionlens.engine.audit.report import audit_summary
from sessionlens.engine.model import Transcript
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.settings import DEFAULT_SETTINGS
from sessionlens.engine.summarize.providers import OfflineProvider
from sessionlens.engine.summarize.providers.offline_facts import is_substantive_ask, whole_token
from sessionlens.engine.summarize.runner import summarize_plan

THEME = "\n".join(f"  color{i}: #{c}ff;" for i, c in enumerate(
    ["b5bd68", "cc6666", "81a2be", "de935f", "8abeb7"]))


def _pi_like() -> Transcript:
    b = TranscriptBuilder()
    b.user("Build the budget report in src/orbit/budget_13.py and keep it under 200 lines.")
    b.user("/mode")
    b.assistant("Which output format do you want?")
    b.user("continue")
    w = b.call("write", path="src/orbit/budget_13.py", content="print(1)\n")
    b.assistant("Writing the report module.", w)
    b.result(w, "Successfully wrote 26 bytes to src/orbit/budget_13.py")
    run = b.call("bash", command="python src/orbit/budget_13.py")
    b.assistant("Running it at 2026-12-04T01:02:03.456Z.", run)
    b.result(run, "1")
    b.user("/them")
    t = b.call("read", path="themes/dark.css")
    b.assistant("Reading the theme.", t)
    b.result(t, ":root {\n" + THEME + "\n}")
    b.user("Now use the theme colours #b5bd68ff and #cc6666ff for the report header.")
    b.assistant("Using #b5bd68ff for the title and #cc6666ff for warnings.")
    b.user("continue")
    b.assistant("Done.")
    return b.build()


def _summary(t: Transcript, template: str = "structured") -> tuple[str, list[str]]:
    plan = plan_compaction(t, DEFAULT_SETTINGS, manual=True)
    result = asyncio.run(summarize_plan(t, plan, OfflineProvider(), template=template))
    return result.summary, list(plan.summarized_entry_ids)


def _section(summary: str, heading: str) -> list[str]:
    lines = summary.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
    return [x for x in lines[start:end] if x.strip()]


def test_asks_are_not_slash_commands_or_continuations() -> None:
    assert not is_substantive_ask("/mode")
    assert not is_substantive_ask("continue")
    assert not is_substantive_ask("ok, go on")
    assert is_substantive_ask("Fix the header bug")
    assert is_substantive_ask("你可以接入minimax模型吗")
    assert not is_substantive_ask("<image name=[Image #1]> </image>")


@pytest.mark.parametrize("template", ["structured", "safeguard"])
def test_the_offline_summary_reads_as_a_summary(template: str) -> None:
    t = _pi_like()
    summary, ids = _summary(t, template)
    body = [x.strip() for x in summary.splitlines()
            if x.strip() and not x.startswith("#") and x.strip() != "(none)"]
    assert [x for x, n in Counter(body).items() if n > 1] == []  # no line twice
    assert body.count("- continue") + body.count("- Latest user request: continue") == 1
    for noise in ("/mode", "/them", "Successfully wrote", "2026-12-04T01:02"):
        assert not any(x.startswith(noise) or x == f"- `{noise}`" or noise in x.split("`")[1::2]
                       for x in body), noise
    # whole tokens only: the path as written, never OpenClaw's cut-out piece of it
    listed = re.findall(r"^- `([^`]+)`$", summary, re.M)
    assert "/orbit/budget_13.py" not in listed
    assert "src/orbit/budget_13.py" in summary
    report = audit_summary(t, summary, summarized_entry_ids=ids, template=template)
    assert report.passed, [(c.name, c.detail) for c in report.checks if not c.passed]
    if template == "structured":
        goal = _section(summary, "## Goal")
        assert len(goal) <= 3 and "/mode" not in "\n".join(goal)
        assert goal[-1] == "- Latest user request: continue"


def test_whole_token_widens_a_cut_out_piece() -> None:
    text = "see src/orbit/budget_13.py, then /etc/hosts"
    assert whole_token("/orbit/budget_13.py", text) == "src/orbit/budget_13.py"
    assert whole_token("/etc/hosts", text) == "/etc/hosts"


@pytest.mark.parametrize("prefix", sorted(WRITABLE_SAMPLES))
def test_the_offline_summary_passes_its_own_audit_on_the_samples(
        written_sample: Callable[[str], WrittenSample], prefix: str) -> None:
    audit = written_sample(prefix).compact["audit"]
    assert audit["passed"], [c for c in audit["checks"] if not c["passed"]]


def test_a_retry_carries_what_the_audit_missed_or_says_it_cannot(tmp_path: Path) -> None:
    """``--quality-retries 2`` returned the identical text twice; the refusal did not say
    how to write it anyway."""
    b = TranscriptBuilder()
    b.user("Write the greeting script, please.")
    w = b.call("write", path="hello.py", content="print('hello from orbit-7')\n")
    b.assistant("Writing it.", w)
    b.result(w, "ok")
    b.user("Thanks, that is all.")
    b.assistant("Bye.")
    path = b.write(tmp_path / "s.jsonl")
    common = ("--keep-recent", "0", "--identifier-policy", "custom", "--quality-retries", "2",
              "--identifier-instructions", "keep the greeting marker")
    code, out = run_cli_json("compact", str(path), *common, "--identifier", "orbit-7')")
    assert code == 0 and out["audit"]["passed"]  # the retry copied it from the transcript
    assert out["audit"]["attempts"] == 2 and "orbit-7')" in out["summary"]
    code, out = run_cli_json("compact", str(path), *common, "--identifier", "NOT-IN-SPAN-42",
                             "--write", "successor")
    assert code == 3 and not out["audit"]["passed"]
    assert out["audit"]["attempts"] == 1  # no second identical attempt
    assert any("same text as attempt 1" in w and "cannot" in w for w in out["warnings"])
    assert "--accept-failed-audit" in out["refused"]
