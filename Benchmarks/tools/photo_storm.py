#!/usr/bin/env python3
"""A photo-upload storm against a real Quotebook (issue 19): CLIENTS signed-in people each upload
a phone-sized JPEG of about PHOTO_MIB MiB at once, paced as phones on equal links would send
(RATE KiB/s each, CHUNK bytes a step on one schedule, so every body is in flight at once), while
tools/openloop.c sends GET / at GET_RATE a second (open loop: latency counts from when each was
due). The server's VmRSS is sampled every 10 ms and its VmHWM read at the end.

One round: a fresh data directory and server (the binary given, --port 0), CLIENTS sign-ups
(each a real session and the edit page's CSRF token), the storm, then a check that every person
who got a 303 has a photo served at /users/NAME/photo. Prints one JSON object.

usage: photo_storm.py QUOTEBOOK_BIN OPENLOOP_BIN PHOTO_FILE LOG_PREFIX
env:   CLIENTS=20 RATE=2048 CHUNK=65536 GET_RATE=200 GET_CONNECTIONS=4
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

CLIENTS = int(os.environ.get("CLIENTS", "20"))
RATE = int(os.environ.get("RATE", "2048")) * 1024
CHUNK = int(os.environ.get("CHUNK", "65536"))
GET_RATE = int(os.environ.get("GET_RATE", "200"))
GET_CONNECTIONS = int(os.environ.get("GET_CONNECTIONS", "4"))
BOUNDARY = "----QuotebookPhotoStorm7MA4YWxkTrZu0gW"


def start_server(binary, log_prefix):
    data = tempfile.mkdtemp(prefix="quotebook-photos.")
    out = open(log_prefix + ".out", "w")
    err = open(log_prefix + ".err", "w")
    process = subprocess.Popen(
        [binary, "--port", "0", "--data", data, "--log-level", "notice",
         "--sign-ups-per-client", "1000", "--sign-ins-per-client", "1000"],
        stdout=out, stderr=err, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + "/..")
    deadline = time.time() + 20
    while time.time() < deadline:
        with open(log_prefix + ".out") as log:
            match = re.search(r"Quotebook listening on http://[^:]+:(\d+)", log.read())
        if match:
            return process, int(match.group(1)), data
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit("the server did not start; see " + log_prefix + ".err")


def request(port, method, target, cookie="", body=b"", content_type=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Cookie": cookie} if cookie else {}
    if content_type:
        headers["Content-Type"] = content_type
    connection.request(method, target, body=body or None, headers=headers)
    response = connection.getresponse()
    payload = response.read()
    cookies = [value.split(";", 1)[0] for name, value in response.getheaders() if name.lower() == "set-cookie"]
    connection.close()
    return response.status, payload.decode("utf-8", "replace"), cookies


def token_of(page):
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def sign_up(port, name):
    jar = {}
    status, page, cookies = request(port, "GET", "/signup")
    jar.update(cookie.split("=", 1) for cookie in cookies)
    cookie = "; ".join(f"{k}={v}" for k, v in jar.items())
    form = (f"username={name}&display_name={name}&password=correct+horse+battery"
            f"&password_confirmation=correct+horse+battery&csrf_token={token_of(page)}")
    status, _, cookies = request(port, "POST", "/signup", cookie, form.encode(), "application/x-www-form-urlencoded")
    assert status == 303, f"sign-up of {name}: {status}"
    jar.update(cookie.split("=", 1) for cookie in cookies)
    cookie = "; ".join(f"{k}={v}" for k, v in jar.items() if v)
    status, page, _ = request(port, "GET", "/profile/edit", cookie)
    assert status == 200, f"edit page of {name}: {status}"
    return cookie, token_of(page)


def rss_kib(pid, field="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    binary, openloop, photo_file, log_prefix = sys.argv[1:5]
    photo = open(photo_file, "rb").read()
    process, port, data = start_server(binary, log_prefix)
    try:
        people = [sign_up(port, f"phone{index}") for index in range(CLIENTS)]
        uploads = []
        for index, (cookie, token) in enumerate(people):
            body = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n{token}\r\n"
                    f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"IMG_{index}.jpg\"\r\n"
                    f"Content-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{BOUNDARY}--\r\n".encode()
            head = (f"POST /profile/photo HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n"
                    f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {len(body)}\r\n"
                    f"Connection: close\r\n\r\n").encode()
            uploads.append(head + body)

        samples = []
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                samples.append(rss_kib(process.pid))
                time.sleep(0.01)

        sampler = threading.Thread(target=sample)
        sampler.start()
        baseline = rss_kib(process.pid)
        duration = max(5, int(len(uploads[0]) / RATE) + 15)
        getter = subprocess.Popen(
            [openloop, "-p", str(port), "-r", str(GET_RATE), "-c", str(GET_CONNECTIONS), "-d", str(duration), "-w", "1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)  # the GETs' warm-up second, then a little before the storm

        sockets = [socket.create_connection(("127.0.0.1", port)) for _ in uploads]
        results = [None] * len(uploads)
        barrier = time.monotonic()
        step = CHUNK / RATE

        def upload(index):
            connection, message = sockets[index], uploads[index]
            sent, steps = 0, 0
            try:
                while sent < len(message):
                    due = barrier + steps * step
                    pause = due - time.monotonic()
                    if pause > 0:
                        time.sleep(pause)
                    connection.sendall(message[sent:sent + CHUNK])
                    sent += CHUNK
                    steps += 1
                written = time.monotonic()
                answer = b""
                while b"\r\n" not in answer:
                    more = connection.recv(65536)
                    if not more:
                        break
                    answer += more
                status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
                results[index] = (status, written - barrier, time.monotonic() - barrier)
            except OSError as error:
                results[index] = (0, None, time.monotonic() - barrier, str(error))
            finally:
                connection.close()

        threads = [threading.Thread(target=upload, args=(index,)) for index in range(len(uploads))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        storm_seconds = time.monotonic() - barrier
        time.sleep(1)
        after = rss_kib(process.pid)
        stop.set()
        sampler.join()
        hwm = rss_kib(process.pid, "VmHWM")
        gets, get_errors = getter.communicate(timeout=duration + 60)
        get = json.loads(gets)
        statuses = {}
        for result in results:
            statuses[str(result[0])] = statuses.get(str(result[0]), 0) + 1
        served = 0
        for index in range(CLIENTS):
            status, _, _ = request(port, "GET", f"/users/phone{index}/photo")
            served += status == 200
        print(json.dumps({
            "clients": CLIENTS, "photo_bytes": len(photo), "rate_kib_s": RATE // 1024, "chunk": CHUNK,
            "rss_baseline_kib": baseline, "rss_peak_sampled_kib": max(samples or [0]), "hwm_kib": hwm,
            "rss_peak_kib": max(max(samples or [0]), hwm), "rss_after_kib": after,
            "statuses": statuses, "photos_served": served, "storm_s": round(storm_seconds, 2),
            "all_written_s": round(max((r[1] or 0) for r in results), 2),
            "get": {key: get.get(key) for key in ("target_rate", "completed", "errors", "non2xx", "p50_ms", "p99_ms", "p999_ms", "max_ms")},
            "server_alive": process.poll() is None,
        }))
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        subprocess.run(["rm", "-rf", data])


if __name__ == "__main__":
    main()
