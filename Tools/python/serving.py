"""What the campaign scripts share to run `subledger serve`: a free loopback port, and a server
started and answering /healthz."""
import http.client, socket, subprocess, time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary, data, port, *arguments, who="serve", wrapper=(), stderr=subprocess.DEVNULL):
    """`subledger --data DATA serve --listen 127.0.0.1:PORT ARGUMENTS...`, run through `wrapper`
    (e.g. `prlimit ...`) if given, its stderr to `stderr`, once /healthz answers 200 (503 while it
    rebuilds its projection database; at most 20 s, otherwise the server is killed and the script
    stops, naming `who`)."""
    server = subprocess.Popen([*wrapper, binary, "--data", data, "serve", "--listen", f"127.0.0.1:{port}", *arguments],
                              stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2); c.request("GET", "/healthz")
            if c.getresponse().status == 200: return server
        except OSError:
            pass
        time.sleep(0.05)
    server.kill(); server.wait(); raise SystemExit(f"{who}: the server did not start")
