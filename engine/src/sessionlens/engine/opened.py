"""One opened transcript: its compaction settings resolved once, and the figures every face shows.

Users saw one screen say two things: the header's window against the chart's, a preview's
"predicted after" against the Accept dialog's, ``plan`` keeping 67 entries while ``compact``
kept none. The cause was that each face resolved settings and derived numbers its own way.
Here that happens once: ``resolve_settings`` decides the window, reserve, keep-recent and cut
rule (each with the source that won, in words), ``OpenedTranscript.plan`` plans with exactly
those, and ``figures`` names every number a user sees. The CLI's ``plan``/``compact`` and
every GUI widget read these and nothing else.

The window's sources, first match wins:
1. the user's explicit value (a command-line flag, the app's settings);
2. ``agents.defaults.contextTokens`` in the ``openclaw.json`` that governs the transcript;
3. the session's ``contextTokens`` in OpenClaw's ``sessions.json`` beside the transcript (the
   window OpenClaw itself last used for it);
4. a window the transcript's own provider errors state for its model ("maximum context
   length is N", "Range of input length should be [1, N]");
5. the model's known window (``settings.MODEL_CONTEXT_WINDOWS``), for the model of the last
   real assistant turn, model change or header;
6. 128,000 when the model is unknown.
A reported usage above the chosen window is a warning: the window is then surely wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.record import CompactionRecord
from sessionlens.engine.persist.successor import (
    PI_FORMATS,
    planned_retry_copies,
    successor_kept_back,
)
from sessionlens.engine.plan.compaction_plan import CompactionPlan
from sessionlens.engine.plan.context_size import recorded_window
from sessionlens.engine.plan.cutpoints import usage_context
from sessionlens.engine.plan.fit import not_smaller_note
from sessionlens.engine.plan.overflow import stated_window
from sessionlens.engine.plan.planner import plan_compaction
from sessionlens.engine.plan.rules import (
    CUT_RULES,
    default_cut_rule,
    file_agent,
    rule_label,
    rule_note,
)
from sessionlens.engine.sessions.store_row import (
    RESERVE_WINDOW_SHARE,
    budget_status,
    is_store_session,
    store_row,
)
from sessionlens.engine.settings import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_SETTINGS,
    CompactionSettings,
    find_openclaw_config,
    known_context_window,
    load_openclaw_settings,
)
from sessionlens.engine.tokens.counts import pi_tokens, reported_usage_entry
from sessionlens.engine.tokens.estimate import estimate_tokens_from_chars
from sessionlens.engine.tokens.token_report import TokenReport

__all__ = [
    "FIGURE_LABELS", "Figures", "OpenedTranscript", "Overrides", "ResolvedSettings", "Setting",
    "agent_model", "config_for", "figures_of", "open_transcript", "resolve_settings",
    "store_beside_for", "store_window_for",
]


@dataclass(frozen=True, slots=True)
class Setting:
    """One resolved setting: its value and, in words, where that value came from."""

    value: int | str
    source: str


@dataclass(frozen=True, slots=True)
class Overrides:
    """What the user set explicitly; None leaves a setting to the config and the defaults."""

    context_window: int | None = None
    reserve_tokens: int | None = None
    reserve_tokens_floor: int | None = None
    #: 0 asks for a hard boundary (nothing kept), as OpenClaw's manual /compact without it.
    keep_recent_tokens: int | None = None
    cut_rule: str | None = None
    #: How the sources name the user's values ("command line", "app settings").
    origin: str = "command line"


@dataclass(frozen=True, slots=True)
class ResolvedSettings:
    """The settings every plan and figure of one transcript uses, decided once."""

    #: Complete settings (window filled in): what ``plan_compaction`` receives.
    settings: CompactionSettings
    context_window: Setting
    #: The effective reserve (``reserveTokens`` raised to the capped floor).
    reserve_tokens: Setting
    keep_recent_tokens: Setting
    cut_rule: Setting
    threshold: int
    warnings: tuple[str, ...] = ()

    @property
    def window(self) -> int:
        return int(self.context_window.value)

    @property
    def hard_boundary(self) -> bool:
        return self.keep_recent_tokens.value == 0

    def rows(self) -> tuple[tuple[str, Setting], ...]:
        """(label, setting) in display order, for the CLI's text and the GUI's header."""
        return (("window", self.context_window), ("reserve", self.reserve_tokens),
                ("keep recent", self.keep_recent_tokens), ("cut rule", self.cut_rule))


def agent_model(transcript: Transcript) -> tuple[str | None, str, str] | None:
    """(provider, model, where it was found) of the model the agent ended on, or None."""
    for entry in reversed(transcript.path_entries()):
        msg = entry.message
        # Claude Code marks locally made assistant rows (API errors) with "<synthetic>"
        if msg is not None and msg.role == "assistant" and msg.model and msg.model[0] != "<":
            return msg.provider, msg.model, f"the last assistant turn ({entry.id})"
        if entry.type == "model_change" and entry.model_id:
            return entry.provider, entry.model_id, f"the model change {entry.id}"
    header = transcript.header
    if header is not None and header.model_id:
        return header.provider, header.model_id, "the session header"
    return None


def _stated_window(transcript: Transcript, model: str | None) -> tuple[int, str] | None:
    """The newest window a provider error of the agent's model states, with its entry."""
    for entry in reversed(transcript.path_entries()):
        msg = entry.message
        if msg is None or msg.role != "assistant" or msg.stop_reason != "error":
            continue
        if model is not None and msg.model not in (None, model):
            continue
        window = stated_window(msg.error_message)
        if window is not None:
            return window, entry.id
    return None


