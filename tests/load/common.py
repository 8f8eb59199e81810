"""Shared pieces of the load tests (issue 25): starting `arena serve` and `arena run` in the
background, reading their printed URLs, /metrics, a process's memory, and a small WebSocket
client (RFC 6455 text frames; the server's frames are unmasked, the client's masked).

Standard library only, loopback only; every wait has a deadline.
"""
import base64
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
import urllib.request


class Failure(Exception):
    """A load test's check failed: the message says which and with what figures."""


def run_main(main):
    """Runs a test's main: a Failure is printed and exits 1."""
    try:
        main()
    except Failure as e:
        print(f"FAILED: {e}")
        sys.exit(1)


def check(condition, message):
    if not condition:
        raise Failure(message)


def wait_for(predicate, timeout, what):
    """Polls predicate() until it returns a true value (returned), or fails after timeout s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise Failure(f"{what}: not within {timeout} s")


def synth_model(arena, path):
    """A tiny random model (the synth shape 'tiny', f32), made once."""
    if not os.path.exists(path):
        subprocess.run([arena, "synth", "--shape", "tiny", "--dtype", "f32", "-o", path],
                       check=True, timeout=120, stdout=subprocess.DEVNULL)
    return path


class Process:
    """A background arena command whose output goes to a log file."""

    def __init__(self, args, log_path, url_pattern):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        self.url = wait_for(lambda: self._find(url_pattern), 30, f"{args[1]} printing its URL")

    def _find(self, pattern):
        if self.proc.poll() is not None:
            raise Failure(f"arena exited with {self.proc.returncode} before printing its URL:\n"
                          + self.output())
        m = re.search(pattern, self.output())
        return m.group(1) if m else None

    def output(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def rss_mib(self):
        """Resident memory (VmRSS) in MiB, or 0 once the process is gone."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0

    def alive(self):
        return self.proc.poll() is None

    def stop(self, sig=None):
        if self.proc.poll() is None:
            if sig is None:
                self.proc.terminate()
            else:
                self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)
        self.log.close()


def start_serve(arena, model, log_path, *extra, port=0):
    args = [arena, "serve", "--model", model, "--port", str(port), "--threads", "1", *extra]
    return Process(args, log_path, r"at (http://127\.0\.0\.1:[0-9]+)/v1")


def http_get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def metrics(base_url):
    """The samples of /metrics as {name: value}, summed over their labels (histograms' series
    keep their suffixed names)."""
    _, text = http_get(base_url + "/metrics")
    values = {}
    for line in text.splitlines():
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? ([-+0-9.eEinfNa]+)$", line)
        if m:
            values[m.group(1)] = values.get(m.group(1), 0.0) + float(m.group(3))
    return values


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


class WebSocket:
    """A blocking WebSocket client for text frames, with a receive buffer size of choice (a small
    one makes a slow reader whose unread frames back up into the server's queue)."""

    def __init__(self, host, port, path="/ws", rcvbuf=None, timeout=10):
        self.sock = socket.socket()
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise Failure("WebSocket handshake: connection closed")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise Failure("WebSocket handshake refused: " + head.decode(errors="replace"))

    def send(self, obj):
        payload = json.dumps(obj).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        n = len(payload)
        header += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _take(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def recv(self):
        """The next text message as JSON; None for a close frame (EOFError when the socket ends).
        A message may come in several frames (Beast fragments at its write buffer's size): a text
        frame without FIN is followed by continuation frames up to the one with FIN."""
        message = None
        while True:
            b0, b1 = self._take(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._take(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._take(8))[0]
            payload = self._take(n)
            opcode, fin = b0 & 0x0F, bool(b0 & 0x80)
            if opcode == 0x8:
                return None
            if opcode == 0x1:
                message = payload
            elif opcode == 0x0 and message is not None:
                message += payload
            else:
                continue  # ping/pong: nothing a watcher needs
            if fin:
                return json.loads(message)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
