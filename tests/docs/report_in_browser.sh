#!/usr/bin/env bash
# `specdse plan --report FILE.html` opened in a real headless browser (Chromium, which
# scripts/install-deps.sh installs): the page renders with no console message, shows the winner
# the CSV names, the ranking bars and the timeline, and links its Perfetto JSON, which exists.
# A control page with a deliberate console.error must be caught, so the check cannot pass
# vacuously. Exit 77 (skipped) when no Chromium is installed.
# Usage: report_in_browser.sh SPECDSE_EXE OUT_DIR
set -euo pipefail
exe=$1
out=$2
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $browser ]]; then
  echo "report_in_browser: no Chromium on PATH (scripts/install-deps.sh installs it): skipped"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
# Console messages of the page go to stderr as "CONSOLE" lines; the profile stays in OUT_DIR.
render() {
  "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
    --user-data-dir="$out/profile" --dump-dom "file://$1" 2>"$2"
}
console_lines() { grep -E 'CONSOLE' "$1" || true; }

echo '<!DOCTYPE html><html><body><script>console.error("deliberate")</script></body></html>' >"$out/control.html"
render "$out/control.html" "$out/control.log" >/dev/null
if [[ -z $(console_lines "$out/control.log") ]]; then
  echo "report_in_browser: the browser's console is not captured (control page's error not seen)"
  cat "$out/control.log"
  exit 1
fi

"$exe" plan --system specpipe-8x3090-pcie --model llama-3.1-70b --report "$out/plan.html" --format csv >"$out/plan.csv"
winner=$(sed -n 's/^# winner: //p' "$out/plan.csv")
[[ -n $winner ]] || { echo "report_in_browser: no winner in the CSV"; exit 1; }
[[ -s $out/plan.trace.json ]] || { echo "report_in_browser: no plan.trace.json beside the report"; exit 1; }
render "$out/plan.html" "$out/plan.log" >"$out/dom.html"
errors=$(console_lines "$out/plan.log")
if [[ -n $errors ]]; then
  echo "report_in_browser: console messages while rendering the report:"
  echo "$errors"
  exit 1
fi
for needle in "$winner" 'id="ranking"' 'id="timeline"' 'href="plan.trace.json"' '<svg'; do
  if ! grep -qF -- "$needle" "$out/dom.html"; then
    echo "report_in_browser: the rendered page lacks: $needle"
    exit 1
  fi
done
echo "report_in_browser: rendered without console messages; winner: $winner"