def _recorded_window(transcript: Transcript) -> Setting | None:
    """The newest window the file itself records (``extra["context_window"]`` of an entry,
    e.g. Codex's ``model_context_window``), before any model table or default."""
    recorded = recorded_window(transcript.path_entries())
    if recorded is not None:
        value, entry = recorded
        what = entry.extra.get("codex_type") or entry.type
        return Setting(value, f"recorded in the file ({what}, entry {entry.id})")
    header = transcript.header
    in_header = header.extra.get("context_window") if header is not None else None
    if isinstance(in_header, int) and not isinstance(in_header, bool) and in_header > 0:
        assert header is not None
        return Setting(in_header, str(header.extra.get("context_window_source") or "the header"))
    return None


def _window(transcript: Transcript, overrides: Overrides, config: CompactionSettings,
            store_window: Setting | None) -> Setting:
    if overrides.context_window is not None:
        return Setting(overrides.context_window, overrides.origin)
    if config.context_window:
        return Setting(int(config.context_window),
                       f"agents.defaults.contextTokens in {config.source or 'openclaw.json'}")
    if store_window is not None:
        return store_window
    recorded = _recorded_window(transcript)
    if recorded is not None:
        return recorded
    model = agent_model(transcript)
    if model is not None and config.model_windows:
        key = f"{model[0]}/{model[1]}"
        listed = dict(config.model_windows).get(key)
        if listed is not None:
            return Setting(listed, f"contextWindow of {key} in "
                           f"{config.model_windows_source or 'the agent models list'}")
    stated = _stated_window(transcript, model[1] if model else None)
    if stated is not None:
        return Setting(stated[0], f"stated by the provider's error in entry {stated[1]}")
    if model is not None:
        known = known_context_window(model[0], model[1])
        if known is not None:
            return Setting(known, f"the known window of {model[1]} (from {model[2]})")
        return Setting(DEFAULT_CONTEXT_WINDOW, f"default: {model[1]} (from {model[2]}) is not "
                       "a model SessionLens knows; set the window if it differs")
    return Setting(DEFAULT_CONTEXT_WINDOW, "default: the transcript names no model")


def _default_rule(transcript: Transcript, store_beside: bool) -> tuple[str, str, str]:
    """(rule, source, agent): the rule of the agent that wrote the file."""
    guess = file_agent(transcript, store_beside=store_beside)
    rule = default_cut_rule(transcript, store_beside=store_beside)
    return rule, f"{rule_label(rule, guess.agent)}: {guess.reason}", guess.agent


