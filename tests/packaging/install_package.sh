#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian package on this machine itself (run as root by ./dev.sh test after the suite): lintian,
# desktop-file-validate and appstreamcli validate on what it ships (their output printed; any error fails),
# then apt-get install, the installed programs, manual page and bash completion checked, then apt-get purge
# and nothing of it left in /usr. The purge runs on every exit path. A machine that already has sluice, or any
# file the package would install, is refused and left alone.
# Usage: install_package.sh PACKAGE.deb
set -euo pipefail
deb=$(readlink -f "$1")
package=$(dpkg-deb --field "$deb" Package)
version=$(dpkg-deb --field "$deb" Version)

work=$(mktemp -d /tmp/sluice-install.XXXXXX)
installed=no
cleanup() {
    if [ "$installed" = yes ]; then
        echo "== purging $package"
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$package" >"$work/purge.log" 2>&1 || cat "$work/purge.log"
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Refuse rather than clobber: neither the package nor any of its files may be here already.
if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -qv '^unknown ok not-installed$\|^$'; then
    echo "REFUSED: $package is already known to dpkg ($(dpkg-query -W -f='${Status} ${Version}' "$package")):" \
         "remove it first; this test installs and purges its own build"
    exit 1
fi
dpkg-deb --extract "$deb" "$work/root"
present=$(cd "$work/root" && find . ! -type d -printf '/%P\n' | while read -r path; do
              [ -e "$path" ] && echo "$path"; done) || true
if [ -n "$present" ]; then
    echo "REFUSED: files the package would install are already here (not from a package of it):"
    echo "$present"
    exit 1
fi

passed=0
failed=0
check() { # check NAME: the result of the previous test, counted and said
    if [ "$1" = ok ]; then passed=$((passed + 1)); echo "PASS: $2"; else failed=$((failed + 1)); echo "FAIL: $2"; fi
}

# A checker that is missing or crashes has checked nothing: that fails as an error would.
echo "== lintian $(basename "$deb")"
lintian_status=0
lintian "$deb" >"$work/lintian.log" 2>&1 || lintian_status=$?
cat "$work/lintian.log"
# lintian exits 0 when clean, 1 when it reports a policy error (as E: lines), 2 and above when it failed.
if [ "$lintian_status" -ge 2 ] || { [ "$lintian_status" -eq 1 ] && ! grep -q '^E: ' "$work/lintian.log"; }; then
    check fail "lintian did not run (exit $lintian_status)"
elif grep -q '^E: ' "$work/lintian.log"; then
    check fail "lintian reports errors"
else
    check ok "lintian: no errors"
fi

echo "== desktop-file-validate"
if desktop-file-validate "$work"/root/usr/share/applications/*.desktop; then
    check ok "desktop-file-validate"
else
    check fail "desktop-file-validate"
fi

echo "== appstreamcli validate"
if appstreamcli validate --no-net "$work"/root/usr/share/metainfo/*.metainfo.xml; then
    check ok "appstreamcli validate"
else
    check fail "appstreamcli validate"
fi

echo "== apt-get install $deb"
installed=yes
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" >"$work/install.log" 2>&1 || {
    cat "$work/install.log"
    echo "FAIL: apt-get install"
    exit 1
}
dpkg -L "$package" >"$work/files"

result() { if "$@"; then echo ok; else echo fail; fi; }
in_path() { [ "$(command -v "$1")" = "/usr/bin/$1" ]; }
check "$(result in_path sluicectl)" "sluicectl is /usr/bin/sluicectl"

out=$(sluicectl --version 2>&1) || true
echo "$ sluicectl --version"$'\n'"$out"
check "$(result test "$out" = "sluicectl $version")" "sluicectl --version says $version"

out=$(sluicectl help apply 2>&1) && status=0 || status=$?
echo "$ sluicectl help apply (first lines)"$'\n'"$(head -3 <<<"$out")"
check "$(result test "$status" = 0 -a "${out#*Usage: sluicectl apply}" != "$out")" "sluicectl help apply"

out=$(man -w sluicectl 2>&1) || true
echo "$ man -w sluicectl"$'\n'"$out"
check "$(result test "$out" = /usr/share/man/man1/sluicectl.1.gz)" "man -w sluicectl finds the installed page"

# The alert rules where docs/monitoring.md's rule_files says, valid for Debian's promtool (./dev.sh test has it).
rules=/usr/share/sluice/prometheus/sluice-alerts.yml
out=$(promtool check rules "$rules" 2>&1) && status=0 || status=$?
echo "$ promtool check rules $rules"$'\n'"$out"
check "$(result test "$status" = 0)" "promtool check rules passes on the installed $rules"

# bash completion as bash-completion would load it, in a non-interactive bash.
completions_dir=$(pkg-config --variable=completionsdir bash-completion 2>/dev/null \
                  || echo /usr/share/bash-completion/completions)
complete_line() { # complete_line WORD... : the candidates for the last word, sorted, one a line
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sluicectl
             printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$completions_dir/sluicectl" "$@"
}
out=$(complete_line sluicectl a | tr '\n' ' ')
echo "$ sluicectl a<TAB>"$'\n'"$out"
check "$(result test "$out" = "acl acquire apply ")" "sluicectl a<TAB> offers exactly acl, acquire, apply"
out=$(complete_line sluicectl -u redis://127.0.0.1:6379 apply --dr | tr '\n' ' ')
echo "$ sluicectl -u redis://127.0.0.1:6379 apply --dr<TAB>"$'\n'"$out"
check "$(result test "$out" = "--dry-run ")" "sluicectl ... apply --dr<TAB> offers --dry-run"

out=$(QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=$work sluice --version 2>&1) || true
echo "$ sluice --version"$'\n'"$out"
check "$(result test "$out" = "sluice $version")" "sluice --version says $version"

echo "== apt-get purge $package"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$package" >"$work/purge.log" 2>&1 || cat "$work/purge.log"
installed=no
# Every path it had is gone, except directories another package owns (/usr/bin, /usr/share/man/man1, ...).
left=$(while read -r path; do
           [ -e "$path" ] || continue
           [ -d "$path" ] && dpkg-query -S "$path" >/dev/null 2>&1 && continue
           echo "$path"
       done <"$work/files")
[ -n "$left" ] && echo "left behind:"$'\n'"$left"
check "$(result test -z "$left")" "purge leaves nothing of $package ($(wc -l <"$work/files") paths) in /usr"

echo "install: $passed passed, $failed failed"
[ "$failed" = 0 ]
