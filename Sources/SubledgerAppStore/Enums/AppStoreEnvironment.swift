/// The server environment that signed the data.
///
/// Apple: [environment](https://developer.apple.com/documentation/appstoreservernotifications/environment)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct AppStoreEnvironment: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The sandbox (test) environment.
    public static let sandbox = Self(rawValue: "Sandbox")

    /// The production environment.
    public static let production = Self(rawValue: "Production")

    /// Signed locally by Xcode's StoreKit testing; not signed by Apple.
    public static let xcode = Self(rawValue: "Xcode")

    /// Signed by StoreKit local testing; not signed by Apple.
    public static let localTesting = Self(rawValue: "LocalTesting")

    /// Whether the environment's data is signed on a developer's machine, by one self-signed
    /// certificate rather than Apple's chain.
    public var isSignedLocally: Bool { self == .xcode || self == .localTesting }
}
