import SubledgerLedger
import SubledgerSimulator

/// `subledger simulate`: a realistic signed workload plus the simulation's own ground truth.
enum SimulateCommand {
    static func run(_ arguments: Arguments) throws -> ExitCode {
        try arguments.allow(options: ["--customers", "--months", "--seed", "--out", "--start", "--duplicates", "--reorder"])
        guard let out = arguments.value("--out") else { throw UsageError("simulate needs --out DIR") }
        let configuration = try Self.configuration(arguments)
        let summary = try simulate(configuration, to: out)
        if arguments.json {
            Output.print(JSON.object([
                ("out", .string(out)), ("customers", .int(summary.customers)), ("subscriptions", .int(summary.subscriptions)),
                ("notifications", .int(summary.notifications)), ("lines", .int(summary.lines)),
                ("duplicateLines", .int(summary.duplicateLines)), ("delayedLines", .int(summary.delayedLines)),
                ("files", .array([summary.notificationsPath, summary.rootCertificatePath, summary.configPath, summary.expectedPath].map { .string($0) })),
            ]).serialized())
        } else {
            Output.print("""
                simulated \(summary.customers) customers over \(configuration.months) months (seed \(configuration.seed)): \
                \(summary.notifications) notifications, \(summary.lines) lines (\(summary.duplicateLines) duplicated, \(summary.delayedLines) late)
                  \(summary.notificationsPath)
                  \(summary.rootCertificatePath)
                  \(summary.configPath)
                  \(summary.expectedPath)   (ground truth from the simulation's own model)
                """)
        }
        return .success
    }

    static func configuration(_ arguments: Arguments) throws(UsageError) -> Simulator.Configuration {
        var configuration = Simulator.Configuration()
        func integer(_ name: String) throws(UsageError) -> Int? {
            guard let text = arguments.value(name) else { return nil }
            guard let value = Int(text), value > 0 else { throw UsageError("\(name) takes a positive whole number, not '\(text)'") }
            return value
        }
        func probability(_ name: String) throws(UsageError) -> Double? {
            guard let text = arguments.value(name) else { return nil }
            guard let value = Double(text), (0...1).contains(value) else { throw UsageError("\(name) takes a probability from 0 to 1, not '\(text)'") }
            return value
        }
        if let value = try integer("--customers") { configuration.customers = value }
        if let value = try integer("--months") { configuration.months = value }
        if let value = try integer("--seed") { configuration.seed = UInt64(value) }
        if let value = arguments.value("--start") { configuration.start = value }
        if let value = try probability("--duplicates") { configuration.duplicates = value }
        if let value = try probability("--reorder") { configuration.reorder = value }
        return configuration
    }

    /// Runs the simulator with a progress line on stderr.
    static func simulate(_ configuration: Simulator.Configuration, to directory: String) throws -> Simulator.Summary {
        let simulator: Simulator
        do { simulator = try Simulator(configuration: configuration) } catch { throw UsageError(error.description) }
        let summary = try simulator.run(to: directory) { progress in
            switch progress.phase {
            case .simulating: Output.progress("simulate: \(progress.customersDone) / \(progress.customers) customers, \(progress.notificationsSigned) notifications signed")
            case .writing: Output.progress("simulate: \(progress.linesWritten) lines written")
            }
        }
        Output.endProgress()
        return summary
    }
}
