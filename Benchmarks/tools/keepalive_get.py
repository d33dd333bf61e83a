#!/usr/bin/env python3
"""Sends COUNT requests for PATH one after another on one keep-alive connection to 127.0.0.1:PORT
and reads each whole response (Content-Length framing); exits non-zero on anything but 200.

usage: keepalive_get.py PORT COUNT [PATH]"""
import socket
import sys


def main() -> int:
    port, count = int(sys.argv[1]), int(sys.argv[2])
    path = sys.argv[3] if len(sys.argv) > 3 else "/"
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", port), timeout=120) as connection:
        buffer = b""
        for _ in range(count):
            connection.sendall(request)
            while b"\r\n\r\n" not in buffer:
                buffer += connection.recv(65536) or sys.exit("closed early")
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                sys.exit(f"unexpected: {head[:40]!r}")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
            while len(buffer) < length:
                buffer += connection.recv(65536) or sys.exit("closed early")
            buffer = buffer[length:]
    return 0


if __name__ == "__main__":
    sys.exit(main())
