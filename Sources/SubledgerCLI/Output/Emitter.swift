/// Prints a command's output in the format asked for: the only place stdout text is made.
struct Emitter: Sendable {
    var format: OutputFormat
    /// Table columns meant for `--wide` only are shown.
    var wide: Bool

    init(format: OutputFormat, wide: Bool = false) {
        self.format = format
        self.wide = wide
    }

    /// The text for stdout, ending in a newline.
    func render(_ output: some CommandOutput) throws -> String {
        switch format {
        case .json, .jsonl: try output.json() + "\n"
        case .table: TextTableRenderer(wide: wide, width: TextTableRenderer.terminalWidth).render(output.tabulation)
        case .csv: CSVRenderer().render(output.tabulation)
        }
    }
}
