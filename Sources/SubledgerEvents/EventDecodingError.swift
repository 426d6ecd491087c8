/// Why an encoded event could not be read, and at which byte of the record.
public struct EventDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The record ends in the middle of a field.
        case truncated
        /// The type code is not one this build knows.
        case unknownEventType(code: UInt16)
        /// The type is known but this build does not read that version of it.
        case unsupportedVersion(EventType, version: UInt8)
        /// A varint is longer than 10 bytes, overflows 64 bits or is not in its shortest form.
        case malformedVarint
        /// A presence bitmap sets bits its section does not define.
        case undefinedFields(section: String, bits: UInt64)
        /// A field holds a value its encoding does not allow (a boolean byte other than 0 or 1,
        /// a vocabulary index out of range, an unknown compact text form).
        case invalidValue(field: String)
        /// A text field is not valid UTF-8.
        case invalidUTF8(field: String)
        /// Bytes follow the end of the event.
        case trailingBytes(count: Int)
    }

    public let reason: Reason
    /// Offset in the record where the offending field starts.
    public let offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        "cannot decode event at byte \(offset): \(problem)"
    }

    private var problem: String {
        switch reason {
        case .truncated:
            return "the record ends in the middle of a field; it was cut short, so check the framing that delivered it"
        case .unknownEventType(let code):
            return "unknown event type code \(code); the record was written by a newer Subledger "
                + "(upgrade before replaying) or is corrupt"
        case .unsupportedVersion(let type, 0):
            return "\(type.name) version 0 does not exist; the record is corrupt"
        case .unsupportedVersion(let type, let version) where version > type.currentVersion:
            return "\(type.name) version \(version) is newer than this build, which reads versions "
                + "1...\(type.currentVersion); upgrade Subledger before replaying"
        case .unsupportedVersion(let type, let version):
            return "\(type.name) version \(version) has no reader in this build"
        case .malformedVarint:
            return "malformed varint (longer than 10 bytes, over 64 bits or not in shortest form); "
                + "the record is corrupt"
        case .undefinedFields(let section, let bits):
            return "the \(section) presence bitmap sets undefined bits 0x\(String(bits, radix: 16)); "
                + "the record is corrupt or from a newer layout"
        case .invalidValue(let field):
            return "invalid value for \(field); the record is corrupt"
        case .invalidUTF8(let field):
            return "\(field) is not valid UTF-8; the record is corrupt"
        case .trailingBytes(let count):
            return "\(count) bytes follow the end of the event; pass exactly one encoded event"
        }
    }
}
