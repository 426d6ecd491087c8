import SubledgerCore

/// A payload object written member by member: known members in Apple's order, then
/// `unknownFields` verbatim.
protocol JSONObjectEncodable {
    /// Writes the object's members (not its braces); absent fields write nothing.
    func encodeMembers(into writer: inout JSONWriter)
}
