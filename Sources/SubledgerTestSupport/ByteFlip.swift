import Foundation

/// Damage at rest, as a test makes it: the byte at `offset` of the file at `path` inverted.
public func flipByte(in path: String, at offset: UInt64) throws {
    guard let handle = FileHandle(forUpdatingAtPath: path) else { throw CocoaError(.fileNoSuchFile) }
    defer { try? handle.close() }
    try handle.seek(toOffset: offset)
    let original = try handle.read(upToCount: 1)?.first ?? 0
    try handle.seek(toOffset: offset)
    try handle.write(contentsOf: [original ^ 0xFF])
}
