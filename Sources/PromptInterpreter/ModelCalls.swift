import Foundation
import FoundationModelsRuntime
import JSON
import PromptLanguage
import Schema
import SwiftSyntax

extension Interpreter {
    /// `LanguageModelSession(model:tools:instructions:)`, instructions as a
    /// string, an `Instructions` value or a trailing builder closure.
    package func makeSession(_ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await arguments(e.arguments)
        var model: any LanguageModel = context.systemModel(useCase: .general)
        if let value = args.value("model") {
            guard let m = languageModel(from: value) else { throw error("model: must be a SystemLanguageModel or PrivateCloudComputeLanguageModel", e) }
            model = m
        }
        var tools: [any Tool] = []
        // Every session has properties (`session.properties`); its tools' `@SessionProperty`s are this session's.
        let holder = SessionHolder()
        if case .array(let values) = args.value("tools") ?? .array([]) {
            for value in values { tools.append(try await tool(from: value, e, session: holder)) }
        }
        var instructions: Instructions?
        switch args.value("instructions") {
        case .string(let s): instructions = Instructions(s)
        case .instructions(let i): instructions = i
        case nil, .null?: break
        case let other?: instructions = Instructions(try await representedText(other, instructions: true, at: e))
        }
        if let closure = e.trailingClosure { instructions = Instructions(try await builder(closure.statements, instructions: true).joined(separator: "\n")) }
        let session = if case .transcript(let transcript) = args.value("transcript") ?? .null {
            LanguageModelSession(model: model, tools: tools, transcript: transcript, defaultSeed: context.configuration.seed)
        } else {
            LanguageModelSession(model: model, tools: tools, instructions: instructions, defaultSeed: context.configuration.seed)
        }
        holder.session = session
        try await startSessionProperties(session)
        return .session(session)
    }

    /// Wraps an instance of a `Tool` type from the file: its `call(arguments:)` runs in this interpreter as a method.
    /// A tool value of the file as the runtime's tool (`LanguageModelSession.ToolCallError(tool:underlyingError:)`).
    package func fileTool(_ value: Value, _ node: some SyntaxProtocol) async throws -> any Tool { try await tool(from: value, node) }

    /// `name`, `description` and `parameters` are the tool's members, stored or computed (a `call(arguments:
    /// GeneratedContent)` tool declares its schema as `var parameters: GenerationSchema { ... }`): the model is
    /// constrained to that schema and the transcript's tool definition carries it.
    func tool(from value: Value, _ node: some SyntaxProtocol, session holder: SessionHolder? = nil) async throws -> any Tool {
        guard let typeName = typeName(of: value), let type = context.file.type(named: typeName), let declaration = type.tool else {
            throw error("tools: must list instances of Tool types declared in the file", node)
        }
        let argumentsTypeName = declaration.argumentsType.flatMap { context.file.resolveType($0, in: type.qualifiedName)?.qualifiedName }
        var parameters = argumentsTypeName.flatMap { context.schema(forType: $0) } ?? GenerationSchema(root: .any)
        guard let method = findMethod("call", in: type.qualifiedName) else {
            throw error("tool \(type.name) has no call(arguments:) body", node)
        }
        let label = TypeTable.parameters(of: method.decls[0]).first?.label
        let name = try await userMember("name", of: value, node)?.stringValue ?? declaration.effectiveName(typeName: type.name)
        let description = try await userMember("description", of: value, node)?.stringValue ?? declaration.description ?? ""
        switch try await userMember("parameters", of: value, node) {
        case .schema(let declared)?: parameters = declared
        case nil: break
        case let other?: throw error("tool \(type.name)'s parameters must be a GenerationSchema, not \(other.description.prefix(40))", node)
        }
        let site = Syntax(method.decls[0].name)
        // A tool reads the properties of the session it was given to (`holder`), or of the profile session whose
        // dynamic instructions listed it.
        let session = servingSessions.last
        let schema = parameters
        // `call(arguments: GeneratedContent)` receives the content itself, whatever schema constrained it.
        let takesContent = argumentsTypeName == nil && declaration.argumentsType == "GeneratedContent"
        return ClosureTool(name: name, description: description, parameters: parameters, source: value) { [self] arguments in
            let argument = CallArgument(label: label, value: takesContent ? .content(arguments) : try await generated(arguments, schema: schema))
            let result = try await serving(holder?.session ?? session) {
                try await invokeDeclared(method.decls, selfCell: Cell(value), typeName: method.owner, [argument], at: site)
            }
            return result.generatedContent
        }
    }

