#!/usr/bin/env python3
"""Open-file limits: `subledger serve` raises its soft limit of open files to the hard one, and
where even that is too few for the connections clients open, idle connections give their
descriptors up, so the webhook and the liveness probe are still answered. Loopback only, bounded.

Usage: fd-limit-http.py SUBLEDGER_BINARY
"""
import http.client, os, resource, shutil, socket, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, start


def open_files(pid):
    """The soft and hard `Max open files` of a process (`unlimited` as -1)."""
    for line in open(f"/proc/{pid}/limits"):
        if line.startswith("Max open files"):
            return tuple(-1 if value == "unlimited" else int(value) for value in line.split()[3:5])


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

        # Soft 256 under this process's own hard limit, which anyone may keep.
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        if hard == resource.RLIM_INFINITY or hard > 256:
            port = free_port()
            servers.append(start(binary, data, port, who="fd-limit-http", wrapper=("prlimit", f"--nofile=256:{hard}")))
            limits = open_files(servers[-1].pid)
            check("serve raises its soft open-file limit to the hard one", limits[0] == limits[1] and limits[0] > 256, f"{limits}")
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
        for client in idle: client.close()
        idle.clear()
        servers[-1].terminate(); servers[-1].wait()

        # Uploads under way hold every descriptor, and another client comes: the uploads keep
        # their connections (none is idle), and each is answered once its body is whole.
        port = free_port()
        servers.append(start(binary, data, port, who="fd-limit-http", wrapper=("prlimit", "--nofile=128:128")))
        body = b'{"signedPayload": "not a JWS"}'
        uploads = []
        for _ in range(150):
            upload = socket.socket()
            upload.settimeout(10)
            try:
                upload.connect(("127.0.0.1", port))
                upload.sendall(b"POST /v1/notifications/appstore HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                               + b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
            except OSError:
                upload.close()
                break
            uploads.append(upload)
        time.sleep(1.5)  # past the second a request under way is spared for
        newcomer = socket.create_connection(("127.0.0.1", port), timeout=10)
        newcomer.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        time.sleep(0.5)
        answers = []
        for upload in uploads:
            try:
                upload.sendall(body[10:])
                answers.append(upload.recv(64).split(b" ")[1])
            except (OSError, IndexError):
                answers.append(b"closed")
            upload.close()
        # 400 (not a JWS) once the webhook can keep the body in quarantine, 503 (the App Store
        # retries) while no descriptor is left for it to open a file with.
        check("requests under way keep their connections and are answered, none closed without a word",
              len(uploads) > 50 and all(answer in (b"400", b"503") for answer in answers),
              f"{len(uploads)} uploads: {sorted(set(answers))}, {answers.count(b'closed')} closed")
        try:
            newcomer_status = newcomer.recv(64).split(b" ")[1]
        except (OSError, IndexError):
            newcomer_status = b"none"
        newcomer.close()
        check("and the newcomer is answered once they are idle", newcomer_status == b"200", f"{newcomer_status}")
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
