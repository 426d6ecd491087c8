import SubledgerAppStoreAPI
import SubledgerCore

extension AppstoreCommand {
    /// `error`, present only when the run stopped on one, so a finished run's document is as before.
    static func errorJSON(_ error: String?) -> [(String, JSON)] {
        error.map { [("error", .string($0))] } ?? []
    }

    /// A stopped run's table says why, as its JSON does, not only stderr.
    static func errorFacts(_ error: String?) -> [(name: String, value: Cell)] {
        error.map { [("error", .text($0))] } ?? []
    }

    static func rejectionsJSON(_ rejections: [IngestTally.Rejection]) -> JSON {
        .array(rejections.map { .object([("source", .string($0.source)), ("item", .int($0.item)), ("reason", .string($0.reason)), ("detail", .string($0.detail))]) })
    }

    static func rejectionsTable(_ rejections: [IngestTally.Rejection]) -> [Table] {
        rejections.isEmpty ? [] : [Table(
            title: "rejections (quarantined)",
            columns: [.init("source", key: "source", limit: 40, cut: .middle), .init("item", key: "item"), .init("reason", key: "reason"), .init("detail", key: "detail", limit: 60)],
            rows: rejections.map { [.text($0.source), .number(Int64($0.item)), .text($0.reason), .text($0.detail)] })]
    }

    static func refusedJSON(_ refused: [RefusedId]) -> JSON {
        .array(refused.map { .object([("id", .string($0.id)), ("status", $0.status.map { .int($0) } ?? .null), ("error", .string($0.error))]) })
    }

    static func refusedTable(_ refused: [RefusedId], title: String) -> [Table] {
        refused.isEmpty ? [] : [Table(
            title: title,
            columns: [.init("id", key: "id"), .init("status", key: "status"), .init("error", key: "error", limit: 72)],
            rows: refused.map { [.text($0.id), .text($0.status.map(String.init)), .text($0.error)] })]
    }

    struct RecoverResult: CommandOutput {
        var summary: NotificationRecovery.Summary
        /// Why the run stopped (`summary.stoppedBy`), the commands it names given the `--data` used.
        var error: String?

        func json() -> String {
            JSON.object([
                ("environment", .string(summary.environment)), ("since", .string(UTCInstant.iso8601(summary.since))),
                ("until", .string(UTCInstant.iso8601(summary.until))), ("pages", .int(summary.pages)),
                ("received", .int(summary.tally.received)), ("appended", .int(summary.tally.appended)),
                ("duplicates", .int(summary.tally.duplicates)), ("rejected", .int(summary.tally.rejections.count)),
                ("rejections", rejectionsJSON(summary.tally.rejections)),
            ] + errorJSON(error)).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("environment", .text(summary.environment)), ("since", .instant(summary.since)), ("until", .instant(summary.until)),
                        ("pages", .count(summary.pages)), ("received", .count(summary.tally.received)), ("appended", .count(summary.tally.appended)),
                        ("duplicates", .count(summary.tally.duplicates)), ("rejected", .count(summary.tally.rejections.count))]
                    + errorFacts(error),
                tables: rejectionsTable(summary.tally.rejections))
        }
    }

    struct BackfillResult: CommandOutput {
        var summary: Backfill.Summary
        /// As `RecoverResult.error`.
        var error: String?

        func json() -> String {
            JSON.object([
                ("ids", .int(summary.ids)), ("requests", .int(summary.requests)), ("received", .int(summary.tally.received)),
                ("appended", .int(summary.tally.appended)), ("duplicates", .int(summary.tally.duplicates)),
                ("rejected", .int(summary.tally.rejections.count)), ("rejections", rejectionsJSON(summary.tally.rejections)),
                ("failed", refusedJSON(summary.failed)),
            ] + errorJSON(error) + (summary.stoppedBy == nil ? [] : [("done", .array(summary.done.map { .string($0) })),
                                                                            ("notDone", .array(summary.notDone.map { .string($0) }))])).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("ids", .count(summary.ids)), ("requests", .count(summary.requests)), ("received", .count(summary.tally.received)),
                        ("appended", .count(summary.tally.appended)), ("duplicates", .count(summary.tally.duplicates)),
                        ("rejected", .count(summary.tally.rejections.count)), ("failed", .count(summary.failed.count))]
                    + (summary.stoppedBy == nil ? [] : [("not done", .count(summary.notDone.count))]) + errorFacts(error),
                tables: rejectionsTable(summary.tally.rejections) + refusedTable(summary.failed, title: "failed ids"))
        }
    }

    struct ReconcileResult: CommandOutput {
        var summary: Reconciliation.Summary
        /// As `RecoverResult.error`.
        var error: String?

        static func side(_ side: Reconciliation.Side) -> JSON {
            .object([("status", .optional(side.status)), ("expiresAt", side.expiresAt.map { .string(UTCInstant.iso8601($0)) } ?? .null)])
        }

        func json() -> String {
            JSON.object([
                ("checked", .int(summary.checked)), ("agreed", .int(summary.agreed)), ("healed", .int(summary.healed)),
                ("rejected", .int(summary.tally.rejections.count)), ("rejections", rejectionsJSON(summary.tally.rejections)),
                ("disagreed", .array(summary.disagreed.map { .object([("originalTransactionId", .string($0.originalTransactionId)),
                                                                       ("ledger", Self.side($0.ledger)), ("apple", Self.side($0.apple))]) })),
                ("failed", refusedJSON(summary.failed)),
            ] + errorJSON(error) + (summary.stoppedBy == nil ? [] : [("notChecked", .int(summary.notChecked))])).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("checked", .count(summary.checked)), ("agreed", .count(summary.agreed)), ("healed", .count(summary.healed)),
                        ("disagree", .count(summary.disagreed.count)), ("failed", .count(summary.failed.count))]
                    + (summary.stoppedBy == nil ? [] : [("not checked", .count(summary.notChecked))]) + errorFacts(error),
                tables: rejectionsTable(summary.tally.rejections) + refusedTable(summary.failed, title: "refused by Apple") + (summary.disagreed.isEmpty ? [] : [Table(
                    title: "still disagree",
                    columns: [.init("subscription", key: "originalTransactionId"), .init("ledger", key: "ledger.status"), .init("ledger expires", key: "ledger.expiresAt"),
                              .init("Apple", key: "apple.status"), .init("Apple expires", key: "apple.expiresAt")],
                    rows: summary.disagreed.map { [.text($0.originalTransactionId), .text($0.ledger.status), .instant($0.ledger.expiresAt),
                                                   .text($0.apple.status), .instant($0.apple.expiresAt)] })]))
        }
    }

    struct TestNotificationResult: CommandOutput {
        /// Nil when Apple did not give one.
        var token: String?
        var arrived: Bool
        var attempts: [SendAttempt]
        /// As `RecoverResult.error`.
        var error: String?

        func json() -> String {
            JSON.object([
                ("testNotificationToken", .optional(token)), ("arrived", .bool(arrived)),
                ("sendAttempts", .array(attempts.map { .object([("attemptDate", $0.attemptDate.map { .string(UTCInstant.iso8601($0)) } ?? .null), ("sendAttemptResult", .optional($0.sendAttemptResult))]) })),
            ] + errorJSON(error)).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("test notification token", .text(token)), ("arrived", .flag(arrived))],
                tables: attempts.isEmpty ? [] : [Table(title: "send attempts", columns: [.init("attempted", key: "attemptDate"), .init("result", key: "sendAttemptResult")],
                                                       rows: attempts.map { [.instant($0.attemptDate), .text($0.sendAttemptResult)] })])
        }
    }
}
