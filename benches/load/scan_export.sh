#!/usr/bin/env bash
# The scan export of a link with 1,000,000 scans (the seeder's analytics link): the time and
# peak RSS of `qr analytics export` writing CSV, and the server's peak RSS (VmHWM) before and
# after one `GET /api/analytics/export?format=ndjson` read by curl. A body built in memory would
# add its whole size (88 MB of CSV, 200 MB of NDJSON) to the peak; a streamed one only pages.
#
# Usage: benches/load/scan_export.sh      (from anywhere; Linux, for /proc/PID/status)
# Knobs: SCANS (default 1000000). Needs curl and GNU time (/usr/bin/time).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SCANS="${SCANS:-1000000}"
cd "$ROOT"
cargo build --release --quiet -p qr-cli -p qr-benches --bins
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
DIR="$(mktemp -d)"
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT

eval "$("$BIN/seed" "$DIR/qr.db" "$SCANS")"
/usr/bin/time -f "cli: %e s, peak RSS %M KB" "$BIN/qr" analytics export --db "$DIR/qr.db" \
    --link "$ANALYTICS_LINK" --out "$DIR/scans.csv"

"$BIN/qr" serve --db "$DIR/qr.db" --listen 127.0.0.1:0 >"$DIR/serve.out" 2>"$DIR/serve.err" &
PID=$!
for _ in $(seq 100); do grep -q Listening "$DIR/serve.out" && break; sleep 0.1; done
ADDR="$(sed -n 's/.*http:\/\///p' "$DIR/serve.out" | head -1)"
hwm() { awk '/VmHWM/ {print $2}' "/proc/$PID/status"; }
# One keyed request first, so the key, the account and the store's connections are warm.
curl -s -o /dev/null -H "x-api-key: $KEY_ANALYTICS" "http://$ADDR/api/analytics?linkId=$ANALYTICS_LINK"
BEFORE="$(hwm)"
curl -s -o "$DIR/scans.ndjson" -w "http: status %{http_code}, %{size_download} bytes in %{time_total} s\n" \
    -H "x-api-key: $KEY_ANALYTICS" \
    "http://$ADDR/api/analytics/export?linkId=$ANALYTICS_LINK&format=ndjson"
echo "server peak RSS: $BEFORE KB before, $(hwm) KB after; $(wc -l <"$DIR/scans.ndjson") lines"
