extension StringProtocol {
    /// Without the whitespace (spaces, tabs, line ends) around it.
    public var trimmingWhitespace: Substring {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return text
    }
}
