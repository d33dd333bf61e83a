/// A strict RFC 8259 reader producing ``TemplateValue``s; see `TemplateValue.init(json:)`.
struct JSONReader {
    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    /// Nesting deeper than this is rejected instead of exhausting the stack.
    static let maximumDepth = 512

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads exactly one value surrounded by optional whitespace.
    mutating func readDocument() throws(TemplateError) -> TemplateValue {
        skipWhitespace()
        let value = try readValue()
        skipWhitespace()
        guard position == bytes.count else { throw error("expected end of JSON text") }
        return value
    }

    private mutating func readValue() throws(TemplateError) -> TemplateValue {
        guard position < bytes.count else { throw error("expected a JSON value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw error("expected a JSON value")
        }
    }

    private mutating func readObject() throws(TemplateError) -> TemplateValue {
        try enter()
        position += 1
        var object: [String: TemplateValue] = [:]
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            position += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a string key") }
            let key = try readString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after key") }
            position += 1
            skipWhitespace()
            object[key] = try readValue()
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                position += 1
            } else if peek(UInt8(ascii: "}")) {
                position += 1
                depth -= 1
                return .object(object)
            } else {
                throw error("expected ',' or '}' in object")
            }
        }
    }

    private mutating func readArray() throws(TemplateError) -> TemplateValue {
        try enter()
        position += 1
        var items: [TemplateValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            position += 1
            depth -= 1
            return .list(items)
        }
        while true {
            skipWhitespace()
            items.append(try readValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                position += 1
            } else if peek(UInt8(ascii: "]")) {
                position += 1
                depth -= 1
                return .list(items)
            } else {
                throw error("expected ',' or ']' in array")
            }
        }
    }

    private mutating func readString() throws(TemplateError) -> String {
        position += 1
        var scalars: [UInt8] = []
        var runStart = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                scalars.append(contentsOf: bytes[runStart..<position])
                position += 1
                guard let string = String(validating: scalars, as: UTF8.self) else {
                    throw error("invalid UTF-8 in string")
                }
                return string
            }
            if byte < 0x20 { throw error("unescaped control character in string") }
            if byte == UInt8(ascii: "\\") {
                scalars.append(contentsOf: bytes[runStart..<position])
                position += 1
                try readEscape(into: &scalars)
                runStart = position
            } else {
                position += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func readEscape(into buffer: inout [UInt8]) throws(TemplateError) {
        guard position < bytes.count else { throw error("unterminated string") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var code = try readHex4()
            if (0xD800..<0xDC00).contains(code) {
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in string") }
                position += 2
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in string") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(code) {
                throw error("unpaired surrogate in string")
            }
            guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
            buffer.append(contentsOf: String(Character(scalar)).utf8)
        default:
            position -= 1
            throw error("invalid escape in string")
        }
    }

    private mutating func readHex4() throws(TemplateError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("expected 4 hex digits") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected 4 hex digits")
            }
            code = code << 4 | UInt32(digit)
            position += 1
        }
        return code
    }

    private mutating func readNumber() throws(TemplateError) -> TemplateValue {
        let start = position
        var isInteger = true
        if peek(UInt8(ascii: "-")) { position += 1 }
        if peek(UInt8(ascii: "0")) {
            position += 1
        } else if skipDigits() == 0 {
            throw error("expected a digit")
        }
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            position += 1
            guard skipDigits() > 0 else { throw error("expected a digit after '.'") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { position += 1 }
            guard skipDigits() > 0 else { throw error("expected a digit in exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text) else { throw error("invalid number") }
        return .double(value)
    }

    private mutating func skipDigits() -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        return position - start
    }

    private mutating func expectWord(_ word: StaticString) throws(TemplateError) {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { expected in
            bytes.count - position >= count && bytes[position..<position + count].elementsEqual(expected)
        }
        guard matches else { throw error("expected a JSON value") }
        position += count
    }

    private mutating func enter() throws(TemplateError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("JSON nested too deeply") }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool {
        position < bytes.count && bytes[position] == byte
    }

    private func error(_ message: String) -> TemplateError {
        let location = SourceLocation(bytes: bytes, offset: min(position, bytes.count))
        return TemplateError(file: nil, line: location.line, column: location.column, message: "invalid JSON: " + message)
    }
}
