"""A real IMAP server for tests: Dovecot, started as a child process with its own
configuration in a temporary directory, on free loopback ports.

It serves IMAP (with STARTTLS) and IMAPS with a test certificate, and two users in a
passwd-file: `ann` (IDLE, as Dovecot has it) and `plain` (a server without IDLE, for
polling). Run as root (CI), Dovecot's own users from the Debian package run the login and
mail processes (Dovecot refuses root for them); run as anyone else, that user runs all.
"""

from __future__ import annotations

import contextlib
import grp
import imaplib
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

INSTALL = "Dovecot is not installed: apt-get install dovecot-imapd (.ci/run installs it)"
PASSWORD = "secret"
USERS = {"ann": "", "plain": "imap_capability=IMAP4rev1"}
START_SECONDS = 30.0

#: A self-signed certificate for 127.0.0.1 and localhost (EC P-256, valid for a century),
#: made for these tests alone: its key protects nothing.
CERTIFICATE = """\
-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUbcJkgwyjP1bC3RsGWHck1Aj7zu4wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNzE1MDYxN1oYDzIxMjYxMTAz
MTUwNjE3WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASe6fEA7WleG2nTrA+3lTXbO2Ju2jPQAXuQypNBCFJwwH2985Hqy9HF
M+Nxf928375bourruFi1brojpdg6ayJGo28wbTAdBgNVHQ4EFgQUv6rww0Jr+lbg
qQ/vhpiulSdLzcEwHwYDVR0jBBgwFoAUv6rww0Jr+lbgqQ/vhpiulSdLzcEwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIhAMq0T+AHDKGm8Ae2lNXOgtBBvcVg8WTUW8VgD/ErOaDCAiAa
KbotGTGKebeMqreM0ELtv3Z2RT2IT/Dp1xWH4G9RQQ==
-----END CERTIFICATE-----
"""
KEY = """\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgbsLAtZvaA8w4ocq2
TsQZbZ7JtR5tYwEJJoNyTiDrz1KhRANCAASe6fEA7WleG2nTrA+3lTXbO2Ju2jPQ
AXuQypNBCFJwwH2985Hqy9HFM+Nxf928375bourruFi1brojpdg6ayJG
-----END PRIVATE KEY-----
"""


#: Dovecot's program: on the PATH, or where Debian puts it (outside an ordinary user's PATH).
DOVECOT = shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin:/usr/local/sbin")


def installed() -> bool:
    return DOVECOT is not None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Dovecot:
    """One Dovecot; `start()`, `stop()` (and `start()` again: same ports, same mail)."""

    def __init__(self) -> None:
        # Not under pytest's tmp_path: its folders are the test runner's alone (0700), and
        # Dovecot's login processes run as another user when the tests run as root.
        self.root = Path(tempfile.mkdtemp(prefix="paperboard-dovecot-"))
        self.root.chmod(0o755)
        self.port, self.tls_port = free_port(), free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.ssl_context = ssl.create_default_context(cadata=CERTIFICATE)
        self._configure()

    def _configure(self) -> None:
        if os.geteuid() == 0:
            internal, login, mail = "dovecot", "dovenull", "dovecot"
        else:
            internal = login = mail = pwd.getpwuid(os.getuid()).pw_name
        account = pwd.getpwnam(mail)
        internal_group = grp.getgrgid(pwd.getpwnam(internal).pw_gid).gr_name
        (self.root / "run").mkdir()
        homes = self.root / "mail"
        homes.mkdir()
        os.chown(homes, account.pw_uid, account.pw_gid)
        (self.root / "cert.pem").write_text(CERTIFICATE)
        (self.root / "key.pem").write_text(KEY)
        (self.root / "key.pem").chmod(0o600)
        (self.root / "users").write_text(
            "".join(
                f"{user}:{{PLAIN}}{PASSWORD}:{account.pw_uid}:{account.pw_gid}::"
                f"{homes / user}::{fields}\n"
                for user, fields in USERS.items()
            )
        )
        (self.root / "dovecot.conf").write_text(f"""\
protocols = imap
listen = 127.0.0.1
base_dir = {self.root}/run
state_dir = {self.root}/run
instance_name = paperboard-test-{self.port}
log_path = /dev/stderr
info_log_path = {self.root}/info.log
auth_failure_delay = 0
default_internal_user = {internal}
default_internal_group = {internal_group}
default_login_user = {login}
first_valid_uid = {account.pw_uid}
ssl = yes
ssl_cert = <{self.root}/cert.pem
ssl_key = <{self.root}/key.pem
mail_location = maildir:~/Maildir
passdb {{
  driver = passwd-file
  args = {self.root}/users
}}
userdb {{
  driver = passwd-file
  args = {self.root}/users
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    port = {self.port}
  }}
  inet_listener imaps {{
    port = {self.tls_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
""")

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(DOVECOT), "-F", "-c", str(self.root / "dovecot.conf")], stdin=subprocess.DEVNULL
        )
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"Dovecot did not start (exit {self.process.poll()})"
                    ) from None
                time.sleep(0.02)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(START_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def logins(self) -> list[str]:
        """Dovecot's log line for each login so far: it says "TLS" for one over TLS."""
        log = self.root / "info.log"
        lines = log.read_text().splitlines() if log.exists() else []
        return [line for line in lines if "imap-login: Info: Login:" in line]

    def url(self, mailbox: str, *, user: str = "ann", scheme: str = "imap") -> str:
        port = self.tls_port if scheme == "imaps" else self.port
        return f"{scheme}://{user}:{PASSWORD}@127.0.0.1:{port}/{mailbox}"

    @contextlib.contextmanager
    def session(self, user: str = "ann") -> Iterator[imaplib.IMAP4]:
        """A plain client (the standard library's) to put mail in and look at it."""
        client = imaplib.IMAP4("127.0.0.1", self.port)
        client.starttls(self.ssl_context)
        client.login(user, PASSWORD)
        try:
            yield client
        finally:
            client.logout()

    def create(self, mailbox: str, user: str = "ann") -> None:
        with self.session(user) as client:
            client.create(mailbox)

    def deliver(self, mailbox: str, *mails: bytes, user: str = "ann") -> None:
        with self.session(user) as client:
            for mail in mails:
                client.append(mailbox, None, None, mail)

    def unseen(self, mailbox: str, user: str = "ann") -> int:
        with self.session(user) as client:
            client.select(mailbox, readonly=True)
            _, found = client.search(None, "UNSEEN")
            return len(found[0].split())
