"""Reading a file's bytes safely: regular files only, a size limit, no link out of the project.

Every file the tool reads comes through here. A handoff's file: every way it cannot be had is a
finding (HF006, HF007), never an exception; display paths are the project-relative POSIX paths
every output shows. Any other file (a transcript, a configuration, a schema, a report, the first
bytes a format sniffs): :func:`read_bounded` and :func:`read_head`, opened without blocking (a
FIFO would wait for a writer for ever), regular files only, never more than a budget.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path

from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.settings import DEFAULT_MAX_FILE_SIZE

#: The default of ``overrides``: no file read from anywhere but disk.
NO_OVERRIDES: Mapping[Path, bytes] = {}


class Unreadable(OSError):
    """A file that is there but is not read: not a regular file, over its budget, or a link out of
    its project. ``str()`` says which, in one line."""

    def __str__(self) -> str:
        return self.strerror or "cannot be read"


def _open_flags() -> int:
    # O_NONBLOCK: opening a FIFO (or one swapped in after a check) must not wait for a writer.
    return os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def open_regular(path: Path | str) -> int:
    """A descriptor of the regular file at ``path``, opened without blocking; the caller closes it.

    ``FileNotFoundError`` when there is none, :class:`Unreadable` for a FIFO, device or folder.
    """
    descriptor = os.open(path, _open_flags())
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise Unreadable(errno.EINVAL, "not a regular file")
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_bounded(path: Path, limit: int, *, root: Path | None = None) -> bytes:
    """The bytes of the regular file at ``path``, when it holds at most ``limit`` of them.

    With ``root``, only a file whose path stays inside ``root``, no symbolic link on its way
    leading out. ``FileNotFoundError`` when there is no file; :class:`Unreadable` (an ``OSError``)
    for every other reason not to read it.
    """
    display = os.fspath(path)
    got = read_file_bytes(path, display, limit) if root is None else read_member(path, display, limit, root)
    if isinstance(got, bytes):
        return got
    if not os.path.lexists(path):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", display)
    raise Unreadable(
        errno.EINVAL, got.message.removeprefix("cannot read file: ").replace(" (max-file-size)", "")
    )


def read_head(path: Path, count: int) -> bytes | None:
    """The first ``count`` bytes of the regular file at ``path``; None when it cannot be read."""
    try:
        descriptor = open_regular(path)
    except OSError:
        return None
    try:
        return os.read(descriptor, count)
    except OSError:
        return None
    finally:
        os.close(descriptor)


def read_file_bytes(path: Path, display_path: str, max_size: int | None = None) -> bytes | Finding:
    """A file's bytes, or the finding (HF006/HF007) that says why they cannot be had.

    ``max_size`` defaults to :data:`DEFAULT_MAX_FILE_SIZE` as it is when called. Only regular
    files are read (a FIFO or device would block or never end), and never more than
    ``max_size + 1`` bytes, even from a file that grows while it is read.
    """
    limit = DEFAULT_MAX_FILE_SIZE if max_size is None else max_size
    finding = file_finding(display_path)
    try:
        descriptor = os.open(path, _open_flags())
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                return finding("HF007", "cannot read file: not a regular file")
            if info.st_size > limit:
                return too_large(display_path, info.st_size, limit)
            # One byte past the size fstat() gave tells whether the file grew meanwhile.
            raw = _read_up_to(descriptor, info.st_size + 1)
            if len(raw) > info.st_size:
                raw += _read_up_to(descriptor, limit + 1 - len(raw))
        finally:
            os.close(descriptor)
    except OSError as error:
        return finding("HF007", f"cannot read file: {error.strerror or type(error).__name__}")
    if len(raw) > limit:
        return finding("HF006", f"file grew over the {limit:,}-byte limit while read")
    return raw


def _read_up_to(descriptor: int, count: int) -> bytes:
    """Up to ``count`` bytes, fewer only at the end of the file (os.read may return a part)."""
    first = os.read(descriptor, count)
    if len(first) == count or not first:
        return first
    chunks = [first]
    received = len(first)
    while received < count:
        chunk = os.read(descriptor, count - received)
        if not chunk:
            break
        chunks.append(chunk)
        received += len(chunk)
    return b"".join(chunks)


def too_large(display_path: str, size: int, limit: int) -> Finding:
    """HF006 for content of ``size`` bytes (on disk or given in memory) over ``limit``."""
    return file_finding(display_path)(
        "HF006", f"file is {size:,} bytes, over the {limit:,}-byte limit (max-file-size)"
    )


def file_finding(display_path: str) -> Callable[..., Finding]:
    def make(code: str, message: str, line: int = 0, column: int = 0) -> Finding:
        return Finding(
            path=display_path,
            line=line,
            column=column,
            end_line=line,
            end_column=column,
            code=code,
            severity=Severity.ERROR,
            message=message,
        )

    return make


def display_path_for(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` with POSIX slashes, or as given when outside it."""
    text, base = str(path), str(root)
    # The common case, a path below the root, without os.path.relpath's normalisation.
    if text.startswith(base) and text[len(base) : len(base) + 1] == os.sep and ".." not in text:
        relative = text[len(base) + 1 :]
        return relative.replace(os.sep, "/") if os.sep != "/" else relative
    try:
        relative = os.path.relpath(path, root)
    except ValueError:  # another drive on Windows
        return path.as_posix()
    if relative.startswith(".."):
        return path.as_posix()
    return Path(relative).as_posix()


