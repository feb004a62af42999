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
    "JournalEntry", "JournalRead", "entries_for", "read_journal", "journal_path",
    "JournalTail", "journal_compaction_id", "journal_end", "read_journal_since",
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
    """No two engine modules share a name (``chain``, ``store``, ``tokens*`` ... once each),
    except a role every agent home has (``agents/<agent>/release.py``, ``parse.py``, ...):
    there the name means the same thing, for that agent."""
    names: dict[str, list[str]] = {}
    for py in ENGINE.rglob("*.py"):
        if py.name != "__init__.py":
            names.setdefault(py.stem, []).append(str(py.relative_to(ENGINE)))

    def home_role(paths: list[str]) -> bool:
        return all(len(Path(p).parts) == 3 and Path(p).parts[0] == "agents" for p in paths)

    assert {k: v for k, v in names.items() if len(v) > 1 and not home_role(v)} == {}


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


# --------------------------------------------------------------------------- agent homes

AGENTS_DIR = ENGINE / "agents"
#: The layers that choose an agent's reader, rule, writer or hook: they ask
#: ``agents.releases`` and import an agent's module on first use, never by name.
GENERIC_LAYERS = ("load", "plan", "persist", "integrate")
#: What of ``agents/`` any layer may import: the list of homes and what a home declares.
AGENT_DATA = ("sessionlens.engine.agents.releases", "sessionlens.engine.agents.home")


def _module_name(py: Path, root: Path) -> str:
    parts = py.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(py: Path, root: Path) -> set[str]:
    """Every module ``py`` imports, anywhere in it (function bodies and TYPE_CHECKING blocks
    included), as full names; ``from package import module`` names the module."""
    name = _module_name(py, root)
    package = name if py.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)
    return out


def _engine_graph(root: Path, top: str) -> dict[str, set[str]]:
    files = {_module_name(py, root): py for py in (root / top.replace(".", "/")).rglob("*.py")}
    return {name: {m for m in _imports(py, root) if m in files and m != name}
            for name, py in files.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_engine_and_gui_import_no_circles() -> None:
    """No module of the engine or of the GUI reaches itself through its imports, counting
    imports inside functions and TYPE_CHECKING blocks: what two modules share lives in a
    module both import."""
    src = ROOT / "engine" / "src"
    assert _circles(_engine_graph(src, "sessionlens.engine")) == []
    gui = ROOT / "gui" / "src"
    assert _circles(_engine_graph(gui, "sessionlens.gui")) == []


def test_each_agent_home_holds_its_reader_rules_and_release() -> None:
    """Every home ``agents.releases`` lists is a package ``agents/<agent>/`` with a
    ``release.py`` naming a pinned version, the formats it reads and their reader in the
    home, and its rules; every module and function it names exists, the agent's own ones in
    its home; every ``rule_*.py`` of a home is one of its rules."""
    import importlib

    from sessionlens.engine.agents.releases import AGENTS, load_named

    homes = {p.name for p in AGENTS_DIR.iterdir() if (p / "__init__.py").exists()}
    assert {"pi", "openclaw", "claude_code", "codex", "gemini", "opencode"} <= homes
    for key, release in AGENTS.items():
        home = f"sessionlens.engine.agents.{key.replace('-', '_')}"
        assert (AGENTS_DIR / key.replace("-", "_") / "release.py").is_file(), key
        assert release.pinned and release.package and release.covers, key
        assert release.readers, f"{key} names no reader"
        refs = [*release.readers.values(), release.writer, release.successor, release.hooks,
                release.settings]
        for rule in release.rules:
            refs += [rule.prepare, rule.find_cut, rule.threshold, rule.finish]
        for ref in filter(None, refs):
            module, _, attribute = ref.partition(":")
            assert module.startswith((f"{home}.", "sessionlens.engine.plan.")), ref
            if attribute:
                assert callable(load_named(ref)) or load_named(ref) is not None, ref
            else:
                importlib.import_module(module)
        named = {r.partition(":")[0].rpartition(".")[2] for r in filter(None, refs)}
        rules = {p.stem for p in (AGENTS_DIR / key.replace("-", "_")).glob("rule_*.py")}
        assert rules <= named, f"{key}: rule modules no release names: {rules - named}"


def test_generic_layers_consult_the_agent_homes_by_name() -> None:
    """load, plan, persist and integrate import nothing of ``agents/`` but the list of homes
    (``agents.releases``) and its types: an agent's reader, rule, writer or hooks is
    imported on first use, from the name its ``release.py`` gives."""
    src = ROOT / "engine" / "src"
    offenders = []
    for layer in GENERIC_LAYERS:
        for py in sorted((ENGINE / layer).rglob("*.py")):
            for m in _imports(py, src):
                if m.startswith("sessionlens.engine.agents") and m != "sessionlens.engine.agents" \
                        and not m.startswith(AGENT_DATA):
                    offenders.append(f"{py.relative_to(ENGINE)}: {m}")
    assert offenders == []


def test_agent_release_modules_import_no_agent_code() -> None:
    """``release.py`` and ``releases.py`` are data: importing the list of homes loads no
    reader, rule, writer or hook."""
    code = ("import sys, sessionlens.engine.agents.releases\n"
            "print(sorted(m for m in sys.modules if m.startswith('sessionlens.engine.')))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    loaded = ast.literal_eval(proc.stdout)
    homes = {f"sessionlens.engine.agents.{p.name}" for p in AGENTS_DIR.iterdir() if p.is_dir()}
    allowed = {*AGENT_DATA, "sessionlens.engine.agents", *homes, *(f"{h}.release" for h in homes)}
    assert set(loaded) - allowed == set()
