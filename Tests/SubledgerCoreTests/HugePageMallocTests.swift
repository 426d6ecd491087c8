import Testing
@testable import SubledgerCore

@Suite("Huge-page malloc for whole-log folds")
struct HugePageMallocTests {
    @Test func anEmptyEnvironmentGetsTheTunableAlone() {
        #expect(HugePageMalloc.tunables(extending: nil) == "glibc.malloc.hugetlb=1")
        #expect(HugePageMalloc.tunables(extending: "") == "glibc.malloc.hugetlb=1")
    }

    @Test func theUsersOtherTunablesAreKept() {
        #expect(HugePageMalloc.tunables(extending: "glibc.malloc.arena_max=2")
            == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")
    }

    /// Also what stops the re-executed process from re-executing again.
    @Test func aHugePageSettingAlreadyThereIsNotOverridden() {
        #expect(HugePageMalloc.tunables(extending: "glibc.malloc.hugetlb=0") == nil)
        #expect(HugePageMalloc.tunables(extending: "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1") == nil)
    }

    @Test func aTunableThatOnlyStartsWithTheNameIsAnother() {
        #expect(HugePageMalloc.tunables(extending: "glibc.malloc.hugetlbx=1") == "glibc.malloc.hugetlbx=1:glibc.malloc.hugetlb=1")
    }
}
