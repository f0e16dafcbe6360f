"""What a handoff's prose names as a file of the project, and its prose without those names.

A claimed path is a folder and a file name with a file's ending (``src/a.py``), in backticks or
bare; ``path:line`` and ``path#L12`` are locations. The words that decide whether a sentence
claims work ("created", "next", "commit") are read in its prose only: a code span or a path that
holds such a word (``out/created.py``, ``src/next/a.py``) says nothing of the work.
"""

from __future__ import annotations

import re

# fmt: off
#: File endings a claimed path has (a path ending otherwise is a branch, a host, a version, a name).
EXTENSIONS = frozenset([
    "py", "pyi", "js", "jsx", "ts", "tsx", "mjs", "cjs", "json", "jsonl", "yaml", "yml", "toml", "ini",
    "cfg", "conf", "md", "mdx", "rst", "txt", "csv", "tsv", "xml", "html", "htm", "css", "scss", "sass",
    "less", "vue", "svelte", "astro", "rs", "go", "java", "kt", "kts", "scala", "swift", "m", "mm", "c",
    "cc", "cpp", "cxx", "h", "hh", "hpp", "cs", "fs", "rb", "php", "pl", "lua", "r", "dart", "ex", "exs",
    "erl", "hs", "clj", "sql", "graphql", "gql", "proto", "tf", "hcl", "sh", "bash", "zsh", "ps1", "bat",
    "gradle", "lock", "env", "properties", "plist", "xcconfig", "pbxproj", "ipynb", "dockerfile", "mk",
    "cmake", "glb", "gltf", "usdz", "png", "jpg", "jpeg", "svg", "gif", "webp", "ico", "pdf", "wasm",
    "zig", "nim", "jl",
])
# fmt: on
TICKED = re.compile(r"`([^`\n]+)`")
BARE_PATH = re.compile(
    r"(?<![\w/.`@:-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z][A-Za-z0-9]{0,9})(?::(\d{1,9})(?:-\d{1,9})?|#L(\d{1,9}))?(?![\w/`])"
)
# A line number of at most nine digits: a longer one is no line of any file.
LOCATION = re.compile(
    r"^(?P<path>[^\s:#]+?)(?::(?P<colon>\d{1,9})(?:-\d{1,9})?|#L(?P<anchor>\d{1,9})(?:-L?\d{1,9})?)$"
)
#: A library's name written like a path in prose (``SceneView/Filament.js``, ``Three.js``).
LIBRARY_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\.js")
# A file name without a folder (``created.py``): blanked from the prose too, never claimed.
_FILE_NAME = re.compile(r"(?<![\w/.-])[\w.-]*\w\.([A-Za-z][A-Za-z0-9]{0,9})(?![\w/.-])")


def blank_code(text: str) -> str:
    """``text`` with its code spans blanked (so that columns stay the same)."""
    return TICKED.sub(lambda ticked: " " * len(ticked.group(0)), text)


def prose(text: str) -> str:
    """``text`` with its code spans, paths and file names blanked: the words that are its prose."""
    bare = blank_code(text)
    bare = BARE_PATH.sub(lambda path: " " * len(path.group(0)), bare)
    return _FILE_NAME.sub(
        lambda name: " " * len(name.group(0)) if name.group(1).lower() in EXTENSIONS else name.group(0), bare
    )


def judgeable(path: str) -> bool:
    """A relative path of a file inside the project, as handoffs name one: a folder and a file name with
    a file's ending (not a branch ``feat/login-v1.2``, a host ``docs.example.io/a.html``, an address,
    a glob, a placeholder, an elision ``src/.../a.py``, a home or absolute path)."""
    if path.startswith(("/", "~", "$", "<", "{")) or any(c in path for c in "*?<>{}|@") or "..." in path:
        return False
    *folders, name = path.split("/")
    if not folders or ".." in folders or any("." in folder.lstrip(".") for folder in folders):
        return False
    stem, dot, ending = name.rpartition(".")
    return bool(dot and stem) and ending.lower() in EXTENSIONS
