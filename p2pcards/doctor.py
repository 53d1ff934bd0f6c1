"""``p2pcards doctor``: find out why tables on the LAN do not see each other.

It lists this computer's IPv4 interfaces, says which one reaches the network by default (or checks
the one given with ``--interface``), checks that the TCP port can be bound, runs a zeroconf
self-test, and prints hints about firewalls, multicast, access-point isolation and VPNs.

The self-test announces a table and browses for it **on 127.0.0.1 only**, unless the user names
an interface with ``--interface``: the doctor never announces itself on a network on its own.
Finding the default interface connects a UDP socket, which sends no packet: it only asks the
operating system which address it would use.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
from dataclasses import dataclass, field

import ifaddr
import trio

from . import PROTOCOL_VERSION
from .text import printable

__all__ = ["Check", "Report", "default_address", "discovery_self_test", "interfaces", "run_doctor"]

LOOPBACK = "127.0.0.1"
MDNS_PORT = 5353
# An address from TEST-NET-1 (RFC 5737): never used on a real network, only to ask for a route.
ROUTE_PROBE = "192.0.2.1"
VPN_NAMES = ("tun", "tap", "wg", "tailscale", "zt", "utun", "ppp", "ipsec", "nordlynx", "proton")
CGNAT = ipaddress.ip_network("100.64.0.0/10")  # Tailscale and carrier NAT addresses


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Report:
    interfaces: list[tuple[str, str]]
    in_use: str | None
    checks: list[Check] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    #: The address the listening and discovery checks ran on.
    tested: str | None = None

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def to_text(self) -> str:
        lines = ["Interfaces (IPv4):"]
        for name, address in self.interfaces:
            mark = "  <- in use" if address == self.in_use else ""
            lines.append(f"  {name:<16} {address}{mark}")
        if not self.interfaces:
            lines.append("  none found")
        lines.append("")
        lines.append("Checks:")
        for check in self.checks:
            lines.append(f"  [{'ok' if check.ok else 'FAIL'}] {check.name}: {check.detail}")
        lines.append("")
        lines.append("Hints:")
        lines += [f"  - {hint}" for hint in self.hints]
        lines.append("")
        if not self.ok:
            lines.append("Some checks failed: see above and docs/troubleshooting.md.")
        elif self.tested is not None and ipaddress.ip_address(self.tested).is_loopback:
            lan = next((a for _, a in self.interfaces if not ipaddress.ip_address(a).is_loopback), None)
            again = f"p2pcards doctor --interface {lan}" if lan else "p2pcards doctor --interface YOUR-LAN-ADDRESS"
            lines.append(
                f"All checks passed on {self.tested}, which only this computer can reach: friends on other "
                f"computers cannot reach a table there. To check what they can reach: {again}"
            )
        else:
            lines.append("All checks passed.")
        # Adapter names and error texts come from the system: shown printable, one per line.
        return "\n".join(printable(line) for line in lines)


def interfaces() -> list[tuple[str, str]]:
    """(adapter name, IPv4 address) for every address of this computer, loopback included."""
    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):  # IPv6 addresses are tuples
                found.append((adapter.nice_name or adapter.name, ip.ip))
    return sorted(set(found), key=lambda item: (item[1] == LOOPBACK, item[0], item[1]))


def default_address() -> str | None:
    """The address this computer would use to reach other hosts, or None with no route."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect((ROUTE_PROBE, 9))  # UDP: no packet is sent
        return probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()


