"""The story of the bundled sample session, as data (used by make_sample_session.py).

Steps are dicts: ``user``, ``assistant`` (text, thinking, tool calls and what they
returned), ``bash`` (a command the user ran with ``!``), ``overflow``, ``compaction``,
``branch_back`` (return to an earlier entry with a branch summary), ``label`` and ``name``.
"""

from __future__ import annotations

import random

WORDS = ("payment", "ledger", "attempt", "backoff", "policy", "clock", "jitter", "invoice",
         "settle", "charge", "refund", "gateway", "idempotency", "window", "budget", "retry")


def module_source(path: str, rng: random.Random, lines: int) -> str:
    """Plausible Python source for ``path`` (about ``lines`` lines, numbered like `read`)."""
    mod = path.rsplit("/", 1)[-1].removesuffix(".py")
    out = [f'"""{mod.replace("_", " ").capitalize()}: part of the ledgerline payments service."""', "",
           "from __future__ import annotations", "", "import logging", "import time",
           "from dataclasses import dataclass, field", "", "log = logging.getLogger(__name__)", ""]
    while len(out) < lines:
        a, b = rng.sample(WORDS, 2)
        name = f"{a}_{b}"
        if rng.random() < 0.3:
            out += ["", "@dataclass(frozen=True)", f"class {a.capitalize()}{b.capitalize()}:",
                    f'    """Settings for {a} {b} handling."""', "",
                    f"    max_{a}s: int = {rng.randint(2, 9)}", f"    base_delay_s: float = {rng.choice([0.2, 0.5, 1.0])}",
                    f"    {b}_limit: int = {rng.randint(10, 500)}", ""]
        else:
            out += ["", f"def {name}(request, *, now=time.monotonic, sleep=time.sleep):",
                    f'    """Apply the {a} rules to one {b} request and return the outcome."""',
                    "    started = now()", "    for attempt in range(1, request.max_attempts + 1):",
                    "        outcome = request.send(attempt=attempt)",
                    "        if outcome.ok or not outcome.retryable:",
                    f"            log.info('{name} done after %d attempt(s)', attempt)",
                    "            return outcome",
                    "        delay = min(request.policy.cap_s, request.policy.base_s * 2 ** (attempt - 1))",
                    "        if now() - started + delay > request.deadline_s:",
                    f"            raise TimeoutError(f'{name}: deadline after {{attempt}} attempts')",
                    "        sleep(delay)", "    return outcome", ""]
    return "\n".join(f"{n:>4}\t{line}" for n, line in enumerate(out[:lines], 1))


def pytest_output(command: str, passed: int, failed: int, rng: random.Random) -> str:
    """pytest-like output with ``failed`` failures (a flaky backoff assertion)."""
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.12.8, pytest-8.3.4, pluggy-1.5.0",
             "rootdir: /home/dev/src/ledgerline", "configfile: pyproject.toml",
             "plugins: randomly-3.16.0, asyncio-0.24.0, timeout-2.3.1",
             f"collected {passed + failed} items", ""]
    dots = "".join("F" if i < failed else "." for i in range(passed + failed))
    lines.append(f"tests/payments/test_retry.py {dots} [100%]")
    for i in range(failed):
        seed = rng.randint(1000, 99999)
        lines += ["", "=================================== FAILURES ===================================",
                  f"__________________________ test_retry_backoff[{i}] ___________________________", "",
                  "    def test_retry_backoff(fake_clock, flaky_gateway):",
                  "        policy = RetryPolicy(max_attempts=5, base_s=0.5, cap_s=8.0)",
                  "        outcome = charge_with_retry(flaky_gateway.request(), policy=policy, now=fake_clock)",
                  ">       assert fake_clock.sleeps == [0.5, 1.0, 2.0, 4.0]",
                  "E       AssertionError: assert [0.5, 1.0, 2.0, 2.0] == [0.5, 1.0, 2.0, 4.0]",
                  "E         At index 3 diff: 2.0 != 4.0",
                  f"E         (pytest-randomly seed {seed})", "",
                  "tests/payments/test_retry.py:88: AssertionError"]
    summary = f"{failed} failed, {passed} passed" if failed else f"{passed} passed"
    lines += ["", f"=========================== {summary} in {rng.uniform(0.8, 6.5):.2f}s ==========================="]
    return "\n".join(lines)


