#if canImport(Glibc)
import Glibc
#endif
import SubledgerCLI
import SubledgerCore

if CommandLineTool.foldsWholeLog(Array(CommandLine.arguments.dropFirst())) {
    HugePageMalloc.reexecute(arguments: CommandLine.arguments)
}

/// Writes `text` to standard output whole, or ends the process with exit 1 saying why: a
/// document lost to a full disk (`report --json > out.json`) must not look like success.
let stdout: @Sendable (String) -> Void = { text in
    var text = text
    text.withUTF8 { bytes in
        var done = 0
        while done < bytes.count {
            let written = write(1, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let reason = written < 0 ? String(cString: strerror(errno)) : "nothing was written"
                let message = Array("subledger: cannot write standard output: \(reason); what was to be printed is lost\n".utf8)
                _ = write(2, message, message.count)
                exit(ExitCode.failure.rawValue)
            }
            done += written
        }
    }
}
let (exitCode, output) = CommandLineTool(stdout: stdout).run(Array(CommandLine.arguments.dropFirst()))
if !output.isEmpty { stdout(output) }
exit(exitCode.rawValue)
