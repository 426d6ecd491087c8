/// Why a simulation could not run or finish, and what to do about it.
public struct SimulatorError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A configuration value is out of range; fix the value named in the message.
        case invalidConfiguration = "invalid_configuration"
        /// Reading or writing the output directory failed; check the path, permissions and space.
        case io
        /// libcrypto could not create the test PKI.
        case crypto
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String {
        "\(kind.rawValue): \(message)"
    }
}
