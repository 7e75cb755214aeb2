import JSON

/// A JSON-RPC request id: a number or a string.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case number(Int)
    case string(String)

    /// The `"id"` of a message from its first bytes (an oversize message is never parsed whole):
    /// the first `"id": <integer or simple string>` in the text.
    static func scan(_ prefix: [UInt8]) -> RequestID? {
        let key = Array("\"id\"".utf8)
        var index = 0
        func skipSpaces() { while index < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[index]) { index += 1 } }
        while index + key.count <= prefix.count {
            guard prefix[index..<index + key.count].elementsEqual(key) else { index += 1; continue }
            index += key.count
            skipSpaces()
            guard index < prefix.count, prefix[index] == UInt8(ascii: ":") else { continue }
            index += 1
            skipSpaces()
            guard index < prefix.count else { return nil }
            if prefix[index] == UInt8(ascii: "\"") {
                guard let end = prefix[(index + 1)...].firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }),
                      prefix[end] == UInt8(ascii: "\"") else { return nil }
                return .string(String(decoding: prefix[(index + 1)..<end], as: UTF8.self))
            }
            let digits = prefix[index...].prefix { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) }
            return Int(String(decoding: digits, as: UTF8.self)).map(RequestID.number)
        }
        return nil
    }

    init?(_ value: JSONValue) {
        switch value {
        case .int(let n): self = .number(n)
        case .double(let d) where d.rounded() == d && abs(d) < 9e15: self = .number(Int(d))
        case .string(let s): self = .string(s)
        default: return nil
        }
    }

    public var json: JSONValue {
        switch self {
        case .number(let n): .int(n)
        case .string(let s): .string(s)
        }
    }

    public var description: String {
        switch self {
        case .number(let n): "\(n)"
        case .string(let s): "\"\(s)\""
        }
    }
}

/// A JSON-RPC error object, with the codes LSP 3.17 uses.
public struct ResponseError: Error, Sendable, Equatable {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public static let parseErrorCode = -32700
    public static let invalidRequestCode = -32600
    public static let methodNotFoundCode = -32601
    public static let invalidParamsCode = -32602
    public static let internalErrorCode = -32603
    public static let serverNotInitializedCode = -32002
    public static let requestFailedCode = -32803
    public static let serverCancelledCode = -32802
    public static let contentModifiedCode = -32801
    public static let requestCancelledCode = -32800

    public static func parseError(_ message: String) -> ResponseError { ResponseError(code: parseErrorCode, message: message) }
    public static func invalidRequest(_ message: String) -> ResponseError { ResponseError(code: invalidRequestCode, message: message) }
    public static func methodNotFound(_ method: String) -> ResponseError {
        ResponseError(code: methodNotFoundCode, message: "unknown method \(method)")
    }
    public static func invalidParams(_ message: String) -> ResponseError { ResponseError(code: invalidParamsCode, message: message) }
    public static func requestFailed(_ message: String) -> ResponseError { ResponseError(code: requestFailedCode, message: message) }
    public static let serverNotInitialized = ResponseError(
        code: serverNotInitializedCode, message: "the server is not initialized yet: send initialize first")
    public static let requestCancelled = ResponseError(code: requestCancelledCode, message: "the request was cancelled")

    var json: JSONValue {
        var object: JSONObject = ["code": .int(code), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }
}

/// A message that could not be read, with the error to answer it with and
/// the request id when one could be read.
public struct UnreadableMessage: Error, Sendable {
    public var id: RequestID?
    public var error: ResponseError

    init(_ id: RequestID?, _ error: ResponseError) {
        self.id = id
        self.error = error
    }
}

/// One decoded JSON-RPC message.
public enum JSONRPCMessage: Sendable, Equatable {
    case request(id: RequestID, method: String, params: JSONValue)
    case notification(method: String, params: JSONValue)
    case response(id: RequestID?, result: Result<JSONValue, ResponseError>)

    /// Decodes a message body. A body that is not JSON is a parse error; JSON
    /// that is not a JSON-RPC message is an invalid request (with the id when
    /// one could be read, so the reply can name it).
    public static func decode(_ body: [UInt8]) -> Result<JSONRPCMessage, UnreadableMessage> {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body, maximumDepth: 256)
        } catch {
            return .failure(UnreadableMessage(nil, .parseError("the message is not valid JSON: \(error)")))
        }
        guard case .object(let object) = value else {
            if case .array = value {
                return .failure(UnreadableMessage(nil, .invalidRequest("JSON-RPC batches are not used by LSP; send one message at a time")))
            }
            return .failure(UnreadableMessage(nil, .invalidRequest("a JSON-RPC message must be an object, not \(value.kindDescription)")))
        }
        let id = object["id"].flatMap(RequestID.init)
        if let version = object["jsonrpc"], version != "2.0" {
            return .failure(UnreadableMessage(id, .invalidRequest("jsonrpc must be \"2.0\", not \(version.kindDescription)")))
        }
        if let methodValue = object["method"] {
            guard let method = methodValue.stringValue else {
                return .failure(UnreadableMessage(id, .invalidRequest("method must be a string, not \(methodValue.kindDescription)")))
            }
            let params = object["params"] ?? .null
            switch params {
            case .object, .array, .null: break
            default: return .failure(UnreadableMessage(id, .invalidRequest("params must be an object or array, not \(params.kindDescription)")))
            }
            if let rawID = object["id"], !rawID.isNull {
                guard let id else { return .failure(UnreadableMessage(nil, .invalidRequest("id must be a number or a string"))) }
                return .success(.request(id: id, method: method, params: params))
            }
            return .success(.notification(method: method, params: params))
        }
        if let error = object["error"] {
            let code = error["code"]?.intValue ?? ResponseError.internalErrorCode
            let message = error["message"]?.stringValue ?? "unknown error"
            return .success(.response(id: id, result: .failure(ResponseError(code: code, message: message, data: error["data"]))))
        }
        if object["result"] != nil || id != nil {
            return .success(.response(id: id, result: .success(object["result"] ?? .null)))
        }
        return .failure(UnreadableMessage(nil, .invalidRequest("a JSON-RPC message needs a method (request or notification) or a result")))
    }

    /// The JSON form, ready to frame.
    public var json: JSONValue {
        switch self {
        case .request(let id, let method, let params):
            var object: JSONObject = ["jsonrpc": "2.0", "id": id.json, "method": .string(method)]
            if !params.isNull { object["params"] = params }
            return .object(object)
        case .notification(let method, let params):
            var object: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
            if !params.isNull { object["params"] = params }
            return .object(object)
        case .response(let id, let result):
            var object: JSONObject = ["jsonrpc": "2.0", "id": id?.json ?? .null]
            switch result {
            case .success(let value): object["result"] = value
            case .failure(let error): object["error"] = error.json
            }
            return .object(object)
        }
    }
}
