import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
import SwiftSyntax

/// FoundationModels 27 in prompt files: `DynamicInstructions`, `Profile { }`,
/// `LanguageModelSession.DynamicProfile` bodies, profile modifiers and
/// lifecycle callbacks, `DynamicProfileModifier`s and `@SessionProperty`.
///
/// A profile session gets a closure that evaluates the profile value's body
/// here, before every model request (`LanguageModelSession.init(profile:...)`):
/// the body reads the current state of the objects it holds (class instances
/// are shared), so changing `orchestrator.mode` switches the active profile.
/// Callbacks are closure literals run later in the environment they were
/// written in.
extension Interpreter {
    static let valueModifiers: Set<String> = [
        "model", "temperature", "samplingMode", "maximumResponseTokens", "reasoningLevel", "toolCallingMode",
        "transcriptErrorHandlingPolicy",
    ]
    static let callbackModifiers: Set<String> = [
        "historyTransform", "onActivate", "onDeactivate", "onPrompt", "onResponse", "onReasoning", "onToolCall", "onToolOutput",
    ]
    /// `FoundationModelsUtilities` history modifiers (with `import FoundationModelsUtilities`).
    static let utilityModifiers: Set<String> = ["rollingWindow", "droppingCompletedToolCalls"]

    // MARK: Conformances

    func declaredType(of value: Value) -> TypeDeclaration? {
        switch value {
        case .structure(let type, _): return context.file.type(named: type)
        case .object(let box): return context.file.type(named: box.type)
        default: return nil
        }
    }

    func conforms(_ type: TypeDeclaration, to name: String) -> Bool { conforms(type.qualifiedName, to: name) }

    package func isProfileValue(_ value: Value) -> Bool {
        if case .profile = value { return true }
        guard let type = declaredType(of: value) else { return false }
        return conforms(type, to: "DynamicProfile")
    }

    // MARK: Profiles

    /// A profile value (a `Profile { }` with modifiers, or a dynamic profile
    /// whose body is evaluated now) as the one configuration it resolves to.
    func resolveProfile(_ value: Value, _ node: Syntax) async throws -> ProfileConfiguration {
        if case .profile(let configuration) = value { return configuration }
        guard let type = declaredType(of: value), conforms(type, to: "DynamicProfile") else {
            throw error("expected a LanguageModelSession.DynamicProfile (a Profile { } or a type conforming to DynamicProfile), found \(value.description.prefix(40))", node)
        }
        guard let body = findComputed("body", in: type.qualifiedName)?.getter else {
            throw error("\(type.name) conforms to DynamicProfile but has no 'var body: some DynamicProfile { ... }'", node)
        }
        let parts = try await asMember(value, name: "body", at: node) { try await builderValues(body) }
        guard parts.count == 1 else {
            throw error("the body of \(type.name) resolved to \(parts.count) profiles; a DynamicProfile body must resolve to exactly one Profile (use if/else or an exhaustive switch)", node)
        }
        var configuration = try await resolveProfile(parts[0], node)
        if !configuration.displayName.contains(":") { configuration.displayName = "\(type.name): \(configuration.displayName)" }
        return configuration
    }

    /// `Profile { ... }`: dynamic instructions bound to a configuration.
    package func makeProfile(_ e: FunctionCallExprSyntax) async throws -> Value {
        guard let closure = e.trailingClosure ?? e.arguments.first?.expression.as(ClosureExprSyntax.self) else {
            throw error("Profile needs its dynamic instructions: Profile { Instructions(\"...\") ... }", e)
        }
        let rendered = try await renderInstructions(try await builderValues(closure.statements), Syntax(e))
        let position = site(e)
        let name = Self.profileName(closure.statements, line: position.start.line)
        return .profile(ProfileConfiguration(identity: "Profile@\(position.start.line):\(position.start.column)", displayName: name,
                                             instructions: rendered.texts.map { .text(.init(content: $0)) }, tools: rendered.tools))
    }