def nameable(path: str) -> bool:
    """True when ``path`` can be given to the file system (no lone surrogate, no NUL)."""
    try:
        os.fsencode(path)
    except UnicodeError:
        return False
    return "\x00" not in path


def read_member(
    path: Path,
    display_path: str,
    max_size: int,
    root: Path,
    overrides: Mapping[Path, bytes] = NO_OVERRIDES,
    links: dict[str, bool] | None = None,
) -> bytes | Finding:
    """A group's file's bytes, or the finding that says why they cannot be had.

    ``overrides`` holds contents to check instead of what is on disk (content on stdin, a
    write an agent is about to make). A symbolic link that leads out of ``root`` is not
    followed: a handoff must not be a way to read (and print) files from elsewhere on the machine.
    """
    given = overrides.get(path)
    if given is not None:
        return given if len(given) <= max_size else too_large(display_path, len(given), max_size)
    return link_out_of(root, path, display_path, links) or read_file_bytes(path, display_path, max_size)


def _link_on_the_way(folder: str, top: str, known: dict[str, bool]) -> bool:
    """True when ``folder`` or a folder between it and ``top`` is a symbolic link (remembered in ``known``)."""
    pending: list[str] = []
    linked = False
    while len(folder) > len(top):
        cached = known.get(folder)
        if cached is not None:
            linked = cached
            break
        pending.append(folder)
        folder = os.path.dirname(folder)
    # From the top down: a folder is linked when it, or one above it, is a link.
    for place in reversed(pending):
        linked = linked or os.path.islink(place)
        known[place] = linked
    return linked


def leads_out_of(root: str, relative: str, links: dict[str, bool]) -> bool:
    """True when ``relative`` (a path a handoff names, relative to the absolute ``root``) leads out
    of ``root``: an absolute path, ``..`` past it, or a symbolic link on the way whose target is
    outside. ``links`` remembers which folders are links (a path is resolved only when one is)."""
    if os.path.isabs(relative):
        return True
    absolute = os.path.normpath(os.path.join(root, relative))
    if not absolute.startswith(root.rstrip(os.sep) + os.sep):
        return absolute != root
    return _linked_out(absolute, root, links)


def _linked_out(absolute: str, top: str, links: dict[str, bool]) -> bool:
    """True when a symbolic link, the file's own or a folder's on the way, takes ``absolute`` (a
    normal path below ``top``) out of ``top``; resolved only when a link is there."""
    folder = os.path.dirname(absolute)
    linked = links.get(folder)
    if linked is None:
        linked = _link_on_the_way(folder, top, links)
    if not (linked or os.path.islink(absolute)):
        return False
    return not Path(os.path.realpath(absolute)).is_relative_to(os.path.realpath(top))


def link_out_of(
    root: Path, path: Path, display_path: str, links: dict[str, bool] | None = None
) -> Finding | None:
    """HF007 for a file of the project that a symbolic link takes out of ``root`` (a file or a store
    alike): the file's own link, or a link anywhere on the way to it (a linked folder).

    ``links`` remembers which folders are links, for a run's files, which mostly share folders:
    a path is resolved only when a link is on its way.
    """
    known = {} if links is None else links
    # Discovery's paths are absolute and normal already; others are made so.
    absolute = os.fspath(path) if path.is_absolute() else os.path.abspath(path)
    top = os.fspath(root) if root.is_absolute() else os.path.abspath(root)
    if not absolute.startswith(top.rstrip(os.sep) + os.sep):
        return None  # named from elsewhere: not reached through the project
    if not _linked_out(absolute, top, known):
        return None
    return Finding(
        path=display_path,
        line=0,
        column=0,
        code="HF007",
        severity=Severity.ERROR,
        message="symbolic link to a file outside the repository: not followed",
    )


def replace_file(path: Path, text: str) -> None:
    """Replace the file at ``path`` with ``text`` at once (a reader never sees half of it), keeping
    its permissions. The text goes to a temporary file of a fresh name beside it (never through a
    link planted where a fixed name would be), renamed over ``path`` (a link there is replaced,
    not followed)."""
    import tempfile

    mode = path.stat().st_mode & 0o777 if path.is_file() and not path.is_symlink() else 0o644
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
