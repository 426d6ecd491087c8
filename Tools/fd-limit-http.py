#!/usr/bin/env python3
"""Open-file limits: `subledger serve` raises its soft limit of open files to the hard one, and
where even that is too few for the connections clients open, idle connections give their
descriptors up, so the webhook and the liveness probe are still answered. Loopback only, bounded.

Usage: fd-limit-http.py SUBLEDGER_BINARY
"""
import http.client, os, shutil, socket, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, start


def open_files(pid):
    """The soft and hard `Max open files` of a process."""
    for line in open(f"/proc/{pid}/limits"):
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)


def answered(port, method, path, body=None):
    """The status of one request on a new connection, or None when none came within 5 s."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request(method, path, body=body)
        return connection.getresponse().status
    except OSError:
        return None


def main():
    binary = sys.argv[1]
    if shutil.which("prlimit") is None:
        print("fd-limit-http: prlimit is missing (util-linux); skipped")
        print("fd-limit-http: 0 passed, 0 failed")
        return 0
    work = tempfile.mkdtemp(prefix="subledger-fdlimit-")
    checks, servers, idle = [], [], []
    def check(name, ok, detail=""):
        checks.append(ok)
        print(f"fd-limit-http: {'ok' if ok else 'FAILED'}: {name}{'' if ok else ': ' + detail}")
    try:
        data = work + "/data"
        subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger"], check=True, capture_output=True)

        port = free_port()
        servers.append(start(binary, data, port, who="fd-limit-http", wrapper=("prlimit", "--nofile=256:8192")))
        limits = open_files(servers[-1].pid)
        check("serve raises its soft open-file limit to the hard one", limits == (8192, 8192), f"{limits}")
        servers[-1].terminate(); servers[-1].wait()

        # A hard limit of 128: 300 idle connections cannot all be held.
        port = free_port()
        servers.append(start(binary, data, port, who="fd-limit-http", wrapper=("prlimit", "--nofile=128:128")))
        for _ in range(300):
            client = socket.socket()
            client.settimeout(5)
            try:
                client.connect(("127.0.0.1", port))
            except OSError:
                client.close()
                break
            idle.append(client)
        time.sleep(1.5)  # past the second an idle connection keeps its slot for
        started = time.time()
        status = answered(port, "GET", "/healthz")
        check("with every descriptor held by idle clients, the liveness probe is answered", status == 200, f"status {status}")
        status = answered(port, "POST", "/v1/notifications/appstore", body=b"{}")
        check("and so is the webhook (a body with no signedPayload: 400)", status == 400,
              f"status {status} after {time.time() - started:.1f} s")
        check("the server is still running", servers[-1].poll() is None, f"exit {servers[-1].poll()}")
    finally:
        for client in idle: client.close()
        for server in servers:
            if server.poll() is None: server.terminate(); server.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"fd-limit-http: {checks.count(True)} passed, {checks.count(False)} failed")
    return 0 if all(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
