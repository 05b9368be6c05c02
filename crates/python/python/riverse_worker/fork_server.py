"""The fork server: a worker that imports the tool files once, instantiates
nothing, and forks a worker at each `riverse/fork`, serving on the stdin,
stdout and stderr the host passes on its socket."""

from __future__ import annotations

import os
import signal
import socket
import sys

from . import process
from .discovery import preload
from .process import PROCESS_LABEL, high_dup, name_process, take_protocol_streams
from .server import Server
from .wire import FORK_REFUSED, WORKER_EXITED, RpcError


class ForkServer:
    def __init__(self, server: Server, options: dict):
        self.server = server
        # The socket the host passes a worker's descriptors through.
        self.socket = socket.socket(fileno=high_dup(options["forkSocket"]))
        os.close(options["forkSocket"])
        # Its children are workers, each a subreaper that cleans up after
        # its tools; what a killed worker leaves goes to the host, which
        # sweeps it, rather than here, where nothing would.
        process.become_subreaper(False)
        name_process("riverse-forksrv")
        # The workers it forks are the fork server's children, not the host's:
        # they watch the host themselves (see `process.watch_the_host`).
        self.host_pid = os.getppid()
        # The file that started a thread at import, if one did: no fork then.
        self.threaded = preload(
            options.get("toolsDir") or server.default_tools_dir,
            options.get("skip") or [],
            server.announce,
            server.sandbox,
        )
        server.label("python")
        # What every forked worker imports to watch the host: imported once
        # here, the workers share it.
        import select  # noqa: F401
        import threading  # noqa: F401

        # What the imports made is moved out of the collector's sight: a
        # collection in a worker would otherwise write to every object's
        # header and copy every page it shares with this process.
        import gc

        gc.collect()
        gc.freeze()
        signal.signal(signal.SIGCHLD, self.reap)

    def fork_worker(self) -> dict:
        """Receives a worker's stdin, stdout and stderr from the host and forks
        a child that serves on them as a fresh worker would; its pid."""
        if self.threaded is not None:
            raise RpcError(FORK_REFUSED, f"{self.threaded} started a thread at import")
        _data, fds, _flags, _address = socket.recv_fds(self.socket, 1, 3)
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            raise RpcError(-32602, f"riverse/fork needs 3 descriptors, got {len(fds)}")
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # or the child would print it again
        pid = os.fork()
        if pid == 0:
            try:
                self.serve_as_forked_worker(fds)
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        try:
            os.setpgid(pid, pid)  # as the child does: whichever runs first
        except OSError:
            pass  # the child got there first, or has already ended
        return {"pid": pid}

    def serve_as_forked_worker(self, fds: list[int]) -> None:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.setpgid(0, 0)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        self.socket.close()
        name_process(PROCESS_LABEL)
        server = self.server
        for stream in (server.proto_in, server.proto_out):
            try:
                os.close(stream.fileno())
            except OSError:
                pass
        end = process.end_with_the_host()
        if end is not None:
            process.become_subreaper()
            if server.sandbox is not None:
                process.enter_own_signal_domain(server.sandbox.landlock_abi)
            process.watch_the_host(self.host_pid, end)
        proto_in, proto_out = take_protocol_streams()
        forked = Server(proto_in, proto_out, server.default_tools_dir, server.default_config, end, server.sandbox)
        forked.serve()
        if end is not None:
            end()

    def reap(self, *_args) -> None:
        """SIGCHLD: reaps forked workers and tells the host how each ended
        (it is not their parent and cannot wait for them)."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if os.WIFSIGNALED(status):
                exited = {"pid": pid, "signal": os.WTERMSIG(status)}
            else:
                exited = {"pid": pid, "status": os.waitstatus_to_exitcode(status)}
            self.server.notify_from_handler(WORKER_EXITED, exited)
