/// The part of folding that depends only on the order of events, not on what the timelines
/// hold: which notifications were folded, which timeline an event goes to (new ones numbered in
/// order of first appearance) and whether its transaction id is new. A rebuild's reader thread
/// works this out while it makes the fold steps: these look-ups miss the cache on large tables,
/// and taking them off the folding thread evens out the two cores.
struct FoldIndexes: Sendable {
    private var notifications: NotificationIndex
    private var timelineIndex: HashIndex
    private var transactionIndex: HashIndex
    private var environmentIDs: [UInt32]
    private var timelineCount: Int

    /// Takes the indexes out of `projection`, which may fold only placed steps
    /// (`apply(placed:)`) until they are given back.
    init(taking projection: inout Projection) {
        notifications = projection.notifications
        timelineIndex = projection.timelineIndex
        transactionIndex = projection.transactionIndex
        environmentIDs = projection.environmentIDs
        timelineCount = projection.timelines.count
        // Left empty there, so that this copy is the only one and grows in place.
        projection.notifications = NotificationIndex()
        projection.timelineIndex = HashIndex()
        projection.transactionIndex = HashIndex()
    }

    func giveBack(to projection: inout Projection) {
        projection.notifications = notifications
        projection.timelineIndex = timelineIndex
        projection.transactionIndex = transactionIndex
        projection.environmentIDs = environmentIDs
    }

    /// Places a batch of steps in order. At 10 M events these tables are hundreds of megabytes
    /// and nearly every look-up misses the caches: the lines a step will probe are asked for
    /// `prefetchDistance` steps ahead, so that the misses overlap instead of following each other.
    mutating func place(_ steps: inout [FoldStep]) {
        for index in steps.indices {
            if index + Self.prefetchDistance < steps.count { prefetch(steps[index + Self.prefetchDistance]) }
            place(&steps[index])
        }
    }

    private static let prefetchDistance = 16

    private func prefetch(_ step: FoldStep) {
        if let notification = step.notification { notifications.prefetch(notification) }
        guard let key = step.key else { return }
        timelineIndex.prefetch(key.packed)
        if let version = step.transaction, !version.transactionId.isAbsent {
            transactionIndex.prefetch(TransactionKey(environment: key.environment, transactionId: version.transactionId).packed)
        }
    }

    /// Decides where `step` goes, as `Projection.apply(_:position:recordedAt:)` does for an event.
    private mutating func place(_ step: inout FoldStep) {
        if let notification = step.notification, !notifications.claim(notification) {
            step.isRepeat = true
            return
        }
        guard let key = step.key else { return }
        let index: Int32
        if let known = timelineIndex[key.packed] {
            index = known
        } else {
            index = Int32(timelineCount)
            timelineCount += 1
            timelineIndex.set(key.packed, index)
            if !environmentIDs.contains(key.environment) {
                environmentIDs.append(key.environment)
                environmentIDs.sort()
            }
        }
        if let version = step.transaction, !version.transactionId.isAbsent {
            let transaction = TransactionKey(environment: key.environment, transactionId: version.transactionId)
            step.transactionSeen = transactionIndex.insertIfAbsent(transaction.packed, index) != nil
        }
        step.timeline = index
    }
}
