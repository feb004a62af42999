#!/usr/bin/env bash
# CI proof that the desktop app builds and works on a clean machine: install PyInstaller into
# the venv the tests used, run packaging/build.sh (bundle, desktop files, validation, the
# built app's --self-test and --screenshot, offline). Exit 0 on success, non-zero on failure.
#
# Usage: packaging/ci-build.sh [ELAPSED_S]
#   ELAPSED_S  seconds the CI job has already used (.ci/run passes bash's $SECONDS).
# The whole CI job must finish within CI_BUDGET_S (default 1680 s, under the 30 minutes CI may take on 2 cores). The build is skipped,
# loudly and with exit 0, when fewer than CI_BUILD_NEEDS_S (default 300 s; measured: ~70 s
# on 2 cores) remain; if it runs past the budget it is stopped and CI fails.
set -euo pipefail
cd "$(dirname "$0")/.."
elapsed=${1:-0}
budget=${CI_BUDGET_S:-1680}
needs=${CI_BUILD_NEEDS_S:-300}
left=$((budget - elapsed))
if [ "$left" -lt "$needs" ]; then
    echo "ci-build: SKIPPED, only ${left}s of the ${budget}s CI budget left (needs ${needs}s)"
    exit 0
fi
VENV=${VENV:-.venv}
t0=$SECONDS
"$VENV/bin/pip" install -q "pyinstaller>=6.10"
echo "ci-build: pyinstaller installed in $((SECONDS - t0)) s"
rc=0
timeout --kill-after=10 "$((left - (SECONDS - t0)))" bash packaging/build.sh "$VENV" || rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "ci-build: FAILED, build and self-test did not finish within the CI budget" >&2
elif [ "$rc" -ne 0 ]; then
    echo "ci-build: FAILED (exit $rc)" >&2
else
    echo "ci-build: ok, bundle built and its self-test passed ($((SECONDS - t0)) s)"
fi
exit "$rc"
