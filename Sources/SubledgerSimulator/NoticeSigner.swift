import Dispatch
import SubledgerAppStore
import SubledgerJWS

/// Turns notices into delivery lines, `{"signedPayload":"<JWS>"}`: the transaction and renewal
/// info are signed first, then the notification that carries them. Signing is almost all of a
/// simulation's work, so a batch is spread over every core.
struct NoticeSigner: Sendable {
    let signer: JWSSigner

    func line(for notice: Notice) -> [UInt8] {
        var notification = notice.notification
        if let transaction = notice.transaction {
            notification.data?.signedTransactionInfo = String(decoding: signer.sign(payload: transaction.jsonBytes()), as: UTF8.self)
        }
        if let renewalInfo = notice.renewalInfo {
            notification.data?.signedRenewalInfo = String(decoding: signer.sign(payload: renewalInfo.jsonBytes()), as: UTF8.self)
        }
        // The POST body written directly: a compact JWS (base64url and dots) needs no JSON
        // escaping, and scanning its ~8 KB for escapes would cost more than signing it.
        var line = Array(#"{"signedPayload":""#.utf8)
        line.append(contentsOf: signer.sign(payload: notification.jsonBytes()))
        line.append(contentsOf: #""}"#.utf8)
        return line
    }

    /// The lines of `notices`, in the same order (`DispatchQueue.concurrentPerform` over slices).
    func lines(for notices: [Notice]) -> [[UInt8]] {
        var lines = [[UInt8]](repeating: [], count: notices.count)
        let slices = min(notices.count, FileSystem.processorCount * 4)
        guard slices > 0 else { return lines }
        let sliceSize = (notices.count + slices - 1) / slices
        lines.withUnsafeMutableBufferPointer { buffer in
            let output = DisjointSlices(buffer: buffer)
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                let range = min(slice * sliceSize, notices.count)..<min((slice + 1) * sliceSize, notices.count)
                for index in range {
                    output.buffer[index] = line(for: notices[index])
                }
            }
        }
        return lines
    }
}

/// The output buffer shared by the signing workers. `@unchecked Sendable` because each worker
/// writes only the indices of its own slice, and the buffer outlives `concurrentPerform`, which
/// returns only after every worker has finished.
private struct DisjointSlices: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<[UInt8]>
}
