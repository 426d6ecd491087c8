import Dispatch
import SubledgerAppStore
import SubledgerCore
import SubledgerJWS

/// Turns parked notifications into delivery lines, `{"signedPayload":"<JWS>"}`: the transaction
/// and renewal info are signed first, then the notification that carries them. Signing is
/// almost all of a simulation's work, so a batch is spread over every core.
struct NoticeSigner: Sendable {
    let signer: JWSSigner

    func line(for record: DaySpill.Record) -> [UInt8] {
        var notification: NotificationPayload
        do {
            notification = try NotificationPayload.decode(record.notification)
        } catch {
            preconditionFailure("the simulator's own notification JSON does not decode: \(error)")
        }
        if !record.transaction.isEmpty {
            notification.data?.signedTransactionInfo = String(decoding: signer.sign(payload: record.transaction), as: UTF8.self)
        }
        if !record.renewalInfo.isEmpty {
            notification.data?.signedRenewalInfo = String(decoding: signer.sign(payload: record.renewalInfo), as: UTF8.self)
        }
        // The POST body written directly: a compact JWS (base64url and dots) needs no JSON
        // escaping, and scanning its ~15 KB for escapes would cost more than signing it.
        var line = Array(#"{"signedPayload":""#.utf8)
        line.append(contentsOf: signer.sign(payload: notification.jsonBytes()))
        line.append(contentsOf: #""}"#.utf8)
        return line
    }

    /// The lines of `records`, in the same order (`DispatchQueue.concurrentPerform` over slices).
    func lines(for records: [DaySpill.Record]) -> [[UInt8]] {
        var lines = [[UInt8]](repeating: [], count: records.count)
        let slices = min(records.count, Processors.online * 4)
        guard slices > 0 else { return lines }
        let sliceSize = (records.count + slices - 1) / slices
        lines.withUnsafeMutableBufferPointer { buffer in
            let output = DisjointSlices(buffer: buffer)
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                let range = min(slice * sliceSize, records.count)..<min((slice + 1) * sliceSize, records.count)
                for index in range {
                    output.buffer[index] = line(for: records[index])
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
