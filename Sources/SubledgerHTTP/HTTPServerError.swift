#if canImport(Glibc)
import Glibc
#endif

/// A failure to set up or run the server: what happened, and what to do about it.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The host is not a numeric IPv4/IPv6 address or `localhost`, or the port is out of range.
        case invalidAddress
        /// `EADDRINUSE`: another socket listens on the address.
        case addressInUse
        /// `EACCES`, `EPERM`: e.g. a port below 1024 without the privilege.
        case permissionDenied
        /// `EMFILE`, `ENFILE`, `ENOMEM`, `EAGAIN` from creating a descriptor or a thread.
        case resourceExhausted
        /// Another ``SignalTrap`` holds the signal handlers in this process.
        case signalsAlreadyTrapped
        /// Any other `errno` value.
        case system
    }

    public let kind: Kind
    /// What was being done, e.g. `bind 127.0.0.1:8080`.
    public let context: String
    /// The `errno` value, 0 when the failure was detected without a system call.
    public let errno: Int32

    init(kind: Kind, context: String, errno: Int32 = 0) {
        self.kind = kind
        self.context = context
        self.errno = errno
    }

    /// From a failed system call's `errno`.
    init(errno code: Int32, context: String) {
        let kind: Kind
        switch code {
        case EADDRINUSE: kind = .addressInUse
        case EACCES, EPERM: kind = .permissionDenied
        case EMFILE, ENFILE, ENOMEM, EAGAIN, ENOBUFS: kind = .resourceExhausted
        case EADDRNOTAVAIL, EAFNOSUPPORT: kind = .invalidAddress
        default: kind = .system
        }
        self.init(kind: kind, context: context, errno: code)
    }

    public var description: String {
        let reason = errno == 0 ? "" : " (\(String(cString: strerror(errno))), errno \(errno))"
        return "\(context): \(advice)\(reason)"
    }

    private var advice: String {
        switch kind {
        case .invalidAddress:
            return "not an address this machine can listen on; use a numeric IPv4 or IPv6 address of a local interface, or localhost, and a port from 0 to 65535"
        case .addressInUse:
            return "another process already listens on this address; stop it or choose another port"
        case .permissionDenied:
            return "permission denied; ports below 1024 need privileges, use a higher port"
        case .resourceExhausted:
            return "out of file descriptors, threads or memory; raise the limits (ulimit -n) or lower maxConnections"
        case .signalsAlreadyTrapped:
            return "another server in this process already traps signals; only one can"
        case .system:
            return "system error"
        }
    }
}
