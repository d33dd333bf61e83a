import App
import HTTPServer
import Store
import StorePostgres
import StoreSQLite
import Testing

/// A save while PostgreSQL restarts: the database being out of reach answers 503 with
/// `Retry-After: 1` and a page saying so; any other fault is still the generic 500.
struct DatabaseUnavailableTests {
    @Test(arguments: [
        StoreError.postgresConnectionLost(operation: "append", message: "server closed the connection unexpectedly"),
        StoreError.postgres(operation: "connect to postgres://q@db/q", sqlState: nil, message: "Connection refused"),
        StoreError.postgres(operation: "BEGIN", sqlState: "57P01", message: "terminating connection due to administrator command"),
        StoreError.postgres(operation: "BEGIN", sqlState: "57P03", message: "the database system is starting up"),
    ])
    func answersServiceUnavailableWhenTheDatabaseIsOutOfReach(_ error: StoreError) {
        let page = ErrorView.page(for: AppCoordinator.failure(for: error))
        #expect(page.status == .serviceUnavailable)
        #expect(page.headers["Retry-After"] == "1")
    }

    @Test(arguments: [
        StoreError.sqlite(operation: "append", code: 13, message: "disk full"),
        StoreError.postgres(operation: "INSERT", sqlState: "23505", message: "duplicate key"),
        StoreError.journalBehind(head: 9),
    ])
    func answersServerFaultForOtherStoreErrors(_ error: StoreError) {
        let page = ErrorView.page(for: AppCoordinator.failure(for: error))
        #expect(page.status == .internalServerError)
        #expect(page.headers["Retry-After"] == nil)
    }
}
