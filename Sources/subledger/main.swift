#if canImport(Glibc)
import Glibc
#endif
import SubledgerCLI

let (exitCode, output) = CommandLineTool().run(Array(CommandLine.arguments.dropFirst()))
print(output, terminator: "")
exit(exitCode.rawValue)
