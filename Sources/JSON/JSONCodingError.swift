/// A value that could not be encoded to, or decoded from, a `JSONValue`.
/// `path` names where: `params.textDocument.uri`, `items[2].name`, or
/// `(root)` for the top-level value.
public struct JSONCodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public init(codingPath: [any CodingKey], message: String) {
        self.init(path: JSONCodingError.render(codingPath), message: message)
    }

    public var description: String { "\(path): \(message)" }

    /// Renders a coding path as dotted keys with `[index]` for array elements.
    public static func render(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text.isEmpty ? "(root)" : text
    }

    /// Converts the standard library's coding errors (thrown by synthesized
    /// `init(from:)`, for example a bad enum raw value) into this error.
    static func from(_ error: any Error) -> JSONCodingError {
        if let error = error as? JSONCodingError { return error }
        if let error = error as? DecodingError {
            switch error {
            case .typeMismatch(let type, let context):
                return JSONCodingError(codingPath: context.codingPath, message: "expected \(type): \(context.debugDescription)")
            case .valueNotFound(let type, let context):
                return JSONCodingError(codingPath: context.codingPath, message: "expected \(type), found null")
            case .keyNotFound(let key, let context):
                return JSONCodingError(codingPath: context.codingPath + [key], message: "required key is missing")
            case .dataCorrupted(let context):
                return JSONCodingError(codingPath: context.codingPath, message: context.debugDescription)
            @unknown default:
                return JSONCodingError(path: "(root)", message: "\(error)")
            }
        }
        if let error = error as? EncodingError {
            switch error {
            case .invalidValue(_, let context):
                return JSONCodingError(codingPath: context.codingPath, message: context.debugDescription)
            @unknown default:
                return JSONCodingError(path: "(root)", message: "\(error)")
            }
        }
        return JSONCodingError(path: "(root)", message: "\(error)")
    }
}

/// A coding key for array indices and for keys known only at run time.
struct JSONCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }

    static let superKey = JSONCodingKey(stringValue: "super")
}