    /// `Transcript.ToolDefinition(tool:)`: the definition a session's instructions entry records for the tool.
    package func toolDefinition(from value: Value, _ node: some SyntaxProtocol) async throws -> Transcript.ToolDefinition {
        let tool = try await tool(from: value, node)
        return Transcript.ToolDefinition(name: tool.name, description: tool.description, parameters: tool.parameters)
    }

    /// `session.respond(...)` and `session.streamResponse(...)`.
    package func modelCall(_ method: String, _ session: LanguageModelSession, _ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await arguments(e.arguments)
        let prompt: Prompt
        if let closure = e.trailingClosure {
            prompt = Prompt(try await builder(closure.statements).joined(separator: "\n"))
        } else if let first = args.value("to") ?? args.unlabelled.first {
            if case .prompt(let p) = first { prompt = p } else { prompt = Prompt(try await representedText(first, at: e)) }
        } else {
            throw error("\(method) needs a prompt: \(method)(to: \"...\")", e)
        }
        var schema: GenerationSchema?
        var typeName: String?
        switch args.value("generating") {
        case .type(let name)?:
            if name != "String" {
                guard let found = generableSchema(forType: name) else {
                    throw error("'\(name)' is not Generable: generating: takes a @Generable type of this file, String, Int, Double, Float, Bool, "
                                + "GeneratedContent or an array of those", e)
                }
                schema = found
                typeName = name
            }
        case nil: break
        default: throw error("generating: expects a type, such as Itinerary.self", e)
        }
        if case .schema(let s)? = args.value("schema") {
            schema = s
            typeName = s.typeName
        }
        var includeSchema = true
        if case .bool(let b)? = args.value("includeSchemaInPrompt") { includeSchema = b }
        // 27: contextOptions: ContextOptions(includeSchemaInPrompt:reasoningLevel:).
        var contextOptions = ContextOptions()
        if let given = args.value("contextOptions") {
            contextOptions = try self.contextOptions(given, e)
            if let b = contextOptions.includeSchemaInPrompt { includeSchema = b }
        }
        // 27: metadata for the model's executor: [String: value convertible to GeneratedContent]. The embedded
        // and server models read none (as Apple's system model): it is recorded on the prompt entry, not sent.
        let metadata = try self.metadata(args.value("metadata"), e)
        var fileOptions = GenerationOptions()
        if case .options(let o)? = args.value("options") { fileOptions = o }
        // A profile session applies the configured defaults after the profile's own values.
        let options = session.profile == nil ? context.configuration.effectiveOptions(fileOptions) : fileOptions
        let callSite = site(e)

        if method == "streamResponse" {
            let stream = session.streamResponse(to: prompt, schema: schema, includeSchemaInPrompt: includeSchema, options: options,
                                                contextOptions: contextOptions, metadata: metadata)
            return .stream(StreamValue(stream: stream, typeName: typeName, schema: schema, site: callSite, session: session))
        }
        return try await respond(session, to: prompt, schema: schema, typeName: typeName, includeSchema: includeSchema, options: options,
                                 contextOptions: contextOptions, metadata: metadata, at: callSite)
    }

