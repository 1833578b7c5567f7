#!/usr/bin/env bash
# The Debian/Ubuntu packages the app and the tests need beyond Python: Qt's xcb platform plugin and OpenGL
# for the window and the 3D view, and a virtual X server for the tests. The one list; the Makefile
# (`make run`, `make test`) and CI call this script.
#
#   tools/system-packages.sh ensure run|test   install what is missing (as root or with passwordless sudo),
#                                              else print the exact command and fail
#   tools/system-packages.sh missing run|test  print the missing packages (exit 1 when some are)
#   tools/system-packages.sh list run|test     print the list
#
# SKIP_SYSTEM_PACKAGES=1 skips the check (a machine whose libraries come from elsewhere).
set -euo pipefail

RUN_PACKAGES=(
  libgl1-mesa-dri libegl1 libglx-mesa0 libxrender1 libxi6 libfontconfig1 libdbus-1-3
  libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
  libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1
)
TEST_PACKAGES=(xvfb xauth "${RUN_PACKAGES[@]}")

usage() { echo "usage: $0 ensure|missing|list run|test" >&2; exit 2; }
[ $# -eq 2 ] || usage
case "$2" in
  run) packages=("${RUN_PACKAGES[@]}") ;;
  test) packages=("${TEST_PACKAGES[@]}") ;;
  *) usage ;;
esac

missing_packages() {
  local installed
  installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null \
              | awk '$NF == "installed" { print $1 }' || true)
  for p in "${packages[@]}"; do
    grep -qx "$p" <<<"$installed" || echo "$p"
  done
}

case "$1" in
  list)
    echo "${packages[@]}"
    ;;
  missing)
    if ! command -v dpkg-query >/dev/null; then
      echo "not a Debian/Ubuntu system: cannot check" >&2; exit 0
    fi
    m=$(missing_packages)
    [ -z "$m" ] || { echo $m; exit 1; }
    ;;
  ensure)
    [ "${SKIP_SYSTEM_PACKAGES:-0}" = 1 ] && exit 0
    if ! command -v dpkg-query >/dev/null; then
      echo "note: not a Debian/Ubuntu system; the $2 target needs Qt's xcb libraries and OpenGL" \
           "$([ "$2" = test ] && echo "and xvfb-run ")(see tools/system-packages.sh)" >&2
      exit 0
    fi
    mapfile -t missing < <(missing_packages)
    [ ${#missing[@]} -eq 0 ] && exit 0
    if [ "$(id -u)" -eq 0 ]; then
      SUDO=()
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      SUDO=(sudo -n)
    else
      echo "error: system packages missing for '$2': ${missing[*]}" >&2
      echo "Install them (this needs root), then run the same make command again:" >&2
      echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
      exit 1
    fi
    echo "installing system packages for '$2': ${missing[*]}" >&2
    "${SUDO[@]}" apt-get update -qq
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${missing[@]}"
    ;;
  *) usage ;;
esac
