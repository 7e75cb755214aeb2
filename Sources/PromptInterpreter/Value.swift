import FoundationModelsRuntime
import JSON
import PromptLanguage
import Schema
import SwiftSyntax

/// A value in the prompt-file interpreter.
package indirect enum Value: @unchecked Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([Value])
    /// Ordered key-value pairs (a dictionary literal keeps its order).
    case dictionary([(key: Value, value: Value)])
    /// An instance of a struct declared in the file (plain data, Generable, or a Tool).
    case structure(type: String, fields: [(name: String, value: Value)])
    /// An enum case; `type` is the enum's name as the interpreter knows it.
    case enumCase(type: String, name: String, payload: [(label: String?, value: Value)])
    /// A generated value whose type is dynamic (`GeneratedContent`).
    case content(GeneratedContent)
    /// A type used as a value (`Itinerary.self`, `SystemLanguageModel`).
    case type(String)
    case model(SystemLanguageModel)
    /// `PrivateCloudComputeLanguageModel()`: the configured server model.
    case serverModel(PrivateCloudComputeLanguageModel)
    case session(LanguageModelSession)
    case response(ResponseValue)
    case stream(StreamValue)
    case snapshot(content: Value, raw: GeneratedContent, usage: Usage, entries: ArraySlice<Transcript.Entry>)
    case options(GenerationOptions)
    case samplingMode(GenerationOptions.SamplingMode)
    case toolCallingMode(GenerationOptions.ToolCallingMode)
    case useCase(SystemLanguageModel.UseCase)
    case instructions(Instructions)
    case prompt(Prompt)
    case transcript(Transcript)
    case transcriptEntry(Transcript.Entry)
    /// The payload of a transcript entry, a segment's value or a tool definition (`Transcript.Prompt`, `Transcript.TextSegment`...).
    case transcriptPart(TranscriptPart)
    case usage(Usage)
    case error(ErrorValue)
    /// `lower..<upper`, or `lower...upper` when `closed` (`upper` as written; `0...Int.max` is valid).
    case range(lower: Int, upper: Int, closed: Bool)
    case schema(GenerationSchema)
    case dynamicSchema(DynamicSchema)
    case dynamicProperty(Property, [Definition])
    /// A tuple (loop patterns over dictionaries and `enumerated()`).
    case tuple([(label: String?, value: Value)])
    /// Bytes (`Data`), e.g. the JSON of `logFeedbackAttachment`.
    case data([UInt8])
    /// 27: a `Profile { }` (with the modifiers applied so far), or a dynamic profile resolved to one.
    case profile(ProfileConfiguration)
    /// 27: rendered dynamic instructions (text and tools in declaration order).
    case dynamicInstructions(DynamicInstructionsValue)
    case reasoningLevel(ReasoningLevel)
    case errorPolicy(TranscriptErrorHandlingPolicy)
    /// A `@SessionProperty(\.key)` property: reads and writes go to the session being served.
    case sessionProperty(String)
    /// `session.properties`: a reference to the session's values (Apple's `SessionPropertyValues` is a final
    /// class), so reads see the session's current values and writes go to the session.
    case sessionProperties(LanguageModelSession)
    /// A value of the skills pattern (`Skills`, `Skill`, `SkillActivations`).
    case skills(SkillsObject)
    /// A value of the Evaluations framework (metrics, samples, evaluators, results).
    case evaluations(EvaluationsObject)
    /// A function, method or closure (closures capture their scopes by reference).
    case function(FunctionValue)
    /// An instance of a class or actor declared in the file (a reference).
    case object(ObjectBox)
    /// A `Set`: distinct elements in insertion order.
    case set([Value])
    /// `0.0...1.0`, `0.5..<2`: a floating-point range.
    case doubleRange(lower: Double, upper: Double, closed: Bool)
    /// A `Date` (seconds since 1970).
    case date(Double)
    /// A `UUID`.
    case uuid(String)

    package var isNull: Bool { if case .null = self { true } else { false } }
}

/// Rendered `DynamicInstructions`: text parts and tools, in declaration order.
package struct DynamicInstructionsValue: @unchecked Sendable {
    package var texts: [String] = []
    package var tools: [any Tool] = []
    package init(texts: [String] = [], tools: [any Tool] = []) {
        self.texts = texts
        self.tools = tools
    }
    static func + (a: Self, b: Self) -> Self { Self(texts: a.texts + b.texts, tools: a.tools + b.tools) }
}

/// A response as the interpreter sees it (content converted to a Value).
package struct ResponseValue: @unchecked Sendable {
    package var content: Value
    package var rawContent: GeneratedContent
    package var entries: ArraySlice<Transcript.Entry>
    package var usage: Usage
}

/// A stream not yet (or already) iterated, with how to record it.
package final class StreamValue: @unchecked Sendable {
    let stream: ResponseStream<GeneratedContent>
    let typeName: String?
    let schema: GenerationSchema?
    let site: CallSite
    /// The session that answers, for the transcript recorded with the result.
    let session: LanguageModelSession
    init(stream: ResponseStream<GeneratedContent>, typeName: String?, schema: GenerationSchema?, site: CallSite,
         session: LanguageModelSession) {
        self.stream = stream
        self.session = session
        self.typeName = typeName
        self.schema = schema
        self.site = site
    }
}