def resolve_settings(transcript: Transcript, overrides: Overrides = Overrides(),
                     config: CompactionSettings = DEFAULT_SETTINGS,
                     store_window: Setting | None = None,
                     store_beside: bool = False) -> ResolvedSettings:
    """Decide every compaction setting for ``transcript`` once (pure: ``config`` is the
    already-read ``openclaw.json`` settings, or the built-in defaults; ``store_window`` the
    session's ``contextTokens`` from ``sessions.json``, see ``store_window_for``)."""
    cfg_name = config.source or "openclaw.json"
    window = _window(transcript, overrides, config, store_window)
    changes: dict[str, object] = {"context_window": int(window.value)}
    if overrides.reserve_tokens is not None:
        changes["reserve_tokens"] = overrides.reserve_tokens
    if overrides.reserve_tokens_floor is not None:
        changes["reserve_tokens_floor"] = overrides.reserve_tokens_floor
    if overrides.keep_recent_tokens is not None:
        changes["keep_recent_tokens"] = overrides.keep_recent_tokens
    rule, rule_source, agent = _default_rule(transcript, store_beside)
    if overrides.cut_rule is not None:
        rule = overrides.cut_rule
        rule_source = f"{rule_label(rule, agent)}, {overrides.origin}"
    elif config.source is not None and config.cut_rule is not None:
        rule, rule_source = config.cut_rule, f"{rule_label(config.cut_rule, agent)}, {cfg_name}"
    changes["cut_rule"] = rule
    store_session = is_store_session(transcript)
    if store_session:  # OpenClaw 2026.8+: the reserve is capped at a quarter of the window
        changes["reserve_window_share"] = RESERVE_WINDOW_SHARE
    settings = replace(config, **changes)  # type: ignore[arg-type]
    win = int(window.value)
    reserve = settings.reserve_for(win)

    def source(name: str, default_text: str) -> str:
        if getattr(overrides, name) is not None:
            return overrides.origin
        if config.source is not None and getattr(config, name) != getattr(DEFAULT_SETTINGS, name):
            return cfg_name
        return default_text

    reserve_src = source("reserve_tokens", f"default reserveTokens {settings.reserve_tokens:,}")
    if store_session and reserve != settings.reserve_tokens:
        reserve_src += (f", raised to the floor {settings.reserve_tokens_floor:,} and capped at "
                        f"a quarter of the window ({reserve:,}), as OpenClaw 2026.8+ does")
        status = budget_status(transcript)
        if status is not None and status[0] == win:
            reserve_src += (f"; the session row's contextBudgetStatus says reserve "
                            f"{status[1]:,}, prompt budget {status[2]:,}")
    elif reserve != settings.reserve_tokens:
        reserve_src += (f", raised to the floor {settings.reserve_tokens_floor:,}"
                        if reserve == settings.reserve_tokens_floor
                        else f", raised to {reserve:,} (floor capped for this window)")
    keep_src = source("keep_recent_tokens", "default keepRecentTokens (OpenClaw)")
    if settings.keep_recent_tokens == 0:
        keep_src += ": a hard boundary, nothing before the compaction is kept"
    warnings: list[str] = []
    current = agent_model(transcript)
    peak = max(((usage_context(e) or 0, e.id) for e in transcript.path_entries()
                if current is None or e.message is None or e.message.model in (None, current[1])),
               default=(0, ""))
    if settings.threshold(win) <= 0:
        warnings.append(f"the reserve {reserve:,} ({reserve_src}) is not below the window "
                        f"{win:,} ({window.source}): the threshold would be "
                        f"{settings.threshold(win):,}, so every turn would compact; set them")
    if peak[0] > win:
        warnings.append(f"reported usage reached {peak[0]:,} tokens in entry {peak[1]}, above "
                        f"the window of {win:,} ({window.source}): the real window is larger; "
                        "set it")
    if rule not in CUT_RULES:
        warnings.append(f"unknown cut rule {rule!r}")
    note = rule_note(rule, agent)
    if note:
        warnings.append(note)
    return ResolvedSettings(settings, window, Setting(reserve, reserve_src),
                            Setting(settings.keep_recent_tokens, keep_src),
                            Setting(rule, rule_source), settings.threshold(win), tuple(warnings))


