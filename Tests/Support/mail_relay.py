"""A real SMTP relay (Tests/Support/smtp_server.py on aiosmtpd: STARTTLS and AUTH) for the Python
tests that follow links from mail: the browser flow and the cluster test.

    relay = MailRelay(directory)           # starts it; relay.arguments go to quotebook
    message = relay.wait_for(to="ada@example.org", subject="Confirm")
    link = MailRelay.link(message, "/email/verify")
    relay.stop()

Every wait is bounded; it needs aiosmtpd (PyPI), which .ci/run installs.
"""
import email
import email.policy
import json
import os
import re
import select
import signal
import subprocess
import sys
import time

WAIT = 20  # seconds: the longest a mail may take to arrive


class MailRelay:
    def __init__(self, directory, fail_rcpt=None):
        self.maildir = os.path.join(directory, "mail")
        os.makedirs(self.maildir, exist_ok=True)
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "smtp_server.py")
        extra = ["--fail-rcpt", str(fail_rcpt)] if fail_rcpt else []
        self.process = subprocess.Popen(
            [sys.executable, script, "--maildir", self.maildir, "--user", "quotebook", "--password", "relay secret 1",
             "--tls-dir", os.path.join(directory, "tls"), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        if not ready:
            self.process.kill()
            raise AssertionError("the SMTP relay printed nothing within 30 s of starting")
        url, ca = self.process.stdout.readline().decode().split()
        self.url, self.ca = url, ca
        self.arguments = ["--smtp", url, "--smtp-ca", ca]

    def messages(self):
        """Every message received so far, oldest first, as email.message.EmailMessage."""
        index = os.path.join(self.maildir, "index.jsonl")
        if not os.path.exists(index):
            return []
        found = []
        with open(index) as lines:
            for line in lines:
                entry = json.loads(line)
                with open(os.path.join(self.maildir, entry["file"]), "rb") as file:
                    found.append(email.message_from_binary_file(file, policy=email.policy.default))
        return found

    def wait_for(self, to, subject, after=0, timeout=WAIT):
        """The first message after the first `after` ones to `to` whose subject contains `subject`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.messages()[after:]:
                if message["To"] == to and subject in message["Subject"]:
                    return message
            time.sleep(0.1)
        raise AssertionError(f"no mail to {to} about {subject!r} within {timeout} s; got "
                             f"{[(m['To'], m['Subject']) for m in self.messages()]}")

    @staticmethod
    def body(message):
        return message.get_body(preferencelist=("plain",)).get_content()

    @staticmethod
    def link(message, path):
        """The URL in `message`'s text whose path is `path`."""
        match = re.search(r"(https?://\S+" + re.escape(path) + r"\?token=[A-Za-z0-9_-]+)", MailRelay.body(message))
        if not match:
            raise AssertionError(f"no {path} link in the mail: {MailRelay.body(message)!r}")
        return match.group(1)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
