#!/usr/bin/env bash
# Load test of the release server against a hyper hello-world baseline, in one run; the
# redirect_campaign case redirects a link with two rules, an A/B split and UTM (issue 14).
#
# Usage: benches/load/run.sh            (from anywhere; takes about 5 minutes)
# Knobs: DURATION (seconds per case, default 15), CONNS (default 64), THREADS (wrk threads, 2),
#        SCANS (scans seeded on the analytics link, default 1000000), SKIP_CORE=1 (skip the
#        criterion run that predicts the generate throughput), COMPARE=metrics or
#        COMPARE=/path/to/older/release/qr (instead of the cases above: two servers measured
#        alternately for ROUNDS rounds, default 3, with the ratio of each case; see below),
#        COMPARE=domain (one server: the redirect of a code on the service's address, /r/CODE,
#        against the same target's code on a verified customer's domain, /CODE with
#        Host: go.load.test, alternately for ROUNDS rounds), COMPARE=linkcode (one server: a
#        link's code in its saved design, GET /api/links/qr?id=, against GET /api/generate of
#        the same image from the same parameters, alternately for ROUNDS rounds).
# Needs wrk (installed with apt-get when missing and running as root). Prints a Markdown table:
# requests per second, p50, p99, peak RSS of the server during the case, and errors.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
LOAD_DIR="$ROOT/benches/load"
DURATION="${DURATION:-15}"
CONNS="${CONNS:-64}"
THREADS="${THREADS:-2}"
SCANS="${SCANS:-1000000}"
export LOAD_DIR

if ! command -v wrk >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y wrk >/dev/null
    else
        echo "wrk is needed: install it (apt-get install wrk)" >&2
        exit 2
    fi
fi

cd "$ROOT"
cargo build --release --quiet -p qr-cli -p qr-benches --bins
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"

WORK="$(mktemp -d)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "Seeding $SCANS scans and 500 links..." >&2
"$BIN/seed" "$WORK/qr.db" "$SCANS" > "$WORK/seed.env"
# shellcheck disable=SC1091
source "$WORK/seed.env"

# Starts a program that prints "Listening on http://ADDR"; sets ADDR and PID.
start() {
    local log="$1"; shift
    "$@" > "$log.out" 2> "$log.err" &
    PID=$!
    PIDS+=("$PID")
    for _ in $(seq 1 200); do
        ADDR="$(sed -n 's|^Listening on http://||p' "$log.out" | head -n1)"
        [ -n "$ADDR" ] && return 0
        sleep 0.05
    done
    echo "$* did not start; see $log.err" >&2
    cat "$log.err" >&2
    exit 1
}

# Prints the Markdown table of two sides measured alternately: FILE holds "SIDE ROUND RESULT…"
# lines (report.lua's figures); the table's first column is headed WHAT; the ratio is B / A.
paired_table() {
    python3 - "$1" "$DURATION" "$CONNS" "$2" "$3" "$4" <<'PY'
import sys, statistics
path, duration, conns, what, a, b = sys.argv[1:7]
runs = {}
for line in open(path):
    side, rnd, _tag, *fields = line.split()
    f = {k: float(v) for k, v in (x.split("=") for x in fields if "=" in x)}
    runs.setdefault(side, []).append(f)
print(f"{duration} s per run, {conns} connections, {a} and {b} alternating; medians over the rounds.\n")
print(f"| {what} | requests/s (each round) | median | p99 ms | errors | non-2xx/3xx |")
print("|---|---|---|---|---|---|")
med = {}
for side in (a, b):
    rs = runs[side]
    med[side] = statistics.median(r["rps"] for r in rs)
    each = ", ".join(f"{r['rps']:,.0f}" for r in rs)
    p99 = statistics.median(r["p99_ms"] for r in rs)
    print(f"| {side} | {each} | {med[side]:,.0f} | {p99:.2f} | {int(sum(r['errors'] for r in rs))} | {int(sum(r['non2xx3xx'] for r in rs))} |")
print(f"\n{b} / {a}: {med[b] / med[a]:.3f}")
PY
}

