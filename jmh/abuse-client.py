#!/usr/bin/env python3
"""The socket-level parts of jmh/abuse-compare.sh's abusive client, each bounded in time.

  abuse-client.py stall HOST PORT SOCKETS HOLD_SECONDS
      opens SOCKETS connections, sends each the first 8 bytes of a 100-byte start-up packet and
      nothing more for HOLD_SECONDS; prints how many the server closed meanwhile, and the
      SQLSTATEs it sent them.
  abuse-client.py subscribe HOST PORT USER DB SQL LOG HOLD_SECONDS
      starts up (trust authentication), sends SQL (a COPY (SUBSCRIBE ...) TO STDOUT) and reads
      nothing more until the server's log LOG says it disconnected this connection or HOLD_SECONDS
      pass; then reads what is left, for at most 20 s, to find how the stream ended. Prints the
      SQLSTATE the server ended it with (or "open" if it was still streaming) and after how long.

One result line on standard output, "ACTION SQLSTATE DETAIL", which the script counts.
"""
import os
import select
import socket
import struct
import sys
import time


def error_fields(payload):
    """The fields of an ErrorResponse's payload, by their one-letter code."""
    fields = {}
    for part in payload.split(b"\0"):
        if part:
            fields[chr(part[0])] = part[1:].decode("utf-8", "replace")
    return fields


def messages(buf):
    """The complete backend messages at the head of buf, and what is left of it."""
    out = []
    at = 0
    while len(buf) - at >= 5:
        length = struct.unpack_from("!I", buf, at + 1)[0]
        if len(buf) - at < 1 + length:
            break
        out.append((buf[at:at + 1], buf[at + 5:at + 1 + length]))
        at += 1 + length
    return out, buf[at:]


def stall(host, port, count, hold):
    socks = []
    refused = 0
    for _ in range(count):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect((host, port))
            s.sendall(struct.pack("!II", 100, 196608))  # says 100 bytes follow; sends 4 of them
            s.setblocking(False)
            socks.append(s)
        except OSError:
            refused += 1
            s.close()
    closed = {}
    codes = {}
    deadline = time.monotonic() + hold
    while time.monotonic() < deadline and len(closed) < len(socks):
        open_ = [s for s in socks if s not in closed]
        ready, _, _ = select.select(open_, [], [], max(0.0, min(0.5, deadline - time.monotonic())))
        for s in ready:
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            msgs, _ = messages(data)
            for kind, payload in msgs:
                if kind == b"E":
                    code = error_fields(payload).get("C", "?")
                    codes[code] = codes.get(code, 0) + 1
            if not data or msgs:
                closed[s] = True
    for s in socks:
        s.close()
    code_text = ",".join(f"{c}x{n}" for c, n in sorted(codes.items())) or "none"
    state = "closed" if len(closed) == len(socks) and socks else "held"
    print(f"stall {state} {len(socks)} stalled for up to {hold:g} s, {len(closed)} closed by the server"
          f" (errors sent: {code_text}), {refused} not accepted")


def subscribe(host, port, user, db, sql, log, hold):
    started = time.monotonic()
    s = socket.create_connection((host, port), timeout=10)
    params = b"user\0" + user.encode() + b"\0database\0" + db.encode() + b"\0\0"
    s.sendall(struct.pack("!II", 8 + len(params), 196608) + params)
    buf = b""
    pid = None
    while True:  # the start-up exchange, read in full
        data = s.recv(65536)
        if not data:
            print("subscribe refused the server closed the connection during start-up")
            return
        msgs, buf = messages(buf + data)
        done = False
        for kind, payload in msgs:
            if kind == b"R" and struct.unpack("!I", payload[:4])[0] != 0:
                print("subscribe refused the server asked for a password")
                return
            if kind == b"E":
                print(f"subscribe {error_fields(payload).get('C', '?')} at start-up: {error_fields(payload).get('M', '')}")
                return
            if kind == b"K":
                pid = struct.unpack("!I", payload[:4])[0]
            if kind == b"Z":
                done = True
        if done:
            break
    # the query, then nothing is read: the socket's buffers fill and the server's writes block
    q = sql.encode() + b"\0"
    s.sendall(b"Q" + struct.pack("!I", 4 + len(q)) + q)
    needle = f"connection {pid}: a COPY (SUBSCRIBE".encode()
    deadline = started + hold
    seen = None
    while time.monotonic() < deadline:
        try:
            with open(log, "rb") as f:
                if needle in f.read():
                    seen = time.monotonic() - started
                    break
        except OSError:
            pass
        time.sleep(0.5)
    # now read what the server left in the socket, to see how the stream ended
    s.settimeout(1)
    drain_deadline = time.monotonic() + 20
    code = None
    buf = b""
    ended = False
    received = 0
    while time.monotonic() < drain_deadline:
        try:
            data = s.recv(1 << 20)
        except socket.timeout:
            if seen is None:
                break  # nothing more comes and no disconnection was logged: still streaming
            continue
        except OSError:
            ended = True
            break
        if not data:
            ended = True
            break
        received += len(data)
        msgs, buf = messages(buf + data)
        for kind, payload in msgs:
            if kind == b"E":
                code = error_fields(payload).get("C")
    s.close()
    if seen is not None or ended:
        when = f"{seen:.1f} s" if seen is not None else "?"
        print(f"subscribe {code or 'closed'} disconnected by the server after {when} (pid {pid}, {received} bytes read afterwards)")
    else:
        print(f"subscribe open not disconnected within {hold:g} s (pid {pid}; the client closed it)")


def main(argv):
    if len(argv) >= 5 and argv[1] == "stall":
        stall(argv[2], int(argv[3]), int(argv[4]), float(argv[5]))
    elif len(argv) >= 9 and argv[1] == "subscribe":
        subscribe(argv[2], int(argv[3]), argv[4], argv[5], argv[6], argv[7], float(argv[8]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
