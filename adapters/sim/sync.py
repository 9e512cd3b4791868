"""The adb ``sync:`` service over a small in-memory device filesystem.

Speaks the file-transfer half of adb: ``STAT``/``STA2``/``LST2``, ``LIST``, ``RECV``,
``SEND`` (``DATA`` chunks closed by ``DONE``, answered ``OKAY`` or ``FAIL``) and ``QUIT``.
Files live in :class:`DeviceFilesystem`, which the device shell shares (``uiautomator dump``
writes there, ``cat`` and ``rm`` read and delete there), so a pushed file can be read back.
"""

from __future__ import annotations

import posixpath
import stat
import struct
import time
from collections.abc import Callable, Iterator
from typing import Protocol

import attrs

#: Largest ``DATA`` chunk of the sync protocol, in either direction.
SYNC_DATA_MAX = 64 * 1024
_ENOENT = 2

_DIRECTORIES = ("/", "/sdcard", "/storage", "/storage/emulated", "/storage/emulated/0", "/data",
                "/data/local", "/data/local/tmp", "/system", "/system/bin", "/dev")


@attrs.frozen
class DeviceFile:
    """One regular file: its bytes, permission bits and modification time (epoch seconds)."""

    data: bytes
    mode: int = 0o644
    mtime: int = 0


@attrs.frozen
class FileStat:
    """What ``stat`` reports for a path: a regular file, a directory, or missing (``exists`` False)."""

    exists: bool
    mode: int = 0
    size: int = 0
    mtime: int = 0

    @property
    def is_dir(self) -> bool:
        return self.exists and stat.S_ISDIR(self.mode)


class DeviceFilesystem:
    """A flat map of absolute paths to files; a directory exists when it is a well-known one or holds a file.

    ``/sdcard`` is the same directory as ``/storage/emulated/0``, as on a phone.
    """

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._files: dict[str, DeviceFile] = {}
        self._dirs: set[str] = set(_DIRECTORIES)
        self._now = now

    @staticmethod
    def normalize(path: str) -> str:
        """The canonical absolute form of ``path`` (relative paths are taken from ``/``)."""
        path = posixpath.normpath("/" + path.lstrip("/")) if path else "/"
        if path == "/storage/emulated/0" or path.startswith("/storage/emulated/0/"):
            path = "/sdcard" + path[len("/storage/emulated/0"):]
        return path

    def write(self, path: str, data: bytes, *, mode: int = 0o644, append: bool = False) -> None:
        """Create or replace (or extend, with ``append``) a regular file, creating its parent directories."""
        path = self.normalize(path)
        if path in self._dirs:
            raise IsADirectoryError(path)
        old = self._files.get(path)
        if append and old is not None:
            data = old.data + data
        self._files[path] = DeviceFile(data, mode & 0o7777, int(self._now()))
        parent = posixpath.dirname(path)
        while parent not in self._dirs:
            self._dirs.add(parent)
            parent = posixpath.dirname(parent)

    def read(self, path: str) -> bytes:
        """The file's bytes; ``FileNotFoundError`` or ``IsADirectoryError`` otherwise."""
        path = self.normalize(path)
        if path in self._dirs:
            raise IsADirectoryError(path)
        try:
            return self._files[path].data
        except KeyError:
            raise FileNotFoundError(path) from None

    def remove(self, path: str) -> None:
        """Delete a regular file; ``FileNotFoundError`` if missing, ``IsADirectoryError`` for a directory."""
        path = self.normalize(path)
        if path in self._dirs:
            raise IsADirectoryError(path)
        if self._files.pop(path, None) is None:
            raise FileNotFoundError(path)

    def stat(self, path: str) -> FileStat:
        """File type, size and time of ``path``; ``exists`` is False when there is nothing there."""
        path = self.normalize(path)
        if path in self._dirs:
            return FileStat(True, stat.S_IFDIR | 0o771, 4096, 0)
        found = self._files.get(path)
        if found is None:
            return FileStat(False)
        return FileStat(True, stat.S_IFREG | found.mode, len(found.data), found.mtime)

    def listdir(self, path: str) -> list[str]:
        """Sorted names directly inside a directory; raises ``NotADirectoryError`` or ``FileNotFoundError``."""
        path = self.normalize(path)
        if path not in self._dirs:
            raise NotADirectoryError(path) if path in self._files else FileNotFoundError(path)
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix):].split("/", 1)[0] for p in (*self._files, *self._dirs)
                 if p.startswith(prefix) and p != prefix}
        return sorted(names)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._files))