# One server, the redirect on the service's address against the redirect on a customer's
# domain (issue 24: within 5 %), measured alternately.
if [ "${COMPARE:-}" = domain ]; then
    UA="Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
    start "$WORK/server" "$BIN/qr" serve --db "$WORK/qr.db" --listen 127.0.0.1:0 --trusted-proxies 127.0.0.1
    S="$ADDR"
    # Both answer 302 to the same target before anything is measured.
    for probe in "http://$S/r/$REDIRECT_CODE" "-H Host:$DOMAIN http://$S/$DOMAIN_CODE"; do
        # shellcheck disable=SC2086
        code="$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' $probe)"
        [ "$code" = "302 https://example.com/campaign/0?utm_source=qr" ] || { echo "$probe answered $code" >&2; exit 1; }
    done
    echo "Comparing the address and domain redirects, ${ROUNDS:-3} rounds of $DURATION s..." >&2
    for round in $(seq 1 "${ROUNDS:-3}"); do
        sides="address domain"; [ $((round % 2)) = 0 ] && sides="domain address"
        for side in $sides; do
            if [ "$side" = address ]; then
                url="http://$S/r/$REDIRECT_CODE"; host=()
            else
                url="http://$S/$DOMAIN_CODE"; host=(-H "Host: $DOMAIN")
            fi
            wrk -t "$THREADS" -c "$CONNS" -d 1s --timeout 10s -s "$LOAD_DIR/crowd.lua" -H "User-Agent: $UA" "${host[@]}" "$url" > /dev/null
            out="$(wrk -t "$THREADS" -c "$CONNS" -d "${DURATION}s" --timeout 10s -s "$LOAD_DIR/crowd.lua" -H "User-Agent: $UA" "${host[@]}" "$url")"
            echo "$side $round $(grep '^RESULT' <<<"$out")"
        done
    done > "$WORK/compare"
    paired_table "$WORK/compare" redirect address domain
    exit 0
fi

# One server, a link's code in its design against generate drawing the same image (issue 27:
# within 5 %), measured alternately. wrk sends no If-None-Match, so every request renders.
if [ "${COMPARE:-}" = linkcode ]; then
    start "$WORK/server" "$BIN/qr" serve --db "$WORK/qr.db" --listen 127.0.0.1:0 --trusted-proxies 127.0.0.1
    S="$ADDR"
    short_url="$(curl -fsS -H "X-API-Key: $KEY_ANALYTICS" "http://$S/api/links?id=$DESIGN_LINK" | python3 -c 'import json,sys; print(json.load(sys.stdin)["shortUrl"])')"
    data="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$short_url")"
    link_url="http://$S/api/links/qr?id=$DESIGN_LINK"
    generate_url="http://$S/api/generate?data=$data&$DESIGN_LOOK"
    # The same image from both before anything is measured.
    curl -fsS -H "X-API-Key: $KEY_ANALYTICS" -o "$WORK/link.png" "$link_url"
    curl -fsS -H "X-API-Key: $KEY_ANALYTICS" -o "$WORK/generate.png" "$generate_url"
    cmp -s "$WORK/link.png" "$WORK/generate.png" || { echo "the two images differ" >&2; exit 1; }
    echo "Comparing the link's code and generate ($(stat -c %s "$WORK/link.png") bytes each), ${ROUNDS:-3} rounds of $DURATION s..." >&2
    for round in $(seq 1 "${ROUNDS:-3}"); do
        sides="link generate"; [ $((round % 2)) = 0 ] && sides="generate link"
        for side in $sides; do
            if [ "$side" = link ]; then url="$link_url"; else url="$generate_url"; fi
            wrk -t "$THREADS" -c "$CONNS" -d 1s --timeout 10s -s "$LOAD_DIR/report.lua" -H "X-API-Key: $KEY_ANALYTICS" "$url" > /dev/null
            out="$(wrk -t "$THREADS" -c "$CONNS" -d "${DURATION}s" --timeout 10s -s "$LOAD_DIR/report.lua" -H "X-API-Key: $KEY_ANALYTICS" "$url")"
            echo "$side $round $(grep '^RESULT' <<<"$out")"
        done
    done > "$WORK/compare"
    paired_table "$WORK/compare" request generate link
    exit 0
