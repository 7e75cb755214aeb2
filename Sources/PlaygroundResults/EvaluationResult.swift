import Evaluations
import FoundationModelsRuntime
import JSON

/// One recorded result: a model call, a stream, a `print`, or the error that stopped a block.
public struct EvaluationResult: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case response, stream, print, error, evaluation }

    public var kind: Kind
    /// 1-based position of the call (or of the failing statement).
    public var line: Int
    public var column: Int
    public var endLine: Int
    public var endColumn: Int
    /// The same range as UTF-8 byte offsets in the evaluated text (`startOffset`/`endOffset` in the
    /// JSON form): set for every result the evaluator records; the language server places results by
    /// it, the result cache keeps it in content coordinates. Nil only for JSON written without it.
    public var offsets: Range<Int>?
    /// How many results this source location recorded before this one in the block (loop iteration).
    public var iteration: Int
    /// The Generable type's name, or nil for text.
    public var typeName: String?
    /// A JSON value for generated results, a string for text.
    public var content: JSONValue
    /// The rendering shown to people.
    public var text: String
    public var usage: Usage?
    public var timeToFirstToken: Double?
    public var tokensPerSecond: Double?
    public var snapshots: Int
    public var toolCalls: [ToolCallRecord]
    /// The session's transcript after a `respond` (readable form).
    public var transcript: String?
    /// 27 profile sessions: what happened while answering, in order (active
    /// profile, lifecycle callbacks, tool calls and outputs), e.g. "profile CraftProfile: Brainstorm".
    public var lifecycle: [String] = []
    /// The last turn's prompt as the model read it (chat template applied), and why it stopped.
    public var renderedPrompt: String?
    public var stopReason: String?
    /// For `.evaluation`: every sample with its output and metrics, and the summary.
    public var evaluation: EvaluationReport?
    /// The model that answered (its name), for responses and streams.
    public var model: String?

    public init(kind: Kind, line: Int, column: Int, endLine: Int, endColumn: Int, iteration: Int = 0, typeName: String? = nil,
                content: JSONValue, text: String, usage: Usage? = nil, timeToFirstToken: Double? = nil, tokensPerSecond: Double? = nil,
                snapshots: Int = 0, toolCalls: [ToolCallRecord] = [], transcript: String? = nil, model: String? = nil) {
        self.model = model
        self.kind = kind
        self.line = line
        self.column = column
        self.endLine = endLine
        self.endColumn = endColumn
        self.iteration = iteration
        self.typeName = typeName
        self.content = content
        self.text = text
        self.usage = usage
        self.timeToFirstToken = timeToFirstToken
        self.tokensPerSecond = tokensPerSecond
        self.snapshots = snapshots
        self.toolCalls = toolCalls
        self.transcript = transcript
    }
}

public struct ToolCallRecord: Sendable, Hashable {
    public var name: String
    public var arguments: JSONValue
    public var output: String

    public init(name: String, arguments: JSONValue, output: String) {
        self.name = name
        self.arguments = arguments
        self.output = output
    }
}

/// The outcome of one `#Playground` block.
public struct BlockResult: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable { case ok, error }
    public var name: String?
    /// The name, or `#Playground N`.
    public var displayName: String
    public var index: Int
    public var line: Int
    public var status: Status
    public var error: String?
    public var results: [EvaluationResult]
    /// Served from the result cache.
    public var cached: Bool
    /// Wall-clock seconds the block took (0 when cached).
    public var duration: Double

    public init(name: String?, displayName: String, index: Int, line: Int, status: Status, error: String?, results: [EvaluationResult],
                cached: Bool, duration: Double) {
        self.name = name
        self.displayName = displayName
        self.index = index
        self.line = line
        self.status = status
        self.error = error
        self.results = results
        self.cached = cached
        self.duration = duration
    }
}

/// The outcome of one file.
public struct FileResult: Sendable, Hashable {
    public var path: String
    public var blocks: [BlockResult]
    /// A problem with the file as a whole (unreadable), nil otherwise.
    public var error: String?

    public init(path: String, blocks: [BlockResult], error: String? = nil) {
        self.path = path
        self.blocks = blocks
        self.error = error
    }

    public var succeeded: Bool { error == nil && blocks.allSatisfy { $0.status == .ok } }
}

/// What the evaluator reports while it runs, for live display.
public enum EvaluationEvent: Sendable {
    case blockStarted(path: String, block: String, line: Int)
    /// The value so far of a running `respond` or stream (`usage.responseTokens` is the tokens so far).
    case snapshot(path: String, block: String, result: EvaluationResult)
    case result(path: String, block: String, result: EvaluationResult)
    case blockFinished(path: String, block: BlockResult)
}

// MARK: JSON (the `fmplay run --format json` contract and the cache format)