/// A thrown error as a value (`catch let error`).
package struct ErrorValue: @unchecked Sendable {
    package var error: any Error
    package init(error: any Error) { self.error = error }
}

/// Where a model call was written, for recording its result.
package typealias CallSite = PromptLanguage.SourceRange

extension Value {
    /// How `print` and string interpolation show the value (Swift's `description`).
    package var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return Value.format(d)
        case .string(let s): return s
        case .array(let a): return "[" + a.map(\.debugDescription).joined(separator: ", ") + "]"
        case .dictionary(let pairs):
            if pairs.isEmpty { return "[:]" }
            return "[" + pairs.map { "\($0.key.debugDescription): \($0.value.debugDescription)" }.joined(separator: ", ") + "]"
        case .structure(let type, let fields):
            return "\(type)(" + fields.map { "\($0.name): \($0.value.debugDescription)" }.joined(separator: ", ") + ")"
        case .enumCase(_, let name, let payload):
            if payload.isEmpty { return name }
            return name + "(" + payload.map { ($0.label.map { "\($0): " } ?? "") + $0.value.debugDescription }.joined(separator: ", ") + ")"
        case .content(let c): return c.description
        case .type(let name): return name
        case .model(let m): return "SystemLanguageModel(\(m.name))"
        case .serverModel(let m): return "PrivateCloudComputeLanguageModel(\(m.name))"
        case .session: return "LanguageModelSession"
        case .response(let r): return r.content.description
        case .stream: return "ResponseStream"
        case .snapshot(let content, _, _, _): return content.description
        case .options(let o): return Value.describe(o)
        case .samplingMode(let m): return "\(m.kind)"
        case .toolCallingMode(let m): return "\(m.kind)"
        case .useCase(let u): return u.name
        case .instructions(let i): return i.text
        case .prompt(let p): return p.text
        case .transcript(let t): return t.description
        case .transcriptEntry(let e): return e.description
        case .transcriptPart(let part): return part.description
        case .usage(let u): return "Usage(promptTokens: \(u.promptTokens), cachedTokens: \(u.cachedTokens), responseTokens: \(u.responseTokens))"
        case .error(let e): return "\(e.error)"
        case .range(let lower, let upper, let closed): return closed ? "\(lower)...\(upper)" : "\(lower)..<\(upper)"
        case .schema(let schema): return "GenerationSchema(\(schema.typeName))"
        case .dynamicSchema: return "DynamicGenerationSchema"
        case .dynamicProperty(let property, _): return "DynamicGenerationSchema.Property(\(property.name))"
        case .tuple(let items):
            return "(" + items.map { ($0.label.map { "\($0): " } ?? "") + $0.value.debugDescription }.joined(separator: ", ") + ")"
        case .data(let bytes): return "\(bytes.count) bytes"
        case .profile(let c): return "Profile(\(c.displayName))"
        case .dynamicInstructions(let d): return d.texts.joined(separator: "\n")
        case .reasoningLevel(let level): return level.description
        case .errorPolicy(let policy): return policy.description
        case .sessionProperty(let key): return "SessionProperty(\\.\(key))"
        case .sessionProperties: return "SessionPropertyValues"
        case .evaluations(let object): return object.description
        case .skills(let object): return object.description
        case .function: return "(Function)"
        case .object(let box): return box.type
        case .set(let items): return "[" + items.map(\.debugDescription).joined(separator: ", ") + "]"
        case .doubleRange(let lower, let upper, let closed): return "\(Value.format(lower))\(closed ? "..." : "..<")\(Value.format(upper))"
        case .date(let seconds): return Value.formatDate(seconds)
        case .uuid(let text): return text
        }
    }

    /// Strings quoted, as inside collections.
    package var debugDescription: String {
        switch self {
        case .string(let s): return Value.quoted(s)
        case .content(let c): return c.stringValue.map(Value.quoted) ?? c.jsonString
        case .set(let items): return "Set([" + items.map(\.debugDescription).joined(separator: ", ") + "])"  // as Swift's debugDescription
        default: return description
        }
    }

    static func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    package static func format(_ d: Double) -> String { "\(d)" }

    /// `print(date)`: Swift's `Date.description` (UTC, `2026-01-02 03:04:05 +0000`).
    package static func formatDate(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss '+0000'"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    static func describe(_ o: GenerationOptions) -> String {
        var parts: [String] = []
        if let m = o.samplingMode { parts.append("samplingMode: \(m.kind)") }
        if let t = o.temperature { parts.append("temperature: \(format(t))") }
        if let n = o.maximumResponseTokens { parts.append("maximumResponseTokens: \(n)") }
        if let m = o.toolCallingMode { parts.append("toolCallingMode: \(m.kind)") }
        return "GenerationOptions(" + parts.joined(separator: ", ") + ")"
    }
}

import Foundation

