"""Whether the server listens beyond this machine, and what it tells people when it does.

Without login (no `[auth]` section in the secrets, `tablelens/login.py`) the list of chats
shows the chats this browser opened, but whoever has a chat's URL can open it, and a share
link is readable by anyone who has it. Bound to the loopback address only this machine can
reach it; bound beyond it (`--address 0.0.0.0`, the Dockerfile), the command line warns at
start (it cannot tell whether Streamlit will find login settings, so it names them) and the
app shows a banner when login is off, so nobody exposes the chats without being told.
"""

from __future__ import annotations

import ipaddress

START_WARNING = (
    "warning: Tablelens is listening on {address}, beyond this machine. Unless login is "
    "configured (an [auth] section in .streamlit/secrets.toml: README, \"Run it for your "
    "team\"), anyone who can reach this address and has a chat's URL can open, change and "
    "delete that chat, and read any share link they are given. Serve it only on a network you "
    "trust, configure login, or use --address 127.0.0.1.")
BANNER = ("This server has no login and can be reached from other machines. The list shows "
          "only the chats this browser opened, but anyone with a chat's URL can open, change "
          "and delete it, and anyone with a share link can read it.")
_SHARE_SNAPSHOT = ("Links open a snapshot: later questions are not shown. Copy a new link "
                   "when you make it: only a fingerprint of it is kept.")
SHARE_NOTE = ("Anyone who has a share link can read the chat as it is now, with its steps, "
              "tables and cited cells; there is no login on this server. " + _SHARE_SNAPSHOT)
SHARE_NOTE_LOGIN = ("Anyone who logs in to this server and has a share link can read the chat "
                    "as it is now, with its steps, tables and cited cells, but not who made "
                    "it. " + _SHARE_SNAPSHOT)


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
