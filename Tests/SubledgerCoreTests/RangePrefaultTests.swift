#if canImport(Glibc)
import Glibc
#endif
import Testing
import SubledgerCore

@Suite("Faulting in allocated memory before another thread writes it")
struct RangePrefaultTests {
    static let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    static let megabyte = 1 << 20

    /// Untouched anonymous memory, unmapped at the end.
    final class Mapping {
        let base: UnsafeMutableRawPointer
        let bytes: Int

        init(megabytes: Int) throws {
            bytes = megabytes * RangePrefaultTests.megabyte
            let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            base = try #require(memory == MAP_FAILED ? nil : memory)
        }

        deinit { munmap(base, bytes) }

        func range(fromMB from: Int, toMB to: Int) -> UnsafeMutableRawBufferPointer {
            UnsafeMutableRawBufferPointer(start: base + from * RangePrefaultTests.megabyte, count: (to - from) * RangePrefaultTests.megabyte)
        }

        /// For each page of `from ..< to` (in MB), whether it is resident.
        func resident(fromMB from: Int, toMB to: Int) -> [Bool] {
            let count = (to - from) * RangePrefaultTests.megabyte / RangePrefaultTests.page
            var pages = [UInt8](repeating: 0, count: count)
            _ = mincore(base + from * RangePrefaultTests.megabyte, count * RangePrefaultTests.page, &pages)
            return pages.map { $0 & 1 == 1 }
        }
    }

    @Test func faultsInEveryPageOfTheRangesAndNoneBesideThem() throws {
        let mapping = try Mapping(megabytes: 48)
        #expect(mapping.resident(fromMB: 0, toMB: 48).allSatisfy { !$0 }, "fresh anonymous memory is not resident")
        RangePrefault([mapping.range(fromMB: 4, toMB: 12), mapping.range(fromMB: 20, toMB: 36)]).wait()
        #expect(mapping.resident(fromMB: 4, toMB: 12).allSatisfy { $0 })
        #expect(mapping.resident(fromMB: 20, toMB: 36).allSatisfy { $0 })
        #expect(mapping.resident(fromMB: 12, toMB: 20).allSatisfy { !$0 } && mapping.resident(fromMB: 36, toMB: 48).allSatisfy { !$0 })
    }

    @Test func leavesWhatTheMemoryHoldsAsItWas() throws {
        let mapping = try Mapping(megabytes: 8)
        let words = mapping.base.bindMemory(to: UInt64.self, capacity: mapping.bytes / 8)
        for index in stride(from: 0, to: mapping.bytes / 8, by: 4096) { words[index] = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 }
        RangePrefault([mapping.range(fromMB: 0, toMB: 8)]).wait()
        for index in stride(from: 0, to: mapping.bytes / 8, by: 4096) {
            #expect(words[index] == UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        }
        #expect(words[1] == 0, "a word never written still reads zero")
    }

    @Test func skipsARangeNoLongerMappedAndFaultsInTheOthers() throws {
        let mapping = try Mapping(megabytes: 16)
        let gone = try #require(mmap(nil, 8 * Self.megabyte, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        munmap(gone, 8 * Self.megabyte)
        RangePrefault([UnsafeMutableRawBufferPointer(start: gone, count: 8 * Self.megabyte), mapping.range(fromMB: 0, toMB: 4)]).wait()
        #expect(mapping.resident(fromMB: 0, toMB: 4).allSatisfy { $0 })
        #expect(mapping.resident(fromMB: 4, toMB: 16).allSatisfy { !$0 })
    }
}
