"""``p2pcards doctor`` run as a command: it lists interfaces, checks the port, self-tests discovery
on 127.0.0.1 (tests never pass a real interface) and explains what it found."""

from __future__ import annotations

import socket

from p2pcards.doctor import hints, interfaces, looks_like_vpn


def test_doctor_explains_what_it_found(cli):
    run = cli("doctor", "--interface", "127.0.0.1", "--port", "0")
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "Interfaces (IPv4):" in out and "127.0.0.1  <- in use" in out
    assert "[ok] interface: 127.0.0.1 is an address of this computer" in out
    assert "[ok] a free TCP port on 127.0.0.1: can listen on 127.0.0.1:" in out
    assert "[ok] zeroconf self-test on 127.0.0.1: announced a test table and found it again" in out
    for hint in ("5353", "AP or client isolation", "VPN" if "VPN interfaces" in out else "Firewall", "HOST:PORT"):
        assert hint in out
    # All passed, on an address only this computer reaches: it says friends cannot reach it.
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("All checks passed on 127.0.0.1, which only this computer can reach"), last
    assert "friends on other computers cannot reach a table there" in last
    assert "p2pcards doctor --interface" in last


def test_doctor_reports_a_port_in_use(cli):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        run = cli("doctor", "--interface", "127.0.0.1", "--port", str(port), "--timeout", "6")
    assert run.returncode == 1
    assert f"[FAIL] TCP port {port} on 127.0.0.1: cannot listen" in run.stdout
    assert "Some checks failed" in run.stdout


def test_doctor_refuses_an_address_that_is_not_ours(cli):
    run = cli("doctor", "--interface", "192.0.2.77")  # TEST-NET-1: never assigned on a real host
    assert run.returncode == 1
    assert "[FAIL] interface: 192.0.2.77 is not an address of this computer" in run.stdout
    assert "zeroconf self-test" not in run.stdout  # nothing was announced anywhere


def test_doctor_usage_errors(cli):
    run = cli("doctor", "--port", "70000")
    assert run.returncode == 2 and "--port must be between" in run.stderr


def test_interfaces_include_loopback():
    assert "127.0.0.1" in {address for _, address in interfaces()}


def test_hints_for_vpns_and_link_local_and_no_network():
    assert looks_like_vpn("tailscale0", "100.101.1.2") and looks_like_vpn("wg0", "10.0.0.2")
    assert not looks_like_vpn("eth0", "192.168.1.20")
    text = "\n".join(
        hints([("lo", "127.0.0.1"), ("wlan0", "169.254.3.4"), ("wg0", "10.8.0.2")], "10.8.0.2", 4000, chosen=False)
    )
    assert "DHCP" in text and "VPN interfaces found: wg0 (10.8.0.2)" in text and "TCP port 4000" in text
    assert "--interface ADDRESS" in text
    assert "no network address besides loopback" in "\n".join(hints([("lo", "127.0.0.1")], None, 0, False))
