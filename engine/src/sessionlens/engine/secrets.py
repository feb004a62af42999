"""Finding secrets in text before it leaves the machine, and blanking them out.

Summarization sends transcript text to a provider; transcripts often hold keys a user pasted
or a tool printed. Every outbound request of a run goes through one ``Redactor`` (stable
placeholders: the same secret is the same ``[REDACTED:<kind>#<n>]`` in every request, and
nothing is ever put back); whatever is written or exported afterwards goes through
``scrub``, which also removes a configured API key's exact value and anything the model
echoed.

Hand-written patterns rather than a scanner library (re-measured for issue 39 with
detect-secrets 1.5.0 on the 2.4 MB pi sample: its default plugins took 130 s and flagged
17,898 hex/base64 strings, all ids and hashes; its keyword, AWS, GitHub and PEM plugins
alone took 7.1 s over the 1.7 MB Codex sample and still missed ``DEEPSEEK_KEY <hex>`` and
"api key is <hex>"; this module covers both, in about 3 s for the whole sample and a few
ms for a message). detect-secrets is built for files in a repository: it reports values without their
position in the text, its high-entropy plugins flag every git hash and UUID (transcripts are
full of them, and the audit needs those identifiers kept), it knows no Anthropic or Google
keys and its import (requests, PyYAML) costs ~0.8 s per command. The patterns below follow
the vendors' published token formats (prefix, alphabet, length) plus two rules for values
named by their key (``password=...``, ``aws_secret_access_key = ...``), so ordinary hashes
and ids are not flagged.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "SECRET_KINDS", "KNOWN_VALUE_KIND", "Redactor", "SecretFinding", "SecretNote",
    "find_secrets", "is_placeholder", "redact", "scrub",
]


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """One secret: its kind, where it is (``text[start:end]``) and a safe preview."""

    kind: str
    start: int
    end: int
    #: First 4 characters and the length, never the secret itself.
    preview: str


@dataclass(frozen=True, slots=True)
class SecretNote:
    """What a redaction replaced, without the value: the kind, where, and its placeholder."""

    kind: str
    where: str
    placeholder: str
    count: int = 1


_B64 = r"[A-Za-z0-9+/=]"
#: The body of a PEM block: base64 lines and ``Name: value`` headers, with real or escaped
#: (``\n`` inside JSON text) line breaks. A block cut before its END line (tool output is
#: truncated at 2000 characters) is still covered to its last base64 line.
_PEM_BODY = (r"(?:(?:\r?\n|\\r\\n|\\n)(?:" + _B64 + r"{1,100}|[A-Za-z-]{2,30}: [^\n\\]{1,200})"
             r"[ \t]*)*")
#: A name that says "this value is a credential": ``password``, ``db_passwd``, ``apiKey``,
#: ``aws_secret_access_key``, ``GITHUB_TOKEN``, ``client-secret`` ...
#: Only the end of the name from its keyword on is matched (the span is the value): a
#: leading ``[A-Za-z0-9_.-]*`` made every long word or base64 run quadratic (3.6 s per
#: pattern on a 1.7 MB Codex file; now ~0.1 s).
_PASSWORD_NAME = r"(?:password|passwd|pwd|passphrase)[A-Za-z0-9_.-]*"
_KEY_NAME = (r"(?:secret|token|api[_.-]?key|apikey|access[_.-]?key|auth[_.-]?key"
             r"|private[_.-]?key|credentials?|_key|-key|Key|KEY)[A-Za-z0-9_.-]*")
#: A JSON field name that says its value is a credential (``password``, ``app_password``,
#: ``client_secret``, ``apiKey``, ``private_key``, ``access_token`` ...), but not one that
#: counts or describes them (``max_tokens``, ``token_type``, ``tokenizer``, ``key_id``).
#: Matched from its keyword on, like the names above (a bounded prefix before it cost
#: 2.3 s per 1.4 MB of message text).
_FIELD_NAME = (r"(?:password|passwd|pwd|passphrase|secret|token|api[_.-]?key"
               r"|apikey|access[_.-]?key|private[_.-]?key|auth[_.-]?key|credentials?)"
               r"(?![A-Za-z0-9]*[_.-]?(?:type|name|count|limit|length|size|ids?|url|uri|path"
               r"|file|usage|kind|mode|format|s\b|izer|expir|ttl))[A-Za-z0-9_.-]{0,30}")
#: ``name = value``, ``name: value``, ``"name": "value"``, ``name => value`` (quotes may be
#: JSON-escaped inside a serialized tool call).
_ASSIGN = r"(?:\\?[\"'])?\s{0,3}(?:=>|:=|[=:])\s{0,3}(?:\\?[\"'])?"
_VALUE = r"(?P<s>[^\s\"'`,;\\<>(){}\[\]]{6,})"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private_key", re.compile(
        r"-----BEGIN (?P<label>(?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.{0,20000}?-----END (?P=label)PRIVATE KEY(?: BLOCK)?-----|" + _PEM_BODY + ")",
        re.S)),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[0-9A-Z]{16}\b")),
    ("aws_secret_key", re.compile(
        r"(?i)aws[A-Za-z0-9_.-]{0,30}(?:secret|sk)[A-Za-z0-9_.-]{0,30}" + _ASSIGN
        + r"(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("gitlab_token", re.compile(
        r"\bgl(?:pat|dt|rt|ptt|cbt|imt|oas|soat|ft|agent)-[A-Za-z0-9_-]{20,}")),
    ("slack_token", re.compile(r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})")),
    ("slack_webhook", re.compile(
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35,}")),
    ("google_oauth", re.compile(r"\b(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[0-9A-Za-z_-]{20,})")),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}")),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi_token", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}")),
    ("sendgrid_key", re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("url_password", re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/:@\"'<>]*:"
                                r"(?P<s>[^\s/@\"'<>]+)@")),
    ("bearer_token", re.compile(r"(?i)\b(?:bearer|basic) (?P<s>[A-Za-z0-9._~+/=-]{16,})")),
    ("password_assignment", re.compile(r"(?i)" + _PASSWORD_NAME + _ASSIGN + _VALUE)),
    ("key_assignment", re.compile(_KEY_NAME + _ASSIGN + _VALUE)),
    # A JSON field named as a credential, whatever its value looks like (spaces too):
    # ``"app_password": "abcd efgh ijkl mnop"``, also JSON-escaped inside a tool call.
    # ``app_password="..."`` (a serialized tool call) and ``password: '...'`` alike.
    ("named_field", re.compile(
        r"(?i)(?P<n>" + _FIELD_NAME + r")(?:\\?[\"'])?\s{0,3}[:=]\s{0,3}"
        r"\\?[\"'](?P<s>(?:[^\"'\\\n]|\\[^\"'\n]){4,400}?)\\?[\"']")),
    # ``DEEPSEEK_KEY 9f86d08...``: an environment-style name, a space, the value.
    ("key_assignment", re.compile(
        r"(?:KEY|TOKEN|SECRET)[A-Z0-9_]*[ \t]{1,3}" + _VALUE)),
    # Prose: "api key is <hex>", "the token: ...", "password was Tr0ub4dor&3x".
    ("key_assignment", re.compile(
        r"(?i)\b(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|(?:access|auth|api|"
        r"refresh)[ _-]?token|token)\b(?:\s{1,3}(?:is|was|are|of)\b)?"
        r"(?:\s{0,3}[:=]\s{0,3}|\s{1,3})[\"'`]?" + _VALUE)),
    ("password_assignment", re.compile(
        r"(?i)\b(?:password|passwd|passphrase)\b(?:\s{1,3}(?:is|was)\b)?"
        r"(?:\s{0,3}[:=]\s{0,3}|\s{1,3})[\"'`]?" + _VALUE)),
    # A Google-style app password (four groups of four letters) named as one in prose or
    # on a command line: ``--app-password "abcd efgh ijkl mnop"``.
    ("app_password", re.compile(
        r"(?i)app[ _-]?pass(?:word)?[^A-Za-z\n]{0,12}(?:(?:is|was)\s{1,3}[\"'`]?)?"
        r"(?P<s>[a-z]{4}[ -]?[a-z]{4}[ -]?[a-z]{4}[ -]?[a-z]{4})(?![a-z])")),
)
#: Lowercase text one of which a pattern's match must contain: a text holding none of a
#: pattern's triggers is not searched with it (most transcript text holds none, so
#: redacting whole transcripts costs a few substring scans, not twenty regex passes).
_TRIGGERS: dict[str, tuple[str, ...]] = {
    "private_key": ("private key",), "anthropic_key": ("sk-ant-",), "openai_key": ("sk-",),
    "aws_access_key": ("akia", "asia", "abia", "acca", "aroa", "aida"), "aws_secret_key": ("aws",),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab_token": ("gl",), "slack_token": ("xox", "xapp-"), "slack_webhook": ("hooks.slack",),
    "google_api_key": ("aiza",), "google_oauth": ("gocspx-", "ya29."),
    "stripe_key": ("_live_", "_test_"), "huggingface_token": ("hf_",), "npm_token": ("npm_",),
    "pypi_token": ("pypi-",), "sendgrid_key": ("sg.",), "jwt": ("eyj",), "url_password": ("://",),
    "bearer_token": ("bearer", "basic"), "password_assignment": ("pass", "pwd"),
    "key_assignment": ("key", "token", "secret", "credential"),
    "named_field": ("pass", "pwd", "key", "token", "secret", "credential"),
    "app_password": ("pass",),
}
#: Kind of an exact value the caller named (a configured API key), whatever it looks like.
KNOWN_VALUE_KIND = "configured_key"
SECRET_KINDS = tuple(dict.fromkeys(kind for kind, _ in _PATTERNS)) + (KNOWN_VALUE_KIND,)

_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z_]+(?:#\d+)?\]")


def is_placeholder(text: str) -> bool:
    """True if ``text`` holds a redaction placeholder (rescanning must not flag those)."""
    return "[REDACTED:" in text and _PLACEHOLDER.search(text) is not None


def _entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _password_like(value: str) -> bool:
    """A password has a digit, a symbol or mixed case: ``hunter2`` yes, ``required`` no."""
    if value.lower() in ("null", "none", "true", "false", "undefined", "redacted"):
        return False
    return (any(c.isdigit() for c in value) or not value.isalnum()
            or (value.lower() != value and value.upper() != value))


def _key_like(value: str) -> bool:
    """A key is long and random: 16+ characters of high entropy, or 32+ hex digits."""
    if len(value) >= 32 and all(c in "0123456789abcdefABCDEF" for c in value):
        return True
    return (len(value) >= 16 and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value) and _entropy(value) >= 3.2)


_TRIVIAL = frozenset({"null", "none", "true", "false", "undefined", "redacted", "string",
                      "required", "optional", "example", "changeme", "your_password", "xxxx"})


def _field_value_like(value: str) -> bool:
    """A credential field's value: any text of four or more characters but an empty-ish
    word, an unset marker (``****``) or a reference to where the value lives (``${X}``)."""
    v = value.strip()
    return (len(v) >= 4 and v.lower() not in _TRIVIAL and len(set(v)) > 1
            and not v.startswith(("${", "$(", "{{", "<")) and not is_placeholder(v))


_VALUE_CHECK = {"password_assignment": _password_like, "key_assignment": _key_like,
                "named_field": _field_value_like}


def _preview(value: str) -> str:
    return f"{value[:4]}… ({len(value)} chars)"


#: Every match of a pattern holds one of its triggers at most this far from its start...
_LEAD = 64
#: ... and is searched for in a window this long after the trigger (a match that reaches
#: the window's end is matched again on the whole text: a PEM block, a long token).
_REACH = 4096


def _near(pattern: re.Pattern[str], text: str, low: str,
          triggers: Sequence[str]) -> Iterable[re.Match[str]]:
    """The matches of ``pattern`` in ``text``, searched only around its triggers' places
    (a text of megabytes with a few mentions of "token" costs a few windows, not a regex
    pass over every character). Where lowercasing changed the text's length (``İ``), the
    places would not line up: the whole text is searched."""
    if len(low) != len(text):
        yield from pattern.finditer(text)
        return
    spots: list[int] = []
    for t in triggers:
        at = low.find(t)
        while at >= 0:
            spots.append(at)
            at = low.find(t, at + 1)
    spots.sort()
    end = -1
    for at in spots:
        if at <= end - _REACH // 2:  # covered by the window before
            continue
        start, end = max(0, at - _LEAD, end), min(len(text), at + _REACH)
        for match in pattern.finditer(text, start, end):
            if match.end() >= end and end < len(text):
                whole = pattern.match(text, match.start())
                if whole is not None:
                    match = whole
            yield match


def find_secrets(text: str) -> tuple[SecretFinding, ...]:
    """Non-overlapping findings in text order (the earlier, more specific pattern wins).

    For URL credentials, bearer headers and ``name = value`` assignments the span covers
    only the secret part, so a redacted text still shows what kind of thing was there.
    Placeholders left by an earlier redaction are never findings.
    """
    found: list[SecretFinding] = []
    low = text.lower()
    for kind, pattern in _PATTERNS:
        triggers = [t for t in _TRIGGERS[kind] if t in low]
        if not triggers:
            continue
        check = _VALUE_CHECK.get(kind)
        for match in _near(pattern, text, low, triggers):
            group = "s" if "s" in pattern.groupindex else 0
            start, end = match.span(group)
            value = match.group(group)
            if end - start < 6 or is_placeholder(value) or (check and not check(value)):
                continue
            if any(start < f.end and f.start < end for f in found):
                continue
            found.append(SecretFinding(kind, start, end, _preview(value)))
    return tuple(sorted(found, key=lambda f: f.start))


def redact(text: str, findings: Sequence[SecretFinding]) -> str:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]`` (no numbering)."""
    out, pos = [], 0
    for f in sorted(findings, key=lambda f: f.start):
        if f.start < pos:
            continue
        out.append(text[pos:f.start])
        out.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


