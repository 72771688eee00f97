# SPDX-License-Identifier: GPL-3.0-or-later
"""Documentation blocks that must never rot, checked (or, with --write, rewritten) against their source.

A fenced block whose info string names a file of the repository shows that file verbatim:
    ```python docs/snippets/limiter.py
A block whose info string is a sluicectl command shows that command's output verbatim:
    ```text sluicectl acl service
Every file in docs/snippets/ must be shown somewhere.

    check_docs_blocks.py REPO_ROOT SLUICECTL [--write]
"""
import pathlib
import re
import shlex
import subprocess
import sys

OPENING = re.compile(r"^```(\w+) (\S.*)$")


def source_of(root, sluicectl, target):
    """What the block must hold: the file's text, or the command's standard output."""
    words = shlex.split(target)
    if words[0] == "sluicectl":
        run = subprocess.run([sluicectl] + words[1:], capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise ValueError(f"`{target}` exited {run.returncode}: {run.stderr.strip()}")
        return run.stdout
    path = root / target
    if not path.is_file():
        raise ValueError(f"{target} is not a file of the repository")
    return path.read_text()


def check_page(root, sluicectl, page, write, shown):
    lines = page.read_text().splitlines(keepends=True)
    problems, output, index = [], [], 0
    while index < len(lines):
        line = lines[index]
        output.append(line)
        index += 1
        opening = OPENING.match(line.rstrip("\n"))
        if not opening:
            continue
        target = opening.group(2)
        body_start = index
        while index < len(lines) and lines[index].rstrip("\n") != "```":
            index += 1
        body = "".join(lines[body_start:index])
        try:
            expected = source_of(root, sluicectl, target)
        except ValueError as error:
            problems.append(f"{page.relative_to(root)}:{body_start}: {error}")
            output.extend(lines[body_start:index])
            continue
        shown.add(target)
        if body != expected and not write:
            problems.append(f"{page.relative_to(root)}:{body_start}: the block differs from {target} "
                            f"(tests/snippets/check_docs_blocks.py ROOT SLUICECTL --write rewrites it)")
        output.append(expected if write else body)
    if write:
        page.write_text("".join(output))
    return problems


def main():
    root, sluicectl = pathlib.Path(sys.argv[1]).resolve(), sys.argv[2]
    write = "--write" in sys.argv[3:]
    shown = set()
    problems = []
    for page in sorted([root / "README.md"] + list((root / "docs").glob("*.md"))):
        problems += check_page(root, sluicectl, page, write, shown)
    for snippet in sorted(path for path in (root / "docs" / "snippets").iterdir() if path.is_file()):
        if str(snippet.relative_to(root)) not in shown:
            problems.append(f"{snippet.relative_to(root)} is shown in no page")
    for problem in problems:
        print(f"FAIL: {problem}")
    if not problems:
        print(f"ok: {len(shown)} blocks match their sources")
    return 1 if problems else 0


sys.exit(main())
