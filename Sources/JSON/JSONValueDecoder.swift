/// Decodes any `Decodable` value from a `JSONValue`. Errors are
/// `JSONCodingError`s naming the coding path, for example
/// `params.position.line: expected Int, found string "x"`.
/// Integers accept integral doubles (`3.0`); floating-point types accept integers.
/// Unknown keys are ignored.
public struct JSONValueDecoder: Sendable {
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONCodingError) -> T {
        if T.self == JSONValue.self, let json = value as? T { return json }
        do {
            return try T(from: NodeDecoder(value: value, codingPath: [], userInfo: userInfo))
        } catch {
            throw JSONCodingError.from(error)
        }
    }
}

extension JSONValue {
    /// A short description of the value for error messages: `string "abc"`,
    /// `number 42`, `an object`, `null`.
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "boolean \(b)"
        case .int(let i): return "number \(i)"
        case .double(let d): return "number \(d)"
        case .string(let s): return s.count > 40 ? "a string" : "string \"\(s)\""
        case .array(let a): return "an array of \(a.count)"
        case .object: return "an object"
        }
    }
}

private struct NodeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]

    init(value: JSONValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.value = value
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    func mismatch(_ expected: String, _ found: JSONValue, at path: [any CodingKey]) -> JSONCodingError {
        JSONCodingError(codingPath: path, message: "expected \(expected), found \(found.kindDescription)")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch("an object", value, at: codingPath) }
        return KeyedDecodingContainer(KeyedNodeDecoder<Key>(decoder: self, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch("an array", value, at: codingPath) }
        return UnkeyedNodeDecoder(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueNodeDecoder(decoder: self)
    }

    func child(_ value: JSONValue, key: any CodingKey) -> NodeDecoder {
        NodeDecoder(value: value, codingPath: codingPath + [key], userInfo: sendableUserInfo)
    }

    // MARK: Scalars, shared by the three containers

    func decodeScalar<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
        switch type {
        case is Bool.Type:
            guard case .bool(let b) = value else { throw mismatch("Bool", value, at: path) }
            return b as! T
        case is String.Type:
            guard case .string(let s) = value else { throw mismatch("String", value, at: path) }
            return s as! T
        case is Double.Type:
            guard let d = value.doubleValue else { throw mismatch("a number", value, at: path) }
            return d as! T
        case is Float.Type:
            guard let d = value.doubleValue else { throw mismatch("a number", value, at: path) }
            return Float(d) as! T
        case is Int.Type: return try integer(Int.self, value, path) as! T
        case is Int8.Type: return try integer(Int8.self, value, path) as! T
        case is Int16.Type: return try integer(Int16.self, value, path) as! T
        case is Int32.Type: return try integer(Int32.self, value, path) as! T
        case is Int64.Type: return try integer(Int64.self, value, path) as! T
        case is UInt.Type: return try integer(UInt.self, value, path) as! T
        case is UInt8.Type: return try integer(UInt8.self, value, path) as! T
        case is UInt16.Type: return try integer(UInt16.self, value, path) as! T
        case is UInt32.Type: return try integer(UInt32.self, value, path) as! T
        case is UInt64.Type: return try integer(UInt64.self, value, path) as! T
        case is JSONValue.Type:
            return value as! T
        default:
            return try T(from: NodeDecoder(value: value, codingPath: path, userInfo: sendableUserInfo))
        }
    }

    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> I {
        guard let int = value.intValue else { throw mismatch("an integer", value, at: path) }
        guard let result = I(exactly: int) else {
            throw JSONCodingError(codingPath: path, message: "\(int) is out of range for \(I.self)")
        }
        return result
    }
}

private struct KeyedNodeDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    let object: JSONObject

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = object[key.stringValue] else {
            throw JSONCodingError(codingPath: codingPath + [key], message: "required key is missing")
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeScalar(type, from: try member(key), at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(try member(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try member(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(object[JSONCodingKey.superKey.stringValue] ?? .null, key: JSONCodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(object[key.stringValue] ?? .null, key: key)
    }
}

private struct UnkeyedNodeDecoder: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    let elements: [JSONValue]
    var currentIndex = 0

    init(decoder: NodeDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentKey: JSONCodingKey { JSONCodingKey(intValue: currentIndex) }

    private mutating func next() throws -> (JSONValue, JSONCodingKey) {
        let key = currentKey
        guard !isAtEnd else {
            throw JSONCodingError(codingPath: codingPath + [key], message: "expected another element; the array has \(elements.count)")
        }
        currentIndex += 1
        return (elements[key.intValue!], key)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if elements[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, key) = try next()
        return try decoder.decodeScalar(type, from: value, at: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, key) = try next()
        return try decoder.child(value, key: key).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, key) = try next()
        return try decoder.child(value, key: key).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, key) = try next()
        return decoder.child(value, key: key)
    }
}

private struct SingleValueNodeDecoder: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeScalar(type, from: decoder.value, at: codingPath)
    }
}
