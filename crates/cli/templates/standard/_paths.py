"""Path containment for the standard tools (file_read, file_list, file_write,
grep, shell_exec).

A path is allowed when, once resolved (relative to the project, with `..` and
every symlink followed), it lies inside one of the tool's `allowed_dirs`,
compared component by component: `/data/allowed_secret` is not inside
`/data/allowed`. `allowed_dirs` defaults to the project directory, which is
where Riverse runs its tools.

Settings, per tool:

    tools:
      file_read: {allowed_dirs: [".", "/srv/shared"]}
"""

import os

PROJECT_DIR = os.path.realpath(os.getcwd())


def tool_settings(config: dict, name: str) -> dict:
    tools = config.get("tools") if isinstance(config, dict) else None
    section = tools.get(name) if isinstance(tools, dict) else None
    return section if isinstance(section, dict) else {}


def resolve(path: str) -> str:
    """`path` made absolute against the project and fully resolved."""
    path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(PROJECT_DIR, path)
    return os.path.realpath(path)


def allowed_dirs(settings: dict) -> list[str]:
    dirs = settings.get("allowed_dirs") or ["."]
    if isinstance(dirs, str):
        dirs = [dirs]
    return [resolve(str(d)) for d in dirs]


def is_inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:
        return False


def contain(path: str, settings: dict):
    """(resolved path, None) when `path` is allowed, else (None, why not)."""
    resolved = resolve(path)
    roots = allowed_dirs(settings)
    if any(is_inside(resolved, root) for root in roots):
        return resolved, None
    shown = ", ".join(roots)
    return None, f"path not allowed: {path} resolves to {resolved}, outside the allowed directories ({shown})"


def shown(path: str) -> str:
    """A resolved path relative to the project when it lies inside it."""
    if is_inside(path, PROJECT_DIR):
        return os.path.relpath(path, PROJECT_DIR)
    return path