    /// A readable profile name: the first dynamic instructions type it lists, else its line.
    static func profileName(_ statements: CodeBlockItemListSyntax, line: Int) -> String {
        for item in statements {
            if let call = item.item.as(FunctionCallExprSyntax.self), let ref = call.calledExpression.as(DeclReferenceExprSyntax.self),
               ref.baseName.text != "Instructions" {
                return ref.baseName.text
            }
        }
        return "Profile at line \(line)"
    }

    /// A profile modifier applied to a profile value: value modifiers, callbacks,
    /// `.modifier(_:)`, the utilities package's history modifiers and methods of
    /// `extension LanguageModelSession.DynamicProfile` in the file.
    package func profileMethod(_ name: String, of base: Value, _ e: FunctionCallExprSyntax) async throws -> Value? {
        let node = Syntax(e)
        if Self.valueModifiers.contains(name) {
            let configuration = try await resolveProfile(base, node)
            let args = try await arguments(e.arguments)
            guard args.items.count == 1 else { throw error(".\(name)(_:) takes one value", e) }
            return .profile(configuration.adding(try valueModifier(name, args.items[0].value, args.items[0].syntax)))
        }
        if Self.callbackModifiers.contains(name) {
            let configuration = try await resolveProfile(base, node)
            guard let closure = e.trailingClosure ?? e.arguments.first?.expression.as(ClosureExprSyntax.self) else {
                throw error(".\(name) needs a closure: .\(name) { ... }", e)
            }
            return .profile(configuration.adding(callbackModifier(name, makeClosure(closure), owner: configuration.identity, node)))
        }
        if name == "modifier" {
            let configuration = try await resolveProfile(base, node)
            let args = try await arguments(e.arguments)
            guard let modifier = args.unlabelled.first, let type = declaredType(of: modifier), conforms(type, to: "DynamicProfileModifier"),
                  let decl = findMethod("body", in: type.qualifiedName)?.decls.first, let body = decl.body else {
                throw error(".modifier(_:) needs a value of a type conforming to LanguageModelSession.DynamicProfileModifier with func body(content: Content) -> some DynamicProfile", e)
            }
            let parts = try await asMember(modifier, name: "body", at: node) { () -> [Value] in
                _ = try await defineParameters(TypeTable.parameters(of: decl), [CallArgument(label: "content", value: .profile(configuration))],
                                               of: "body", at: node)
                return try await builderValues(body.statements)
            }
            guard parts.count == 1 else { throw error("\(type.name).body(content:) must resolve to exactly one profile", e) }
            return .profile(try await resolveProfile(parts[0], node))
        }
        if Self.utilityModifiers.contains(name), profileExtensionMethod(name) == nil {
            guard context.importsUtilities else {
                throw error(".\(name) comes from Apple's FoundationModelsUtilities package: add 'import FoundationModelsUtilities'", e)
            }
            let configuration = try await resolveProfile(base, node)
            let args = try await arguments(e.arguments)
            if name == "droppingCompletedToolCalls" {
                return .profile(configuration.adding(.historyTransform(HistoryTransforms.droppingCompletedToolCalls)))
            }
            var size: Int?
            if case .int(let n)? = args.value("entries") { size = n }
            if case .enumCase(_, "entries", let payload)? = args.value("size"), case .int(let n)? = payload.first?.value { size = n }
            guard let size, size >= 0 else { throw error("rollingWindow needs size: .entries(n) or entries: n with n >= 0", e) }
            return .profile(configuration.adding(.historyTransform(HistoryTransforms.rollingWindow(entries: size))))
        }
        if let method = profileExtensionMethod(name) {
            // A method of `extension LanguageModelSession.DynamicProfile`: an ordinary method on the profile.
            return try await invokeDeclared(method.decls, selfCell: Cell(base), typeName: method.owner, try await callArguments(e), at: e)
        }
        return nil
    }

    /// A method the file adds in `extension LanguageModelSession.DynamicProfile` (or `extension DynamicProfile`).
    func profileExtensionMethod(_ name: String) -> (decls: [FunctionDeclSyntax], owner: String)? {
        findMethod(name, in: "LanguageModelSession.DynamicProfile") ?? findMethod(name, in: "DynamicProfile")
    }

