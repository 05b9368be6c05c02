#!/usr/bin/env python3
"""Checks that no Rust or Python file under crates/ is over 800 lines.

A file that long holds more than one job; split it along a seam (see
CONTRIBUTING.md). Hidden folders, build outputs (`target`) and caches are
skipped. Prints each file over the limit as `path: N lines`, longest first,
and exits 1 if there is one.

    python3 .ci/check-sizes.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 800
SUFFIXES = (".rs", ".py")
SKIPPED_FOLDERS = {"target", "__pycache__", "node_modules"}


def source_files(top: Path) -> list[Path]:
    files = []
    for folder, subfolders, names in os.walk(top):
        subfolders[:] = [
            name for name in subfolders if not name.startswith(".") and name not in SKIPPED_FOLDERS
        ]
        files += [Path(folder) / name for name in names if name.endswith(SUFFIXES)]
    return files


def line_count(path: Path) -> int:
    with path.open("rb") as file:
        return sum(1 for _ in file)


def main() -> int:
    too_long = [(line_count(path), path) for path in source_files(ROOT / "crates")]
    too_long = sorted(
        ((count, path) for count, path in too_long if count > MAX_LINES),
        key=lambda entry: (-entry[0], entry[1]),
    )
    for count, path in too_long:
        print(f"{path.relative_to(ROOT)}: {count} lines", file=sys.stderr)
    if too_long:
        print(
            f"{len(too_long)} file(s) over {MAX_LINES} lines; split each along a seam",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
