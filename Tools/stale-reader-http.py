#!/usr/bin/env python3
"""A reader killed inside its read transaction beside a running server (a backup or an export
killed mid-read does so): a small C program opens the projection database `serve` holds, begins a
read transaction and kills itself, and the server then takes in the rest of a simulated workload
over its webhook. Its projection
database must grow as a control ledger's does, fed the same without the killed reader: the
server clears the dead reader's slot before it writes, where it once kept every page freed
since that reader began from reuse. Loopback only, bounded.

Usage: stale-reader-http.py SUBLEDGER_BINARY
"""
import http.client, os, shutil, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, start


DYING_READER = r"""
#include <lmdb.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    MDB_env *env; MDB_txn *txn;
    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 64) || mdb_env_set_maxreaders(env, 512)
        || mdb_env_open(env, argv[1], MDB_RDONLY | MDB_NOTLS, 0600) || mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) {
        fprintf(stderr, "stale-reader-http: could not begin a read transaction in %s\n", argv[1]);
        return 1;
    }
    kill(getpid(), SIGKILL);
    return 1;
}
"""


def database(data):
    """The projection database in use (its directory)."""
    current = open(os.path.join(data, "projections", "CURRENT")).read().strip()
    return os.path.join(data, "projections", current)


def feed(binary, work, name, bodies, dying_reader=None):
    """Serves a new ledger the bodies, killing a reader after the first 300 if asked; returns
    the projection database's size once the server stopped."""
    data = os.path.join(work, name)
    subprocess.run([binary, "--data", data, "init", "--bundle-id", "com.example.subledger", "--root", work + "/sim/root.cer"],
                   check=True, capture_output=True)
    port = free_port()
    server = start(binary, data, port, who="stale-reader-http")
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        def post(body):
            connection.request("POST", "/v1/notifications/appstore", body=body)
            response = connection.getresponse()
            response.read()
            if response.status != 200: raise SystemExit(f"stale-reader-http: the webhook answered {response.status}")
        for body in bodies[:300]: post(body)
        if dying_reader:
            reader = subprocess.run([dying_reader, database(data)])
            if reader.returncode != -9: raise SystemExit("stale-reader-http: the reader did not die inside its transaction")
        for body in bodies[300:]: post(body)
    finally:
        server.terminate(); server.wait()
    return os.path.getsize(os.path.join(database(data), "data.mdb"))


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="subledger-stalereader-")
    try:
        with open(work + "/dying-reader.c", "w") as source: source.write(DYING_READER)
        # The Swift toolchain's clang (on PATH under make), else the system's compiler.
        compiler = shutil.which("clang") or shutil.which("cc")
        if compiler is None: raise SystemExit("stale-reader-http: no C compiler (clang comes with the Swift toolchain: put /opt/swift/usr/bin on PATH)")
        subprocess.run([compiler, "-O1", "-o", work + "/dying-reader", work + "/dying-reader.c", "-llmdb"], check=True)
        subprocess.run([binary, "simulate", "--customers", "250", "--months", "12", "--seed", "8", "--out", work + "/sim"], check=True, capture_output=True)
        bodies = [line for line in open(work + "/sim/notifications.jsonl").read().split("\n") if line]
        control = feed(binary, work, "control", bodies)
        killed = feed(binary, work, "killed", bodies, dying_reader=work + "/dying-reader")
        ok = killed <= control * 3 // 2
        print(f"stale-reader-http: {'ok' if ok else 'FAILED'}: {len(bodies)} notifications; the projection database is "
              f"{killed / 1e6:.1f} MB behind a reader killed mid-read, {control / 1e6:.1f} MB without one")
        print(f"stale-reader-http: {1 if ok else 0} passed, {0 if ok else 1} failed")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
