#!/usr/bin/env bash
# Checks the systemd files in CI (Debian bookworm, systemd 252, root or not):
#  1. `systemd-analyze verify` of the unit;
#  2. `systemd-analyze security --offline=true` of the unit: prints the
#     exposure score and fails above EXPOSURE_MAX (default 2.5);
#  3. the sysusers and tmpfiles files, applied by scripts/install-system.sh
#     to a throw-away root (the host's users are not touched).
#
#   scripts/systemd-check.sh [unit]     (-v or VERBOSE=1: the whole security table)
#
# verify and the binary: verify fails when ExecStart's program does not exist,
# and on a CI machine /usr/local/bin/dicewatch usually does not. Rather than
# skip verify or ignore that error, the script verifies a temporary copy of
# the unit whose ExecStart (and only that path) points at an existing
# executable: bin/dicewatch when it has been built, else /bin/true. It says
# which one it used. Every other line of the unit is verified as written.
set -euo pipefail
cd "$(dirname "$0")/.."

verbose=${VERBOSE:-0}
if [ "${1:-}" = "-v" ]; then verbose=1; shift; fi
unit=${1:-systemd/dicewatch.service}
max=${EXPOSURE_MAX:-2.5}
analyze=$(command -v systemd-analyze || true)
if [ -z "$analyze" ]; then
  echo "systemd-check: systemd-analyze not found (apt-get install systemd)" >&2
  exit 1
fi
export SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat LC_ALL=C.UTF-8

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

echo "== systemd-analyze verify $unit ($("$analyze" --version | head -1))"
name=$(basename "$unit")
exec_bin=$(sed -n 's/^ExecStart=[-@:+!]*\([^ ]*\).*/\1/p' "$unit" | head -1)
if [ -z "$exec_bin" ]; then
  echo "systemd-check: no ExecStart= in $unit" >&2
  exit 1
fi
if [ -x "$exec_bin" ]; then
  cp "$unit" "$tmp/$name"
  echo "ExecStart binary $exec_bin exists: verifying the unit unchanged"
else
  stand_in=/bin/true
  [ -x bin/dicewatch ] && stand_in=$PWD/bin/dicewatch
  # Replace only the program path of ExecStart=, keep its arguments.
  awk -v from="$exec_bin" -v to="$stand_in" '
    /^ExecStart=/ { i = index($0, from); if (i) $0 = substr($0, 1, i-1) to substr($0, i+length(from)) }
    { print }' "$unit" >"$tmp/$name"
  echo "ExecStart binary $exec_bin does not exist here: verifying a copy whose ExecStart runs $stand_in"
  diff "$unit" "$tmp/$name" | sed 's/^/  /' || true
fi
# verify exits 0 on lines it ignores (an unknown key, a bad value): those are
# failures here too. Messages about other units are shown, not counted.
rc=0
out=$("$analyze" verify --man=no "$tmp/$name" 2>&1) || rc=$?
[ -n "$out" ] && echo "$out"
ours=$(echo "$out" | grep -cE "^($tmp/)?$name(:|$)" || true)
if [ "$rc" != 0 ] || [ "$ours" != 0 ]; then
  echo "verify: FAILED (exit $rc, $ours warning(s) about $name)"
  fail=1
else
  echo "verify: OK"
fi

echo "== systemd-analyze security --offline=true $unit"
sec=$("$analyze" security --offline=true --no-pager "$unit" 2>&1) || true
if [ "$verbose" = 1 ]; then
  echo "$sec"
else
  # Only what is not hardened (the ✗ lines) and the overall score.
  echo "$sec" | grep -E '^✗|Overall exposure' || echo "$sec"
fi
score=$(echo "$sec" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' | tail -1)
if [ -z "$score" ]; then
  echo "security: could not read the exposure score"
  fail=1
elif awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; then
  echo "security: exposure $score is above the limit $max: FAILED"
  fail=1
else
  echo "security: exposure $score (limit $max): OK"
fi

echo "== sysusers and tmpfiles (scripts/install-system.sh into a throw-away root)"
mkdir -p "$tmp/root/etc"
printf 'root:x:0:0:root:/root:/bin/bash\n' >"$tmp/root/etc/passwd"
printf 'root:x:0:\nvideo:x:44:\n' >"$tmp/root/etc/group"   # Debian has video, not gpio
install_ok=0
if [ "$(id -u)" = 0 ]; then
  ROOT="$tmp/root" bash scripts/install-system.sh >"$tmp/install.log" 2>&1 && install_ok=1
else
  # Not root: chown is not allowed, so apply the same files by hand with the
  # tmpfiles owner columns blanked (directories and modes are still checked).
  echo "(not root: tmpfiles ownership not applied)"
  { systemd-sysusers --root="$tmp/root" "$PWD/systemd/dicewatch.sysusers" &&
    awk '/^[^#]/ && NF >= 5 { $4 = "-"; $5 = "-" } { print }' systemd/dicewatch.tmpfiles >"$tmp/tmpfiles.conf" &&
    systemd-tmpfiles --root="$tmp/root" --create "$tmp/tmpfiles.conf"; } >"$tmp/install.log" 2>&1 && install_ok=1
fi
if [ "$install_ok" = 1 ]; then
  groups_ok=1
  for g in video gpio; do
    grep -Eq "^$g:x:[0-9]+:(.*,)?dicewatch(,|$)" "$tmp/root/etc/group" || { echo "dicewatch is not in group $g"; groups_ok=0; }
  done
  grep -q '^dicewatch:x:[0-9]*:[0-9]*:.*:/usr/sbin/nologin$' "$tmp/root/etc/passwd" || { echo "no dicewatch system user"; groups_ok=0; }
  for d in journal clips; do
    [ -d "$tmp/root/var/lib/dicewatch/$d" ] || { echo "no /var/lib/dicewatch/$d"; groups_ok=0; }
  done
  if [ "$groups_ok" = 1 ]; then
    echo "install: OK ($(grep '^dicewatch:' "$tmp/root/etc/passwd" | cut -d: -f1,3,4); groups: $(grep -E '(:|,)dicewatch(,|$)' "$tmp/root/etc/group" | cut -d: -f1 | paste -sd, -))"
  else
    cat "$tmp/install.log"
    fail=1
  fi
else
  cat "$tmp/install.log"
  echo "install: FAILED"
  fail=1
fi

if [ "$fail" != 0 ]; then
  echo "systemd-check: FAILED"
  exit 1
fi
echo "systemd-check: OK (exposure $score)"
