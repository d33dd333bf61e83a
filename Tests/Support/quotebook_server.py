"""The built `quotebook` executable as the Python tests run it: a server on a free port with its
own data directory, stopped with SIGTERM, and killed if a test leaves it running.

Shared by Tests/Browser/app_flow.py, Tests/Browser/live_flow.py and
Tests/Conformance/page_check.py and Tests/Cluster/cluster_test.py; it needs nothing outside the standard library.
"""
import select
import signal
import subprocess
from urllib.parse import urlsplit


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Server:
    def __init__(self, executable, root, data, port=0, arguments=(), stderr=subprocess.DEVNULL):
        """`arguments` go after the defaults (a later `--log-level` wins); `stderr` takes the log."""
        self.process = subprocess.Popen(
            [executable, "--port", str(port), "--data", data, "--root", root, "--log-level", "warning", *arguments],
            stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL)
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        if not ready:
            self.process.kill()
            raise AssertionError("the server printed nothing within 30 s of starting")
        line = self.process.stdout.readline().decode()
        check(line.startswith("Quotebook listening on http://"), f"no listening line, got {line!r}")
        self.url = line.strip().split(" on ")[1]
        address = urlsplit(self.url)
        self.host, self.port = address.hostname, address.port

    def stop(self):
        """SIGTERM, then the exit status must be 0 within 15 s."""
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError("the server did not stop within 15 s of SIGTERM")
        check(status == 0, f"SIGTERM exit status {status}")

    def kill_if_running(self):
        """For clean-up after a failure: no server outlives its test."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=15)
