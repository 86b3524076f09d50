#!/usr/bin/env bash
# kill-loop.sh — operator scenarios over the whole kvstore tool, with SIGKILLs at random moments.
#
# Usage: Tools/scripts/kill-loop.sh [ROUNDS] [RECORDS_PER_ROUND]     (defaults: 10 rounds, 2,000)
#        KVSTORE=/path/to/kvstore (default .build/release/kvstore; build it with
#        `swift build -c release --product kvstore`), KEEP=1 keeps the work directory.
#
# Each round, against one source store, runs at once:
#   - three `kvstore set` loops and an `rm` loop (one process per command),
#   - `kvstore load --batch 100` of the round's RECORDS_PER_ROUND records,
#   - `journal list --follow --consumer c1` appending to c1.out,
#   - `journal export --since CHECKPOINT+1 --follow | journal apply replica`,
#   - `verify replica` while the replica is being applied,
# then SIGKILLs one of load / apply / export / follower at a random moment, lets the rest run a
# little, and stops them all (SIGKILL, or SIGTERM for the export and the follower). A killed load
# is run again with --replace. At the end it drains the consumer and the replica and checks:
#   - the consumer printed every journal entry (no loss; duplicates are allowed: a batch printed
#     but not committed is printed again), each run of it in sequence order;
#   - `verify` passes on source and replica, `diff source replica` exits 0;
#   - every round's records are there; `stat` shows no reader slots left by killed processes.
# Exit status 0 when every check passed. Prints figures: entries, kills, time.
set -u
ROUNDS=${1:-10}
PER_ROUND=${2:-2000}
KV=${KVSTORE:-$(cd "$(dirname "$0")/../.." && pwd)/.build/release/kvstore}
[ -x "$KV" ] || { echo "kill-loop: no kvstore executable at $KV (set KVSTORE)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/kvstore-kill-loop.XXXXXX)
cd "$WORK" || exit 2
[ "${KEEP:-0}" = 1 ] && echo "work directory: $WORK" || trap 'rm -rf "$WORK"' EXIT
SRC=$WORK/source REP=$WORK/replica
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
start=$(date +%s)

"$KV" set "$SRC" meta/run started '"kill-loop"' >/dev/null || exit 2
"$KV" journal consumers "$SRC" --register c1 --after 0 >/dev/null || exit 2

stat_json() { "$KV" stat "$1" --format json 2>/dev/null | tr -d ' \n'; }
checkpoint() { stat_json "$REP" | sed -n 's/.*"applied":\([0-9]*\).*/\1/p'; }

kills=0
for round in $(seq 1 "$ROUNDS"); do
    awk -v r="$round" -v n="$PER_ROUND" 'BEGIN { for (i = 1; i <= n; i++)
        printf "{\"kind\":\"item\",\"id\":\"r%03d-%06d\",\"values\":{\"round\":%d,\"n\":%d,\"tags\":[\"a\",\"b\"]}}\n", r, i, r, i }' \
        > "round$round.jsonl"
    cp=$(checkpoint); cp=${cp:-0}
    ("$KV" journal export "$SRC" --since $((cp + 1)) --follow 2>>export.err | "$KV" journal apply "$REP" >>apply.out 2>>apply.err) &
    pipeline=$!
    "$KV" journal list "$SRC" --follow --consumer c1 >>c1.out 2>>c1.err &
    follower=$!
    writers=()
    for w in 1 2 3; do
        (for i in $(seq 1 40); do "$KV" set "$SRC" "person/w$w" n $((round * 1000 + i)) || echo "set failed"; done) >>writers.log 2>&1 &
        writers+=($!)
    done
    (for i in $(seq 1 10); do "$KV" set "$SRC" "tmp/r$round-$i" v "$i" && "$KV" rm "$SRC" "tmp/r$round-$i"; done) >>writers.log 2>&1 &
    writers+=($!)
    "$KV" load "$SRC" "round$round.jsonl" --batch 100 >>load.log 2>&1 &
    loader=$!

    sleep "0.$((RANDOM % 8 + 2))"
    "$KV" verify "$REP" >verify-live.out 2>&1
    status=$?
    [ $status = 0 ] || [ ! -e "$REP" ] || grep -q "no store here\|not a kvstore store" verify-live.out \
        || fail "round $round: verify of the replica while it is applied: $(head -3 verify-live.out)"
    apply_pid=$(pgrep -P "$pipeline" -f "journal apply" | head -1)
    export_pid=$(pgrep -P "$pipeline" -f "journal export" | head -1)
    victims=("$loader" "$follower" "${apply_pid:-}" "${export_pid:-}")
    victim=${victims[$((RANDOM % 4))]}
    if [ -n "$victim" ] && kill -KILL "$victim" 2>/dev/null; then kills=$((kills + 1)); fi

    wait "$loader"
    load_status=$?
    wait "${writers[@]}"
    if [ $load_status != 0 ]; then   # killed (or failed): load the round again, replacing what went in
        "$KV" load "$SRC" "round$round.jsonl" --batch 100 --replace >>load.log 2>&1 || fail "round $round: reload failed"
    fi
    sleep "0.$((RANDOM % 5))"
    [ -n "$export_pid" ] && kill -TERM "$export_pid" 2>/dev/null
    kill -TERM "$follower" 2>/dev/null
    wait "$pipeline" "$follower" 2>/dev/null
