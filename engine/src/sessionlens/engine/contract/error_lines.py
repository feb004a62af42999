"""Error messages wherever they are written, not only where a tool said "isError".

A failing test run is usually a tool result with ``isError: false`` (the shell ran fine; the
tests failed), a build prints ``error[E0308]: ...`` to stdout, and the assistant quotes the
exception it is chasing in its own reply. Users lose exactly these when a summary drops them
(users-and-peers.md §2C), so the audit looks for them in any text: exception names with their
message, ``error:``/``fatal:`` lines and log levels, failed tests, and non-zero exit codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from sessionlens.engine.model import Message, TextBlock

__all__ = ["ERROR_MAX_CHARS", "NO_MATCH_EXIT_PROGRAMS", "FoundError", "exit_code_pattern",
           "find_errors", "generic_error_body", "message_errors", "telling_line"]

#: Programs whose exit code 1 means "no match" or "differs", not a failure.
NO_MATCH_EXIT_PROGRAMS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp",
                                    "test", "["})

#: An error message is cut (at a word boundary) to this many characters.
ERROR_MAX_CHARS = 160

#: ``ValueError: bad input``, ``java.io.IOException: closed``, ``KeyboardInterrupt: ...``.
_EXCEPTION = re.compile(
    r"(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Fault|Failure|Exit))"
    r":[ \t]+(\S[^\n]*)")
#: Words before an exception name that make it code, not an error that happened.
_CODE_BEFORE = re.compile(r"(?:\bexcept|\bcatch|\braise|\bthrows?|\bclass|\bimport|\bdef)\s*\(?\s*$")
#: ``error: ...``, ``fatal: ...``, ``error[E0308]: ...``, ``[ERROR] ...``, ``ERROR - ...``,
#: ``npm ERR! ...`` at the start of a line, after at most a timestamp, a bracketed tag and a
#: program name (so ``{ error: reason }`` in code is not an error).
_ERROR_LINE = re.compile(
    r"^[ \t>]*(?:[\d:.\-TZ+/ ]{8,32}[ \t]+)?(?:\[[^\]\n]{1,32}\][ \t]*)?(?:[\w.-]{1,24}:?[ \t]+)?"
    r"((?:error|fatal|panic)(?:\[[\w-]+\])?:[ \t]+\S[^\n]*"
    r"|(?-i:\[(?:ERROR|FATAL|CRITICAL)\][ \t]+\S[^\n]*)"
    r"|(?-i:(?:ERROR|FATAL|CRITICAL)(?:[ \t]+-|:)?[ \t]+\S[^\n]*)"
    r"|(?-i:npm ERR![ \t]+\S[^\n]*))", re.M | re.I)
#: An ``error:`` "line" that is source code: a type annotation, an object field, a one-word
#: value (``error: string;``, ``error: err,``, ``error: Error | null``, ``error: e => ...``).
_CODE_LIKE = re.compile(r"[;,{(\[]\s*$|\s=\s|=>|\s\|\s|\?\.")
_ONE_WORD = re.compile(r"^\S+:\s*\S+$")
#: Failed tests: pytest ``FAILED path::test``, go ``--- FAIL: TestX``.
_FAILED_TEST = re.compile(r"^[ \t]*(FAILED[ \t]+[\w./\\-]+(?:::[\w\[\].-]+)+|--- FAIL:[ \t]+\w+)",
                          re.M)
#: ``exit code 2``, ``Exit code: 2``, ``exited with code 2``, ``exit status 2``,
#: ``returned non-zero exit status 2``.
_EXIT = re.compile(r"\b(?:exit(?:ed)?(?:[ \t]+with)?|returned non-zero exit)[ \t]+"
                   r"(?:code|status)[ \t:=]*(-?\d{1,3})\b", re.I)
_GENERIC_PREFIX = re.compile(r"^(?:error|fatal|panic|npm ERR!|\[?(?:ERROR|FATAL|CRITICAL)\]?)"
                             r"(?:[ \t]+-|:)?[ \t]+", re.I)
#: ``{"error": "missing_api_key"}`` in a JSON tool result.
_JSON_ERROR = re.compile(r'"(?:error|errorMessage|error_message)"\s*:\s*"([^"\n]{4,200})"')
_TAIL = re.compile(r"[\s.,;:]+$")
#: A text can only hold an error if it has one of these (lower-cased) somewhere.
_ANY_HINT = ("error", "exception", "interrupt", "fault", "failure", "exit", "fatal", "panic",
             "critical", "err!", "fail", "returned non-zero")
_LINE_HINT = re.compile(r"(?i)error|fatal|panic|critical|ERR!")


@dataclass(frozen=True, slots=True)
class FoundError:
    """One error in a text: where it starts, its message as written, and its kind."""

    start: int
    end: int
    value: str
    kind: str  # "exception", "line", "test", "json", "exit"
    #: For an exit code, the code (the value then reads ``exit code N``).
    code: int | None = None


def _cap(text: str, cap: int = ERROR_MAX_CHARS) -> str:
    """One line, at most ``cap`` characters, without the sentence's closing punctuation or a
    closing backtick or quote that belongs to the prose around it."""
    text = " ".join(text.split("\\n", 1)[0].split())  # JSON-escaped output: its first line
    if len(text) > cap:
        cut = text.rfind(" ", 0, cap)
        text = text[: cut if cut > cap // 2 else cap]
    while True:
        text = _TAIL.sub("", text)
        if text[-1:] in ("`", '"', "'") and text.count(text[-1]) % 2 == 1:
            text = text[:-1]
            continue
        return text


_STRONG = re.compile(r"\b[A-Za-z_.]*(?:Error|Exception)\b|\b(?:error|fatal|panic)(?:\[\w+\])?:", re.I)
_HINT = re.compile(r"error|exception|failed|failure|fatal|cannot|can't|could not|not found|denied|"
                   r"invalid|traceback|refused|timed out|unable|no such", re.I)


def telling_line(text: str) -> str:
    """The line of a failure's output that says what went wrong (not a banner such as
    ``> pkg@1.0 check``), for a failure whose text holds no recognisable error message."""
    lines = [ln for ln in text.splitlines()[:40] if ln.strip()]
    for hint in (_STRONG, _HINT):
        for line in lines:
            if hint.search(line):
                return _cap(line)
    return _cap(lines[0]) if lines else ""


def exit_code_pattern(code: int) -> re.Pattern[str]:
    """How a summary may say a command ended with ``code`` (any of the usual spellings)."""
    return re.compile(rf"\bexit(?:ed)?(?:\s+with)?\s+(?:code|status)[\s:=]*{code}\b|"
                      rf"\breturned non-zero exit status {code}\b", re.I)


def generic_error_body(value: str) -> str:
    """The message of an ``error: ...`` line without its generic prefix ("" if none)."""
    m = _GENERIC_PREFIX.match(value)
    return value[m.end():] if m else ""


def find_errors(text: str) -> Iterator[FoundError]:
    """Every error message in ``text``, in order of position (overlaps keep the first)."""
    found: list[FoundError] = []
    lower = text.lower()
    if not any(w in lower for w in _ANY_HINT):
        return  # most texts hold no error at all: skip the line-anchored scans
    for m in _EXCEPTION.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if _CODE_BEFORE.search(text[line_start:m.start()]):
            continue
        message, end = m.group(2), m.end()
        opener = text[m.start() - 1: m.start()]
        if opener in ("`", '"') and opener in message:  # quoted in prose: ends at the quote
            message = message[: message.index(opener)]
            end = m.start(2) + len(message)
        found.append(FoundError(m.start(), end, _cap(f"{m.group(1)}: {message}"), "exception"))
    for m in _ERROR_LINE.finditer(text) if _LINE_HINT.search(text) else ():
        indented = m.group(0)[:1] in (" ", "\t")
        if not (_CODE_LIKE.search(m.group(1)) or (indented and _ONE_WORD.match(m.group(1)))):
            found.append(FoundError(m.start(1), m.end(1), _cap(m.group(1)), "line"))
    for m in _FAILED_TEST.finditer(text) if "FAIL" in text else ():
        found.append(FoundError(m.start(1), m.end(1), _cap(m.group(1)), "test"))
    for m in _JSON_ERROR.finditer(text):
        found.append(FoundError(m.start(1), m.end(1), _cap(m.group(1)), "json"))
    for m in _EXIT.finditer(text):
        code = int(m.group(1))
        if code != 0:
            found.append(FoundError(m.start(), m.end(), f"exit code {code}", "exit", code))
    found.sort(key=lambda f: f.start)
    end = -1
    for item in found:
        if item.start < end and item.kind != "exit":
            continue  # an exception inside an error line already taken
        end = max(end, item.end)
        if len(item.value) >= 4:
            yield item


def _error_sources(msg: Message) -> str:
    """The text an error can be read from: what was said and printed, not tool arguments."""
    parts = [b.text for b in msg.content if isinstance(b, TextBlock)]
    if msg.role == "bashExecution" and msg.output:
        parts.append(msg.output)
    if msg.error_message:
        parts.append(msg.error_message)
    return "\n".join(parts)


def _program(command: str | None) -> tuple[str, tuple[str, ...]]:
    """(first line of the command, its program name) for an exit code's context."""
    if not command:
        return "", ()
    line = next((" ".join(x.split()) for x in command.splitlines() if x.strip()), "")[:80]
    words = line.split()
    prog = words[0].rsplit("/", 1)[-1].lower() if words else ""
    return line, ((prog,) if prog else ())