    func valueModifier(_ name: String, _ value: Value, _ node: ExprSyntax) throws -> ProfileModifier {
        switch (name, value) {
        case ("model", _):
            guard let model = languageModel(from: value) else { throw error(".model(_:) needs a language model (SystemLanguageModel or PrivateCloudComputeLanguageModel)", node) }
            return .model(model)
        case ("temperature", .null): return .temperature(nil)
        case ("temperature", _):
            guard let t = value.number else { throw error(".temperature(_:) needs a number", node) }
            return .temperature(t)
        case ("samplingMode", .null): return .samplingMode(nil)
        case ("samplingMode", .samplingMode(let m)): return .samplingMode(m)
        case ("maximumResponseTokens", .null): return .maximumResponseTokens(nil)
        case ("maximumResponseTokens", .int(let n)):
            guard n > 0 else { throw error(".maximumResponseTokens(_:) needs a positive number", node) }
            return .maximumResponseTokens(n)
        case ("reasoningLevel", .null): return .reasoningLevel(nil)
        case ("reasoningLevel", _): return .reasoningLevel(try reasoningLevel(value, node))
        case ("toolCallingMode", .null): return .toolCallingMode(nil)
        case ("toolCallingMode", .toolCallingMode(let m)): return .toolCallingMode(m)
        case ("transcriptErrorHandlingPolicy", .null): return .transcriptErrorHandlingPolicy(nil)
        case ("transcriptErrorHandlingPolicy", _): return .transcriptErrorHandlingPolicy(try errorPolicy(value, node))
        default: throw error(".\(name)(_:) cannot take \(value.description.prefix(40))", node)
        }
    }

    /// Any model value a prompt file can hold, as a `LanguageModel`.
    package func languageModel(from value: Value) -> (any LanguageModel)? {
        switch value {
        case .model(let model): return model
        case .serverModel(let model): return model
        default: return nil
        }
    }

    func reasoningLevel(_ value: Value, _ node: some SyntaxProtocol) throws -> ReasoningLevel {
        if case .reasoningLevel(let level) = value { return level }
        if case .enumCase(_, let name, let payload) = value {
            switch name {
            case "light": return .light
            case "moderate": return .moderate
            case "deep": return .deep
            case "custom": if let text = payload.first?.value.stringValue { return .custom(text) }
            default: break
            }
        }
        throw error("a reasoning level is .light, .moderate, .deep or .custom(\"...\")", node)
    }

    func errorPolicy(_ value: Value, _ node: some SyntaxProtocol) throws -> TranscriptErrorHandlingPolicy {
        if case .errorPolicy(let policy) = value { return policy }
        if case .enumCase(_, let name, let payload) = value, payload.isEmpty {
            if name == "revertTranscript" { return .revertTranscript }
            if name == "preserveTranscript" { return .preserveTranscript }
        }
        throw error("a transcript error handling policy is .revertTranscript or .preserveTranscript", node)
    }

