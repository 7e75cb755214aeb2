import JSON
import Schema

/// `Transcript` as fmplay saves it (Apple's `Transcript` is `Codable`: `JSONEncoder().encode(session.transcript)`,
/// restored with `JSONDecoder().decode(Transcript.self, from:)` into `LanguageModelSession(transcript:)`). Every
/// field of every entry is kept, so a decoded transcript equals the encoded one (generated content loses only its
/// `GenerationID`s, which are per request). The shape (`version` 1):
///
///     {"version": 1, "entries": [ENTRY...]}
///     ENTRY     {"kind": "instructions", "id", "segments": [SEGMENT...], "toolDefinitions": [{"name", "description", "parameters": SCHEMA}]}
///               {"kind": "prompt", "id", "segments", "options": OPTIONS, "responseFormat"?: {"name", "schema": SCHEMA},
///                "contextOptions": {"includeSchemaInPrompt"?: bool, "reasoningLevel"?: "light" | "moderate" | "deep" | {"custom": ".."}},
///                "metadata": {name: JSON}}
///               {"kind": "toolCalls", "id", "calls": [{"id", "toolName", "arguments": JSON, "metadata"}]}
///               {"kind": "toolOutput", "id", "toolName", "segments"}
///               {"kind": "response", "id", "assetIDs": [..], "segments", "metadata"}
///               {"kind": "reasoning", "id", "segments", "metadata", "signature"?: [bytes]}
///     SEGMENT   {"text": {"id", "content"}} | {"structure": {"id", "source", "content": JSON}}
///     OPTIONS   {"samplingMode"?: {"greedy": {}} | {"randomTopK": {"top", "seed"?}} | {"randomProbabilityThreshold": {"threshold", "seed"?}},
///                "temperature"?, "maximumResponseTokens"?, "toolCallingMode"?: "allowed" | "required" | "disallowed"}
///     SCHEMA    `GenerationSchema.codingJSON` (Schema/SchemaCoding.swift)
extension Transcript {
    public static let codingVersion = 1

    public var codingJSON: JSONValue {
        .object(["version": .int(Self.codingVersion), "entries": .array(entries.map(Self.encode))])
    }

    public init(codingJSON json: JSONValue) throws(SchemaCodingError) {
        guard let version = json["version"]?.intValue, let items = json["entries"]?.arrayValue else {
            throw SchemaCodingError("a saved Transcript is {\"version\": 1, \"entries\": [...]}")
        }
        guard version == Self.codingVersion else { throw SchemaCodingError("a saved Transcript of version \(version); fmplay reads version \(Self.codingVersion)") }
        var entries: [Entry] = []
        for item in items { entries.append(try Self.decodeEntry(item)) }
        self.init(entries: entries)
    }

    // MARK: Encoding

    private static func encode(_ entry: Entry) -> JSONValue {
        var fields: [(String, JSONValue)] = [("kind", .string(entry.kindName)), ("id", .string(entry.id))]
        switch entry {
        case .instructions(let e):
            fields += [("segments", encode(e.segments)), ("toolDefinitions", .array(e.toolDefinitions.map { definition in
                .object(["name": .string(definition.name), "description": .string(definition.description),
                         "parameters": definition.parameters.codingJSON])
            }))]
        case .prompt(let e):
            fields += [("segments", encode(e.segments)), ("options", e.options.codingJSON)]
            if let format = e.responseFormat { fields.append(("responseFormat", .object(["name": .string(format.name), "schema": format.schema.codingJSON]))) }
            fields += [("contextOptions", e.contextOptions.codingJSON), ("metadata", encode(e.metadata))]
        case .toolCalls(let e):
            fields.append(("calls", .array(e.calls.map { call in
                .object(["id": .string(call.id), "toolName": .string(call.toolName), "arguments": call.arguments.jsonValue,
                         "metadata": encode(call.metadata)])
            })))
        case .toolOutput(let e):
            fields += [("toolName", .string(e.toolName)), ("segments", encode(e.segments))]
        case .response(let e):
            fields += [("assetIDs", .array(e.assetIDs.map(JSONValue.string))), ("segments", encode(e.segments)), ("metadata", encode(e.metadata))]
        case .reasoning(let e):
            fields += [("segments", encode(e.segments)), ("metadata", encode(e.metadata))]
            if let signature = e.signature { fields.append(("signature", .array(signature.map { .int(Int($0)) }))) }
        }
        return .object(JSONObject(fields))
    }