done

# Drain: the consumer without --follow, the replica with a bounded export.
"$KV" journal list "$SRC" --consumer c1 >>c1.out 2>>c1.err || fail "consumer drain: $(tail -1 c1.err)"
cp=$(checkpoint); cp=${cp:-0}
"$KV" journal export "$SRC" --since $((cp + 1)) | "$KV" journal apply "$REP" >>apply.out 2>>apply.err || fail "final apply: $(tail -1 apply.err)"

last=$(stat_json "$SRC" | sed -n 's/.*"journal":{[^}]*"last":\([0-9]*\).*/\1/p')
# Every sequence 1…last printed at least once; each run of the consumer in increasing order.
grep -o '"sequence":[0-9]*' c1.out | cut -d: -f2 > c1.seq
missing=$(sort -n -u c1.seq | awk -v last="$last" 'BEGIN { want = 1 } { while (want < $1) { m++; want++ } if ($1 == want) want++ }
    END { while (want <= last) { m++; want++ } print m + 0 }')
printed=$(wc -l < c1.seq)
unique=$(sort -n -u c1.seq | wc -l)
backsteps=$(awk 'NR > 1 && $1 <= prev { b++ } { prev = $1 } END { print b + 0 }' c1.seq)
[ "$missing" = 0 ] || fail "the consumer never printed $missing of the $last entries"
"$KV" verify "$SRC" >verify.out || fail "verify source: $(head -3 verify.out)"
"$KV" verify "$REP" >verify-replica.out || fail "verify replica: $(head -3 verify-replica.out)"
"$KV" diff "$SRC" "$REP" >diff.out || fail "diff source replica: $(head -3 diff.out)"
items=$("$KV" value "$SRC" item @count)
[ "$items" = $((ROUNDS * PER_ROUND)) ] || fail "$items item records, $((ROUNDS * PER_ROUND)) loaded"
readers=$(stat_json "$SRC" | grep -o '"active":\[[^]]*\]')
[ "$readers" = '"active":[]' ] || fail "reader slots left: $readers"
grep -v "^$" c1.err apply.err export.err writers.log 2>/dev/null | sort | uniq -c | sort -rn | head -5 | sed 's/^/  stderr: /'

echo "rounds $ROUNDS, entries $last, items $items, kills $kills, consumer printed $printed ($unique distinct, $backsteps restarts re-printing), $(( $(date +%s) - start )) s"
[ $failures = 0 ] && echo "all checks passed" || echo "$failures checks failed"
[ $failures = 0 ]