def config_for(path: Path | str) -> CompactionSettings:
    """The agent settings that govern the transcript at ``path`` (I/O).

    A file in pi's ``<agentDir>/sessions/--<cwd>--/`` folder whose agent folder holds a
    ``settings.json`` or ``models.json`` follows pi's own settings (``agents.pi.pi_settings``: reserve,
    keepRecentTokens, the model's window, no reserve floor). A transcript inside an OpenClaw
    state folder (``<state>/agents/<id>/sessions/``) follows that folder's ``openclaw.json``;
    any other follows this machine's (``$OPENCLAW_CONFIG_PATH``, ``$OPENCLAW_STATE_DIR``,
    ``~/.openclaw``, legacy ``~/.clawdbot``). Built-in defaults when there is none. A broken
    config raises ``ConfigError`` naming file and line.
    """
    from sessionlens.engine.agents.pi.pi_settings import load_pi_settings, pi_agent_dir

    pi_dir = pi_agent_dir(path)
    if pi_dir is not None:
        return load_pi_settings(path, pi_dir)
    folder = Path(path).absolute().parent
    state: Path | None = None
    if folder.parent.parent.name == "agents" and folder.name == "sessions":
        state = folder.parent.parent.parent
    elif folder.name == "openclaw-agent.sqlite" and folder.parent.name == "agent" \
            and folder.parent.parent.parent.name == "agents":  # <db>/<session> of the store
        state = folder.parent.parent.parent.parent
    if state is not None and find_openclaw_config(state) is not None:
        return load_openclaw_settings(state)
    return load_openclaw_settings()


def store_window_for(transcript: Transcript, store_path: Path | None = None) -> Setting | None:
    """The session's ``contextTokens`` in the ``sessions.json`` beside it (or ``store_path``),
    as a window source; None when there is no store, no record or no number (I/O). A store
    that cannot be read is no source (``inspect``/``audit`` report the store themselves)."""
    from sessionlens.engine.errors import LoadError
    from sessionlens.engine.lineage.flush_store import session_record
    from sessionlens.engine.lineage.flush_turns import store_flush_record

    row = store_row(transcript)
    if row is not None:
        window = row.get("contextTokens")
        key = transcript.header.extra.get("session_key") if transcript.header else None
        if isinstance(window, int) and window > 0:
            return Setting(window, f"contextTokens of {key} in the session store")
        return None
    try:
        record = session_record(transcript, store_path)
    except LoadError:
        return None
    if record is None:
        return None
    window = store_flush_record(record).context_window
    if not window:
        return None
    return Setting(int(window), f"contextTokens of {record.session_key} in sessions.json")


# --------------------------------------------------------------------------- figures

#: One label per figure, used by the CLI's text and every GUI widget.
FIGURE_LABELS: dict[str, str] = {
    "context_window": "window",
    "threshold": "threshold",
    "context_tokens": "context",
    "tokens_before": "tokens before",
    "first_kept_entry_id": "first kept",
    "entries_summarized": "entries summarized",
    "kept_tokens": "kept tokens",
    "summary_budget_tokens": "summary budget",
    "predicted_tokens_after": "predicted after",
    "tokens_after": "tokens after",
}


@dataclass(frozen=True, slots=True)
class Figures:
    """The numbers of one planned compaction, each computed once, named by ``FIGURE_LABELS``."""

    context_window: int
    threshold: int
    #: What the threshold is checked against: the last reported usage plus estimates of
    #: what came after it, else pi's estimate of the whole context.
    context_tokens: int
    context_source: Literal["reported", "reported + estimated", "estimated"]
    should_compact: bool
    tokens_before: int
    #: The cut: the first entry that stays verbatim (None: a hard boundary).
    first_kept_entry_id: str | None
    #: Entries of the region the new summary stands in for.
    entries_summarized: int
    #: Estimate of what stays verbatim once written as a successor (the cut onward, plus the
    #: last summarized assistant turn a successor keeps back).
    kept_tokens: int
    summary_budget_tokens: int
    #: Kept tokens plus the summary at its full budget: an upper estimate before any run.
    predicted_tokens_after: int

    @property
    def not_smaller_note(self) -> str | None:
        """The sentence saying this plan saves nothing (predicted after >= before), or None."""
        return not_smaller_note(self.tokens_before, self.predicted_tokens_after,
                                self.entries_summarized)