    private static func encode(_ segments: [Segment]) -> JSONValue {
        .array(segments.map { segment in
            switch segment {
            case .text(let s): .object(["text": .object(["id": .string(s.id), "content": .string(s.content)])])
            case .structure(let s):
                .object(["structure": .object(["id": .string(s.id), "source": .string(s.source), "content": s.content.jsonValue])])
            }
        })
    }

    private static func encode(_ metadata: [String: GeneratedContent]) -> JSONValue {
        .object(JSONObject(metadata.sorted { $0.key < $1.key }.map { ($0.key, $0.value.jsonValue) }))
    }

    // MARK: Decoding

    private static func string(_ json: JSONValue, _ key: String, in what: String) throws(SchemaCodingError) -> String {
        guard let value = json[key]?.stringValue else { throw SchemaCodingError("a saved \(what) needs \"\(key)\" (a string)") }
        return value
    }

    private static func decodeEntry(_ json: JSONValue) throws(SchemaCodingError) -> Entry {
        let kind = try string(json, "kind", in: "transcript entry")
        let id = try string(json, "id", in: "\(kind) entry")
        let segments = try decodeSegments(json["segments"])
        let metadata = decodeMetadata(json["metadata"])
        switch kind {
        case "instructions":
            var definitions: [ToolDefinition] = []
            for item in json["toolDefinitions"]?.arrayValue ?? [] {
                guard let parameters = item["parameters"] else { throw SchemaCodingError("a saved tool definition needs \"parameters\"") }
                definitions.append(ToolDefinition(name: try string(item, "name", in: "tool definition"),
                                                  description: try string(item, "description", in: "tool definition"),
                                                  parameters: try GenerationSchema(codingJSON: parameters)))
            }
            return .instructions(Instructions(id: id, segments: segments, toolDefinitions: definitions))
        case "prompt":
            var format: ResponseFormat?
            if let given = json["responseFormat"], !given.isNull {
                guard let schema = given["schema"] else { throw SchemaCodingError("a saved response format needs \"schema\"") }
                format = ResponseFormat(name: try string(given, "name", in: "response format"), schema: try GenerationSchema(codingJSON: schema))
            }
            return .prompt(Prompt(id: id, segments: segments, options: try GenerationOptions(codingJSON: json["options"] ?? .null),
                                  responseFormat: format, contextOptions: try ContextOptions(codingJSON: json["contextOptions"] ?? .null),
                                  metadata: metadata))
        case "toolCalls":
            var calls: [ToolCall] = []
            for item in json["calls"]?.arrayValue ?? [] {
                calls.append(ToolCall(id: try string(item, "id", in: "tool call"), toolName: try string(item, "toolName", in: "tool call"),
                                      arguments: GeneratedContent(item["arguments"] ?? .null), metadata: decodeMetadata(item["metadata"])))
            }
            return .toolCalls(ToolCalls(id: id, calls))
        case "toolOutput":
            return .toolOutput(ToolOutput(id: id, toolName: try string(json, "toolName", in: "tool output"), segments: segments))
        case "response":
            return .response(Response(id: id, assetIDs: (json["assetIDs"]?.arrayValue ?? []).compactMap(\.stringValue), segments: segments,
                                      metadata: metadata))
        case "reasoning":
            let signature = json["signature"]?.arrayValue.map { $0.compactMap { $0.intValue.flatMap(UInt8.init(exactly:)) } }
            return .reasoning(Reasoning(id: id, segments: segments, metadata: metadata, signature: signature))
        default:
            throw SchemaCodingError("unknown transcript entry kind '\(kind)'")
        }
    }

    private static func decodeSegments(_ json: JSONValue?) throws(SchemaCodingError) -> [Segment] {
        var segments: [Segment] = []
        for item in json?.arrayValue ?? [] {
            if let text = item["text"] {
                segments.append(.text(TextSegment(id: text["id"]?.stringValue ?? "", content: try string(text, "content", in: "text segment"))))
            } else if let structure = item["structure"] {
                segments.append(.structure(StructuredSegment(id: structure["id"]?.stringValue ?? "",
                                                             source: try string(structure, "source", in: "structured segment"),
                                                             content: GeneratedContent(structure["content"] ?? .null))))
            } else {
                throw SchemaCodingError("a saved segment is {\"text\": {...}} or {\"structure\": {...}}")
            }
        }
        return segments
    }

