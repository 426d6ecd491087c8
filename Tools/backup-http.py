#!/usr/bin/env python3
"""kill -9 test of `subledger backup`: a client posts signed notifications to a serving ledger and
records every 200; a backup runs while it posts; then the server is killed. The backup must pass
`verify` and hold every notification acknowledged before the backup began (ingesting them into
the backup appends nothing: all are duplicates). Each run backs up into the same directory, so
runs after the first are incremental. Loopback only, bounded.

Usage: backup-http.py SUBLEDGER_BINARY [--runs N]
"""
import http.client, json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, start

def run_json(binary, *arguments):
    result = subprocess.run([binary, *arguments, "--json"], capture_output=True, text=True)
    return result.returncode, (json.loads(result.stdout) if result.stdout.strip() else None), result.stderr.strip()

def main():
    binary = sys.argv[1]
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 3
    work = tempfile.mkdtemp(prefix="subledger-backup-http-")
    try:
        subprocess.run([binary, "simulate", "--customers", "300", "--months", "6", "--seed", "5", "--out", work + "/sim"], check=True, capture_output=True)
        data, backup = work + "/data", work + "/backup"
        subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                        "--root", work + "/sim/root.cer"], check=True, capture_output=True)
        bodies = [line for line in open(work + "/sim/notifications.jsonl").read().split("\n") if line]
        per_run = len(bodies) // runs
        failed = 0
        for run in range(runs):
            port = free_port()
            server = start(binary, data, port, "--snapshot-every", "50", who="backup-http")
            acknowledged, stop = [], threading.Event()
            def post_all(lines):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                try:
                    for i in lines:
                        if stop.is_set(): return
                        connection.request("POST", "/v1/notifications/appstore", body=bodies[i], headers={"Content-Type": "application/json"})
                        response = connection.getresponse(); response.read()
                        if response.status == 200: acknowledged.append(i)
                except (OSError, http.client.HTTPException):
                    pass  # killed mid-request: that one was not acknowledged
            poster = threading.Thread(target=post_all, args=(range(run * per_run, (run + 1) * per_run),))
            poster.start()
            while len(acknowledged) < per_run // 3 and poster.is_alive(): time.sleep(0.005)
            before = list(acknowledged)
            code, summary, error = run_json(binary, "--data", data, "backup", "--to", backup)
            os.kill(server.pid, signal.SIGKILL); server.wait()
            stop.set(); poster.join()
            problems = []
            if code != 0 or not summary or not summary["verified"]:
                problems.append(f"backup exit {code}: {error}")
            verify_code, _, verify_error = run_json(binary, "--data", backup, "verify")
            if verify_code != 0: problems.append(f"verify of the backup exit {verify_code}: {verify_error}")
            with open(work + "/before.jsonl", "w") as f: f.write("\n".join(bodies[i] for i in before) + "\n")
            ingest_code, ingested, ingest_error = run_json(binary, "--data", backup, "ingest", work + "/before.jsonl")
            if ingest_code != 0 or ingested["duplicates"] != len(before) or ingested["appended"] != 0:
                problems.append(f"re-ingesting the {len(before)} notifications acknowledged before the backup: exit {ingest_code}, "
                                f"{ingested and ingested['appended']} appended, {ingested and ingested['duplicates']} duplicates {ingest_error}")
            if problems:
                failed += 1
                print(f"backup-http: run {run + 1}: " + "; ".join(problems), file=sys.stderr)
            else:
                print(f"backup-http: run {run + 1}: {len(before)} acknowledged before the backup, all in it; "
                      f"{summary['records']} records copied in {summary['seconds']} s, server killed after")
        print(f"backup-http: {runs - failed} passed, {failed} failed")
        return 0 if failed == 0 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
