import Dispatch

/// A serial executor backed by its own dispatch queue, so an actor using it runs (and blocks
/// in SQLite) on that queue's thread instead of holding a cooperative-pool thread.
///
/// Linux's Dispatch has no `DispatchSerialQueue` executor, hence this small one. Each actor that
/// owns a blocking resource (a SQLite connection, a PostgreSQL connection, a snapshot file) makes
/// its own and returns it as its `unownedExecutor`; the queue is the only thread its jobs run on.
package final class DispatchQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    package init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let unownedJob = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { unownedJob.runSynchronously(on: executor) }
    }
}
