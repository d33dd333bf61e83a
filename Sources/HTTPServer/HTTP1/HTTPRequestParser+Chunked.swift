import Basics

extension HTTPRequestParser {
    /// `chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF` (RFC 9112 §7.1): extensions are
    /// ignored, a size that overflows is a 400, one that passes the body limit a 413.
    mutating func parseChunkSize(_ line: UnsafeBufferPointer<UInt8>) -> Event? {
        guard line.count <= Self.chunkLineLimit else { return .reject(.badRequest("chunk size line too long")) }
        var size = 0
        var index = 0
        while index < line.count, let digit = Hex.value(of: line[index]) {
            let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
            guard !overflow else { return .reject(.badRequest("chunk size overflows")) }
            size = shifted + Int(digit)
            index += 1
        }
        guard index > 0 else { return .reject(.badRequest("malformed chunk size")) }
        if index < line.count {
            var extensionStart = index
            while extensionStart < line.count, line[extensionStart] == ASCII.space || line[extensionStart] == ASCII.tab {
                extensionStart += 1
            }
            guard extensionStart < line.count, line[extensionStart] == ASCII.semicolon,
                UnsafeBufferPointer(rebasing: line[extensionStart...]).allSatisfy(ASCII.isFieldValueByte)
            else { return .reject(.badRequest("malformed chunk extension")) }
        }
        if size == 0 {
            state = .trailers
            return nil
        }
        guard size <= bodyLimit - bodyCount else { return refuseBody() }
        remaining = size
        state = .chunkData
        return nil
    }

    /// Reads and drops one trailer field line (RFC 9112 §7.1.2), within the header size limit.
    mutating func dropTrailer(_ line: UnsafeBufferPointer<UInt8>) -> Event? {
        trailerBytes += line.count + 2
        if trailerBytes > limits.headerSection {
            return .reject(HTTPRejection(.requestHeaderFieldsTooLarge, "trailer section over \(limits.headerSection) bytes"))
        }
        guard line[0] != ASCII.space, line[0] != ASCII.tab, let colon = line.firstIndex(of: ASCII.colon), colon > 0,
            UnsafeBufferPointer(rebasing: line[..<colon]).allSatisfy(ASCII.isTokenByte),
            UnsafeBufferPointer(rebasing: line[(colon + 1)...]).allSatisfy(ASCII.isFieldValueByte)
        else { return .reject(.badRequest("malformed trailer field")) }
        return nil
    }
}
