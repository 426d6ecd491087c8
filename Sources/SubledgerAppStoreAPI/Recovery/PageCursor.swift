/// Follows the pages of one window (notification history) or one id (transaction history): the
/// token of the next page, nil after the last, and an error where following the App Store's
/// paging would never end or would skip the rest.
///
/// Two answers loop forever: a token already sent (two that alternate did, at 185 requests a
/// second under `serve`), and `hasMore` with a new token on pages that bring nothing new, empty
/// or the items of earlier pages again (34,000 requests in 30 s for one id, nothing printed).
/// Two skip the rest: `hasMore` without a token, and an answer without `hasMore` (`{}`), each of
/// which ended the window early and moved the watermark past it.
struct PageCursor {
    /// The token's name in Apple's answer (`paginationToken`, `revision`).
    let field: String
    let endpoint: String
    /// What the pages are of, for the errors: "this window", "transaction 2000000000000001".
    let scope: String
    private var sent: Set<String> = []
    private var seen: Set<Int> = []
    private var fruitless = 0

    /// Pages in a row with `hasMore` and nothing new before the paging is taken for a loop.
    /// Apple's pages are never empty but the last; ten is room for an odd one.
    static let fruitlessLimit = 10

    init(field: String, endpoint: String, scope: String) {
        self.field = field
        self.endpoint = endpoint
        self.scope = scope
    }

    /// The token of the page after one that held `items` (its signed payloads).
    mutating func next(hasMore: Bool?, _ token: String?, items: [String]) throws(AppStoreAPIError) -> String? {
        guard let hasMore else {
            throw .invalidResponse(endpoint: endpoint, detail: "an answer without hasMore, so whether pages follow is unknown (Apple always says)")
        }
        guard hasMore else { return nil }
        guard let token, !token.isEmpty else {
            throw .invalidResponse(endpoint: endpoint, detail: "hasMore without a \(field), so the pages after this one cannot be fetched")
        }
        guard sent.insert(token).inserted else {
            throw .invalidResponse(endpoint: endpoint, detail: "hasMore with a \(field) \(scope)'s pages were already fetched with (\(token)), which would fetch them again forever")
        }
        var new = 0
        for item in items where seen.insert(item.hashValue).inserted { new += 1 }
        fruitless = new == 0 ? fruitless + 1 : 0
        guard fruitless < Self.fruitlessLimit else {
            throw .invalidResponse(endpoint: endpoint, detail: "\(fruitless) pages in a row with hasMore and a new \(field) held nothing new (no item, or only items \(scope)'s earlier pages had), so the paging does not move on; stopped rather than fetch forever")
        }
        return token
    }
}