class Redactor:
    """One run's redaction: each distinct secret gets one numbered placeholder for the run.

    ``keep`` holds values the user chose to send as they are; ``known`` exact values
    (configured API keys, any length) that are removed wherever they appear, even when no
    pattern recognises them. The values live in this object's memory only; ``notes`` says
    what was replaced, and where, without them.
    """

    def __init__(self, keep: Collection[str] = (), known: Iterable[str] = ()) -> None:
        self._keep = frozenset(keep)
        self._known = tuple(sorted({k for k in known if k and k not in self._keep},
                                   key=len, reverse=True))
        self._placeholders: dict[str, str] = {}
        self._per_kind: Counter[str] = Counter()
        self._notes: dict[tuple[str, str], list[str | int]] = {}

    @property
    def values(self) -> frozenset[str]:
        """Every value this redactor replaced (or would replace), for a later ``scrub``."""
        return frozenset(self._placeholders) | frozenset(self._known)

    def notes(self) -> tuple[SecretNote, ...]:
        """What was redacted, in the order it was first met: kind, where, placeholder."""
        return tuple(SecretNote(str(kind), where, placeholder, int(count))
                     for (placeholder, where), (kind, count) in self._notes.items())

    def placeholder(self, value: str, kind: str) -> str:
        """The run's placeholder for ``value`` (numbered per kind, in order of first sight)."""
        ph = self._placeholders.get(value)
        if ph is None:
            self._per_kind[kind] += 1
            ph = self._placeholders[value] = f"[REDACTED:{kind}#{self._per_kind[kind]}]"
        return ph

    def seed(self, texts: Iterable[str]) -> None:
        """Number the secrets of ``texts`` now, so later requests agree on the placeholders
        whatever order they are built in (the preview and the run seed alike)."""
        for text in texts:
            for f in find_secrets(text):
                value = text[f.start:f.end]
                if value not in self._keep:
                    self.placeholder(value, f.kind)

    def redact(self, text: str, where: str = "") -> str:
        """``text`` with every secret not kept replaced by its run placeholder."""
        out: list[str] = []
        pos = 0
        for f in find_secrets(text):
            value = text[f.start:f.end]
            if value in self._keep:
                continue
            out.append(self._known_out(text[pos:f.start], where))
            out.append(self._mark(self.placeholder(value, f.kind), f.kind, where))
            pos = f.end
        out.append(self._known_out(text[pos:], where))
        return "".join(out)

    def _known_out(self, text: str, where: str) -> str:
        """Known values replaced, never inside a placeholder already in ``text``."""
        for value in self._known:
            if value not in text:
                continue
            ph = self._placeholders.get(value) or f"[REDACTED:{KNOWN_VALUE_KIND}]"
            pieces, marks = _PLACEHOLDER.split(text), _PLACEHOLDER.findall(text)
            n = sum(piece.count(value) for piece in pieces)
            if not n:
                continue
            pieces = [piece.replace(value, ph) for piece in pieces]
            text = "".join(piece + (marks[i] if i < len(marks) else "")
                           for i, piece in enumerate(pieces))
            for _ in range(n):
                self._mark(ph, KNOWN_VALUE_KIND, where)
        return text

    def _mark(self, placeholder: str, kind: str, where: str) -> str:
        note = self._notes.setdefault((placeholder, where), [kind, 0])
        note[1] = int(note[1]) + 1
        return placeholder


def scrub(text: str, known_values: Iterable[str] = (), *,
          redactor: Redactor | None = None) -> str:
    """``text`` fit to be written or exported: every exact ``known_values`` entry (a
    configured API key of any length, the secrets found in what was summarized) and every
    secret the detector finds are replaced, whatever the user chose to send.

    With the run's ``redactor`` its placeholders are reused (an echoed secret reads as the
    placeholder the requests carried) and its values count as known. Placeholders already
    in the text are left as they are.
    """
    known = set(known_values)
    if redactor is not None:
        known |= redactor.values
    clean = Redactor(known=known)
    if redactor is not None:
        clean._placeholders = dict(redactor._placeholders)
        clean._per_kind = Counter(redactor._per_kind)
    return clean.redact(text, "scrub")

