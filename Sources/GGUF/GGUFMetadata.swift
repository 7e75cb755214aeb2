/// The metadata key/value pairs of a GGUF file, in file order, with typed
/// accessors. The optional accessors return nil for a missing key and throw
/// when the key exists with the wrong type; the `required` ones also throw
/// `.missingKey`.
public struct GGUFMetadata: Sendable {
    public let entries: [GGUFMetadataEntry]
    private let index: [String: Int]

    init(entries: [GGUFMetadataEntry], index: [String: Int]) {
        self.entries = entries
        self.index = index
    }

    public subscript(key: String) -> GGUFValue? {
        index[key].map { entries[$0].value }
    }

    public var keys: [String] { entries.map(\.key) }

    private func typed<T>(_ key: String, _ expected: String, _ convert: (GGUFValue) -> T?) throws -> T? {
        guard let value = self[key] else { return nil }
        guard let converted = convert(value) else {
            if case .uint64 = value, expected == "integer" {
                throw GGUFError(.valueOutOfRange(key: key))
            }
            throw GGUFError(.wrongValueType(key: key, expected: expected, found: "\(value.type)"))
        }
        return converted
    }

    private func require<T>(_ key: String, _ value: T?) throws -> T {
        guard let value else { throw GGUFError(.missingKey(key)) }
        return value
    }

    public func string(_ key: String) throws -> String? { try typed(key, "string") { $0.stringValue } }
    /// Any integer type.
    public func int(_ key: String) throws -> Int? { try typed(key, "integer") { $0.intValue } }
    /// float32, float64 or any integer type.
    public func double(_ key: String) throws -> Double? { try typed(key, "number") { $0.doubleValue } }
    public func bool(_ key: String) throws -> Bool? { try typed(key, "bool") { $0.boolValue } }
    public func array(_ key: String) throws -> GGUFArray? { try typed(key, "array") { $0.arrayValue } }
    public func strings(_ key: String) throws -> [String]? { try typed(key, "array of strings") { $0.arrayValue?.strings } }
    public func ints(_ key: String) throws -> [Int]? { try typed(key, "array of integers") { $0.arrayValue?.ints } }
    public func floats(_ key: String) throws -> [Float]? { try typed(key, "array of floats") { $0.arrayValue?.floats } }

    public func requiredString(_ key: String) throws -> String { try require(key, string(key)) }
    public func requiredInt(_ key: String) throws -> Int { try require(key, int(key)) }
    public func requiredDouble(_ key: String) throws -> Double { try require(key, double(key)) }
    public func requiredBool(_ key: String) throws -> Bool { try require(key, bool(key)) }
    public func requiredArray(_ key: String) throws -> GGUFArray { try require(key, array(key)) }
}