    /// A recorded `respond`: runs as a stream so clients see progress live; the result is the same Response. A
    /// server model answers it in one JSON response, as respond(to:) asks: its usage is exact (llama-cpp-python
    /// reports none in a stream).
    func respond(_ session: LanguageModelSession, to prompt: Prompt, schema: GenerationSchema?, typeName: String?, includeSchema: Bool,
                 options: GenerationOptions, contextOptions: ContextOptions, metadata: [String: GeneratedContent],
                 at callSite: CallSite) async throws -> Value {
        let stream = session.streamResponse(to: prompt, schema: schema, includeSchemaInPrompt: includeSchema, options: options,
                                            contextOptions: contextOptions, metadata: metadata, serverSentEvents: false)
        let response = try await watchingServerState {
            for try await snapshot in stream {
                recorder.publishSnapshot(callSite, kind: .response, typeName: typeName, value: convert(snapshot.rawContent, schema: schema),
                                         tokens: snapshot.tokenCount)
            }
            return try await stream.collect()
        }
        let value = ResponseValue(content: try await generated(response.rawContent, schema: schema), rawContent: response.rawContent,
                                  entries: response.transcriptEntries, usage: response.usage)
        recorder.recordResponse(callSite, kind: .response, typeName: typeName, value: value, statistics: response.statistics,
                                toolCalls: response.toolCalls, snapshots: 0, transcript: session.transcript, lifecycle: response.lifecycle)
        return .response(value)
    }

    /// `for try await snapshot in stream { ... }`.
    func iterate(_ stream: StreamValue, _ loop: ForStmtSyntax) async throws -> Flow {
        var count = 0
        var result: Flow = .normal
        try await watchingServerState {
            for try await snapshot in stream.stream {
                count += 1
                let value = convert(snapshot.rawContent, schema: stream.schema)
                recorder.publishSnapshot(stream.site, kind: .stream, typeName: stream.typeName, value: value, tokens: snapshot.tokenCount)
                let flow = try await withScope { () -> Flow in
                    try bind(loop.pattern, to: .snapshot(content: value, raw: snapshot.rawContent, usage: snapshot.usage, entries: snapshot.transcriptEntries))
                    return try await execute(loop.body.statements)
                }
                if case .breakLoop = flow { break }
                if case .returned = flow { result = flow; break }
            }
        }
        if let response = try? await stream.stream.collect() {
            try await recordStream(stream, response, snapshots: count)
        }
        return result
    }

    package func collect(_ stream: StreamValue) async throws -> Value {
        var count = 0
        let response = try await watchingServerState {
            for try await snapshot in stream.stream {
                count += 1
                recorder.publishSnapshot(stream.site, kind: .stream, typeName: stream.typeName, value: convert(snapshot.rawContent, schema: stream.schema),
                                         tokens: snapshot.tokenCount)
            }
            return try await stream.stream.collect()
        }
        let value = try await recordStream(stream, response, snapshots: count)
        return .response(value)
    }

