#if canImport(Glibc)
import Glibc
#endif

extension FileIO {
    /// The path with symbolic links and `..` resolved; nil when it does not exist.
    static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The canonical path of `path`, which need not exist yet: its nearest existing ancestor
    /// resolved, the missing components appended.
    static func canonicalPath(existingPrefixOf path: String) -> String? {
        var missing: [Substring] = []
        var prefix = Substring(path)
        while true {
            if let resolved = canonicalPath(prefix.isEmpty ? "." : String(prefix)) {
                return ([resolved == "/" ? "" : Substring(resolved)] + missing.reversed()).joined(separator: "/")
            }
            guard let slash = prefix.lastIndex(of: "/") else {
                missing.append(prefix)
                prefix = ""
                continue
            }
            missing.append(prefix[prefix.index(after: slash)...])
            prefix = slash == prefix.startIndex ? "/" : prefix[..<slash]
        }
    }

    /// Names directly in `directory`, `.` and `..` left out; nil when it cannot be listed.
    public static func names(in directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Names of the regular files directly in `directory`.
    static func regularFiles(in directory: String) throws(LedgerError) -> [String] {
        guard let names = names(in: directory) else {
            throw LedgerError.storage("cannot list \(directory): \(String(cString: strerror(errno)))")
        }
        return names.filter { name in
            var info = stat()
            return stat(directory + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        }.sorted()
    }

    /// Copies a small file atomically (temporary file, sync, rename), keeping its mode: a copied
    /// API key stays readable by its owner only.
    static func copyFile(_ source: String, to destination: String) throws(LedgerError) {
        var info = stat()
        guard stat(source, &info) == 0, let bytes = read(source) else {
            throw LedgerError.storage("cannot read \(source): \(String(cString: strerror(errno)))")
        }
        try writeAtomically(destination, bytes, mode: info.st_mode & 0o777)
        // The umask may have taken bits from the new file that the original has.
        guard chmod(destination, info.st_mode & 0o777) == 0 else {
            throw LedgerError.storage("cannot set the mode of \(destination): \(String(cString: strerror(errno)))")
        }
    }
}
