#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps `mdb_env_set_mapsize` away from this process's live transactions.
///
/// Resizing unmaps and remaps the data file, so any open transaction of this process would go on
/// reading unmapped memory; LMDB leaves that check to the caller. Every transaction passes the
/// gate; a resize closes it to new transactions, waits until the open ones have left, then remaps.
///
/// A thread that already holds a transaction of this environment (a read nested in a read or a
/// write) passes without waiting: it is counted, so no resize can be under way, and making it wait
/// would deadlock. For the same reason such a thread cannot resize; it gets an error instead.
/// The per-thread count is exact because transaction bodies are synchronous closures.
final class TransactionGate: @unchecked Sendable {
    // @unchecked: `open`, `closed` and `broken` are only touched with `mutex` held, and the
    // thread-specific value is per thread by construction.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    private var open = 0
    private var closed = false
    private var broken = false
    /// Per thread: (transactions of this environment open on the thread) << 1 | (one is a write).
    private var threadKey = pthread_key_t()

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        pthread_cond_init(changed, nil)
        let created = pthread_key_create(&threadKey, nil)
        precondition(created == 0, "out of pthread keys")
    }

    deinit {
        pthread_key_delete(threadKey)
        pthread_cond_destroy(changed)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private var threadState: Int {
        get { Int(bitPattern: pthread_getspecific(threadKey)) }
        set { pthread_setspecific(threadKey, UnsafeRawPointer(bitPattern: newValue)) }
    }

    /// True when the calling thread holds a transaction of this environment.
    var threadHoldsTransaction: Bool { threadState != 0 }

    /// Registers a transaction about to begin on this thread; waits while a resize is under way.
    func enter(write: Bool, context: @autoclosure () -> String) throws {
        let state = threadState
        if write && state & 1 != 0 {
            throw LMDBError(kind: .nestedTransaction, context: context())
        }
        pthread_mutex_lock(mutex)
        while closed && state == 0 {
            pthread_cond_wait(changed, mutex)
        }
        let isBroken = broken
        if !isBroken { open += 1 }
        pthread_mutex_unlock(mutex)
        if isBroken {
            throw LMDBError(kind: .panic, context: context() + " after the memory map could not be re-established")
        }
        threadState = (((state >> 1) + 1) << 1) | (state & 1) | (write ? 1 : 0)
    }

    /// Unregisters a transaction that ended on this thread.
    func leave(write: Bool) {
        let state = threadState
        threadState = (((state >> 1) - 1) << 1) | (write ? 0 : state & 1)
        pthread_mutex_lock(mutex)
        open -= 1
        if open == 0 { pthread_cond_broadcast(changed) }
        pthread_mutex_unlock(mutex)
    }

    /// Runs `remap` (a `mdb_env_set_mapsize` call) once no transaction of this process is open.
    ///
    /// - Throws: ``LMDBError/Kind/mapFull`` or `kindIfNested` when this thread holds a transaction,
    ///   and the mapped error when `remap` fails, after which the gate refuses every transaction.
    func remap(kindIfNested: LMDBError.Kind, context: @autoclosure () -> String, _ remap: () -> Int32) throws {
        if threadHoldsTransaction {
            throw LMDBError(kind: kindIfNested, context: context())
        }
        pthread_mutex_lock(mutex)
        while closed {
            pthread_cond_wait(changed, mutex)
        }
        closed = true
        while open > 0 {
            pthread_cond_wait(changed, mutex)
        }
        let rc = broken ? 0 : remap()
        if rc != 0 { broken = true }
        closed = false
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        if rc != 0 {
            throw LMDBError(code: rc, context: context())
        }
    }
}
