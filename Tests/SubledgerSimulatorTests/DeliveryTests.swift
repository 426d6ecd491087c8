import Foundation
import Testing
import SubledgerSimulator

@Suite("Delivery")
struct DeliveryTests {
    @Test("duplicates and late deliveries change notifications.jsonl only, never expected.json")
    func disorder() throws {
        let ordered = Simulator.Configuration(customers: 50, months: 6, seed: 21)
        var disordered = ordered
        disordered.duplicates = 0.2
        disordered.reorder = 0.2
        let pki = try Simulator(configuration: ordered).makePKI()
        let clean = try Workload.run(ordered, pki: pki)
        let messy = try Workload.run(disordered, pki: pki)

        #expect(clean.expectedBytes == messy.expectedBytes)
        #expect(clean.lines.count == clean.summary.notifications)
        #expect(messy.summary.notifications == clean.summary.notifications)
        #expect(messy.lines.count == clean.lines.count + messy.summary.duplicateLines)
        #expect(messy.summary.duplicateLines > 0)
        #expect(messy.summary.delayedLines > 0)

        let cleanNotifications = try clean.notifications()
        let messyNotifications = try messy.notifications()
        #expect(Set(messyNotifications.map(\.notification.notificationUUID)) == Set(cleanNotifications.map(\.notification.notificationUUID)))
        #expect(Set(messyNotifications.map(\.unsigned)) == Set(cleanNotifications.map(\.unsigned)))
        // A duplicate is the same signed line again, as Apple's retries are.
        #expect(Set(messy.lines).count == clean.summary.notifications)

        let cleanDates = cleanNotifications.map(\.signedDate)
        let messyDates = messyNotifications.map(\.signedDate)
        #expect(cleanDates == cleanDates.sorted())
        #expect(messyDates != messyDates.sorted())
    }
}
