import Foundation
import Testing
import PasskeyStorage

/// The store contract: back-channel logouts queued by one process and sent by another.
struct OutboxContract {
    static let checks: [StoreCheck] = [
        StoreCheck("queued logout notices are taken oldest first, each by one taker only, across two stores") {
            try await OutboxContract().takenOnce($0)
        },
    ]

    func takenOnce(_ engine: any StoreEngine) async throws {
        try await engine.withStores(2) { stores in
            let notices = (0..<7).map {
                LogoutNotice(clientID: "client-\($0)", userHandle: [UInt8](repeating: UInt8($0), count: 32), sid: "sid-\($0)", createdAt: Fixture.date(Int64($0)))
            }
            try await stores[0].queueLogoutNotices(Array(notices.prefix(4)))
            try await stores[1].queueLogoutNotices(Array(notices.dropFirst(4)))
            try await stores[0].queueLogoutNotices([])
            #expect(try await stores[1].takeLogoutNotices(limit: 2) == Array(notices.prefix(2)))
            let taken = try await withThrowingTaskGroup(of: [LogoutNotice].self) { group in
                for store in stores + stores {
                    group.addTask { try await store.takeLogoutNotices(limit: 2) }
                }
                var all: [LogoutNotice] = []
                for try await part in group { all += part }
                return all
            }
            #expect(taken.count == 5)
            #expect(Set(taken.map(\.clientID)) == Set(notices.dropFirst(2).map(\.clientID)))
            #expect(try await stores[0].takeLogoutNotices(limit: 10).isEmpty)
        }
    }
}
