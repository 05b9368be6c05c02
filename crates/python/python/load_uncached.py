# Runs a worker where the host could not write the worker package into its
# cache: `python -c THIS riverse-worker [POOL] PROJECT NAME SOURCE ... COUNT`,
# the package's modules given by name and source at the end of the command
# line, and taken off it here. The project directory ("" first on sys.path)
# leaves the path, as `boot` in the package's `__init__` says why.
import sys


class RiverseWorkerSources:
    """Finds the worker package's modules among the sources given."""

    def __init__(self, sources):
        self.sources = sources

    def find_spec(self, name, path=None, target=None):
        if name not in self.sources:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, self, origin=name, is_package=name == "riverse_worker")

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__spec__.name
        shown = name.replace(".", "/") + ("/__init__.py" if name == "riverse_worker" else ".py")
        exec(compile(self.sources[name], shown, "exec"), module.__dict__)


def take_sources():
    count = int(sys.argv.pop())
    given = sys.argv[len(sys.argv) - 2 * count :]
    del sys.argv[len(sys.argv) - 2 * count :]
    return dict(zip(given[::2], given[1::2]))


if sys.path[:1] == [""]:
    del sys.path[0]
sys.meta_path.insert(0, RiverseWorkerSources(take_sources()))
import riverse_worker  # noqa: E402

riverse_worker.serve_as_spawned()
