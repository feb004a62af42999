"""The engine/GUI boundary, checked on every test run (CI runs this file too)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine" / "src" / "sessionlens" / "engine"


def test_engine_imports_without_qt() -> None:
    """Importing every engine module must not pull in Qt."""
    code = (
        "import sys, importlib, pkgutil, sessionlens.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'sessionlens.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "names = list(e.__all__)\n"
        "[getattr(e, n) for n in names]\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'qasync', 'pyqtgraph')]\n"
        "print(len(names)); sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


#: What no command pays for before it needs it: the event loop and sockets (summarizing),
#: the tokenizer (counting), the HTTP client, worker processes (a big search update).
LAZY_MODULES = ("asyncio", "ssl", "socket", "subprocess", "multiprocessing", "httpx",
                "tiktoken")


def test_heavy_dependencies_are_imported_where_first_used() -> None:
    """Importing the engine and building the command line's parser loads none of them
    (``asyncio`` alone, with ssl and sockets, was ~50 ms of every ``inspect``)."""
    code = (
        "import sys, sessionlens.engine, sessionlens.engine.cli as cli\n"
        "cli.build_parser()\n"
        f"print([m for m in {LAZY_MODULES!r} if m in sys.modules])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_import_linter_contract_holds() -> None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed")
    proc = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "KEPT" in proc.stdout


def test_gui_imports_only_public_engine_names() -> None:
    """The GUI may import ``sessionlens.engine`` itself, never its submodules."""
    offenders = []
    for py in (ROOT / "gui" / "src").rglob("*.py"):
        for n, line in enumerate(py.read_text(encoding="utf-8").splitlines(), 1):
            s = line.strip()
            if s.startswith(("from sessionlens.engine.", "import sessionlens.engine.")):
                if "sessionlens.engine.cli" in s and py.name == "__main__.py":
                    continue  # the headless dispatch, before any Qt import
                offenders.append(f"{py.relative_to(ROOT)}:{n}: {s}")
    assert offenders == []


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    marker = "<!-- test-command -->"
    assert marker in readme
    block = readme.split(marker, 1)[1].split("```", 2)[1]
    command = block.removeprefix("bash").strip()
    assert command in ci


#: The engine's public face, pinned (httpx's exported-members test does the same): a name
#: added to or dropped from ``sessionlens.engine.__all__`` must be added or dropped here too.
EXPECTED_PUBLIC_NAMES = sorted(EXPECTED_PUBLIC := (
    "AuditError", "AuditGateError", "ConfigError", "ContextOverflowError", "ExportError", "FileChangedError",
    "LoadCancelled", "LoadError", "LockHeldError", "NotATranscriptError", "NothingToCompact",
    "PersistError",
    "PlanError", "ProviderAuthError", "ProviderError", "ProviderTimeoutError",
    "ProviderUnavailableError", "SecondSuccessorError", "SessionLensError",
    "SummarizationCancelled",
    "CompactionSettings", "DEFAULT_SETTINGS", "Diagnostic", "Entry", "ImageBlock", "Transcript",
    "context_window_for_model",
    "FIGURE_LABELS", "Figures", "OpenedTranscript", "Overrides", "ResolvedSettings", "Setting",
    "config_for", "open_transcript", "resolve_settings", "store_beside_for",
    "store_window_for",
    "SessionInfo", "build_transcript", "children_of", "default_session_dirs",
    "discover_sessions", "load_transcript",
    "CHARS_PER_TOKEN", "ContextPoint", "ENCODING_NAMES", "EntryTokens", "TokenReport",
    "context_series", "count_tokens", "ensure_tiktoken_data", "get_encoding",
    "count_context_tokens", "outside_transcript", "use_count_cache", "user_folders",
    "CompactionPlan", "is_context_overflow", "plan_compaction", "plan_rerun",
    "PruningDelay", "pruning_delay",
    "ChatMessage", "Completion", "CompletionRequest", "DeltaCallback", "IDENTIFIER_POLICIES",
    "IdentifierPolicy", "PROVIDER_KINDS", "ProviderKind",
    "OFFLINE_PROFILE", "OfflineProvider", "OutboundPrompt", "ProgressEvent", "Provider",
    "ProviderProfile", "RetryPolicy", "SummaryResult", "TEMPLATES", "build_provider",
    "find_secrets", "keyring_available", "preview_prompts", "redact", "serialize_entries",
    "store_api_key", "summarize_plan", "redact_prompts",
    "AuditHeadline", "AuditReport", "CLASS_TITLES", "RecoveryPack", "audit_compaction", "audit_summary",
    "build_recovery_pack", "ChainAudit", "audit_every_compaction",
    "audit_compaction_in_chain",
    "CompactionOptions", "CompactionOutcome", "PlannedFile", "WritePlan", "compaction_record",
    "prepare_write", "run_compaction", "tokens_after", "write_prepared",
    "PinPlace", "PinSet", "SummaryProvenance", "UndoPlan", "add_pins", "audit_edit",
    "edited_outcome", "load_pins", "place_pins", "plan_undo", "remove_pins", "undo_compaction",
    "CHECKPOINT_MARK", "CompactionRecord", "WRITE_MODES", "WriteMode", "WriteResult", "atomic_write_text", "find_store",
    "require_writable", "restore_checkpoint", "RestorePlan", "plan_restore", "write_compaction",
    "EXPORT_FORMATS", "ExportFormat", "export_schema", "export_summary", "make_bundle",
    "export_transcript", "bundle_for_compaction",
    "BranchOutline", "CompactionForensics", "DiffEntry", "DriftReport", "Lineage",
    "LineageDiff", "LineageNode", "OutlineNode", "SummaryPoint", "analyze_compactions",
    "analyze_drift", "branch_outline", "build_chain", "build_lineage",
    "compare_points", "point_transcript", "FactTrace", "describe_trace", "trace_fact",
    "load_chain_transcripts",
    "CompactionHealth", "HEALTH_FLAG_TEXT", "MemoryHealth", "examine_memory", "memory_health",
    "IDLE_SECONDS", "LiveBoard", "LiveEvent", "LiveGauge", "NextCut", "THRESHOLD_NEAR_FRACTION",
    "event_json", "next_cut", "AGENT_NAMES",
    "EmbeddingsClient", "HitFate", "IndexStats", "IndexSummary", "SearchHit", "SearchIndex",
    "SearchResults", "search_index_dir",
    "JournalEntry", "JournalRead", "entries_for", "read_journal",
    "INTEGRATION_AGENTS", "FileChange", "apply_changes", "plan_changes",
    "FleetReport", "FleetRun", "RowCache", "SessionFailure", "SessionRow", "aggregate_fleet",
    "run_fleet", "write_fleet_html",
))


def _engine_init() -> ast.Module:
    return ast.parse((ENGINE / "__init__.py").read_text(encoding="utf-8"))


def test_public_names_are_pinned() -> None:
    import importlib

    import sessionlens.engine as engine

    assert sorted(engine.__all__) == EXPECTED_PUBLIC_NAMES
    assert len(set(EXPECTED_PUBLIC)) == len(EXPECTED_PUBLIC)
    for name in engine.__all__:  # each resolves, lazily, to the very object of its module
        home = importlib.import_module(engine._HOME_OF[name], engine.__name__)
        assert getattr(engine, name) is getattr(home, name), name
    assert set(engine.__all__) <= set(dir(engine))
    with pytest.raises(AttributeError, match="no attribute 'load_transcripts'"):
        engine.load_transcripts  # noqa: B018 - a typo of a public name is an AttributeError


def _type_checking_block(tree: ast.Module) -> ast.If:
    return next(n for n in tree.body if isinstance(n, ast.If)
                and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING")


def test_public_face_is_static() -> None:
    """``__all__`` is a literal list; type checkers see every name through a plain import
    under ``TYPE_CHECKING``, and ``_HOMES``, the interpreter's map, says exactly the same
    (the face is lazy, not dynamic: no name is made up at run time)."""
    tree = _engine_init()
    literal = next(n for n in tree.body if isinstance(n, ast.Assign)
                   and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets))
    assert isinstance(literal.value, ast.List)
    assert all(isinstance(e, ast.Constant) for e in literal.value.elts)
    block = _type_checking_block(tree)
    assert all(isinstance(n, ast.ImportFrom) for n in block.body)
    imported = {a.asname or a.name: "." * n.level + (n.module or "")
                for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert {e.value for e in literal.value.elts} == set(imported)
    homes = next(n for n in tree.body if isinstance(n, ast.AnnAssign)
                 and isinstance(n.target, ast.Name) and n.target.id == "_HOMES")
    table = ast.literal_eval(homes.value)  # a literal: fails on anything computed
    assert {name: module for module, names in table.items() for name in names} == imported
    assert not any(isinstance(n, ast.FunctionDef) for n in tree.body)


def test_a_command_imports_only_what_it_uses() -> None:
    """Importing the engine imports none of its modules; parsing ``inspect`` imports its own,
    never those of search, summarizing, auditing, writing a compaction or exporting."""
    code = (
        "import sys, sessionlens.engine\n"
        "print(sorted(m for m in sys.modules if m.startswith('sessionlens')))\n"
        "import sessionlens.engine.cli as cli\n"
        "cli.build_parser('inspect')\n"
        "print(sorted({m.split('.')[2] for m in sys.modules"
        " if m.startswith('sessionlens.engine.')}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    face, used = proc.stdout.splitlines()
    assert face == "['sessionlens', 'sessionlens.engine']"
    assert {"load", "tokens", "cli"} <= set(ast.literal_eval(used))
    assert not {"search", "summarize", "compaction", "export", "secrets"} & set(
        ast.literal_eval(used))


def test_gui_imports_only_listed_public_names() -> None:
    import sessionlens.engine as engine

    offenders = []
    for py in (ROOT / "gui" / "src").rglob("*.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "sessionlens.engine":
                offenders += [f"{py.name}: {a.name}" for a in node.names
                              if a.name not in engine.__all__]
    assert offenders == []


def test_engine_module_names_mean_one_thing() -> None:
    """No two engine modules share a name (``chain``, ``store``, ``tokens*`` ... once each)."""
    names: dict[str, list[str]] = {}
    for py in ENGINE.rglob("*.py"):
        if py.name != "__init__.py":
            names.setdefault(py.stem, []).append(str(py.relative_to(ENGINE)))
    assert {k: v for k, v in names.items() if len(v) > 1} == {}


def test_engine_package_reads_as_the_data_flow() -> None:
    """At most 12 modules directly in the engine package; the rest live in the stage folders."""
    top = sorted(p.name for p in ENGINE.glob("*.py"))
    assert len(top) <= 12, top
    folders = {p.name for p in ENGINE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"load", "sessions", "tokens", "plan", "contract", "summarize", "audit", "persist",
            "export", "lineage", "cli"} <= folders


def test_engine_tests_never_import_qt() -> None:
    """The engine-only run (``tests/engine``, ``tests/conftest.py`` and the shared fixtures)
    imports no Qt and no GUI: only ``tests/fixtures/qt_*.py`` may (ruff's TID251 ignore in
    pyproject.toml follows that name), and only the GUI tests import those."""
    qt = ("PySide6", "shiboken6", "qasync", "pyqtgraph", "sessionlens.gui", "fixtures.qt_")
    tests = ROOT / "tests"
    files = [tests / "conftest.py", *sorted((tests / "engine").rglob("*.py")),
             *(p for p in sorted((tests / "fixtures").glob("*.py")) if not p.name.startswith("qt_"))]
    offenders = []
    for py in files:
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{py.relative_to(ROOT)}: {n}" for n in names if n.startswith(qt)]
    assert offenders == []
