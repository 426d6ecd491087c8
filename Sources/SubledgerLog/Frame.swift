import SubledgerCore

/// Encoding and parsing of frames and segment headers; shared by the writer, reader and verifier.
package enum Frame {
    /// Appends one frame to `buffer`.
    package static func append(kind: UInt8, version: UInt8, payload: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        let start = buffer.count
        buffer.appendLE(UInt32(payload.count))
        buffer.appendLE(UInt32(0))
        buffer.append(kind)
        buffer.append(version)
        buffer.append(contentsOf: payload)
        buffer.withUnsafeMutableBytes { raw in
            let covered = UnsafeRawBufferPointer(rebasing: raw[(start + 8)...])
            raw.storeLE(CRC32C.mask(CRC32C.checksum(covered)), at: start + 4)
        }
    }

    package enum Parsed {
        /// A valid frame: its kind, version, the payload's range in the buffer and the frame size.
        case frame(kind: UInt8, version: UInt8, payload: Range<Int>, size: Int)
        /// The buffer ends inside the frame (it may continue in bytes not yet read).
        case incomplete(needed: Int)
        /// An all-zero frame header: preallocated space after the last frame.
        case zero
        /// The length field is 0-with-zero-kind, larger than the maximum, or otherwise impossible.
        case badLength
        case crcMismatch
    }

    /// Parses the frame at `offset`; `available` bytes of the buffer from `offset` are valid.
    @inline(__always)
    package static func parse(_ buffer: UnsafeRawBufferPointer, at offset: Int) -> Parsed {
        let available = buffer.count - offset
        if available < LogFormat.frameHeaderSize { return .incomplete(needed: LogFormat.frameHeaderSize) }
        let length = Int(buffer.loadLE(UInt32.self, at: offset))
        let kind = buffer[offset + 8]
        if kind == 0 {
            let crc = buffer.loadLE(UInt32.self, at: offset + 4)
            return length == 0 && crc == 0 && buffer[offset + 9] == 0 ? .zero : .badLength
        }
        if length > LogFormat.maxPayloadSize { return .badLength }
        let size = LogFormat.frameHeaderSize + length
        if available < size { return .incomplete(needed: size) }
        let stored = buffer.loadLE(UInt32.self, at: offset + 4)
        let covered = UnsafeRawBufferPointer(rebasing: buffer[(offset + 8)..<(offset + size)])
        if CRC32C.mask(CRC32C.checksum(covered)) != stored { return .crcMismatch }
        return .frame(kind: kind, version: buffer[offset + 9], payload: (offset + LogFormat.frameHeaderSize)..<(offset + size), size: size)
    }

    package static func segmentHeader(firstPosition: UInt64, previousFooterHash: [UInt8]) -> [UInt8] {
        var header = LogFormat.magic
        header.appendLE(LogFormat.formatVersion)
        header.appendLE(UInt16(0))
        header.appendLE(firstPosition)
        header.append(contentsOf: previousFooterHash)
        let crc = header.withUnsafeBytes { CRC32C.mask(CRC32C.checksum($0)) }
        header.appendLE(crc)
        return header
    }

    package struct SegmentHeader {
        var firstPosition: UInt64
        var previousFooterHash: [UInt8]
    }

    static func parseSegmentHeader(_ bytes: UnsafeRawBufferPointer) -> SegmentHeader? {
        guard bytes.count >= LogFormat.segmentHeaderSize,
              Array(bytes[0..<8]) == LogFormat.magic,
              bytes.loadLE(UInt16.self, at: 8) == LogFormat.formatVersion
        else { return nil }
        let crc = CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<52])))
        guard crc == bytes.loadLE(UInt32.self, at: 52) else { return nil }
        return SegmentHeader(firstPosition: bytes.loadLE(UInt64.self, at: 12), previousFooterHash: Array(bytes[20..<52]))
    }

    package struct Footer: Equatable {
        var recordCount: UInt64
        var recordsHash: [UInt8]
        var previousFooterHash: [UInt8]
        var footerHash: [UInt8]

        static func hash(firstPosition: UInt64, recordCount: UInt64, recordsHash: [UInt8], previousFooterHash: [UInt8]) -> [UInt8] {
            var input: [UInt8] = []
            input.appendLE(firstPosition)
            input.appendLE(recordCount)
            input += recordsHash
            input += previousFooterHash
            return input.withUnsafeBytes { SHA256Hasher.hash($0) }
        }

        var payload: [UInt8] {
            var bytes: [UInt8] = []
            bytes.appendLE(recordCount)
            bytes += recordsHash + previousFooterHash + footerHash
            return bytes
        }

        init(recordCount: UInt64, recordsHash: [UInt8], previousFooterHash: [UInt8], footerHash: [UInt8]) {
            self.recordCount = recordCount
            self.recordsHash = recordsHash
            self.previousFooterHash = previousFooterHash
            self.footerHash = footerHash
        }

        init?(payload: UnsafeRawBufferPointer) {
            guard payload.count == LogFormat.footerPayloadSize else { return nil }
            recordCount = payload.loadLE(UInt64.self, at: 0)
            recordsHash = Array(payload[8..<40])
            previousFooterHash = Array(payload[40..<72])
            footerHash = Array(payload[72..<104])
        }
    }
}
