#!/usr/bin/env python3
"""hostile.py - hold hostile HTTP connections open against loopback ports.

For bench/soak.sh (issue 13): a third of the connections never send a byte,
a third are slowloris requests (the request line, then one more header byte
every INTERVAL seconds), a third are POSTs whose body stops after a few
bytes and then trickles. Every connection the server closes is opened again,
at most RATE per second. Loopback only, bounded in count and time (it exits
after --seconds, or on SIGTERM/SIGINT). Prints one line when all
connections have been opened once, and a count line on exit; --status
FILE is rewritten every second with "open=N opened=M dropped=K".

usage: hostile.py [--count N] [--seconds S] [--rate R] [--interval I]
                  [--status FILE] PORT...
"""
import argparse
import errno
import os
import selectors
import signal
import socket
import sys
import time

SLOW_HEAD = b"POST / HTTP/1.0\r\nHost: 127.0.0.1\r\nX-Slow: "
BODY_HEAD = (b"POST / HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: text/acl\r\n"
             b"Content-Length: 4000\r\n\r\n( play m1 ")
KINDS = ("idle", "slowloris", "half-body")


class Conn:
    def __init__(self, port, kind):
        self.port, self.kind = port, kind
        self.sock = None
        self.head_sent = False
        self.next_byte = 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ports", type=int, nargs="+")
    ap.add_argument("--count", type=int, default=600, help="connections held (all ports)")
    ap.add_argument("--seconds", type=float, default=3600, help="exit after this long")
    ap.add_argument("--rate", type=float, default=1000, help="(re)connections per second at most")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between trickled bytes")
    ap.add_argument("--status", help="file rewritten every second with the counts")
    args = ap.parse_args()
    count = max(0, min(args.count, 20000))

    stop = False

    def on_signal(_sig, _frame):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    conns = [Conn(args.ports[i % len(args.ports)], KINDS[(i // len(args.ports)) % 3]) for i in range(count)]
    sel = selectors.DefaultSelector()
    t0 = time.monotonic()
    made = opened = dropped = 0
    announced = False
    status_at = 0.0

    def close(c, by_server):
        nonlocal dropped
        sel.unregister(c.sock)
        c.sock.close()
        c.sock = None
        if by_server:
            dropped += 1

    while not stop and time.monotonic() - t0 < args.seconds:
        now = time.monotonic()
        allowed = 100 + int((now - t0) * args.rate)
        for c in conns:
            if c.sock is None and made < allowed:
                made += 1
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                err = s.connect_ex(("127.0.0.1", c.port))
                if err not in (0, errno.EINPROGRESS):
                    s.close()
                    continue
                c.sock, c.head_sent, c.next_byte = s, False, now + args.interval
                sel.register(s, selectors.EVENT_READ, c)
                opened += 1
            if c.sock is None or c.kind == "idle":
                continue
            try:
                if not c.head_sent:
                    head = SLOW_HEAD if c.kind == "slowloris" else BODY_HEAD
                    if c.sock.send(head) == len(head):
                        c.head_sent = True
                elif now >= c.next_byte and c.sock.send(b"a") == 1:
                    c.next_byte = now + args.interval
            except OSError:
                pass  # not connected yet, or being closed: the read side tells
        if not announced and opened >= count:
            announced = True
            print(f"hostile: holding {count} connections on ports {' '.join(map(str, args.ports))}", flush=True)
        if args.status and now >= status_at:
            status_at = now + 1.0
            held = sum(1 for c in conns if c.sock is not None)
            with open(args.status + ".tmp", "w") as f:
                f.write(f"open={held} opened={opened} dropped={dropped}\n")
            os.replace(args.status + ".tmp", args.status)
        for key, _ in sel.select(timeout=0.05):
            c = key.data
            try:
                data = c.sock.recv(512)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                close(c, True)
    for c in conns:
        if c.sock is not None:
            close(c, False)
    print(f"hostile: {opened} connections opened, {dropped} closed by the servers", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
