#!/usr/bin/env bash
# Installs the system programs the tests drive for real, only when missing: redis-server (tests start their
# own on a free loopback port; no service needs to be running) and headless Chromium with its driver (the
# approval-page test), dash (the shell classifier's generators run every read-only verdict under bash and
# dash), tmux and vi (the console tests type into a real terminal and edit a plan in vi).
# Debian/Ubuntu packages; uses sudo when not run as root.
set -euo pipefail

if command -v redis-server >/dev/null && command -v chromium >/dev/null && command -v chromedriver >/dev/null \
    && command -v dash >/dev/null && command -v tmux >/dev/null && command -v vi >/dev/null; then
    exit 0
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q redis-server chromium chromium-driver dash tmux vim-tiny
