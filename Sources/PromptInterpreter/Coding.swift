import FoundationModelsRuntime
import JSON
import Schema
import SwiftSyntax

/// `JSONEncoder`/`JSONDecoder` for `Codable` types declared in the file
/// (stored properties by name; nested user types, optionals, arrays,
/// dictionaries with string keys, raw-value enums), and for the framework's
/// `Codable` values `Transcript` and `GenerationSchema` (their saved shape:
/// `Transcript.codingJSON`, `GenerationSchema.codingJSON`).
extension Interpreter {
    package func jsonValue(_ value: Value, sortedKeys: Bool, at node: some SyntaxProtocol) async throws -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? .int(Int(d)) : .double(d)
        case .string(let s): return .string(s)
        case .uuid(let s): return .string(s)
        case .date(let seconds): return .double(seconds - 978_307_200)  // Foundation's default: seconds since 2001
        case .array(let items), .set(let items):
            var result: [JSONValue] = []
            for item in items { result.append(try await jsonValue(item, sortedKeys: sortedKeys, at: node)) }
            return .array(result)
        case .dictionary(let pairs):
            var fields: [(String, JSONValue)] = []
            for pair in pairs { fields.append((pair.key.description, try await jsonValue(pair.value, sortedKeys: sortedKeys, at: node))) }
            return .object(JSONObject(sortedKeys ? fields.sorted { $0.0 < $1.0 } : fields))
        case .transcript(let transcript): return transcript.codingJSON
        case .schema(let schema): return schema.codingJSON
        case .structure(_, let stored):
            return try await jsonObject(stored, sortedKeys: sortedKeys, at: node)
        case .object(let box):
            return try await jsonObject(box.fields, sortedKeys: sortedKeys, at: node)
        case .enumCase(let type, let name, let payload):
            if payload.isEmpty, let raw = types.type(type)?.cases.first(where: { $0.name == name })?.rawValue {
                return try await jsonValue(raw, sortedKeys: sortedKeys, at: node)
            }
            throw error("encoding the enum case '\(name)' with associated values or without raw values is not supported", node)
        default:
            throw error("cannot encode \(value.description.prefix(30)) as JSON", node)
        }
    }

    private func jsonObject(_ fields: [(name: String, value: Value)], sortedKeys: Bool, at node: some SyntaxProtocol) async throws -> JSONValue {
        var result: [(String, JSONValue)] = []
        // Optional properties holding nil are left out, as Swift's synthesized encode(to:) does.
        for field in fields where !field.value.isNull {
            if case .function = field.value { continue }
            result.append((field.name, try await jsonValue(field.value, sortedKeys: sortedKeys, at: node)))
        }
        return .object(JSONObject(sortedKeys ? result.sorted { $0.0 < $1.0 } : result))
    }

    /// A JSON value as the declared type (`TypeSyntax` text or a user type name).
    package func decode(_ json: JSONValue, as typeName: String, path: [String], at node: some SyntaxProtocol) async throws -> Value {
        func failure(_ message: String) -> ThrownValue {
            ThrownValue(value: .string("DecodingError: \(message) at '\(path.joined(separator: "."))'"))
        }
        let name = typeName.trimmingCharacters(in: .whitespaces)
        if name.hasSuffix("?") {
            if json.isNull { return .null }
            return try await decode(json, as: String(name.dropLast()), path: path, at: node)
        }
        if name.hasPrefix("["), name.hasSuffix("]") {
            let inner = String(name.dropFirst().dropLast())
            if let colon = inner.firstIndex(of: ":") {
                guard case .object(let object) = json else { throw failure("expected a dictionary") }
                let valueType = String(inner[inner.index(after: colon)...])
                var pairs: [(key: Value, value: Value)] = []
                for (key, item) in object { pairs.append((.string(key), try await decode(item, as: valueType, path: path + [key], at: node))) }
                return .dictionary(pairs)
            }
            guard case .array(let items) = json else { throw failure("expected an array") }
            var values: [Value] = []
            for (index, item) in items.enumerated() { values.append(try await decode(item, as: inner, path: path + ["\(index)"], at: node)) }
            return .array(values)
        }
        do {
            switch name {
            case "Transcript": return .transcript(try Transcript(codingJSON: json))
            case "GenerationSchema": return .schema(try GenerationSchema(codingJSON: json))
            default: break
            }
        } catch {
            throw failure("the data is not a saved \(name): \(error.description) (dataCorrupted)")
        }
        switch (name, json) {
        case ("String", .string(let s)): return .string(s)
        case ("Int", .int(let i)): return .int(i)
        case ("Double", .int(let i)), ("Float", .int(let i)): return .double(Double(i))
        case ("Double", .double(let d)), ("Float", .double(let d)): return .double(d)
        case ("Bool", .bool(let b)): return .bool(b)
        case ("UUID", .string(let s)): return .uuid(s)
        case ("String", _), ("Int", _), ("Double", _), ("Float", _), ("Bool", _), ("UUID", _):
            if json.isNull { throw failure("expected \(name), found null (valueNotFound)") }
            throw failure("expected \(name) (typeMismatch)")
        default: break
        }
        guard let info = types.type(name) else { throw error("cannot decode the type '\(name)'", node) }
        if info.kind == .enum {
            let raw: Value
            switch json {
            case .string(let s): raw = .string(s)
            case .int(let i): raw = .int(i)
            default: throw failure("expected a raw value of \(name)")
            }
            guard let found = info.cases.first(where: { $0.rawValue.map { Value.equal($0, raw) } ?? false }) else {
                throw failure("cannot initialize \(name) from invalid value \(raw.debugDescription) (dataCorrupted)")
            }
            return .enumCase(type: info.name, name: found.name, payload: [])
        }
        guard case .object(let object) = json else { throw failure("expected a keyed container for \(name)") }
        var fields: [(name: String, value: Value)] = []
        for property in lookupChain(info.name).filter({ $0.kind != .protocol }).reversed().flatMap(\.stored) where !property.isLazy {
            let typeText = property.type?.trimmedDescription ?? "String"
            if let item = object[property.name] {
                fields.append((property.name, try await decode(item, as: typeText, path: path + [property.name], at: node)))
            } else if typeText.hasSuffix("?") {
                fields.append((property.name, .null))
            } else if let initializer = property.initializer, property.isLet == false {
                fields.append((property.name, try await isolated([:]) { try await evaluate(initializer) }))
            } else {
                throw failure("no value associated with key '\(property.name)' (keyNotFound)")
            }
        }
        if info.kind == .class { return .object(ObjectBox(type: info.name, fields: fields)) }
        return .structure(type: info.name, fields: fields)
    }
}
