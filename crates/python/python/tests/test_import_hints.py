"""What to declare for a module that is missing."""

import os
import tempfile
import unittest

from riverse_worker.import_hints import missing_module_hint


def missing(name: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named '{name}'", name=name)


class MissingModuleHintTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tools = os.path.join(self.dir.name, "tools")
        os.mkdir(self.tools)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name: str, text: str) -> None:
        with open(os.path.join(self.tools, name), "w", encoding="utf-8") as file:
            file.write(text)

    def test_a_package_named_otherwise_is_named_in_the_block_to_paste(self):
        self.write("scrape.py", "import bs4\n")
        self.assertEqual(
            missing_module_hint(missing("bs4"), self.tools, "scrape.py"),
            "'bs4' is most likely in the package beautifulsoup4: declare it at the top of scrape.py, "
            'and Riverse installs it:\n# /// script\n# dependencies = ["beautifulsoup4"]\n# ///',
        )

    def test_a_declared_package_points_at_sync(self):
        self.write("scrape.py", '# /// script\n# dependencies = ["beautifulsoup4>=4"]\n# ///\nimport bs4\n')
        self.assertEqual(
            missing_module_hint(missing("bs4"), self.tools, "scrape.py"),
            "scrape.py declares beautifulsoup4: Riverse installs it when python.dependencies is auto (riverse sync)",
        )

    def test_standard_local_and_shared_names_get_no_hint(self):
        self.write("_helper.py", "")
        for name in ("json", "_helper", "google", "agent"):
            self.assertIsNone(missing_module_hint(missing(name), self.tools, "scrape.py"), name)
        self.assertIsNone(missing_module_hint(ImportError("x"), self.tools, "scrape.py"))


if __name__ == "__main__":
    unittest.main()
