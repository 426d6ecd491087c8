#!/usr/bin/env python3
"""A restore done with the server running: the data directory is moved aside and a backup copied
into its place while `serve` has the ledger open, as the README's restore is done by someone who
forgot to stop the service. The server kept the old directory's files open and wrote by path:
it acknowledged messages into the directory moved aside (lost to whoever deletes it), and its
clean close wrote markers into the restored copy, which then refused to open.

It must acknowledge nothing more once the path names the copy, stop with exit 4 (which the unit
does not restart: a restart mid-restore would open a copy still being written), and leave the copy
as the backup made it: `verify` passes, and a server started on it takes every message the copy
lacks. Loopback only, bounded.

Usage: restore-http.py SUBLEDGER_BINARY
"""
import http.client, os, shutil, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, start


def post(port, body):
    """The status the webhook answered, or None when no answer came."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("POST", "/v1/notifications/appstore", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status
    except (OSError, http.client.HTTPException):
        return None


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="subledger-restore-http-")
    problems = []
    try:
        subprocess.run([binary, "simulate", "--customers", "60", "--months", "2", "--seed", "9", "--out", work + "/sim"], check=True, capture_output=True)
        data, backup = work + "/data", work + "/backup"
        subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890",
                        "--root", work + "/sim/root.cer"], check=True, capture_output=True)
        bodies = [line for line in open(work + "/sim/notifications.jsonl").read().split("\n") if line][:60]
        port = free_port()
        errors = open(work + "/serve.err", "w+")
        server = start(binary, data, port, who="restore-http", stderr=errors)
        first = [post(port, body) for body in bodies[:30]]
        if first != [200] * 30: problems.append(f"before the backup the webhook answered {first}")
        subprocess.run([binary, "--data", data, "backup", "--to", backup], check=True, capture_output=True)
        after = [post(port, body) for body in bodies[30:40]]
        if after != [200] * 10: problems.append(f"after the backup the webhook answered {after}")
        os.rename(data, data + ".aside")
        shutil.copytree(backup, data, symlinks=True)
        during = [post(port, body) for body in bodies[40:45]]
        if 200 in during: problems.append(f"with the copy in place the webhook acknowledged {during.count(200)} of 5 ({during})")
        try:
            code = server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill(); server.wait(); code = "none (killed after 15 s)"
        errors.seek(0)
        said = errors.read()
        if code != 4: problems.append(f"serve exited {code}, not 4")
        if "moved or replaced" not in said: problems.append(f"serve did not say why it stopped: {said[-400:]!r}")
        verified = subprocess.run([binary, "--data", data, "verify"], capture_output=True, text=True)
        if verified.returncode != 0: problems.append(f"verify of the restored copy exit {verified.returncode}: {verified.stderr.strip()[-400:]}")
        port = free_port()
        server = start(binary, data, port, who="restore-http")
        again = [post(port, body) for body in bodies[30:45]]
        server.terminate(); server.wait()
        if again != [200] * 15: problems.append(f"a server on the restored copy answered {again} for the 15 messages it lacks")
        if problems:
            for problem in problems: print(f"restore-http: {problem}", file=sys.stderr)
            print("restore-http: failed")
            return 1
        print(f"restore-http: with the copy in place 0 of 5 acknowledged ({during}); serve stopped with exit 4 naming why; "
              "the copy verifies and a server on it took the 15 messages it lacked")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
