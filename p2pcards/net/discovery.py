"""Finding tables on the LAN with zeroconf (mDNS/DNS-SD), service type ``_p2pcards._tcp``.

python-zeroconf's synchronous ``Zeroconf`` runs its own event loop in a thread. Constructed inside
a trio task running as a guest of prompt-toolkit's asyncio loop it would attach to that loop and
its blocking calls would fail, so every construction, registration, lookup and close happens in a
worker thread (``trio.to_thread.run_sync``), and browser callbacks are forwarded into trio with
``trio.from_thread.run_sync``.

TXT records stay small (a few short keys); everything else is exchanged over TCP.

``interface`` is an IPv4 address to announce and browse on. ``None`` means every interface and is
only for real LAN play; tests and the demo pass ``127.0.0.1``.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import trio
from zeroconf import (
    InterfaceChoice,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)

from ..text import unshowable

__all__ = ["SERVICE_TYPE", "TableAdvert", "advertise", "browse", "watch"]

SERVICE_TYPE = "_p2pcards._tcp.local."
# How long a name lookup may wait for an answer, in milliseconds.
LOOKUP_MS = 2000


@dataclass(frozen=True)
class TableAdvert:
    """What a table announces about itself."""

    table: str  # short random table id
    name: str  # shown in the lobby
    game: str
    seats: int
    free: int
    protocol: int
    fingerprint: str  # the host's key fingerprint
    host: str
    port: int
    #: Its game has started: no seat is free, and a spectator may watch it (``p2pcards watch``).
    playing: bool = False

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def properties(self) -> dict[str, str]:
        return {
            "n": self.name[:40],
            "g": self.game,
            "s": str(self.seats),
            "f": str(self.free),
            "v": str(self.protocol),
            "k": self.fingerprint,
            **({"p": "1"} if self.playing else {}),
        }

    @classmethod
    def from_info(cls, info: ServiceInfo) -> TableAdvert | None:
        """Parse a resolved service; ``None`` if it is not a well-formed p2pcards advert."""
        props = {
            k.decode("utf-8", "replace"): (v or b"").decode("utf-8", "replace")
            for k, v in (info.properties or {}).items()
        }
        addresses = info.parsed_addresses(IPVersion.V4Only)
        table = info.name.removesuffix("." + SERVICE_TYPE)
        # Whoever is on the LAN writes these records: one whose texts hold a control or format
        # character (a line break, a terminal escape, a bidi override) is no honest table's.
        if any(unshowable(text) is not None for text in (table, *props.values())):
            return None
        if info.port is None:  # (not resolved)
            return None
        try:
            return cls(
                table=table,
                name=props["n"],
                game=props["g"],
                seats=int(props["s"]),
                free=int(props["f"]),
                protocol=int(props["v"]),
                fingerprint=props["k"],
                host=addresses[0],
                port=int(info.port),
                playing=props.get("p") == "1",
            )
        except (KeyError, ValueError, IndexError, TypeError):
            return None


def _interfaces(interface: str | None):
    return InterfaceChoice.All if interface is None else [interface]


def _new_zeroconf(interface: str | None) -> Zeroconf:
    return Zeroconf(interfaces=_interfaces(interface), ip_version=IPVersion.V4Only)


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (for a table on every interface)."""
    import ifaddr

    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                found.append(ip.ip)
    return found


def _service_info(advert: TableAdvert) -> ServiceInfo:
    hosts = lan_addresses() if advert.host == "0.0.0.0" else [advert.host]
    return ServiceInfo(
        SERVICE_TYPE,
        f"{advert.table}.{SERVICE_TYPE}",
        addresses=[socket.inet_aton(h) for h in hosts],
        port=advert.port,
        properties=advert.properties(),
        server=f"p2pcards-{advert.table}.local.",
    )


class Advertisement:
    """A registered advert; :meth:`update` changes it (free seats), leaving closes it."""

    def __init__(self, zc: Zeroconf, advert: TableAdvert):
        self._zc = zc
        self.advert = advert

    async def update(self, advert: TableAdvert) -> None:
        self.advert = advert
        await trio.to_thread.run_sync(self._zc.update_service, _service_info(advert))


@asynccontextmanager
async def advertise(advert: TableAdvert, interface: str | None) -> AsyncIterator[Advertisement]:
    """Announce a table while the block runs."""

    def start() -> Zeroconf:
        zc = _new_zeroconf(interface)
        try:
            zc.register_service(_service_info(advert))
        except BaseException:
            zc.close()
            raise
        return zc

    zc = await trio.to_thread.run_sync(start)
    ad = Advertisement(zc, advert)
    try:
        yield ad
    finally:

        def stop() -> None:
            try:
                zc.unregister_service(_service_info(ad.advert))
            finally:
                zc.close()

        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(stop)


@asynccontextmanager
async def watch(interface: str | None, on_change: Callable[[dict[str, TableAdvert]], None]) -> AsyncIterator[None]:
    """Browse for tables while the block runs; ``on_change`` gets every table now visible,
    called in trio's thread whenever one appears, changes or disappears."""
    token = trio.lowlevel.current_trio_token()
    tables: dict[str, TableAdvert] = {}

    def handler(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        # Runs in zeroconf's thread; resolve there, then hand the result to trio.
        if state_change is ServiceStateChange.Removed:
            advert = None
        else:
            info = zeroconf.get_service_info(service_type, name, timeout=LOOKUP_MS)
            advert = TableAdvert.from_info(info) if info else None

        def apply() -> None:
            if advert is None:
                tables.pop(name, None)
            else:
                tables[name] = advert
            on_change(dict(tables))

        try:
            trio.from_thread.run_sync(apply, trio_token=token)
        except trio.RunFinishedError:
            pass

    def start() -> tuple[Zeroconf, ServiceBrowser]:
        zc = _new_zeroconf(interface)
        return zc, ServiceBrowser(zc, SERVICE_TYPE, handlers=[handler])

    zc, browser = await trio.to_thread.run_sync(start)
    try:
        yield
    finally:

        def stop() -> None:
            browser.cancel()
            zc.close()

        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(stop)


async def browse(interface: str | None, timeout: float = 3.0) -> list[TableAdvert]:
    """The tables visible after ``timeout`` seconds of listening."""
    seen: dict[str, TableAdvert] = {}

    def update(tables: dict[str, TableAdvert]) -> None:
        seen.clear()
        seen.update(tables)

    async with watch(interface, update):
        await trio.sleep(timeout)
    return sorted(seen.values(), key=lambda a: (a.name, a.table))
