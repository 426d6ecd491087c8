#!/usr/bin/env python3
"""Scaling on the realistic mix: how reads, memory, rebuild and open grow with history, measured
through Subledger's public surfaces only (the `subledger` command and `subledger serve`), so it
measures whatever read side the build has.

Fixtures (cached in .build/bench-fixtures/, keyed by their parameters, reused by later runs):
- base: `subledger simulate --customers 20000 --months 12 --seed 3`, initialised and ingested;
- tiled: `subledger-bench fixture` writes the base's events T times with remapped identifiers,
  each tile's instants a second later than the one before (tiles share the base's evidence), then `subledger rebuild` makes its projections (again
  whenever the `subledger` binary changes; a build that cannot within the memory limit is noted
  and its fixture measured without a snapshot). Remove .build/bench-fixtures to start afresh;
- fresh: a separate simulation (its own test root) posted to the webhook and ingested by the CLI.

At each size, on a copy of the fixture: `stats --json` (open), `rebuild --json` (wall and the
fold's own rate), then `serve`: the dashboard and the four reports over the simulation's 12
months, customer look-ups (wrk, ~1,000/s, ids spread over all tiles) while wrk posts the fresh
notifications to the webhook, then the server's VmRSS and VmHWM. Any `subledger` process above
12 GiB resident is stopped, the step named in the table, and the next steps go on. Once per run: this machine's ES256
limit (`openssl speed`) and `subledger ingest` of the fresh simulation into an empty ledger.

Usage: Tools/bench-scaling.py [--sizes 160k,1m,10m] [--report FILE] [--command TEXT]
"""
import argparse, functools, hashlib, http.client, json, math, os, re, resource, shutil, signal, statistics, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from serving import free_port, ready

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBLEDGER = os.path.join(REPO, ".build/release/subledger")
BENCH = os.path.join(REPO, ".build/release/subledger-bench")
FIXTURES = os.path.join(REPO, ".build/bench-fixtures")
BASE = {"customers": 20000, "months": 12, "seed": 3}
# Enough notifications (about 190 k) that no run posts one twice: 16 s at the full rate took
# 140 k at 8.7 k/s, and 6,000 customers' 47 k wrapped within 6 s, so that the rest were repeats,
# answered as duplicates without being verified or stored.
FRESH = {"customers": 24000, "months": 12, "seed": 7}
# Part of a tiled fixture's name: raise it when `subledger-bench fixture` tiles differently, so
# fixtures cached by an older tiler are not measured as this one's (2: instants shifted per tile).
TILING = 2
# The simulation's default start: reports cover its 12 months.
FROM, TO, MRR_AT, FROM_MONTH, TO_MONTH = "2026-01-01", "2026-12-31", "2027-01-01", "2026-01", "2026-12"
MEMORY_LIMIT_KIB = 12 * 1024 * 1024
LOOKUP_SECONDS = 12          # ~1,000 look-ups a second (less the answers' latency): ~10 k look-ups
# A steady webhook load like a large app's busiest hour and more (8 connections, 40 ms apart:
# at most 200 notifications/s; a 10 M-event ledger's year averages 0.3/s), beside the full rate.
PACED_CONNECTIONS, PACED_DELAY_MS = 8, 40
SAMPLE_BUDGET_SECONDS = 20   # per figure: at most 5 samples, fewer when each is slow
FLAT = 0.30                  # "flat": within ±30% from the smallest size to the largest
BEGAN = time.monotonic()


def progress(line):
    print(f"{line}  [{(time.monotonic() - BEGAN) / 60:.1f} min]", flush=True)


class MemoryLimit(Exception):
    pass


def resident_files_kib(pid, data):
    """Resident KiB of the server's file mappings under `data`, by what they are (from smaps)."""
    totals, name = {}, None
    try:
        with open(f"/proc/{pid}/smaps") as smaps:
            for line in smaps:
                fields = line.split()
                if re.match(r"^[0-9a-f]+-[0-9a-f]+$", fields[0]):
                    name = fields[5] if len(fields) > 5 else ""
                elif fields[0] == "Rss:" and name.startswith(data + "/"):
                    part = name[len(data) + 1:].split("/")[0]
                    totals[part] = totals.get(part, 0) + int(fields[1])
    except OSError:
        return None
    return totals


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Watched:
    """A child process whose resident set (and its anonymous part) is sampled every 0.1 s: it is
    killed above the limit."""

    def __init__(self, args, **popen):
        self.peak_kib = 0
        self.peak_anon_kib = 0
        self.killed = False
        self.process = subprocess.Popen(args, **popen)
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self):
        while self.process.poll() is None:
            rss = status_kib(self.process.pid, "VmRSS") or 0
            self.peak_kib = max(self.peak_kib, rss)
            self.peak_anon_kib = max(self.peak_anon_kib, status_kib(self.process.pid, "RssAnon") or 0)
            if rss > MEMORY_LIMIT_KIB:
                self.killed = True
                self.process.kill()
                return
            time.sleep(0.1)

    def wait(self, timeout=None):
        code = self.process.wait(timeout=timeout)
        self.thread.join()
        if self.killed:
            raise MemoryLimit(f"stopped above {MEMORY_LIMIT_KIB // 1024 // 1024} GiB resident")
        return code