    /// A lifecycle callback or history transform that runs the closure literal later.
    func callbackModifier(_ name: String, _ closure: FunctionValue, owner: String, _ node: Syntax) -> ProfileModifier {
        // Callbacks run later, for the session whose profile made them: `@SessionProperty` reads and writes go there.
        let session = servingSessions.last
        @Sendable func call(_ closure: FunctionValue, _ arguments: [Value], at node: Syntax) async throws -> Value {
            try await serving(session) { try await self.call(closure, arguments, at: node) }
        }
        switch name {
        case "historyTransform":
            return .historyTransform { [self] entries in
                let result = try await call(closure, [.array(entries.map(Value.transcriptEntry))], at: node)
                guard case .array(let items) = result else {
                    throw self.error("historyTransform must return the entries ([Transcript.Entry]); it returned \(result.description.prefix(40))", node)
                }
                // An entry of the history, or one the transform rebuilt (`.prompt(Transcript.Prompt(...))`).
                return try items.map { item in
                    guard let entry = TranscriptPart.entry(from: item) else {
                        throw self.error("historyTransform must return transcript entries; found \(item.description.prefix(40))", node)
                    }
                    return entry
                }
            }
        case "onActivate": return .onActivate(owner: owner) { [self] in _ = try? await call(closure, [], at: node) }
        case "onDeactivate": return .onDeactivate(owner: owner) { [self] in _ = try? await call(closure, [], at: node) }
        case "onPrompt": return .onPrompt { [self] prompt in _ = try await call(closure, [.transcriptPart(.prompt(prompt))], at: node) }
        case "onResponse": return .onResponse { [self] response in _ = try await call(closure, [.transcriptPart(.response(response))], at: node) }
        case "onReasoning": return .onReasoning { [self] reasoning in _ = try await call(closure, [.transcriptPart(.reasoning(reasoning))], at: node) }
        case "onToolCall": return .onToolCall { [self] toolCall in _ = try await call(closure, [Self.toolCallValue(toolCall)], at: node) }
        default:
            return .onToolOutput { [self] toolCall, output in
                _ = try await call(closure, [Self.toolCallValue(toolCall), .transcriptPart(.toolOutput(output))], at: node)
            }
        }
    }

    package static func toolCallValue(_ call: Transcript.ToolCall) -> Value {
        .structure(type: "Transcript.ToolCall", fields: [("id", .string(call.id)), ("toolName", .string(call.toolName)),
                                                           ("arguments", .content(call.arguments)),
                                                           ("metadata", metadataValue(call.metadata))])
    }

    // MARK: Builders

    /// The values of a result-builder body (`DynamicProfile`, `DynamicInstructions`,
    /// `Profile { }`): each expression statement's value; `if`/`else`, `if let`
    /// and `switch` contribute their taken branch; `let` declares.
    package func builderValues(_ items: CodeBlockItemListSyntax) async throws -> [Value] {
        var values: [Value] = []
        for item in items {
            try Task.checkCancellation()
            switch item.item {
            case .expr(let expr):
                values += try await builderValues(expression: expr)
            case .stmt(let stmt):
                if let exprStmt = stmt.as(ExpressionStmtSyntax.self) {
                    values += try await builderValues(expression: exprStmt.expression)
                } else if stmt.is(ForStmtSyntax.self) {
                    throw error("a for loop is not allowed in a dynamic instructions or profile body (no buildArray); use DynamicInstructions.ForEach(items) { item in ... }", stmt)
                } else if let returnStmt = stmt.as(ReturnStmtSyntax.self), let expression = returnStmt.expression {
                    values.append(try await evaluate(expression))
                } else {
                    throw error("this statement is not supported in a builder body", stmt)
                }
            case .decl(let decl):
                guard let variable = decl.as(VariableDeclSyntax.self) else { throw error("declarations are not supported in a builder", decl) }
                try await declare(variable)
            }
        }
        return values
    }

    private func builderValues(expression expr: ExprSyntax) async throws -> [Value] {
        if let ifExpr = expr.as(IfExprSyntax.self) {
            return try await withScope { () -> [Value] in
                if try await conditionsHold(ifExpr.conditions) { return try await builderValues(ifExpr.body.statements) }
                switch ifExpr.elseBody {
                case .codeBlock(let block): return try await builderValues(block.statements)
                case .ifExpr(let next): return try await builderValues(expression: ExprSyntax(next))
                case nil: return []
                }
            }
        }
        if let switchExpr = expr.as(SwitchExprSyntax.self) {
            let subject = try await evaluate(switchExpr.subject)
            for element in switchExpr.cases {
                guard case .switchCase(let switchCase) = element else { throw error("#if is not supported in prompt files", element) }
                guard let bindings = try await caseBindings(switchCase, subject) else { continue }
                return try await withScope { () -> [Value] in
                    for (name, value) in bindings { define(name, value) }
                    return try await builderValues(switchCase.statements)
                }
            }
            throw error("no case of this switch matched \(subject.description.prefix(40)); a builder switch must be exhaustive", switchExpr)
        }
        let value = try await evaluate(expr)
        return value.isNull ? [] : [value]
    }