extension Value {
    /// `Locale.current` in prompt files: fixed, so results do not depend on the machine.
    package static let currentLocale = "en_US"

    /// A `Locale` (kept as its identifier).
    package static func locale(_ identifier: String) -> Value { .structure(type: "Locale", fields: [("identifier", .string(identifier))]) }

    /// A `Locale.Language` from an identifier such as "pt-BR" or "en_US".
    package static func language(_ identifier: String) -> Value {
        let parts = identifier.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        let region = parts.dropFirst().first { $0.count == 2 && $0.uppercased() == $0 }
        return .structure(type: "Locale.Language", fields: [
            ("languageCode", parts.first.map { .structure(type: "Locale.LanguageCode", fields: [("identifier", .string($0))]) } ?? .null),
            ("region", region.map { .structure(type: "Locale.Region", fields: [("identifier", .string($0))]) } ?? .null),
            ("minimalIdentifier", .string(identifier)),
            ("maximalIdentifier", .string(identifier)),
        ])
    }

    /// The identifier of a Locale or Locale.Language value (a string is taken as one).
    package static func localeIdentifier(_ value: Value) -> String? {
        switch value {
        case .string(let s): return s
        case .structure("Locale", let fields), .structure("Locale.Language", let fields):
            return fields.first { $0.name == "identifier" || $0.name == "minimalIdentifier" }?.value.stringValue
        default: return nil
        }
    }

    /// The value as generated content (tool outputs, `GeneratedContent(properties:)`, prompts).
    package var generatedContent: GeneratedContent { content(visiting: []) }

    /// A structure's fields as content: a `GenerationID` field is the content's id, not a property.
    static func structureContent(_ fields: [(name: String, value: Value)], _ content: (Value) -> GeneratedContent) -> GeneratedContent {
        let id = fields.lazy.compactMap(\.value.generationIDRawValue).first.map(GenerationID.init)
        return GeneratedContent(properties: fields.filter { $0.value.generationIDRawValue == nil }.map { ($0.name, content($0.value)) }, id: id)
    }

    /// `visiting`: the objects on the path here; an object met again (a cycle such as a tree's `weak var parent`)
    /// is written as its type name, as Swift's description shows it.
    private func content(visiting: Set<ObjectIdentifier>) -> GeneratedContent {
        switch self {
        case .null: return GeneratedContent(kind: .null)
        case .bool(let b): return GeneratedContent(b)
        case .int(let i): return GeneratedContent(i)
        case .double(let d): return GeneratedContent(d)
        case .string(let s): return GeneratedContent(s)
        case .array(let a): return GeneratedContent(elements: a.map { $0.content(visiting: visiting) })
        case .dictionary(let pairs): return GeneratedContent(properties: pairs.map { ($0.key.description, $0.value.content(visiting: visiting)) })
        case .structure(_, let fields):
            return Self.structureContent(fields) { $0.content(visiting: visiting) }
        case .object(let box):
            let identity = ObjectIdentifier(box)
            if visiting.contains(identity) { return GeneratedContent(box.type) }
            return GeneratedContent(properties: box.fields.map { ($0.name, $0.value.content(visiting: visiting.union([identity]))) })
        case .enumCase(_, let name, let payload):
            if payload.isEmpty { return GeneratedContent(name) }
            return GeneratedContent(properties: [(name, GeneratedContent(properties: payload.enumerated().map {
                ($0.element.label ?? "_\($0.offset)", $0.element.value.content(visiting: visiting))
            }))])
        case .content(let c): return c
        case .response(let r): return r.rawContent
        case .snapshot(_, let raw, _, _): return raw
        case .set(let a): return GeneratedContent(elements: a.map { $0.content(visiting: visiting) })
        default: return GeneratedContent(description)
        }
    }

    /// The value as JSON for results.
    var jsonValue: JSONValue { generatedContent.jsonValue }

    /// A `GenerationID` value: its identifier string is its only field, so == compares identifiers.
    package static func generationID(_ rawValue: String) -> Value { .structure(type: "GenerationID", fields: [("rawValue", .string(rawValue))]) }

    /// The identifier of a `GenerationID` value.
    package var generationIDRawValue: String? {
        if case .structure("GenerationID", let fields) = self { fields.first?.value.stringValue } else { nil }
    }

    /// A structure's fields as content: a `GenerationID` property is not generated content but the content's `id`
    /// (what Apple's @Generable macro does with it).
}

/// A value of the skills pattern (`import FoundationModelsUtilities`).
package enum SkillsObject: @unchecked Sendable {
    case activations(SkillActivations)
    case skill(Skill)
    case skills(Skills)

    var typeName: String {
        switch self {
        case .activations: "SkillActivations"
        case .skill: "Skill"
        case .skills: "Skills"
        }
    }

    var description: String {
        switch self {
        case .activations(let a): "SkillActivations(\(a.activeSkillNames))"
        case .skill(let s): "Skill(name: \(Value.quoted(s.name)))"
        case .skills(let s): "Skills(\(s.skills.map(\.name)))"
        }
    }
}
