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


def start(binary, data, port, *arguments, who="serve", wrapper=(), stderr=subprocess.DEVNULL):
    """`subledger --data DATA serve --listen 127.0.0.1:PORT ARGUMENTS...`, run through `wrapper`
    (e.g. `prlimit ...`) if given, its stderr to `stderr`, once /readyz answers 200 (503 while it
    builds its dedup index or rebuilds its projection database; at most 20 s, otherwise the server is killed and the script
    stops, naming `who`)."""
    server = subprocess.Popen([*wrapper, binary, "--data", data, "serve", "--listen", f"127.0.0.1:{port}", *arguments],
                              stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2); c.request("GET", "/readyz")
            if c.getresponse().status == 200: return server
        except OSError:
            pass
        time.sleep(0.05)
    server.kill(); server.wait(); raise SystemExit(f"{who}: the server did not start")
