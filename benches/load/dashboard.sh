#!/usr/bin/env bash
# Server time of the dashboard's pages on the seeder's database: an account with 500 links and an
# account whose link has 1,000,000 scans. Each page is loaded by wrk (1 thread, 2 connections,
# DURATION seconds, after a 2-second warm-up) with a logged-in session; the figures are the
# server's own durations from its access log (from the request's arrival to its answer, blocking
# pool queueing included), so the network and wrk are not counted.
#
# Usage: benches/load/dashboard.sh        (from anywhere; about 2 minutes after the build)
# Knobs: DURATION (seconds per page, default 10), SCANS (default 1000000).
# Needs wrk and curl. Prints a Markdown table: requests, p50, p99 and max server time in ms.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DURATION="${DURATION:-10}"
SCANS="${SCANS:-1000000}"
PASSWORD="benchmark password 7"

cd "$ROOT"
cargo build --release --quiet -p qr-cli -p qr-benches --bins
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
WORK="$(mktemp -d)"
SERVER=""
cleanup() {
    if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "Seeding $SCANS scans and 500 links..." >&2
"$BIN/seed" "$WORK/qr.db" "$SCANS" > "$WORK/seed.env"
# shellcheck disable=SC1091
source "$WORK/seed.env"

RUST_LOG=info "$BIN/qr" serve --db "$WORK/qr.db" --listen 127.0.0.1:0 > "$WORK/out" 2> "$WORK/log" &
SERVER=$!
for _ in $(seq 1 200); do
    ADDR="$(sed -n 's|^Listening on http://||p' "$WORK/out" | head -n1)"
    [ -n "$ADDR" ] && break
    sleep 0.05
done
[ -n "$ADDR" ] || { cat "$WORK/log" >&2; exit 1; }
BASE="http://$ADDR"

# The value of the first name="$2" value="…" field in the page file $1.
field() { sed -n "s/.*name=\"$2\" value=\"\([^\"]*\)\".*/\1/p" "$1" | head -n1; }

# Sets a password with a reset link and logs in; prints the session cookie.
session() {
    local email="$1" jar="$WORK/jar-$1"
    local link
    link="$("$BIN/qr" accounts reset-link --db "$WORK/qr.db" --email "$email" --base-url "$BASE")"
    curl -s -c "$jar" -b "$jar" "$link" > "$WORK/page"
    curl -s -c "$jar" -b "$jar" -o /dev/null "$BASE/dashboard/reset/password" \
        --data-urlencode "csrf=$(field "$WORK/page" csrf)" \
        --data-urlencode "token=$(field "$WORK/page" token)" \
        --data-urlencode "password=$PASSWORD"
    curl -s -c "$jar" -b "$jar" "$BASE/dashboard/login" > "$WORK/page"
    curl -s -c "$jar" -b "$jar" -o /dev/null "$BASE/dashboard/login" \
        --data-urlencode "csrf=$(field "$WORK/page" csrf)" \
        --data-urlencode "email=$email" --data-urlencode "password=$PASSWORD"
    awk '$6 == "qr_session" { print "qr_session=" $7 }' "$jar"
}

LINKS_COOKIE="$(session links@load.example)"
ANALYTICS_COOKIE="$(session analytics@load.example)"
[ -n "$LINKS_COOKIE" ] && [ -n "$ANALYTICS_COOKIE" ] || { echo "login failed" >&2; exit 1; }

# measure NAME COOKIE PATH: loads the page, then reads the server's durations of that path.
measure() {
    local name="$1" cookie="$2" path="$3"
    local status
    status="$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $cookie" "$BASE$path")"
    [ "$status" = 200 ] || { echo "$path answered $status" >&2; exit 1; }
    wrk -t1 -c2 -d2s -H "Cookie: $cookie" "$BASE$path" > /dev/null
    local start
    start="$(wc -l < "$WORK/log")"
    wrk -t1 -c2 -d"${DURATION}s" -H "Cookie: $cookie" "$BASE$path" > /dev/null
    # Only this page is requested in the window; the access log names route templates, not paths.
    tail -n +"$((start + 1))" "$WORK/log" | grep 'qr_http::access' \
        | sed -n 's/.*duration_ms=\([0-9.]*\).*/\1/p' | sort -n > "$WORK/durations"
    python3 - "$name" "$path" "$WORK/durations" <<'PY'
import sys
name, path, file = sys.argv[1:4]
d = [float(x) for x in open(file)]
q = lambda p: d[min(len(d) - 1, int(p * len(d)))]
print(f"| {name} | `{path.split('?')[0]}` | {len(d):,} | {q(0.5):.3f} | {q(0.99):.3f} | {d[-1]:.3f} |")
PY
}

FIRST_DAY="$(date -u -d '-30 days' +%F)"
echo "Measuring $DURATION s per page..." >&2
echo "| page | path | requests | p50 ms | p99 ms | max ms |"
echo "|---|---|---|---|---|---|"
measure overview "$LINKS_COOKIE" "/dashboard"
measure "links, page 1 of 25" "$LINKS_COOKIE" "/dashboard/links"
measure "links, page 13" "$LINKS_COOKIE" "/dashboard/links?page=13"
measure "links, search" "$LINKS_COOKIE" "/dashboard/links?q=Flyer+49"
measure keys "$LINKS_COOKIE" "/dashboard/keys"
measure account "$LINKS_COOKIE" "/dashboard/account"
measure "link code (SVG)" "$LINKS_COOKIE" "/dashboard/links/$(curl -s -H "Cookie: $LINKS_COOKIE" "$BASE/dashboard/links" | sed -n 's|.*href="/dashboard/links/\([0-9a-f-]\{36\}\)".*|\1|p' | head -n1)/qr.svg"
measure "analytics, 1,000,000 scans, a year" "$ANALYTICS_COOKIE" "/dashboard/links/$ANALYTICS_LINK"
measure "analytics, last 30 days" "$ANALYTICS_COOKIE" "/dashboard/links/$ANALYTICS_LINK?startDate=$FIRST_DAY"
measure designer "$ANALYTICS_COOKIE" "/dashboard/design"
