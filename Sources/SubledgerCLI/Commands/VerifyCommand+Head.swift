import SubledgerLedger
import SubledgerLog

/// `subledger verify --head HASH --at POSITION`: whether the ledger up to POSITION still has the
/// published digest, and where it differs when not.
extension VerifyCommand {
    static func verifyHead(_ hash: String, _ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        guard let text = arguments.value("--at") else { throw UsageError("--head needs --at POSITION, the position published with the hash") }
        guard let position = LogPosition(text) else { throw UsageError("--at is a log position (a decimal number), not '\(text)'") }
        guard hash.count == 64, hash.allSatisfy(\.isHexDigit) else { throw UsageError("--head is the 64 hexadecimal digits `subledger head` printed, not '\(hash)'") }
        // Both logs are read through to the head: on a large ledger, tens of gigabytes.
        var throttle = ProgressThrottle(quietFor: 1)
        let verification = try LedgerHead.verify(directory: context.data.path, hash: hash, at: position) { log, records in
            if throttle.due() { Output.progress("verify --head: \(log): \(Cell.count(records).tableText) records read") }
        }
        Output.endProgress()
        return CommandResult(verification, verification.ok ? .success : .corruption)
    }
}
