import CPostgres

/// A PostgreSQL call failed; `message` is libpq's or the server's text.
struct PostgresError: Error, CustomStringConvertible {
    var context: String
    var message: String
    var description: String { "PostgreSQL: \(context): \(message)" }
}

/// A query result (`PGresult`), freed with `PQclear`.
final class PostgresResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { PQclear(handle) }

    var rows: Int { Int(PQntuples(handle)) }

    /// The field's bytes (text or binary, as requested), valid while the result lives.
    /// Wraps `PQgetvalue` and `PQgetlength`.
    func bytes(row: Int, column: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: PQgetvalue(handle, Int32(row), Int32(column)), count: Int(PQgetlength(handle, Int32(row), Int32(column))))
    }

    func text(row: Int, column: Int) -> String { String(cString: PQgetvalue(handle, Int32(row), Int32(column))) }

    /// A binary `int8` field (network byte order).
    func int64(row: Int, column: Int) -> Int64 { Int64(bigEndian: bytes(row: row, column: column).loadUnaligned(as: Int64.self)) }
}

/// One libpq connection (`PQconnectdb`), closed with `PQfinish`. Blocking calls only: the
/// benchmark measures one client at a time.
final class PostgresConnection {
    private let handle: OpaquePointer

    init(_ conninfo: String) throws(PostgresError) {
        guard let connection = PQconnectdb(conninfo) else { throw PostgresError(context: "connect", message: "out of memory") }
        handle = connection
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(context: "connect to \(conninfo)", message: lastError)
        }
        // Keeps notices ("table ... does not exist, skipping") off the benchmark's output.
        try execute("SET client_min_messages = warning")
    }

    deinit { PQfinish(handle) }

    private var lastError: String { String(cString: PQerrorMessage(handle)).trimmingSuffix("\n") }

    /// The server's version, e.g. "15.18". Wraps `PQserverVersion`.
    var serverVersion: String {
        let number = Int(PQserverVersion(handle))
        return "\(number / 10_000).\(number % 10_000)"
    }

    /// Runs `sql` (one or more statements) and returns the last result. Wraps `PQexec`.
    @discardableResult
    func execute(_ sql: String) throws(PostgresError) -> PostgresResult {
        try checked(PQexec(handle, sql), sql)
    }

    /// Prepares `sql` as `name`, its parameters typed by the server. Wraps `PQprepare`.
    func prepare(_ name: String, _ sql: String) throws(PostgresError) {
        _ = try checked(PQprepare(handle, name, sql, 0, nil), sql)
    }

    /// Runs the prepared statement `name` with binary parameters and binary results: one round
    /// trip. Wraps `PQexecPrepared`.
    @discardableResult
    func executePrepared(_ name: String, _ parameters: UnsafeRawBufferPointer...) throws(PostgresError) -> PostgresResult {
        let values = parameters.map { $0.baseAddress?.assumingMemoryBound(to: CChar.self) }
        let lengths = parameters.map { Int32($0.count) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        return try checked(PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1), name)
    }

    /// Runs `COPY ... FROM STDIN` with `data` (the whole COPY stream) as one statement.
    /// Wraps `PQputCopyData`, `PQputCopyEnd` and `PQgetResult`.
    func copy(_ sql: String, _ data: [UInt8]) throws(PostgresError) {
        let started = try PostgresResult(nonNil: PQexec(handle, sql), lastError)
        guard PQresultStatus(started.handle) == PGRES_COPY_IN else {
            throw PostgresError(context: sql, message: String(cString: PQresultErrorMessage(started.handle)))
        }
        var offset = 0
        while offset < data.count {
            let chunk = min(1 << 20, data.count - offset)
            let sent = data.withUnsafeBytes { raw in
                PQputCopyData(handle, raw.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), Int32(chunk))
            }
            guard sent == 1 else { throw PostgresError(context: sql, message: lastError) }
            offset += chunk
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw PostgresError(context: sql, message: lastError) }
        var failure: PostgresError?
        while let next = PQgetResult(handle) {
            let result = PostgresResult(next)
            if PQresultStatus(result.handle) != PGRES_COMMAND_OK {
                failure = PostgresError(context: sql, message: String(cString: PQresultErrorMessage(result.handle)))
            }
        }
        if let failure { throw failure }
    }

    /// Calls `body` with each row of `select` (binary fields), fetched `batch` rows at a time
    /// through a binary cursor inside a read-only transaction, so memory stays bounded whatever
    /// the table's size. `DECLARE ... BINARY CURSOR`, then `FETCH` until no row is left.
    func forEachRow(of select: String, batch: Int = 10_000, _ body: (PostgresResult, Int) throws -> Void) throws {
        try execute("BEGIN READ ONLY")
        try execute("DECLARE replay BINARY NO SCROLL CURSOR FOR \(select)")
        while true {
            let result = try execute("FETCH \(batch) FROM replay")
            let rows = result.rows
            for row in 0..<rows { try body(result, row) }
            if rows < batch { break }
        }
        try execute("COMMIT")
    }

    private func checked(_ pointer: OpaquePointer?, _ context: String) throws(PostgresError) -> PostgresResult {
        let result = try PostgresResult(nonNil: pointer, lastError)
        let status = PQresultStatus(result.handle)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgresError(context: context, message: String(cString: PQresultErrorMessage(result.handle)).trimmingSuffix("\n"))
        }
        return result
    }
}

extension PostgresResult {
    /// libpq returns nil only when out of memory or the connection is gone.
    convenience init(nonNil pointer: OpaquePointer?, _ error: @autoclosure () -> String) throws(PostgresError) {
        guard let pointer else { throw PostgresError(context: "libpq", message: error()) }
        self.init(pointer)
    }
}

/// Builds a `COPY ... FROM STDIN (FORMAT binary)` stream: the signature, then tuples of binary
/// fields, then the trailer.
struct PostgresCopyStream {
    private var bytes: [UInt8]

    /// "PGCOPY\n\xFF\r\n\0", then no flags and no header extension.
    init(capacity: Int = 1 << 16) {
        bytes = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0, 0, 0, 0, 0]
        bytes.reserveCapacity(capacity)
    }

    mutating func beginTuple(fields: Int16) { append(fields) }

    mutating func field(_ value: Int64) {
        append(Int32(8))
        append(value)
    }

    mutating func field(_ value: Int16) {
        append(Int32(2))
        append(value)
    }

    mutating func field(_ value: UnsafeRawBufferPointer) {
        append(Int32(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func finish() -> [UInt8] {
        append(Int16(-1))
        return bytes
    }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
