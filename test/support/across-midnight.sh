#!/usr/bin/env bash
# Runs test files with the clock a few seconds before a UTC midnight, so that the run
# crosses it: `test/support/across-midnight.sh [--before SECONDS] test/a.test.ts ...`
#
# The clocks that name days are moved by the same offset (libfaketime, `apt-get install
# faketime`): this run's node processes and their children, and a PostgreSQL of its own,
# started for the run and removed after it. Moving node's clock alone would set it hours
# apart from the shared PostgreSQL's, which the migrations and the tests' SQL read
# (now()): a mismatch no real night has. The machine's Redis serves as it is (redis-server
# hangs under libfaketime): it holds times only as TTLs, and BullMQ's timestamps are
# node's. Monotonic clocks are left alone (timers).
set -euo pipefail
cd "$(dirname "$0")/../.."

BEFORE=20
if [ "${1:-}" = "--before" ]; then
  BEFORE=$2
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [--before SECONDS] TEST_FILE..." >&2; exit 2; }

LIB=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -n 1 || true)
[ -n "$LIB" ] || { echo "libfaketime is missing: apt-get install -y faketime" >&2; exit 2; }
PG_BIN=/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -V | tail -n 1)/bin

# The offset that puts the next midnight (UTC) BEFORE seconds ahead.
NOW=$(date +%s)
OFFSET=$(((NOW / 86400 + 1) * 86400 - BEFORE - NOW))
[ "$OFFSET" -ge 0 ] || OFFSET=$((OFFSET + 86400))
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
PG_PORT=$(free_port)

DIR=$(mktemp -d /tmp/across-midnight-XXXXXX)
chown postgres: "$DIR"
cleanup() {
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
trap "exit 143" INT TERM

export LD_PRELOAD=$LIB FAKETIME="+$OFFSET" FAKETIME_DONT_FAKE_MONOTONIC=1
runuser -u postgres -- "$PG_BIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 \
  --no-sync >/dev/null
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/postgres.log" -w -o \
  "-p $PG_PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c timezone=UTC" \
  start >/dev/null
"$PG_BIN/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -c 'CREATE DATABASE ingest_test'

echo "across-midnight: clocks at $(date -u '+%F %T') UTC (offset +${OFFSET}s), PostgreSQL's at" \
  "$("$PG_BIN/psql" -At -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "SELECT to_char(now(), 'YYYY-MM-DD HH24:MI:SS')")"
status=0
STARTED_MS=$(date +%s%3N)
TEST_DATABASE_URL="postgresql://postgres:postgres@127.0.0.1:$PG_PORT/ingest_test" \
  npx vitest run --reporter=default --reporter=json --outputFile.json="$DIR/report.json" "$@" \
  || status=$?
# Where the midnight fell for each file, by the moved clock: before vitest started, before
# the file's first test (vitest's start, the global setup, its beforeAll), among its tests,
# or after them.
node -e '
  const [path, started, midnight] = process.argv.slice(1).map((arg, i) => i ? Number(arg) : arg);
  const report = JSON.parse(require("fs").readFileSync(path, "utf8"));
  const at = (ms) => new Date(ms).toISOString().slice(11, 23);
  for (const { name, status, startTime: first, endTime: last } of report.testResults) {
    const where =
      midnight <= started ? "before vitest started" :
      midnight <= first ? "before its first test" :
      midnight <= last ? "among its tests" : "after its tests";
    console.log(`across-midnight: ${status} ${name.replace(process.cwd() + "/", "")},` +
      ` tests from ${at(first)} to ${at(last)}: midnight fell ${where}`);
  }' "$DIR/report.json" "$STARTED_MS" "$(((NOW + OFFSET + BEFORE) * 1000))" || true
echo "across-midnight: clocks at $(date -u '+%F %T') UTC, PostgreSQL's at" \
  "$("$PG_BIN/psql" -At -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "SELECT to_char(now(), 'YYYY-MM-DD HH24:MI:SS')")"
exit "$status"
