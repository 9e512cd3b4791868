# Sourced by the entry scripts: create .venv (Python 3.11+) and install the project into it.
# Re-installs only when setup.cfg changed since the last install, so repeated runs are quick.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
stamp=".venv/.fsm-runner-installed"
if [ ! -f "$stamp" ] || [ setup.cfg -nt "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "==> installing fsm-runner and its test tools into .venv"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[test,bench]"
  touch "$stamp"
fi
export PATH="$ROOT/.venv/bin:$PATH"