def _read(path: str, size: int) -> tuple[tuple[str, dict[str, object]], dict[str, object]]:
    return ("read", {"path": path}), {"size": size}


def _test(cmd: str, passed: int, failed: int) -> tuple[tuple[str, dict[str, object]], dict[str, object]]:
    return ("bash", {"command": cmd, "timeout": 300}), {"tests": (passed, failed)}


def _edit(path: str, old: str, new: str) -> tuple[tuple[str, dict[str, object]], dict[str, object]]:
    return ("edit", {"path": path, "oldText": old, "newText": new}), {}


def step(text: str = "", *pairs: tuple[tuple[str, dict[str, object]], dict[str, object]],
         thinking: str = "", **extra: object) -> dict[str, object]:
    """An assistant step whose tool calls and results come in pairs."""
    return {"kind": "assistant", "text": text, "thinking": thinking,
            "calls": [p[0] for p in pairs], "outputs": [p[1] for p in pairs], **extra}


def user(text: str, **extra: object) -> dict[str, object]:
    return {"kind": "user", "text": text, **extra}


P = "services/payments/"
T = "tests/payments/"
TEST = "uv run pytest -q tests/payments/test_retry.py -p randomly -x"

PHASE_ONE: list[dict[str, object]] = [
    {"kind": "name", "name": "Flaky retry backoff in payments"},
    user("Nightly CI failed again on `test_retry_backoff` (3rd time this week). It passes locally for me. "
         "Can you find out why? Don't change the public `charge_with_retry` signature, other teams call it.\n\n"
         "```\nFAILED tests/payments/test_retry.py::test_retry_backoff - AssertionError: assert [0.5, 1.0, 2.0, 2.0] == [0.5, 1.0, 2.0, 4.0]\n```",
         mark="ask1"),
    step("I'll start by reading the retry module and its test.", _read(P + "retry.py", 190), _read(T + "test_retry.py", 120),
         thinking="The sleeps list is off at index 3: 2.0 instead of 4.0. Either the cap is applied wrong or the "
                  "attempt counter is shared between calls. Read both files first."),
    step("", _read(P + "policy.py", 150), _read(P + "clock.py", 90),
         thinking="RetryPolicy is a frozen dataclass but FakeClock keeps a list; check whether the policy holds a "
                  "clock default created once at import time."),
    step("Let me reproduce it with random ordering the way CI runs it.", _test(TEST, 40, 1)),
    step("Reproduced with `-p randomly`. Running it a few more times with different seeds to see if it depends on order.",
         _test(TEST + " -p randomly --randomly-seed=4242", 40, 1), _test(TEST + " -p no:randomly", 41, 0)),
    user("Interesting. Here's the retry panel from Grafana during last night's incident, the spike at 02:10 is when "
         "the gateway was slow.", image=True),
    step("The spike lines up with a burst of retries that all waited 2.0 s instead of backing off further, which is "
         "the same symptom as the test: the delay stops doubling after the third attempt. That points at shared "
         "state rather than the maths.", _read(P + "gateway.py", 160), _read(T + "conftest.py", 110),
         thinking="conftest has a module-scoped fake_clock fixture? If FakeClock is module scoped and another test "
                  "advances it, the deadline check trims the delay. Look at min(cap, ...) and the deadline branch."),
    step("", (("grep", {"pattern": "fake_clock|FakeClock", "path": "tests/"}),
         {"result": "\n".join(f"tests/payments/{f}:{n}: fake_clock" for f, n in
                              [("conftest.py", 14), ("conftest.py", 31), ("test_retry.py", 12), ("test_retry.py", 88),
                               ("test_refunds.py", 40), ("test_settlement.py", 77), ("test_settlement.py", 102)])})),
    step("", _read(T + "test_settlement.py", 170), _read(T + "test_refunds.py", 130)),
    step("Found it. `fake_clock` in `tests/payments/conftest.py` is `scope=\"module\"`, and "
         "`test_settlement.py::test_settle_window` advances it by 61 s. When pytest-randomly runs that test first, "
         "`charge_with_retry` sees `now() - started` already near the deadline and clamps the last delay to the "
         "remaining budget (2.0 s). So the product code is right; the fixture leaks time between tests.",
         thinking="Also check production: RetryPolicy.deadline_s defaults to 10 s, and `started = now()` is read "
                  "before the first attempt, so in prod this only clamps when the gateway itself is slow. That "
                  "matches Grafana: the 2.0 s plateau is the deadline clamp, not a bug in doubling.",
         mark="rootcause"),
    {"kind": "label", "target": "rootcause", "label": "root cause: module-scoped fake_clock"},
    user("Nice. Could we just switch the whole retry module to tenacity instead? Less code to own."),
    step("I can sketch that.", _read("pyproject.toml", 70), mark="tenacity_start"),
    step("Here's what the tenacity version would look like.",
         (("write", {"path": P + "retry_tenacity.py", "content": "\n".join(
             ["from tenacity import retry, stop_after_attempt, wait_exponential", "",
              "@retry(stop=stop_after_attempt(5), wait=wait_exponential(multiplier=0.5, max=8))",
              "def charge_with_retry(request, *, policy=None, now=None):",
              "    return request.send()"] * 6)}), {})),
    step("Running the suite against the tenacity variant.", _test(TEST, 33, 8)),
    user("Hmm, 8 failures and we lose the deadline budget. Let's not. Go back to before the tenacity idea."),
    {"kind": "branch_back", "to": "rootcause", "context": 52_300,
     "summary": "The user explored a different conversation branch before returning here.\nSummary of that "
                "exploration:\n\n## Goal\nTry replacing services/payments/retry.py with tenacity.\n\n## Progress\n"
                "- [x] Wrote services/payments/retry_tenacity.py (not wired in)\n- [x] Ran tests: 8 failed, 33 "
                "passed\n\n## Key Decisions\n- **Abandoned tenacity**: loses the per-request deadline budget "
                "and changes exception types seen by callers.",
     "read": ["pyproject.toml"], "mark": "branched"},
    user("OK, so fix the fixture. Function scope, and make sure nothing else relied on the module scope."),
    step("Changing the fixture scope and checking the other users.",
         _edit(T + "conftest.py", '@pytest.fixture(scope="module")\ndef fake_clock():',
               '@pytest.fixture\ndef fake_clock():'),
         _test("uv run pytest -q tests/payments -p randomly", 118, 3)),
    step("Three failures in `test_settlement.py` relied on time carried over from earlier tests. Reading them.",
         _read(T + "test_settlement.py", 180),
         thinking="test_settle_window and two others assume the clock starts at 61 s. Give them an explicit "
                  "fake_clock.advance(61) in arrange instead of inheriting it."),
    step("", _edit(T + "test_settlement.py", "def test_settle_window(fake_clock, ledger):\n    batch = ",
                   "def test_settle_window(fake_clock, ledger):\n    fake_clock.advance(61)\n    batch = "),
         _edit(T + "test_settlement.py", "def test_late_settle(fake_clock, ledger):\n",
               "def test_late_settle(fake_clock, ledger):\n    fake_clock.advance(61)\n")),
    step("Now I'll refactor `RetryPolicy` so the deadline is computed from an injected start time, and tidy the "
         "gateway adapter while I'm there…", _read(P + "retry.py", 200), stop="aborted", mark="aborted"),
    user("Stop, please don't touch retry.py or the gateway. The product code is fine, only the tests were wrong."),
    step("Understood, I'll leave `services/payments/retry.py` and `gateway.py` untouched. Re-running the payments tests.",
         _test("uv run pytest -q tests/payments -p randomly", 121, 0)),
    {"kind": "bash", "command": "git status --short", "code": 0,
     "output": " M tests/payments/conftest.py\n M tests/payments/test_settlement.py\n?? services/payments/retry_tenacity.py\n"},
    user("Remove the leftover tenacity file. Then run the full suite 20 times with random seeds to be sure."),
    {"kind": "assistant", "text": "", "stop": "error", "no_usage": True,
     "error": "529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"},
    step("Removing the file and starting the 20-seed loop.",
         (("bash", {"command": "rm services/payments/retry_tenacity.py && for s in $(seq 1 20); do uv run pytest -q "
                               "-p randomly --randomly-seed=$s || break; done"}), {"tests": (640, 0)})),
]

