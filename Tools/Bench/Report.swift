/// Everything one run measured, and its rendering as docs/benchmarks.md.
struct Report {
    struct Setup {
        var machine: Machine
        var date: String
        var command: String
        var toolchain: String
        var runs: Int
        var sqlite: String
        var postgres: String
        var python: String
        var appendCounts: [Int: Int]
        var groupCommit: (tasks: Int, perTask: Int)
        var scanRecords: Int
        var lookups: Int
        /// Other work on the machine when the run began (`/proc/loadavg`).
        var loadAtStart: String
    }

    var setup: Setup
    var append: [Comparison] = []
    var scan: ScanBenchmark.Result?
    var ingest: IngestBenchmark.Result?
    var sizes: [RebuildBenchmark.SizeResult] = []
    var seconds: Double = 0

    func markdown() -> String {
        var parts = [header(), appendSection(), ingestSection(), scanSection(), rebuildSection(), lookupSection(), bytesSection(), scalingSection(), howToRead()]
        parts.removeAll { $0.isEmpty }
        return parts.joined(separator: "\n\n") + "\n"
    }

    private func header() -> String {
        let machine = setup.machine
        return """
            # Benchmarks

            <!-- Written by `make bench` (Tools/bench → subledger-bench); every run rewrites this whole file but the section "Scaling on the realistic mix", which Tools/bench-scaling.py writes. -->

            One run on one machine: Subledger beside SQLite (embedded, same records and batching) and \
            PostgreSQL (a private cluster on loopback, same records and batching). Each figure is the median \
            of \(setup.runs) run\(setup.runs == 1 ? "" : "s"), the lowest and highest in brackets; the runs take \
            turns (Subledger, SQLite, PostgreSQL, then again), so a slow spell of the machine falls on all alike. The \
            "vs" columns divide medians and say how many times faster (or smaller) Subledger is — below 1× it is slower.

            \(markdownTable(["setting", "value"], [
                ["date", setup.date],
                ["command", "`\(setup.command)`"],
                ["CPU", "\(machine.cpu), \(machine.cores) cores"],
                ["memory", byteCount(Double(machine.memoryBytes))],
                ["kernel", machine.kernel],
                ["file system of the run's files", machine.temporaryFileSystem],
                ["toolchain", "\(setup.toolchain), release build"],
                ["SQLite", setup.sqlite],
                ["PostgreSQL", setup.postgres],
                ["Apple's Python library", setup.python],
                ["run time", "\(fixed(seconds / 60, 1)) min (the benchmarks; build and PostgreSQL start not included)"],
                ["load average (1 min) at start / end", "\(setup.loadAtStart) / \(Machine.loadAverage())"],
            ]))
            """
    }

    private func appendSection() -> String {
        guard !append.isEmpty else { return "" }
        let counts = setup.appendCounts.sorted { $0.key < $1.key }.map { "\(grouped($0.value)) records in batches of \($0.key)" }.joined(separator: ", ")
        return """
            ## Durable append

            200-byte records; each transaction is on disk before the next starts (\(counts); group commit: \
            \(setup.groupCommit.tasks) writers × \(setup.groupCommit.perTask) records).

            \(comparisonTable(append, firstColumn: "transactions"))
            """
    }

    private func ingestSection() -> String {
        guard let ingest else { return "" }
        let subledger = ingest.subledger
        let ratio = ingest.python.map { ratioCell(subledger.median / $0.median) } ?? "–"
        var text = """
            ## Verified ingest

            \(grouped(ingest.notifications)) signed notifications, each with a signed transaction and renewal info: three \
            ES256 JWS with x5c chains. Apple's library verifies the first \(grouped(ingest.pythonNotifications)) of the \
            same notifications.

            \(markdownTable(["what", "unit", "Subledger (verify, store durably, fold)", "Apple's Python library (verify only)", "vs Python"], [
                ["verified notifications", "notifications/s", cell(subledger), cell(ingest.python), ratio],
            ]))
            """
        if let missing = ingest.pythonMissing { text += "\n\nApple's library: \(missing)." }
        return text
    }

    private func scanSection() -> String {
        guard let scan else { return "" }
        let share = scan.logGigabytesPerSecond.median / scan.readAndChecksumGigabytesPerSecond.median
        return """
            ## Scan

            A warm sequential scan of \(grouped(setup.scanRecords)) records of 200 bytes, beside the limit: `read(2)` of the \
            same segment files with CRC32C over every byte.

            \(comparisonTable([scan.records]))

            \(markdownTable(["what", "GB/s"], [
                ["Subledger scan (frames parsed, CRC32C checked)", cell(scan.logGigabytesPerSecond, metric: false)],
                ["limit: `read(2)` + CRC32C of the same files", cell(scan.readAndChecksumGigabytesPerSecond, metric: false)],
                ["scan ÷ limit", fixed(share * 100, 0) + "%"],
            ]))
            """
    }

