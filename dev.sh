#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sluice's two set-up commands, for a fresh Debian 12 machine (as root, or with sudo):
#   ./dev.sh run [sluice options]   install what is missing, build, open the dashboard on its sandbox Redis
#   ./dev.sh test                   install, build, start every test service, run the whole suite, then
#                                   install the Debian package on this machine, check it and purge it
# Both are idempotent and build incrementally in ./build (SLUICE_BUILD_DIR to change it). And:
#   ./dev.sh package                install, build, write the Debian package (build/package/sluice_*.deb)
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"

build_dir=${SLUICE_BUILD_DIR:-build}

build_packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-charts-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-qpa-plugins
  libqt6svg6 libqt6opengl6-dev libgl-dev libvulkan-dev libxkbcommon-dev
  libhiredis-dev qtkeychain-qt6-dev libsecret-1-0 libssl-dev
  redis-server redis-tools fonts-dejavu-core
  help2man librsvg2-bin bash-completion dpkg-dev file prometheus-cpp-dev zlib1g-dev
  qt6-httpserver-dev qt6-websockets-dev libyaml-cpp-dev libcrypt-dev
)
test_packages=(openssl dbus dbus-bin gnome-keyring procps valgrind python3-redis python3-prometheus-client nodejs npm
  lintian desktop-file-utils appstream man-db prometheus clang-format-14 goaccess time gnuplot-nox)

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

install_missing() {
  local missing=() package
  for package in "$@"; do
    # A Node.js from NodeSource brings its own npm, which Debian's npm package would conflict with.
    [ "$package" = npm ] && command -v npm >/dev/null && continue
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  say "installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  # No service a package brings is started by installing it (Debian's prometheus and redis-server start
  # theirs): the suite runs its own on loopback ports, and nothing may be left running. A policy-rc.d that
  # answers 101 is Debian's way to say so (invoke-rc.d and deb-systemd-invoke ask it), for this install only;
  # one already there (a container's) decides instead. It still enables them for the next boot, as usual.
  local policy=/usr/sbin/policy-rc.d ours=no
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# ./dev.sh is installing packages: start no service (removed when it is done)\nexit 101\n' |
      "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    ours=yes
    # Removed however the install ends (a failed apt-get exits through set -e, Ctrl-C through INT).
    trap "${sudo[*]} rm -f $policy" EXIT
    trap 'exit 130' INT TERM
  fi
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
  if [ "$ours" = yes ]; then
    "${sudo[@]}" rm -f "$policy"
    trap - EXIT INT TERM
  fi
}

build() {
  local werror=OFF
  [ -n "${CI:-}" ] && werror=ON
  say "building in $build_dir"
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_WERROR="$werror" >/dev/null
  cmake --build "$build_dir" -j2
}

run_app() {
  install_missing "${build_packages[@]}"
  build
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    say "no display: run this from a desktop session (or with DISPLAY set, e.g. under xvfb-run)"
    exit 1
  fi
  # With no options, always the sandbox: sluice alone would open the last used connection profile.
  [ $# -gt 0 ] || set -- --sandbox
  say "starting sluice (close the window to stop it and its sandbox Redis)"
  exec "$build_dir/app/sluice" "$@"
}

# install_node_modules SOURCE_DIR BUILD_SUBDIR WHAT: the npm packages SOURCE_DIR/package-lock.json pins (npm ci,
# nothing else downloaded), into the build folder; again only when the lock file changed. The Node snippet
# test uses tests/snippets' (ioredis), the limiter benchmark tests/bench/peers' (the peer rate limiters).
install_node_modules() {
  local source=$1 dir=$build_dir/$2
  # The lock file of the last install that finished, kept inside node_modules (npm ci empties it first).
  local installed=$dir/node_modules/.installed-package-lock.json
  cmp -s "$source/package-lock.json" "$installed" && return 0
  say "installing $3 (npm ci)"
  mkdir -p "$dir"
  cp "$source/package.json" "$source/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts)
  cp "$source/package-lock.json" "$installed"
}

# The .deb from the build's install rules (resources/packaging/DebianPackage.cmake); prints its path.
package_deb() {
  local out=$build_dir/package
  say "writing the Debian package into $out"
  rm -rf "$out"
  (cd "$build_dir" && cpack -G DEB -B "$(pwd)/package" >/dev/null)
  ls "$out"/sluice_*.deb
}

make_package() {
  install_missing "${build_packages[@]}"
  build
  package_deb
}

# The redis/, model/ and lua/ suites (and the unit ones) again, built with AddressSanitizer and UBSan in a build
# folder of their own: a report fails the run. Against the services run_tests started; prints its own time.
sanitized_suites() {
  local asan_dir=${build_dir}-asan werror=OFF started=$SECONDS
  [ -n "${CI:-}" ] && werror=ON
  say "building the sanitized suites in $asan_dir"
  cmake -S . -B "$asan_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_SANITIZE=ON \
    -DSLUICE_WERROR="$werror" >/dev/null
  cmake --build "$asan_dir" -j2 --target sanitized_suites
  say "running the sanitized suites"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1 \
    LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/leaks.supp:print_suppressions=0" \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    dbus-run-session -- tests/services/with-keyring.sh \
    ctest --test-dir "$asan_dir" --output-on-failure -j2 --timeout 1200 --label-regex sanitized
  say "sanitized suites: built and passed in $((SECONDS - started)) s"
}

run_tests() {
  install_missing "${build_packages[@]}" "${test_packages[@]}"
  build
  install_node_modules tests/snippets snippets-node "ioredis for the snippet tests"
  install_node_modules tests/bench/peers peers-node "the peer rate limiters for the limiter benchmark"
  local services_dir
  services_dir=$(mktemp -d /tmp/sluice-test-services.XXXXXX)
  # Stop every service by pid, whatever happens to the suite.
  trap 'tests/services/services.sh stop "'"$services_dir"'" || true; rm -rf "'"$services_dir"'"' EXIT
  say "starting test services in $services_dir"
  tests/services/services.sh start "$services_dir"
  # shellcheck source=/dev/null
  source "$services_dir/env"
  export QT_QPA_PLATFORM=offscreen
  say "running the suite"
  dbus-run-session -- tests/services/with-keyring.sh \
    ctest --test-dir "$build_dir" --output-on-failure -j2 --timeout 600 --label-exclude bench
  sanitized_suites
  say "running the benchmarks (their figures follow)"
  ctest --test-dir "$build_dir" --verbose --label-regex bench --timeout 900
  # Installs on this machine (CI's is thrown away; it refuses a machine where sluice is installed already).
  say "installing the Debian package, checking it, purging it"
  local deb
  deb=$(package_deb)
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" tests/packaging/install_package.sh "$deb"
}

case "${1:-}" in
  run) shift; run_app "$@" ;;
  test) shift; run_tests "$@" ;;
  package) shift; make_package ;;
  *) echo "usage: ./dev.sh run [sluice options] | ./dev.sh test | ./dev.sh package" >&2; exit 2 ;;
esac
