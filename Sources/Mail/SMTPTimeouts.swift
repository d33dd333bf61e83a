/// How long each step of an SMTP delivery may take, so that a relay that stalls anywhere fails
/// the delivery (temporarily) instead of holding it forever.
///
/// The defaults follow RFC 5321 §4.5.3.2's spirit at a web app's scale: its minimums (5 minutes
/// for the greeting and most replies, 10 for the end of the data) suit queues of large mail, not
/// one short text mail that the outbox can retry.
package struct SMTPTimeouts: Sendable, Equatable {
    /// Resolving and connecting, over all of the relay's addresses.
    package var connect: Duration
    /// The 220 greeting.
    package var greeting: Duration
    /// Each command's reply, counted from when the command is sent (sending included); also
    /// the TLS handshake.
    package var reply: Duration
    /// Sending the whole message after the 354.
    package var data: Duration
    /// The reply to the end of the data, when the relay checks and queues the message.
    package var dataReply: Duration

    package init(
        connect: Duration = .seconds(10), greeting: Duration = .seconds(30), reply: Duration = .seconds(30),
        data: Duration = .seconds(60), dataReply: Duration = .seconds(60)
    ) {
        self.connect = connect
        self.greeting = greeting
        self.reply = reply
        self.data = data
        self.dataReply = dataReply
    }

    /// Connect 10 s, greeting and each reply 30 s, the data and its reply 60 s each.
    package static let standard = SMTPTimeouts()
}
