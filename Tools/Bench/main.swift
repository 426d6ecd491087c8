// subledger-bench: release-build benchmarks, each printed side by side with SQLite and
// PostgreSQL measured in the same run on the same records and batching. `make bench` runs it
// through Tools/bench, which starts the PostgreSQL cluster and writes docs/benchmarks.md.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

let usage = """
    usage: subledger-bench [--runs R] [--scale 1,2,5,10] [--quick] [--report FILE]
                           [--postgres CONNINFO | --postgres-skipped REASON]
                           [--command TEXT] [--toolchain TEXT]
           subledger-bench fixture --base DIR --tiles N --out DIR   (a scale fixture: fixture --help)
           subledger-bench es256 [SECONDS]   (ES256 verifications/s on one core: libcrypto's, the key table's)

      --runs R        each figure is the median of R runs (default 3)
      --scale LIST    rebuild sizes in millions of events (default 1,2,5,10; 0.05,0.1 with --quick)
      --quick         small counts everywhere, for development (seconds, not minutes)
      --report FILE   also write the report (Markdown) to FILE
      --postgres      libpq connection string of the PostgreSQL to compare with
      --postgres-skipped  why there is no PostgreSQL (shown in the report)
      --command, --toolchain  how the run was started and built, for the report
    """

struct BenchOptions {
    var runs = 3
    var scale: [Double]?
    var quick = false
    var report: String?
    var postgres: String?
    var postgresSkipped: String?
    var command = CommandLine.arguments.joined(separator: " ")
    var toolchain = "unknown"

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        func value(_ flag: String) -> String {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
            return value
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--runs":
                guard let runs = Int(value(flag)), runs >= 1 else { fail("--runs needs a whole number ≥ 1") }
                self.runs = runs
            case "--scale":
                let sizes = value(flag).split(separator: ",").map { Double($0) }
                guard !sizes.isEmpty, sizes.allSatisfy({ ($0 ?? 0) > 0 }) else { fail("--scale needs sizes in millions, e.g. 1,2,5,10") }
                scale = sizes.map { $0! }.sorted()
            case "--quick": quick = true
            case "--report": report = value(flag)
            case "--postgres": postgres = value(flag)
            case "--postgres-skipped": postgresSkipped = value(flag)
            case "--command": command = value(flag)
            case "--toolchain": toolchain = value(flag)
            case "--help", "-h":
                print(usage)
                exit(0)
            default: fail("unknown argument \(flag)")
            }
        }
    }

    var sizes: [Int] { (scale ?? (quick ? [0.05, 0.1] : [1, 2, 5, 10])).map { Int(($0 * 1e6).rounded()) } }
}

func fail(_ message: String) -> Never {
    fputs("subledger-bench: \(message)\n\n\(usage)\n", stderr)
    exit(2)
}

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "fixture" {
    exit(FixtureCommand.run(Array(CommandLine.arguments.dropFirst(2))))
}

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "es256" {
    exit(ES256Benchmark.run(Array(CommandLine.arguments.dropFirst(2))))
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == RebuildMemoryProbe.flag {
    try RebuildMemoryProbe.runChild(log: CommandLine.arguments[2])
    exit(0)
}

let options = BenchOptions(CommandLine.arguments)
let began = benchStart
let runs = options.runs
let quick = options.quick

var postgres: PostgresConnection?
var postgresDescription: String
if let conninfo = options.postgres {
    do {
        let connection = try PostgresConnection(conninfo)
        let settings = try ["fsync", "synchronous_commit", "wal_level", "shared_buffers", "max_wal_size"].map { name in
            "\(name)=\(try connection.execute("SHOW \(name)").text(row: 0, column: 0))"
        }
        postgres = connection
        postgresDescription = "\(connection.serverVersion), private cluster on 127.0.0.1 (TCP), \(settings.joined(separator: ", "))"
    } catch {
        postgresDescription = "not measured: \(error)"
    }
} else {
    postgresDescription = "not measured: \(options.postgresSkipped ?? "no --postgres given (Tools/bench starts a private cluster)")"
}

let appendCounts = quick ? [1: 200, 100: 10_000, 1000: 50_000] : [1: 5_000, 100: 200_000, 1000: 1_000_000]
let groupCommit = quick ? (tasks: 256, perTask: 10) : (tasks: 256, perTask: 400)
let scanRecords = quick ? 100_000 : 2_000_000
let lookups = quick ? 2_000 : 20_000
let requirements = readTextFile("Tools/python/requirements.txt")?.split(separator: "\n").first { $0.hasPrefix("app-store-server-library==") }
var report = Report(setup: Report.Setup(
    machine: Machine.current(), date: utcTimestamp(), command: options.command, toolchain: options.toolchain, runs: runs,
    sqlite: "\(SQLiteDatabase.version), WAL, synchronous=FULL", postgres: postgresDescription,
    python: requirements.map { "\($0.replacingOccurrences("==", " ")), in .build/python" } ?? "unknown version",
    appendCounts: appendCounts, groupCommit: groupCommit, scanRecords: scanRecords, lookups: lookups, loadAtStart: Machine.loadAverage()))

print("subledger-bench: \(runs) run\(runs == 1 ? "" : "s") per figure; PostgreSQL: \(postgresDescription)")
progress("durable append")
for (batch, count) in appendCounts.sorted(by: { $0.key < $1.key }) {
    progress("  \(grouped(count)) records in batches of \(batch)")
    report.append.append(try AppendBenchmark.run(batch: batch, count: count, runs: runs, postgres: postgres))
}
progress("  group commit")
report.append.append(try await AppendBenchmark.groupCommit(tasks: groupCommit.tasks, perTask: groupCommit.perTask, runs: runs))

progress("verified ingest")
report.ingest = try IngestBenchmark.run(count: quick ? 500 : 20_000, pythonCount: quick ? 200 : 1_000, runs: runs)

progress("scan")
report.scan = try ScanBenchmark.run(count: scanRecords, runs: runs, postgres: postgres)

progress("rebuild, replay and look-up at \(options.sizes.map(millionsLabel).joined(separator: ", ")) events")
do {
    let rebuild = try RebuildBenchmark(postgres: postgres)
    for size in options.sizes {
        progress("  growing the log to \(millionsLabel(size)) events (and the SQLite and PostgreSQL tables)")
        let append = try rebuild.grow(to: size)
        report.sizes.append(try rebuild.measure(runs: runs, lookups: lookups, append: append))
    }
}

report.seconds = now() - began
let markdown = report.markdown()
print("")
print(markdown)
if let path = options.report {
    let kept = readTextFile(path).flatMap(Report.scalingSection(in:)).map { "\n" + $0 } ?? ""
    writeFile(path, Array((markdown + kept).utf8))
    print("report written to \(path)")
}
print("subledger-bench: done in \(fixed(report.seconds / 60, 1)) min")

extension Substring {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
