#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a command with an unlocked gnome-keyring on the current D-Bus session (start it inside
# dbus-run-session), so QtKeychain talks to a real Secret Service. The keyring lives in a
# throwaway folder and the daemon is stopped by pid afterwards.
set -euo pipefail

keyring_home=$(mktemp -d /tmp/sluice-keyring.XXXXXX)
export XDG_DATA_HOME=$keyring_home/data XDG_RUNTIME_DIR=$keyring_home/run
mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

printf 'sluice-test' | gnome-keyring-daemon --foreground --unlock --components=secrets \
  >"$keyring_home/daemon.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$keyring_home"' EXIT

has_secret_service() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'
}
for _ in $(seq 100); do has_secret_service && break; sleep 0.1; done
if ! has_secret_service; then
  echo "with-keyring: gnome-keyring did not come up: $(cat "$keyring_home/daemon.log")" >&2
  exit 1
fi

"$@"
