import SubledgerCore
import SubledgerLedger

extension HeadVerification: CommandOutput {
    func json() throws -> String {
        JSON.object([
            ("ok", .bool(ok)),
            ("position", .string(position.description)),
            ("expected", .string(expected.lowercased())),
            ("actual", .optional(actual?.hex)),
            ("events", actual.map { .int($0.events) } ?? .null),
            ("messages", actual.map { .int($0.messages) } ?? .null),
            ("problems", .array(problems.map { problem in
                .object([
                    ("log", .string(problem.log)), ("file", .string(problem.file)), ("offset", .int(problem.offset)),
                    ("position", .string(problem.position.description)), ("kind", .string(problem.kind)), ("detail", .string(problem.detail)),
                    ("events", .array(problem.events.map { .string($0.description) })),
                ])
            })),
        ]).serialized()
    }

    /// A sealed segment's digest is its footer's, so a record changed under an intact footer
    /// leaves the digest as published: the bytes differ, not the head.
    var verdict: String {
        if ok { return "unchanged" }
        return actual?.hex == expected.lowercased() ? "DAMAGED (the digest matches; the bytes under it do not)" : "DIFFERS"
    }

    var tabulation: Tabulation {
        Tabulation(
            facts: [("head", .text(verdict)), ("position", .text(position.description)),
                    ("expected", .text(expected.lowercased())), ("actual", .text(actual?.hex))],
            tables: [Table(
                title: "differences",
                columns: [.init("log", key: "log"), .init("file", key: "file", limit: 48, cut: .middle), .init("offset", key: "offset"), .init("kind", key: "kind"),
                          .init("events", key: "events", limit: 30), .init("detail", key: "detail", limit: 60)],
                rows: problems.map { problem in
                    [.text(problem.log), .text(problem.file), .number(problem.offset), .text(problem.kind),
                     .text(problem.events.isEmpty ? nil : problem.events.map(\.description).joined(separator: " ")), .text(problem.detail)]
                })])
    }
}
