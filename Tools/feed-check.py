#!/usr/bin/env python3
"""The event feed end to end: a server receives signed notifications over its webhook and is
killed with kill -9 and restarted part-way; meanwhile
- clients follow GET /v1/events/stream (all events, with and without their signed evidence, and
  one product's renewals), drop their connections at random moments and reconnect with
  Last-Event-ID: each must receive every event it asked for exactly once, in log order;
- the SQLite consumer from docs/audit.md (run as written there) is killed and restarted too: its
  table must end up holding exactly the ledger's events.
"The ledger's events" is what `subledger events --format jsonl` lists once everything is in.

Usage: feed-check.py SUBLEDGER_BINARY [--kills N]
"""
import json, os, random, re, shutil, socket, sqlite3, subprocess, sys, tempfile, threading, time, http.client
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, start

class Follower(threading.Thread):
    """Follows the stream, hanging up after a random number of events and resuming after the last id."""
    def __init__(self, port, query=""):
        super().__init__(daemon=True)
        self.port, self.query, self.ids, self.stop, self.reconnects = port, query, [], threading.Event(), 0

    def run(self):
        while not self.stop.is_set():
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
                last = f"Last-Event-ID: {self.ids[-1]}\r\n" if self.ids else ""
                s.sendall(f"GET /v1/events/stream{self.query} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n{last}\r\n".encode())
                budget, buffer = random.randint(1, 60), b""
                while budget > 0 and not self.stop.is_set():
                    try:
                        chunk = s.recv(65536)
                    except socket.timeout:
                        continue
                    if not chunk: break
                    buffer += chunk
                    while b"\n\n" in buffer and budget > 0:
                        block, buffer = buffer.split(b"\n\n", 1)
                        for line in block.split(b"\n"):
                            if line.startswith(b"id: "):
                                self.ids.append(int(line[4:])); budget -= 1
                s.close()
                self.reconnects += 1
            except OSError:
                time.sleep(0.1)

def main():
    binary = os.path.abspath(sys.argv[1])
    kills = int(sys.argv[sys.argv.index("--kills") + 1]) if "--kills" in sys.argv else 2
    here = os.path.dirname(os.path.abspath(__file__))
    consumer_code = re.search(r"## The event feed.*?```python\n(.*?)```", open(os.path.join(here, "../docs/audit.md")).read(), re.S).group(1)
    work = tempfile.mkdtemp(prefix="subledger-feed-check-")
    try:
        subprocess.run([binary, "simulate", "--customers", "80", "--months", "4", "--seed", "9", "--out", work + "/sim"], check=True, capture_output=True)
        data, port = work + "/data", free_port()
        subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                        "--root", work + "/sim/root.cer"], check=True, capture_output=True)
        lines = [l for l in open(work + "/sim/notifications.jsonl").read().splitlines() if l.strip()]
        third = len(lines) // 3
        with open(work + "/first.jsonl", "w") as f: f.write("\n".join(lines[:third]) + "\n")
        subprocess.run([binary, "--data", data, "ingest", work + "/first.jsonl"], check=True, capture_output=True)
        open(work + "/consumer.py", "w").write(consumer_code)
        consumer_command = [sys.executable, work + "/consumer.py", f"http://127.0.0.1:{port}", work + "/events.sqlite"]
        server = start(binary, data, port, who="feed-check")
        consumer = subprocess.Popen(consumer_command, stderr=subprocess.DEVNULL)
        follower = Follower(port); follower.start()
        renewals = Follower(port, "?type=renewed&product=pro.monthly"); renewals.start()
        # With its signed evidence, ~16 KB an event: a replay must not outgrow a stream's buffer.
        raw = Follower(port, "?raw=1"); raw.start()
        kill_at = sorted(random.sample(range(third, len(lines)), kills))
        for index, line in enumerate(lines[third:], start=third):
            if index in kill_at:
                server.kill(); server.wait()
                consumer.kill(); consumer.wait()
                server = start(binary, data, port, who="feed-check")
                consumer = subprocess.Popen(consumer_command, stderr=subprocess.DEVNULL)
            for attempt in range(50):
                try:
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    c.request("POST", "/v1/notifications/appstore", body=line, headers={"Content-Type": "application/json"})
                    if c.getresponse().status == 200: break
                except OSError:
                    time.sleep(0.1)
            else:
                raise SystemExit(f"feed-check: line {index + 1} was never acknowledged")
        listing = subprocess.run([binary, "--data", data, "events", "--format", "jsonl"], capture_output=True, text=True, check=True)
        expected = [int(json.loads(l)["position"]) for l in listing.stdout.splitlines()]
        listing = subprocess.run([binary, "--data", data, "events", "--type", "renewed", "--product", "pro.monthly", "--format", "jsonl"],
                                 capture_output=True, text=True, check=True)
        expected_renewals = [int(json.loads(l)["position"]) for l in listing.stdout.splitlines()]
        deadline = time.time() + 60
        stored = []
        while time.time() < deadline:
            stored = [row[0] for row in sqlite3.connect(work + "/events.sqlite").execute("SELECT position FROM events ORDER BY position")] \
                if os.path.exists(work + "/events.sqlite") else []
            if follower.ids[-1:] == expected[-1:] and raw.ids[-1:] == expected[-1:] and renewals.ids[-1:] == expected_renewals[-1:] \
                    and stored == expected: break
            time.sleep(0.2)
        follower.stop.set(); raw.stop.set(); renewals.stop.set(); consumer.kill(); server.terminate(); server.wait()
        problems = []
        if follower.ids != expected:
            duplicates = len(follower.ids) - len(set(follower.ids))
            problems.append(f"the follower got {len(follower.ids)} events ({duplicates} twice, in order: {follower.ids == sorted(follower.ids)}), the ledger holds {len(expected)}")
        if raw.ids != expected:
            problems.append(f"the follower of events with their evidence got {len(raw.ids)} events, the ledger holds {len(expected)}")
        if renewals.ids != expected_renewals or not expected_renewals:
            problems.append(f"the follower of pro.monthly renewals got {len(renewals.ids)} events, the ledger holds {len(expected_renewals)}")
        if stored != expected:
            problems.append(f"the consumer's table holds {len(stored)} events, the ledger {len(expected)}")
        if problems: raise SystemExit("feed-check: " + "; ".join(problems))
        print(f"feed-check: {len(expected)} events followed through {kills} kill -9 of server and consumer and {follower.reconnects} reconnects: each once, in order")
    finally:
        shutil.rmtree(work, ignore_errors=True)

main()