# Loops of reading and fixing in other packages, to fill the context the way long sessions do.
for pkg, n in (("refunds", 2), ("settlement", 2), ("invoices", 2), ("ledger", 2), ("webhooks", 1),
               ("fx", 1)):
    PHASE_ONE += [
        user(f"While we're here: does `{pkg}` have the same module-scoped clock problem?"),
        step(f"Checking the `{pkg}` tests and fixtures.", _read(f"tests/{pkg}/conftest.py", 150),
             _read(f"services/{pkg}/core.py", 260)),
        step("", *[_read(f"tests/{pkg}/test_{w}.py", 210) for w in ("core", "edge", "api")[:n]],
             thinking=f"Look for scope=\"module\" or session on time-related fixtures in {pkg}."),
        step(f"`{pkg}` uses a function-scoped clock already; no change needed. Running its tests under random order "
             "to confirm.", _test(f"uv run pytest -q tests/{pkg} -p randomly", 64, 0)),
    ]

PHASE_ONE += [
    user("Great. Now write a regression test that fails if anyone makes `fake_clock` module-scoped again.",
         mark="kept_start"),
    step("I'll add a test that inspects the fixture definition and one that checks the clock starts at zero in "
         "every test.", _read(T + "conftest.py", 120)),
    {"kind": "overflow", "tokens": 131_204,
     "error": "This model's maximum context length is 128000 tokens. However, your messages resulted in 131204 "
              "tokens. Please reduce the length of the messages."},
    {"kind": "compaction", "first_kept": "kept_start", "before": 131_204, "after": 19_400,
     "read": ["pyproject.toml", "services/payments/clock.py", "services/payments/gateway.py",
              "services/payments/policy.py", "tests/payments/test_refunds.py"],
     "modified": ["tests/payments/conftest.py", "tests/payments/test_settlement.py"]},
]

