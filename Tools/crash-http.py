#!/usr/bin/env python3
"""kill -9 test of the webhook: a client posts signed notifications and records every 200; the
server is killed at a random moment; after a restart, every acknowledged notification must be in
the ledger (re-posting it answers "duplicate") and `verify` must pass. Loopback only, bounded.

The server writes a background projection snapshot every 40 events, so kills also land in the
middle of snapshot writes; every third run also kills a `subledger rebuild` part-way. After each
run the projection the ledger opens with (snapshot + the log after it) must answer exactly as a
fresh rebuild from the log does.

Usage: crash-http.py SUBLEDGER_BINARY --runs N
"""
import http.client, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, start

def post(connection, body):
    connection.request("POST", "/v1/notifications/appstore", body=body, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    return response.status, json.loads(response.read() or b"{}")

def answers(binary, data):
    """What the ledger answers as it opens: reports over the whole simulated period and stats."""
    def run(*arguments):
        result = subprocess.run([binary, "--data", data, *arguments, "--json"], capture_output=True, text=True)
        if result.returncode != 0: raise SystemExit(f"crash-http: {' '.join(arguments)} failed: {result.stderr.strip()}")
        return json.loads(result.stdout)
    stats = run("stats")
    return {"revenue": run("report", "revenue", "--from", "2026-01-01", "--to", "2026-07-31"),
            "churn": run("report", "churn", "--from", "2026-01-01", "--to", "2026-07-31"),
            "mrr": run("report", "mrr", "--at", "2026-05-01"),
            "customers": stats["customers"], "events": stats["events"]}

def kill_a_rebuild(binary, data):
    """Starts `subledger rebuild` and kills it at a random moment (often mid-snapshot)."""
    rebuild = subprocess.Popen([binary, "--data", data, "rebuild"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(random.uniform(0.0, 0.25))
    rebuild.kill(); rebuild.wait()

def main():
    binary, runs = sys.argv[1], int(sys.argv[sys.argv.index("--runs") + 1])
    work = tempfile.mkdtemp(prefix="subledger-crash-http-")
    try:
        subprocess.run([binary, "simulate", "--customers", "300", "--months", "6", "--seed", "3", "--out", work + "/sim"], check=True, capture_output=True)
        data = work + "/data"
        subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                        "--root", work + "/sim/root.cer"], check=True, capture_output=True)
        bodies = [line for line in open(work + "/sim/notifications.jsonl").read().split("\n") if line]
        acknowledged, next_line, passed, failed, checked = [], 0, 0, 0, 0
        for run in range(runs):
            port = free_port()
            server = start(binary, data, port, "--snapshot-every", "40", who="crash-http")
            killer = threading.Timer(random.uniform(0.05, 0.6), lambda: os.kill(server.pid, signal.SIGKILL))
            killer.start()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                while next_line < len(bodies):
                    status, answer = post(connection, bodies[next_line])
                    if status == 200: acknowledged.append(next_line)
                    next_line += 1
            except (OSError, http.client.HTTPException):
                pass  # killed mid-request: that one was not acknowledged
            killer.cancel()
            if server.poll() is None:
                server.kill()  # the bodies ran out before the timer: kill now
            server.wait()
            # Restart: what this run acknowledged must be there (a re-post is a duplicate); the
            # last run checks every acknowledgement of the campaign.
            server = start(binary, data, port, "--snapshot-every", "40", who="crash-http")
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            to_check = acknowledged if run == runs - 1 else acknowledged[checked:]
            checked = len(acknowledged)
            missing = [i for i in to_check if post(connection, bodies[i])[1].get("status") != "duplicate"]
            server.send_signal(signal.SIGTERM); server.wait()
            verify = subprocess.run([binary, "--data", data, "verify", "--json"], capture_output=True, text=True)
            if run % 3 == 2: kill_a_rebuild(binary, data)
            opened = answers(binary, data)
            subprocess.run([binary, "--data", data, "rebuild"], check=True, capture_output=True)
            rebuilt = answers(binary, data)
            if missing or verify.returncode != 0 or opened != rebuilt:
                failed += 1
                print(f"crash-http: run {run + 1}: {len(missing)} acknowledged notifications missing; verify exit {verify.returncode}; "
                      f"projection {'equals' if opened == rebuilt else 'DIFFERS FROM'} a fresh rebuild", file=sys.stderr)
            else:
                passed += 1
            if next_line >= len(bodies): next_line = 0
        print(f"crash-http: {len(acknowledged)} acknowledgements checked after {runs} kills of the server and {runs // 3} of a rebuild; projections compared with a fresh rebuild after each")
        print(f"crash-http: {passed} passed, {failed} failed")
        return 0 if failed == 0 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
