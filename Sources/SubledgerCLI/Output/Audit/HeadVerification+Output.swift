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

    var tabulation: Tabulation {
        Tabulation(
            facts: [("head", .text(ok ? "unchanged" : "DIFFERS")), ("position", .text(position.description)),
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
