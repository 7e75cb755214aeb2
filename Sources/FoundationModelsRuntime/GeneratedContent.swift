import JSON
import Schema

/// A stable identifier for one generated value (`GenerationID`).
public struct GenerationID: Sendable, Hashable {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// `GeneratedContent`: a single value, an array, or key-value pairs with unique
/// keys in generation order. It is what guided generation produces and what a
/// snapshot holds (then `isComplete` is false and values may be missing).
public struct GeneratedContent: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: Sendable, Hashable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([GeneratedContent])
        case structure(properties: [String: GeneratedContent], orderedKeys: [String])
    }

    public var kind: Kind
    public var id: GenerationID?
    /// False for a snapshot of content still being generated.
    public var isComplete: Bool

    public init(kind: Kind, id: GenerationID? = nil, isComplete: Bool = true) {
        self.kind = kind
        self.id = id
        self.isComplete = isComplete
    }

    public init(_ string: String) { self.init(kind: .string(string)) }
    public init(_ number: Double) { self.init(kind: .number(number)) }
    public init(_ number: Int) { self.init(kind: .number(Double(number))) }
    public init(_ bool: Bool) { self.init(kind: .bool(bool)) }

    /// `GeneratedContent(properties:)`, keys kept in the given order; a
    /// repeated key keeps its first position and takes the last value.
    public init(properties: [(String, GeneratedContent)], id: GenerationID? = nil) {
        var values: [String: GeneratedContent] = [:]
        var order: [String] = []
        for (key, value) in properties {
            if values[key] == nil { order.append(key) }
            values[key] = value
        }
        self.init(kind: .structure(properties: values, orderedKeys: order), id: id)
    }

    public init(elements: [GeneratedContent], id: GenerationID? = nil) {
        self.init(kind: .array(elements), id: id)
    }

    /// The content as a session produces it: `id` on it, and on every value inside it an id made from `id` and
    /// the value's path (`id/searchTerms/2`), so each generated value has its own id and the snapshots of one
    /// streamed response share them with the final content (Apple: content a session produces has a non-nil
    /// `id`, the same for all partial generations of the response; content made with initializers has none).
    public func identified(_ id: GenerationID, depth: Int = 0) -> GeneratedContent {
        var copy = self
        copy.id = id
        guard depth < 256 else { return copy }
        switch kind {
        case .array(let items):
            copy.kind = .array(items.enumerated().map { $0.element.identified(GenerationID("\(id.rawValue)/\($0.offset)"), depth: depth + 1) })
        case .structure(let properties, let keys):
            var identified: [String: GeneratedContent] = [:]
            for (key, value) in properties { identified[key] = value.identified(GenerationID(id.rawValue + "/" + key), depth: depth + 1) }
            copy.kind = .structure(properties: identified, orderedKeys: keys)
        case .null, .bool, .number, .string:
            break
        }
        return copy
    }

    /// Parses JSON text. Incomplete JSON (a prefix of a document, as streamed
    /// by guided generation) gives a partial value with `isComplete == false`:
    /// strings so far, numbers only once complete, unfinished keys dropped.
    ///
    /// `partial: true` reads a prefix of a longer document (a stream so far): a number that runs into the end
    /// may still grow, so it is left out. Otherwise the text is the whole document (`"42"` is the number 42).
    public init(json: String, partial: Bool = false) throws {
        var parser = PartialJSONParser(Array(json.utf8))
        parser.isPrefix = partial
        guard let value = try parser.parseDocument() else {
            throw GeneratedContentError.emptyJSON
        }
        self = value
    }

    // MARK: Access

    /// The properties of a structure, in order (empty for other kinds).
    public var orderedProperties: [(key: String, value: GeneratedContent)] {
        guard case .structure(let properties, let keys) = kind else { return [] }
        return keys.compactMap { key in properties[key].map { (key, $0) } }
    }

    public subscript(property: String) -> GeneratedContent? {
        guard case .structure(let properties, _) = kind else { return nil }
        return properties[property]
    }

    public var stringValue: String? { if case .string(let s) = kind { s } else { nil } }
    public var numberValue: Double? { if case .number(let n) = kind { n } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = kind { b } else { nil } }
    public var arrayValue: [GeneratedContent]? { if case .array(let a) = kind { a } else { nil } }

    // MARK: JSON

    public init(_ json: JSONValue) {
        switch json {
        case .null: self.init(kind: .null)
        case .bool(let b): self.init(kind: .bool(b))
        case .int(let i): self.init(kind: .number(Double(i)))
        case .double(let d): self.init(kind: .number(d))
        case .string(let s): self.init(kind: .string(s))
        case .array(let a): self.init(kind: .array(a.map(GeneratedContent.init)))
        case .object(let o): self.init(properties: o.map { ($0.key, GeneratedContent($0.value)) })
        }
    }

    /// The value as JSON (integral numbers become integers).
    public var jsonValue: JSONValue {
        switch kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n):
            if n == n.rounded(), abs(n) < 9.0e15 { return .int(Int(n)) }
            return .double(n)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(\.jsonValue))
        case .structure:
            return .object(JSONObject(orderedProperties.map { ($0.key, $0.value.jsonValue) }))
        }
    }

    /// Compact JSON text.
    public var jsonString: String { jsonValue.serialized() }

    /// A string is shown as itself; anything else as JSON.
    public var description: String { stringValue ?? jsonString }
    public var debugDescription: String { jsonString }

    /// Every nested value marked complete or not.
    func marked(complete: Bool) -> GeneratedContent {
        var copy = self
        copy.isComplete = complete
        return copy
    }
}

