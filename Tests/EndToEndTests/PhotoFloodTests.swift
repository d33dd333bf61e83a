import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Issue 29's photo flood over real sockets: one person sends twelve 12-megapixel photos at once
/// while another, from another address, uploads a small one. The flood holds at most its share
/// of the pool (one job a person): the rest of it is refused at once with 503, and the other
/// person's photo is taken.
@Suite struct PhotoFloodTests {
    @Test func twelveHeavyUploadsFromOnePersonLeaveAnothersUploadWorking() async throws {
        let app = try await TestApp()
        let live = try AddressLimitTests.serve(app)
        var mallory = AddressLimitTests.browser(live, from: AddressLimitTests.attacker)
        #expect(try await mallory.signUp("mallory").status == 303)
        var ada = AddressLimitTests.browser(live, from: AddressLimitTests.neighbour)
        #expect(try await ada.signUp("ada").status == 303)
        let heavy = try await TestPhotos.file("large.jpg")
        let token = try await mallory.csrfToken(from: "/profile/edit")
        let flood = (0..<12).map { _ in mallory.preparedUpload("/profile/photo", field: "photo", file: heavy, token: token) }

        let clock = ContinuousClock()
        let (statuses, adaStatus, adaTook) = try await withThrowingTaskGroup(of: Int.self) { group in
            for upload in flood { group.addTask { try await SocketClient.exchangeOnce(port: live.port, upload).status } }
            let started = clock.now
            let small = try await ada.upload(
                "/profile/photo", field: "photo", filename: "me.png", fileType: "image/png", file: try await TestPhotos.png(5),
                formPage: "/profile/edit")
            let took = clock.now - started
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return (statuses, small.status, took)
        }
        print("PhotoFloodTests: the flood answered \(statuses.sorted()); Ada's upload took \(adaTook)")
        #expect(adaStatus == 303, "the other person's photo is taken")
        #expect(statuses.allSatisfy { $0 == 303 || $0 == 503 }, "\(statuses)")
        #expect(statuses.filter { $0 == 503 }.count >= 6, "past its share the flood is refused at once: \(statuses.sorted())")
        #expect(app.store.state.user(named: Username("ada")!)?.photo != nil)
        await live.stop()
    }
}
