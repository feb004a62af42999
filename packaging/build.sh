#!/usr/bin/env bash
# Build the one-folder desktop app and prove it runs: icons, PyInstaller bundle, self-test.
# Usage: packaging/build.sh [VENV]   (default .venv; the app and pyinstaller are installed into it)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -e ./engine -e ./gui pyinstaller
OUT=dist/sessionlens-linux
rm -rf build/pyinstaller "$OUT"
start=$(date +%s.%N)
"$VENV/bin/python" packaging/render_icons.py resources/icons/sessionlens.svg build/icons >/dev/null
"$VENV/bin/pyinstaller" --noconfirm --log-level WARN --workpath build/pyinstaller --distpath "$OUT" \
    packaging/pyinstaller/sessionlens.spec
# desktop integration files beside the binary, laid out as under a prefix
APP="$OUT/sessionlens"
mkdir -p "$APP/share/applications" "$APP/share/metainfo" "$APP/share/icons"
cp packaging/linux/dev.sessionlens.SessionLens.desktop "$APP/share/applications/"
cp packaging/linux/dev.sessionlens.SessionLens.metainfo.xml "$APP/share/metainfo/"
cp -r build/icons/hicolor "$APP/share/icons/"
end=$(date +%s.%N)
echo "build time: $(python3 -c "print(round($end - $start, 1))") s"
printf 'bundle size: %s\n' "$(du -sh "$APP" | cut -f1)"
if command -v appstreamcli >/dev/null; then appstreamcli validate --no-net packaging/linux/*.metainfo.xml; fi
if command -v desktop-file-validate >/dev/null; then desktop-file-validate packaging/linux/*.desktop; fi
# the built app must start headless and pass its self-test
t0=$(date +%s.%N)
QT_QPA_PLATFORM=offscreen "$APP/sessionlens" --self-test
t1=$(date +%s.%N)
echo "self-test (start to exit): $(python3 -c "print(round($t1 - $t0, 2))") s"
QT_QPA_PLATFORM=offscreen "$APP/sessionlens" --screenshot build/frozen-shot.png
echo "frozen app screenshot: build/frozen-shot.png"
