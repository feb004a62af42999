"""Draw the app's small SVG icons (run once; the output is committed under gui assets).

Each icon is a 16x16 viewBox shape in one colour, so it reads at list-row size in both
themes. Usage: python resources/make_icons.py
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "gui" / "src" / "sessionlens" / "gui" / "assets" / "icons"

#: The app icon is not drawn here: its single source is this master, copied verbatim
#: (tests/test_packaging.py checks the copy is byte-identical).
MASTER = Path(__file__).resolve().parent / "icons" / "sessionlens.svg"

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">'


def badge(color: str, letter: str) -> str:
    """A filled rounded square with one white letter (role icons)."""
    return (f'<rect x="1" y="1" width="14" height="14" rx="3.5" fill="{color}"/>'
            f'<text x="8" y="12" font-family="DejaVu Sans, sans-serif" font-size="10" '
            f'font-weight="bold" text-anchor="middle" fill="#ffffff">{letter}</text>')


ICONS: dict[str, str] = {
    "role-user": badge("#2f7ed8", "U"),
    "role-assistant": badge("#7b4fc9", "A"),
    "role-tool-call": badge("#c27c0e", "T"),
    "role-tool-result": badge("#3c9a5f", "R"),
    "role-tool-error": badge("#d64541", "R"),
    "role-bash": badge("#4a5563", "$"),
    "role-custom": badge("#8a8f98", "C"),
    "type-compaction": ('<rect x="1" y="1" width="14" height="14" rx="3.5" fill="#e0861a"/>'
                        '<path d="M4 5h8M5 8h6M6 11h4" stroke="#fff" stroke-width="1.8" '
                        'stroke-linecap="round"/>'),
    "type-branch": ('<circle cx="4" cy="3.5" r="2" fill="#1f9e89"/><circle cx="4" cy="12.5" r="2" '
                    'fill="#1f9e89"/><circle cx="12" cy="6" r="2" fill="#1f9e89"/>'
                    '<path d="M4 5.5v5M4 9c0-2 8-1 8-3" stroke="#1f9e89" stroke-width="1.5" '
                    'fill="none"/>'),
    "type-setting": ('<circle cx="8" cy="8" r="5.5" fill="none" stroke="#8a8f98" stroke-width="1.6"/>'
                     '<circle cx="8" cy="8" r="2" fill="#8a8f98"/>'),
    "type-label": ('<path d="M2 3h7l5 5-5 5H2z" fill="#d4a017"/><circle cx="5" cy="8" r="1.3" '
                   'fill="#fff"/>'),
    "type-reset": ('<rect x="1" y="1" width="14" height="14" rx="3.5" fill="#b03060"/>'
                   '<path d="M11.5 8a3.5 3.5 0 1 1-1-2.5M11 3v3h-3" stroke="#fff" '
                   'stroke-width="1.6" fill="none"/>'),
    "type-other": '<circle cx="8" cy="8" r="4" fill="none" stroke="#8a8f98" stroke-width="1.6"/>',
    "mark-error": ('<circle cx="8" cy="8" r="7" fill="#d64541"/><path d="M8 4v5" stroke="#fff" '
                   'stroke-width="2" stroke-linecap="round"/><circle cx="8" cy="11.8" r="1.1" '
                   'fill="#fff"/>'),
    "mark-aborted": ('<circle cx="8" cy="8" r="7" fill="#8a8f98"/><rect x="5" y="5" width="6" '
                     'height="6" fill="#fff"/>'),
    "mark-overflow": ('<path d="M8 1l7 13H1z" fill="#e0861a"/><path d="M8 6v4" stroke="#fff" '
                      'stroke-width="2" stroke-linecap="round"/><circle cx="8" cy="12" r="1" '
                      'fill="#fff"/>'),
    "mark-pinned": ('<path d="M5 1.5h6l-1.2 4.2 2.7 3.3h-9l2.7-3.3z" fill="#c0392b"/>'
                    '<path d="M8 9v5.5" stroke="#c0392b" stroke-width="1.6" '
                    'stroke-linecap="round"/>'),
    "action-open": ('<path d="M1.5 4h5l1.5 1.5h6.5v8h-13z" fill="none" stroke="#7a8594" '
                    'stroke-width="1.4" stroke-linejoin="round"/>'),
    "action-reload": ('<path d="M13 8a5 5 0 1 1-1.5-3.6M12 1.5v3.5H8.5" fill="none" '
                      'stroke="#7a8594" stroke-width="1.6" stroke-linecap="round"/>'),
    "action-cancel": ('<circle cx="8" cy="8" r="6.5" fill="none" stroke="#d64541" stroke-width="1.6"/>'
                      '<path d="M5.5 5.5l5 5M10.5 5.5l-5 5" stroke="#d64541" stroke-width="1.6"/>'),
    "action-settings": ('<circle cx="8" cy="8" r="2.5" fill="none" stroke="#7a8594" stroke-width="1.5"/>'
                        '<path d="M8 1v2.5M8 12.5V15M1 8h2.5M12.5 8H15M3 3l1.8 1.8M11.2 11.2L13 13'
                        'M3 13l1.8-1.8M11.2 4.8L13 3" stroke="#7a8594" stroke-width="1.5"/>'),
    "action-tree": ('<path d="M3 2v11M3 5h5M3 12h5M8 5h5M8 12h5" stroke="#7a8594" stroke-width="1.5" '
                    'fill="none"/>'),
    "action-browser": ('<rect x="1.5" y="2" width="13" height="12" rx="1.5" fill="none" '
                       'stroke="#7a8594" stroke-width="1.4"/><path d="M1.5 5.5h13M5 5.5V14" '
                       'stroke="#7a8594" stroke-width="1.4"/>'),
    "action-sample": ('<path d="M3 1.5h7l3 3v10H3z" fill="none" stroke="#7a8594" stroke-width="1.4"/>'
                      '<path d="M5 7h6M5 9.5h6M5 12h4" stroke="#7b4fc9" stroke-width="1.3"/>'),
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, body in ICONS.items():
        (OUT / f"{name}.svg").write_text(HEAD + body + "</svg>\n", encoding="utf-8")
    (OUT / "app.svg").write_bytes(MASTER.read_bytes())
    print(f"wrote {len(ICONS) + 1} icons to {OUT}")


if __name__ == "__main__":
    main()