SUMMARY = """## Goal
Find why `tests/payments/test_retry.py::test_retry_backoff` fails in nightly CI (sleeps `[0.5, 1.0, 2.0, 2.0]` instead of `[0.5, 1.0, 2.0, 4.0]`) and fix it without changing the public `charge_with_retry` signature.

## Constraints & Preferences
- Do not change `charge_with_retry`'s signature (other teams call it).
- Do not touch `services/payments/retry.py` or `services/payments/gateway.py`: the product code is correct.
- Tenacity was rejected (loses the per-request deadline budget).

## Progress
### Done
- [x] Root cause: `fake_clock` in `tests/payments/conftest.py` was `scope="module"`; `test_settle_window` advanced it 61 s, so under pytest-randomly the deadline clamp cut the last delay to 2.0 s.
- [x] Made `fake_clock` function-scoped; added explicit `fake_clock.advance(61)` to `test_settle_window` and `test_late_settle`.
- [x] Deleted `services/payments/retry_tenacity.py`.
- [x] 20 random seeds: 640 passed, 0 failed. refunds, settlement, invoices, ledger checked: no module-scoped clocks.

### In Progress
- [ ] Regression test that fails if `fake_clock` becomes module-scoped again.

### Blocked
- (none)

## Key Decisions
- **Fix the tests, not the product**: the 2.0 s plateau seen in Grafana at 02:10 is the deadline clamp working as designed.
- **Function scope for time fixtures**: time must never carry over between tests.

## Next Steps
1. Add `tests/payments/test_fixtures.py` with the scope check and a zero-start check.
2. Run the full suite with `-p randomly` again.
3. Update CHANGELOG.md and open a PR.

## Critical Context
- CI command: `uv run pytest -q -p randomly`
- Failing seed seen locally: `--randomly-seed=4242`
- `RetryPolicy(max_attempts=5, base_s=0.5, cap_s=8.0)`, `deadline_s` defaults to 10 s.

<read-files>
pyproject.toml
services/payments/clock.py
services/payments/gateway.py
services/payments/policy.py
tests/payments/test_refunds.py
</read-files>

<modified-files>
tests/payments/conftest.py
tests/payments/test_settlement.py
</modified-files>"""

