"""Audited exports: a summary that carries its proof (Markdown, JSON, self-contained HTML).

An exported summary is only worth trusting if a reader can check it: so each export holds
the audit with every check, what the summary dropped, the entry-id range it covers, the
sha256 of the source transcript and of the summary, and the provider, model, template,
instructions and settings that made it (users-and-peers.md §4 idea 7). Keys never appear:
settings lose credential-like fields and every string is scrubbed of key-shaped text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from sessionlens.engine._io.atomic import atomic_write_text
from sessionlens.engine.audit.dropped import DroppedItem, RecoveryPack, build_recovery_pack
from sessionlens.engine.audit.recorded import audit_compaction_in_chain
from sessionlens.engine.audit.report import AuditReport, ClassCoverage
from sessionlens.engine.errors import ExportError, PersistError, SessionLensError
from sessionlens.engine.load.reader import load_transcript
from sessionlens.engine.model import Transcript
from sessionlens.engine.persist.provenance import (
    SummaryProvenance,
    entry_provenance,
    recorded_facts,
)
from sessionlens.engine.transcript_secrets import blanked, transcript_secret_values

__all__ = [
    "EXPORT_SCHEMA_VERSION",
    "ExportBundle",
    "EXPORT_FORMATS",
    "ExportFormat",
    "bundle_for_compaction",
    "bundle_to_dict",
    "export_schema",
    "export_summary",
    "make_bundle",
    "scrub_secrets",
    "sha256_file",
    "write_export",
]

#: Bumped whenever the JSON layout changes incompatibly (schemas/export.schema.json).
EXPORT_SCHEMA_VERSION = 1
ExportFormat = Literal["md", "json", "html"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "json", "html")

_SECRET_KEY = re.compile(
    r"(?i)^(?:.*[_-])?(?:api[_-]?key|apikey|secret|password|passwd|token|auth|authorization|"
    r"headers?|env|environ|cookie|credentials?|bearer)$")


@dataclass(frozen=True, slots=True)
class ExportBundle:
    """Everything one export carries."""

    summary: str
    report: AuditReport
    dropped: tuple[DroppedItem, ...]
    recovery: RecoveryPack
    #: First and last summarized entry ids (None when the span is empty).
    first_entry_id: str | None
    last_entry_id: str | None
    source_sha256: str
    summary_sha256: str
    source_path: str
    provider: str | None = None
    model: str | None = None
    template: str = ""
    instructions: str = ""
    #: Whether the instructions matched anything (False: they were given but did nothing;
    #: None: not known, or none given). An export never claims a focus that did nothing.
    focus_applied: bool | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    created_at: str = ""
    schema_version: int = EXPORT_SCHEMA_VERSION
    compaction_id: str | None = None
    session_id: str | None = None
    #: Who wrote the summary (generated, edited, the user's own); None when not recorded.
    provenance: SummaryProvenance | None = None
    #: Value -> kind of the source transcript's secrets (``transcript_secrets``), blanked
    #: wherever they show in the export, also without the context that named them (a
    #: dropped identifier, the summary's critical context).
    secret_values: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def coverage(self) -> tuple[ClassCoverage, ...]:
        return self.report.coverage


def sha256_file(path: Path | str) -> str:
    """Hex sha256 of a file, read in blocks (transcripts can be hundreds of MB)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    except OSError as exc:
        raise ExportError(f"{path}: cannot read the source transcript to hash it: {exc}") from exc
    return digest.hexdigest()


