#!/usr/bin/env bash
# The whole test suite (`npm test`): install the Debian tools the tests use when they are missing
# (as root), make sure PostgreSQL answers (start the local cluster when it is installed but
# down), type check, then every bun:test file on SQLite and PostgreSQL.
# Extra arguments go to `bun test` (e.g. `npm test -- tests/http`).
set -uo pipefail
cd "$(dirname "$0")/.."
# Run the same way from npm (which puts node_modules/.bin on PATH) or straight from a shell.
export PATH="$PWD/node_modules/.bin:$PATH"

# Debian packages the tests use: PostgreSQL, jing (OPDS 1.2 schema validation), prometheus (its
# promtool parses the metrics exposition), 7zip (crafts hostile 7z archives for the cb7 tests),
# chromium (the web tests drive it through playwright-core), fonts-noto-cjk (Japanese and Chinese
# pages are measured at 375 px with the font their readers have: tests/web/languages.test.ts).
missing=()
command -v pg_ctlcluster >/dev/null || missing+=(postgresql)
command -v jing >/dev/null || missing+=(jing)
command -v promtool >/dev/null || missing+=(prometheus)
command -v 7zz >/dev/null || missing+=(7zip)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -d /usr/share/fonts/opentype/noto ] && ls /usr/share/fonts/opentype/noto | grep -q CJK || missing+=(fonts-noto-cjk)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || exit 1
  else
    echo "the tests need these Debian packages: ${missing[*]} (install them as root)" >&2
    exit 1
  fi
fi

pg_ready() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
if [[ "${LONGBOX_TEST_DATABASES:-sqlite,postgres}" == *postgres* ]] && ! pg_ready; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "PostgreSQL is down: starting the local cluster"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    for _ in $(seq 1 30); do pg_ready && break; sleep 1; done
  fi
  pg_ready || { echo "PostgreSQL is not reachable on 127.0.0.1:5432; the suite needs it (or set LONGBOX_TEST_DATABASES=sqlite)" >&2; exit 1; }
fi

echo "== type check"
tsc --noEmit -p . || exit 1

echo "== tests"
log=$(mktemp)
bun test --timeout 60000 "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -Eo '^ *[0-9]+ pass$' "$log" | tail -n1 | grep -Eo '[0-9]+')
failed=$(grep -Eo '^ *[0-9]+ fail$' "$log" | tail -n1 | grep -Eo '[0-9]+')
rm -f "$log"
echo "${passed:-0} passed, ${failed:-0} failed"
exit "$status"
