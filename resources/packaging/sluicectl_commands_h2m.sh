#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes sluicectl(1)'s COMMANDS section for help2man --include: every command's own help page
# (sluicectl help COMMAND), in the order sluicectl help --commands lists them, kept as laid out.
# Usage: sluicectl_commands_h2m.sh SLUICECTL OUTPUT
set -euo pipefail
sluicectl=$1
output=$2

# roff: a backslash is written \e, and a line starting with . or ' would be a request.
as_roff() { sed -e 's/\\/\\e/g' -e "s/^[.']/\\\\\\&&/"; }

commands=$("$sluicectl" help --commands)
{
    echo '[COMMANDS]'
    for command in $commands; do
        printf '.SS %s\n.nf\n' "$command"
        "$sluicectl" help "$command" | as_roff
        printf '.fi\n'
    done
} >"$output.tmp"
mv "$output.tmp" "$output"
