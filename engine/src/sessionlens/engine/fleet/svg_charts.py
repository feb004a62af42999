"""Small charts as inline SVG text: horizontal bars, stacked bars with a line, a histogram.

Why SVG written here rather than a plotting library: the report must be one self-contained
file that opens anywhere and prints; these three chart shapes are each a few dozen lines of
rectangles and text, while matplotlib (tens of MB, a figure per chart, SVG with embedded
fonts) or plotly (3.5 MB of JavaScript inlined per report) would dwarf the report itself
and add a dependency to the engine for what it draws. Colours follow the severities.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

__all__ = ["SEVERITY_COLORS", "hbar_chart", "histogram", "stacked_trend"]

SEVERITY_COLORS = {"critical": "#c62828", "warning": "#ef8f00", "notice": "#5c8bd6",
                   "ok": "#4caf50"}
_AXIS = "#888"
_TEXT = "#333"
_FONT = "font-family:system-ui,sans-serif;font-size:12px"


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" '
            f'style="{_FONT}"><title>{escape(title)}</title>' + "".join(body) + "</svg>")


def _label(text: str, limit: int = 34) -> str:
    return escape(text if len(text) <= limit else text[:limit - 1] + "…")


def hbar_chart(rows: Sequence[tuple[str, float, str]], title: str, *, width: int = 560,
               maximum: float | None = None, color: str = "#5c8bd6") -> str:
    """One bar per (label, value, value as text), longest scale ``maximum`` (default the
    largest value)."""
    bar_h, gap, left, right = 18, 6, 220, 70
    height = 28 + len(rows) * (bar_h + gap) + 4
    top = max([maximum or 0.0, *(v for _, v, _ in rows)]) or 1.0
    span = width - left - right
    body = [f'<text x="0" y="16" fill="{_TEXT}" font-weight="600">{escape(title)}</text>']
    for i, (label, value, text) in enumerate(rows):
        y = 28 + i * (bar_h + gap)
        w = max(1.0, span * value / top) if value > 0 else 0.0
        body.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end" fill="{_TEXT}">'
                    f'<title>{escape(label)}</title>{_label(label)}</text>')
        body.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                    f'fill="{color}" rx="2"/>')
        body.append(f'<text x="{left + w + 5:.1f}" y="{y + 13}" fill="{_TEXT}">'
                    f'{escape(text)}</text>')
    return _svg(width, height, body, title)


def stacked_trend(points: Sequence[tuple[str, dict[str, int], float]], title: str, *,
                  width: int = 900, height: int = 260) -> str:
    """Per period: a bar of compactions stacked by severity and a dot-line of the share of
    specifics kept (right axis, 0-100 %)."""
    left, right, top, bottom = 44, 48, 30, 46
    n = max(1, len(points))
    plot_w, plot_h = width - left - right, height - top - bottom
    most = max([1, *(sum(c.values()) for _, c, _ in points)])
    slot = plot_w / n
    bar_w = max(2.0, min(40.0, slot * 0.7))
    body = [f'<text x="0" y="16" fill="{_TEXT}" font-weight="600">{escape(title)}</text>',
            f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
            f'stroke="{_AXIS}"/>']
    for frac in (0.0, 0.5, 1.0):
        y = top + plot_h * (1 - frac)
        body.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{_AXIS}">'
                    f'{round(most * frac)}</text>')
        body.append(f'<text x="{left + plot_w + 6}" y="{y + 4:.1f}" fill="{_AXIS}">'
                    f'{frac:.0%}</text>')
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
                    f'stroke="#ddd" stroke-dasharray="3,3"/>')
    line: list[str] = []
    every = max(1, n // 12)  # at most ~12 period labels
    for i, (period, counts, kept) in enumerate(points):
        x = left + slot * i + (slot - bar_w) / 2
        y = top + plot_h
        for sev in ("ok", "notice", "warning", "critical"):
            h = plot_h * counts.get(sev, 0) / most
            if h > 0:
                y -= h
                body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
                            f'height="{h:.1f}" fill="{SEVERITY_COLORS[sev]}">'
                            f'<title>{escape(period)}: {counts[sev]} {sev}</title></rect>')
        cx, cy = x + bar_w / 2, top + plot_h * (1 - kept)
        line.append(f"{cx:.1f},{cy:.1f}")
        body.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="#222">'
                    f'<title>{escape(period)}: {kept:.0%} of specifics kept</title></circle>')
        if i % every == 0:
            body.append(f'<text x="{cx:.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
                        f'fill="{_TEXT}">{escape(period)}</text>')
    if len(line) > 1:
        body.append(f'<polyline points="{" ".join(line)}" fill="none" stroke="#222" '
                    f'stroke-width="1.5"/>')
    lx = left
    for sev in ("critical", "warning", "notice", "ok"):
        body.append(f'<rect x="{lx}" y="{height - 14}" width="10" height="10" '
                    f'fill="{SEVERITY_COLORS[sev]}"/>'
                    f'<text x="{lx + 14}" y="{height - 5}" fill="{_TEXT}">{sev}</text>')
        lx += 80
    body.append(f'<text x="{lx + 10}" y="{height - 5}" fill="{_TEXT}">● share of specifics '
                'kept (right axis)</text>')
    return _svg(width, height, body, title)


def histogram(values: Sequence[float], title: str, *, bins: int = 10, width: int = 420,
              height: int = 220) -> str:
    """How many of ``values`` (shares 0..1) fall in each tenth."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, max(0, int(v * bins)))] += 1
    left, bottom, top = 36, 34, 28
    plot_w, plot_h = width - left - 10, height - top - bottom
    most = max([1, *counts])
    slot = plot_w / bins
    body = [f'<text x="0" y="16" fill="{_TEXT}" font-weight="600">{escape(title)}</text>',
            f'<text x="{left - 6}" y="{top + 4}" text-anchor="end" fill="{_AXIS}">{most}</text>',
            f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
            f'stroke="{_AXIS}"/>']
    for i, c in enumerate(counts):
        h = plot_h * c / most
        x = left + slot * i + 1
        color = SEVERITY_COLORS["critical"] if i < 3 else (
            SEVERITY_COLORS["warning"] if i < 7 else SEVERITY_COLORS["ok"])
        body.append(f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{slot - 2:.1f}" '
                    f'height="{h:.1f}" fill="{color}"><title>{i * 10}-{(i + 1) * 10}%: {c}'
                    '</title></rect>')
        if c:
            body.append(f'<text x="{x + (slot - 2) / 2:.1f}" y="{top + plot_h - h - 3:.1f}" '
                        f'text-anchor="middle" fill="{_TEXT}">{c}</text>')
        if i % 2 == 0:
            body.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" fill="{_AXIS}">'
                        f'{i * 10}%</text>')
    body.append(f'<text x="{left + plot_w}" y="{top + plot_h + 28}" text-anchor="end" '
                f'fill="{_AXIS}">share of the span\'s specifics the summary kept</text>')
    return _svg(width, height, body, title)
