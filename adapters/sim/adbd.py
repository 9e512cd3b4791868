"""The device side of the adb transport protocol over TCP, as ``adb connect HOST:PORT`` speaks it.

One :class:`AdbDaemon` serves one simulated phone. Each TCP connection is one transport:
``CNXN`` handshake (optionally ``AUTH``), then ``OPEN``/``OKAY``/``WRTE``/``CLSE`` streams with
one outstanding ``WRTE`` per stream until the peer's ``OKAY`` (``delayed_ack`` is not
advertised). Services: ``shell:`` (raw), ``shell,v2,...:`` (shell protocol packets), ``exec:``
and ``sync:``; any other service is refused with ``CLSE``. A malformed packet closes its own
connection only. While the phone is offline the daemon drops its connections and refuses new
ones, the way a device that left the network looks to the adb server.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import struct
from collections.abc import Awaitable, Callable

import attrs
import structlog

from adapters.errors import AckLostError, DeviceError, DeviceOfflineError
from adapters.sim.shell import DeviceShell, ShellOutput, ShellPhone
from adapters.sim.sync import DeviceFilesystem, SyncProtocolError, serve_sync

A_SYNC = 0x434E5953
A_CNXN = 0x4E584E43
A_AUTH = 0x48545541
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_STLS = 0x534C5453

AUTH_TOKEN = 1
AUTH_SIGNATURE = 2
AUTH_RSAPUBLICKEY = 3

#: Oldest protocol version; packets carry a byte-sum checksum.
VERSION_MIN = 0x01000000
#: From this version on the checksum is not computed (sent as 0) nor checked.
VERSION_SKIP_CHECKSUM = 0x01000001
#: Largest payload the daemon accepts and sends (the host's limit may be lower).
DAEMON_MAX_PAYLOAD = 256 * 1024
_HOST_MAX_PAYLOAD = 1024 * 1024

#: Features advertised in the ``CNXN`` banner; clients pick protocols from these.
FEATURES = ("shell_v2", "cmd", "stat_v2", "fixed_push_mkdir")

#: Shell protocol v2 packet ids.
SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT, SHELL_CLOSE_STDIN, SHELL_WINDOW_SIZE = range(6)

_HEADER = struct.Struct("<6I")
_SHELL_PACKET = struct.Struct("<BI")
_KNOWN_COMMANDS = frozenset({A_SYNC, A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS})
_ONLINE_POLL_S = 0.2
_logger = structlog.get_logger("adapters.sim.adbd")


class MalformedPacketError(DeviceError, ValueError):
    """The peer sent something that is not an adb packet; its connection is dropped."""


def checksum(data: bytes) -> int:
    """The adb ``data_crc32`` field: despite the name, the sum of the payload bytes."""
    return sum(data) & 0xFFFFFFFF


@attrs.frozen
class Packet:
    """One adb message: command, two arguments and a payload."""

    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    def encode(self, *, with_checksum: bool) -> bytes:
        """Header plus payload; the checksum field is 0 when the negotiated version skips it."""
        check = checksum(self.data) if with_checksum else 0
        header = _HEADER.pack(self.command, self.arg0, self.arg1, len(self.data), check,
                              self.command ^ 0xFFFFFFFF)
        return header + self.data


def shell_packet(packet_id: int, data: bytes) -> bytes:
    """One shell-protocol-v2 packet: id byte, little-endian length, data."""
    return _SHELL_PACKET.pack(packet_id, len(data)) + data


def verify_signature(public_key: bytes, token: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is the RSA (PKCS#1 v1.5, SHA-1 digest info) signature of ``token`` by the
    adb public key ``public_key`` (base64 ``android_pubkey`` blob, optionally followed by `` user@host``)."""
    try:
        blob = base64.b64decode(public_key.split(b" ", 1)[0].rstrip(b"\0"), validate=True)
        words: int = struct.unpack_from("<I", blob)[0]
        size = words * 4
        modulus = int.from_bytes(blob[8:8 + size], "little")
        exponent: int = struct.unpack_from("<I", blob, 8 + 2 * size)[0]
    except (ValueError, struct.error):
        return False
    if modulus == 0 or len(signature) != size:
        return False
    sha1_prefix = bytes.fromhex("3021300906052b0e03021a05000414")
    padding = b"\xff" * (size - 3 - len(sha1_prefix) - len(token))
    expected = b"\x00\x01" + padding + b"\x00" + sha1_prefix + token
    recovered = pow(int.from_bytes(signature, "big"), exponent, modulus).to_bytes(size, "big")
    return recovered == expected


