#if canImport(Glibc)
import Glibc
#endif

#if SUBLEDGER_LIBFUZZER
// Built by `Tools/fuzz --libfuzzer` with -sanitize=fuzzer: libFuzzer's runtime is linked in and
// its driver is started from here (SwiftPM's executable keeps its own main), with a target
// chosen on the command line.

/// libFuzzer's entry point for programs with their own main (compiler-rt FuzzerInterface.h).
@_extern(c, "LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The one target of this run; the callback, a C function, cannot capture it.
nonisolated(unsafe) var libFuzzerTarget: (any FuzzTarget)?

/// Runs libFuzzer on `target` with `arguments` (its flags, then corpus directories, the first of
/// which receives the target's corpus before it starts). An input that breaks an invariant
/// ends the process like a crash, so libFuzzer saves it as a crash artifact.
func runLibFuzzer(_ target: any FuzzTarget, arguments: [String]) -> Never {
    if let directory = arguments.first(where: { !$0.hasPrefix("-") }) {
        for (index, input) in target.corpus.enumerated() { writeFile("\(directory)/seed-\(index)", input) }
    }
    libFuzzerTarget = target
    var argv = ([CommandLine.arguments[0]] + arguments).map { strdup($0) } + [nil]
    var argc = CInt(argv.count - 1)
    let status = argv.withUnsafeMutableBufferPointer { argv in
        var pointer = argv.baseAddress!
        return LLVMFuzzerRunDriver(&argc, &pointer) { data, count in
            let input = Array(UnsafeRawBufferPointer(start: data, count: count))
            var random = input.withUnsafeBytes { Random(hashing: $0) }
            do { try libFuzzerTarget!.feed(input, &random) } catch {
                fatalError("\(type(of: libFuzzerTarget!).name): \(error)")
            }
            return 0
        }
    }
    exit(status)
}
#else
func runLibFuzzer(_ target: any FuzzTarget, arguments: [String]) -> Never {
    fail("this build has no libFuzzer; run Tools/fuzz --libfuzzer \(type(of: target).name)")
}
#endif