PHASE_TWO: list[dict[str, object]] = [
    user("Carry on with the regression test."),
    step("Writing `tests/payments/test_fixtures.py`.",
         (("write", {"path": T + "test_fixtures.py", "content":
                    "import inspect\n\nfrom tests.payments import conftest\n\n\ndef test_fake_clock_is_function_scoped():\n"
                    "    marker = conftest.fake_clock._pytestfixturefunction\n    assert marker.scope == \"function\"\n\n\n"
                    "def test_fake_clock_starts_at_zero(fake_clock):\n    assert fake_clock() == 0.0\n"}), {})),
    step("", _test("uv run pytest -q tests/payments -p randomly", 123, 0), mark="green"),
    {"kind": "label", "target": "green", "label": "tests green"},
    user("Add a CHANGELOG entry and prepare the PR description."),
    step("", _read("CHANGELOG.md", 220)),
    step("Added the entry under *Unreleased → Fixed*.",
         _edit("CHANGELOG.md", "## Unreleased\n", "## Unreleased\n\n### Fixed\n- Flaky `test_retry_backoff`: "
               "`fake_clock` leaked time between tests (module scope).\n")),
]

for area, files in (("docs", ("docs/testing.md", "docs/fixtures.md", "docs/ci.md")),
                    ("ci", (".github/workflows/nightly.yml", ".github/workflows/pr.yml", "noxfile.py")),
                    ("lint", ("ruff.toml", "services/payments/__init__.py", "tests/payments/__init__.py")),
                    ("types", ("mypy.ini", "services/payments/types.py", "services/ledger/types.py")),
                    ("observability", ("services/payments/metrics.py", "dashboards/retries.json", "docs/alerts.md")),
                    ("api", ("services/api/routes.py", "services/api/schemas.py", "tests/api/test_routes.py")),
                    ("security", ("SECURITY.md", "services/payments/secrets.py", "tests/payments/test_secrets.py")),
                    ("release", ("RELEASING.md", "scripts/release.py", "tests/release/test_versions.py"))):
    PHASE_TWO += [
        user(f"Also check the {area} side: anything that documents or depends on the old fixture behaviour?"),
        step(f"Reading the {area} files.", *[_read(f, 300) for f in files],
             thinking=f"Search {area} for fake_clock or 'module' scope notes; update wording if it promises shared time."),
        step(f"Nothing in {area} depends on shared fixture time. Running the quick checks for {area}.",
             _test(f"uv run nox -s {area}", 12, 0)),
    ]

PHASE_TWO += [
    user("Open the PR. Title: \"tests: stop fake_clock leaking time between tests\"."),
    step("", (("bash", {"command": "git switch -c fix/fake-clock-scope && git commit -am 'tests: stop fake_clock "
                                  "leaking time between tests' && gh pr create --fill"}),
         {"result": "Switched to a new branch 'fix/fake-clock-scope'\n[fix/fake-clock-scope 3f9c2ab] tests: stop "
                    "fake_clock leaking time between tests\n 4 files changed, 31 insertions(+), 4 deletions(-)\n"
                    "https://github.com/ledgerline/ledgerline/pull/1287"})),
    step("PR opened: https://github.com/ledgerline/ledgerline/pull/1287. Summary: the flaky failure came from a "
         "module-scoped `fake_clock`; the product retry code is unchanged, the fixture is function-scoped now, two "
         "settlement tests set their own time, and a regression test guards the scope."),
    user("Thanks! One last thing: can you look at why `test_refund_window` takes 6 s?"),
    step("Looking at it.", _read(T + "test_refunds.py", 240), _read("services/refunds/core.py", 260),
         thinking="6 s probably means a real sleep slipped in: refunds.core imports time.sleep directly instead of "
                  "taking the injected sleep."),
]

PHASE_TWO += [
    step("Found it: `services/refunds/core.py` calls `time.sleep` directly in `refund_window` instead of the injected "
         "`sleep`, so the test really sleeps 6 s.", (("grep", {"pattern": "time.sleep", "path": "services/"}),
         {"result": "services/refunds/core.py:142:        time.sleep(delay)\nservices/fx/rates.py:58:    time.sleep(0.1)"})),
    user("Fix refunds the same way the payments retry does it, keep fx as is."),
    step("", _edit("services/refunds/core.py", "        time.sleep(delay)", "        sleep(delay)"),
         _test("uv run pytest -q tests/refunds -p randomly --durations=5", 64, 0)),
    step("`test_refund_window` now takes 0.02 s. Want me to push this to the same PR or a new one?"),
]
