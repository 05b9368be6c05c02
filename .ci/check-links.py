#!/usr/bin/env python3
"""Checks every relative link and image in the project's Markdown.

Files: README.md, CONTRIBUTING.md, docs/**/*.md and crates/**/README.md. For
each link that is not a URL (http, https, mailto and other schemes are skipped:
no network), the target must exist inside the repository, and a `#anchor` must
name a heading of the target (GitHub's slugs) or an explicit `id`/`name`
anchor. Prints every broken link as `file:line: link: reason` and exits 1 if
there is one.

    python3 .ci/check-links.py
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target "title") and ![alt](target); the text may hold one level of brackets.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"<[a-zA-Z][^>]*?\s(?:id|name)\s*=\s*[\"']([^\"']+)[\"']")
HTML_TAG = re.compile(r"<[^>]+>")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    files += sorted(p for p in (ROOT / "crates").rglob("README.md") if "target" not in p.parts)
    return [p for p in files if p.is_file()]


def prose_lines(text: str):
    """Yields (line number, line) outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            yield number, line
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
            if line.strip() == match.group(1):
                fence = None


def heading_text(raw: str) -> str:
    """The text GitHub renders for a heading's Markdown."""
    parts = []
    last = 0
    for match in CODE_SPAN.finditer(raw):
        parts.append(rendered_prose(raw[last : match.start()]))
        parts.append(match.group(2).strip())  # code is literal text
        last = match.end()
    parts.append(rendered_prose(raw[last:]))
    return "".join(parts).strip()


def rendered_prose(text: str) -> str:
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", text)
    text = HTML_TAG.sub("", text)
    text = re.sub(r"\*+|(?<!\w)_+|_+(?!\w)", "", text)  # emphasis, not snake_case
    return re.sub(r"\\(.)", r"\1", text)


def slug(text: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation and symbols removed
    (but `-` and `_`), spaces to `-`; letters of any script are kept."""
    out = []
    for ch in text.lower():
        if ch == " ":
            out.append("-")
        elif ch in "-_":
            out.append(ch)
        elif unicodedata.category(ch)[0] in "LMN" or unicodedata.category(ch) == "Pc":
            out.append(ch)
    return "".join(out)


_anchor_cache: dict[Path, set[str]] = {}


def anchors(path: Path) -> set[str]:
    if path not in _anchor_cache:
        found: set[str] = set()
        counts: dict[str, int] = {}

        def add(base: str) -> None:
            name = base
            if name in counts:
                while True:
                    counts[base] += 1
                    name = f"{base}-{counts[base]}"
                    if name not in counts:
                        break
            counts.setdefault(name, 0)
            found.add(name)

        previous = ""
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            match = ATX.match(line)
            if match:
                add(slug(heading_text(match.group(2) or "")))
            elif SETEXT.match(line) and previous.strip() and not ATX.match(previous):
                if not (line.lstrip().startswith("-") and previous.lstrip().startswith(("- ", "* ", "|"))):
                    add(slug(heading_text(previous)))
            for anchor in HTML_ANCHOR.findall(line):
                found.add(anchor)
            previous = line
        _anchor_cache[path] = found
    return _anchor_cache[path]


def links(text: str):
    """Yields (line number, target) for every link and image in prose."""
    for number, line in prose_lines(text):
        prose = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for match in INLINE.finditer(prose):
            yield number, match.group(1).strip("<>")
        match = REFERENCE.match(prose)
        if match:
            yield number, match.group(1).strip("<>")
        for match in re.finditer(r"<img\s[^>]*?src\s*=\s*[\"']([^\"']+)[\"']", prose):
            yield number, match.group(1)


def check(path: Path, target: str) -> str | None:
    if SCHEME.match(target) or target.startswith("//"):
        return None  # a URL: no network here
    file_part, _, anchor = target.partition("#")
    file_part = unquote(file_part)
    anchor = unquote(anchor)
    if file_part.startswith("/"):
        resolved = (ROOT / file_part.lstrip("/")).resolve()
    elif file_part:
        resolved = (path.parent / file_part).resolve()
    else:
        resolved = path
    if resolved != ROOT and ROOT not in resolved.parents:
        return "points outside the repository"
    if not resolved.exists():
        return f"no such file: {os.path.relpath(resolved, ROOT)}"
    if not anchor:
        return None
    if resolved.is_dir():
        resolved = resolved / "README.md"
        if not resolved.is_file():
            return "an anchor into a folder without README.md"
    if resolved.suffix.lower() != ".md":
        return None  # line anchors of source files are not checked
    if anchor not in anchors(resolved):
        return f"no heading or anchor #{anchor} in {os.path.relpath(resolved, ROOT)}"
    return None


def main() -> int:
    broken = []
    checked = 0
    for path in markdown_files():
        for number, target in links(path.read_text(encoding="utf-8")):
            checked += 1
            reason = check(path, target)
            if reason:
                broken.append(f"{path.relative_to(ROOT)}:{number}: {target}: {reason}")
    for line in broken:
        print(line)
    if broken:
        print(f"{len(broken)} broken of {checked} links", file=sys.stderr)
        return 1
    print(f"{checked} links checked, none broken", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
