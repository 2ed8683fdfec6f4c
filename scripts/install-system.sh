#!/usr/bin/env bash
# Creates what the dicewatch service needs besides its binary and unit: the
# dedicated `dicewatch` user (groups video and gpio), the state directories
# for the journal and the clip ring, and a udev rule giving the gpio group
# access to /dev/gpiochip*. Idempotent. Called by `make install` as root.
#
#   sudo scripts/install-system.sh            # the running system
#   ROOT=/tmp/img scripts/install-system.sh   # an image or test root: files and
#                                             # users go under ROOT; udev and
#                                             # systemd are not touched
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT=${ROOT:-/}
ROOT=${ROOT%/}   # "/" becomes "" so "$ROOT/etc" is "/etc"
live=0
[ -z "$ROOT" ] && live=1

if [ "$live" = 1 ] && [ "$(id -u)" != 0 ]; then
  echo "install-system: run as root (sudo $0)" >&2
  exit 1
fi

sysusers_conf=$ROOT/usr/lib/sysusers.d/dicewatch.conf
tmpfiles_conf=$ROOT/usr/lib/tmpfiles.d/dicewatch.conf
udev_rule=$ROOT/etc/udev/rules.d/60-dicewatch-gpio.rules

install -D -m 0644 systemd/dicewatch.sysusers "$sysusers_conf"
install -D -m 0644 systemd/dicewatch.tmpfiles "$tmpfiles_conf"
install -D -m 0644 systemd/60-dicewatch-gpio.rules "$udev_rule"
echo "install-system: installed $sysusers_conf, $tmpfiles_conf, $udev_rule"

root_args=()
[ "$live" = 0 ] && root_args=(--root="$ROOT")

# The user and groups.
if command -v systemd-sysusers >/dev/null; then
  systemd-sysusers "${root_args[@]}" "$sysusers_conf"
elif [ "$live" = 1 ]; then
  # Fallback without systemd-sysusers (the same result by hand).
  getent group gpio >/dev/null || groupadd --system gpio
  getent group video >/dev/null || groupadd --system video
  if ! getent passwd dicewatch >/dev/null; then
    useradd --system --user-group --home-dir /var/lib/dicewatch --no-create-home \
      --shell /usr/sbin/nologin --comment "dicewatch dice reader" dicewatch
  fi
  usermod --append --groups video,gpio dicewatch
else
  echo "install-system: systemd-sysusers is needed for ROOT=$ROOT" >&2
  exit 1
fi

# The state directories.
if command -v systemd-tmpfiles >/dev/null; then
  systemd-tmpfiles "${root_args[@]}" --create "$tmpfiles_conf"
else
  for d in "" /journal /clips; do
    install -d -m 0750 -o dicewatch -g dicewatch "$ROOT/var/lib/dicewatch$d"
  done
fi

if [ "$live" = 1 ]; then
  if command -v udevadm >/dev/null && [ -d /run/udev ]; then
    udevadm control --reload
    udevadm trigger --subsystem-match=gpio || true
  fi
  if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
  fi
  echo "install-system: $(id dicewatch)"
else
  echo "install-system: in $ROOT: $(grep '^dicewatch:' "$ROOT/etc/passwd")"
fi
