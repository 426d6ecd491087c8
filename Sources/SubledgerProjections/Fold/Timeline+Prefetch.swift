import CPrefetch

extension Timeline {
    /// Which lines of a timeline's three arrays `prefetchArrays` asks for.
    enum ArrayLines {
        /// The first two lines of each: the header (reference count, count, capacity) and the
        /// first elements.
        case heads
        /// The line of each one's last element (read after `heads`: it needs the count).
        case ends
        /// Every line of each (read after `heads`).
        case whole
    }

    /// Asks for lines of the arrays of the timeline at `timeline`, reading their storage's
    /// addresses (and, but for `heads`, their counts) as bare words: no reference is taken, and
    /// a prefetch never faults. A timeline's arrays are separate heap objects, so where timelines
    /// are taken one after another at 10 M events, reaching each array nearly always misses the
    /// caches.
    static func prefetchArrays(of timeline: UnsafePointer<Timeline>, _ lines: ArrayLines) {
        let timeline = UnsafeRawPointer(timeline)
        for (offset, stride) in arrays {
            let storage = timeline.load(fromByteOffset: offset, as: UnsafeRawPointer.self)
            switch lines {
            case .heads:
                subledger_prefetch(storage)
                subledger_prefetch(storage + 64)
            case .ends:
                let count = storage.load(fromByteOffset: countOffset, as: Int.self)
                if count > 1 { subledger_prefetch(storage + elementsOffset + (count - 1) * stride) }
            case .whole:
                let end = elementsOffset + storage.load(fromByteOffset: countOffset, as: Int.self) * stride
                for line in Swift.stride(from: 128, to: end, by: 64) { subledger_prefetch(storage + line) }
            }
        }
    }

    /// Where a timeline holds each array's storage, and the stride of its elements.
    private static let arrays = [
        (MemoryLayout<Timeline>.offset(of: \.transactions)!, MemoryLayout<TransactionVersion>.stride),
        (MemoryLayout<Timeline>.offset(of: \.renewals)!, MemoryLayout<RenewalSnapshot>.stride),
        (MemoryLayout<Timeline>.offset(of: \.facts)!, MemoryLayout<Fact>.stride),
    ]
    /// An array's storage: an object header (two words), its count, its capacity, then the
    /// elements (the standard library's layout on 64-bit platforms).
    private static let countOffset = 16
    private static let elementsOffset = 32
}