class SyncStream(Protocol):
    """The byte stream a sync session runs over (an adb stream): exact reads and whole writes."""

    async def read_exactly(self, size: int) -> bytes:
        """Exactly ``size`` bytes; raises ``EOFError`` when the stream closes first."""
        ...

    async def write(self, data: bytes) -> None:
        """Send ``data`` to the host, honouring flow control."""
        ...


class SyncProtocolError(ValueError):
    """The host broke the sync protocol; the session ends and its stream is closed."""


_REQUEST = struct.Struct("<4sI")
_STAT_V1 = struct.Struct("<4sIII")
_STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
_DENT_V1 = struct.Struct("<4sIIII")
_MAX_PATH = 1024


async def serve_sync(stream: SyncStream, fs: DeviceFilesystem) -> None:
    """Answer sync requests until ``QUIT`` or a protocol error (raised as :class:`SyncProtocolError`)."""
    while True:
        request_id, length = _REQUEST.unpack(await stream.read_exactly(_REQUEST.size))
        if request_id == b"QUIT":
            return
        if length > _MAX_PATH:
            raise SyncProtocolError(f"sync path of {length} bytes")
        path = (await stream.read_exactly(length)).decode("utf-8", "replace")
        if request_id == b"STAT":
            found = fs.stat(path)
            await stream.write(_STAT_V1.pack(b"STAT", found.mode, found.size, found.mtime))
        elif request_id in (b"STA2", b"LST2"):
            await stream.write(_stat_v2(request_id, fs.stat(path)))
        elif request_id == b"LIST":
            await stream.write(_listing(fs, path))
        elif request_id == b"RECV":
            await _send_file(stream, fs, path)
        elif request_id == b"SEND":
            await _receive_file(stream, fs, path)
        else:
            raise SyncProtocolError(f"unknown sync request {request_id!r}")


def _stat_v2(request_id: bytes, found: FileStat) -> bytes:
    error = 0 if found.exists else _ENOENT
    return _STAT_V2.pack(request_id, error, 0, 0, found.mode, 1 if found.exists else 0, 0, 0,
                         found.size, found.mtime, found.mtime, found.mtime)


def _listing(fs: DeviceFilesystem, path: str) -> bytes:
    out = bytearray()
    try:
        names = [".", "..", *fs.listdir(path)]
    except (FileNotFoundError, NotADirectoryError):
        names = []
    directory = fs.normalize(path)
    for name in names:
        entry = fs.stat(directory if name in (".", "..") else posixpath.join(directory, name))
        encoded = name.encode()
        out += _DENT_V1.pack(b"DENT", entry.mode, entry.size, entry.mtime, len(encoded)) + encoded
    out += _DENT_V1.pack(b"DONE", 0, 0, 0, 0)
    return bytes(out)


async def _send_file(stream: SyncStream, fs: DeviceFilesystem, path: str) -> None:
    try:
        data = fs.read(path)
    except FileNotFoundError:
        await _fail(stream, "No such file or directory")
        return
    except IsADirectoryError:
        await _fail(stream, "Is a directory")
        return
    out = bytearray()
    for start in range(0, len(data), SYNC_DATA_MAX):
        chunk = data[start:start + SYNC_DATA_MAX]
        out += _REQUEST.pack(b"DATA", len(chunk)) + chunk
    out += _REQUEST.pack(b"DONE", 0)
    await stream.write(bytes(out))


async def _receive_file(stream: SyncStream, fs: DeviceFilesystem, spec: str) -> None:
    path, _, mode_text = spec.rpartition(",")
    if not path:
        path, mode_text = spec, "33188"
    try:
        mode = int(mode_text)
    except ValueError:
        mode = 0o100644
    data = bytearray()
    while True:
        chunk_id, length = _REQUEST.unpack(await stream.read_exactly(_REQUEST.size))
        if chunk_id == b"DONE":
            break
        if chunk_id != b"DATA" or length > SYNC_DATA_MAX:
            raise SyncProtocolError(f"unexpected {chunk_id!r} ({length} bytes) during SEND")
        data += await stream.read_exactly(length)
    try:
        fs.write(path, bytes(data), mode=mode)
    except IsADirectoryError:
        await _fail(stream, f"couldn't create file: {path} is a directory")
        return
    await stream.write(_REQUEST.pack(b"OKAY", 0))


async def _fail(stream: SyncStream, message: str) -> None:
    encoded = message.encode()
    await stream.write(_REQUEST.pack(b"FAIL", len(encoded)) + encoded)