fi

# Two servers measured alternately, case by case: COMPARE=metrics (metrics off, then on with
# --metrics-listen, on copies of one database) or COMPARE=/path/to/an/older/qr (that build,
# "base", on a database filled by its own seed binary beside it, against this build, "head").
if [ -n "${COMPARE:-}" ]; then
    UA="Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
    GENERATE="/api/generate?data=https%3A%2F%2Fqr.example.com%2Fr%2F7K3M9QXZ&size=300&format=png"
    declare -A ADDRS KEYL KEYA CODE CAMP LINK
    if [ "$COMPARE" = metrics ]; then
        A=off; B=on
        cp "$WORK/qr.db" "$WORK/qr-on.db"
        start "$WORK/off" "$BIN/qr" serve --db "$WORK/qr.db" --listen 127.0.0.1:0 --trusted-proxies 127.0.0.1
        ADDRS[off]="$ADDR"
        start "$WORK/on" "$BIN/qr" serve --db "$WORK/qr-on.db" --listen 127.0.0.1:0 --trusted-proxies 127.0.0.1 \
            --metrics-listen 127.0.0.1:0
        ADDRS[on]="$ADDR"
        for side in off on; do
            KEYL[$side]="$KEY_LINKS"; KEYA[$side]="$KEY_ANALYTICS"; CODE[$side]="$REDIRECT_CODE"
            CAMP[$side]="$CAMPAIGN_CODE"; LINK[$side]="$ANALYTICS_LINK"
        done
    else
        A=base; B=head
        echo "Seeding the base build's database..." >&2
        "$(dirname "$COMPARE")/seed" "$WORK/base.db" "$SCANS" > "$WORK/base.env"
        KEYL[head]="$KEY_LINKS"; KEYA[head]="$KEY_ANALYTICS"; CODE[head]="$REDIRECT_CODE"
        CAMP[head]="$CAMPAIGN_CODE"; LINK[head]="$ANALYTICS_LINK"
        # A base build whose seeder makes no campaign link has no campaign case.
        unset CAMPAIGN_CODE
        # shellcheck disable=SC1091
        source "$WORK/base.env"
        KEYL[base]="$KEY_LINKS"; KEYA[base]="$KEY_ANALYTICS"; CODE[base]="$REDIRECT_CODE"
        CAMP[base]="${CAMPAIGN_CODE:-}"; LINK[base]="$ANALYTICS_LINK"
        start "$WORK/base" "$COMPARE" serve --db "$WORK/base.db" --listen 127.0.0.1:0 --trusted-proxies 127.0.0.1
        ADDRS[base]="$ADDR"
        start "$WORK/head" "$BIN/qr" serve --db "$WORK/qr.db" --listen 127.0.0.1:0 --trusted-proxies 127.0.0.1
        ADDRS[head]="$ADDR"
    fi
    echo "Comparing $A and $B, ${ROUNDS:-3} rounds of $DURATION s per case..." >&2
    for round in $(seq 1 "${ROUNDS:-3}"); do
        # Odd rounds measure A first, even rounds B first, so neither always runs warmer.
        sides="$A $B"; [ $((round % 2)) = 0 ] && sides="$B $A"
        for side in $sides; do
            S="${ADDRS[$side]}"
            # The two redirect cases swap places every round too: the one that runs second
            # meets the WAL checkpoints of the first one's scans.
            cases="redirect redirect_campaign"; [ $((round % 2)) = 0 ] && cases="redirect_campaign redirect"
            for case in $cases generate links analytics; do
                case "$case" in
                    redirect) url="http://$S/r/${CODE[$side]}"; script=crowd.lua; hdr="User-Agent: $UA" ;;
                    redirect_campaign)
                        [ -n "${CAMP[$side]}" ] || continue
                        url="http://$S/r/${CAMP[$side]}"; script=crowd.lua; hdr="User-Agent: $UA" ;;
                    generate) url="http://$S$GENERATE"; script=report.lua; hdr="X-API-Key: ${KEYL[$side]}" ;;
                    links) url="http://$S/api/links"; script=report.lua; hdr="X-API-Key: ${KEYL[$side]}" ;;
                    analytics) url="http://$S/api/analytics?linkId=${LINK[$side]}"; script=report.lua; hdr="X-API-Key: ${KEYA[$side]}" ;;
                esac
                wrk -t "$THREADS" -c "$CONNS" -d 1s --timeout 10s -s "$LOAD_DIR/$script" -H "$hdr" "$url" > /dev/null
                out="$(wrk -t "$THREADS" -c "$CONNS" -d "${DURATION}s" --timeout 10s -s "$LOAD_DIR/$script" -H "$hdr" "$url")"
                echo "$case $side $round $(grep '^RESULT' <<<"$out")"
            done
        done
    done > "$WORK/compare"
    counted=""
    if [ "$COMPARE" = metrics ]; then
        # The metrics server counted the requests: proof that counting was on during its runs.
        # (Its address is read now: the line comes after the "Listening on" line start() awaits.)
        metrics_addr="$(sed -n 's|^Metrics on http://\([^/]*\)/.*|\1|p' "$WORK/on.out" | head -n1)"
        counted="$(curl -s "http://$metrics_addr/metrics" | awk '/^qr_http_requests_total/ {n += $NF} END {printf "%d", n}')"
    fi
    python3 - "$WORK/compare" "$DURATION" "$CONNS" "$A" "$B" "$counted" <<'PY'
