import SubledgerCore

/// The one value a command returns; the emitter prints it as JSON, a table or CSV, so the
/// formats never drift apart.
protocol CommandOutput {
    /// The contract's JSON document.
    func json() throws -> String
    var tabulation: Tabulation { get }
}

/// An output whose JSON document is built as a `JSON` value: without a table, its CSV is the
/// document's members as `field,value` records under their JSON names (`CSVRenderer`), exact,
/// where the table's labels and rounded cells were.
protocol DocumentOutput: CommandOutput {
    var document: JSON { get }
}

extension DocumentOutput {
    func json() -> String { document.serialized() }
}
