/// Prints a command's output in the format asked for: the only place stdout text is made.
struct Emitter: Sendable {
    var format: OutputFormat
    /// Table columns meant for `--wide` only are shown.
    var wide: Bool
    /// Spells the commands a table's notes name with the command line's `--data`.
    var data: DataDirectory

    init(format: OutputFormat, wide: Bool = false, data: DataDirectory) {
        self.format = format
        self.wide = wide
        self.data = data
    }

    /// The text for stdout, ending in a newline.
    func render(_ output: some CommandOutput) throws -> String {
        switch format {
        case .json, .jsonl: try output.json() + "\n"
        case .table: TextTableRenderer(wide: wide, width: TextTableRenderer.terminalWidth).render(spelled(output.tabulation))
        case .csv: CSVRenderer().render(output.tabulation, document: (output as? any DocumentOutput)?.document)
        }
    }

    private func spelled(_ tabulation: Tabulation) -> Tabulation {
        var spelled = tabulation
        spelled.notes = tabulation.notes.map(data.spelling)
        return spelled
    }
}
