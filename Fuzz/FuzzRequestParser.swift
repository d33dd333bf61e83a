// libFuzzer entry for the pure request parser (Sources/HTTPServer/HTTP1) and the other pure
// decoders that see client bytes (URL-encoded forms, static-file paths, HTTP dates, cookies).
// Built by run.sh with `swiftc -sanitize=fuzzer,address` together with those sources only.
//
// Checks beyond "does not crash": the parser consumes no more than it is given, and feeding
// the same bytes whole or in small pieces gives the same requests and the same verdict.

/// The events of one parse run, in a comparable form.
struct Outcome: Equatable {
    var requests: [String] = []
    var rejection: Int?
}

func run(_ bytes: UnsafeBufferPointer<UInt8>, limits: HTTPLimits, pieceSize: Int) -> Outcome {
    var parser = HTTPRequestParser(limits: limits)
    var buffer: [UInt8] = []
    var outcome = Outcome()
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + pieceSize)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<end]))
        offset = end
        while true {
            let (event, consumed) = buffer.withUnsafeBufferPointer { parser.parse($0) }
            precondition(consumed >= 0 && consumed <= buffer.count, "consumed \(consumed) of \(buffer.count)")
            buffer.removeFirst(consumed)
            switch event {
            case .needMoreData:
                break
            case .head(let head):
                precondition(!head.target.isEmpty)
                continue
            case .request(let request):
                let fields = request.headers.fields.map { "\($0.name):\($0.value)" }.joined(separator: "|")
                outcome.requests.append(
                    "\(request.method) \(request.target) \(request.version) \(fields) \(request.body)")
                precondition(request.body.count <= limits.uploadBody)
                _ = request.wantsClose
                _ = request.queryItems
                checkCookies(of: request)
                continue
            case .reject(let rejection):
                outcome.rejection = rejection.status.code
                return outcome
            }
            break
        }
    }
    return outcome
}

/// The cookies' look-ups agree whether the first field's pairs were indexed when the cookies
/// were made or are walked on each look-up (a second, empty field turns the index off), for
/// every name the fields hold and for names they do not.
func checkCookies(of request: HTTPRequest) {
    let indexed = request.cookies
    var headers = request.headers
    headers.add(name: "Cookie", value: "")
    let walked = HTTPCookies(headers)
    var names = ["", "a", "quotebook_session"]
    headers.forEachValue(for: "Cookie") { value in
        for piece in value.split(separator: ";", omittingEmptySubsequences: false) {
            let name = piece.prefix { $0 != "=" }.trimmingPrefix { $0 == " " || $0 == "\t" }
            names.append(String(name))
        }
        return true
    }
    for name in names.prefix(16) {
        precondition(indexed[name] == walked[name], "cookie \(name) differs indexed and walked")
        precondition(indexed.contains(name) == walked.contains(name))
    }
    precondition(indexed == walked)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var limits = HTTPLimits()
    limits.requestLine = 256
    limits.headerSection = 512
    limits.headerCount = 12
    limits.formBody = 300
    limits.uploadBody = 600

    let whole = run(bytes, limits: limits, pieceSize: max(size, 1))
    let pieceSize = size > 0 ? Int(bytes[0] % 7) + 1 : 1
    let pieces = run(bytes, limits: limits, pieceSize: pieceSize)
    precondition(whole.requests == pieces.requests, "requests differ whole vs pieces of \(pieceSize)")
    let limitStatuses: Set<Int?> = [414, 431]
    precondition(
        (whole.rejection == nil) == (pieces.rejection == nil)
            && (whole.rejection == pieces.rejection || limitStatuses.contains(whole.rejection)
                || limitStatuses.contains(pieces.rejection)),
        "verdict differs: \(String(describing: whole.rejection)) vs \(String(describing: pieces.rejection))")

    _ = try? URLEncodedForm(bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = StaticPath.segments(ofEncodedPath: text)
    _ = HTTPDate.parse(text)
    _ = HTTPRequest.split(target: text)
    return 0
}
