#!/usr/bin/env bash
# Set everything up and run the whole test suite: lint, types, tests.
# Slow suites (marked "slow") run when CI=true or with --all.
source "$(dirname "$0")/_venv.sh"
marker=(-m "not slow")
if [ "${CI:-}" = "true" ] || [ "${1:-}" = "--all" ]; then marker=(); fi
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  # The report's browser test needs a real headless browser; it is skipped (with the reason)
  # where none can be installed, and required when CI=true.
  echo "==> installing chromium for the report's browser test"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
    || echo "chromium could not be installed; the browser test will say why it is skipped"
fi
echo "==> ruff"
ruff check fsm_runner machines adapters tests scripts
echo "==> mypy (strict)"
mypy
echo "==> pytest"
set +e
python -m pytest "${marker[@]}" -n "${PYTEST_WORKERS:-2}" -q
rc=$?
set -e
if [ "$rc" -eq 5 ]; then echo "pytest collected no tests: that is a failure"; exit 1; fi
exit "$rc"