    private func rebuildSection() -> String {
        guard let largest = sizes.last else { return "" }
        return """
            ## Rebuild and replay

            \(millions(largest.events)) events (\(grouped(largest.customers)) customers), the largest size of the run.

            \(comparisonTable([
                Comparison("rebuild on open: log → fold → LMDB snapshot", unit: .perSecond("events"), subledger: largest.rebuild),
                largest.fold,
            ]))
            """
    }

    private func lookupSection() -> String {
        guard let largest = sizes.last else { return "" }
        var text = """
            ## Customer look-up

            \(grouped(setup.lookups)) look-ups of random customers per run, \(millions(largest.events)) events. Subledger computes \
            the customer's state from the projection in memory; SQLite (in process) and PostgreSQL (loopback) fetch the \
            same customer's snapshot rows by primary key.

            \(comparisonTable([largest.lookupP50, largest.lookupP99]))
            """
        if let note = largest.lookupNote { text += "\n\n\(note)." }
        return text
    }

    private func bytesSection() -> String {
        var rows: [Comparison] = []
        if let ingest {
            rows.append(Comparison("evidence log (the signed bodies)", unit: .bytes("notification"), subledger: Samples([ingest.evidenceBytesPerNotification])))
            rows.append(Comparison("event log", unit: .bytes("notification"), subledger: Samples([ingest.eventBytesPerNotification])))
        }
        if let largest = sizes.last {
            let events = Double(largest.events)
            rows.append(Comparison(
                "events (\(millions(largest.events)))", unit: .bytes("event"), subledger: Samples([Double(largest.logBytes) / events]),
                sqlite: Samples([Double(largest.sqliteBytes) / events]), postgres: largest.postgresBytes.map { Samples([Double($0) / events]) }))
            rows.append(Comparison("projection snapshot (LMDB)", unit: .bytes("event"), subledger: Samples([Double(largest.snapshotBytes) / events])))
        }
        guard !rows.isEmpty else { return "" }
        return """
            ## Stored bytes

            Bytes on disk: Subledger's logs and snapshot; SQLite's database file (`page_count × page_size`); \
            PostgreSQL's table with its index and TOAST (`pg_total_relation_size`).

            \(comparisonTable(rows))
            """
    }

    private func scalingSection() -> String {
        guard let first = sizes.first, let last = sizes.last else { return "" }
        func rates(_ pick: (RebuildBenchmark.SizeResult) -> Samples?) -> [String] {
            sizes.map { size in pick(size).map { rateCell($0.median) } ?? "–" }
        }
        func verdict(_ pick: (RebuildBenchmark.SizeResult) -> Double?) -> String {
            guard sizes.count > 1, let a = pick(first), let b = pick(last), a > 0 else { return "–" }
            let change = b / a - 1
            return (change >= 0 ? "+" : "") + fixed(change * 100, 0) + "%, " + (abs(change) <= 0.2 ? "linear" : "not linear")
        }
        let span = "\(millions(last.events)) vs \(millions(first.events))"
        let columns: [(String, (RebuildBenchmark.SizeResult) -> Samples?)] = [
            ("rebuild on open", { $0.rebuild }), ("fold: log", { $0.fold.subledger }),
            ("fold: SQLite", { $0.fold.sqlite }), ("fold: PostgreSQL", { $0.fold.postgres }),
            ("append: log", { $0.append.subledger }), ("append: SQLite", { $0.append.sqlite }),
            ("append: PostgreSQL", { $0.append.postgres }),
        ]
        var throughput = sizes.indices.map { [millions(sizes[$0].events)] }
        for (_, pick) in columns {
            for (i, value) in rates(pick).enumerated() { throughput[i].append(value) }
        }
        throughput.append([span] + columns.map { _, pick in verdict { pick($0)?.median } })

        let lookups = sizes.map { size in
            [millions(size.events), grouped(size.customers)]
                + [(size.lookupP50.subledger, size.lookupP99.subledger), (size.lookupP50.sqlite, size.lookupP99.sqlite),
                   (size.lookupP50.postgres, size.lookupP99.postgres)].map { p50, p99 in
                    guard let p50, let p99 else { return "–" }
                    return significant(p50.median) + " / " + significant(p99.median)
                }
        }

        let spaceColumns: [(RebuildBenchmark.SizeResult) -> Double?] = [
            { Double($0.logBytes) }, { Double($0.snapshotBytes) }, { Double($0.sqliteBytes) }, { $0.postgresBytes.map(Double.init) },
            { $0.rebuildPeakMemory.map(Double.init) },
        ]
        var space = sizes.map { size in
            [millions(size.events)] + spaceColumns.map { pick in pick(size).map { significant($0 / Double(size.events)) } ?? "–" }
        }
        space.append([span] + spaceColumns.map { pick in verdict { size in pick(size).map { $0 / Double(size.events) } } })

        return """
            ## Scaling on synthetic monthly renewals

            The same measurements at each size of one growing log (medians). "Linear" means the figure per event at \
            the largest size is within ±20% of the smallest: time and space grow in proportion to the events. The \
            "append" columns time the growth to each size (once, 20,000 events per durable transaction: a log \
            `append`, an SQLite transaction, a PostgreSQL `COPY`), so they show how appending behaves as each store \
            fills.

            Events per second:

            \(markdownTable(["events"] + columns.map(\.0), throughput))

            Customer look-up, p50 / p99 in µs:

            \(markdownTable(["events", "customers", "Subledger", "SQLite", "PostgreSQL"], lookups))

            Bytes per event:

            \(markdownTable(["events", "event log", "snapshot", "SQLite file", "PostgreSQL table", "rebuild peak memory"], space))
            """
    }

