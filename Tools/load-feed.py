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
import json, os, re, shutil, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, ready

def option(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default

ID = re.compile(rb"(?:^|\n)id: (\d+)\n")

class Streams:
    """Stream clients as niced curl processes writing to files (consumers stand on other machines
    in production; here they must not take the cores from the server being measured), checked
    from the files: every id once, in order."""
    def __init__(self, port, count, directory):
        self.files = [f"{directory}/stream-{index}.txt" for index in range(count)]
        self.processes = [subprocess.Popen(["nice", "-n", "19", "curl", "-sN", "-o", path, f"http://127.0.0.1:{port}/v1/events/stream"])
                          for path in self.files]

    def ids(self, path):
        try:
            return [int(match.group(1)) for match in ID.finditer(open(path, "rb").read())]
        except FileNotFoundError:
            return []

    def received(self):
        return [self.ids(path) for path in self.files]

    def stop(self):
        for process in self.processes: process.kill(); process.wait()

def run(binary, work, streams, seconds):
    data, port = tempfile.mkdtemp(dir=work, prefix="data-") + "/data", free_port()
    subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                    "--root", work + "/sim/root.cer"], check=True, capture_output=True)
    server = subprocess.Popen([binary, "--data", data, "serve", "--listen", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not ready(port, server): raise SystemExit("load-feed: the server did not start")
        followers = Streams(port, streams, tempfile.mkdtemp(dir=work, prefix="streams-")) if streams else None
        wrk = subprocess.run(["wrk", "-t1", "-c16", f"-d{seconds}s", "--latency", "-s", "Tools/wrk-post-notifications.lua", f"http://127.0.0.1:{port}"],
                             capture_output=True, text=True, env={**os.environ, "NOTIFICATIONS": work + "/sim/notifications.jsonl", "DELAY_MS": "100"})
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
            expected = [int(json.loads(line)["position"]) for line in listing.stdout.splitlines()]
            deadline = time.time() + 60
            while time.time() < deadline and any(len(ids) < stored for ids in followers.received()):
                time.sleep(0.5)
            received = followers.received()
            closed = sum(process.poll() is not None for process in followers.processes)
            followers.stop()
            wrong = sum(ids != expected for ids in received)
            if wrong or closed:
                raise SystemExit(f"load-feed: {wrong} streams did not receive exactly the {stored} stored events in order ({min(map(len, received))}..{max(map(len, received))} received), {closed} closed early")
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
