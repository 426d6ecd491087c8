extension Array {
    /// The first index whose element satisfies `isAfter`, `count` when none does, for elements
    /// ordered so that those satisfying it all follow those that do not: a binary search.
    func partitionPoint(where isAfter: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