def check_port(address: str, port: int) -> tuple[Check, int]:
    """Can a table listen on ``address:port``? Port 0 asks for any free port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((address, port))
        sock.listen(1)
        bound = sock.getsockname()[1]
    except OSError as exc:
        reason = exc.strerror or str(exc)
        hint = " (another program, or another p2pcards, uses it)" if port else ""
        return Check(f"TCP port {port} on {address}", False, f"cannot listen: {reason}{hint}"), port
    finally:
        sock.close()
    what = f"TCP port {port}" if port else "a free TCP port"
    return Check(f"{what} on {address}", True, f"can listen on {address}:{bound}"), bound


async def discovery_self_test(address: str, port: int, timeout: float = 8.0) -> Check:
    """Announce a table on ``address`` and browse for it there."""
    from .net.discovery import TableAdvert, advertise, watch

    table = "doctor-" + secrets.token_hex(4)
    advert = TableAdvert(table, "p2pcards doctor", "doctor", 0, 0, PROTOCOL_VERSION, "-", address, port)
    name = f"zeroconf self-test on {address}"
    seen = trio.Event()

    def on_change(tables) -> None:
        if any(t.table == table for t in tables.values()):
            seen.set()

    started = trio.current_time()
    try:
        async with advertise(advert, address), watch(address, on_change):
            with trio.move_on_after(timeout):
                await seen.wait()
    except Exception as exc:  # zeroconf raises many kinds; each is a finding, not a crash
        return Check(name, False, f"could not announce or browse: {type(exc).__name__}: {exc}")
    if seen.is_set():
        took = trio.current_time() - started
        return Check(name, True, f"announced a test table and found it again after {took:.1f} s")
    return Check(
        name,
        False,
        f"announced a test table but did not see it within {timeout:g} s "
        f"(multicast on UDP {MDNS_PORT} is blocked here)",
    )


def looks_like_vpn(name: str, address: str) -> bool:
    lowered = name.lower()
    return any(lowered.startswith(p) or p in lowered for p in VPN_NAMES) or ipaddress.ip_address(address) in CGNAT


def hints(found: list[tuple[str, str]], in_use: str | None, port: int, chosen: bool) -> list[str]:
    out = []
    lan = [(n, a) for n, a in found if not ipaddress.ip_address(a).is_loopback]
    if not lan:
        out.append("This computer has no network address besides loopback: join the Wi-Fi or plug in the cable.")
    if any(ipaddress.ip_address(a).is_link_local for _, a in lan):
        out.append("An address in 169.254.x.x means the router gave no address (DHCP): reconnect to the network.")
    vpns = [f"{n} ({a})" for n, a in lan if looks_like_vpn(n, a)]
    if vpns:
        out.append(
            f"VPN interfaces found: {', '.join(vpns)}. A VPN can carry your traffic away from the LAN and "
            "usually drops multicast: pause it, allow LAN access in its settings, or pass "
            "--interface with your LAN address."
        )
    if len(lan) > 1 and not chosen:
        out.append("Several networks: if tables are not found, choose the LAN one with --interface ADDRESS.")
    out.append(
        f"Firewall: tables are announced by mDNS, multicast UDP port {MDNS_PORT} to 224.0.0.251; allow it "
        "in and out (on Linux e.g. 'sudo ufw allow 5353/udp' or firewalld's mdns service; on Windows "
        "allow p2pcards, i.e. Python, on private networks; on macOS allow incoming connections)."
    )
    which = f"TCP port {port}" if port else "the table's TCP port"
    out.append(f"Peers connect to {which}: allow it in; a fixed --port makes a firewall rule simple.")
    out.append(
        "Guest Wi-Fi and many public or office networks isolate clients (AP or client isolation): "
        "devices cannot see each other at all. Use the main network, or turn isolation off in the router."
    )
    out.append("If discovery fails but the network is fine, join a table by address: HOST:PORT.")
    if in_use and not chosen:
        out.append(
            f"The self-test ran on {LOOPBACK} only; to test the LAN itself, run "
            f"'p2pcards doctor --interface {in_use}' (this announces a test table there for a few seconds)."
        )
    return out


def run_doctor(interface: str | None = None, port: int = 0, timeout: float = 8.0) -> Report:
    """Every check; the self-test runs on 127.0.0.1 unless ``interface`` is given."""
    found = interfaces()
    chosen = interface is not None
    in_use = interface if chosen else default_address()
    report = Report(found, in_use)
    if chosen:
        ours = {a for _, a in found}
        if interface in ours:
            report.checks.append(Check("interface", True, f"{interface} is an address of this computer"))
        else:
            have = ", ".join(sorted(ours)) or "none"
            report.checks.append(
                Check("interface", False, f"{interface} is not an address of this computer (have: {have})")
            )
            report.hints = hints(found, in_use, port, chosen)
            return report
    elif in_use is None:
        report.checks.append(Check("network", False, "no route to any network: only this computer can play"))
    else:
        report.checks.append(Check("network", True, f"connections to other hosts leave from {in_use}"))
    test_address = interface if interface is not None else LOOPBACK  # (chosen)
    listen_on = interface if interface is not None else "0.0.0.0"
    port_check, bound = check_port(listen_on, port)
    report.checks.append(port_check)
    report.checks.append(trio.run(discovery_self_test, test_address, bound if port_check.ok else 9, timeout))
    report.tested = test_address
    report.hints = hints(found, in_use, port, chosen)
    return report