    private static func decodeMetadata(_ json: JSONValue?) -> [String: GeneratedContent] {
        var metadata: [String: GeneratedContent] = [:]
        for (key, value) in json?.objectValue ?? JSONObject() { metadata[key] = GeneratedContent(value) }
        return metadata
    }
}

extension GenerationOptions {
    public var codingJSON: JSONValue {
        var fields: [(String, JSONValue)] = []
        if let mode = samplingMode {
            func seeded(_ fields: [(String, JSONValue)], _ seed: UInt64?) -> JSONValue {
                .object(JSONObject(fields + (seed.map { [("seed", .string(String($0)))] } ?? [])))
            }
            switch mode.kind {
            case .greedy: fields.append(("samplingMode", .object(["greedy": .object([:])])))
            case .randomTopK(let k, let seed): fields.append(("samplingMode", .object(["randomTopK": seeded([("top", .int(k))], seed)])))
            case .randomProbabilityThreshold(let p, let seed):
                fields.append(("samplingMode", .object(["randomProbabilityThreshold": seeded([("threshold", .double(p))], seed)])))
            }
        }
        if let temperature { fields.append(("temperature", .double(temperature))) }
        if let maximumResponseTokens { fields.append(("maximumResponseTokens", .int(maximumResponseTokens))) }
        if let mode = toolCallingMode { fields.append(("toolCallingMode", .string("\(mode.kind)"))) }
        return .object(JSONObject(fields))
    }

    public init(codingJSON json: JSONValue) throws(SchemaCodingError) {
        self.init()
        if let mode = json["samplingMode"], !mode.isNull {
            let seed = mode["randomTopK"]?["seed"]?.stringValue ?? mode["randomProbabilityThreshold"]?["seed"]?.stringValue
            if mode["greedy"] != nil {
                samplingMode = .greedy
            } else if let k = mode["randomTopK"]?["top"]?.intValue {
                samplingMode = .random(top: k, seed: seed.flatMap { UInt64($0) })
            } else if let p = mode["randomProbabilityThreshold"]?["threshold"]?.doubleValue {
                samplingMode = .random(probabilityThreshold: p, seed: seed.flatMap { UInt64($0) })
            } else {
                throw SchemaCodingError("unknown sampling mode \(mode.serialized().prefix(60))")
            }
        }
        temperature = json["temperature"]?.doubleValue
        maximumResponseTokens = json["maximumResponseTokens"]?.intValue
        switch json["toolCallingMode"]?.stringValue {
        case nil: break
        case "allowed": toolCallingMode = .allowed
        case "required": toolCallingMode = .required
        case "disallowed": toolCallingMode = .disallowed
        case let other?: throw SchemaCodingError("unknown tool calling mode '\(other)'")
        }
    }
}

extension ContextOptions {
    public var codingJSON: JSONValue {
        var fields: [(String, JSONValue)] = []
        if let includeSchemaInPrompt { fields.append(("includeSchemaInPrompt", .bool(includeSchemaInPrompt))) }
        switch reasoningLevel {
        case nil: break
        case .custom(let text)?: fields.append(("reasoningLevel", .object(["custom": .string(text)])))
        case let level?: fields.append(("reasoningLevel", .string(level.description)))
        }
        return .object(JSONObject(fields))
    }

    public init(codingJSON json: JSONValue) throws(SchemaCodingError) {
        self.init(includeSchemaInPrompt: json["includeSchemaInPrompt"]?.boolValue)
        switch json["reasoningLevel"] {
        case nil, .null?: break
        case .string("light")?: reasoningLevel = .light
        case .string("moderate")?: reasoningLevel = .moderate
        case .string("deep")?: reasoningLevel = .deep
        case let other?:
            guard let text = other["custom"]?.stringValue else { throw SchemaCodingError("unknown reasoning level \(other.serialized().prefix(40))") }
            reasoningLevel = .custom(text)
        }
    }
}
