"""Whether the server listens beyond this machine, and what it tells people when it does.

Tablelens has no login yet: whoever reaches the server can open every chat it lists, and a
share link is readable by anyone who has it. Bound to the loopback address only this machine
can reach it; bound beyond it (`--address 0.0.0.0`, the Dockerfile), the command line warns
at start and the app shows a banner, so nobody exposes the chats without being told.
"""

from __future__ import annotations

import ipaddress

START_WARNING = (
    "warning: Tablelens is listening on {address}, beyond this machine, and has no login: "
    "anyone who can reach this address can open, change and delete every chat listed in the "
    "app, and read any share link they are given. Serve it only on a network you trust, or "
    "use --address 127.0.0.1.")
BANNER = ("This server has no login and can be reached from other machines: anyone who can "
          "reach it can open, change and delete the chats listed here, and anyone with a "
          "chat's URL or a share link gets in.")
SHARE_NOTE = ("Anyone who has a share link can read the chat as it is now, with its steps, "
              "tables and cited cells; there is no login on this server. Links open a "
              "snapshot: later questions are not shown. Copy a new link when you make it: "
              "only a fingerprint of it is kept.")


def beyond_loopback(address: str | None) -> bool:
    """Whether `address` (Streamlit's server.address) lets other machines connect. Unset is
    treated as loopback: `tablelens run` always sets it."""
    if not address:
        return False
    host = address.strip().strip("[]")
    if host.casefold() == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it resolves to whatever the network says
        return True
