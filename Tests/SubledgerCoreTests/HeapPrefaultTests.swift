#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SubledgerCore

@Suite("Faulting in the heap's pages ahead of the fold")
struct HeapPrefaultTests {
    static let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    static let megabyte = 1 << 20

    /// Untouched anonymous memory standing in for the heap, 2 MB-aligned, with a break the test
    /// moves as an allocator would.
    final class Region: Sendable {
        let mapping: Int
        let mappedBytes = 64 << 20
        let base: Int
        let end: Lock<Int>

        init() throws {
            let memory = mmap(nil, mappedBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            mapping = Int(bitPattern: try #require(memory == MAP_FAILED ? nil : memory))
            base = (mapping + (2 << 20) - 1) & ~((2 << 20) - 1)
            end = Lock(base)
        }

        deinit { munmap(UnsafeMutableRawPointer(bitPattern: mapping), mappedBytes) }

        /// Whether every page of `base + from ..< base + to` (in MB) is resident.
        func resident(from: Int, to: Int) -> [Bool] {
            let count = (to - from) * megabyte / page
            var pages = [UInt8](repeating: 0, count: count)
            _ = mincore(UnsafeMutableRawPointer(bitPattern: base + from * megabyte), count * page, &pages)
            return pages.map { $0 & 1 == 1 }
        }

        /// Waits up to 10 s for the pages of `base ..< base + to` (in MB) to be resident.
        func waitUntilResident(upTo to: Int) -> Bool {
            for _ in 0..<1000 {
                if resident(from: 0, to: to).allSatisfy({ $0 }) { return true }
                usleep(10_000)
            }
            return false
        }
    }

    @Test func faultsInThePagesTheBreakMovesOverWithoutTouchingThoseBeyondIt() throws {
        let region = try Region()
        let prefault = HeapPrefault(budget: 16 * Self.megabyte, end: { region.end.withLock { $0 } })
        defer { prefault.stop() }
        #expect(region.resident(from: 0, to: 32).allSatisfy { !$0 }, "fresh anonymous memory is not resident")

        region.end.withLock { $0 = region.base + 8 * Self.megabyte }
        #expect(region.waitUntilResident(upTo: 8))
        #expect(region.resident(from: 8, to: 32).allSatisfy { !$0 }, "nothing past the break is faulted in")
    }

    @Test func stopsAtItsBudgetHoweverFarTheBreakMoves() throws {
        let region = try Region()
        let prefault = HeapPrefault(budget: 16 * Self.megabyte, end: { region.end.withLock { $0 } })
        defer { prefault.stop() }

        region.end.withLock { $0 = region.base + 48 * Self.megabyte }
        #expect(region.waitUntilResident(upTo: 16))
        usleep(50_000)
        #expect(region.resident(from: 16, to: 48).allSatisfy { !$0 }, "nothing past the budget is faulted in")
    }
}