    /// Runs a model request. A failure that says something about the server's state now (quota,
    /// network, service) marks the block's results uncacheable, even when the prompt file catches it.
    func watchingServerState<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            if Self.dependsOnServerState(error) { readsServerState = true }
            throw error
        }
    }

    @discardableResult
    func recordStream(_ stream: StreamValue, _ response: Response<GeneratedContent>, snapshots: Int) async throws -> ResponseValue {
        let value = ResponseValue(content: try await generated(response.rawContent, schema: stream.schema), rawContent: response.rawContent,
                                  entries: response.transcriptEntries, usage: response.usage)
        recorder.recordResponse(stream.site, kind: .stream, typeName: stream.typeName, value: value, statistics: response.statistics,
                                toolCalls: response.toolCalls, snapshots: snapshots, transcript: stream.session.transcript,
                                lifecycle: response.lifecycle)
        return value
    }

    /// Generated content as interpreter values, typed by the schema: structs
    /// with their properties in order (missing ones nil in snapshots), enum
    /// cases, integers and doubles.
    /// Complete generated content as interpreter values: `convert`, then the stored
    /// properties a @Generable type gives a starting value (`let id = UUID()`, left out of
    /// the schema) take that value, in declaration order. Snapshots (partial content) use `convert` only.
    func generated(_ content: GeneratedContent, schema: GenerationSchema?) async throws -> Value {
        try await withStartingValues(convert(content, schema: schema), depth: 0)
    }

    private func withStartingValues(_ value: Value, depth: Int) async throws -> Value {
        guard depth < 64 else { return value }
        switch value {
        case .array(let items):
            var result: [Value] = []
            for item in items { result.append(try await withStartingValues(item, depth: depth + 1)) }
            return .array(result)
        case .enumCase(let type, let name, let payload):
            var result = payload
            for index in result.indices { result[index].value = try await withStartingValues(result[index].value, depth: depth + 1) }
            return .enumCase(type: type, name: name, payload: result)
        case .structure(let typeName, var fields):
            for index in fields.indices { fields[index].value = try await withStartingValues(fields[index].value, depth: depth + 1) }
            guard let type = context.file.type(named: typeName), type.isGenerable else { return .structure(type: typeName, fields: fields) }
            let starting = type.otherProperties.filter { !$0.isStatic && !$0.isComputed && $0.initializerRange != nil }
            guard !starting.isEmpty else { return .structure(type: typeName, fields: fields) }
            var all: [(offset: Int, field: (name: String, value: Value))] = []
            for property in type.properties {
                guard let field = fields.first(where: { $0.name == property.name }) else { continue }
                all.append((property.range.start.offset, field))
            }
            for property in starting {
                guard let initializer = context.initializer(of: property) else { continue }
                let start = try await isolated([:]) { try await evaluate(initializer) }
                all.append((property.range.start.offset, (property.name, start.converted(to: types.type(type.qualifiedName)?.stored.first { $0.name == property.name }?.type))))
            }
            return .structure(type: typeName, fields: all.sorted { $0.offset < $1.offset }.map(\.field))
        default:
            return value
        }
    }

    /// The schema of a Generable type as `generating:` names it: a @Generable type of the file, or one of the
    /// standard types Apple makes Generable (String, the integers, Double, Float, Bool, GeneratedContent) and
    /// arrays of any of them (`[Person].self`, `[String].self`).
    package func generableSchema(forType written: String) -> GenerationSchema? {
        let name = written.trimmingCharacters(in: .whitespaces)
        if let schema = context.schema(forType: name) { return schema }
        switch name {
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64":
            return GenerationSchema(root: .integer(.none))
        case "Double", "Float": return GenerationSchema(root: .number(.none))
        case "Bool": return GenerationSchema(root: .boolean)
        case "String": return GenerationSchema(root: .string(StringGuides()))
        case "GeneratedContent": return GenerationSchema(root: .any)
        default: break
        }
        var element: Substring?
        if name.hasPrefix("["), name.hasSuffix("]"), !name.contains(":") { element = name.dropFirst().dropLast() }
        if name.hasPrefix("Array<"), name.hasSuffix(">") { element = name.dropFirst("Array<".count).dropLast() }
        guard let element, let inner = generableSchema(forType: String(element)) else { return nil }
        return GenerationSchema(root: .array(element: inner.root, guides: ArrayGuides()), definitions: inner.definitions)
    }

    func convert(_ content: GeneratedContent, schema: GenerationSchema?) -> Value {
        guard let schema else { return content.stringValue.map(Value.string) ?? .content(content) }
        return convert(content, type: schema.root, schema: schema, depth: 0)
    }

    func convert(_ content: GeneratedContent, type: SchemaType, schema: GenerationSchema, depth: Int) -> Value {
        guard depth < 64 else { return .content(content) }
        switch (type, content.kind) {
        case (.string, .string(let s)): return .string(s)
        case (.integer, .number(let n)) where n == n.rounded() && abs(n) < 9e15: return .int(Int(n))
        case (.integer, .number(let n)), (.number, .number(let n)): return .double(n)
        case (.boolean, .bool(let b)): return .bool(b)
        case (_, .null): return .null
        case (.array(let element, _), .array(let items)):
            return .array(items.map { convert($0, type: element, schema: schema, depth: depth + 1) })
        case (.reference(let name), _):
            guard let definition = schema.definition(named: name) else { return .content(content) }
            switch (definition.kind, content.kind) {
            case (.object(let properties), .structure):
                return .structure(type: name, fields: withGenerationIDs(name, content, properties.map { property in
                    (property.name, content[property.name].map { convert($0, type: property.type, schema: schema, depth: depth + 1) } ?? .null)
                }))
            case (.enumeration, .string(let caseName)):
                return .enumCase(type: name, name: caseName, payload: [])
            case (.enumeration(let cases), .structure):
                guard let (caseName, payload) = content.orderedProperties.first,
                      let match = cases.first(where: { $0.name == caseName }) else { return .content(content) }
                return .enumCase(type: name, name: caseName, payload: match.associatedValues.map { property in
                    (property.name.hasPrefix("_") ? nil : property.name,
                     payload[property.name].map { convert($0, type: property.type, schema: schema, depth: depth + 1) } ?? .null)
                })
            default: return .content(content)
            }
        default:
            return .content(content)
        }
    }

    /// `model.tokenCount(for:)` (26.4) for a prompt (a string or `Prompt`),
    /// `Instructions`, an array of tools, a `GenerationSchema` or transcript
    /// entries (a transcript or an array of its entries).
    package func tokenCount(_ model: SystemLanguageModel, _ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await arguments(e.arguments)
        guard let value = args.value("for") else { throw error("tokenCount needs for:", e) }
        let count: Int
        switch value {
        case .string(let text): count = try await model.tokenCount(for: Prompt(text))
        case .prompt(let prompt): count = try await model.tokenCount(for: prompt)
        case .instructions(let instructions): count = try await model.tokenCount(for: instructions)
        case .schema(let schema): count = try await model.tokenCount(for: schema)
        case .transcript(let transcript): count = try await model.tokenCount(for: transcript.entries)
        case .array(let items) where items.allSatisfy({ if case .transcriptEntry = $0 { true } else { false } }):
            count = try await model.tokenCount(for: items.compactMap { if case .transcriptEntry(let entry) = $0 { entry } else { nil } })
        case .array(let items):
            var tools: [any Tool] = []
            for item in items { tools.append(try await tool(from: item, e)) }
            count = try await model.tokenCount(for: tools)
        default:
            count = try await model.tokenCount(for: Prompt(promptText(value)))
        }
        return .int(count)
    }

    static let feedbackSentiments: Set<String> = ["positive", "negative", "neutral"]
    static let feedbackIssueCategories: Set<String> = [
        "didNotFollowInstructions", "incorrect", "stereotypeOrBias", "suggestiveOrSexual", "tooVerbose",
        "triggeredGuardrailUnexpectedly", "unhelpful", "vulgarOrOffensive",
    ]

    /// `LanguageModelFeedback.Issue(category:explanation:)`.
    package func makeFeedbackIssue(_ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await arguments(e.arguments)
        guard case .enumCase(_, let category, _)? = args.value("category"), Self.feedbackIssueCategories.contains(category) else {
            throw error("LanguageModelFeedback.Issue needs category: one of " + Self.feedbackIssueCategories.sorted().map { ".\($0)" }.joined(separator: ", "), e)
        }
        return .structure(type: "LanguageModelFeedback.Issue", fields: [
            ("category", .enumCase(type: "LanguageModelFeedback.Issue.Category", name: category, payload: [])),
            ("explanation", args.value("explanation") ?? .null),
        ])
    }

    /// `session.logFeedbackAttachment(sentiment:issues:desiredOutput:|desiredResponseText:|desiredResponseContent:)`:
    /// the JSON Apple would attach to a Feedback Assistant report (the session's
    /// transcript, the sentiment, the issues and the desired output), as `Data`.
    package func logFeedbackAttachment(_ session: LanguageModelSession, _ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await arguments(e.arguments)
        var sentiment: JSONValue = .null
        switch args.value("sentiment") {
        case .enumCase(_, let name, _)? where Self.feedbackSentiments.contains(name): sentiment = .string(name)
        case nil, .null?: break
        default: throw error("sentiment: must be .positive, .negative or .neutral", e)
        }
        var issues: [JSONValue] = []
        if case .array(let items)? = args.value("issues") {
            for item in items {
                guard case .structure("LanguageModelFeedback.Issue", let fields) = item else {
                    throw error("issues: must list LanguageModelFeedback.Issue values", e)
                }
                var issue = JSONObject()
                for (name, value) in fields where !value.isNull { issue[name] = .string(value.description) }
                issues.append(.object(issue))
            }
        }
        var desired: JSONValue = .null
        if let value = args.value("desiredResponseText") ?? args.value("desiredResponseContent") ?? args.value("desiredOutput"), !value.isNull {
            switch value {
            case .string, .prompt, .instructions, .transcriptEntry: desired = .string(value.description)
            default: desired = value.jsonValue
            }
        }
        let transcript: [JSONValue] = session.transcript.map { entry in
            ["id": .string(entry.id), "kind": .string(entry.kindName), "text": .string(entry.description)]
        }
        let attachment: JSONValue = ["sentiment": sentiment, "issues": .array(issues), "desiredOutput": desired,
                                     "transcript": .array(transcript)]
        return .data(Array(attachment.serialized().utf8))
    }
}

