#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The shipped Prometheus rules (resources/prometheus/sluice-alerts.yml) and the monitoring page's snippets,
# through the real promtool (Debian's prometheus package): `check rules` on both rule files, `test rules` on
# every tests/prometheus/*.test.yml (each alert firing and not firing), and `check config` on
# docs/snippets/prometheus.yml with its rule_files pointed at this checkout (the installed paths it names need
# not exist here). Starts no process but promtool; writes only a temporary folder, removed on every exit.
# Usage: check_rules.sh SOURCE_DIR
set -euo pipefail
root=$(readlink -f "${1:?usage: check_rules.sh SOURCE_DIR}")

if ! command -v promtool >/dev/null; then
    echo "FAIL: promtool not found: install Debian's prometheus package (./dev.sh test does)" >&2
    exit 1
fi
promtool --version 2>&1 | sed -n 1p # sed reads it all: no SIGPIPE for pipefail

rules=$root/resources/prometheus/sluice-alerts.yml
thresholds=$root/docs/snippets/sluice-thresholds.yml
promtool check rules "$rules" "$thresholds"
# promtool resolves a test file's rule_files from the test file's folder, wherever it runs.
promtool test rules "$root"/tests/prometheus/*.test.yml

work=$(mktemp -d /tmp/sluice-check-rules.XXXXXX)
trap 'rm -rf "$work"' EXIT
config=$work/prometheus.yml
sed -e "s#/usr/share/sluice/prometheus/sluice-alerts.yml#$rules#" \
    -e "s#/etc/prometheus/sluice-thresholds.yml#$thresholds#" "$root/docs/snippets/prometheus.yml" >"$config"
# A renamed path in the snippet would leave it unsubstituted and fail below anyway; this says why.
if ! grep -qF -- "- $rules" "$config" || ! grep -qF -- "- $thresholds" "$config"; then
    echo "FAIL: docs/snippets/prometheus.yml no longer loads the rules from the paths this test rewrites" >&2
    exit 1
fi
promtool check config "$config"
echo "ok: the rules, their tests and the documented config pass promtool"
