"""A hook worker's answers through a real discovery of real hook files,
served the way the host asks for them (`riverse/call` on `Server`)."""

import json
import os
import tempfile
import textwrap
import unittest

from riverse_worker.server import Server

HOOKS = {
    "policy.py": """
        from agent.hooks import Ask, Deny, Hook, Rewrite, ToolResult

        class Policy(Hook):
            def before_call(self, call):
                if call.tool == "shell":
                    return Deny("no shell")
                if call.tool == "write":
                    return Ask("writes ask")
                if call.tool == "weather":
                    return Rewrite({"city": call.params["city"].title()})
                if call.tool == "broken":
                    raise ValueError("bad hook")
                return None

            def after_call(self, call, result):
                if call.tool == "secret":
                    return ToolResult(True, "hidden")
                return None
    """,
}


class Discarded:
    def write(self, _data):
        pass

    def flush(self):
        pass


class HookWorkerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        hooks = os.path.join(cls.dir.name, "agent", "hooks")
        os.makedirs(hooks)
        for name, source in HOOKS.items():
            with open(os.path.join(hooks, name), "w", encoding="utf-8") as file:
                file.write(textwrap.dedent(source))
        cls.server = Server(iter([]), Discarded(), hooks, {})
        cls.server.label = lambda _name: None  # no host reads stderr's markers here
        options = {"toolsDir": hooks, "config": {}, "hooks": True}
        cls.server.initialize({"capabilities": {"experimental": {"riverse": options}}})

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def decision(self, phase, tool, params=None, result=None):
        arguments = {"phase": phase, "call": {"tool": tool, "source": "python", "params": params or {}}}
        if result is not None:
            arguments["result"] = result
        outcome = self.server.call({"name": "policy.py:Policy", "arguments": arguments})
        self.assertTrue(outcome["success"], outcome)
        return json.loads(outcome["data"])

    def test_before_call_answers_each_decision(self):
        self.assertEqual(self.decision("before", "echo"), {"decision": "go"})
        self.assertEqual(self.decision("before", "shell"), {"decision": "deny", "reason": "no shell"})
        self.assertEqual(self.decision("before", "write"), {"decision": "ask", "reason": "writes ask"})
        self.assertEqual(
            self.decision("before", "weather", {"city": "oslo"}),
            {"decision": "rewrite", "params": {"city": "Oslo"}},
        )

    def test_a_hook_that_raises_answers_with_its_error_and_line(self):
        answer = self.decision("before", "broken")
        self.assertEqual(answer["decision"], "error")
        self.assertIn("Policy.before_call() raised ValueError: bad hook (policy.py:", answer["reason"])

    def test_after_call_keeps_or_replaces_the_result(self):
        shown = {"success": True, "data": "42", "error": ""}
        self.assertEqual(self.decision("after", "echo", result=shown), {"decision": "keep"})
        replaced = self.decision("after", "secret", result=shown)
        self.assertEqual(replaced["result"], {"success": True, "data": "hidden", "error": ""})

    def test_an_unknown_hook_is_a_failed_call(self):
        outcome = self.server.call({"name": "nowhere.py:Nothing", "arguments": {"phase": "before"}})
        self.assertFalse(outcome["success"])
        self.assertIn('unknown hook "nowhere.py:Nothing"', outcome["error"])


if __name__ == "__main__":
    unittest.main()