import sys, statistics
path, duration, conns, a, b, counted = sys.argv[1:7]
runs = {}
for line in open(path):
    case, side, _round, _tag, *fields = line.split()
    f = {k: float(v) for k, v in (x.split("=") for x in fields if "=" in x)}
    runs.setdefault(case, {}).setdefault(side, []).append(f)
note = f" The metrics-on server counted {int(counted):,} requests." if counted else ""
print(f"{duration} s per run, {conns} connections, {a} and {b} alternating; medians over the rounds.{note}\n")
print(f"| case | {a} requests/s | {b} requests/s | {b}/{a} | {a} p99 ms | {b} p99 ms | errors |")
print("|---|---|---|---|---|---|---|")
med = {}
for case, sides in runs.items():
    m = {s: statistics.median(r["rps"] for r in v) for s, v in sides.items()}
    med[case] = m
    p99 = {s: statistics.median(r["p99_ms"] for r in v) for s, v in sides.items()}
    errs = sum(r["errors"] for v in sides.values() for r in v)
    cell = lambda s, fmt: format(m[s], fmt) if s in m else "–"
    ratio = f"{m[b] / m[a]:.3f}" if a in m and b in m else "–"
    p = lambda s: f"{p99[s]:.2f}" if s in p99 else "–"
    print(f"| {case} | {cell(a, ',.0f')} | {cell(b, ',.0f')} | {ratio} | {p(a)} | {p(b)} | {int(errs)} |")
if "redirect_campaign" in med:
    for side, rps in med["redirect_campaign"].items():
        print(f"\nredirect_campaign / redirect on {side}: {rps / med['redirect'][side]:.3f}")
PY
    exit 0
fi

start "$WORK/hello" "$BIN/hello" 127.0.0.1:0
HELLO_ADDR="$ADDR"; HELLO_PID="$PID"
# Loopback is a trusted proxy here, so crowd.lua can give each scan its own visitor address.
start "$WORK/server" "$BIN/qr" serve --db "$WORK/qr.db" --listen 127.0.0.1:0 --trusted-proxies 127.0.0.1
SERVER_ADDR="$ADDR"; SERVER_PID="$PID"

UA="Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
GENERATE="/api/generate?data=https%3A%2F%2Fqr.example.com%2Fr%2F7K3M9QXZ&size=300&format=png"

