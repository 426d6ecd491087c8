import Foundation
import SubledgerAppStore
import SubledgerJWS
@testable import SubledgerLedger

extension IngestLine {
    /// The signed transaction of this webhook body's notification, alone on a line, as someone
    /// might feed it after taking it out of the notification; nil for a notification without one.
    func nestedTransaction() throws -> IngestLine? {
        let body = try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
        let jws = try CompactJWS(Array((body["signedPayload"] as! String).utf8))
        guard let text = try NotificationPayload.decode(jws.payload).data?.signedTransactionInfo else { return nil }
        return IngestLine(bytes: Array(text.utf8), line: line, source: "bare")
    }
}
