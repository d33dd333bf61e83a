/// Saves snapshots away from the journal's own connection, so a large one (28 MB at 100,000
/// quotes, a quarter of a second to write and sync) never holds up the appends queued behind
/// it. ``JournalWriter`` hands it one snapshot at a time and goes on appending meanwhile.
package protocol SnapshotSaver: Sendable {
    /// Stores `bytes` (``SnapshotFormat``) as the state through entry `sequence`; durable when
    /// it returns. A saver shared by several writers (PostgreSQL's) keeps a newer snapshot that
    /// another stored; one writer's saves come in order anyway. Never blocks a cooperative-pool
    /// thread.
    func save(_ bytes: [UInt8], through sequence: Int64) async throws(StoreError)
    /// Releases what it holds; later saves throw.
    func close() async
}
