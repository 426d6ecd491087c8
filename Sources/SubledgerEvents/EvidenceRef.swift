/// A reference to the stored signed message an event was derived from: its position in the
/// log and its length in bytes.
public struct EvidenceRef: Hashable, Sendable {
    public var position: UInt64
    public var length: UInt32

    public init(position: UInt64, length: UInt32) {
        self.position = position
        self.length = length
    }
}
