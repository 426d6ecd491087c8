/// The one value a command returns; the emitter prints it as JSON, a table or CSV, so the
/// formats never drift apart.
protocol CommandOutput {
    /// The contract's JSON document.
    func json() throws -> String
    var tabulation: Tabulation { get }
}