public enum GeneratedContentError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyJSON
    case invalidJSON(offset: Int, message: String)

    public var description: String {
        switch self {
        case .emptyJSON: "no JSON value"
        case .invalidJSON(let offset, let message): "invalid JSON at byte \(offset): \(message)"
        }
    }
}

/// A JSON parser that accepts a prefix of a document. Used for snapshots of
/// guided output and for `GeneratedContent(json:)`.
struct PartialJSONParser {
    private let bytes: [UInt8]
    private var index = 0
    /// Whether the bytes are a prefix of a longer document (a stream so far): a number at the end may still grow.
    var isPrefix = false

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Nil when the input holds no value yet (only whitespace or an unfinished number).
    mutating func parseDocument() throws -> GeneratedContent? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        let (value, complete) = try parseValue()
        skipWhitespace()
        if complete, index < bytes.count {
            throw GeneratedContentError.invalidJSON(offset: index, message: "unexpected text after the value")
        }
        return value?.marked(complete: complete)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    private func fail(_ message: String) -> GeneratedContentError {
        .invalidJSON(offset: index, message: message)
    }

    /// Returns the value (nil when nothing usable was read before the input
    /// ended) and whether it was complete.
    private mutating func parseValue() throws -> (GeneratedContent?, Bool) {
        skipWhitespace()
        guard index < bytes.count else { return (nil, false) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let (string, complete) = try parseString()
            return (GeneratedContent(kind: .string(string), isComplete: complete), complete)
        case UInt8(ascii: "t"): return try parseLiteral("true", GeneratedContent(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", GeneratedContent(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", GeneratedContent(kind: .null))
        default: return try parseNumber()
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: GeneratedContent) throws -> (GeneratedContent?, Bool) {
        for byte in word.utf8 {
            guard index < bytes.count else { return (nil, false) }
            guard bytes[index] == byte else { throw fail("expected '\(word)'") }
            index += 1
        }
        return (value, true)
    }

    private mutating func parseNumber() throws -> (GeneratedContent?, Bool) {
        let start = index
        while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
        guard index > start else { throw fail("unexpected character '\(Character(UnicodeScalar(bytes[index])))'") }
        // A number running into the end of a prefix may still grow.
        if index == bytes.count, isPrefix { return (nil, false) }
        guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw GeneratedContentError.invalidJSON(offset: start, message: "invalid number")
        }
        return (GeneratedContent(number), true)
    }

    private mutating func parseString() throws -> (String, Bool) {
        index += 1  // opening quote
        var scalars: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (String(decoding: scalars, as: UTF8.self), true)
            }
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count else { break }
                let escaped = bytes[index + 1]
                switch escaped {
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 6 <= bytes.count else { index = bytes.count; continue }
                    let hex = String(decoding: bytes[(index + 2)..<(index + 6)], as: UTF8.self)
                    guard var code = UInt32(hex, radix: 16) else { throw fail("invalid \\u escape") }
                    var consumed = 6
                    if (0xD800..<0xDC00).contains(code) {
                        // A surrogate pair: \uD83D\uDE00.
                        guard index + 12 <= bytes.count else { index = bytes.count; continue }
                        let low = String(decoding: bytes[(index + 8)..<(index + 12)], as: UTF8.self)
                        guard bytes[index + 6] == UInt8(ascii: "\\"), let lowCode = UInt32(low, radix: 16) else {
                            throw fail("invalid surrogate pair")
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (lowCode - 0xDC00)
                        consumed = 12
                    }
                    scalars.append(contentsOf: Array(String(UnicodeScalar(code).map(Character.init) ?? "\u{FFFD}").utf8))
                    index += consumed
                    continue
                default: scalars.append(escaped)
                }
                index += 2
                continue
            }
            scalars.append(byte)
            index += 1
        }
        // Unterminated: drop a trailing incomplete UTF-8 sequence.
        while let last = scalars.last, last & 0xC0 == 0x80 || last >= 0xC0 {
            if String(validating: scalars, as: UTF8.self) != nil { break }
            scalars.removeLast()
        }
        return (String(decoding: scalars, as: UTF8.self), false)
    }

    private mutating func parseArray() throws -> (GeneratedContent?, Bool) {
        index += 1
        var elements: [GeneratedContent] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return (GeneratedContent(elements: elements), true)
        }
        while true {
            let (value, complete) = try parseValue()
            if let value { elements.append(value) }
            guard complete else { return (GeneratedContent(kind: .array(elements), isComplete: false), false) }
            skipWhitespace()
            guard index < bytes.count else { return (GeneratedContent(kind: .array(elements), isComplete: false), false) }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return (GeneratedContent(elements: elements), true) }
            throw fail("expected ',' or ']' in an array")
        }
    }

    private mutating func parseObject() throws -> (GeneratedContent?, Bool) {
        index += 1
        var pairs: [(String, GeneratedContent)] = []
        func partial() -> (GeneratedContent?, Bool) {
            var value = GeneratedContent(properties: pairs)
            value.isComplete = false
            return (value, false)
        }
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return (GeneratedContent(properties: pairs), true)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { return partial() }
            guard bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a property name") }
            let (key, keyComplete) = try parseString()
            guard keyComplete else { return partial() }
            skipWhitespace()
            guard index < bytes.count else { return partial() }
            guard bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after a property name") }
            index += 1
            let (value, complete) = try parseValue()
            if let value { pairs.append((key, value)) }
            guard complete else { return partial() }
            skipWhitespace()
            guard index < bytes.count else { return partial() }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return (GeneratedContent(properties: pairs), true) }
            throw fail("expected ',' or '}' in an object")
        }
    }
}

extension GenerationSchema {
    /// The content with null written for every absent optional property of an object whose definition
    /// represents nil explicitly (DynamicGenerationSchema's `representNilExplicitlyInGeneratedContent: true`).
    func representingNils(in content: GeneratedContent, as type: SchemaType) -> GeneratedContent {
        switch (type, content.kind) {
        case (.array(let element, _), .array(let items)):
            return GeneratedContent(elements: items.map { representingNils(in: $0, as: element) }, id: content.id)
        case (.reference(let name), .structure(let properties, let keys)):
            guard let definition = definition(named: name), case .object(let declared) = definition.kind else { return content }
            var pairs: [(String, GeneratedContent)] = []
            for property in declared {
                if let value = properties[property.name] {
                    pairs.append((property.name, representingNils(in: value, as: property.type)))
                } else if property.isOptional, definition.representsNilExplicitly {
                    pairs.append((property.name, GeneratedContent(kind: .null)))
                }
            }
            // Keys the schema does not declare stay (the schema check already passed), in their order.
            for key in keys where !declared.contains(where: { $0.name == key }) {
                if let value = properties[key] { pairs.append((key, value)) }
            }
            return GeneratedContent(properties: pairs, id: content.id)
        default:
            return content
        }
    }
}
