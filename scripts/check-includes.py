#!/usr/bin/env python3
"""Checks that the project's #include lines follow the layer table of docs/architecture.md.

The table under the heading "## Layers" has one row per part of the tree:

    | part | may include | what it is |
    |---|---|---|
    | `src/model` | - | the records |
    | `src/formats` | `src/model`, `src/io`, `src/protocol` | one folder per format |

(the first two columns are read; a row whose first cell is not one `path` is skipped).

A source file belongs to the row whose part is the longest prefix of its path; an
`#include "a/b.h"` names the file src/a/b.h (or include/a/b.h, or a generated header), which
belongs to a row the same way. An include from one part into another that its row does not
list is a dependency going up the table, and fails the check; so does a source file, or an
included project header, that no row covers (a new folder must take its place in the table).
Includes within one part are always allowed.

Usage: check-includes.py [ROOT]   (ROOT: the source tree, default: this script's parent's parent)
Exit status: 0 when every include follows the table, 1 when one does not, 2 when the table
cannot be read.
"""

import os
import pathlib
import re
import sys

TABLE_HEADING = "## Layers"
PART = re.compile(r"`([^`]+)`")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_SUFFIXES = {".h", ".hpp", ".c", ".cc", ".cpp", ".inc"}
# Headers that CMake generates into the build tree, and the part of the table they stand for.
GENERATED = {"rtrace/version.h": "include/rtrace", "rtrace/build_commit.h": "include/rtrace"}


def read_table(doc: pathlib.Path) -> dict[str, set[str]]:
    """The rows of the layer table: each part with the parts it may include."""
    rows: dict[str, set[str]] = {}
    in_section = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_section = line.strip() == TABLE_HEADING
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not in_section or not line.startswith("|") or len(cells) < 2:
            continue
        own = PART.fullmatch(cells[0])
        if own:
            rows[own.group(1).rstrip("/")] = set(PART.findall(cells[1]))
    return rows


def part_of(path: str, parts: dict[str, set[str]]) -> str | None:
    """The longest part of the table that is a prefix of path, if any."""
    best = None
    for part in parts:
        if (path == part or path.startswith(part + "/")) and (best is None or len(part) > len(best)):
            best = part
    return best


def included_path(root: pathlib.Path, source: pathlib.Path, name: str) -> str | None:
    """The project file an include names, relative to root; None for a header from elsewhere."""
    if name in GENERATED:
        return GENERATED[name] + "/" + pathlib.PurePath(name).name
    for base in (root / "src", root / "include", source.parent):
        candidate = base / name
        if candidate.is_file():
            return pathlib.Path(os.path.normpath(candidate)).relative_to(root).as_posix()
    return None


def check(root: pathlib.Path) -> int:
    doc = root / "docs" / "architecture.md"
    parts = read_table(doc)
    if not parts:
        print(f"check-includes: {doc}: no layer table under '{TABLE_HEADING}'", file=sys.stderr)
        return 2
    failures = []
    for source in sorted((root / "src").rglob("*")):
        if source.suffix not in SOURCE_SUFFIXES or not source.is_file():
            continue
        relative = source.relative_to(root).as_posix()
        own = part_of(relative, parts)
        if own is None:
            failures.append(f"{relative}: not in the layer table of docs/architecture.md")
            continue
        lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, start=1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = included_path(root, source, match.group(1))
            if target is None:
                continue
            target_part = part_of(target, parts)
            if target_part is None:
                failures.append(f"{relative}:{number}: includes {target}, which no row covers")
            elif target_part != own and target_part not in parts[own]:
                failures.append(
                    f"{relative}:{number}: {own} includes {target_part} ({match.group(1)}), "
                    f"which its row does not list"
                )
    for failure in failures:
        print(f"check-includes: {failure}", file=sys.stderr)
    if failures:
        print(f"check-includes: {len(failures)} problem(s) against the layer table", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    default_root = pathlib.Path(__file__).resolve().parent.parent
    sys.exit(check(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default_root))