    // MARK: Dynamic instructions

    /// Flattens builder values into instructions text and tools, in declaration
    /// order; nested dynamic instructions splice in place.
    package func renderInstructions(_ values: [Value], _ node: Syntax) async throws -> DynamicInstructionsValue {
        var result = DynamicInstructionsValue()
        for value in values {
            switch value {
            case .null: continue
            case .instructions(let instructions): result.texts.append(instructions.text)
            case .dynamicInstructions(let rendered): result = result + rendered
            case .skills(.skills(let skills)):
                let (segments, tools) = skills.render()
                result = result + DynamicInstructionsValue(texts: segments, tools: tools)
            case .array(let items): result = result + (try await renderInstructions(items, node))
            default:
                guard let type = declaredType(of: value) else {
                    throw error("\(value.description.prefix(40)) is not DynamicInstructions; list Instructions { \"...\" }, tools, or values of types conforming to DynamicInstructions", node)
                }
                if type.tool != nil {
                    result.tools.append(try await tool(from: value, node))
                } else if conforms(type, to: "DynamicInstructions") {
                    result = result + (try await renderDynamicInstructions(value, type, node))
                } else {
                    throw error("\(type.name) is neither a Tool nor DynamicInstructions, so it cannot be listed in instructions", node)
                }
            }
        }
        return result
    }

    func renderDynamicInstructions(_ value: Value, _ type: TypeDeclaration, _ node: Syntax) async throws -> DynamicInstructionsValue {
        guard let body = findComputed("body", in: type.qualifiedName)?.getter else {
            throw error("\(type.name) conforms to DynamicInstructions but has no 'var body: some DynamicInstructions { ... }'", node)
        }
        let parts = try await asMember(value, name: "body", at: node) { try await builderValues(body) }
        return try await renderInstructions(parts, node)
    }

    /// `DynamicInstructions.ForEach(data) { element in ... }` (also `id:`).
    func makeForEach(_ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await arguments(e.arguments)
        guard case .array(let items)? = args.unlabelled.first else { throw error("ForEach needs an array of elements", e) }
        guard let closure = e.trailingClosure else { throw error("ForEach needs a trailing closure: ForEach(items) { item in ... }", e) }
        var rendered = DynamicInstructionsValue()
        for item in items {
            let parts = try await withScope { () -> [Value] in
                if case .simpleInput(let list)? = closure.signature?.parameterClause, let name = list.first?.name.text { define(name, item) }
                if case .parameterClause(let clause)? = closure.signature?.parameterClause, let p = clause.parameters.first {
                    define((p.secondName ?? p.firstName).text, item)
                }
                define("$0", item)
                return try await builderValues(closure.statements)
            }
            rendered = rendered + (try await renderInstructions(parts, Syntax(e)))
        }
        return .dynamicInstructions(rendered)
    }

    // MARK: Sessions

    /// `LanguageModelSession(profile:history:)` and `LanguageModelSession(model:dynamicInstructions:history:)`.
    package func makeProfileSession(_ args: Arguments, _ e: FunctionCallExprSyntax) async throws -> Value {
        var history: [Transcript.Entry] = []
        switch args.value("history") {
        case nil, .null?: break
        case .array(let items)?:
            history = try items.map { item in
                guard let entry = TranscriptPart.entry(from: item) else { throw error("history: must list transcript entries", e) }
                return entry
            }
        case .transcript(let transcript)?: history = transcript.history
        default: throw error("history: must be transcript entries (for example session.transcript.history)", e)
        }
        var fallback: any LanguageModel = context.systemModel(useCase: .general)
        let holder = SessionHolder()
        let node = Syntax(e)
        let resolve: @Sendable () async throws -> ProfileConfiguration
        if let profile = args.value("profile") {
            guard isProfileValue(profile) else {
                throw error("profile: needs a LanguageModelSession.DynamicProfile value (a type conforming to DynamicProfile)", e)
            }
            resolve = { [self] in try await self.serving(holder.session) { try await self.resolveProfile(profile, node) } }
        } else if let instructions = args.value("dynamicInstructions") {
            if let value = args.value("model") {
                guard let model = languageModel(from: value) else { throw error("model: must be a language model", e) }
                fallback = model
            }
            resolve = { [self] in
                try await self.serving(holder.session) {
                    let rendered = try await self.renderInstructions([instructions], node)
                    return ProfileConfiguration(identity: "dynamicInstructions", displayName: "dynamic instructions",
                                                instructions: rendered.texts.map { .text(.init(content: $0)) }, tools: rendered.tools)
                }
            }
        } else {
            throw error("LanguageModelSession needs profile: or dynamicInstructions:", e)
        }
        let configuration = context.configuration
        let session = LanguageModelSession(
            model: fallback, profile: resolve, history: history, defaultSeed: configuration.seed,
            defaultOptions: GenerationOptions(temperature: configuration.temperature, maximumResponseTokens: configuration.maximumResponseTokens))
        holder.session = session
        try await startSessionProperties(session)
        return .session(session)
    }

