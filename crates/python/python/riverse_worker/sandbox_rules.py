"""The rules of the sandbox a worker runs in, as the host sends them in
`initialize` (riverse-protocol's `SandboxPolicy`). The kernel enforces them;
these only say which rule a refused call broke, and the settings line that
would allow it."""

from __future__ import annotations

import _thread
import errno
import json
import os
import sys


class SandboxRules:
    """The sandbox this worker runs in. An audit hook remembers, per thread,
    the last file opened and the last address connected to, which a
    PermissionError does not carry (whether the open was a write, the port);
    and, for the whole call, each open or connection its rules foresee the
    kernel refusing, which a tool that catches the PermissionError and
    returns its text no longer shows (issue 49)."""

    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    # Words of a refusal in a tool's own error text.
    REFUSED = ("Permission denied", "Operation not permitted", "Resource temporarily unavailable")
    # Refusals kept per call: a tool that retries in a loop names each once.
    MOST_REFUSALS = 8

    def __init__(self, policy: dict):
        self.label = policy["label"]
        self.project = policy["project"]
        self.read = list(policy["read"])
        self.write = list(policy["write"])
        self.always_read = list(policy["alwaysRead"])
        self.always_write = list(policy["alwaysWrite"])
        network = policy["network"]
        # True for any port, else the TCP ports it may connect to (none when empty).
        self.network = True if network == "any" else list(network["ports"])
        self.memory_mb = policy.get("memoryMb")
        self.processes = policy.get("processes")
        self.file_size_mb = policy.get("fileSizeMb")
        # The Landlock ABI the sandbox is made with (see `process.enter_own_signal_domain`).
        self.landlock_abi = policy["landlockAbi"]
        self.seen = _thread._local()
        # What the kernel is foreseen to refuse since the call began: (the
        # rule broken, the key that allows it, what the key needs).
        self.refusals: list[tuple] = []

    def audit(self, event: str, args) -> None:
        if event == "open":
            self.seen.opened = args
            foreseen = self.foresee_open
        elif event in ("socket.connect", "socket.bind"):
            self.seen.socket = (event, args[1] if len(args) > 1 else None)
            foreseen = self.foresee_socket
        else:
            return
        if len(self.refusals) >= self.MOST_REFUSALS:
            return
        try:
            refusal = foreseen(event, args)
        except Exception:  # noqa: BLE001 - an audit hook's exception would fail the open
            return
        if refusal is not None and refusal not in self.refusals:
            self.refusals.append(refusal)

    def begin_call(self) -> None:
        # A call that opened nothing refused left nothing to forget.
        if self.refusals:
            self.refusals = []

    def foresee_open(self, event: str, args) -> tuple | None:
        """The rule an open breaks, judged before the kernel does."""
        path, mode, flags = args
        if path is None or isinstance(path, int):
            return None
        shown = os.fsdecode(path)
        if "__pycache__" in shown:
            return None  # the interpreter's bytecode cache, whose refusal it ignores
        writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & self.WRITE_FLAGS)
        roots = self.write + self.always_write
        if not writing:
            roots = roots + self.read + self.always_read
        absolute = os.path.abspath(shown)
        if self.beneath(absolute, roots):
            return None
        real = os.path.realpath(absolute)
        if self.beneath(real, roots):
            return None
        return self.path_refusal(real, shown, writing)

    def foresee_socket(self, event: str, args) -> tuple | None:
        """The rule a TCP connect or bind breaks (Landlock leaves UDP and
        Unix sockets alone)."""
        sock = args[0]
        socket = sys.modules.get("socket")
        if socket is None or sock.type != socket.SOCK_STREAM:
            return None
        if sock.family not in (socket.AF_INET, getattr(socket, "AF_INET6", None)):
            return None
        return self.socket_refusal(event, args[1])

    @staticmethod
    def beneath(path: str, roots) -> bool:
        return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)

    def wrote(self, filename) -> bool | None:
        """Whether the last open of `filename` was for writing; None when
        it was not seen."""
        opened = getattr(self.seen, "opened", None)
        if not opened or os.fspath(opened[0]) != os.fspath(filename):
            return None
        mode, flags = opened[1], opened[2]
        if isinstance(mode, str):
            return any(c in mode for c in "wax+")
        return bool(flags & self.WRITE_FLAGS)

    def explain(self, text: str, tool: str | None, breach: tuple | None = None, guess: bool = True) -> str:
        """`text`, a call's error, with the rule it broke and the settings
        line that allows it: `breach` when the exception said so, else what
        the call was foreseen to be refused when the text reads like a
        refusal. `guess` adds a line saying the sandbox may be why when
        nothing was foreseen (a program the tool ran says so in its own
        words)."""
        if breach is not None:
            refusals = [breach]
            text = f"{breach[0]} ({text})"
        elif not any(words in text for words in self.REFUSED):
            # A tool that caught a refused connection and failed in its own
            # words ("can't reach the service") failed for it all the same.
            # A refused open is often a library's probe (~/.netrc), so it is
            # named only when the text reads like a refusal.
            refusals = [refusal for refusal in self.refusals if refusal[1] == "network"]
            if not (guess and refusals):
                return text
            text = "\n".join([text] + [refusal[0] for refusal in refusals])
        elif self.refusals:
            refusals = self.refusals
            text = "\n".join([text] + [refusal[0] for refusal in refusals])
        elif guess:
            return f"{text}\n{self.guess(tool)}"
        else:
            return text
        line = self.allowing(tool, refusals)
        return f"{text}\n{line}" if line else text

    def explain_result(self, success: bool, data: str, error: str, tool: str) -> tuple[str, str]:
        """A returned result's data and error, explained: the error of a
        failure, or the data of a success that reports a refusal the call
        was foreseen to meet."""
        if success and not self.refusals:
            return data, error  # nothing foreseen: a success stays as it is
        if success:
            return self.explain(data, tool, guess=False), error
        return data, self.explain(error, tool)

    def guess(self, tool: str | None) -> str:
        label = self.label
        own = f"tools.{tool}.sandbox"
        widen = f"; {own} widens them for this tool alone" if tool and own != label else ""
        return f"(the tool runs in {label}, which may have refused it: {label}.read, .write and .network say what it may reach{widen})"

    def allowing(self, tool: str | None, refusals) -> str | None:
        """The settings line that allows what `refusals` were refused, for
        `tool`: a key of its own sandbox, or a sandbox of its own that
        takes the rest from the shared one; None when no key would."""
        needed: dict[str, list] = {}
        for _, key, value in refusals:
            if key is not None and value not in needed.setdefault(key, []):
                needed[key].append(value)
        values = {key: self.widened(key, wanted) for key, wanted in needed.items() if wanted}
        if not values:
            return None
        own = f"tools.{tool}.sandbox"
        if tool is None or own == self.label:
            settings = " and ".join(f"{self.label}.{key}: {value}" for key, value in values.items())
            return f"to allow it, set {settings}"
        keys = ", ".join(f"{key}: {value}" for key, value in values.items())
        return f"to allow it, set {own}: {{{keys}}} (a sandbox of the tool's own; its other keys come from {self.label})"

    def widened(self, key: str, wanted: list) -> str:
        """The value of `key` that allows `wanted` beside what it allows now,
        as settings.yaml spells it."""
        if key == "network":
            if True in wanted:
                return "true"
            ports = list(self.network)
            return "[" + ", ".join(str(port) for port in ports + [p for p in wanted if p not in ports]) + "]"
        if key in ("read", "write"):
            paths = [self.shown(path) for path in getattr(self, key)]
            paths += [path for path in map(self.shown, wanted) if path not in paths]
            return "[" + ", ".join(json.dumps(path) for path in paths) + "]"
        return str(max(wanted))

    def shown(self, path: str) -> str:
        """A path as settings.yaml would give it: relative to the project
        when beneath it."""
        if path == self.project:
            return "."
        if self.beneath(path, [self.project]):
            return os.path.relpath(path, self.project)
        return path

    def path_refusal(self, path: str, shown: str, writing: bool) -> tuple:
        named = path if path == shown else f"{path} ({shown})"
        if writing:
            # A file that does not exist yet is made in its directory.
            needed = path if os.path.lexists(path) else os.path.dirname(path)
            return (f"sandbox: writing {named} is outside {self.label}.write", "write", needed)
        return (f"sandbox: reading {named} is outside {self.label}.read", "read", path)

    def socket_refusal(self, event: str, address) -> tuple | None:
        if self.network is True or not isinstance(address, tuple) or len(address) < 2:
            return None
        label = self.label
        if event == "socket.bind":
            message = f"sandbox: listening on port {address[1]} is outside {label}.network (no listening socket is allowed)"
            return (message, "network", True)
        allowed = "ports " + ", ".join(map(str, self.network)) if self.network else "no port"
        if address[1] in self.network:
            return None
        return (f"sandbox: connecting to port {address[1]} is outside {label}.network ({allowed})", "network", address[1])

    def socket_breach(self) -> tuple | None:
        """The network rule a refused socket operation broke: the last
        connect or bind this thread made (a listen follows its bind)."""
        event, address = getattr(self.seen, "socket", (None, None))
        return self.socket_refusal(event, address)

    def breach(self, exc: BaseException) -> tuple | None:
        """The rule `exc` says was broken (the message the call's error
        begins with, the key that allows it, what the key needs); None for
        an error of the tool's own."""
        label = self.label
        if isinstance(exc, MemoryError) and self.memory_mb:
            return (f"sandbox: memory past {label}.memory_mb ({self.memory_mb} MB)", "memory_mb", 2 * self.memory_mb)
        if not isinstance(exc, OSError):
            return None
        if exc.errno == errno.EAGAIN and self.processes and isinstance(exc, BlockingIOError):
            return (f"sandbox: a new process past {label}.processes ({self.processes})", "processes", 2 * self.processes)
        if exc.errno == errno.EFBIG and self.file_size_mb:
            message = f"sandbox: a file written past {label}.file_size_mb ({self.file_size_mb} MB)"
            return (message, "file_size_mb", 2 * self.file_size_mb)
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EXDEV):
            return None
        if exc.filename is None:
            return self.socket_breach()
        shown = os.fspath(exc.filename)
        path = os.path.realpath(shown)
        named = path if path == shown else f"{path} ({shown})"
        if self.beneath(path, self.write):
            return None
        if exc.errno == errno.EXDEV or exc.filename2 is not None:
            return (f"sandbox: linking or moving {named} is outside {label}.write", "write", os.path.dirname(path))
        readable = self.beneath(path, self.read) or self.beneath(path, self.always_read)
        wrote = self.wrote(exc.filename)
        if wrote or (readable and wrote is None):
            return self.path_refusal(path, shown, True)
        if readable:
            # Refused though readable where the name leads from here: it was
            # opened relative to another directory (`dir_fd`), which is not.
            return (f"sandbox: reading {shown!r} in a directory outside {label}.read", None, None)
        return self.path_refusal(path, shown, False)


def start_rules(policy: dict) -> SandboxRules:
    """`policy` as this worker's rules, their audit hook started: once in a
    worker's life (an audit hook can't be removed), before any tool file is
    imported."""
    rules = SandboxRules(policy)
    sys.addaudithook(rules.audit)
    return rules
