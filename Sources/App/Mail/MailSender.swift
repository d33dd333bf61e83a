package import Foundation
package import Logging
package import Mail
package import Store

/// How long a mail that failed for now waits before the next try, and when it is given up.
package struct MailRetryPolicy: Sendable, Equatable {
    /// The pause after the first failure (`--mail-retry-delay`); each later one doubles it.
    package var firstPause: TimeInterval = 30
    /// No pause is longer: a relay that comes back is used within the hour.
    package var longestPause: TimeInterval = 3_600
    /// A mail still failing this long after it was queued is given up (SPEC.md: at least a day).
    package var giveUpAfter: TimeInterval = 2 * 86_400

    package init(firstPause: TimeInterval = 30) {
        self.firstPause = firstPause
    }

    /// The pause after `attempts` failed deliveries (1 or more).
    package func pause(afterAttempts attempts: Int) -> TimeInterval {
        min(firstPause * pow(2, Double(max(0, attempts - 1))), longestPause)
    }
}

/// Delivers the outbox (``MailStorage``): turns reset requests into mail, claims what is due,
/// hands each to the transport, and deletes it once accepted or refused for good; a failure for
/// now is tried again after a growing pause (``MailRetryPolicy``). Runs as one task per process
/// (``run(pollInterval:)``), woken when a page queues mail and every few seconds besides, for
/// retries and for mail other instances queued. With several instances each claim is exclusive,
/// so each mail is sent once; a process killed mid-delivery leaves its claim to lapse after
/// ``lease``, and the mail is sent again then (the relay may see it twice, never zero times).
///
/// Addresses never reach the log: a delivery is logged by its Message-ID and the recipient's
/// domain (the development transport writes whole mails to the log by design).
package final class MailSender: Sendable {
    /// How long a claim holds a mail: longer than any delivery's timeouts together.
    package static let lease: TimeInterval = 600
    /// Reset and address mails an account gets an hour (SPEC.md "Mail links").
    package static let mailsPerAccountHour = 3

    private let storage: any MailStorage
    private let transport: any MailTransport
    private let composer: MailComposer
    private let username: @Sendable (UserID) -> Username?
    private let retry: MailRetryPolicy
    private let counters: MailCounters?
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let wakeups: AsyncStream<Void>
    private let wakeup: AsyncStream<Void>.Continuation

    /// - Parameter username: the account's username in the current state; nil for one deleted,
    ///   whose reset request is dropped.
    package init(
        storage: any MailStorage, transport: any MailTransport, composer: MailComposer,
        username: @escaping @Sendable (UserID) -> Username?, retry: MailRetryPolicy = MailRetryPolicy(), counters: MailCounters? = nil,
        logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.storage = storage
        self.transport = transport
        self.composer = composer
        self.username = username
        self.retry = retry
        self.counters = counters
        self.logger = logger
        self.now = now
        (wakeups, wakeup) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The hourly allowance of `user`'s reset and address mails.
    package static func allowance(of user: UserID) -> MailAllowance {
        MailAllowance(key: MailAllowance.accountKey(user), limit: mailsPerAccountHour, window: 3_600)
    }

    /// Asks the running sender to look at the outbox now (a page just queued mail).
    package func wake() {
        wakeup.yield()
    }

    /// Delivers until the task is cancelled: at once, whenever woken, and every `pollInterval`.
    package func run(pollInterval: Duration = .seconds(5)) async {
        let ticker = Task { [wakeup] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                wakeup.yield()
            }
        }
        defer { ticker.cancel() }
        await drain()
        for await _ in wakeups {
            if Task.isCancelled { break }
            await drain()
        }
    }

    /// One pass: every reset request resolved, then every mail due delivered or rescheduled.
    /// Returns how many were accepted.
    @discardableResult
    package func drain() async -> Int {
        var sent = 0
        do {
            try await resolveResets()
            // One mail a claim: a claim's lease covers one delivery's timeouts, never a queue's.
            while let mail = try await storage.claimMail(now: now(), lease: Self.lease, limit: 1).first {
                if try await deliver(mail) { sent += 1 }
            }
        } catch {
            logger.warning("outbox: \(error) (tried again in a few seconds)")
        }
        return sent
    }

    private func resolveResets() async throws(StoreError) {
        let composer = self.composer, username = self.username, date = now()
        _ = try await storage.resolveResetRequests(now: date, allowance: Self.allowance) { user, verified in
            guard let name = username(user), let address = MailAddress(verified) else { return nil }
            let token = MailLinkToken.make(.resetPassword, now: date)
            let message = composer.passwordReset(to: address, username: name, token: token.text, at: date)
            return (token.record, MailComposer.encode(message, linkExpiresAt: token.record.expiresAt))
        }
    }

    /// Hands `mail` to the transport; true when it was accepted.
    private func deliver(_ mail: QueuedMail) async throws(StoreError) -> Bool {
        guard let queued = MailComposer.decode(mail.message) else {
            logger.error("outbox: mail \(mail.id) cannot be read; given up")
            try await finish(mail, .failed)
            return false
        }
        let message = queued.message
        let name = "mail <\(message.messageID)> to a recipient at \(message.to.domain)"
        if let expiry = queued.linkExpiresAt, expiry <= now() {
            logger.warning("outbox: \(name) given up: its link died before it could be sent")
            try await finish(mail, .failed)
            return false
        }
        var refusal: MailDeliveryError?
        do throws(MailDeliveryError) {
            try await transport.deliver(message)
        } catch {
            refusal = error
        }
        guard let failure = refusal else {
            try await finish(mail, .sent)
            logger.info("outbox: sent \(name)")
            return true
        }
        let date = now()
        switch failure.withoutAddresses {
        case .permanent(let reason):
            logger.error("outbox: the relay refused \(name) for good, given up: \(reason)")
        case .temporary(let reason) where date.timeIntervalSince(mail.queuedAt) < retry.giveUpAfter:
            let pause = retry.pause(afterAttempts: mail.attempts + 1)
            logger.warning("outbox: \(name) failed for now, tried again in \(Int(pause)) s: \(reason)")
            try await storage.retryMail(mail, at: date + pause)
            counters?.count(.retried)
            return false
        case .temporary(let reason):
            logger.error("outbox: \(name) still failing after \(Int(retry.giveUpAfter / 3_600)) hours, given up: \(reason)")
        }
        try await finish(mail, .failed)
        return false
    }

    /// Deletes `mail` from the outbox and counts what became of it.
    private func finish(_ mail: QueuedMail, _ outcome: MailCounters.Outcome) async throws(StoreError) {
        try await storage.finishMail(mail)
        counters?.count(outcome)
    }
}

extension MailDeliveryError {
    /// The same failure with every word holding an `@` replaced: a relay's refusal often
    /// repeats the recipient (`550 5.1.1 <bob@example.org>: Recipient address rejected`), and
    /// addresses never reach the log.
    var withoutAddresses: MailDeliveryError {
        func scrub(_ text: String) -> String {
            text.split(separator: " ", omittingEmptySubsequences: false).map { $0.contains("@") ? "<address>" : String($0) }
                .joined(separator: " ")
        }
        switch self {
        case .temporary(let reason): return .temporary(scrub(reason))
        case .permanent(let reason): return .permanent(scrub(reason))
        }
    }
}