extension Interpreter {
    /// Errors that say something about the server's state now (not about the
    /// request): results that saw them must not be replayed from the cache.
    package static func dependsOnServerState(_ error: any Error) -> Bool {
        if error is PrivateCloudComputeLanguageModel.Error { return true }
        if let generation = error as? GenerationError {
            switch generation {
            case .rateLimited, .timeout, .assetsUnavailable: return true
            default: return false
            }
        }
        return false
    }
}

extension Interpreter {
    /// `content.value(T.self)` and `content.value(T.self, forProperty:)`: the content as the requested type
    /// (Apple's `ConvertibleFromGeneratedContent`): `String`, the integers, `Double`, `Float`, `Bool`, arrays and
    /// optionals of those, and the file's @Generable types. nil, `Any` and `GeneratedContent` keep the content.
    /// Content of another shape throws, as Apple's conversions do.
    package func contentValue(_ content: GeneratedContent, as written: String?) throws -> Value {
        guard let written else { return .content(content) }
        let name = written.trimmingCharacters(in: .whitespaces)
        if name.isEmpty || name == "Any" || name == "GeneratedContent" { return .content(content) }
        if name.hasSuffix("?") || (name.hasPrefix("Optional<") && name.hasSuffix(">")) {
            if case .null = content.kind { return .null }
            let wrapped = name.hasSuffix("?") ? String(name.dropLast()) : String(name.dropFirst("Optional<".count).dropLast())
            return try contentValue(content, as: wrapped)
        }
        func mismatch() -> ThrownValue {
            ThrownValue(value: .string("cannot convert GeneratedContent \(content.jsonString.prefix(60)) to \(name)"))
        }
        guard let schema = generableSchema(forType: name) else {
            throw ThrownValue(value: .string("'\(name)' is not ConvertibleFromGeneratedContent: value(_:) takes String, Int, Double, Float, Bool, "
                                             + "GeneratedContent, a @Generable type of this file, or an array or optional of those"))
        }
        let value = convert(content, type: schema.root, schema: schema, depth: 0)
        switch (schema.root, value) {
        case (.string, .string), (.boolean, .bool), (.integer, .int), (.number, .double), (.array, .array),
             (.reference, .structure), (.reference, .enumCase): return value
        case (.number, .int(let i)): return .double(Double(i))
        default: throw mismatch()
        }
    }
}