def run(args, timeout=3600, env=None):
    """Runs a command to its end; returns (wall seconds from start to exit, stdout, peak RSS KiB,
    peak anonymous RSS KiB)."""
    started = time.monotonic()
    child = Watched(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    out, err = child.process.communicate(timeout=timeout)
    code = child.wait()
    wall = time.monotonic() - started
    if code != 0:
        raise SystemExit(f"bench-scaling: {' '.join(args)} exited {code}:\n{err[-2000:]}")
    return wall, out, child.peak_kib, child.peak_anon_kib


def subledger(data, *args, **options):
    return run([SUBLEDGER, "--data", data, *args], **options)


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def key(parameters):
    return f"c{parameters['customers']}-m{parameters['months']}-s{parameters['seed']}"


def simulate(parameters, out):
    run([SUBLEDGER, "simulate", "--customers", str(parameters["customers"]), "--months", str(parameters["months"]),
         "--seed", str(parameters["seed"]), "--out", out])


def init(data, simulation, *roots):
    config = json.load(open(os.path.join(simulation, "config.json")))
    arguments = ["init", "--bundle-id", config["bundleId"], "--app-apple-id", str(config["appAppleId"])]
    for root in roots:
        arguments += ["--root", root]
    subledger(data, *arguments)


def cached(name, build):
    """FIXTURES/name, made by build(partial directory) unless a complete one is there."""
    path = os.path.join(FIXTURES, name)
    if os.path.isdir(path):
        return path
    partial = path + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    os.makedirs(partial)
    build(partial)
    os.rename(partial, path)
    return path


def base_fixture():
    def build(directory):
        progress(f"  base: simulating {BASE['customers']:,} customers over {BASE['months']} months (seed {BASE['seed']}), then ingesting")
        simulate(BASE, directory + "/sim")
        init(directory + "/ledger", directory + "/sim", directory + "/sim/root.cer")
        subledger(directory + "/ledger", "ingest", directory + "/sim/notifications.jsonl", "--json")
        os.remove(directory + "/sim/notifications.jsonl")  # hundreds of MB; the ledger holds it all
    return cached("base-" + key(BASE), build)


def fresh_simulation():
    def build(directory):
        progress(f"  fresh notifications: simulating {FRESH['customers']:,} customers (seed {FRESH['seed']})")
        simulate(FRESH, directory + "/sim")
    return cached("fresh-" + key(FRESH), build) + "/sim"


def tiled_fixture(base, tiles, row):
    """The fixture's directory, with projections as this build of `subledger` writes them (the
    read side changes between builds). When this build cannot make them within the memory limit,
    that is noted (in `row` and in the cache, so later runs of the same build do not try again)
    and the fixture is measured without a snapshot."""
    def build(directory):
        progress(f"  tiling the base {tiles} time{'s' if tiles > 1 else ''}")
        run([BENCH, "fixture", "--base", base + "/ledger", "--tiles", str(tiles), "--out", directory + "/data",
             "--sample", directory + "/lookups.txt"])
    path = cached(f"tiled{TILING}-{key(BASE)}-t{tiles}", build)
    binary = sha256_file(SUBLEDGER)
    made, stopped = os.path.join(path, "projections.sha256"), os.path.join(path, "projections-stopped.sha256")
    if os.path.exists(stopped) and open(stopped).read() == binary:
        row["stopped"].append("fixture's projections (an earlier run of this build)")
    elif not os.path.exists(made) or open(made).read() != binary:
        progress(f"  {tiles} tile{'s' if tiles > 1 else ''}: `subledger rebuild` for this build's projections (not timed)")
        try:
            subledger(path + "/data", "rebuild", "--json")
            # A tiled log is written without the ledger: an ingest of nothing opens it once, which
            # builds the persistent dedup index a real ledger always has, so that the server's
            # open and memory are measured as a user sees them, not as a one-time index build.
            empty = os.path.join(path, "empty.jsonl")
            open(empty, "w").close()
            subledger(path + "/data", "ingest", empty, "--json")
            with open(made, "w") as file:
                file.write(binary)
        except MemoryLimit:
            shutil.rmtree(path + "/data/projections", ignore_errors=True)
            with open(stopped, "w") as file:
                file.write(binary)
            row["stopped"].append("fixture's projections")
    return path


def parse_size(text):
    match = re.fullmatch(r"([0-9.]+)([km]?)", text.strip().lower())
    if not match:
        raise SystemExit(f"bench-scaling: --sizes takes sizes like 160k,1m,10m, not '{text}'")
    return float(match.group(1)) * {"": 1, "k": 1e3, "m": 1e6}[match.group(2)]


def es256_limit():
    """Verifications/s of one core (`openssl speed`), × cores ÷ 3 JWS per notification; then
    `subledger-bench es256`: verifications/s of one core through libcrypto's verification and
    through the key table ingestion verifies with."""
    out = subprocess.run(["openssl", "speed", "-seconds", "3", "ecdsap256"], capture_output=True, text=True).stdout
    line = next(line for line in out.splitlines() if "nistp256" in line and "bits" in line)
    per_core = float(line.split()[-1])
    cores = os.cpu_count()
    own = json.loads(subprocess.run([BENCH, "es256", "3"], capture_output=True, text=True, check=True).stdout)
    return per_core, cores, per_core * cores / 3, own



def get(port, path, timeout=900):
    """Seconds from sending a GET to having read the whole answer, on a fresh connection."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    seconds = time.monotonic() - started
    connection.close()
    if response.status != 200:
        raise SystemExit(f"bench-scaling: GET {path} answered {response.status}: {body[:300]!r}")
    return seconds


def sampled(measure):
    """The median of up to 5 samples after one warm-up, fewer when the budget runs out (at least
    one). A warm-up slower than the whole budget is the figure: warming cannot matter at that scale."""
    warm_up = measure()
    if warm_up > SAMPLE_BUDGET_SECONDS:
        return warm_up
    samples, started = [], time.monotonic()
    while len(samples) < 5 and (not samples or time.monotonic() - started < SAMPLE_BUDGET_SECONDS):
        samples.append(measure())
    return statistics.median(samples)


def wrk_latency(text, percentile):
    match = re.search(rf"^\s+{percentile}%\s+([0-9.]+)(us|ms|s)\s*$", text, re.M)
    if not match:
        return None
    return float(match.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[match.group(2)]


def wait_until_serving(server, port):
    """Returns once the opening server is ready, however long its builds on open take; exits if it
    stopped instead."""
    if not ready(port, server.process, timeout=None):
        server.wait()
        raise SystemExit("bench-scaling: the server stopped while opening")


def lookups_while_posting(url, environment, connections, probe=False):
    """Look-ups (4 connections, about 1,000 a second) for LOOKUP_SECONDS while wrk posts distinct
    signed notifications to the webhook over `connections` (each waiting DELAY_MS between posts
    when the environment sets it): latency of the look-ups, rate and failures of the posts. With
    `probe`, the same pace of `GET /healthz` instead, which the event loop answers without a
    worker or the ledger: what any request waits on this host under that load."""
    with tempfile.TemporaryFile("w+") as posted:
        posting = subprocess.Popen(["wrk", "-t1", f"-c{connections}", f"-d{LOOKUP_SECONDS + 2}s", "-s", os.path.join(REPO, "Tools/wrk-post-notifications.lua"), url],
                                   stdout=posted, stderr=subprocess.STDOUT, env=environment)
        time.sleep(1)
        script, target = ("Tools/wrk-paced.lua", url + "/healthz") if probe else ("Tools/wrk-lookups.lua", url)
        reads = subprocess.run(["wrk", "-t1", "-c4", f"-d{LOOKUP_SECONDS}s", "--latency", "-s", os.path.join(REPO, script), target],
                               capture_output=True, text=True, env=dict(environment, DELAY_MS="4")).stdout
        posting.wait()
        posted.seek(0)
        post_text = posted.read()
    count = re.search(r"(\d+) requests in", reads)
    failed = re.search(r"Non-2xx or 3xx responses: (\d+)", reads)
    webhook = re.search(r"posted (\d+) requests, (\d+) non-2xx.*wrapped (\d+) times", post_text)
    rate = re.search(r"Requests/sec:\s+([0-9.]+)", post_text)
    return {"p50": wrk_latency(reads, 50), "p99": wrk_latency(reads, 99), "lookups": int(count.group(1)) if count else 0,
            "lookup_errors": int(failed.group(1)) if failed else 0, "webhook": float(rate.group(1)) if rate else None,
            "webhook_errors": int(webhook.group(2)) if webhook else None, "wrapped": int(webhook.group(3)) if webhook else 0}


@functools.lru_cache
def line_offset(path, line):
    """The byte offset of line `line` (from 0) of the file at `path` (read once a run: the
    fresh simulation's file is hundreds of MB, and every size asks)."""
    offset = 0
    with open(path, "rb") as file:
        for _ in range(line):
            offset += len(file.readline())
    return offset


def serve_figures(data, port, lookups, notifications, stopped):
    figures = {}
    server = Watched([SUBLEDGER, "--data", data, "serve", "--listen", f"127.0.0.1:{port}"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        started = time.monotonic()
        wait_until_serving(server, port)
        figures["ready"] = time.monotonic() - started
        figures["dashboard"] = sampled(lambda: get(port, "/"))
        reports = {"revenue": f"/v1/reports/revenue?from={FROM}&to={TO}", "mrr": f"/v1/reports/mrr?at={MRR_AT}",
                   "churn": f"/v1/reports/churn?from={FROM}&to={TO}", "cohorts": f"/v1/reports/cohorts?from={FROM_MONTH}&to={TO_MONTH}"}
        for name, path in reports.items():
            figures[name] = sampled(lambda: get(port, path))
        url = f"http://127.0.0.1:{port}"
        environment = dict(os.environ, NOTIFICATIONS=notifications, IDS=lookups)
        # Each run posts past the one before (the paced ones at most 2,800 at 200/s), so that every
        # notification posted is new.
        paced = lookups_while_posting(url, dict(environment, DELAY_MS=str(PACED_DELAY_MS)), PACED_CONNECTIONS)
        figures["paced_p50"], figures["paced_p99"], figures["paced_webhook"] = paced["p50"], paced["p99"], paced["webhook"]
        probe = lookups_while_posting(url, dict(environment, DELAY_MS=str(PACED_DELAY_MS), OFFSET=str(line_offset(notifications, 3000))),
                                      PACED_CONNECTIONS, probe=True)
        # A probe answered other than 200 measured something else: no figure rather than a wrong one.
        figures["probe_p99"] = None if probe["lookup_errors"] else probe["p99"]
        if probe["lookup_errors"]:
            progress(f"  /healthz answered {probe['lookup_errors']} requests other than 2xx: its p99 is left out")
        full = lookups_while_posting(url, dict(environment, OFFSET=str(line_offset(notifications, 6000))), 32)
        figures["lookup_p50"], figures["lookup_p99"], figures["webhook"] = full["p50"], full["p99"], full["webhook"]
        figures["lookups"] = paced["lookups"] + full["lookups"]
        figures["lookup_errors"] = paced["lookup_errors"] + full["lookup_errors"]
        figures["webhook_errors"] = (paced["webhook_errors"] or 0) + (full["webhook_errors"] or 0)
        figures["wrapped"] = paced["wrapped"] + probe["wrapped"] + full["wrapped"]
        figures["rss"] = status_kib(server.process.pid, "VmRSS")
        figures["anon"] = status_kib(server.process.pid, "RssAnon")
        figures["hwm"] = status_kib(server.process.pid, "VmHWM")
        figures["files"] = resident_files_kib(server.process.pid, os.path.realpath(data))
        server.process.send_signal(signal.SIGTERM)
        server.wait(timeout=1800)
    except (MemoryLimit, OSError, http.client.HTTPException):
        if not server.killed:
            raise
        stopped.append("server")
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    return figures


def measure(size, base, fresh, scratch):
    """One size's row. Each step that passes the memory limit is named in `stopped` and the
    next steps go on: a server may fit where a rebuild does not."""
    tiles = max(1, round(size / base["events"]))
    # Exact by construction (cli-check proves it on a small fixture).
    row = {"tiles": tiles, "events": tiles * base["events"], "customers": tiles * base["customers"], "stopped": []}
    fixture = tiled_fixture(base["path"], tiles, row)
    work = os.path.join(scratch, f"ledger-t{tiles}")
    subprocess.run(["cp", "-a", fixture + "/data", work], check=True)
    try:
        progress(f"  {tiles} tile{'s' if tiles > 1 else ''}: open (`stats --json`)")
        try:
            opens = []
            while len(opens) < 3 and (not opens or sum(opens) < SAMPLE_BUDGET_SECONDS):
                opens.append(subledger(work, "stats", "--json")[0])
            row["open"] = statistics.median(opens)
        except MemoryLimit:
            row["stopped"].append("open")
        # In batches first, so that the server below reads what the rebuild in memory wrote.
        progress(f"  {row['events']:,} events, {row['customers']:,} customers: rebuild in batches")
        try:
            wall, _, _, anon = subledger(work, "rebuild", "--strategy", "batched", "--json")
            row.update(batched_wall=wall, batched_anon=anon)
        except MemoryLimit:
            row["stopped"].append("rebuild in batches")
        progress(f"  {row['events']:,} events: rebuild")
        try:
            wall, out, peak, _ = subledger(work, "rebuild", "--json")
            row.update(rebuild_wall=wall, fold=json.loads(out)["foldEventsPerSecond"], rebuild_peak=peak)
        except MemoryLimit:
            row["stopped"].append("rebuild")
        init(work, base["path"] + "/sim", base["path"] + "/sim/root.cer", fresh + "/root.cer")
        progress(f"  {row['events']:,} events: serve (dashboard, reports, look-ups while the webhook ingests)")
        row.update(serve_figures(work, free_port(), fixture + "/lookups.txt", fresh + "/notifications.jsonl", row["stopped"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return row


def cli_ingest(fresh, scratch):
    data = os.path.join(scratch, "ingest")
    init(data, fresh, fresh + "/root.cer")
    wall, out, _, _ = subledger(data, "ingest", fresh + "/notifications.jsonl", "--json")
    shutil.rmtree(data, ignore_errors=True)
    appended = json.loads(out)["appended"]
    return appended, appended / wall


def process_cpu_seconds(pid):
    """User plus system CPU of a running process, from /proc."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    """User and system CPU of the child processes waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime, usage.ru_stime


class GrowthClock:
    """When the files in a directory were first and last written (sizes and modification times,
    polled every 10 ms in a thread): the span in which a server stored what it was sent, without
    asking the server."""

    def __init__(self, directory):
        self.directory, self.first, self.last, self.running = directory, None, None, True
        self.files = self._files()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _files(self):
        return sorted((entry.name, entry.stat().st_size, entry.stat().st_mtime_ns) for entry in os.scandir(self.directory) if entry.is_file())

    def _watch(self):
        while self.running:
            files = self._files()
            if files != self.files:
                self.files, self.last = files, time.monotonic()
                self.first = self.first or self.last
            time.sleep(0.01)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.last - self.first if self.first and self.last > self.first else None


def webhook_ingest(fresh, scratch, connections=64):
    """`subledger serve` on an empty ledger, wrk posting each of the fresh simulation's
    notifications once to the webhook (each acknowledged only once durable and folded):
    notifications/s over the span the log grew in, failures, and the CPU seconds per notification
    of the server and of wrk (which shares the machine's cores)."""
    data = os.path.join(scratch, "webhook")
    init(data, fresh, fresh + "/root.cer")
    port = free_port()
    server = Watched([SUBLEDGER, "--data", data, "serve", "--listen", f"127.0.0.1:{port}"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(server, port)
        environment = dict(os.environ, NOTIFICATIONS=fresh + "/notifications.jsonl", ONCE="1")
        server_before, wrk_before = process_cpu_seconds(server.process.pid), children_cpu_seconds()
        clock = GrowthClock(os.path.join(data, "log"))
        wrk = subprocess.Popen(["wrk", "-t1", f"-c{connections}", "-d600s", "-s", os.path.join(REPO, "Tools/wrk-post-notifications.lua"),
                                f"http://127.0.0.1:{port}"], stdout=subprocess.PIPE, text=True, env=environment)
        # wrk runs for its whole -d even once the script has stopped posting; SIGINT ends it with
        # its summary once the log has stopped growing.
        while wrk.poll() is None and not (clock.last and time.monotonic() - clock.last > 1.5):
            time.sleep(0.1)
        wrk.send_signal(signal.SIGINT)
        posted = wrk.communicate(timeout=60)[0]
        span = clock.stop()
        server_cpu = process_cpu_seconds(server.process.pid) - server_before
        wrk_user, wrk_system = (after - before for after, before in zip(children_cpu_seconds(), wrk_before))
    finally:
        server.process.send_signal(signal.SIGTERM)
        server.wait(timeout=600)
        shutil.rmtree(data, ignore_errors=True)
    failed = re.search(r"posted (\d+) requests, (\d+) non-2xx", posted)
    count = int(failed.group(1)) if failed else 0
    return {"rate": count / span if count and span else 0.0, "failed": int(failed.group(2)) if failed else None,
            "connections": connections, "server_cpu": server_cpu / count if count else None,
            "wrk_cpu": (wrk_user + wrk_system) / count if count else None,
            "wrk_system_share": wrk_system / (wrk_user + wrk_system) if wrk_user + wrk_system > 0 else None}


# Rendering

def seconds_cell(value):
    if value is None:
        return "–"
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


def count_cell(value):
    if value is None:
        return "–"
    for divisor, suffix in ((1e6, " M"), (1e3, " k")):
        if value >= divisor:
            return f"{value / divisor:.3g}{suffix}"
    return f"{value:.3g}"


def bytes_cell(kib):
    return "–" if kib is None else f"{kib / 1024:,.0f} MB"


def verdict(rows, pick):
    measured = [row for row in rows if pick(row) is not None]
    if len(measured) < 2:
        return "–"
    first, last = measured[0], measured[-1]
    ratio = pick(last) / pick(first)
    growth = last["events"] / first["events"]
    # Sizes where the figure is missing (a stopped step) are not part of the verdict: say so.
    span = "" if (first, last) == (rows[0], rows[-1]) else f", {count_cell(first['events'])} → {count_cell(last['events'])} only"
    if abs(ratio - 1) <= FLAT:
        return f"flat ({ratio - 1:+.0%}{span})"
    exponent = math.log(ratio) / math.log(growth)
    word = "falls" if ratio < 1 else "grows"
    return f"{word} ×{ratio:.3g} for ×{growth:.3g} events (∝ events^{exponent:.2f}{span})"


COLUMNS = [
    ("dashboard `GET /`", lambda r: r.get("dashboard"), seconds_cell),
    ("revenue", lambda r: r.get("revenue"), seconds_cell),
    ("MRR", lambda r: r.get("mrr"), seconds_cell),
    ("churn", lambda r: r.get("churn"), seconds_cell),
    ("cohorts", lambda r: r.get("cohorts"), seconds_cell),
    ("look-up p99, webhook ≤ 200/s", lambda r: r.get("paced_p99"), seconds_cell),
    ("`/healthz` p99, the same load", lambda r: r.get("probe_p99"), seconds_cell),
    ("look-up p99, webhook at full rate", lambda r: r.get("lookup_p99"), seconds_cell),
    ("server RSS", lambda r: r.get("rss"), bytes_cell),
    ("of it anonymous", lambda r: r.get("anon"), bytes_cell),
    ("rebuild wall", lambda r: r.get("rebuild_wall"), seconds_cell),
    ("fold (events/s)", lambda r: r.get("fold"), count_cell),
    ("rebuild in batches wall", lambda r: r.get("batched_wall"), seconds_cell),
    ("its peak anonymous memory", lambda r: r.get("batched_anon"), bytes_cell),
    ("open (`stats --json`)", lambda r: r.get("open"), seconds_cell),
]


def files_cell(kib):
    if not kib:
        return "–"
    return ", ".join(f"{part}/ {bytes_cell(size)}" for part, size in sorted(kib.items(), key=lambda item: -item[1]) if size >= 1024) or "under 1 MB"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(rows, setting, ingest):
    main = [[count_cell(r.get("events")), count_cell(r.get("customers"))] + [cell(pick(r)) for _, pick, cell in COLUMNS] for r in rows]
    verdicts = [verdict(rows, pick) for _, pick, _ in COLUMNS]
    if len(rows) > 1:
        main.append([f"{count_cell(rows[0].get('events'))} → {count_cell(rows[-1].get('events'))}", "verdict"] + verdicts)
    details = [[count_cell(r.get("events")), str(r["tiles"]), seconds_cell(r.get("paced_p50")), count_cell(r.get("paced_webhook")) + "/s" if r.get("paced_webhook") else "–",
                seconds_cell(r.get("lookup_p50")),
                f"{r.get('lookups', 0):,}" + (f" ({r['lookup_errors']} failed)" if r.get("lookup_errors") else ""),
                (count_cell(r.get("webhook")) + "/s" + (" (wrapped: some posts were repeats)" if r.get("wrapped") else "")) if r.get("webhook") else "–",
                bytes_cell(r.get("hwm")), bytes_cell(r.get("rebuild_peak")),
                count_cell(r["events"] / r["rebuild_wall"]) if r.get("rebuild_wall") else "–",
                seconds_cell(r.get("ready")), files_cell(r.get("files")), ", ".join(r["stopped"])] for r in rows]
    per_core, cores, limit, own = ingest["limit"]
    table_limit = own["table"] * cores / 3
    notifications, rate = ingest["cli"]
    webhook = ingest["webhook"]
    webhook_rate, webhook_failed, webhook_connections = webhook["rate"], webhook["failed"], webhook["connections"]
    webhook_cpu = ""
    if webhook["server_cpu"] and webhook["wrk_cpu"]:
        verifications = 3 / own["table"]
        webhook_cpu = f""" Per notification the server used {webhook["server_cpu"] * 1e6:.0f} µs of CPU, and wrk, on the same
{cores} cores, {webhook["wrk_cpu"] * 1e6:.0f} µs ({webhook["wrk_system_share"]:.0%} of it in the kernel: loopback TCP). Three verifications take
{verifications * 1e6:.0f} µs with the key table, so with wrk beside it the webhook could not pass
{cores / (verifications + webhook["wrk_cpu"]) / limit:.0%} of the limit even if the server did nothing but verify; with the load
sent from another machine, as the App Store's is, the server's own CPU would carry
{count_cell(cores / webhook["server_cpu"])}/s ({cores / webhook["server_cpu"] / limit:.0%} of the limit)."""
    return f"""<!-- scaling:begin (written by Tools/bench-scaling.py; the rest of this file by subledger-bench) -->
## Scaling on the realistic mix

The simulator's mix of lifecycles (trials, grace and billing retry, refunds and reversals, price
increases, upgrades, commitments, family sharing, one-time purchases), not synthetic renewals:
`subledger simulate --customers {BASE['customers']} --months {BASE['months']} --seed {BASE['seed']}`, ingested, then its
event log written T times with remapped identifiers (`subledger-bench fixture`), each tile's
instants a second after the tile before's, so a report over the same 12 months sees T times the
customers and, as in a real ledger, no two customers' changes share a millisecond (since
2026-12-05: tiles that kept the base's times shared the rollups' cells per instant, and the
10 M-event rebuild wrote 90 k rollup rows instead of 4.7 M). The tiles share the base's
evidence: `history --raw` of a tiled customer shows the base customer's signed message. Measured
only through `subledger` and `subledger serve`, one figure per cell (reads: the median of up to 5
after a warm-up, fewer when each takes long; a read slower than {SAMPLE_BUDGET_SECONDS} s is measured once).

{table(["setting", "value"], setting)}

{table(["events", "customers"] + [name for name, _, _ in COLUMNS], main)}

"Flat" means within ±{FLAT:.0%} from the smallest size to the largest; otherwise the growth, and
its exponent (events^1 grows in proportion to history). Reports cover {FROM} to {TO} (MRR at
{MRR_AT}, cohorts {FROM_MONTH} to {TO_MONTH}). Look-ups are `GET /v1/customers/ID` of ids spread
over all tiles, about 1,000 a second for {LOOKUP_SECONDS} s, while wrk posts a separate simulation's signed
notifications to the webhook, each run past the one before so that every notification posted is new
(a repeat is answered as a duplicate, unverified): first paced ({PACED_CONNECTIONS} connections, {PACED_DELAY_MS} ms apart, at most 200/s: more
than a large app's busiest hour), then at the full rate (32 connections, as fast as the server
acknowledges, which keeps both cores verifying). `/healthz` p99 is the same pace of `GET /healthz`
under the same paced webhook, which the event loop answers itself, without a worker or the ledger:
the wait any request has on this host under that load (the client, loopback TCP, the two cores'
scheduling), measured between the two look-up runs; a look-up's own cost is what it adds. Server RSS is `VmRSS` after the dashboard, the
reports and the look-ups, with `serve`'s default `--mapped-memory-limit` of 256 MB; "of it
anonymous" is `RssAnon`, the process's own memory (the rest is file pages: the binary and the
databases' mapped pages). Rebuild wall is `subledger rebuild` from process start to exit, with
the fixture's previous snapshot in place; fold is its `foldEventsPerSecond`: events over the
fold alone (reading the log and folding it in memory), before the database is written. Rebuild in
batches is `subledger rebuild --strategy batched` (what `auto` does where memory is short), with
the peak of its `RssAnon` (its own memory, without the database pages it maps). Open is a whole
`subledger stats --json`. Resident file pages by directory are the server's mapped files in its
data directory at the end (`/proc/PID/smaps`), by the data directory's top folder.

{table(["events", "tiles", "look-up p50, webhook ≤ 200/s", "paced webhook", "look-up p50, full rate", "look-ups", "webhook while looking up", "server VmHWM", "rebuild peak RSS", "rebuild events/s (wall)", "server ready", "resident file pages by directory", f"stopped above {MEMORY_LIMIT_KIB // 1024 // 1024} GiB"], details)}

Verified ingestion, `subledger ingest` of {notifications:,} fresh notifications into an empty ledger:
**{count_cell(rate)} notifications/s**, {rate / limit:.0%} of this machine's ES256 limit of {count_cell(limit)}/s
(`openssl speed -seconds 3 ecdsap256`: {count_cell(per_core)} verifications/s per core × {cores} cores ÷ 3 JWS per
notification), measured in the same run. Ingestion verifies with the leaf key's multiples precomputed
(`ES256KeyTable`: Apple signs every message with one leaf key for months), which `subledger-bench es256`
measured at {count_cell(own["table"])} verifications/s per core, against {count_cell(own["libcrypto"])} through
libcrypto's own verification, in the same run: so ingestion can pass the limit `openssl speed` sets. Against
the table's {count_cell(table_limit)} notifications/s (× {cores} cores ÷ 3), the CLI came to {rate / table_limit:.0%}.
The webhook, `serve` on an empty ledger with wrk posting the
same notifications, each once, over {webhook_connections} connections, each answered once durable and folded (the rate over the span the log grew in):
**{count_cell(webhook_rate)} notifications/s**, {webhook_rate / limit:.0%} of the limit{f" ({webhook_failed} answered other than 2xx)" if webhook_failed else ""}.{webhook_cpu}
<!-- scaling:end -->
"""


def write_section(path, section):
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    begin, end = text.find("<!-- scaling:begin"), text.find("<!-- scaling:end -->")
    if begin >= 0 and end > begin:
        text = text[:begin] + section + text[end + len("<!-- scaling:end -->\n"):]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(path, "w") as file:
        file.write(text)


def main():
    parser = argparse.ArgumentParser(description="Scaling on the realistic mix (see the module docstring).")
    parser.add_argument("--sizes", default="160k,1m,10m", help="events per size, e.g. 160k,1m (default 160k,1m,10m)")
    parser.add_argument("--report", default=os.path.join(REPO, "docs/benchmarks.md"), help="Markdown file whose scaling section is replaced")
    parser.add_argument("--no-report", action="store_true", help="print the section only")
    parser.add_argument("--command", default="Tools/bench-scaling.py " + " ".join(sys.argv[1:]))
    options = parser.parse_args()
    sizes = sorted(parse_size(size) for size in options.sizes.split(","))
    for binary in (SUBLEDGER, BENCH):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"bench-scaling: {binary} is missing: swift build -c release")
    if shutil.which("wrk") is None:
        raise SystemExit("bench-scaling: wrk is missing: apt-get install wrk (Tools/setup installs it)")
    os.makedirs(FIXTURES, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="subledger-bench-scaling-", dir=os.environ.get("TMPDIR", "/tmp"))
    load_at_start = open("/proc/loadavg").read().split()[0]
    try:
        progress("bench-scaling: fixtures")
        path = base_fixture()
        _, out, _, _ = subledger(path + "/ledger", "stats", "--json")
        stats = json.loads(out)
        base = {"path": path, "events": stats["events"], "customers": stats["customers"]}
        fresh = fresh_simulation()
        progress("bench-scaling: ES256 limit (openssl speed) and `subledger ingest` of the fresh simulation")
        ingest = {"limit": es256_limit(), "cli": cli_ingest(fresh, scratch), "webhook": webhook_ingest(fresh, scratch)}
        rows = []
        for size in sizes:
            progress(f"bench-scaling: ~{count_cell(size)} events")
            rows.append(measure(size, base, fresh, scratch))
            print(json.dumps(rows[-1]), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown")
    setting = [["date", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())], ["command", f"`{options.command}`"],
               ["CPU", f"{cpu}, {os.cpu_count()} cores"], ["base", f"{base['events']:,} events"],
               ["run time", f"{(time.monotonic() - BEGAN) / 60:.1f} min (fixtures made or reused included)"],
               ["load average (1 min) at start / end", f"{load_at_start} / {open('/proc/loadavg').read().split()[0]}"]]
    section = markdown(rows, setting, ingest)
    print("\n" + section)
    if not options.no_report:
        write_section(options.report, section)
        print(f"bench-scaling: section written to {options.report}")


if __name__ == "__main__":
    main()
