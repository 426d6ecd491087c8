/// Apple's error body, e.g. `{"errorCode": 4040010, "errorMessage": "Transaction id not found."}`.
struct AppleErrorBody: Decodable, Sendable {
    var errorCode: Int?
    var errorMessage: String?
}