def fingerprint(public_key: bytes) -> str:
    """A short name for an adb public key (MD5 of its decoded blob, as Android's prompt shows)."""
    blob = base64.b64decode(public_key.split(b" ", 1)[0].rstrip(b"\0"))
    return hashlib.md5(blob, usedforsecurity=False).hexdigest()


Service = Callable[["AdbStream"], Awaitable[None]]


class AdbStream:
    """One open stream on a transport: flow-controlled writes, acknowledged reads.

    ``write`` sends at most one ``WRTE`` at a time and waits for the host's ``OKAY`` before the
    next; ``read`` returns host data and acknowledges it with ``OKAY`` only once consumed, so a
    slow service slows the host down instead of buffering without bound.
    """

    def __init__(self, transport: AdbTransport, local_id: int, remote_id: int) -> None:
        self.transport = transport
        self.local_id = local_id
        self.remote_id = remote_id
        self.closed = asyncio.Event()
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._buffer = bytearray()
        self._credit = asyncio.Event()
        self._credit.set()

    async def write(self, data: bytes) -> None:
        """Send ``data`` in chunks no larger than the negotiated payload; ``EOFError`` once closed."""
        step = self.transport.max_payload
        for start in range(0, len(data), step):
            await self._credit.wait()
            if self.closed.is_set():
                raise EOFError("stream closed by the host")
            self._credit.clear()
            await self.transport.send(Packet(A_WRTE, self.local_id, self.remote_id, data[start:start + step]))

    async def read(self) -> bytes:
        """The next chunk the host wrote; ``b""`` once the host closed the stream."""
        if self._buffer:
            chunk, self._buffer = bytes(self._buffer), bytearray()
            return chunk
        item = await self._inbox.get()
        if item is None:
            self._inbox.put_nowait(None)
            return b""
        await self.transport.send(Packet(A_OKAY, self.local_id, self.remote_id))
        return item

    async def read_exactly(self, size: int) -> bytes:
        """Exactly ``size`` bytes of host data; ``EOFError`` if the stream closes first."""
        while len(self._buffer) < size:
            item = await self._inbox.get()
            if item is None:
                self._inbox.put_nowait(None)
                raise EOFError("stream closed by the host")
            self._buffer += item
            await self.transport.send(Packet(A_OKAY, self.local_id, self.remote_id))
        chunk = bytes(self._buffer[:size])
        del self._buffer[:size]
        return chunk

    def deliver(self, data: bytes) -> None:
        self._inbox.put_nowait(data)

    def acknowledge(self) -> None:
        self._credit.set()

    def mark_closed(self) -> None:
        self.closed.set()
        self._credit.set()
        self._inbox.put_nowait(None)


