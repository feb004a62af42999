"""The one error hierarchy of the engine.

Every failure the engine reports to a caller is a subclass of ``SessionLensError``;
callers (GUI, CLI) catch that one name and show ``str(exc)``, which always says what
went wrong and, where there is one, which file and line.

    SessionLensError
    ├── LoadError                 a file could not be read as a transcript at all
    │   ├── NotATranscriptError   readable, but no known transcript format
    │   └── LoadCancelled         the caller cancelled a load in progress
    ├── ConfigError               bad settings, profile or OpenClaw config
    ├── PlanError                 an impossible cut or rule
    │   └── NothingToCompact      a normal answer: already compacted, or all of it is kept
    ├── ProviderError             a summarization call failed for good
    │   ├── ProviderAuthError     missing or rejected key
    │   ├── ProviderTimeoutError  the provider did not answer in time
    │   ├── ProviderUnavailableError  rate-limited / overloaded / 5xx (may carry retry_after)
    │   └── ContextOverflowError  the provider said the input is too long
    ├── SummarizationCancelled    the user cancelled a run (never retried)
    ├── PersistError              writing a file failed; nothing was changed
    │   ├── LockHeldError         a live process holds the transcript's .jsonl.lock
    │   ├── FileChangedError      the transcript changed between load and write
    │   ├── AuditGateError        the summary failed its audit; nothing was written
    │   └── SecondSuccessorError  the original already has a successor (one continuation)
    ├── ExportError               an export could not be produced
    ├── AuditError                nothing to audit (no such compaction, none in the file)
    └── ScopeError                a session outside the folders a read-only face may answer about
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AuditError",
    "AuditGateError",
    "ConfigError",
    "ContextOverflowError",
    "ExportError",
    "FileChangedError",
    "LoadCancelled",
    "LoadError",
    "LockHeldError",
    "NotATranscriptError",
    "NothingToCompact",
    "PersistError",
    "PlanError",
    "SecondSuccessorError",
    "ProviderAuthError",
    "ProviderError",
    "ProviderTimeoutError",
    "ProviderUnavailableError",
    "ScopeError",
    "SessionLensError",
    "SummarizationCancelled",
]


class SessionLensError(Exception):
    """Base of every error the engine raises on purpose."""


class LoadError(SessionLensError):
    """A path could not be loaded as a transcript at all (missing, a directory, unreadable)."""

    def __init__(self, path: Path | str, reason: str, line: int | None = None) -> None:
        self.path = Path(path)
        self.reason = reason
        self.line = line
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        super().__init__(f"{where}: {reason}")


class NotATranscriptError(LoadError):
    """The file is readable but matches no known transcript format."""


class LoadCancelled(LoadError):
    """The caller's ``cancel()`` returned True while the file was being read."""


class ConfigError(SessionLensError):
    """Settings, a provider profile or an OpenClaw config file is invalid."""


class PlanError(SessionLensError):
    """A compaction cannot be planned (already compacted, nothing to summarize, bad cut)."""


class NothingToCompact(PlanError):
    """There is nothing to compact: the path ends in a compaction, has no messages after the
    last one, or the keep-recent tail holds all of it. A normal answer, not a failure: the
    command line prints it and exits 0. ``warnings`` say what the user must still hear
    (the session cannot fit its window)."""

    def __init__(self, message: str, warnings: tuple[str, ...] = ()) -> None:
        self.warnings = warnings
        super().__init__(message)


class ProviderError(SessionLensError):
    """A summarization request failed after its retries (and fallbacks, if any)."""

    def __init__(self, message: str, *, status: int | None = None, provider: str = "",
                 model: str = "", retryable: bool = False) -> None:
        self.status = status
        self.provider = provider
        self.model = model
        self.retryable = retryable
        super().__init__(message)


class ProviderAuthError(ProviderError):
    """The provider needs a key that is missing, or rejected the one given."""


class ProviderTimeoutError(ProviderError):
    """The provider did not answer within the profile's timeout."""


class ProviderUnavailableError(ProviderError):
    """Rate-limited, overloaded or a server error: worth retrying, after ``retry_after`` if given."""

    def __init__(self, message: str, *, status: int | None = None, provider: str = "",
                 model: str = "", retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message, status=status, provider=provider, model=model, retryable=True)


class ContextOverflowError(ProviderError):
    """The provider reported that the request exceeds the model's context window."""


class SummarizationCancelled(SessionLensError):
    """The user cancelled a summarization run; nothing was written."""


class PersistError(SessionLensError):
    """Writing a successor, checkpoint, store or export failed; originals are untouched."""

    def __init__(self, path: Path | str, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class LockHeldError(PersistError):
    """The transcript's ``.jsonl.lock`` is held by a live process."""


class FileChangedError(PersistError):
    """The transcript on disk differs from the one that was loaded and planned."""


class AuditGateError(PersistError):
    """A summary that failed its audit is not written unless the user accepts it explicitly
    (``--accept-failed-audit``, or confirming in the Accept dialog), as OpenClaw's safeguard
    refuses a summary that fails its quality guard."""

    def __init__(self, path: Path | str, failed_checks: tuple[str, ...]) -> None:
        self.failed_checks = failed_checks
        super().__init__(path, "the summary failed its audit (" + ", ".join(failed_checks)
                         + "); nothing was written. To write it anyway, accept the failed "
                         "audit explicitly: --accept-failed-audit on the command line, or "
                         "confirm it in the Accept dialog")


class SecondSuccessorError(PersistError):
    """The transcript already has a successor: an agent session has one continuation, so a
    second compaction of the same original is refused unless the user asks for it."""

    def __init__(self, path: Path | str, existing: Path) -> None:
        self.existing = existing
        super().__init__(path, f"was already compacted into a successor, {existing.name}: an "
                         "agent session has one continuation, so nothing was written. Compact that file instead, "
                         "or allow a second successor explicitly (--allow-second-successor)")


class ExportError(SessionLensError):
    """An export could not be produced."""


class AuditError(SessionLensError):
    """There is nothing to audit: the transcript holds no compaction, or not the one asked for."""


class ScopeError(SessionLensError):
    """The session asked about is not in the folders the user let the recall server (``sessionlens
    mcp``) answer about, or no session there matches the name given."""
