#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The layers point one way: ui -> model -> redis. Fails, naming file and line, when
#   - redis/ includes anything of model/, ui/ or app/, or a widget header,
#   - model/ includes anything of ui/ or app/, or a widget header,
#   - ui/ includes anything of redis/ or names the redis:: namespace (the screens go through model/),
#   - ui/ asks anything for its client() (the connection session hands out model services, never the client),
#     or names a redis:: type that a model/ header renames (`using X = redis::...`),
#   - lua/ holds anything but Lua (it is loaded into Redis as it is).
# Usage: tst_layering.sh SOURCE_DIR
set -uo pipefail
root=${1:?usage: tst_layering.sh SOURCE_DIR}
cd "$root" || exit 1

failed=0
forbid() {
    local folder=$1 pattern=$2 why=$3 hits
    hits=$(grep -rnE --include='*.h' --include='*.cpp' "$pattern" "$folder" 2>/dev/null)
    if [ -n "$hits" ]; then
        printf 'FAIL: %s %s\n%s\n' "$folder/" "$why" "$hits"
        failed=1
    fi
}

widgets='#include <(QtWidgets/|QtCharts/|QWidget|QDialog|QMainWindow|QApplication|QChart)'
forbid redis '#include "(model|ui|app)/' "must not depend on model/, ui/ or app/"
forbid redis "$widgets" "must not include a widget header"
forbid model '#include "(ui|app)/' "must not depend on ui/ or app/"
forbid model "$widgets" "must not include a widget header"
forbid ui '#include "redis/' "must not include redis/ (go through model/)"
forbid ui '\bredis::' "must not name redis:: types (go through model/)"
forbid ui '\bclient\(\)' "must not reach for a Redis client (the session's services are the way in)"
# A redis:: type renamed in model/ is still a redis:: type.
aliases=$(grep -rhoE --include='*.h' 'using +[A-Za-z_][A-Za-z0-9_]* *= *(sluice::)?redis::' model |
    sed -E 's/using +([A-Za-z0-9_]+).*/\1/' | sort -u)
for alias in $aliases; do
    forbid ui "::$alias\b" "must not name $alias, a redis:: type under a model/ name"
done

stray=$(find lua -type f ! -name '*.lua' ! -name CMakeLists.txt ! -name README.md)
if [ -n "$stray" ]; then
    printf 'FAIL: lua/ holds only Lua sources:\n%s\n' "$stray"
    failed=1
fi

# The check must have looked at something: an empty tree would pass every rule.
for folder in redis model ui; do
    count=$(find "$folder" -name '*.cpp' | wc -l)
    if [ "$count" -lt 5 ]; then
        echo "FAIL: $folder/ has $count sources; wrong SOURCE_DIR?"
        failed=1
    fi
done

if [ "$failed" -eq 0 ]; then
    echo "PASS: ui -> model -> redis, nothing pointing back"
fi
exit "$failed"
