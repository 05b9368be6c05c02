"""`self.secret`: the secrets of the call running now, and nothing else."""

import unittest

from riverse_worker import secrets
from riverse_worker.contract import BaseTool, ToolManifest, ToolResult


class Keyed(BaseTool):
    def manifest(self):
        return ToolManifest("keyed", "-", {})

    def execute(self, params):
        return ToolResult(True, self.secret("KEY"))


class SecretsTest(unittest.TestCase):
    def tearDown(self):
        secrets.end()

    def test_a_call_sees_its_secrets_and_they_are_gone_after(self):
        secrets.begin("keyed", {"KEY": "value-of-the-key"})
        self.assertEqual(Keyed({}).execute({}).data, "value-of-the-key")
        secrets.end()
        with self.assertRaises(LookupError) as raised:
            Keyed({}).execute({})
        self.assertIn('secret "KEY" is not given', str(raised.exception))

    def test_a_secret_not_given_names_the_settings_key(self):
        secrets.begin("keyed", {"OTHER": "value-of-the-key"})
        with self.assertRaises(LookupError) as raised:
            Keyed({}).execute({})
        self.assertEqual(
            str(raised.exception),
            'secret "KEY" is not given to keyed: name it in settings.yaml under '
            "tools.keyed.secrets (and define it under secrets:)",
        )

    def test_an_unreadable_secret_says_why(self):
        secrets.begin("keyed", {"KEY": {"error": "environment variable K is not set"}})
        with self.assertRaises(LookupError) as raised:
            Keyed({}).execute({})
        self.assertEqual(
            str(raised.exception), 'secret "KEY" could not be read: environment variable K is not set'
        )


if __name__ == "__main__":
    unittest.main()
