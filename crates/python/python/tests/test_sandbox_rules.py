"""The sandbox's rules, as the host sends them: which rule a refused call
broke, and the settings line that would allow it."""

import errno
import os
import tempfile
import unittest

from riverse_worker.sandbox_rules import SandboxRules


def rules(**changed) -> SandboxRules:
    policy = {
        "label": "python.sandbox",
        "project": "/p",
        "read": ["/p"],
        "write": ["/p/notes"],
        "alwaysRead": ["/usr"],
        "alwaysWrite": ["/dev/null"],
        "network": {"ports": [443]},
        "landlockAbi": 6,
    }
    policy.update(changed)
    return SandboxRules(policy)


class ForeseenTest(unittest.TestCase):
    def test_opens_are_judged_by_the_read_and_write_lists(self):
        sandbox = rules()
        self.assertIsNone(sandbox.foresee_open("open", ("/p/notes/a.txt", "w", 0)))
        self.assertIsNone(sandbox.foresee_open("open", ("/usr/lib/x", "r", 0)))
        self.assertEqual(
            sandbox.foresee_open("open", ("/p/a.txt", "w", 0)),
            ("sandbox: writing /p/a.txt is outside python.sandbox.write", "write", "/p"),
        )
        self.assertEqual(
            sandbox.foresee_open("open", ("/etc/shadow", None, os.O_RDONLY)),
            ("sandbox: reading /etc/shadow is outside python.sandbox.read", "read", "/etc/shadow"),
        )

    def test_a_port_outside_the_list_is_named_with_the_ports_allowed(self):
        sandbox = rules()
        self.assertIsNone(sandbox.socket_refusal("socket.connect", ("1.2.3.4", 443)))
        self.assertEqual(
            sandbox.socket_refusal("socket.connect", ("1.2.3.4", 80)),
            ("sandbox: connecting to port 80 is outside python.sandbox.network (ports 443)", "network", 80),
        )
        self.assertEqual(
            rules(network={"ports": []}).socket_refusal("socket.connect", ("1.2.3.4", 80))[0],
            "sandbox: connecting to port 80 is outside python.sandbox.network (no port)",
        )
        self.assertIsNone(rules(network="any").socket_refusal("socket.connect", ("1.2.3.4", 80)))


class AllowingTest(unittest.TestCase):
    def test_the_shared_sandbox_is_widened_in_its_own_keys(self):
        sandbox = rules()
        line = sandbox.allowing(None, [("x", "network", 80), ("y", "write", "/p/out")])
        self.assertEqual(line, 'to allow it, set python.sandbox.network: [443, 80] and python.sandbox.write: ["notes", "out"]')

    def test_a_tool_is_offered_a_sandbox_of_its_own(self):
        line = rules(network={"ports": []}).allowing("fetch", [("x", "network", 443)])
        self.assertEqual(
            line,
            "to allow it, set tools.fetch.sandbox: {network: [443]} "
            "(a sandbox of the tool's own; its other keys come from python.sandbox)",
        )


class BreachTest(unittest.TestCase):
    def test_a_refused_write_is_named_by_the_path_it_reached(self):
        with tempfile.TemporaryDirectory() as dir:
            target = os.path.join(os.path.realpath(dir), "out.txt")
            sandbox = rules(project=os.path.realpath(dir), read=[], write=[])
            sandbox.seen.opened = (target, "w", 0)
            refused = PermissionError(errno.EACCES, "Permission denied", target)
            self.assertEqual(
                sandbox.breach(refused),
                (f"sandbox: writing {target} is outside python.sandbox.write", "write", os.path.realpath(dir)),
            )

    def test_memory_past_the_limit_asks_for_twice_as_much(self):
        sandbox = rules(memoryMb=64)
        self.assertEqual(
            sandbox.breach(MemoryError()),
            ("sandbox: memory past python.sandbox.memory_mb (64 MB)", "memory_mb", 128),
        )

    def test_a_tool_s_own_error_is_no_breach(self):
        self.assertIsNone(rules().breach(ValueError("bad input")))


if __name__ == "__main__":
    unittest.main()
