// libFuzzer entry for the multipart/form-data parser (Sources/HTTPServer/Message/MultipartForm*)
// and the header-parameter parser it uses for Content-Type and Content-Disposition.
// Built by run.sh with `swiftc -sanitize=fuzzer,address` together with those sources only.
//
// Each input is tried twice: whole, as a body with the fixed boundary `fuzzboundary`; and split
// at its first LF into a Content-Type value and a body, so the parameter parser sees client
// bytes too. Checks beyond "does not crash": on success every part has a non-empty name and no
// more data than the input; the body spooled to a file parses to the same parts; parts
// re-encoded with the same boundary parse back to equal parts;
// parsed parameters re-serialized with quoted values parse back to the same value.

import Glibc

let fixedBoundary = "fuzzboundary"

func checkForm(body: [UInt8], contentType: String, inputSize: Int) {
    checkSpooled(body: body, contentType: contentType)
    guard let form = try? MultipartForm(body: body, contentType: contentType) else { return }
    precondition(form.parts.count <= MultipartForm.partLimit, "\(form.parts.count) parts")
    var total = 0
    for part in form.parts {
        precondition(!part.name.isEmpty, "a part without a name")
        precondition(part.body.count <= inputSize, "part body \(part.body.count) > input \(inputSize)")
        precondition(part.headers.count <= MultipartForm.headerFieldLimit)
        total += part.body.count
    }
    precondition(total <= inputSize, "part bodies total \(total) > input \(inputSize)")
    checkReencoding(form, contentType: contentType)
}

/// The same body written to a ``SpooledBody`` (as the server spools an upload) parses to the
/// same parts, those over 8 bytes left in place at ranges that hold exactly their data; and
/// it is refused exactly when the body in memory is.
func checkSpooled(body: [UInt8], contentType: String) {
    guard let spooled = SpooledBody(directory: "/tmp") else { preconditionFailure("no spool file: errno \(errno)") }
    precondition(body.withUnsafeBytes { spooled.append($0) } && spooled.count == body.count, "spooling failed")
    let inMemory = try? MultipartForm(body: body, contentType: contentType)
    let inPlace = try? MultipartForm(spooled: spooled, contentType: contentType, leavingInPlaceOver: 8)
    precondition((inMemory == nil) == (inPlace == nil), "spooled and in-memory parses disagree")
    guard let inMemory, let inPlace else { return }
    precondition(inMemory.parts.count == inPlace.parts.count, "spooled parse has other parts")
    for (memory, placed) in zip(inMemory.parts, inPlace.parts) {
        if let range = placed.spooledData {
            precondition(placed.body.isEmpty && memory.body.count > 8 && Array(body[range]) == memory.body, "part left in place wrongly")
        } else {
            precondition(placed.body == memory.body && memory.body.count <= 8, "part copied wrongly")
        }
        precondition(placed.name == memory.name && placed.headers == memory.headers, "part headers differ")
    }
}

/// Re-encodes `form` with its own boundary; unless a body holds the delimiter text, the result
/// must parse to the same parts.
func checkReencoding(_ form: MultipartForm, contentType: String) {
    guard let boundary = HeaderParameters(contentType)?["boundary"] else {
        preconditionFailure("parsed without a boundary")
    }
    let delimiter = Array("\r\n--\(boundary)".utf8)
    var encoded: [UInt8] = []
    for part in form.parts {
        if contains(part.body, delimiter) { return }
        encoded += Array("--\(boundary)\r\n".utf8)
        for (name, value) in part.headers { encoded += Array("\(name):\(value)\r\n".utf8) }
        encoded += [0x0D, 0x0A] + part.body + [0x0D, 0x0A]
    }
    encoded += Array("--\(boundary)--".utf8)
    do {
        let again = try MultipartForm(body: encoded, contentType: contentType)
        precondition(again.parts == form.parts, "re-encoded parts differ")
    } catch {
        preconditionFailure("re-encoded form rejected: \(error)")
    }
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
    }
    return false
}

/// Parsed parameters, written back with every value quoted, parse to the same thing.
func checkParameters(_ text: String) {
    guard let parsed = HeaderParameters(text) else { return }
    precondition(!parsed.value.isEmpty)
    precondition(parsed.value == parsed.value.lowercased())
    var written = parsed.value
    for (name, value) in parsed.parameters {
        precondition(!name.isEmpty && name == name.lowercased())
        var quoted = ""
        for character in value.unicodeScalars {
            if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(character)
        }
        written += "; \(name)=\"\(quoted)\""
    }
    precondition(HeaderParameters(written) == parsed, "re-serialized parameters differ")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkForm(body: bytes, contentType: "multipart/form-data; boundary=\(fixedBoundary)", inputSize: size)

    if let newline = bytes.firstIndex(of: 0x0A) {
        let contentType = String(decoding: bytes[..<newline], as: UTF8.self)
        checkParameters(contentType)
        checkForm(body: Array(bytes[(newline + 1)...]), contentType: contentType, inputSize: size)
    } else {
        checkParameters(String(decoding: bytes, as: UTF8.self))
    }
    return 0
}
