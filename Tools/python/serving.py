"""What the campaign scripts share to run `subledger serve`: a free loopback port, and a server
started and ready (/readyz)."""
import http.client, random, socket, subprocess, time

# Not the module's generator, which campaigns seed to replay a run.
_system_random = random.SystemRandom()


def free_port():
    """A loopback port that nothing holds, picked below the kernel's ephemeral range. The campaigns
    run two at a time and some restart a server on its port: a port the kernel picked for `bind(0)`
    is one it may hand to any outgoing connection (wrk and curl open thousands) or to another
    campaign between this check and the server's listen, or while a server is down between runs.
    Ports below the range are only ever taken by a bind of their own."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral_low = int(f.read().split()[0])
    for _ in range(1000):
        port = _system_random.randrange(10000, ephemeral_low) if ephemeral_low > 11000 else 0
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise SystemExit("no free loopback port below the ephemeral range: see /proc/sys/net/ipv4/ip_local_port_range")


def ready(port, process=None, timeout=20):
    """Whether the server on `port` answers /readyz 200 (503 while it builds its dedup index or
    rebuilds its projection database) within `timeout` seconds (None: however long that takes);
    False as soon as `process`, when given, has stopped."""
    deadline = None if timeout is None else time.time() + timeout
    while deadline is None or time.time() < deadline:
        if process is not None and process.poll() is not None: return False
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2); c.request("GET", "/readyz")
            if c.getresponse().status == 200: return True
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.05)
    return False


def start(binary, data, port, *arguments, who="serve", wrapper=(), stderr=subprocess.DEVNULL):
    """`subledger --data DATA serve --listen 127.0.0.1:PORT ARGUMENTS...`, run through `wrapper`
    (e.g. `prlimit ...`) if given, its stderr to `stderr`, once /readyz answers 200 (503 while it
    builds its dedup index or rebuilds its projection database; at most 20 s, otherwise the server is killed and the script
    stops, naming `who`)."""
    server = subprocess.Popen([*wrapper, binary, "--data", data, "serve", "--listen", f"127.0.0.1:{port}", *arguments],
                              stdout=subprocess.DEVNULL, stderr=stderr)
    if ready(port, server): return server
    server.kill(); server.wait(); raise SystemExit(f"{who}: the server did not start")
