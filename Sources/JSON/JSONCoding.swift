import CJSONC

/// A JSON text that could not be parsed, with the 1-based line and column
/// (in bytes) where json-c stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int
    public var offset: Int

    public var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
}

extension JSONValue {
    /// Default nesting limit. Deeper documents are rejected, never a stack overflow.
    public static let defaultMaximumDepth = 512

    /// Parses one JSON document from UTF-8 bytes. Strings must be valid UTF-8;
    /// trailing non-whitespace after the document is an error.
    public static func parse(_ bytes: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth) throws(JSONParseError) -> JSONValue {
        // json-c needs the terminating NUL to know that input ended (a bare
        // number such as `42` could otherwise continue), so pass it along.
        let buffer = Array(bytes)
        let terminated = buffer + [0]
        guard let tokener = json_tokener_new_ex(Int32(clamping: maximumDepth)) else {
            throw JSONParseError(message: "out of memory", line: 1, column: 1, offset: 0)
        }
        defer { json_tokener_free(tokener) }
        json_tokener_set_flags(
            tokener, Int32(JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS | JSON_TOKENER_VALIDATE_UTF8))

        if buffer.allSatisfy(isJSONWhitespace) {
            throw error(in: buffer, at: buffer.count, "empty document")
        }
        if buffer.count >= Int(Int32.max) {
            throw JSONParseError(message: "document larger than 2 GiB", line: 1, column: 1, offset: 0)
        }
        let root: OpaquePointer? = terminated.withUnsafeBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { chars in
                json_tokener_parse_ex(tokener, chars.baseAddress, Int32(chars.count))
            }
        }
        let status = json_tokener_get_error(tokener)
        // On an error json-c stops at the offending byte without consuming it,
        // so the parse end is that byte's offset.
        let end = min(max(0, json_tokener_get_parse_end(tokener)), buffer.count)
        guard status == json_tokener_success else {
            if let root { json_object_put(root) }
            if status == json_tokener_continue || status == json_tokener_error_parse_eof || end >= buffer.count {
                throw error(in: buffer, at: buffer.count, "unexpected end of input")
            }
            let reason = json_tokener_error_desc(status).map { String(cString: $0) } ?? "parse error"
            throw error(in: buffer, at: end, reason)
        }
        // json-c represents a `null` document by a NULL object.
        defer { if let root { json_object_put(root) } }
        if let trailing = buffer[end...].firstIndex(where: { !isJSONWhitespace($0) }) {
            throw error(in: buffer, at: trailing, "unexpected text after the JSON document")
        }
        return convert(root)
    }

    /// Parses one JSON document from a string.
    public static func parse(_ text: String, maximumDepth: Int = defaultMaximumDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maximumDepth: maximumDepth)
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func error(in buffer: [UInt8], at offset: Int, _ message: String) -> JSONParseError {
        var line = 1
        var column = 1
        for byte in buffer.prefix(offset) {
            if byte == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        return JSONParseError(message: message, line: line, column: column, offset: offset)
    }

    private static func convert(_ object: OpaquePointer?) -> JSONValue {
        guard let object else { return .null }
        switch json_object_get_type(object) {
        case json_type_null:
            return .null
        case json_type_boolean:
            return .bool(json_object_get_boolean(object) != 0)
        case json_type_int:
            return .int(Int(json_object_get_int64(object)))
        case json_type_double:
            return .double(json_object_get_double(object))
        case json_type_string:
            let length = Int(json_object_get_string_len(object))
            guard let pointer = json_object_get_string(object) else { return .string("") }
            let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
            return .string(String(decoding: bytes, as: UTF8.self))
        case json_type_array:
            let count = json_object_array_length(object)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                elements.append(convert(json_object_array_get_idx(object, index)))
            }
            return .array(elements)
        case json_type_object:
            var result = JSONObject()
            var iterator = json_object_iter_begin(object)
            var end = json_object_iter_end(object)
            while json_object_iter_equal(&iterator, &end) == 0 {
                let key = String(cString: json_object_iter_peek_name(&iterator))
                result[key] = convert(json_object_iter_peek_value(&iterator))
                json_object_iter_next(&iterator)
            }
            return .object(result)
        default:
            return .null
        }
    }
}

extension JSONValue {
    /// Serializes the value. Keys keep their order; non-ASCII text is written
    /// as UTF-8; `/` is not escaped. `pretty` indents with two spaces.
    public func serialized(pretty: Bool = false) -> String {
        let object = JSONValue.build(self)
        defer { if let object { json_object_put(object) } }
        var flags = JSON_C_TO_STRING_NOSLASHESCAPE
        flags |= pretty ? (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED) : JSON_C_TO_STRING_PLAIN
        var length = 0
        guard let text = json_object_to_json_string_length(object, Int32(flags), &length) else { return "null" }
        let bytes = UnsafeRawBufferPointer(start: text, count: length)
        var result = String(decoding: bytes, as: UTF8.self)
        if pretty { result = result.replacingTabs() }
        return result
    }

    /// The serialized UTF-8 bytes.
    public func serializedBytes(pretty: Bool = false) -> [UInt8] {
        Array(serialized(pretty: pretty).utf8)
    }

    private static func build(_ value: JSONValue) -> OpaquePointer? {
        switch value {
        case .null:
            return nil
        case .bool(let b):
            return json_object_new_boolean(b ? 1 : 0)
        case .int(let i):
            return json_object_new_int64(Int64(i))
        case .double(let d):
            guard d.isFinite else { return nil }  // JSON has no NaN or infinity
            return json_object_new_double_s(d, d.description)
        case .string(let s):
            var bytes = Array(s.utf8)
            let count = bytes.count
            bytes.append(0)  // never an empty buffer, so the base address exists
            return bytes.withUnsafeBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { chars in
                    json_object_new_string_len(chars.baseAddress, Int32(count))
                }
            }
        case .array(let elements):
            let array = json_object_new_array_ext(Int32(clamping: elements.count))
            for element in elements { json_object_array_add(array, build(element)) }
            return array
        case .object(let members):
            let object = json_object_new_object()
            for (key, member) in members {
                json_object_object_add(object, key, build(member))
            }
            return object
        }
    }
}

extension String {
    /// json-c's pretty printer indents with two spaces when SPACED is set in
    /// recent releases and with tabs in older ones; normalise to two spaces.
    fileprivate func replacingTabs() -> String {
        guard contains("\t") else { return self }
        var out = ""
        out.reserveCapacity(utf8.count)
        for line in split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(line)
            var indent = ""
            while rest.first == "\t" { indent += "  "; rest = rest.dropFirst() }
            if !out.isEmpty { out += "\n" }
            out += indent + rest
        }
        return out
    }
}
