"""A real SMTP relay for the mail tests (Tests/MailTests/RealSMTPServerTests.swift), built on
aiosmtpd (PyPI; .ci/smtp.sh installs it): STARTTLS required (a certificate for 127.0.0.1 and
localhost from a CA made at start with the openssl command), AUTH PLAIN and LOGIN for one user,
offered only over TLS.

  python3 Tests/Support/smtp_server.py --maildir DIR --user U --password P
      [--port N] [--tls-dir DIR] [--no-tls] [--fail-rcpt CODE]

Each message it accepts becomes DIR/NNNN.eml (written to a temporary name, then renamed, so a
reader never sees half a file), and one JSON line {"file", "mail_from", "rcpt_tos"} is appended
to DIR/index.jsonl after it. When listening it prints one line to standard output,
`smtp://USER:PASSWORD@127.0.0.1:PORT CAFILE`, and it exits cleanly on SIGTERM or SIGINT.

--no-tls: a relay without STARTTLS that still offers AUTH over plain text (to check that the
client refuses to send a password there). --fail-rcpt CODE: every RCPT TO is answered CODE
(451: try later; 550: refused). --tls-dir: where the CA and certificate go (default: a
temporary directory removed at exit). --port 0 (the default): a free port.
"""
import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from urllib.parse import quote

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def make_certificates(directory):
    """A CA, and a server certificate it signed for 127.0.0.1 and localhost; returns the paths
    of the CA, the server certificate and its key. Two days: long enough for any test run."""
    ca_key, ca = os.path.join(directory, "ca.key"), os.path.join(directory, "ca.pem")
    key, csr, certificate = (os.path.join(directory, name) for name in ("server.key", "server.csr", "server.pem"))
    extensions = os.path.join(directory, "server.ext")
    with open(extensions, "w") as file:
        file.write("subjectAltName = DNS:localhost, IP:127.0.0.1\n"
                   "basicConstraints = critical, CA:FALSE\n"
                   "keyUsage = critical, digitalSignature, keyEncipherment\n"
                   "extendedKeyUsage = serverAuth\n")

    def openssl(*arguments):
        subprocess.run(["openssl", *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)

    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=Quotebook test mail CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", csr, "-subj", "/CN=localhost")
    openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
            "-out", certificate, "-days", "2", "-extfile", extensions)
    return ca, certificate, key


class Handler:
    """Keeps every accepted message in the maildir; optionally refuses every recipient."""

    def __init__(self, maildir, fail_rcpt):
        self.maildir = maildir
        self.fail_rcpt = fail_rcpt
        existing = [int(name[:-4]) for name in os.listdir(maildir) if name.endswith(".eml") and name[:-4].isdigit()]
        self.count = max(existing, default=0)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.fail_rcpt is not None:
            return f"{self.fail_rcpt} {'4.3.0 try again later' if self.fail_rcpt < 500 else '5.1.1 recipient refused'}"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        name = f"{self.count:04d}.eml"
        temporary = os.path.join(self.maildir, f".{name}.tmp")
        with open(temporary, "wb") as file:
            file.write(envelope.content)
        os.rename(temporary, os.path.join(self.maildir, name))
        with open(os.path.join(self.maildir, "index.jsonl"), "a") as index:
            index.write(json.dumps({"file": name, "mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos}) + "\n")
        return "250 Message accepted for delivery"


def authenticator_for(user, password):
    def authenticate(server, session, envelope, mechanism, auth_data):
        accepted = (isinstance(auth_data, LoginPassword)
                    and auth_data.login == user.encode() and auth_data.password == password.encode())
        # handled=False: aiosmtpd then answers a refusal itself (535 5.7.8); its default, True,
        # would leave the client waiting for a reply that never comes.
        return AuthResult(success=accepted, handled=False)
    return authenticate


async def serve(arguments, tls_directory):
    os.makedirs(arguments.maildir, exist_ok=True)
    ca = "-"
    tls_context = None
    if not arguments.no_tls:
        import ssl
        ca, certificate, key = make_certificates(tls_directory)
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(certificate, key)
    handler = Handler(arguments.maildir, arguments.fail_rcpt)
    authenticator = authenticator_for(arguments.user, arguments.password)

    def factory():
        return SMTP(handler, hostname="quotebook-test-relay", tls_context=tls_context,
                    require_starttls=not arguments.no_tls, auth_require_tls=not arguments.no_tls,
                    authenticator=authenticator, timeout=60)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(factory, "127.0.0.1", arguments.port)
    port = server.sockets[0].getsockname()[1]
    stop = asyncio.Event()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)
    url = f"smtp://{quote(arguments.user, safe='')}:{quote(arguments.password, safe='')}@127.0.0.1:{port}"
    print(f"{url} {ca}", flush=True)
    await stop.wait()
    server.close()
    await server.wait_closed()


def main():
    parser = argparse.ArgumentParser(description="A real SMTP relay for the mail tests.")
    parser.add_argument("--maildir", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-dir")
    parser.add_argument("--no-tls", action="store_true")
    parser.add_argument("--fail-rcpt", type=int, choices=range(400, 600), metavar="CODE")
    arguments = parser.parse_args()
    tls_directory = arguments.tls_dir or tempfile.mkdtemp(prefix="quotebook-smtp-tls-")
    os.makedirs(tls_directory, exist_ok=True)
    try:
        asyncio.run(serve(arguments, tls_directory))
    finally:
        if not arguments.tls_dir:
            shutil.rmtree(tls_directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
