/// Encodes any `Encodable` value to a `JSONValue`, keeping the order in which
/// keys are encoded. `nil` optionals encoded with `encodeIfPresent` (what
/// synthesized conformances do) are omitted. Non-finite floating-point numbers
/// are an error naming the coding path, since JSON cannot hold them.
public struct JSONValueEncoder: Sendable {
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    public func encode<T: Encodable>(_ value: T) throws(JSONCodingError) -> JSONValue {
        if let json = value as? JSONValue { return json }
        let node = EncodingNode()
        do {
            try value.encode(to: NodeEncoder(node: node, codingPath: [], userInfo: userInfo))
        } catch {
            throw JSONCodingError.from(error)
        }
        guard let result = node.resolved() else {
            throw JSONCodingError(path: "(root)", message: "\(T.self) did not encode any value")
        }
        return result
    }
}

/// A value under construction. Containers hand out child nodes that are
/// filled in later, so the tree is built by reference and resolved at the end.
private final class EncodingNode {
    enum Content {
        case empty
        case value(JSONValue)
        case object(keys: [String], members: [String: EncodingNode])
        case array([EncodingNode])
    }

    var content: Content = .empty

    func resolved() -> JSONValue? {
        switch content {
        case .empty:
            return nil
        case .value(let value):
            return value
        case .object(let keys, let members):
            var object = JSONObject()
            for key in keys { object[key] = members[key]?.resolved() ?? .object(JSONObject()) }
            return .object(object)
        case .array(let elements):
            return .array(elements.map { $0.resolved() ?? .object(JSONObject()) })
        }
    }

    /// Turns the node into an object (keeping members already added) and
    /// returns the child for `key`, creating it when new.
    func member(_ key: String) -> EncodingNode {
        var keys: [String] = []
        var members: [String: EncodingNode] = [:]
        if case .object(let k, let m) = content { keys = k; members = m }
        if let existing = members[key] { return existing }
        let child = EncodingNode()
        keys.append(key)
        members[key] = child
        content = .object(keys: keys, members: members)
        return child
    }

    func becomeObject() {
        if case .object = content { return }
        content = .object(keys: [], members: [:])
    }

    func becomeArray() {
        if case .array = content { return }
        content = .array([])
    }

    func appendElement() -> EncodingNode {
        var elements: [EncodingNode] = []
        if case .array(let e) = content { elements = e }
        let child = EncodingNode()
        elements.append(child)
        content = .array(elements)
        return child
    }

    var elementCount: Int {
        if case .array(let e) = content { return e.count }
        return 0
    }
}

private struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]

    init(node: EncodingNode, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.node = node
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedNodeEncoder<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedNodeEncoder(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueNodeEncoder(encoder: self)
    }

    func child(_ node: EncodingNode, key: any CodingKey) -> NodeEncoder {
        NodeEncoder(node: node, codingPath: codingPath + [key], userInfo: sendableUserInfo)
    }

    /// Stores `value` in `node`, with `key` appended to the path for errors.
    func encode<T: Encodable>(_ value: T, into node: EncodingNode, key: any CodingKey) throws {
        if let json = value as? JSONValue {
            node.content = .value(json)
            return
        }
        try value.encode(to: child(node, key: key))
    }

    func finite(_ value: Double, key: (any CodingKey)?) throws -> JSONValue {
        guard value.isFinite else {
            let path = key.map { codingPath + [$0] } ?? codingPath
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: path, debugDescription: "\(value) cannot be written as JSON (only finite numbers can)"))
        }
        return .double(value)
    }

    func integer<T: BinaryInteger>(_ value: T, key: (any CodingKey)?) throws -> JSONValue {
        guard let int = Int(exactly: value) else {
            let path = key.map { codingPath + [$0] } ?? codingPath
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: path, debugDescription: "\(value) does not fit a 64-bit signed JSON integer"))
        }
        return .int(int)
    }
}

private struct KeyedNodeEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: NodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: JSONValue, _ key: Key) {
        encoder.node.member(key.stringValue).content = .value(value)
    }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(try encoder.finite(value, key: key), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(try encoder.finite(Double(value), key: key), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(try encoder.integer(value, key: key), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.int(Int(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(try encoder.integer(value, key: key), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.encode(value, into: encoder.node.member(key.stringValue), key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.child(encoder.node.member(key.stringValue), key: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.child(encoder.node.member(key.stringValue), key: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.child(encoder.node.member(JSONCodingKey.superKey.stringValue), key: JSONCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.child(encoder.node.member(key.stringValue), key: key)
    }
}

private struct UnkeyedNodeEncoder: UnkeyedEncodingContainer {
    let encoder: NodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.node.elementCount }

    private var nextKey: JSONCodingKey { JSONCodingKey(intValue: count) }

    private func append(_ value: JSONValue) {
        encoder.node.appendElement().content = .value(value)
    }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try encoder.finite(value, key: nextKey)) }
    mutating func encode(_ value: Float) throws { append(try encoder.finite(Double(value), key: nextKey)) }
    mutating func encode(_ value: Int) throws { append(.int(value)) }
    mutating func encode(_ value: Int8) throws { append(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { append(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { append(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { append(.int(Int(value))) }
    mutating func encode(_ value: UInt) throws { append(try encoder.integer(value, key: nextKey)) }
    mutating func encode(_ value: UInt8) throws { append(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { append(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { append(.int(Int(value))) }
    mutating func encode(_ value: UInt64) throws { append(try encoder.integer(value, key: nextKey)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        try encoder.encode(value, into: encoder.node.appendElement(), key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        return encoder.child(encoder.node.appendElement(), key: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        return encoder.child(encoder.node.appendElement(), key: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        return encoder.child(encoder.node.appendElement(), key: key)
    }
}

private struct SingleValueNodeEncoder: SingleValueEncodingContainer {
    let encoder: NodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: JSONValue) { encoder.node.content = .value(value) }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(try encoder.finite(value, key: nil)) }
    mutating func encode(_ value: Float) throws { set(try encoder.finite(Double(value), key: nil)) }
    mutating func encode(_ value: Int) throws { set(.int(value)) }
    mutating func encode(_ value: Int8) throws { set(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { set(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { set(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { set(.int(Int(value))) }
    mutating func encode(_ value: UInt) throws { set(try encoder.integer(value, key: nil)) }
    mutating func encode(_ value: UInt8) throws { set(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { set(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { set(.int(Int(value))) }
    mutating func encode(_ value: UInt64) throws { set(try encoder.integer(value, key: nil)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let json = value as? JSONValue {
            set(json)
            return
        }
        try value.encode(to: encoder)
    }
}
