"""Path containment for the standard tools (file_read, file_list, file_write,
grep, shell_exec).

A path is allowed when it lies inside one of the tool's `allowed_dirs` and is
not protected. `allowed_dirs` defaults to the project directory.

Protected, whatever `allowed_dirs` says (even `["/"]`): Riverse's own files,
which Riverse passes in as `config["riverse"]["protected_paths"]` (the
settings file in use, the tools directory, agent/config, .riverse/, .venv/,
.git/, the embedded model cache), any directory named `.git`, and files that
commonly hold secrets (`secret_files`, below). Names are compared without
regard to case, and a protected file is also recognised by its inode, so a
hard link or a bind mount of it is refused too.

Paths are opened, never checked and then reopened by name: `open_path` walks
the path one component at a time from `/`, opening each directory with
O_NOFOLLOW relative to the one before, so a symlink or directory swapped in
mid-way cannot redirect it. A symlink met on the way is read and its target
walked the same way; where the walk ends is what is checked, and the tool
then reads, writes or lists through the file descriptor it holds.

Settings, per tool:

    tools:
      file_read:
        allowed_dirs: [".", "/srv/shared"]
        secret_files: [".env", ".env.*", "*.pem"]   # replaces the default list; [] turns it off
        read_hard_links: false                     # true reads files with more than one link
"""

import errno
import fnmatch
import os
import stat

PROJECT_DIR = os.path.realpath(os.getcwd())

# As the kernel's own limit on symlinks followed in one lookup.
MAX_SYMLINKS = 40
DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Files that commonly hold secrets; a tool's `secret_files` replaces the list.
SECRET_FILES = [
    ".env", ".env.*", "*.pem", "*.key", "id_rsa", "id_rsa.*", "id_dsa", "id_ecdsa", "id_ecdsa.*",
    "id_ed25519", "id_ed25519.*", ".netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc",
    ".ssh", ".gnupg", ".aws",
]
# Directory names protected wherever they are.
PROTECTED_NAMES = {".git": "a git repository: its config runs commands"}


class Refused(Exception):
    """A path the tool may not use; the message says which and why."""


class NotFound(Exception):
    """A path inside the scope that does not exist."""


def tool_settings(config: dict, name: str) -> dict:
    tools = config.get("tools") if isinstance(config, dict) else None
    section = tools.get(name) if isinstance(tools, dict) else None
    return section if isinstance(section, dict) else {}


def is_inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:
        return False


def folded_inside(path: str, root: str) -> bool:
    """`is_inside` without regard to case: on a case-insensitive file system
    `.GIT/config` is `.git/config`."""
    return is_inside(path.casefold(), root.casefold())


def default_protected(project: str) -> list:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [
        {"path": os.path.join(project, "settings.yaml"), "reason": "the settings file"},
        {"path": os.path.join(project, "agent", "tools"), "reason": "the tools directory: a file written there is code Riverse runs"},
        {"path": os.path.join(project, "agent", "config"), "reason": "the YAML agents' directory"},
        {"path": os.path.join(project, ".riverse"), "reason": "Riverse's data"},
        {"path": os.path.join(project, ".venv"), "reason": "the project's Python environment"},
        {"path": os.path.join(project, ".git"), "reason": "the git repository: its config runs commands"},
        {"path": os.path.join(cache, "riverse"), "reason": "the embedded model cache"},
    ]


