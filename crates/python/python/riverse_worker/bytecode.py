"""Tool files' bytecode where Python is told not to write any
(`PYTHONDONTWRITEBYTECODE`): that setting keeps caches out of the user's
source trees, so a worker the host started keeps it in Riverse's own cache
instead, beside the worker package's, and discovery loads each unchanged
tool file from it rather than compiling it at every start."""

from __future__ import annotations

import sys
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)

# Where the tools' bytecode goes: set by `boot` in a worker the host started
# from its cache; None elsewhere (a worker run from a source tree as an MCP
# server writes nothing of its own).
ROOT: str | None = None


class CachedToolLoader(SourceFileLoader):
    """A tool file's loader whose bytecode is read from and written to
    `ROOT`, mirroring the file's path (Python's `pycache_prefix`), for the
    compiling of this one file only: what the file imports in turn is
    loaded as the interpreter's settings say."""

    def get_code(self, fullname):
        saved = sys.pycache_prefix, sys.dont_write_bytecode
        sys.pycache_prefix, sys.dont_write_bytecode = ROOT, False
        try:
            return super().get_code(fullname)
        finally:
            sys.pycache_prefix, sys.dont_write_bytecode = saved


def keep_tool_bytecode(tools_dir: str, sandboxed: bool) -> None:
    """Has the files of `tools_dir` loaded by `CachedToolLoader`, where the
    interpreter writes no bytecode and the host gave a cache; a sandboxed
    worker keeps to what its rules let it write."""
    if ROOT is None or sandboxed or not sys.flags.dont_write_bytecode:
        return
    sys.path_importer_cache[tools_dir] = FileFinder(
        tools_dir,
        (ExtensionFileLoader, EXTENSION_SUFFIXES),
        (CachedToolLoader, SOURCE_SUFFIXES),
        (SourcelessFileLoader, BYTECODE_SUFFIXES),
    )
