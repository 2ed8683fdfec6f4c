#!/usr/bin/env bash
# Idempotent set-up for dicewatch on Debian bookworm / Raspberry Pi OS bookworm.
# Installs only what is missing: OpenCV 4.6 (libopencv-dev), libjpeg-turbo's
# headers (libjpeg-dev, for vision/internal/jpegbgr), mosquitto,
# mosquitto-clients and pkg-config. Safe to run again and again.
set -euo pipefail

PACKAGES=(libopencv-dev libjpeg-dev mosquitto mosquitto-clients pkg-config)

say() { printf 'setup: %s\n' "$*" >&2; }

# Go from go.dev/dl is unpacked to /usr/local/go; under sudo (secure_path)
# its bin folder is not on PATH although it is on the user's.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	PATH=/usr/local/go/bin:$PATH
fi
if ! command -v go >/dev/null 2>&1; then
	say "Go is not installed (or not on PATH). Install Go 1.25 or later from https://go.dev/dl/ and add it to PATH."
	exit 1
fi
# go.mod asks for 1.25; an older toolchain would otherwise fail later with
# a message about go.mod rather than about Go.
gover=$(go env GOVERSION 2>/dev/null | sed -n 's/^go\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
if [ -n "$gover" ]; then
	read -r gomaj gomin <<<"$gover"
	if [ "$gomaj" -lt 1 ] || { [ "$gomaj" -eq 1 ] && [ "$gomin" -lt 25 ]; }; then
		say "Go $(go env GOVERSION) is too old: dicewatch needs Go 1.25 or later (https://go.dev/dl/)."
		exit 1
	fi
fi

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	say "all packages present (${PACKAGES[*]})"
else
	if ! command -v apt-get >/dev/null 2>&1; then
		say "missing packages: ${missing[*]}, and apt-get is not available."
		say "Install them with your system's package manager (OpenCV 4.6 development files, mosquitto, pkg-config), then run this again."
		exit 1
	fi
	SUDO=""
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			SUDO="sudo -n"
		else
			say "missing packages: ${missing[*]}, and this is not root."
			say "Run as root, or run: sudo apt-get install -y ${missing[*]}"
			exit 1
		fi
	fi
	say "installing: ${missing[*]} (OpenCV takes a minute or two the first time)"
	export DEBIAN_FRONTEND=noninteractive
	if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/dicewatch-apt.log 2>&1; then
		say "apt-get install failed; refreshing the package lists and trying again"
		$SUDO apt-get update -q >>/tmp/dicewatch-apt.log 2>&1 || true
		if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/dicewatch-apt.log 2>&1; then
			say "apt-get install failed; see /tmp/dicewatch-apt.log"
			tail -n 20 /tmp/dicewatch-apt.log >&2
			exit 1
		fi
	fi
fi

# The system mosquitto service is not needed by the demo or tests (they start
# their own broker on a free loopback port), so it is left as the package set it.
if ! pkg-config --exists opencv4; then
	say "pkg-config cannot find opencv4 although libopencv-dev is installed; check PKG_CONFIG_PATH"
	exit 1
fi
say "OpenCV $(pkg-config --modversion opencv4), $(go version | awk '{print $3}'), mosquitto at $(command -v mosquitto || echo /usr/sbin/mosquitto)"
