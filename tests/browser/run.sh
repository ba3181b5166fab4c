#!/usr/bin/env bash
# The HTML report in a real browser (issue 15): `check --format html` on the shipped
# claims, loaded from disk by headless Chromium; the page's inline script counts the
# figures that rendered (an inline SVG with a non-empty bounding box and drawn series)
# into <body data-figures-ok=…>, and this script fails unless every figure did and the
# count equals the figures declared for the claims run. Screenshot: $SCREENSHOT.
#
# Usage: TASKASSIGN=target/release/taskassign bash tests/browser/run.sh [CLAIM PATHS...]
# (default: every claim in proofs-check/). Needs chromium (make test-browser installs it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BIN=${TASKASSIGN:-target/release/taskassign}
SCREENSHOT=${SCREENSHOT:-/tmp/report.png}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "test-browser: chromium not found" >&2; exit 1; }

out=$(mktemp -d)
profile=$(mktemp -d)
trap 'rm -rf "$out" "$profile"' EXIT

status=0
"$BIN" check "$@" --format html --out "$out" >"$out/check.txt" || status=$?
# 0: nothing fails; 1: a claim fails (the page shows it); anything else: no report
if [ "$status" -gt 1 ]; then
  cat "$out/check.txt" >&2
  echo "test-browser: check exited $status" >&2
  exit 1
fi
page="$out/index.html"
[ -s "$page" ] || { echo "test-browser: no $page" >&2; exit 1; }

# the figures the report must show: one <figure class="plot"> per declared figure of a run claim
declared=$(grep -c '<figure class="plot"' "$page" || true)

flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile"
  --virtual-time-budget=5000)
dom=$(timeout 120 "$CHROMIUM" "${flags[@]}" --dump-dom "file://$page" 2>/dev/null)
body=$(printf '%s' "$dom" | grep -o '<body[^>]*>' | head -n 1)
total=$(printf '%s' "$body" | sed -n 's/.*data-figures-total="\([0-9]*\)".*/\1/p')
ok=$(printf '%s' "$body" | sed -n 's/.*data-figures-ok="\([0-9]*\)".*/\1/p')
fonts=$(printf '%s' "$body" | sed -n 's/.*data-fonts-ok="\([a-z]*\)".*/\1/p')
echo "test-browser: $declared figures in the page, $total seen by the browser, $ok rendered; bundled font loaded: $fonts"
if [ -z "$ok" ] || [ "$declared" -eq 0 ] || [ "$ok" != "$declared" ] || [ "$total" != "$declared" ] || [ "$fonts" != "true" ]; then
  echo "test-browser: FAILED (body: $body)" >&2
  exit 1
fi
# no external reference of any kind: the page is self-contained
if grep -Eq '(src|href)="(https?:|//)' "$page" || grep -Eq 'url\((https?:|//)' "$page"; then
  echo "test-browser: FAILED: the page refers to the network" >&2
  exit 1
fi
timeout 120 "$CHROMIUM" "${flags[@]}" --hide-scrollbars --window-size=1280,2000 \
  --screenshot="$SCREENSHOT" "file://$page" >/dev/null 2>&1
[ -s "$SCREENSHOT" ] || { echo "test-browser: no screenshot" >&2; exit 1; }
echo "test-browser: screenshot $SCREENSHOT"
echo "1 passed, 0 failed"
