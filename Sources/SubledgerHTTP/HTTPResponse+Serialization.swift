extension HTTPResponse {
    /// The reason a handler's response cannot be sent as it is, or nil. A header value with CR or
    /// LF would let request data split the response, so such responses are replaced by a 500.
    var invalidity: String? {
        guard status.code >= 200 else { return "status \(status.code): handlers cannot send interim responses" }
        guard status.reasonPhrase.utf8.allSatisfy(HTTPSyntax.isFieldValueCharacter) else {
            return "the reason phrase contains a control character"
        }
        for field in headers {
            guard HTTPSyntax.isToken(field.name.utf8) else { return "header name \(field.name.debugDescription) is not a token" }
            guard HTTPSyntax.isFieldValue(field.value.utf8) else { return "the value of header \(field.name) contains CR, LF or a control character" }
        }
        return nil
    }

    /// The bytes on the wire. The server owns framing and persistence: `Content-Length`,
    /// `Transfer-Encoding`, `Connection` and `Date` from the handler are replaced.
    func serialized(date: String, close: Bool, keepAliveHeader: Bool, includeBody: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nDate: \(date)\r\n"
        // RFC 9110 §8.6: no Content-Length in a 204; a 304's would describe a body not sent.
        let hasBody = status.code != 204 && status.code != 304
        // A streamed body has no length: the connection's close ends it.
        if hasBody && stream == nil { head += "Content-Length: \(body.count)\r\n" }
        if close {
            head += "Connection: close\r\n"
        } else if keepAliveHeader {
            head += "Connection: keep-alive\r\n"
        }
        for field in headers {
            switch field.name.lowercased() {
            case "content-length", "transfer-encoding", "connection", "date": continue
            default: head += "\(field.name): \(field.value)\r\n"
            }
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if hasBody && includeBody && stream == nil { bytes.append(contentsOf: body) }
        return bytes
    }
}
