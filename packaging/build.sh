#!/usr/bin/env bash
# Build the one-folder desktop app and prove it runs: icons, PyInstaller bundle, desktop
# files, validation, then the built app's --self-test and a --screenshot.
# Usage: packaging/build.sh [VENV]   (default .venv; the app and pyinstaller must be importable
# there; when they are not, they are installed into it)
# Output: dist/sessionlens-linux/sessionlens/  (executable `sessionlens`, _internal/, share/)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${1:-.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PY="$VENV/bin/python"
if ! "$PY" -c "import PyInstaller, sessionlens.gui, sessionlens.engine" 2>/dev/null; then
    "$VENV/bin/pip" install -q -e ./engine -e ./gui "pyinstaller>=6.10"
fi
secs() { "$PY" -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$@"; }

OUT=dist/sessionlens-linux
APP="$OUT/sessionlens"
rm -rf build/pyinstaller build/icons "$OUT"
t_build=$(date +%s.%N)
"$PY" packaging/render_icons.py resources/icons/sessionlens.svg build/icons >/dev/null
"$VENV/bin/pyinstaller" --noconfirm --log-level WARN --workpath build/pyinstaller --distpath "$OUT" \
    packaging/pyinstaller/sessionlens.spec
# desktop integration files beside the executable, laid out as under an install prefix
mkdir -p "$APP/share/applications" "$APP/share/metainfo" "$APP/share/icons"
cp packaging/linux/dev.sessionlens.SessionLens.desktop "$APP/share/applications/"
cp packaging/linux/dev.sessionlens.SessionLens.metainfo.xml "$APP/share/metainfo/"
cp -r build/icons/hicolor "$APP/share/icons/"
echo "build time: $(secs "$t_build" "$(date +%s.%N)") s"
echo "bundle size: $(du -sh "$APP" | cut -f1)"

# validators are optional: use them where the machine has them
if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net "$APP/share/metainfo/dev.sessionlens.SessionLens.metainfo.xml"
else
    echo "appstreamcli not found: metainfo not validated"
fi
if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$APP/share/applications/dev.sessionlens.SessionLens.desktop"
    echo "desktop-file-validate: ok"
else
    echo "desktop-file-validate not found (apt-get install desktop-file-utils): .desktop not validated"
fi

# Run the built app as a user would on a fresh machine: empty home and tokenizer cache,
# started outside the source tree, and with no network when this machine lets us take it away.
SANDBOX=$(mktemp -d)
trap 'rm -rf "$SANDBOX"' EXIT
mkdir -p "$SANDBOX/home" "$SANDBOX/tiktoken" "$SANDBOX/tmp"
NONET=()
if unshare -rn true 2>/dev/null; then NONET=(unshare -rn); fi
run_frozen() {
    (cd "$SANDBOX" && "${NONET[@]}" env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$SANDBOX/home" \
        TMPDIR="$SANDBOX/tmp" TIKTOKEN_CACHE_DIR="$SANDBOX/tiktoken" QT_QPA_PLATFORM=offscreen \
        "$ROOT/$APP/sessionlens" "$@")
}
echo "running the built app ${NONET[*]:+with no network (${NONET[*]})}"
t0=$(date +%s.%N)
run_frozen --self-test
echo "self-test (start to exit 0): $(secs "$t0" "$(date +%s.%N)") s"
SHOT="$ROOT/build/frozen-shot.png"
rm -f "$SHOT"
t0=$(date +%s.%N)
run_frozen --screenshot "$SHOT" --basedir "$SANDBOX/appdata"
echo "screenshot (start to PNG written): $(secs "$t0" "$(date +%s.%N)") s"
[ -s "$SHOT" ] || { echo "no screenshot written" >&2; exit 1; }
echo "frozen app screenshot: build/frozen-shot.png"
