#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerCrypto
import SubledgerJWS

/// Generates a realistic, signed App Store workload for one app and the ground truth of what
/// happened, from the simulation's own model.
///
/// `run(to:progress:)` writes into a directory:
/// - `notifications.jsonl`: one `{"signedPayload":"<JWS>"}` line per delivered notification,
///   ordered by `signedDate` apart from the configured late deliveries and duplicates;
/// - `root.cer`: the DER root certificate of the test PKI that signed everything;
/// - `config.json`: `{"bundleId":…,"appAppleId":…,"environment":"Production"}`;
/// - `expected.json`: the contract's ground truth (customer states at the end, revenue, MRR at
///   each month end, churn), computed from the model, never from the notifications.
///
/// Determinism: the same configuration gives a byte-identical `expected.json` and the same
/// notifications: every JWS's payload is identical, only the ECDSA signatures differ (libcrypto
/// randomizes them), and so does the test PKI unless the same one is passed in. Customers are
/// simulated one by one (each from its own random stream) and their notifications parked on
/// disk by day, then signed in delivery order in batches on every core, so memory stays bounded
/// however many notifications a run makes.
public struct Simulator: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var customers: Int
        public var months: Int
        public var seed: UInt64
        /// The first simulated UTC day, `YYYY-MM-DD`; the simulation covers `months` calendar
        /// months from its midnight.
        public var start: String
        /// Probability that a notification is delivered twice.
        public var duplicates: Double
        /// Probability that a notification is delivered late.
        public var reorder: Double
        /// How many positions a late or repeated delivery moves at most.
        public var maximumDelay: Int
        public var rates: Rates
        public var bundleId: String
        public var appAppleId: Int64
        public var bundleVersion: String
        /// Probability that a notification is never delivered (it is only in `history.jsonl`).
        public var withhold: Double
        /// A UTC day `YYYY-MM-DD`: notifications signed before it are not delivered (the
        /// ledger starts then; `backfill-ids.txt` names the customers it missed).
        public var ledgerStart: String?

        public init(customers: Int = 300, months: Int = 6, seed: UInt64 = 1, start: String = "2026-01-01",
                    duplicates: Double = 0, reorder: Double = 0, maximumDelay: Int = 50, rates: Rates = Rates(),
                    bundleId: String = "com.example.subledger", appAppleId: Int64 = 1_234_567_890, bundleVersion: String = "42",
                    withhold: Double = 0, ledgerStart: String? = nil) {
            self.withhold = withhold
            self.ledgerStart = ledgerStart
            self.customers = customers
            self.months = months
            self.seed = seed
            self.start = start
            self.duplicates = duplicates
            self.reorder = reorder
            self.maximumDelay = maximumDelay
            self.rates = rates
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.bundleVersion = bundleVersion
        }
    }

    /// Where a run is; reported every few hundred customers while simulating and after each
    /// signing batch while writing.
    public struct Progress: Sendable {
        public enum Phase: Sendable {
            /// Simulating customers and signing their notifications.
            case simulating
            /// Writing `notifications.jsonl` in delivery order.
            case writing
        }

        public var phase: Phase
        public var customersDone: Int
        public var customers: Int
        /// Distinct notifications simulated so far.
        public var notifications: Int
        public var notificationsSigned: Int
        public var linesWritten: Int
    }

    /// What a run wrote.
    public struct Summary: Sendable {
        public var customers: Int
        /// Subscriptions in `expected.json` (purchased and family-shared).
        public var subscriptions: Int
        /// Distinct notifications (`expected.json`'s `notifications`).
        public var notifications: Int
        /// Lines in `notifications.jsonl`: the distinct notifications plus duplicates.
        public var lines: Int
        public var duplicateLines: Int
        public var delayedLines: Int
        /// Distinct notifications by `TYPE` or `TYPE/SUBTYPE`.
        public var notificationTypes: [String: Int]
        public var notificationsPath: String
        public var rootCertificatePath: String
        public var configPath: String
        public var expectedPath: String
        /// Distinct notifications kept out of `notifications.jsonl`.
        public var withheld: Int = 0
        /// `history.jsonl` and `backfill-ids.txt`, written when something is withheld.
        public var historyPath: String?
        public var backfillIdsPath: String?
        /// Where the simulated time ends (epoch milliseconds): `months` after the start.
        public var end: Int64 = 0
    }

    /// Notifications signed per batch: enough to keep every core busy, little enough (about
    /// 60 MB of signed lines) to bound memory.
    static let signingBatch = 4096
    /// Customers between two progress reports while simulating.
    static let progressInterval = 256

    public let configuration: Configuration
    let context: SimulationContext

    public init(configuration: Configuration) throws(SimulatorError) {
        func invalid(_ message: String) -> SimulatorError { SimulatorError(.invalidConfiguration, message) }
        guard let start = UTC.parseDay(configuration.start) else {
            throw invalid("start \"\(configuration.start)\" is not a UTC day; write it as YYYY-MM-DD")
        }
        guard configuration.customers >= 1 else { throw invalid("customers must be at least 1 (got \(configuration.customers))") }
        guard (1...600).contains(configuration.months) else { throw invalid("months must be 1...600 (got \(configuration.months))") }
        guard configuration.maximumDelay >= 1 else { throw invalid("maximumDelay must be at least 1 (got \(configuration.maximumDelay))") }
        let probabilities = [("duplicates", configuration.duplicates), ("reorder", configuration.reorder), ("withhold", configuration.withhold)] + configuration.rates.probabilities
        if let day = configuration.ledgerStart, UTC.parseDay(day) == nil {
            throw invalid("ledgerStart \"\(day)\" is not a UTC day; write it as YYYY-MM-DD")
        }
        for (name, value) in probabilities where !(0...1).contains(value) {
            throw invalid("\(name) is a probability and must be within 0...1 (got \(value))")
        }
        for (name, values) in configuration.rates.weightGroups
        where values.contains(where: { !($0 >= 0) }) || !(values.reduce(0, +) > 0) {
            throw invalid("\(name) must be non-negative with a positive sum (got \(values))")
        }
        for (name, value) in [("consumablesPerMonth", configuration.rates.consumablesPerMonth), ("passPerMonth", configuration.rates.passPerMonth)]
        where !(0...1).contains(value) {
            throw invalid("\(name) is a monthly chance and must be within 0...1 (got \(value))")
        }
        self.configuration = configuration
        let end = UTC.adding(months: configuration.months, to: start)
        // The test PKI is valid from a year before the start to three years after the end, and a
        // certificate's dates end at 9999-12-31.
        guard end <= UTC.parseDay("9996-12-31")! else {
            throw invalid("the simulation must end by 9996-12-31 (its certificates stay valid three years after); start earlier or simulate fewer months")
        }
        context = SimulationContext(seed: configuration.seed, start: start, end: end, rates: configuration.rates,
                                    bundleId: configuration.bundleId, appAppleId: configuration.appAppleId,
                                    bundleVersion: configuration.bundleVersion, grid: MonthGrid(start: start, end: end))
    }

    /// Simulates and writes the four files into `directory` (created if missing; files of the
    /// same names are replaced). `progress` is called on the calling thread.
    ///
    /// - Parameter pki: the hierarchy to sign with; by default a fresh one valid from a year
    ///   before the start to three years after the end. Passing the same one to two runs of
    ///   one configuration makes every JWS header and payload part identical between them.
    public func run(to directory: String, pki: TestPKI? = nil, progress: (Progress) -> Void = { _ in }) throws(SimulatorError) -> Summary {
        try FileSystem.makeDirectory(directory)
        let pki = if let pki { pki } else { try makePKI() }
        let rootPath = directory + "/root.cer"
        let configPath = directory + "/config.json"
        let notificationsPath = directory + "/notifications.jsonl"
        let expectedPath = directory + "/expected.json"
        try FileSystem.write(pki.rootDER, to: rootPath)
        try FileSystem.write(configJSON.bytes + [UInt8(ascii: "\n")], to: configPath)

        let work = directory + "/.simulate-\(getpid())"
        try FileSystem.makeDirectory(work)
        let spill = DaySpill(directory: work, start: context.start, end: context.end)
        let customersPath = work + "/customers.json"
        defer {
            spill.removeAll()
            FileSystem.remove(customersPath)
            FileSystem.removeDirectory(work)
        }

        // Simulate customer by customer, parking the unsigned notifications by day.
        var truth = GroundTruth(grid: context.grid)
        var customers = try BufferedWriter(creating: customersPath)
        var notificationTypes: [String: Int] = [:]
        var subscriptions = 0
        var simulated = 0
        for index in 0..<configuration.customers {
            let outcome = CustomerSimulation(index: index, context: context).run()
            truth.add(outcome)
            for subscription in outcome.subscriptions {
                var fragment: [UInt8] = subscriptions == 0 ? [] : Array(",\n".utf8)
                JSON.string(subscription.customerId).write(into: &fragment)
                fragment.append(contentsOf: #":{"subscriptions":{"#.utf8)
                JSON.optional(subscription.transaction.originalTransactionId).write(into: &fragment)
                fragment.append(UInt8(ascii: ":"))
                subscription.json.write(into: &fragment)
                fragment.append(contentsOf: "}}".utf8)
                try customers.append(fragment)
                subscriptions += 1
            }
            for notice in outcome.notices {
                let type = notice.notification.notificationType?.rawValue ?? ""
                notificationTypes[notice.notification.subtype.map { "\(type)/\($0.rawValue)" } ?? type, default: 0] += 1
                try spill.append(notice)
            }
            simulated += outcome.notices.count
            if (index + 1) % Self.progressInterval == 0 || index == configuration.customers - 1 {
                progress(Progress(phase: .simulating, customersDone: index + 1, customers: configuration.customers,
                                  notifications: simulated, notificationsSigned: 0, linesWritten: 0))
            }
        }
        try spill.flush()
        try customers.flush()

        // Day by day in signedDate order: sign in batches on every core, then deliver with the
        // configured disorder.
        let signer = NoticeSigner(signer: pki.signer)
        var delivery = try Delivery(path: notificationsPath, seed: configuration.seed, reorder: configuration.reorder,
                                    duplicates: configuration.duplicates, maximumDelay: configuration.maximumDelay)
        var withholding = configuration.withhold > 0 || configuration.ledgerStart != nil
            ? try Withholding(directory: directory, seed: configuration.seed, share: configuration.withhold, ledgerStart: configuration.ledgerStart.flatMap(UTC.parseDay))
            : nil
        var batch: [DaySpill.Record] = []
        var signed = 0
        for day in 0..<spill.dayCount {
            batch.append(contentsOf: try spill.records(day: day))
            guard batch.count >= Self.signingBatch || day == spill.dayCount - 1 else { continue }
            for (line, record) in zip(signer.lines(for: batch), batch) {
                if try withholding?.admit(line, record) == false { continue }
                try delivery.deliver(line)
            }
            signed += batch.count
            batch.removeAll(keepingCapacity: true)
            progress(Progress(phase: .writing, customersDone: configuration.customers, customers: configuration.customers,
                              notifications: simulated, notificationsSigned: signed, linesWritten: delivery.lines))
        }
        try delivery.finish()
        try withholding?.finish()
        // Delayed lines go out at the finish: the last line of progress counts them.
        progress(Progress(phase: .writing, customersDone: configuration.customers, customers: configuration.customers,
                          notifications: simulated, notificationsSigned: signed, linesWritten: delivery.lines))

        try writeExpected(to: expectedPath, truth: truth, notifications: simulated, customers: try OpenFile(path: customersPath, flags: 0))
        return Summary(customers: configuration.customers, subscriptions: subscriptions, notifications: simulated,
                       lines: delivery.lines, duplicateLines: delivery.duplicateLines, delayedLines: delivery.delayedLines,
                       notificationTypes: notificationTypes, notificationsPath: notificationsPath, rootCertificatePath: rootPath,
                       configPath: configPath, expectedPath: expectedPath, withheld: withholding?.withheld ?? 0,
                       historyPath: withholding.map { _ in directory + "/" + Withholding.historyName },
                       backfillIdsPath: withholding.map { _ in directory + "/" + Withholding.idsName }, end: context.end)
    }

    /// A fresh test hierarchy valid from a year before the start to three years after the end.
    public func makePKI() throws(SimulatorError) -> TestPKI {
        let year = 365 * UTC.millisecondsPerDay
        do {
            return try TestPKI(validity: (context.start - year)...(context.end + 3 * year))
        } catch {
            throw SimulatorError(.crypto, "creating the test PKI failed: \(error)")
        }
    }

    private var configJSON: JSON {
        .object([("bundleId", .string(configuration.bundleId)), ("appAppleId", .integer(configuration.appAppleId)),
                 ("environment", .string("Production"))])
    }

    /// `expected.json`: the contract's members in its order, one customer, revenue row, MRR
    /// snapshot or churn row per line.
    private func writeExpected(to path: String, truth: GroundTruth, notifications: Int, customers: OpenFile) throws(SimulatorError) {
        var writer = try BufferedWriter(creating: path)
        let generator = JSON.object([
            ("seed", .unsigned(configuration.seed)), ("customers", .int(configuration.customers)),
            ("months", .int(configuration.months)), ("start", .string(configuration.start)),
        ])
        try writer.append(#"{"generator":"#)
        try writer.append(generator.bytes)
        try writer.append(",\n\"notifications\":\(notifications),\n\"customers\":{\n")
        try customers.forEachChunk { chunk throws(SimulatorError) in try writer.append(chunk) }
        try writer.append("\n},\n")
        for (name, value) in [("revenue", truth.revenueJSON), ("mrr", truth.mrrJSON), ("churn", truth.churnJSON)] {
            try writer.append("\"\(name)\":[")
            if case .array(let elements) = value {
                for (index, element) in elements.enumerated() {
                    try writer.append(index == 0 ? "\n" : ",\n")
                    try writer.append(element.bytes)
                }
            }
            try writer.append(name == "churn" ? "\n]}\n" : "\n],\n")
        }
        try writer.flush()
    }
}
