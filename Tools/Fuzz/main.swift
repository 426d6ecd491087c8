// subledger-fuzz: fuzzing of the parsers that face the outside, one target at a time.
//   messages  webhook bodies, compact JWS and the App Store payload JSON decoders
//   base64    the base64 and base64url codecs
//   events    the binary event codec and its in-place view
//   log       the log's frame reader and segment walk (in memory; a share also on disk)
//   http      the HTTP/1.1 request parser, whole and split into reads
// The bounded harness mutates each target's corpus N times; built by `Tools/fuzz --libfuzzer`
// (with -sanitize=fuzzer) the same targets run under coverage-guided libFuzzer instead.
//   subledger-fuzz [--target NAME|all] [--inputs N] [--seed S] [--artifacts DIR] SEED_FILE...
//   subledger-fuzz --target NAME --replay FILE...            feed saved inputs again
//   subledger-fuzz --target NAME --libfuzzer SEED_FILE... -- LIBFUZZER_ARGS   (libFuzzer build)
#if canImport(Glibc)
import Glibc
#endif

let targetNames = [MessagesTarget.name, Base64Target.name, EventsTarget.name, LogTarget.name, HTTPTarget.name]
let usage = "usage: subledger-fuzz [--target \(targetNames.joined(separator: "|"))|all] [--inputs N] [--seed S] [--artifacts DIR] [--replay FILE... | --libfuzzer] SEED_FILE... [-- LIBFUZZER_ARGS]"

func fail(_ message: String) -> Never {
    print("subledger-fuzz: \(message)")
    exit(2)
}

var selected = "all"
var inputs = 20_000
var seed: UInt64 = 1
var artifacts = "/tmp"
var replay = false
var libFuzzer = false
var files: [String] = []
var libFuzzerArguments: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--target": selected = arguments.popFirst() ?? ""
    case "--inputs": inputs = arguments.popFirst().flatMap { Int($0) } ?? -1
    case "--seed": seed = arguments.popFirst().flatMap { UInt64($0) } ?? 0
    case "--artifacts": artifacts = arguments.popFirst() ?? "."
    case "--replay": replay = true
    case "--libfuzzer": libFuzzer = true
    case "--":
        libFuzzerArguments = Array(arguments)
        arguments = []
    case let flag where flag.hasPrefix("--"): fail(usage)
    default: files.append(argument)
    }
}
guard selected == "all" || targetNames.contains(selected), inputs >= 0 else { fail(usage) }
let names = selected == "all" ? targetNames : [selected]

func makeTarget(_ name: String, seedLines: [[UInt8]], diskShare: Int) -> any FuzzTarget {
    switch name {
    case MessagesTarget.name: return MessagesTarget(seedLines: seedLines)
    case Base64Target.name: return Base64Target()
    case EventsTarget.name: return EventsTarget(seedLines: seedLines)
    case LogTarget.name: return LogTarget(seedLines: seedLines, diskShare: diskShare)
    default: return HTTPTarget()
    }
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[..<count] }
    return bytes
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    guard let file = fopen(path, "wb") else { return }
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

/// Feeds one input with the generator its own bytes seed, so a saved input replays exactly.
func feed(_ target: inout some FuzzTarget, _ input: [UInt8]) throws(InvariantViolation) {
    let fed = input.withUnsafeBytes { raw in
        CrashCapture.input = raw
        var random = Random(hashing: raw)
        return Result { () throws(InvariantViolation) in try target.feed(input, &random) }
    }
    CrashCapture.progress += 1
    try fed.get()
}

@MainActor
func runBounded(_ target: inout some FuzzTarget, random: inout Random) -> Bool {
    let name = type(of: target).name
    CrashCapture.arm(crashPath: "\(artifacts)/fuzz-\(name)-crash.bin", hangPath: "\(artifacts)/fuzz-\(name)-hang.bin")
    defer { CrashCapture.disarm() }
    for index in 0..<inputs {
        let input = target.generate(&random)
        do { try feed(&target, input) } catch {
            let path = "\(artifacts)/fuzz-\(name)-violation.bin"
            writeFile(path, input)
            print("subledger-fuzz \(name): FAILED at input \(index) (seed \(seed)): \(error)")
            print("subledger-fuzz \(name): the input is saved in \(path); replay it with --target \(name) --replay \(path)")
            return false
        }
    }
    return true
}

@MainActor
func runReplay(_ target: inout some FuzzTarget) -> Bool {
    let name = type(of: target).name
    for path in files {
        guard let input = readFile(path) else { fail("cannot read \(path)") }
        do { try feed(&target, input) } catch {
            print("subledger-fuzz \(name): \(path): \(error)")
            return false
        }
    }
    print("subledger-fuzz \(name): \(files.count) inputs replayed: \(target.tally)")
    return true
}

if replay {
    guard names.count == 1 else { fail("--replay needs one --target") }
    var target = makeTarget(names[0], seedLines: [], diskShare: 1)
    let passed = runReplay(&target)
    (target as? LogTarget)?.finish()
    exit(passed ? 0 : 1)
}

let seedLines = readSeedLines(files)
guard !seedLines.isEmpty else { fail("no seed inputs (pass files of JWS or webhook body lines)") }

if libFuzzer {
    guard names.count == 1 else { fail("--libfuzzer needs one --target") }
    runLibFuzzer(makeTarget(names[0], seedLines: seedLines, diskShare: 0), arguments: libFuzzerArguments)
}

/// The log target puts one input in this many on disk as well.
let logDiskShare = 10
var failed = 0
for name in names {
    var target = makeTarget(name, seedLines: seedLines, diskShare: logDiskShare)
    var random = Random(state: seed ^ Array(name.utf8).withUnsafeBytes { Random(hashing: $0).state })
    let start = now()
    let passed = runBounded(&target, random: &random)
    let seconds = now() - start
    (target as? LogTarget)?.finish()
    let padded = name + String(repeating: " ", count: max(0, 8 - name.count))
    let disk = name == LogTarget.name ? " (1 in \(logDiskShare) also as a log directory on disk)" : ""
    print("subledger-fuzz \(padded) \(inputs) inputs in \((seconds * 10).rounded() / 10) s\(disk): \(target.tally)\(passed ? "; invariants held" : "")")
    if !passed { failed += 1 }
}
print("subledger-fuzz: \(names.count - failed) targets passed, \(failed) failed (seed \(seed))")
exit(failed == 0 ? 0 : 1)
