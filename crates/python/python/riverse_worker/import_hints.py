"""What to declare for a module a tool file imports but no installed package
provides: the package that most likely does, as a PEP 723 block, or where
to move a module of the project directory."""

from __future__ import annotations

import os
import sys

from .errors import relative

# Import names whose package on PyPI is named otherwise. Only a hint for the
# author: nothing is ever installed that a tool file did not declare.
DISTRIBUTIONS = {
    "attr": "attrs",
    "Bio": "biopython",
    "bs4": "beautifulsoup4",
    "cairo": "pycairo",
    "Crypto": "pycryptodome",
    "cv2": "opencv-python",
    "dateutil": "python-dateutil",
    "discord": "discord.py",
    "dns": "dnspython",
    "docx": "python-docx",
    "dotenv": "python-dotenv",
    "faiss": "faiss-cpu",
    "fitz": "PyMuPDF",
    "gi": "PyGObject",
    "git": "GitPython",
    "googleapiclient": "google-api-python-client",
    "jose": "python-jose",
    "jwt": "PyJWT",
    "magic": "python-magic",
    "MySQLdb": "mysqlclient",
    "nacl": "PyNaCl",
    "OpenSSL": "pyOpenSSL",
    "PIL": "pillow",
    "pkg_resources": "setuptools",
    "pptx": "python-pptx",
    "serial": "pyserial",
    "skimage": "scikit-image",
    "sklearn": "scikit-learn",
    "slugify": "python-slugify",
    "socks": "PySocks",
    "speech_recognition": "SpeechRecognition",
    "telegram": "python-telegram-bot",
    "usb": "pyusb",
    "websocket": "websocket-client",
    "win32api": "pywin32",
    "yaml": "PyYAML",
    "zmq": "pyzmq",
}


# Top-level names that many unrelated packages share: no one package to name.
NAMESPACES = {"google", "azure", "zope", "jaraco", "backports", "ruamel"}


def missing_module_hint(exc: BaseException, tools_dir: str, file: str | None) -> str | None:
    """What to write in `file` for Riverse to install the module `exc` found
    missing: the package that most likely provides it, as a PEP 723 block."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name or not file:
        return None
    top = exc.name.split(".")[0]
    local = os.path.exists(os.path.join(tools_dir, top)) or os.path.exists(os.path.join(tools_dir, top + ".py"))
    if top in ("agent", "") or local or top in NAMESPACES or top in getattr(sys, "stdlib_module_names", ()):
        return None
    moved = project_module_hint(top, tools_dir)
    if moved:
        return moved
    import re  # on a failure only: every worker start would pay for it at the top

    package = DISTRIBUTIONS.get(top, top)
    if top in DISTRIBUTIONS:
        where = f"'{top}' is most likely in the package {package}"
    else:
        where = f"no installed package provides '{top}' (on PyPI its package is most often named so too)"
    source = read_text(os.path.join(tools_dir, file))
    has_block = re.search(r"(?m)^# /// script\s*$", source) is not None
    # The package named as a requirement: quoted, then its end or a specifier.
    named = re.compile(r"""(?mi)["']""" + re.escape(package) + r"""\s*(?:["'\[<>=!~;@]|$)""")
    if has_block and named.search(source):
        return f"{file} declares {package}: Riverse installs it when python.dependencies is auto (riverse sync)"
    requirements = read_text(os.path.join(tools_dir, "requirements.txt"))
    listed = re.compile(r"(?mi)^\s*" + re.escape(package) + r"\s*(?:[\[<>=!~;@#]|$)")
    if listed.search(requirements):
        return f"requirements.txt asks for {package}: Riverse installs it when python.dependencies is auto (riverse sync)"
    if has_block:
        return f'{where}: add "{package}" to the dependencies of the `# /// script` block in {file}, and Riverse installs it'
    return (
        f"{where}: declare it at the top of {file}, and Riverse installs it:\n"
        f'# /// script\n# dependencies = ["{package}"]\n# ///'
    )


def project_module_hint(top: str, tools_dir: str) -> str | None:
    """Where to move a module of the project directory that a tool imports:
    the project directory is not on sys.path (see `boot` in `__init__`)."""
    try:
        project = os.getcwd()
    except OSError:
        return None
    if os.path.isfile(os.path.join(project, top + ".py")):
        kept, moved = f"{top}.py", f"_{top}.py"
    elif os.path.isdir(os.path.join(project, top)):
        kept, moved = f"{top}/", f"_{top}/"
    else:
        return None
    shown = relative(tools_dir, project) or tools_dir
    return (
        f"{kept} is in the project directory, which is not on the tools' import path (tools and the LLM "
        f"can write there): move it to {os.path.join(shown, moved)} and import it as agent.tools._{top}"
    )


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as text:
            return text.read()
    except OSError:
        return ""
