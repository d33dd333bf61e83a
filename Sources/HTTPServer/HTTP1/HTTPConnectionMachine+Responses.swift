/// The machine's events from the responder's side: a response to send, and a stream's bytes and end.
extension HTTPConnectionMachine {
    /// The responder answered the request in flight. `dateField` is the `Date: …\r\n` line.
    mutating func responseReady(_ response: HTTPResponse, dateField: [UInt8], now: UInt64) -> Action {
        guard phase == .responding, var exchange else { return .none }
        let isStreamed = response.stream != nil
        // A client that half-closed with nothing more buffered can send no further request.
        let closes =
            !exchange.keepAlive || isShuttingDown || (peerClosed && unconsumedInputCount == 0)
            || (isStreamed && exchange.version == .http1_0)
            || response.headers.containsValue(for: "Connection") { $0.lowercased().contains("close") }
        let isHead = exchange.method == .head
        let bodyBytes = HTTPResponseEncoder.encode(
            response,
            context: .init(isHead: isHead, version: exchange.version, keepAlive: !closes, isStreamed: isStreamed),
            dateField: dateField, into: &output)
        let code = response.status.code
        if let stream = response.stream, !isHead, (200..<600).contains(code), code != 204, code != 304 {
            if peerClosed {
                phase = .closed  // nobody will read a stream (as for a FIN during one)
                return .close(.clientClosedDuringStream)
            }
            exchange.keepAlive = !closes
            exchange.isChunked = exchange.version == .http1_1
            self.exchange = exchange
            phase = .streaming
            return .startStream(stream)
        }
        let record = AccessRecord(
            method: exchange.method.rawValue, path: exchange.path, status: code, bodyBytes: bodyBytes,
            started: exchange.started, rejection: exchange.refusal)
        endExchange(closing: closes, now: now)
        return .send(record)
    }

    /// A streamed body's producer wrote `bytes` (not empty).
    mutating func streamed(_ bytes: [UInt8], now: UInt64) -> Action {
        guard phase == .streaming, exchange != nil else { return .none }
        if !hasPendingOutput { lastWrite = now }  // the write clock starts with the first unsent byte
        if exchange?.isChunked == true {
            output.write { HTTPResponseEncoder.appendChunk(bytes, to: &$0) }
        } else {
            output.append(contentsOf: bytes)
        }
        exchange?.streamedBytes += bytes.count
        return .send(nil)
    }

    /// A streamed body's producer returned; `overflowed` when it gave up because its writes
    /// outran the client.
    mutating func streamEnded(overflowed: Bool, now: UInt64) -> Action {
        guard phase == .streaming else { return .none }
        if overflowed {
            phase = .closed
            return .abort(.streamReaderTooSlow)
        }
        return finishStream(now: now)
    }
}
