#!/usr/bin/env python3
"""The webhook's latency with and without many event-stream clients: wrk posts distinct signed
notifications at a steady rate (16 connections, each pausing 100 ms: well below what two cores
verify, so latency is the server's, not a queue's) for a fixed time to a fresh ledger, once alone
and once while STREAMS clients follow GET /v1/events/stream. Reports both p50/p99 and whether every stream received every
stored event (each once, in order). Exit 1 on any error, a lost event, or a p99 more than 20%
(and 2 ms) worse with the streams.

Runs alternate (alone, with streams) PAIRS times; the best p99 of each kind is compared, since
on a shared machine the worst runs measure the neighbours.

Usage: load-feed.py SUBLEDGER_BINARY [--streams 200] [--seconds 10] [--customers 3000] [--pairs 2]
"""
import json, os, re, selectors, shutil, socket, subprocess, sys, tempfile, threading, time, http.client

def option(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

ID = re.compile(rb"(?:^|\n)id: (\d+)\n")

class Streams(threading.Thread):
    """Many stream clients on one thread: each counts the ids it receives and checks their order."""
    def __init__(self, port, count):
        super().__init__(daemon=True)
        self.selector, self.state, self.stop = selectors.DefaultSelector(), {}, threading.Event()
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /v1/events/stream HTTP/1.1\r\nHost: x\r\n\r\n")
            s.setblocking(False)
            self.state[s] = {"buffer": b"", "ids": 0, "last": -1, "disorder": 0, "closed": False}
            self.selector.register(s, selectors.EVENT_READ)

    def run(self):
        # The clients stand in for consumers on other machines: niced, so that on a small shared
        # machine their parsing does not take the cores from the server being measured.
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        while not self.stop.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                s, st = key.fileobj, self.state[key.fileobj]
                try:
                    chunk = s.recv(1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    st["closed"] = True; self.selector.unregister(s); continue
                buffer = st["buffer"] + chunk
                end = buffer.rfind(b"\n\n") + 2
                for match in ID.finditer(buffer, 0, end):
                    position = int(match.group(1))
                    st["disorder"] += position <= st["last"]
                    st["last"], st["ids"] = position, st["ids"] + 1
                st["buffer"] = buffer[end:]

def run(binary, work, streams, seconds):
    data, port = tempfile.mkdtemp(dir=work, prefix="data-") + "/data", free_port()
    subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                    "--root", work + "/sim/root.cer"], check=True, capture_output=True)
    server = subprocess.Popen([binary, "--data", data, "serve", "--listen", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2); c.request("GET", "/healthz")
                if c.getresponse().status == 200: break
            except OSError:
                time.sleep(0.05)
        followers = Streams(port, streams) if streams else None
        if followers: followers.start()
        wrk = subprocess.run(["wrk", "-t1", "-c16", f"-d{seconds}s", "--latency", "-s", "Tools/wrk-post-paced.lua", f"http://127.0.0.1:{port}"],
                             capture_output=True, text=True, env={**os.environ, "NOTIFICATIONS": work + "/sim/notifications.jsonl"})
        posted = re.search(r"posted (\d+) requests, (\d+) non-2xx, p50 ([\d.]+) ms, p99 ([\d.]+) ms", wrk.stdout)
        if not posted: raise SystemExit("load-feed: wrk said " + wrk.stdout + wrk.stderr)
        rss = int(open(f"/proc/{server.pid}/status").read().split("VmRSS:")[1].split()[0]) // 1024
        fields = open(f"/proc/{server.pid}/stat").read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        stored, received = None, None
        if followers:
            # Requests wrk left in flight are still being stored: count once the count holds still.
            while True:
                listing = subprocess.run([binary, "--data", data, "events", "--format", "jsonl"], capture_output=True, text=True, check=True)
                if stored == len(listing.stdout.splitlines()): break
                stored = len(listing.stdout.splitlines())
                time.sleep(1)
            deadline = time.time() + 60
            while time.time() < deadline and any(st["ids"] < stored for st in followers.state.values()):
                time.sleep(0.2)
            followers.stop.set()
            received = [st["ids"] for st in followers.state.values()]
            disorder = sum(st["disorder"] for st in followers.state.values())
            closed = sum(st["closed"] for st in followers.state.values())
            if min(received) != stored or max(received) != stored or disorder or closed:
                raise SystemExit(f"load-feed: streams received {min(received)}..{max(received)} of {stored} events, {disorder} out of order, {closed} closed")
        return {"requests": int(posted.group(1)), "errors": int(posted.group(2)), "p50": float(posted.group(3)), "p99": float(posted.group(4)), "rss": rss, "cpu": cpu, "stored": stored}
    finally:
        server.terminate(); server.wait()

def main():
    binary = os.path.abspath(sys.argv[1])
    streams, seconds, customers = option("--streams", 200), option("--seconds", 10), option("--customers", 3000)
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    work = tempfile.mkdtemp(prefix="subledger-load-feed-")
    try:
        subprocess.run([binary, "simulate", "--customers", str(customers), "--months", "12", "--seed", "7", "--out", work + "/sim"], check=True, capture_output=True)
        # Alternated, so that a change in the machine's other load falls on both alike.
        results = {"alone": [], "streams": []}
        for _ in range(option("--pairs", 2)):
            results["alone"].append(run(binary, work, 0, seconds))
            results["streams"].append(run(binary, work, streams, seconds))
        for name, runs in results.items():
            for result in runs:
                print(f"load-feed: webhook {name if name == 'alone' else f'beside {streams} streams'}: {result['requests']} posted in {seconds}s, "
                      f"p50 {result['p50']:.2f} ms, p99 {result['p99']:.2f} ms, server CPU {result['cpu']:.1f} s, RSS {result['rss']} MB")
        print(f"load-feed: each of {streams} streams received every stored event, in order, in every run")
        if any(r["errors"] for runs in results.values() for r in runs): raise SystemExit("load-feed: the webhook answered errors")
        best = {name: min(r["p99"] for r in runs) for name, runs in results.items()}
        print(f"load-feed: best p99 alone {best['alone']:.2f} ms, beside the streams {best['streams']:.2f} ms")
        if best["streams"] > best["alone"] * 1.2 + 2: raise SystemExit("load-feed: FAILED: the streams moved the webhook's p99 by more than 20%")
        print("load-feed: passed")
    finally:
        shutil.rmtree(work, ignore_errors=True)

main()