def scrub_secrets(value: Any, known: Mapping[str, str] | None = None) -> Any:
    """A copy with credential-named fields removed and key-shaped text blanked (secrets.py),
    and every ``known`` secret value (``transcript_secrets``) blanked wherever it is."""
    if isinstance(value, str):
        return blanked(value, known)
    if isinstance(value, Mapping):
        return {str(k): scrub_secrets(v, known) for k, v in value.items()
                if not _SECRET_KEY.match(str(k))}
    if isinstance(value, (list, tuple)):
        return [scrub_secrets(v, known) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return scrub_secrets(str(value), known)


def make_bundle(transcript: Transcript, summary: str, report: AuditReport, *,
                provider: str | None = None, model: str | None = None, template: str = "",
                instructions: str = "", settings: Mapping[str, Any] | None = None,
                created_at: str | None = None, source_sha256: str | None = None,
                provenance: SummaryProvenance | None = None,
                span_source: Transcript | None = None) -> ExportBundle:
    """Assemble a bundle; hashes the source file unless ``source_sha256`` is given."""
    ids = report.summarized_entry_ids
    source = f"{transcript.path.name}" + (f", compaction {report.compaction_id}" if report.compaction_id else "")
    return ExportBundle(
        summary=summary,
        report=report,
        dropped=report.dropped,
        recovery=build_recovery_pack(report.dropped, source=source),
        first_entry_id=ids[0] if ids else None,
        last_entry_id=ids[-1] if ids else None,
        source_sha256=source_sha256 or sha256_file(transcript.source_file),
        summary_sha256=hashlib.sha256(summary.encode("utf-8")).hexdigest(),
        source_path=str(transcript.path),
        provider=provider,
        model=model,
        template=template or report.template,
        instructions=instructions,
        # the audit's focus check says whether the focus was applied, never a claim
        focus_applied=report.focus_applied if instructions else None,
        settings=dict(settings or {}),
        created_at=created_at or datetime.now(UTC).isoformat(timespec="seconds"),
        compaction_id=report.compaction_id,
        session_id=transcript.session_id,
        provenance=provenance,
        secret_values={**(transcript_secret_values(span_source) if span_source else {}),
                       **transcript_secret_values(transcript)},
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def bundle_for_compaction(transcript: Transcript, compaction_id: str | None = None) -> ExportBundle:
    """Audit a compaction the transcript holds and bundle it for export.

    Provider, model and instructions come from the ``sessionlens`` field of a compaction
    SessionLens wrote; other writers do not record them, so they stay empty. The settings
    are what the entry itself records."""
    audited = audit_compaction_in_chain(transcript, compaction_id)
    report = audited.report
    entry = transcript.entry(report.compaction_id or "")
    own = recorded_facts(transcript, entry)
    settings: dict[str, Any] = {
        "tokens_before": entry.tokens_before,
        "first_kept_entry_id": entry.first_kept_entry_id,
        "from_hook": entry.from_hook,
        "identifier_policy": report.identifier_policy,
    }
    if audited.span_source is not None:  # the covered entry ids are in this file
        settings["summarized_entries_in"] = str(audited.span_source)
    if isinstance(own.get("tokensAfter"), int):
        settings["tokens_after"] = own["tokensAfter"]
    return make_bundle(transcript, entry.summary or "", report, template=report.template,
                       provider=_text(own.get("provider")), model=_text(own.get("model")),
                       instructions=_text(own.get("instructions")) or "", settings=settings,
                       provenance=entry_provenance(transcript, entry),
                       span_source=_span_source(audited.span_source))


def _span_source(path: Path | None) -> Transcript | None:
    """The file that holds the summarized entries when it is not the exported one (its
    secrets are blanked in the export too: the dropped identifiers come from it)."""
    if path is None:
        return None
    try:
        return load_transcript(path)
    except SessionLensError:
        return None


def bundle_to_dict(bundle: ExportBundle) -> dict[str, Any]:
    """The JSON export as a dict (redacted; validates against schemas/export.schema.json)."""
    r = bundle.report
    data: dict[str, Any] = {
        "schema_version": bundle.schema_version,
        "kind": "sessionlens.audited-summary",
        "created_at": bundle.created_at,
        "source": {"path": bundle.source_path, "sha256": bundle.source_sha256,
                   "session_id": bundle.session_id},
        "compaction_id": bundle.compaction_id,
        "covered": {"first_entry_id": bundle.first_entry_id, "last_entry_id": bundle.last_entry_id,
                    "entry_count": len(r.summarized_entry_ids),
                    "carried_tail_count": len(r.carried_tail_entry_ids)},
        "summary": {"text": bundle.summary, "sha256": bundle.summary_sha256,
                    "chars": len(bundle.summary)},
        "provider": bundle.provider or None,
        "model": bundle.model or None,
        "template": bundle.template,
        "instructions": bundle.instructions,
        "focus_applied": bundle.focus_applied,
        "provenance": None if bundle.provenance is None else {
            **bundle.provenance.as_details(), "label": bundle.provenance.label},
        "settings": scrub_secrets(dict(bundle.settings)),
        "audit": {
            "passed": r.passed,
            "template": r.template,
            "detected_template": r.detected_template,
            "identifier_policy": r.identifier_policy,
            "latest_ask": r.latest_ask,
            "checks": [c.as_dict() for c in r.checks],
            "identifiers": {"found": list(r.identifiers_found), "missing": list(r.identifiers_missing)},
            "total_loss": r.total_loss,
            "focus": {"terms": list(r.focus.terms), "in_span": list(r.focus.in_span),
                      "kept": list(r.focus.kept), "missing": list(r.focus.missing)},
            "headline": r.headline.as_dict(),
            "openclaw": r.openclaw.as_dict() if r.openclaw is not None else None,
        },
        "coverage": [{"class": c.cls, "found": c.found, "total": c.total} for c in bundle.coverage],
        "dropped": [d.as_dict() for d in bundle.dropped],
        "recovery": {"instruction": bundle.recovery.instruction, "addendum": bundle.recovery.addendum,
                     "total": bundle.recovery.total,
                     "named_in_instruction": bundle.recovery.named_in_instruction},
    }
    redacted: dict[str, Any] = scrub_secrets(data, bundle.secret_values)
    # Hashes and ids are hex, never keys; keep them exactly as computed.
    redacted["source"]["sha256"] = bundle.source_sha256
    redacted["summary"]["sha256"] = bundle.summary_sha256
    return redacted


def export_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) every JSON export validates against."""
    import json
    from importlib.resources import files

    text = files("sessionlens.engine.export").joinpath("schemas/export.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def export_summary(bundle: ExportBundle, fmt: ExportFormat, out: Path | str) -> Path:
    """Write the bundle as ``fmt`` to ``out`` atomically; returns the path written."""
    from .render import render_html, render_json, render_markdown

    renderers = {"md": render_markdown, "json": render_json, "html": render_html}
    if fmt not in renderers:
        raise ExportError(f"unknown export format {fmt!r} (choose md, json or html)")
    return write_export(out, renderers[fmt](bundle_to_dict(bundle)))


def write_export(out: Path | str, text: str) -> Path:
    """Write an export atomically; a folder or a missing folder is a clear ExportError.
    Every export passes here, so none carries a raw bidi control (``render.visible_bidi``)."""
    from .render import visible_bidi

    text = visible_bidi(text)
    target = Path(out)
    if target.is_dir():
        raise ExportError(f"{target}: is a folder; give a file name to export to")
    if not target.parent.is_dir():
        raise ExportError(f"{target.parent}: folder does not exist")
    try:
        return atomic_write_text(target, text)
    except PersistError as exc:
        raise ExportError(str(exc)) from exc
