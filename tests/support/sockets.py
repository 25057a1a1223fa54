"""The TCP sockets this process holds to or from a local port, read from /proc (Linux).

A connection the peer closed but we did not stays in CLOSE_WAIT for as long as we keep it: the
leak that lets a long-running page run out of file descriptors.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

_STATES = {
    "01": "ESTABLISHED",
    "02": "SYN_SENT",
    "03": "SYN_RECV",
    "04": "FIN_WAIT1",
    "05": "FIN_WAIT2",
    "06": "TIME_WAIT",
    "07": "CLOSE",
    "08": "CLOSE_WAIT",
    "09": "LAST_ACK",
    "0A": "LISTEN",
    "0B": "CLOSING",
}


@dataclass(frozen=True)
class Socket:
    side: str  # "client" (connected to the port) or "server" (accepted on it)
    state: str


def _own_inodes() -> set[str]:
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def sockets(port: int) -> list[Socket]:
    """This process's connections with `port` at either end; listening sockets left out."""
    own = _own_inodes()
    found = []
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        try:
            with open(table) as rows:
                lines = rows.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
            if inode not in own or state == "0A":
                continue
            if int(remote.rsplit(":", 1)[1], 16) == port:
                found.append(Socket("client", _STATES.get(state, state)))
            elif int(local.rsplit(":", 1)[1], 16) == port:
                found.append(Socket("server", _STATES.get(state, state)))
    return found


def wait_until_closed(port: int, timeout: float = 1.0) -> list[Socket]:
    """Wait up to `timeout` for every connection with `port` to be closed; what is left."""
    deadline = time.monotonic() + timeout
    while True:
        left = sockets(port)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)