class AdbTransport:
    """One TCP connection from an adb host: the handshake, then packet dispatch to streams."""

    def __init__(self, daemon: AdbDaemon, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.daemon = daemon
        self.version = VERSION_MIN
        self.max_payload = 4096
        self._reader = reader
        self._writer = writer
        self._streams: dict[int, AdbStream] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._next_id = 1
        self._connected = False
        self._serial = daemon.phone.serial

    async def send(self, packet: Packet) -> None:
        self._writer.write(packet.encode(with_checksum=self.version < VERSION_SKIP_CHECKSUM))
        await self._writer.drain()

    def abort(self) -> None:
        """Drop the connection at once, as a device that vanished does."""
        transport = self._writer.transport
        if not transport.is_closing():
            transport.abort()

    async def run(self) -> None:
        """Serve the connection until the host leaves, sends garbage, or the phone goes offline."""
        watcher = asyncio.create_task(self._watch_online())
        try:
            await self._handshake()
            while True:
                await self._dispatch(await self._read_packet())
        except (MalformedPacketError, EOFError, ConnectionError, DeviceOfflineError):
            pass
        finally:
            watcher.cancel()
            for stream in self._streams.values():
                stream.mark_closed()
            for task in self._tasks.values():
                task.cancel()
            self.abort()

    async def _watch_online(self) -> None:
        while self.daemon.phone.online:
            await asyncio.sleep(_ONLINE_POLL_S)
        self.abort()

    async def _read_packet(self) -> Packet:
        header = await self._reader.readexactly(_HEADER.size)
        command, arg0, arg1, length, check, magic = _HEADER.unpack(header)
        if magic != command ^ 0xFFFFFFFF or command not in _KNOWN_COMMANDS:
            raise MalformedPacketError(f"bad packet header {header.hex()}", serial=self._serial)
        limit = self.max_payload if self._connected else _HOST_MAX_PAYLOAD
        if length > limit:
            raise MalformedPacketError(f"payload of {length} bytes exceeds {limit}", serial=self._serial)
        data = await self._reader.readexactly(length) if length else b""
        if check and self.version < VERSION_SKIP_CHECKSUM and check != checksum(data):
            raise MalformedPacketError("payload checksum mismatch", serial=self._serial)
        return Packet(command, arg0, arg1, data)

    async def _handshake(self) -> None:
        packet = await self._read_packet()
        if packet.command != A_CNXN:
            raise MalformedPacketError("expected CNXN first", serial=self._serial)
        if self.daemon.auth:
            await self._authenticate()
        self.version = min(packet.arg0, VERSION_SKIP_CHECKSUM)
        if self.version < VERSION_MIN:
            raise MalformedPacketError(f"protocol version {packet.arg0:#x} too old", serial=self._serial)
        self.max_payload = max(4096, min(packet.arg1, DAEMON_MAX_PAYLOAD))
        await self.send(Packet(A_CNXN, self.version, DAEMON_MAX_PAYLOAD, self.daemon.banner().encode()))
        self._connected = True

    async def _authenticate(self) -> None:
        """Send ``AUTH TOKEN`` until the host signs with a trusted key or offers its public key."""
        while True:
            token = os.urandom(20)
            await self.send(Packet(A_AUTH, AUTH_TOKEN, 0, token))
            while True:
                packet = await self._read_packet()
                if packet.command == A_CNXN:
                    break
                if packet.command != A_AUTH:
                    raise MalformedPacketError("unexpected packet during AUTH", serial=self._serial)
                if packet.arg0 == AUTH_SIGNATURE:
                    if any(verify_signature(key, token, packet.data) for key in self.daemon.trusted_keys):
                        self.daemon.auth_history.append("signature")
                        return
                    break
                if packet.arg0 == AUTH_RSAPUBLICKEY:
                    self.daemon.trusted_keys.add(packet.data.rstrip(b"\0"))
                    self.daemon.auth_history.append("public_key")
                    return
                raise MalformedPacketError(f"AUTH type {packet.arg0}", serial=self._serial)

    async def _dispatch(self, packet: Packet) -> None:
        if packet.command == A_OPEN:
            await self._open(packet.arg0, packet.data.rstrip(b"\0").decode("utf-8", "replace"))
        elif packet.command == A_OKAY:
            stream = self._streams.get(packet.arg1)
            if stream is not None:
                stream.acknowledge()
        elif packet.command == A_WRTE:
            stream = self._streams.get(packet.arg1)
            if stream is not None:
                stream.deliver(packet.data)
        elif packet.command == A_CLSE:
            stream = self._streams.pop(packet.arg1, None)
            if stream is not None:
                stream.mark_closed()
                task = self._tasks.pop(packet.arg1, None)
                if task is not None:
                    task.cancel()
                await self.send(Packet(A_CLSE, stream.local_id, stream.remote_id))
        elif packet.command == A_CNXN:
            raise MalformedPacketError("CNXN on a connected transport", serial=self._serial)

    async def _open(self, remote_id: int, name: str) -> None:
        service = self.daemon.resolve(name)
        if service is None or remote_id == 0:
            await self.send(Packet(A_CLSE, 0, remote_id))
            return
        local_id = self._next_id
        self._next_id += 1
        stream = AdbStream(self, local_id, remote_id)
        self._streams[local_id] = stream
        await self.send(Packet(A_OKAY, local_id, remote_id))
        self._tasks[local_id] = asyncio.create_task(self._serve_stream(stream, service))

    async def _serve_stream(self, stream: AdbStream, service: Service) -> None:
        try:
            await service(stream)
        except (EOFError, SyncProtocolError, UnicodeDecodeError):
            pass
        except AckLostError:
            await stream.closed.wait()  # the answer is lost: the stream stays silent until the host gives up
        except (DeviceOfflineError, ConnectionError):
            self.abort()
            return
        except Exception as err:
            # a fault in one service must not take the daemon down: close the stream, keep the device
            _logger.error("adbd.service_failed", serial=self._serial, stream=stream.local_id,
                          error=f"{type(err).__name__}: {err}")
        if self._streams.pop(stream.local_id, None) is not None:
            self._tasks.pop(stream.local_id, None)
            stream.mark_closed()
            with contextlib.suppress(ConnectionError):
                await self.send(Packet(A_CLSE, stream.local_id, stream.remote_id))


class AdbDaemon:
    """An emulated ``adbd`` for one phone, listening on ``host:port`` (``port`` 0 picks a free one).

    With ``auth`` the daemon demands ``AUTH``: a signature by a key in ``trusted_keys`` is accepted,
    and a public key the host offers is trusted (as if the user tapped "Allow").
    """

    def __init__(self, phone: ShellPhone, *, fs: DeviceFilesystem | None = None, host: str = "127.0.0.1",
                 port: int = 0, auth: bool = False) -> None:
        self.phone = phone
        self.fs = fs if fs is not None else DeviceFilesystem()
        self.host = host
        self.port = port
        self.auth = auth
        self.trusted_keys: set[bytes] = set()
        #: How each authenticated connection got in: "signature" or "public_key".
        self.auth_history: list[str] = []
        self._server: asyncio.Server | None = None
        self._transports: set[AdbTransport] = set()
        self._handlers: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Start listening; ``port`` is the bound port afterwards."""
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and drop every connection."""
        if self._server is not None:
            self._server.close()
        for transport in list(self._transports):
            transport.abort()
        if self._handlers:
            await asyncio.wait(self._handlers, timeout=2.0)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    def banner(self) -> str:
        """The ``CNXN`` payload: system type, identifying properties and features."""
        props = []
        for key in ("ro.product.name", "ro.product.model", "ro.product.device"):
            value = self.phone.getprop(key)
            props.append(f"{key}={value if isinstance(value, str) and value else self.phone.serial};")
        return "device::" + "".join(props) + "features=" + ",".join(FEATURES)

    def resolve(self, name: str) -> Service | None:
        """The service a stream name asks for, or ``None`` (the stream is refused)."""
        kind, _, argument = name.partition(":")
        options = kind.split(",")
        if options[0] == "shell":
            v2 = "v2" in options[1:]
            return lambda stream: self._shell(stream, argument, v2=v2, interactive=not argument)
        if kind == "exec" and argument:
            return lambda stream: self._shell(stream, argument, v2=False, interactive=False)
        if kind == "sync" and not argument:
            return lambda stream: serve_sync(stream, self.fs)
        return None

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        transport = AdbTransport(self, reader, writer)
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self._transports.add(transport)
        try:
            if self.phone.online:
                await transport.run()
        finally:
            transport.abort()
            self._transports.discard(transport)
            self._handlers.discard(task)

    async def _shell(self, stream: AdbStream, command: str, *, v2: bool, interactive: bool) -> None:
        async def deliver(chunks: list[tuple[int, bytes]]) -> None:
            if v2:
                await stream.write(b"".join(shell_packet(fd, data) for fd, data in chunks))
            else:
                await stream.write(b"".join(data for _, data in chunks))

        output = ShellOutput(deliver)
        shell = DeviceShell(self.phone, self.fs, output)
        if interactive:
            await _interactive(stream, shell, v2=v2)
        else:
            await shell.run(command)
        if v2:
            output.write(SHELL_EXIT, bytes([shell.status & 0xFF]))
        await output.flush()


async def _interactive(stream: AdbStream, shell: DeviceShell, *, v2: bool) -> None:
    """Run each line the host types until it closes stdin or runs ``exit``."""
    pending = b""
    while not shell.exited:
        if v2:
            packet_id, length = _SHELL_PACKET.unpack(await stream.read_exactly(_SHELL_PACKET.size))
            data = await stream.read_exactly(length) if length else b""
            if packet_id == SHELL_CLOSE_STDIN:
                break
            if packet_id != SHELL_STDIN:
                continue
        else:
            data = await stream.read()
            if not data:
                break
        pending += data
        while b"\n" in pending and not shell.exited:
            line, pending = pending.split(b"\n", 1)
            await shell.run(line.decode("utf-8", "replace"))
            await shell.output.flush()
    if pending.strip() and not shell.exited:
        await shell.run(pending.decode("utf-8", "replace"))