# run NAME PID URL SCRIPT [wrk options...]: a 2-second warm-up, then the measured run.
run() {
    local name="$1" pid="$2" url="$3" script="$4"; shift 4
    wrk -t "$THREADS" -c "$CONNS" -d 2s --timeout 10s -s "$script" "$@" "$url" > /dev/null
    echo 5 > "/proc/$pid/clear_refs" # resets the peak RSS (VmHWM)
    local out
    out="$(wrk -t "$THREADS" -c "$CONNS" -d "${DURATION}s" --timeout 10s -s "$script" "$@" "$url")"
    local result rss
    result="$(grep '^RESULT' <<<"$out")"
    rss="$(awk '/VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status")"
    echo "$name $result peak_rss_mib=$rss"
}

echo "Running $DURATION s per case at $CONNS connections..." >&2
{
    run hello "$HELLO_PID" "http://$HELLO_ADDR/" "$LOAD_DIR/report.lua"
    run redirect "$SERVER_PID" "http://$SERVER_ADDR/r/$REDIRECT_CODE" "$LOAD_DIR/crowd.lua" -H "User-Agent: $UA"
    run redirect_campaign "$SERVER_PID" "http://$SERVER_ADDR/r/$CAMPAIGN_CODE" "$LOAD_DIR/crowd.lua" -H "User-Agent: $UA"
    run generate "$SERVER_PID" "http://$SERVER_ADDR$GENERATE" "$LOAD_DIR/report.lua" -H "X-API-Key: $KEY_LINKS"
    run links "$SERVER_PID" "http://$SERVER_ADDR/api/links" "$LOAD_DIR/report.lua" -H "X-API-Key: $KEY_LINKS"
    run analytics "$SERVER_PID" "http://$SERVER_ADDR/api/analytics?linkId=$ANALYTICS_LINK" "$LOAD_DIR/report.lua" -H "X-API-Key: $KEY_ANALYTICS"
    run batch "$SERVER_PID" "http://$SERVER_ADDR/api/batch" "$LOAD_DIR/combined.lua" -H "X-API-Key: $KEY_LINKS"
} > "$WORK/results"

# The throughput qr-core's own benchmark predicts for encode + PNG 300 px on every core.
CORE_US=""
if [ "${SKIP_CORE:-0}" != 1 ]; then
    echo "Measuring qr-core encode + PNG (criterion)..." >&2
    CORE_US="$(cargo bench --quiet -p qr-benches --bench encode -- 'png_300/qr-core/url_33$' \
        --warm-up-time 1 --measurement-time 5 2>/dev/null \
        | grep -o 'time: *\[[^]]*\]' | head -n1 \
        | awk '{ v = $4; u = $5; if (u == "ns") v /= 1000; if (u == "ms") v *= 1000; print v }')"
fi

CORES="$(nproc)"
python3 - "$WORK/results" "$CORES" "$CORE_US" "$DURATION" "$CONNS" <<'PY'
import sys
path, cores, core_us, duration, conns = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
rows = {}
for line in open(path):
    name, *fields = line.split()
    rows[name] = {k: v for k, v in (f.split("=") for f in fields if "=" in f)}
hello = float(rows["hello"]["rps"])
print(f"{duration} s per case, {conns} connections, {cores} cores shared by wrk and the server.\n")
print("| case | requests/s | vs hello-world | p50 ms | p99 ms | peak RSS MiB | errors | non-2xx/3xx |")
print("|---|---|---|---|---|---|---|---|")
for name, r in rows.items():
    rps = float(r["rps"])
    print(f"| {name} | {rps:,.0f} | {rps / hello:.2f} | {r['p50_ms']} | {r['p99_ms']} | {r['peak_rss_mib']} | {r['errors']} | {r['non2xx3xx']} |")
if "redirect_campaign" in rows:
    plain, campaign = float(rows["redirect"]["rps"]), float(rows["redirect_campaign"]["rps"])
    print(f"\nredirect with two rules, an A/B split and UTM: {campaign / plain:.3f} of the plain redirect.")
if core_us:
    predicted = cores * 1e6 / float(core_us)
    gen = float(rows["generate"]["rps"])
    print(f"\nqr-core encode + PNG 300 px: {float(core_us):.2f} µs, so {predicted:,.0f} images/s on {cores} cores;"
          f" generate reached {gen:,.0f} requests/s = {gen / predicted:.2f} of that.")
PY
