extension Duration {
    /// The duration in seconds, as summaries and metrics report it.
    @inlinable
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The whole milliseconds in the duration, as system calls and logs take them.
    @inlinable
    public var inMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
