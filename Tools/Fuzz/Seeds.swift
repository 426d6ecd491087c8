#if canImport(Glibc)
import Glibc
#endif
import SubledgerAppStore
import SubledgerJWS

/// The non-empty lines of the seed files: compact JWS (Apple's signed corpus) or webhook bodies
/// `{"signedPayload": …}` (the simulator's notifications).
func readSeedLines(_ paths: [String]) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    for path in paths {
        guard let file = fopen(path, "rb") else { continue }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, file) > 0 {
            let bytes = Array(UnsafeRawBufferPointer(start: line, count: strlen(line!))).filter { $0 != 0x0A }
            if !bytes.isEmpty { lines.append(bytes) }
        }
        free(line)
    }
    return lines
}

/// The compact JWS a seed line carries: the line itself, or a webhook body's `signedPayload`.
func compactJWS(in line: [UInt8]) -> [UInt8]? {
    guard line.first == UInt8(ascii: "{") else { return line }
    return (try? ResponseBodyV2.decode(line))?.signedPayload.map { Array($0.utf8) }
}

/// The transaction a seed line carries: a bare signed transaction, or a notification's nested one.
func transaction(in line: [UInt8]) -> TransactionPayload? {
    guard let text = compactJWS(in: line), let jws = try? CompactJWS(text) else { return nil }
    if let nested = (try? NotificationPayload.decode(jws.payload))?.data?.signedTransactionInfo,
       let inner = try? CompactJWS(Array(nested.utf8)) {
        return try? TransactionPayload.decode(inner.payload)
    }
    return try? TransactionPayload.decode(jws.payload)
}