    /// Declared session properties start at their written defaults (every session has them).
    func startSessionProperties(_ session: LanguageModelSession) async throws {
        for (name, initializer) in context.sessionPropertyDefaults {
            if let initializer { session.setPropertyValue(name, try await isolated([:]) { try await evaluate(initializer) }) }
        }
    }

    /// Runs `body` with `session` as the one `@SessionProperty` reads and writes use.
    func serving<T>(_ session: LanguageModelSession?, _ body: () async throws -> T) async throws -> T {
        guard let session else { return try await body() }
        servingSessions.append(session)
        defer { servingSessions.removeLast() }
        return try await body()
    }

    // MARK: Session properties

    func readSessionProperty(_ key: String, _ node: some SyntaxProtocol) throws -> Value {
        guard let session = servingSessions.last else {
            throw error("@SessionProperty(\\.\(key)) is only readable inside a session: in its profile, instructions, callbacks or tools", node)
        }
        return try sessionProperty(key, of: session, node)
    }

    func writeSessionProperty(_ key: String, _ value: Value, _ node: some SyntaxProtocol) throws {
        guard let session = servingSessions.last else {
            throw error("@SessionProperty(\\.\(key)) is only writable inside a session: in its profile, instructions, callbacks or tools", node)
        }
        try setSessionProperty(key, of: session, to: value, node)
    }

    /// One session property: `history`, or a declared `@SessionPropertyEntry` (nil until set when it has no default).
    package func sessionProperty(_ key: String, of session: LanguageModelSession, _ node: some SyntaxProtocol) throws -> Value {
        if key == "history" { return .array(session.history.map(Value.transcriptEntry)) }
        if let value = session.propertyValue(key) as? Value { return value }
        guard context.sessionPropertyDefaults[key] != nil else {
            throw error("no session property '\(key)': declare it in extension SessionPropertyValues { @SessionPropertyEntry var \(key): T = ... }", node)
        }
        return .null
    }

    /// Writes one session property; the session's next request (its instructions, profile and tools) sees it.
    func setSessionProperty(_ key: String, of session: LanguageModelSession, to value: Value, _ node: some SyntaxProtocol) throws {
        if key == "history" {
            guard case .array(let items) = value else { throw error("history must be set to transcript entries", node) }
            session.history = try items.map { item in
                guard let entry = TranscriptPart.entry(from: item) else { throw error("history must be set to transcript entries", node) }
                return entry
            }
            return
        }
        guard context.sessionPropertyDefaults[key] != nil else {
            throw error("no session property '\(key)': declare it in extension SessionPropertyValues { @SessionPropertyEntry var \(key): T }", node)
        }
        session.setPropertyValue(key, value)
    }

    /// `session.properties`: a reference to the session's values (history and every declared `@SessionPropertyEntry`).
    package func sessionProperties(_ session: LanguageModelSession) -> Value { .sessionProperties(session) }
}

/// Lets a profile closure reach the session it belongs to (created after the closure).
final class SessionHolder: @unchecked Sendable {
    var session: LanguageModelSession?
}
