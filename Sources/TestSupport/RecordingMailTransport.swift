package import Mail
import Synchronization

/// A mail transport for tests: keeps every message it accepts, in order, or fails as told.
package final class RecordingMailTransport: MailTransport {
    private let state = Mutex<(delivered: [MailMessage], failure: MailDeliveryError?)>(([], nil))

    package init() {}

    package func deliver(_ message: MailMessage) async throws(MailDeliveryError) {
        let failure = state.withLock { state -> MailDeliveryError? in
            if let failure = state.failure { return failure }
            state.delivered.append(message)
            return nil
        }
        if let failure { throw failure }
    }

    /// Every message accepted so far.
    package var delivered: [MailMessage] { state.withLock { $0.delivered } }

    /// Makes every delivery from now fail with `failure` (nil: accept again).
    package func fail(with failure: MailDeliveryError?) {
        state.withLock { $0.failure = failure }
    }

    /// Forgets what was delivered.
    package func clear() {
        state.withLock { $0.delivered = [] }
    }
}