class Scope:
    """Where one tool may go: its allowed directories, minus what is protected.
    Read again at every call, so a directory created since is recognised."""

    def __init__(self, config: dict, name: str):
        self.name = name
        self.settings = tool_settings(config, name)
        riverse = config.get("riverse") if isinstance(config, dict) else None
        riverse = riverse if isinstance(riverse, dict) else {}
        self.project = os.path.realpath(str(riverse.get("project_dir") or PROJECT_DIR))
        listed = riverse.get("protected_paths")
        if not isinstance(listed, list):
            listed = default_protected(self.project)
        self.protected = [
            (os.path.realpath(str(entry["path"])), str(entry.get("reason") or "Riverse's own file"))
            for entry in listed
            if isinstance(entry, dict) and entry.get("path")
        ]
        self.protected_ids = {}
        for path, reason in self.protected:
            try:
                info = os.stat(path)
            except OSError:
                continue
            self.protected_ids[(info.st_dev, info.st_ino)] = (path, reason)
        secret = self.settings.get("secret_files", SECRET_FILES)
        self.secret_files = [str(glob).casefold() for glob in secret] if isinstance(secret, list) else SECRET_FILES
        self.read_hard_links = self.settings.get("read_hard_links", False) is True
        dirs = self.settings.get("allowed_dirs") or ["."]
        if isinstance(dirs, str):
            dirs = [dirs]
        # Resolved once per call, not once per entry a listing or grep meets.
        self.allowed = [self.resolve(str(d)) for d in dirs]

    def resolve(self, path: str) -> str:
        """`path` made absolute against the project, its symlinks followed."""
        path = os.path.expanduser(path)
        if not os.path.isabs(path):
            path = os.path.join(self.project, path)
        return os.path.realpath(path)

    def roots(self) -> list:
        return self.allowed

    def refusal(self, requested: str, real: str, info=None):
        """Why `real` (where `requested` leads) may not be used, or None."""
        roots = self.roots()
        if not any(is_inside(real, root) for root in roots):
            shown = ", ".join(roots)
            return f"path not allowed: {requested} resolves to {real}, outside the allowed directories ({shown})"
        protected = self.protected_by_name(real)
        if protected is None and info is not None:
            protected = self.protected_ids.get((info.st_dev, info.st_ino))
        if protected is not None:
            path, reason = protected
            where = "which is" if real.casefold() == path.casefold() else f"inside {path}, which is"
            return f"path not allowed: {requested} resolves to {real}, {where} protected whatever allowed_dirs says ({reason})"
        secret = self.secret_name(real)
        if secret is not None:
            return (
                f"path not allowed: {requested} resolves to {real}, which is protected: its name matches {secret!r}, "
                f"a file that commonly holds secrets (tools.{self.name}.secret_files sets the list)"
            )
        return None

    def protected_by_name(self, real: str):
        for path, reason in self.protected:
            if folded_inside(real, path):
                return path, reason
        parts = real.split(os.sep)
        for index, part in enumerate(parts):
            reason = PROTECTED_NAMES.get(part.casefold())
            if reason is not None:
                return os.sep.join(parts[: index + 1]) or os.sep, reason
        return None

    def secret_name(self, real: str):
        relative = os.path.relpath(real, self.project) if is_inside(real, self.project) else real
        for part in relative.split(os.sep):
            for glob in self.secret_files:
                if fnmatch.fnmatchcase(part.casefold(), glob):
                    return glob
        return None

    def shown(self, path: str) -> str:
        """A resolved path relative to the project when it lies inside it."""
        if is_inside(path, self.project):
            return os.path.relpath(path, self.project)
        return path


class Opened:
    """A path opened inside the scope: `fd` (the caller closes it), where it
    really is, and its `os.fstat`."""

    def __init__(self, fd: int, real: str, info):
        self.fd = fd
        self.real = real
        self.info = info


def visible_entries(scope: Scope, dir_fd: int, real: str):
    """(entry, its path, its lstat) for each entry of the directory `dir_fd`
    (whose path is `real`), read through the descriptor, by name; protected
    entries are left out, as if they were not there."""
    with os.scandir(dir_fd) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        child = os.path.join(real, entry.name)
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if scope.refusal(child, child, info) is None:
            yield entry, child, info


def split(path: str) -> list:
    return [part for part in path.split(os.sep) if part not in ("", ".")]


