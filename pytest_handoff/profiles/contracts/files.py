"""A contract's schema files as data: read (JSON or YAML, a ConfigError naming the file), and where
a ``$ref`` to a file leads (a ``file:`` URI, or a name ``schema-map`` gives a local file)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_handoff.values.errors import ConfigError


def read_data_file(path: Path) -> Any:
    """A JSON or YAML file's data (YAML by its ``.yaml``/``.yml`` name); ConfigError naming the file."""
    from pytest_handoff.read.files import read_bounded
    from pytest_handoff.values.settings import DEFAULT_MAX_FILE_SIZE

    try:
        raw = read_bounded(path, DEFAULT_MAX_FILE_SIZE)  # a FIFO or device is refused, never waited on
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        from pytest_handoff.read.yamldoc import read_yaml_data

        data, problem = read_yaml_data(raw)
        if problem:
            raise ConfigError(f"{path}:{problem}")
        return data
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ConfigError(f"{path}: not valid JSON: {error}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nests too deeply to be read") from None


def file_uri(path: Path) -> str:
    return path.resolve().as_uri()


def local_path(uri: str, schema_map: Mapping[str, str]) -> Path | None:
    """The file ``uri`` stands for: mapped by ``schema-map``, or a ``file:`` URI; None for a remote one."""
    from urllib.parse import unquote, urlparse

    mapped = schema_map.get(uri) or schema_map.get(uri.rstrip("#"))
    if mapped is not None:
        return Path(mapped)
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    return None
