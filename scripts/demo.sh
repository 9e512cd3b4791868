#!/usr/bin/env bash
# Set everything up and run the main job: the Demo Shop machines (English and Chinese) against the
# simulated phone, ending with where each report.html is. Extra arguments go to "fsm-runner run".
source "$(dirname "$0")/_venv.sh"
out="${FSM_RUNNER_DEMO_OUT:-runs/demo}"
echo "==> running the Demo Shop machines on the simulated phone (reports under $out/)"
set +e
fsm-runner run machines/demo_shop --out "$out" --junit "$out/junit.xml" "$@"
rc=$?
set -e
echo "==> done (exit code $rc): open any report.html above in a browser; all runs are under $out/"
exit "$rc"
