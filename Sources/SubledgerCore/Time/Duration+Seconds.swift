extension Duration {
    /// The duration in seconds, as summaries and metrics report it.
    @inlinable
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
