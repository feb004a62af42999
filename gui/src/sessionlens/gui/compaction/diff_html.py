"""Side-by-side difference of two texts as two HTML documents with inline styles.

Lines are matched first (difflib); a changed line is then compared word by word, so a
summary that only lost one path shows that path struck through rather than a whole red
paragraph. Both sides get the same number of rows (empty filler rows where the other side
has lines), which keeps the two panes aligned when they scroll together.
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

#: Texts longer than this are cut for display (the diff of a huge span is not readable anyway).
DISPLAY_LIMIT = 150_000
_WORDS = re.compile(r"\s+|[^\s]+")

_LIGHT = {"del_line": "#ffecec", "add_line": "#eaffea", "del_word": "#ffb6b6",
          "add_word": "#a6f0a6", "filler": "#e4e6e9", "number": "#8c959f", "text": "#1f2328"}
_DARK = {"del_line": "#3c1f1f", "add_line": "#1d3621", "del_word": "#7a2d2d",
         "add_word": "#2f6b37", "filler": "#2a2d31", "number": "#6e7681", "text": "#d5dae0"}


@dataclass(frozen=True, slots=True)
class SideBySide:
    """The two panes and the counts shown above them."""

    left_html: str
    right_html: str
    #: Lines only in the right text, only in the left, and changed in place.
    added: int
    removed: int
    changed: int
    truncated: bool = False

    @property
    def identical(self) -> bool:
        return not (self.added or self.removed or self.changed)


#: Terminal colour and cursor codes (CSI ``ESC [ ... m``, OSC ``ESC ] ... BEL``, two-byte
#: ``ESC x``): a tool's coloured output shown raw drew them as boxes.
_TERMINAL_CODES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|"
                             r"\x1b[@-Z\\-_]")
#: Other control characters (not tab, newline, carriage return) as their visible pictures.
_CONTROLS = {c: 0x2400 + c for c in range(32) if chr(c) not in "\t\n\r"} | {127: 0x2421}


def strip_terminal_codes(text: str) -> str:
    """``text`` without terminal escape codes; any other control character is shown as its
    Unicode picture (␀, ␛, ...) instead of a box."""
    if "\x1b" not in text and not any(ord(ch) < 32 and ch not in "\t\n\r" for ch in text):
        return text
    return _TERMINAL_CODES.sub("", text).translate(_CONTROLS)


def _cut(text: str, limit: int) -> tuple[str, bool]:
    text = strip_terminal_codes(text)
    return (text, False) if len(text) <= limit else (text[:limit], True)


def _row(number: int | None, body: str, bg: str | None, colors: dict[str, str]) -> str:
    style = "margin:0; white-space:pre-wrap;"
    if bg:
        style += f" background-color:{bg};"
    num = f"{number:>4} " if number is not None else "     "
    return (f'<p style="{style}"><span style="color:{colors["number"]};">{num}</span>'
            f"{body or '&nbsp;'}</p>")


def _words_diff(a: str, b: str, colors: dict[str, str]) -> tuple[str, str]:
    wa, wb = _WORDS.findall(a), _WORDS.findall(b)
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        old, new = html.escape("".join(wa[i1:i2])), html.escape("".join(wb[j1:j2]))
        if op == "equal":
            left.append(old)
            right.append(new)
            continue
        if old:
            left.append(f'<span style="background-color:{colors["del_word"]}; '
                        f'text-decoration:line-through;">{old}</span>')
        if new:
            right.append(f'<span style="background-color:{colors["add_word"]};">{new}</span>')
    return "".join(left), "".join(right)


def side_by_side(before: str, after: str, *, dark: bool = False,
                 limit: int = DISPLAY_LIMIT) -> SideBySide:
    """Two aligned HTML panes: removed text marked on the left, added text on the right."""
    colors = _DARK if dark else _LIGHT
    a_text, cut_a = _cut(before, limit)
    b_text, cut_b = _cut(after, limit)
    a, b = a_text.splitlines(), b_text.splitlines()
    left: list[str] = []
    right: list[str] = []
    added = removed = changed = 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for k in range(i2 - i1):
                left.append(_row(i1 + k + 1, html.escape(a[i1 + k]), None, colors))
                right.append(_row(j1 + k + 1, html.escape(b[j1 + k]), None, colors))
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(pairs):
            lw, rw = _words_diff(a[i1 + k], b[j1 + k], colors)
            left.append(_row(i1 + k + 1, lw, colors["del_line"], colors))
            right.append(_row(j1 + k + 1, rw, colors["add_line"], colors))
        changed += pairs
        for k in range(i1 + pairs, i2):
            left.append(_row(k + 1, html.escape(a[k]), colors["del_line"], colors))
            right.append(_row(None, "", colors["filler"], colors))
            removed += 1
        for k in range(j1 + pairs, j2):
            left.append(_row(None, "", colors["filler"], colors))
            right.append(_row(k + 1, html.escape(b[k]), colors["add_line"], colors))
            added += 1
    font = ("font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace; font-size:9pt; "
            f"color:{colors['text']};")
    wrap = f'<html><body style="{font}">{{}}</body></html>'
    return SideBySide(wrap.format("".join(left)), wrap.format("".join(right)), added, removed,
                      changed, cut_a or cut_b)


def marked_text(text: str, *, kept: Iterable[str] = (), dropped: Iterable[str] = (),
                dark: bool = False, limit: int = DISPLAY_LIMIT) -> tuple[str, bool]:
    """``text`` as numbered HTML lines with the audit's entities marked: ``kept`` ones green,
    ``dropped`` ones red and struck through. Returns (html, truncated).

    A summary and the text it replaces share few lines, so a line diff of the two is all red;
    marking what survived and what was lost says more.
    """
    colors = _DARK if dark else _LIGHT
    body, truncated = _cut(text, limit)
    styles: dict[str, str] = {}
    for value in kept:
        if value.strip():
            styles[value] = f"background-color:{colors['add_word']};"
    for value in dropped:
        if value.strip():
            styles[value] = (f"background-color:{colors['del_word']}; "
                             "text-decoration:line-through;")
    pattern = (re.compile("|".join(re.escape(v) for v in sorted(styles, key=len, reverse=True)))
               if styles else None)
    rows = []
    for n, line in enumerate(body.splitlines(), 1):
        if pattern is None:
            rows.append(_row(n, html.escape(line), None, colors))
            continue
        out, pos = [], 0
        for m in pattern.finditer(line):
            out.append(html.escape(line[pos:m.start()]))
            out.append(f'<span style="{styles[m.group(0)]}">{html.escape(m.group(0))}</span>')
            pos = m.end()
        out.append(html.escape(line[pos:]))
        rows.append(_row(n, "".join(out), None, colors))
    font = ("font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace; font-size:9pt; "
            f"color:{colors['text']};")
    return f'<html><body style="{font}">{"".join(rows)}</body></html>', truncated
