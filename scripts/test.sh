#!/usr/bin/env bash
# Set everything up and run the whole test suite: lint, types, tests.
# Slow suites (marked "slow") run when CI=true or with --all.
source "$(dirname "$0")/_venv.sh"
marker=(-m "not slow")
if [ "${CI:-}" = "true" ] || [ "${1:-}" = "--all" ]; then marker=(); fi
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
