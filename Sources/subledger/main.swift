#if canImport(Glibc)
import Glibc
#endif
import SubledgerCLI
import SubledgerCore

if CommandLineTool.foldsWholeLog(Array(CommandLine.arguments.dropFirst())) {
    HugePageMalloc.reexecute(arguments: CommandLine.arguments)
}

let stdout: @Sendable (String) -> Void = { text in
    var text = text
    text.withUTF8 { bytes in
        var done = 0
        while done < bytes.count {
            let written = write(1, bytes.baseAddress! + done, bytes.count - done)
            if written <= 0 { exit(ExitCode.failure.rawValue) }
            done += written
        }
    }
}
let (exitCode, output) = CommandLineTool(stdout: stdout).run(Array(CommandLine.arguments.dropFirst()))
print(output, terminator: "")
exit(exitCode.rawValue)