def message_errors(msg: Message, command: str | None = None
                   ) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Errors in any text of the message; a flagged failure (``isError``, an error stop)
    with no recognisable error text still yields its telling line. Yields (value, context,
    meaning); an exit code's context names its command (``command``, the shell line of the
    call a tool result answers), and exit code 1 of grep-like programs is no error."""
    flagged = (msg.role == "toolResult" and msg.is_error) or (
        msg.stop_reason == "error" and bool(msg.error_message))
    text = _error_sources(msg)
    found = list(find_errors(text))
    context, meaning = _program(msg.command if msg.role == "bashExecution" else command)
    if flagged and not any(f.kind != "exit" for f in found):
        line = telling_line(msg.text if msg.role == "toolResult" else (msg.error_message or ""))
        if len(line) >= 4 and not (found and _EXIT.search(line)):  # not the exit line again
            yield line, "", ()
    codes: set[int | None] = set()
    benign = meaning[:1] and meaning[0] in NO_MATCH_EXIT_PROGRAMS  # grep found nothing
    for f in found:
        if f.kind != "exit":
            yield f.value, "", ()
        elif not (benign and f.code == 1):
            codes.add(f.code)
            yield f.value, (f"{context} -> {f.value}" if context else ""), meaning
    code = msg.exit_code if msg.role == "bashExecution" else None
    if code not in (None, 0) and code not in codes and not (benign and code == 1):
        value = f"exit code {code}"
        yield value, (f"{context} -> {value}" if context else ""), meaning