def open_path(scope: Scope, requested: str, flags: int, *, make_parents=False, mode=0o644) -> Opened:
    """Opens `requested` with `flags` (O_NOFOLLOW is added), walking it from
    `/` by file descriptor. Raises Refused or NotFound."""
    path = os.path.expanduser(requested)
    if not os.path.isabs(path):
        path = os.path.join(scope.project, path)
    pending = split(path)
    stack = [os.open(os.sep, DIR_FLAGS)]
    names = []
    links = 0
    # Whether stack[-1] was opened with `flags`: a walk that ends on `..`
    # (or is `/`) holds a descriptor opened only to look names up.
    opened_as_asked = False
    try:
        while pending:
            name = pending.pop(0)
            if name == "..":
                if names:
                    names.pop()
                    os.close(stack.pop())
                opened_as_asked = False
                continue
            last = not pending
            current = os.sep + os.sep.join([*names, name])
            if last:
                refusal = scope.refusal(requested, current)
                if refusal:
                    raise Refused(refusal)
            try:
                fd = os.open(name, (flags if last else DIR_FLAGS) | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=stack[-1])
            except FileNotFoundError:
                if make_parents and not last:
                    refusal = scope.refusal(requested, current)
                    if refusal:
                        raise Refused(refusal)
                    try:
                        os.mkdir(name, 0o755, dir_fd=stack[-1])
                    except FileExistsError:
                        pass
                    pending.insert(0, name)
                    continue
                would_be = os.path.normpath(os.path.join(current, *pending))
                refusal = scope.refusal(requested, would_be)
                raise Refused(refusal) if refusal else NotFound(requested)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                try:
                    target = os.readlink(name, dir_fd=stack[-1])
                except OSError:
                    # Not a symlink after all: a file where a directory was
                    # asked for, or an entry swapped back since; look again.
                    links += 1
                    if exc.errno == errno.ENOTDIR and not last:
                        raise NotFound(requested)
                    if links > MAX_SYMLINKS:
                        raise Refused(f"path not allowed: {requested} keeps changing while it is opened")
                    pending.insert(0, name)
                    continue
                links += 1
                if links > MAX_SYMLINKS:
                    raise Refused(f"path not allowed: {requested}: too many levels of symbolic links")
                if os.path.isabs(target):
                    for held in stack[1:]:
                        os.close(held)
                    del stack[1:]
                    names.clear()
                pending = split(target) + pending
                continue
            stack.append(fd)
            names.append(name)
            opened_as_asked = last
        if not opened_as_asked:
            # A walk that ends on `..` is checked before what it names is opened.
            refusal = scope.refusal(requested, os.sep + os.sep.join(names))
            if refusal:
                raise Refused(refusal)
            stack.append(os.open(".", flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=stack[-1]))
        return finish(scope, requested, stack, names)
    finally:
        for held in stack:
            os.close(held)


def finish(scope: Scope, requested: str, stack: list, names: list) -> Opened:
    """The last descriptor of the walk, checked: where it is now, what it is
    (its inode against the protected ones), and every directory above it."""
    real = os.sep + os.sep.join(names)
    info = os.fstat(stack[-1])
    refusal = scope.refusal(requested, real, info)
    if refusal is None:
        refusal = protected_ancestor(scope, requested, real, stack)
    if refusal is None:
        now = current_path(stack[-1])
        if now is not None and now != real:
            refusal = scope.refusal(requested, now, info) or None
    if refusal:
        raise Refused(refusal)
    fd = os.dup(stack[-1])
    os.set_inheritable(fd, False)
    return Opened(fd, real, info)


def protected_ancestor(scope: Scope, requested: str, real: str, stack: list):
    for held in stack[1:-1]:
        info = os.fstat(held)
        protected = scope.protected_ids.get((info.st_dev, info.st_ino))
        if protected is not None:
            path, reason = protected
            return f"path not allowed: {requested} resolves to {real}, inside {path}, which is protected whatever allowed_dirs says ({reason})"
    return None


def current_path(fd: int):
    """Where the kernel says `fd` is now (Linux), or None."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def is_regular(info) -> bool:
    return stat.S_ISREG(info.st_mode)


def hard_link_refusal(scope: Scope, requested: str, info, writing: bool):
    """A regular file with more than one link may be the same file as one
    outside the allowed directories."""
    if info.st_nlink <= 1 or not is_regular(info):
        return None
    if not writing and scope.read_hard_links:
        return None
    hint = "" if writing else f" (tools.{scope.name}.read_hard_links: true reads them)"
    return f"path not allowed: {requested} has {info.st_nlink} hard links, so it may be a file outside the allowed directories{hint}"
