import CLMDB

/// A named database inside an ``LMDBEnvironment``: a handle (`MDB_dbi`) from
/// ``LMDBEnvironment/openDatabase(named:create:)``, valid only with that environment.
public struct LMDBDatabase: Sendable, Hashable {
    let handle: MDB_dbi
    public let name: String

    init(handle: MDB_dbi, name: String) {
        self.handle = handle
        self.name = name
    }
}
