#!/usr/bin/env python3
"""Disk-full campaign: the data directory on a small tmpfs (mounted by this script; needs root).
`subledger serve` receives signed notifications until the disk fills: it must answer 503 (so the
App Store retries), say so once on stderr, stay up, leave no partial frame (`verify` passes), and
accept the refused notifications with 200 once space returns (the tmpfs is grown), saying that too. Then, with room for the log but
not for the projection database to grow, the background fold fails: it must be counted on
/metrics and said once on stderr, and once space returns it must catch up by itself, with no read
and nothing posted, and say so. Loopback only, bounded.

Usage: disk-full-http.py SUBLEDGER_BINARY
"""
import http.client, json, os, signal, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, start

def fold_fails(binary, work, mount, bodies):
    """20 MB with all but 5 MB taken by another file: the log's next 4 MB fit, the database's
    growth does not."""
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", mount], check=True)
    data = mount + "/data"
    subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                    "--root", work + "/sim/root.cer"], check=True, capture_output=True)
    filler = mount + "/filler"
    free = os.statvfs(mount)
    with open(filler, "wb") as f: f.write(bytes(free.f_bavail * free.f_frsize - (5 << 20)))
    log_path = work + "/serve.log"
    port = free_port()
    server = None
    try:
        server = start(binary, data, port, who="disk-full-http", stderr=open(log_path, "w"))
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        def metric(name):
            """The sample of `name`, -1 when /metrics has none."""
            connection.request("GET", "/metrics")
            lines = connection.getresponse().read().decode().split("\n")
            return next((float(line.split(" ")[1]) for line in lines if line.startswith(name + " ")), -1)
        statuses = []
        for body in bodies[:40]:
            connection.request("POST", "/v1/notifications/appstore", body=body)
            response = connection.getresponse(); response.read(); statuses.append(response.status)
        failures, lag = metric("subledger_projection_fold_failures_total"), metric("subledger_projection_lag_events")
        said = open(log_path).read().count("could not fold")
        print(f"disk-full-http: with no room for the database, {statuses.count(200)} of {len(statuses)} stored, {int(failures)} folds failed, {int(lag)} events behind")
        checks = [("a failed fold is counted on /metrics and said on stderr once", failures > 0 and lag > 0 and said == 1)]
        # Idle, it is tried again once every 5 s: each failure scheduling its own retry piled them up.
        time.sleep(6)
        checks.append(("idle, a failing fold is tried again once every 5 s", metric("subledger_projection_fold_failures_total") - failures <= 2))
        os.remove(filler)
        # No read and nothing posted (a scrape folds nothing): the fold goes on by itself.
        deadline = time.time() + 20
        while metric("subledger_projection_lag_events") > 0 and time.time() < deadline: time.sleep(0.2)
        checks.append(("the fold catches up by itself once space returns, and says so",
                       metric("subledger_projection_lag_events") == 0 and "folds again" in open(log_path).read()))
        return checks
    finally:
        if server: server.kill(); server.wait()

def main():
    binary = sys.argv[1]
    if os.geteuid() != 0:
        print("disk-full-http: needs root to mount a tmpfs; skipped")
        print("disk-full-http: 0 passed, 0 failed")
        return 0
    work = tempfile.mkdtemp(prefix="subledger-diskfull-")
    mount = work + "/mnt"
    os.mkdir(mount)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount], check=True)
    server = None
    checks = []
    try:
        subprocess.run([binary, "simulate", "--customers", "400", "--months", "6", "--seed", "4", "--out", work + "/sim"], check=True, capture_output=True)
        data = mount + "/data"
        subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                        "--root", work + "/sim/root.cer"], check=True, capture_output=True)
        bodies = [line for line in open(work + "/sim/notifications.jsonl").read().split("\n") if line]
        port = free_port()
        full_log = work + "/serve-full.log"
        server = start(binary, data, port, who="disk-full-http", stderr=open(full_log, "w"))
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        def post(body):
            connection.request("POST", "/v1/notifications/appstore", body=body)
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        refused, accepted = [], 0
        for index, body in enumerate(bodies):
            status, answer = post(body)
            if status == 200: accepted += 1
            elif status == 503: refused.append(index)
            else: raise SystemExit(f"disk-full-http: unexpected {status} {answer}")
            if len(refused) >= 20: break
        checks.append(("the full disk is answered with 503", len(refused) > 0))
        connection.request("GET", "/healthz"); checks.append(("the server stays up", connection.getresponse().read() == b"ok\n"))
        subprocess.run(["mount", "-o", "remount,size=256m", mount], check=True)
        statuses = [post(bodies[index])[1].get("status") for index in refused]
        checks.append(("refused notifications are appended once space returns", all(s in ("appended", "duplicate") for s in statuses) and "appended" in statuses))
        said = open(full_log).read()
        checks.append(("the full disk is said once on stderr, and that messages are stored again",
                       said.count("a message could not be stored") == 1 and said.count("messages are stored again") == 1))
        server.send_signal(signal.SIGTERM); server.wait(timeout=30); server = None
        verify = subprocess.run([binary, "--data", data, "verify", "--json"], capture_output=True, text=True)
        checks.append(("no partial frame: verify passes", verify.returncode == 0))
        stats = json.loads(subprocess.run([binary, "--data", data, "stats", "--json"], capture_output=True, text=True).stdout)
        checks.append(("every acknowledged notification is stored", stats["messages"] >= accepted))
        print(f"disk-full-http: {accepted} accepted before the disk filled, {len(refused)} answered 503, then accepted after it grew")
        subprocess.run(["umount", mount], check=True)
        checks += fold_fails(binary, work, mount, bodies)
    finally:
        if server: server.kill(); server.wait()
        subprocess.run(["umount", mount])
        subprocess.run(["rm", "-rf", work])
    failed = [name for name, ok in checks if not ok]
    for name in failed: print(f"disk-full-http: FAILED: {name}", file=sys.stderr)
    print(f"disk-full-http: {len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