def figures_of(transcript: Transcript, plan: CompactionPlan,
               tokens: TokenReport | None = None) -> Figures:
    """The figures of ``plan``. For writable formats the kept part is what a successor keeps:
    plus the last summarized assistant turn it keeps back, minus the unanswered copies of a
    retry storm it leaves out (sender ids are read from the file's lines)."""
    kept = int(plan.kept_tokens)
    if transcript.format in PI_FORMATS and not plan.hard_boundary:
        def estimate(entry_id: str) -> int:
            return pi_tokens(transcript, transcript.entry(entry_id), tokens)

        kept += sum(estimate(i) for i in successor_kept_back(transcript, plan.first_kept_entry_id))
        # the unanswered copies of a retry storm a successor leaves out (reads sender ids)
        record = CompactionRecord(summary="", first_kept_entry_id=plan.first_kept_entry_id,
                                  tokens_before=0)
        kept -= sum(estimate(i) for c in planned_retry_copies(transcript, record)
                    for i in c.dropped_ids if i in transcript.index)
    budget = int(plan.summary_budget_tokens) + int(plan.turn_prefix_budget_tokens)
    usage_entry = reported_usage_entry(transcript)
    if usage_entry is None:
        source: Literal["reported", "reported + estimated", "estimated"] = "estimated"
    elif usage_context(usage_entry) == plan.context_tokens:
        source = "reported"
    else:
        source = "reported + estimated"
    return Figures(
        context_window=int(plan.context_window), threshold=int(plan.threshold),
        context_tokens=int(plan.context_tokens),
        context_source=source,
        should_compact=bool(plan.should_compact), tokens_before=int(plan.tokens_before),
        first_kept_entry_id=plan.first_kept_entry_id,
        entries_summarized=len(plan.summarized_entry_ids), kept_tokens=kept,
        summary_budget_tokens=budget, predicted_tokens_after=kept + budget)


def summary_tokens(summary: str) -> int:
    """A summary's size the way the agent's estimator will see it (chars / 4)."""
    return estimate_tokens_from_chars(len(summary))


# --------------------------------------------------------------------------- the object

@dataclass(frozen=True, slots=True)
class OpenedTranscript:
    """A loaded transcript with its settings resolved once; plans and figures come from here."""

    transcript: Transcript
    resolved: ResolvedSettings
    tokens: TokenReport | None = None

    def plan(self, *, cut_entry_id: str | None = None) -> CompactionPlan:
        """The compaction plan under the resolved settings (``PlanError`` if nothing to do)."""
        s = self.resolved.settings
        if s.keep_recent_tokens == 0 and cut_entry_id is None:
            return plan_compaction(self.transcript, s, tokens=self.tokens, manual=True)
        return plan_compaction(self.transcript, s, tokens=self.tokens,
                               cut_entry_id=cut_entry_id,
                               keep_recent_tokens=s.keep_recent_tokens)

    def figures(self, plan: CompactionPlan) -> Figures:
        return figures_of(self.transcript, plan, self.tokens)

    def with_tokens(self, tokens: TokenReport) -> OpenedTranscript:
        return replace(self, tokens=tokens)


def open_transcript(path: Path | str, overrides: Overrides = Overrides(), *,
                    config: CompactionSettings | None = None,
                    store_path: Path | None = None) -> OpenedTranscript:
    """Load ``path`` and resolve its settings (``config`` None: read its ``openclaw.json``;
    the session's record in ``sessions.json``, beside it or at ``store_path``, is read too)."""
    transcript = load_transcript(path)
    cfg = config_for(transcript.path) if config is None else config
    return OpenedTranscript(transcript, resolve_settings(
        transcript, overrides, cfg, store_window_for(transcript, store_path),
        store_beside_for(transcript, store_path)))


def store_beside_for(transcript: Transcript, store_path: Path | None = None) -> bool:
    """Whether an OpenClaw ``sessions.json`` sits beside the transcript (evidence it is an
    OpenClaw file, for the rule that follows the file's agent)."""
    from sessionlens.engine.persist.store_write import find_store

    return store_path is not None or find_store(transcript.path.absolute().parent) is not None

