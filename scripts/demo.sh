#!/usr/bin/env bash
# The built-in demo: a generated craps session (red translucent dice, felt,
# rail, bowl, chip bank) goes through `dicewatch run` — frames, motion and
# at-rest, dice reading, zones, sensors, rules, journal — to a real mosquitto
# on a free loopback port. `dicewatch watch` prints each decoded event as it
# arrives. The broker is stopped by its PID at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin/dicewatch}
OUT=${DEMO_DIR:-build/demo}
SEED=${DEMO_SEED:-7}
THROWS=${DEMO_THROWS:-14}
KINDS=${DEMO_KINDS:-valid,valid,off_table,valid,in_bowl,valid,on_bank,valid,in_rail,valid,cocked,valid,stacked,valid}
START=$(date +%s%N)

say() { printf '\033[1mdemo:\033[0m %s\n' "$*"; }

[ -x "$BIN" ] || { echo "demo: $BIN not built (run 'make demo')" >&2; exit 1; }

stamp="$OUT/.generated-$SEED-$THROWS-$(echo "$KINDS" | md5sum | cut -c1-8)"
if [ ! -f "$stamp" ]; then
	say "rendering a $THROWS-throw table session (seed $SEED) into $OUT"
	rm -rf "$OUT"
	mkdir -p "$OUT"
	"$BIN" generate --out "$OUT" --throws "$THROWS" --seed "$SEED" --kinds "$KINDS"
	touch "$stamp"
else
	say "using the session already rendered in $OUT"
fi
rm -rf "$OUT/run"
mkdir -p "$OUT/run"

# A free loopback port: ask the kernel for one through bash's /dev/tcp probe.
free_port() {
	local p
	for _ in $(seq 1 200); do
		p=$(( (RANDOM % 20000) + 30000 ))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
PORT=$(free_port)
MOSQ=$(command -v mosquitto || echo /usr/sbin/mosquitto)
cat >"$OUT/run/mosquitto.conf" <<EOF
listener $PORT 127.0.0.1
allow_anonymous true
persistence false
log_dest file $PWD/$OUT/run/mosquitto.log
EOF
# mosquitto drops to the 'mosquitto' user when started as root: let it write its log.
touch "$OUT/run/mosquitto.log"
chmod 0666 "$OUT/run/mosquitto.log"
"$MOSQ" -c "$OUT/run/mosquitto.conf" &
BROKER_PID=$!
WATCH_PID=""
cleanup() {
	[ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null || true
	kill "$BROKER_PID" 2>/dev/null || true
	wait "$BROKER_PID" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
	kill -0 "$BROKER_PID" 2>/dev/null || { echo "demo: mosquitto failed to start; see $OUT/run/mosquitto.log" >&2; exit 1; }
	sleep 0.05
done
say "mosquitto $("$MOSQ" -h 2>/dev/null | head -1 | awk '{print $3}') listening on 127.0.0.1:$PORT (pid $BROKER_PID)"

BROKER="tcp://127.0.0.1:$PORT"
"$BIN" watch --broker "$BROKER" --prefix dicewatch/demo-table/ --timeout 600s \
	--ready-file "$OUT/run/watch.ready" > >(tee "$OUT/run/watch.log" | sed 's/^/  mqtt ▸ /') &
WATCH_PID=$!
for _ in $(seq 1 100); do [ -f "$OUT/run/watch.ready" ] && break; sleep 0.05; done

say "running: dicewatch run --config examples/demo.yaml --broker $BROKER --sensor-trace $OUT/sensors.jsonl --exit-at-eof"
"$BIN" run --config examples/demo.yaml --broker "$BROKER" --sensor-trace "$OUT/sensors.jsonl" --exit-at-eof \
	2>"$OUT/run/daemon.log"
# The daemon exits once every decision is acknowledged by the broker; give
# the watcher a moment to print the last ones, then stop it.
sleep 1
kill "$WATCH_PID" 2>/dev/null || true
wait "$WATCH_PID" 2>/dev/null || true
WATCH_PID=""
# Lines are "<time> <topic> seq=<n> ...": count the decisions, and the gaps
# in seq that watch marked (there should be none).
got=$(grep -cE '^[0-9:.-]+ (roll|noroll) +seq=' "$OUT/run/watch.log" || true)
gaps=$(grep -c '(GAP' "$OUT/run/watch.log" || true)
say "$got decisions received over MQTT for $THROWS throws; seq gaps: $gaps"

say "decisions against the generator's ground truth:"
"$BIN" score --truth "$OUT/truth.jsonl" --journal "$OUT/run/journal"
if [ "$got" -lt 10 ]; then
	echo "demo: fewer than 10 decisions reached the broker; daemon log: $OUT/run/daemon.log" >&2
	exit 1
fi
ms=$(( ($(date +%s%N) - START) / 1000000 ))
say "done in $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s (daemon log: $OUT/run/daemon.log)"
