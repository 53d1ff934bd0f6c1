# Sourced by scripts/play, scripts/test, scripts/lint and scripts/bench: create or reuse .venv and
# install the core and every bundled plugin (editable), reinstalling only when a pyproject.toml
# changed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${P2PCARDS_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"

if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "p2pcards needs Python 3.11 or newer (found: $("$PY" --version 2>&1))." >&2
  exit 2
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "Creating $VENV ..." >&2
  "$PY" -m venv "$VENV"
fi

# Everything that decides what gets installed; a change in any of these triggers a reinstall.
stamp_inputs() {
  cd "$ROOT"
  ls -d plugins/*/ 2>/dev/null || true
  cat pyproject.toml plugins/*/pyproject.toml 2>/dev/null || true
}
want="$(stamp_inputs | sha256sum | cut -d' ' -f1)"
stamp="$VENV/.installed-${P2PCARDS_EXTRAS:-core}"
# The test install is a superset of the plain one, so it satisfies scripts/play too (but not the
# lint install, which needs its own extra).
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] \
    && { [ -n "${P2PCARDS_EXTRAS:-}" ] || [ "$(cat "$VENV/.installed-test" 2>/dev/null)" != "$want" ]; }; then
  echo "Installing p2pcards and its bundled games into $VENV ..." >&2
  args=(-e "$ROOT${P2PCARDS_EXTRAS:+[$P2PCARDS_EXTRAS]}")
  for dir in "$ROOT"/plugins/*/; do
    [ -f "$dir/pyproject.toml" ] && args+=(-e "$dir")
  done
  # The build backend first, then every package built with it in this environment: pip's
  # isolated builds set up a fresh environment with setuptools for each of the five packages,
  # about half of a fresh clone's 30 s of set-up. (77: the SPDX license strings.)
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "setuptools>=77"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation "${args[@]}"
  echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
