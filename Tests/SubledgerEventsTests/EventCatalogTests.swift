import Foundation
import SubledgerEvents
import Testing

/// The `Events/` catalog and the code must agree: every type has a page and every page a type,
/// with the same code, version and notification mapping.
@Suite("Event catalog matches the code")
struct EventCatalogTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Events")

    static let sections: Set<String> = [
        "envelope", "transaction", "renewal", "renewalExtensionSummary", "externalPurchaseToken",
    ]

    /// A page's header: `key: value` lines, and `- item` lines under a key with no value.
    struct Header {
        var values: [String: String] = [:]
        var lists: [String: [String]] = [:]

        init(page: String, file: String) throws {
            let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            try #require(lines.first == "---", "\(file) does not start with a --- header")
            let end = try #require(lines.dropFirst().firstIndex(of: "---"), "\(file) header is not closed")
            var listKey: String?
            for line in lines[1..<end] {
                if line.hasPrefix("- ") {
                    let key = try #require(listKey, "\(file): list item outside a list: \(line)")
                    lists[key, default: []].append(String(line.dropFirst(2)))
                    continue
                }
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                try #require(parts.count == 2, "\(file): not a key: value line: \(line)")
                if parts[1].isEmpty {
                    listKey = parts[0]
                    lists[parts[0]] = []
                } else {
                    listKey = nil
                    values[parts[0]] = parts[1]
                }
            }
        }
    }

    static func pages() throws -> [String: Header] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".md") && $0 != "README.md" }
        var pages: [String: Header] = [:]
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            pages[String(file.dropLast(3))] = try Header(page: text, file: file)
        }
        return pages
    }

    /// What `produced-by` must list for a type: its rows of the notification table, plus the three
    /// sources that are not notification rows.
    static func producedBy(_ type: EventType) -> Set<String> {
        var sources = Set(EventType.notificationRules.filter { $0.eventType == type }.map(\.description))
        if type == .transactionBackfilled { sources.insert("transaction backfill") }
        if type == .renewalInfoBackfilled { sources.insert("renewal info backfill") }
        if type == .unrecognizedNotification { sources.insert("* (any other notification type)") }
        return sources
    }

    @Test("every event type has a page and every page names an event type")
    func sameTypes() throws {
        let pages = try Self.pages()
        #expect(Set(pages.keys) == Set(EventType.allCases.map(\.name)))
    }

    @Test("each page's header gives the type's code, name, version and version history")
    func codesAndVersions() throws {
        for (name, header) in try Self.pages() {
            guard let type = EventType(name: name) else { continue }
            #expect(header.values["name"] == name, "\(name).md")
            #expect(header.values["code"] == String(type.code), "\(name).md code")
            #expect(header.values["version"] == String(type.currentVersion), "\(name).md version")
            let history = (header.lists["versions"] ?? []).map { $0.prefix { $0 != ":" } }
            #expect(history == (1...type.currentVersion).map { Substring(String($0)) }, "\(name).md versions")
        }
    }

    @Test("each page's produced-by list is exactly the type's rows in the notification table")
    func producedBy() throws {
        for (name, header) in try Self.pages() {
            guard let type = EventType(name: name) else { continue }
            let listed = header.lists["produced-by"] ?? []
            #expect(Set(listed) == Self.producedBy(type), "\(name).md produced-by")
            #expect(Set(listed).count == listed.count, "\(name).md lists a source twice")
        }
    }

    @Test("each page names the sections it carries, starting with the envelope")
    func sections() throws {
        for (name, header) in try Self.pages() {
            let sections = (header.values["sections"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            #expect(sections.first == "envelope", "\(name).md sections")
            #expect(Set(sections).isSubset(of: Self.sections), "\(name).md sections: \(sections)")
        }
    }

    @Test("the table sends every notification type to exactly the pages that list it")
    func everyRuleIsDocumented() throws {
        let documented = try Self.pages().values.flatMap { $0.lists["produced-by"] ?? [] }
        let rules = EventType.notificationRules.map(\.description)
        #expect(Set(rules).isSubset(of: Set(documented)))
        // Plus the sources that are no notification: both backfills and the catch-all.
        #expect(documented.count == rules.count + 3)
    }
}
