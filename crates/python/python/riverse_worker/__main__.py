"""The worker as a standalone MCP server of a tools directory:

    python path/to/riverse_worker TOOLS_DIR [CONFIG_JSON_FILE]
    python -m riverse_worker TOOLS_DIR [CONFIG_JSON_FILE]
"""

import os
import sys

if __package__ in (None, ""):
    # Run as a directory: its own folder is first on sys.path, and the
    # package is imported from the folder that holds it, which then leaves
    # the path again (the package finds its modules by its own `__path__`).
    package_dir = sys.path.pop(0)
    sys.path.insert(0, os.path.dirname(os.path.abspath(package_dir)))
    import riverse_worker

    del sys.path[0]
else:
    import riverse_worker

riverse_worker.main(sys.argv[1:])