    private func howToRead() -> String {
        """
        ## How to read this

        - **Durable append.** Every transaction is durable before the next begins: Subledger's `append` returns \
        after `fdatasync`; SQLite commits in WAL mode with `synchronous=FULL`; PostgreSQL commits with `fsync=on` \
        and `synchronous_commit=on`. SQLite inserts with one prepared `INSERT` per record inside `BEGIN`/`COMMIT`; \
        PostgreSQL uses a prepared `INSERT` for batches of one and one binary `COPY ... FROM STDIN` per larger \
        batch, over loopback TCP. With one record per transaction all three are bound by the latency of one \
        flush, so that row says more about the disk than about the systems. Group commit (many writers, one flush \
        for all waiting records) is measured for Subledger only.
        - **Verified ingest.** Subledger's figure is the whole path: parse the webhook body, verify the three \
        JWS and their chains, map to events, store evidence and events durably, fold into the projection. \
        Apple's library only verifies the same JWS (`SignedDataVerifier` with online checks off), one Python \
        process per core; its time includes starting the interpreters.
        - **Scan.** Warm page cache. `read(2)` + CRC32C is the most any checked scan of these files can do; the \
        share shows how close the log's scan comes. SQLite and PostgreSQL read their rows with \
        `ORDER BY position` (PostgreSQL through a binary cursor, 10,000 rows a fetch).
        - **Rebuild and replay.** "Rebuild on open" opens a projection store on the log with no snapshot: read \
        and check every record, decode, fold, write and flush the LMDB snapshot. The "same fold" rows feed the \
        identical fold (the same payload bytes into `Projection.apply`) from each store, so they differ only by \
        the cost of reading the events back: the log, an SQLite cursor in process, a PostgreSQL binary cursor \
        over loopback. Peak memory is the growth of the resident set (`VmHWM` over the `VmRSS` at start) of a \
        separate process doing one rebuild.
        - **Customer look-up.** Not the same work: Subledger computes the customer's state (entitlements, \
        subscriptions) from memory; SQLite and PostgreSQL only fetch the stored rows of that customer \
        (the snapshot's timeline bytes) with one indexed query. PostgreSQL's figure includes the loopback round trip.
        - **Limits.** One machine, shared with other work: figures move between runs (the brackets show by how \
        much). The workload is synthetic (monthly renewals, 12 events per subscriber, four customers in five \
        with a token); every file lives on the file system named above; PostgreSQL runs with its defaults \
        except the settings listed.
        """
    }

    private func rateCell(_ value: Double) -> String {
        let (divisor, prefix) = metricScale(value)
        return significant(value / divisor) + prefix
    }

    private func millions(_ events: Int) -> String { millionsLabel(events) }
}

extension Report {
    static let scalingBegin = "<!-- scaling:begin"
    static let scalingEnd = "<!-- scaling:end -->\n"

    /// The section Tools/bench-scaling.py wrote into `text` (the previous report), so that a run
    /// of this benchmark keeps it.
    static func scalingSection(in text: String) -> Substring? {
        guard let begin = text.firstRange(of: scalingBegin), let end = text[begin.upperBound...].firstRange(of: scalingEnd) else { return nil }
        return text[begin.lowerBound..<end.upperBound]
    }
}

/// "10 M", "0.05 M".
func millionsLabel(_ events: Int) -> String {
    significant(Double(events) / 1e6).replacingZeros() + " M"
}

extension String {
    /// "1.00" → "1", "0.050" → "0.05".
    func replacingZeros() -> String {
        guard contains(".") else { return self }
        var text = self
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