extension EvaluationResult {
    public var jsonValue: JSONValue {
        var object: JSONObject = ["line": .int(line), "column": .int(column), "endLine": .int(endLine), "endColumn": .int(endColumn)]
        if let offsets {
            object["startOffset"] = .int(offsets.lowerBound)
            object["endOffset"] = .int(offsets.upperBound)
        }
        object["iteration"] = .int(iteration)
        object["kind"] = .string(kind.rawValue)
        object["type"] = typeName.map(JSONValue.string) ?? .null
        object["content"] = content
        object["text"] = .string(text)
        if let usage {
            var counts: JSONObject = ["promptTokens": .int(usage.promptTokens), "cachedTokens": .int(usage.cachedTokens),
                                      "responseTokens": .int(usage.responseTokens)]
            if usage.reasoningTokens > 0 { counts["reasoningTokens"] = .int(usage.reasoningTokens) }
            object["usage"] = .object(counts)
        }
        if let timeToFirstToken { object["timeToFirstToken"] = .double(timeToFirstToken) }
        if let tokensPerSecond { object["tokensPerSecond"] = .double(tokensPerSecond) }
        if kind == .response || kind == .stream {
            object["snapshots"] = .int(snapshots)
            object["toolCalls"] = .array(toolCalls.map {
                ["name": .string($0.name), "arguments": $0.arguments, "output": .string($0.output)]
            })
        }
        if let transcript { object["transcript"] = .string(transcript) }
        if !lifecycle.isEmpty { object["lifecycle"] = .array(lifecycle.map(JSONValue.string)) }
        if let renderedPrompt { object["renderedPrompt"] = .string(renderedPrompt) }
        if let stopReason { object["stopReason"] = .string(stopReason) }
        if let evaluation { object["evaluation"] = evaluation.json }
        if let model { object["model"] = .string(model) }
        return .object(object)
    }

    /// Reads the JSON form back (cached results, `fmplay report`); nil when a required field is missing.
    public init?(json: JSONValue) {
        guard let kind = json["kind"]?.stringValue.flatMap(Kind.init), let line = json["line"]?.intValue,
              let column = json["column"]?.intValue, let text = json["text"]?.stringValue else { return nil }
        let usage = json["usage"].map {
            Usage(promptTokens: $0["promptTokens"]?.intValue ?? 0, cachedTokens: $0["cachedTokens"]?.intValue ?? 0,
                  responseTokens: $0["responseTokens"]?.intValue ?? 0, reasoningTokens: $0["reasoningTokens"]?.intValue ?? 0)
        }
        self.init(kind: kind, line: line, column: column, endLine: json["endLine"]?.intValue ?? line,
                  endColumn: json["endColumn"]?.intValue ?? column, iteration: json["iteration"]?.intValue ?? 0,
                  typeName: json["type"]?.stringValue, content: json["content"] ?? .null, text: text, usage: usage,
                  timeToFirstToken: json["timeToFirstToken"]?.doubleValue, tokensPerSecond: json["tokensPerSecond"]?.doubleValue,
                  snapshots: json["snapshots"]?.intValue ?? 0,
                  toolCalls: (json["toolCalls"]?.arrayValue ?? []).map {
                      ToolCallRecord(name: $0["name"]?.stringValue ?? "", arguments: $0["arguments"] ?? .null,
                                     output: $0["output"]?.stringValue ?? "")
                  },
                  transcript: json["transcript"]?.stringValue, model: json["model"]?.stringValue)
        self.lifecycle = (json["lifecycle"]?.arrayValue ?? []).compactMap(\.stringValue)
        if let report = json["evaluation"] { evaluation = EvaluationReport(json: report) }
        renderedPrompt = json["renderedPrompt"]?.stringValue
        stopReason = json["stopReason"]?.stringValue
        if let lower = json["startOffset"]?.intValue, let upper = json["endOffset"]?.intValue, 0 <= lower, lower <= upper {
            offsets = lower..<upper
        }
    }
}

extension BlockResult {
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "name": name.map(JSONValue.string) ?? .null, "displayName": .string(displayName), "line": .int(line),
            "status": .string(status.rawValue),
        ]
        if let error { object["error"] = .string(error) }
        object["cached"] = .bool(cached)
        object["duration"] = .double(duration)
        object["results"] = .array(results.map(\.jsonValue))
        return .object(object)
    }
}

extension FileResult {
    public var jsonValue: JSONValue {
        var object: JSONObject = ["path": .string(path)]
        if let error { object["error"] = .string(error) }
        object["blocks"] = .array(blocks.map(\.jsonValue))
        return .object(object)
    }
}

// MARK: Reading `fmplay run --format json` back (`fmplay report`)

extension BlockResult {
    /// Nil when a required field (`displayName`, `line`, `status`, `results`) is missing or a result is malformed.
    public init?(json: JSONValue) {
        guard let displayName = json["displayName"]?.stringValue, let line = json["line"]?.intValue,
              let status = json["status"]?.stringValue.flatMap(Status.init), let items = json["results"]?.arrayValue else { return nil }
        let results = items.compactMap(EvaluationResult.init(json:))
        guard results.count == items.count else { return nil }
        self.init(name: json["name"]?.stringValue, displayName: displayName, index: json["index"]?.intValue ?? 0, line: line,
                  status: status, error: json["error"]?.stringValue, results: results, cached: json["cached"]?.boolValue ?? false,
                  duration: json["duration"]?.doubleValue ?? 0)
    }
}

extension FileResult {
    /// Nil when `path` or `blocks` is missing or a block is malformed.
    public init?(json: JSONValue) {
        guard let path = json["path"]?.stringValue, let items = json["blocks"]?.arrayValue else { return nil }
        let blocks = items.compactMap(BlockResult.init(json:))
        guard blocks.count == items.count else { return nil }
        self.init(path: path, blocks: blocks, error: json["error"]?.stringValue)
    }
}

/// Codable through the JSON form above, so a result crosses the evaluation worker's pipe
/// exactly as `fmplay run --format json` writes it and `fmplay report` reads it.
extension EvaluationResult: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        guard let result = EvaluationResult(json: json) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "a result needs kind, line, column and text"))
        }
        self = result
    }

    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
