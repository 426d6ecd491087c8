import SubledgerCore

extension PosixThread {
    /// `spawn`, with a refusal reported as the server's own error.
    static func serverThread(name: String, niceness: Int32 = 0, _ body: @escaping @Sendable () -> Void) throws(HTTPServerError) -> PosixThread {
        do {
            return try spawn(name: name, niceness: niceness, body)
        } catch {
            throw HTTPServerError(errno: error.errno, context: "start thread \(error.name)")
        }
    }
}
