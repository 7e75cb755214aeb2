import Foundation
import FoundationModelsRuntime
import PromptLanguage
import Schema
import SwiftSyntax

/// Evaluated call arguments: label (nil when unlabelled), value, syntax.
struct Arguments {
    var items: [(label: String?, value: Value, syntax: ExprSyntax)]
    func value(_ label: String) -> Value? { items.first { $0.label == label }?.value }
    var unlabelled: [Value] { items.filter { $0.label == nil }.map(\.value) }
}

extension Interpreter {
    func arguments(_ list: LabeledExprListSyntax) async throws -> Arguments {
        var items: [(label: String?, value: Value, syntax: ExprSyntax)] = []
        for argument in list { items.append((argument.label?.text, try await evaluate(argument.expression), argument.expression)) }
        return Arguments(items: items)
    }

    func call(_ e: FunctionCallExprSyntax) async throws -> Value {
        if let ref = e.calledExpression.as(DeclReferenceExprSyntax.self), lookup(ref.baseName.text) == nil {
            return try await callFunction(ref.baseName.text, e)
        }
        if let member = e.calledExpression.as(MemberAccessExprSyntax.self) {
            let name = member.declName.baseName.text
            guard let baseExpr = member.base else { return try await implicitCall(name, e) }
            let base = try await evaluate(baseExpr)
            if base.isNull, baseExpr.is(OptionalChainingExprSyntax.self) { return .null }
            return try await method(name, of: base, baseExpr: baseExpr, e)
        }
        // `[Int]()` and `[String: Int]()`: empty collections.
        if e.arguments.isEmpty, e.trailingClosure == nil {
            if e.calledExpression.is(ArrayExprSyntax.self) { return .array([]) }
            if e.calledExpression.is(DictionaryExprSyntax.self) { return .dictionary([]) }
        }
        throw error("'\(e.calledExpression.trimmedDescription.prefix(40))' cannot be called in prompt files", e)
    }

    /// `name(...)`: print, FoundationModels initializers, conversions, file types.
    func callFunction(_ name: String, _ e: FunctionCallExprSyntax) async throws -> Value {
        switch name {
        case "print":
            let args = try await arguments(e.arguments)
            let separator = args.value("separator")?.stringValue ?? " "
            for value in args.unlabelled where value.isContainer { try budget.value(value, e) }
            let parts = args.unlabelled.map(\.description)
            try budget.string(bytes: parts.reduce(0) { $0 + $1.utf8.count + separator.utf8.count }, e)
            let text = parts.joined(separator: separator)
            try budget.output(bytes: text.utf8.count, e)
            recorder.recordPrint(site(e), text: text, value: args.unlabelled.count == 1 ? args.unlabelled[0] : .string(text))
            return .null
        case "LanguageModelSession":
            return try await makeSession(e)
        case "GenerationOptions":
            let args = try await arguments(e.arguments)
            var options = GenerationOptions()
            if case .samplingMode(let m) = args.value("sampling") ?? args.value("samplingMode") ?? .null { options.samplingMode = m }
            if let given = args.value("temperature"), !given.isNull {
                guard let t = given.number, t.isFinite, t >= 0 else {
                    throw error("temperature must be a finite number of at least 0, not \(given.description.prefix(30))", e)
                }
                options.temperature = t
            }
            if let given = args.value("maximumResponseTokens"), !given.isNull {
                let n = try intArgument(given, "maximumResponseTokens:", e)
                guard n > 0 else { throw error("maximumResponseTokens must be at least 1, not \(n)", e) }
                options.maximumResponseTokens = n
            }
            if case .toolCallingMode(let m) = args.value("toolCallingMode") ?? .null { options.toolCallingMode = m }
            return .options(options)
        case "Locale":
            // Only as an argument of supportsLocale(_:): the identifier is all that matters.
            let args = try await arguments(e.arguments)
            guard let identifier = args.value("identifier")?.stringValue ?? args.unlabelled.first?.stringValue else {
                throw error("Locale needs identifier: (for example Locale(identifier: \"fr_FR\"))", e)
            }
            return .string(identifier)
        case "ContextOptions":
            let args = try await arguments(e.arguments)
            return .structure(type: "ContextOptions", fields: [
                ("includeSchemaInPrompt", args.value("includeSchemaInPrompt") ?? .null),
                ("reasoningLevel", args.value("reasoningLevel") ?? .null),
            ])
        case "Instructions":
            return .instructions(Instructions(try await builderText(e)))
        case "Prompt":
            return .prompt(Prompt(try await builderText(e)))
        case "SystemLanguageModel":
            let args = try await arguments(e.arguments)
            if case .useCase(let useCase) = args.value("useCase") ?? .null { return .model(context.systemModel(useCase: useCase)) }
            return .model(context.systemModel(useCase: .general))
        case "PrivateCloudComputeLanguageModel":
            return .model(context.serverModel())
        case "GeneratedContent":
            let args = try await arguments(e.arguments)
            if let properties = args.value("properties") { return .content(properties.generatedContent) }
            if let json = args.value("json")?.stringValue {
                do { return .content(try GeneratedContent(json: json)) } catch { throw ThrownValue(value: .string("\(error)")) }
            }
            if let first = args.unlabelled.first { return .content(first.generatedContent) }
            return .content(GeneratedContent(kind: .null))
        case "DynamicGenerationSchema":
            return try makeDynamicSchema(try await arguments(e.arguments), e)
        case "GenerationSchema":
            return try makeGenerationSchema(try await arguments(e.arguments), e)
        case "ToolOutput":
            let args = try await arguments(e.arguments)
            return args.unlabelled.first ?? .null
        case "String":
            let args = try await arguments(e.arguments)
            // String(data:encoding:) is optional: nil when the bytes are not valid UTF-8.
            if case .data(let bytes)? = args.value("data") { return String(validating: bytes, as: UTF8.self).map(Value.string) ?? .null }
            if let repeated = args.value("repeating") {
                let given = try intArgument(args.value("count"), "String(repeating:count:)", e)
                let count = try checked(e) { () throws(Arithmetic.Failure) in
                    try Arithmetic.count(given, Arithmetic.negativeCountMessages["String(repeating:count:)"]!)
                }
                return .string(try budget.repeating(repeated.description, count: count, e))
            }
            if let label = args.items.first(where: { $0.label != nil && $0.label != "describing" })?.label {
                // e.g. String(contentsOfFile:): prompt code does not read files; never a silent "".
                throw error("String(\(label):) is not supported in prompt files; supported: String(x), String(describing:), "
                    + "String(repeating:count:), String(data:encoding:)", e)
            }
            if let value = args.value("describing") ?? args.unlabelled.first, value.isContainer { try budget.value(value, e) }
            return .string((args.value("describing") ?? args.unlabelled.first ?? .string("")).description)
        case "Int":
            let args = try await arguments(e.arguments)
            switch args.unlabelled.first {
            case .int(let i): return .int(i)
            case .double(let d): return .int(try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.integer(d) })
            case .string(let s): return Int(s).map(Value.int) ?? .null
            default: throw error("Int(...) needs a number or a string", e)
            }
        case "Array":
            let args = try await arguments(e.arguments)
            if let repeated = args.value("repeating") {
                let given = try intArgument(args.value("count"), "Array(repeating:count:)", e)
                let count = try checked(e) { () throws(Arithmetic.Failure) in
                    try Arithmetic.count(given, Arithmetic.negativeCountMessages["Array(repeating:count:)"]!)
                }
                try budget.allocate(elements: count, e)
                return .array(Array(repeating: repeated, count: count))
            }
            if let label = args.items.first(where: { $0.label != nil })?.label {
                throw error("Array(\(label):) is not supported in prompt files; use Array(repeating:count:) or Array(sequence)", e)
            }
            guard let source = args.unlabelled.first else { return .array([]) }
            switch source {
            case .array(let items): return .array(items)
            case .range(let lower, let upper, let closed):
                let count = try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.rangeCount(lower, upper, closed: closed) }
                try budget.allocate(elements: count, e)
                return .array((0..<count).map { .int(lower + $0) })
            case .string(let s): return .array(s.map { .string(String($0)) })
            case .dictionary(let pairs): return .array(pairs.map { .tuple([(label: "key", value: $0.key), (label: "value", value: $0.value)]) })
            case .content(let c) where c.arrayValue != nil: return .array(c.arrayValue!.map(Value.content))
            default: throw error("Array(...) needs an array, a range, a string or a dictionary", e)
            }
        case "Bool":
            let args = try await arguments(e.arguments)
            switch args.unlabelled.first {
            case .bool(let b): return .bool(b)
            case .string(let s): return Bool(s).map(Value.bool) ?? .null
            default: throw error("Bool(...) needs a Bool or a string", e)
            }
        case "Double", "Float":
            let args = try await arguments(e.arguments)
            if let s = args.unlabelled.first?.stringValue { return Double(s).map(Value.double) ?? .null }
            guard let n = args.unlabelled.first?.number else { throw error("\(name)(...) needs a number or a string", e) }
            return .double(n)
        default:
            guard let type = context.file.resolveType(name, in: nil) else { throw error("cannot find '\(name)' in scope", e) }
            return try await construct(type, e)
        }
    }

    /// The text of `Instructions { ... }` / `Prompt { ... }` / `Instructions("...")`.
    func builderText(_ e: FunctionCallExprSyntax) async throws -> String {
        if let closure = e.trailingClosure { return try await builder(closure.statements).joined(separator: "\n") }
        let args = try await arguments(e.arguments)
        return args.unlabelled.map(promptText).joined(separator: "\n")
    }

    /// Each statement's value in a result builder; `if`, `for` and `switch` contribute their branches.
    func builder(_ items: CodeBlockItemListSyntax) async throws -> [String] {
        var parts: [String] = []
        for item in items {
            switch item.item {
            case .expr(let expr):
                if let ifExpr = expr.as(IfExprSyntax.self) {
                    parts += try await withScope { () -> [String] in
                        if try await conditionsHold(ifExpr.conditions) { return try await builder(ifExpr.body.statements) }
                        switch ifExpr.elseBody {
                        case .codeBlock(let block): return try await builder(block.statements)
                        case .ifExpr(let next): return try await builder(CodeBlockItemListSyntax([CodeBlockItemSyntax(item: .expr(ExprSyntax(next)))]))
                        case nil: return []
                        }
                    }
                } else {
                    let value = try await evaluate(expr)
                    if !value.isNull { parts.append(promptText(value)) }
                }
            case .stmt(let stmt):
                if let loop = stmt.as(ForStmtSyntax.self) {
                    let elements: [Value]
                    switch try await evaluate(loop.sequence) {
                    case .array(let items): elements = items
                    case .range(let lower, let upper, let closed):
                        let count = try checked(loop.sequence) { () throws(Arithmetic.Failure) in
                            try Arithmetic.rangeCount(lower, upper, closed: closed)
                        }
                        guard count <= 10_000 else {
                            throw error("a builder loop needs an array or a range of at most 10000 numbers", loop.sequence)
                        }
                        elements = (0..<count).map { .int(lower + $0) }
                    default: throw error("a builder loop needs an array or a range of at most 10000 numbers", loop.sequence)
                    }
                    for element in elements {
                        parts += try await withScope { () -> [String] in
                            try bind(loop.pattern, to: element)
                            return try await builder(loop.body.statements)
                        }
                    }
                } else if let exprStmt = stmt.as(ExpressionStmtSyntax.self) {
                    parts += try await builder(CodeBlockItemListSyntax([CodeBlockItemSyntax(item: .expr(exprStmt.expression))]))
                } else {
                    throw error("this statement is not supported in a builder", stmt)
                }
            case .decl(let decl):
                guard let variable = decl.as(VariableDeclSyntax.self) else { throw error("declarations are not supported in a builder", decl) }
                try await declare(variable)
            }
        }
        return parts
    }

    /// How a value reads in a prompt: strings as is, Generable values as JSON.
    func promptText(_ value: Value) -> String {
        switch value {
        case .string, .int, .double, .bool, .instructions, .prompt: return value.description
        case .array(let a) where a.allSatisfy({ $0.stringValue != nil }): return a.map(\.description).joined(separator: "\n")
        default: return value.generatedContent.jsonString
        }
    }

    /// A struct's memberwise initializer (plain data, Generable types and tools).
    func construct(_ type: TypeDeclaration, _ e: FunctionCallExprSyntax) async throws -> Value {
        guard type.kind == .struct else { throw error("'\(type.name)' cannot be constructed in prompt files", e) }
        let args = try await arguments(e.arguments)
        // `Type(content)`: a Generable type from GeneratedContent (ConvertibleFromGeneratedContent).
        if args.items.count == 1, args.items[0].label == nil, case .content(let content) = args.items[0].value {
            guard let schema = context.schema(forType: type.qualifiedName) else {
                throw error("'\(type.name)' is not @Generable, so it cannot be made from GeneratedContent", e)
            }
            let problems = schema.violations(of: content)
            guard problems.isEmpty else {
                throw GenerationError.decodingFailure(.init(debugDescription:
                    "\(content.jsonString) is not a \(type.name): " + problems.prefix(3).joined(separator: "; ")))
            }
            return convert(content, schema: schema)
        }
        var fields: [(name: String, value: Value)] = []
        let stored = (type.properties + type.otherProperties).filter { !$0.isStatic && !$0.isComputed }
            .sorted { $0.range.start.offset < $1.range.start.offset }
        var used = Set<String>()
        for property in stored {
            if let given = args.items.first(where: { $0.label == property.name }) {
                fields.append((property.name, given.value.converted(to: property.type)))
                used.insert(property.name)
            } else if let initializer = context.initializer(of: property) {
                fields.append((property.name, try await isolated([:]) { try await evaluate(initializer) }))
            } else if property.type?.isOptional == true {
                fields.append((property.name, .null))
            } else if type.tool != nil, property.name == "name" || property.name == "description" {
                continue
            } else {
                throw error("missing argument '\(property.name)' in call to \(type.name)(...)", e)
            }
        }
        for item in args.items where item.label == nil || !used.contains(item.label!) {
            throw error("\(type.name) has no stored property '\(item.label ?? "_")'", item.syntax)
        }
        let value = Value.structure(type: type.qualifiedName, fields: fields)
        if fields.contains(where: { $0.value.isContainer }) { try budget.value(value, e) }
        return value
    }

    /// `.member(...)` with the type implied: sampling modes, enum cases with payloads.
    func implicitCall(_ name: String, _ e: FunctionCallExprSyntax) async throws -> Value {
        let args = try await arguments(e.arguments)
        switch name {
        case "init" where args.value("referenceTo") != nil || args.value("arrayOf") != nil || args.value("type") != nil:
            return try makeDynamicSchema(args, e)
        case "random":
            var seed: UInt64?
            if let given = args.value("seed"), !given.isNull {
                let i = try intArgument(given, "random(seed:)", e)
                seed = try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.unsigned(i, what: "seed") }
            }
            if let given = args.value("top") {
                let top = try intArgument(given, "random(top:)", e)
                guard top >= 1 else { throw error("random(top:) needs at least 1 token, not \(top)", e) }
                return .samplingMode(.random(top: top, seed: seed))
            }
            if let given = args.value("probabilityThreshold") {
                guard let p = given.number, p.isFinite, p >= 0, p <= 1 else {
                    throw error("random(probabilityThreshold:) needs a number from 0 to 1, not \(given.description.prefix(30))", e)
                }
                return .samplingMode(.random(probabilityThreshold: p, seed: seed))
            }
            throw error("random(...) needs top: or probabilityThreshold:", e)
        default:
            return .enumCase(type: "", name: name, payload: args.items.map { ($0.label, $0.value) })
        }
    }

    // MARK: Methods

    func method(_ name: String, of base: Value, baseExpr: ExprSyntax, _ e: FunctionCallExprSyntax) async throws -> Value {
        switch base {
        case .session(let session):
            switch name {
            case "respond", "streamResponse": return try await modelCall(name, session, e)
            case "prewarm": await session.prewarm(); return .null
            case "logFeedbackAttachment": return try await logFeedbackAttachment(session, e)
            default: break
            }
        case .stream(let stream):
            if name == "collect" { return try await collect(stream) }
        case .model(let model) where name == "tokenCount":
            return try await tokenCount(model, e)
        case .model(let model) where name == "supportsLocale":
            // Locale(identifier: "fr_FR") reaches here as its identifier; no argument means Locale.current,
            // which is English for fmplay's evaluations (they do not depend on the machine's locale).
            let args = try await arguments(e.arguments)
            let identifier = args.items.first.map { $0.value.stringValue ?? promptText($0.value) } ?? "en"
            return .bool(model.supportsLanguage(identifier))
        case .type(let typeName):
            if typeName == "DynamicGenerationSchema", name == "Property" { return try makeDynamicProperty(try await arguments(e.arguments), e) }
            if typeName == "LanguageModelFeedback", name == "Issue" { return try await makeFeedbackIssue(e) }
            if typeName.hasSuffix("SamplingMode") || typeName == "GenerationOptions" { return try await implicitCall(name, e) }
            if let type = context.file.resolveType(typeName, in: nil), type.kind == .enum {
                let args = try await arguments(e.arguments)
                let declared = type.cases.first { $0.name == name }?.associatedValues ?? []
                return .enumCase(type: type.qualifiedName, name: name, payload: args.items.enumerated().map { index, item in
                    (item.label, item.value.converted(to: declared.indices.contains(index) ? declared[index].type : nil))
                })
            }
            if let type = context.file.resolveType(name, in: typeName) { return try await construct(type, e) }
        case .structure(let type, let fields) where name == "value":
            let args = try await arguments(e.arguments)
            guard let property = args.value("forProperty")?.stringValue else { return base }
            guard let field = fields.first(where: { $0.name == property }) else {
                throw ThrownValue(value: .string("\(type) has no property '\(property)'"))
            }
            return field.value
        case .enumCase(let type, let caseName, let payload) where name == "value":
            // The member a dynamic `anyOf:` union generated (or an enum case's labelled
            // associated values): its properties answer like Apple's GeneratedContent.
            let args = try await arguments(e.arguments)
            guard let property = args.value("forProperty")?.stringValue else { return base }
            guard let field = payload.first(where: { $0.label == property }) else {
                throw ThrownValue(value: .string("\(type).\(caseName) has no property '\(property)'"))
            }
            return field.value
        case .content(let c):
            if name == "value" {
                let args = try await arguments(e.arguments)
                guard let property = args.value("forProperty")?.stringValue else { return .content(c) }
                guard let found = c[property] else { throw ThrownValue(value: .string("no property '\(property)' in \(c.jsonString)")) }
                return .content(found)
            }
        default:
            break
        }
        let args = try await arguments(e.arguments)
        let closure = e.trailingClosure
        switch (name, base) {
        case ("uppercased", .string(let s)): return .string(s.uppercased())
        case ("lowercased", .string(let s)): return .string(s.lowercased())
        case ("hasPrefix", .string(let s)): return .bool(s.hasPrefix(args.unlabelled.first?.stringValue ?? ""))
        case ("hasSuffix", .string(let s)): return .bool(s.hasSuffix(args.unlabelled.first?.stringValue ?? ""))
        case ("contains", .string(let s)): return .bool(s.contains(args.unlabelled.first?.stringValue ?? ""))
        case ("split", .string(let s)):
            let separator = args.value("separator")?.stringValue ?? " "
            return .array(s.components(separatedBy: separator).filter { !$0.isEmpty }.map(Value.string))
        case ("replacingOccurrences", .string(let s)):
            let target = args.value("of")?.stringValue ?? "", replacement = args.value("with")?.stringValue ?? ""
            if !target.isEmpty, replacement.utf8.count > target.utf8.count {
                // At most every occurrence grows: bound the result before building it.
                let (grown, overflow) = (s.utf8.count / target.utf8.count).multipliedReportingOverflow(by: replacement.utf8.count)
                if overflow || grown > budget.limits.maximumStringBytes {
                    let occurrences = s.components(separatedBy: target).count - 1
                    try budget.string(bytes: s.utf8.count + occurrences * (replacement.utf8.count - target.utf8.count), e)
                }
            }
            return .string(s.replacingOccurrences(of: target, with: replacement))
        case ("trimmingCharacters", .string(let s)): return .string(s.trimmingCharacters(in: .whitespacesAndNewlines))
        case ("joined", .array(let a)):
            let separator = args.value("separator")?.stringValue ?? ""
            for value in a where value.isContainer { try budget.value(value, e) }
            let parts = a.map(\.description)
            try budget.string(bytes: parts.reduce(0) { $0 + $1.utf8.count + separator.utf8.count }, e)
            return .string(parts.joined(separator: separator))
        case ("contains", .array(let a)):
            let needle = args.unlabelled.first ?? .null
            return .bool(a.contains { Value.equal($0, needle) })
        case ("enumerated", .array(let a)):
            return .array(a.enumerated().map { .tuple([(label: "offset", value: .int($0.offset)), (label: "element", value: $0.element)]) })
        case ("reversed", .array(let a)): return .array(a.reversed())
        case ("sorted", .array(let a)):
            // Cancellation is checked while sorting: a million elements take long in a debug build.
            return .array(try a.sorted { try Task.checkCancellation(); return (Value.compare($0, $1) ?? 0) < 0 })
        case ("prefix", .array(let a)): return .array(Array(a.prefix(try countArgument(name, args, default: nil, e))))
        case ("randomElement", .array(let a)): return a.first ?? .null
        case ("append", .array(var a)):
            if let more = args.value("contentsOf") {
                guard case .array(let items) = more else { throw error("append(contentsOf:) needs an array", e) }
                try budget.allocate(elements: a.count + items.count, e)
                a += items
            } else {
                let item = args.unlabelled.first ?? .null
                if item.isContainer { try budget.value(item, e) }
                try budget.allocate(elements: a.count + 1, e)
                a.append(item)
            }
            try await assign(to: baseExpr, .array(a))
            return .null
        case ("append", .string(let s)):
            let addition = (args.unlabelled.first ?? args.value("contentsOf") ?? .string("")).description
            try budget.string(bytes: s.utf8.count + addition.utf8.count, e)
            try await assign(to: baseExpr, .string(s + addition))
            return .null
        case ("toggle", .bool(let b)):
            try await assign(to: baseExpr, .bool(!b))
            return .null
        case ("insert", .array(var a)):
            guard let item = args.unlabelled.first, case .int(let index)? = args.value("at") else { throw error("insert needs a value and at: index", e) }
            if item.isContainer { try budget.value(item, e) }
            try budget.allocate(elements: a.count + 1, e)
            a.insert(item, at: try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.insertionIndex(index, count: a.count) })
            try await assign(to: baseExpr, .array(a))
            return .null
        case ("remove", .array(var a)):
            guard case .int(let index)? = args.value("at") else { throw error("remove needs at: index", e) }
            let removed = a.remove(at: try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.index(index, count: a.count) })
            try await assign(to: baseExpr, .array(a))
            return removed
        case ("removeLast", .array(var a)), ("removeFirst", .array(var a)):
            guard !a.isEmpty else { throw error("can't remove \(name == "removeLast" ? "last" : "first") element from an empty collection", e) }
            let removed = name == "removeLast" ? a.removeLast() : a.removeFirst()
            try await assign(to: baseExpr, .array(a))
            return removed
        case ("removeAll", .array) where closure == nil:
            try await assign(to: baseExpr, .array([]))
            return .null
        case ("removeValue", .dictionary(var pairs)):
            let key = args.value("forKey") ?? .null
            guard let index = pairs.firstIndex(where: { Value.equal($0.key, key) }) else { return .null }
            let removed = pairs.remove(at: index).value
            try await assign(to: baseExpr, .dictionary(pairs))
            return removed
        case ("max", .array(let a)) where closure == nil && args.items.isEmpty:
            return a.max { (Value.compare($0, $1) ?? 0) < 0 } ?? .null
        case ("min", .array(let a)) where closure == nil && args.items.isEmpty:
            return a.min { (Value.compare($0, $1) ?? 0) < 0 } ?? .null
        case ("dropFirst", .array(let a)): return .array(Array(a.dropFirst(try countArgument(name, args, default: 1, e))))
        case ("dropLast", .array(let a)): return .array(Array(a.dropLast(try countArgument(name, args, default: 1, e))))
        case ("suffix", .array(let a)): return .array(Array(a.suffix(try countArgument(name, args, default: nil, e))))
        case ("firstIndex", .array(let a)):
            let needle = args.value("of") ?? .null
            return a.firstIndex { Value.equal($0, needle) }.map(Value.int) ?? .null
        case ("map", .array(let a)), ("filter", .array(let a)), ("compactMap", .array(let a)), ("forEach", .array(let a)):
            guard let closure = closure ?? args.items.first.flatMap({ $0.syntax.as(ClosureExprSyntax.self) }) else {
                throw error("\(name) needs a closure", e)
            }
            var results: [Value] = []
            for element in a {
                let result = try await apply(closure, [element])
                switch name {
                case "filter": if case .bool(true) = result { results.append(element) }
                case "compactMap": if !result.isNull { results.append(result) }
                default: results.append(result)
                }
            }
            return name == "forEach" ? .null : .array(results)
        case ("index", .dictionary), ("contains", .dictionary(_)):
            break
        default:
            break
        }
        throw error("'\(name)(...)' is not available on \(base.description.prefix(40)) in prompt files", e)
    }

    /// The count argument of `prefix`/`suffix`/`dropFirst`/`dropLast`: an Int, never negative.
    func countArgument(_ name: String, _ args: Arguments, default value: Int?, _ e: FunctionCallExprSyntax) throws -> Int {
        let given = args.unlabelled.first
        if given == nil, let value { return value }
        let n = try intArgument(given, "\(name)(_:)", e)
        return try checked(e) { () throws(Arithmetic.Failure) in try Arithmetic.count(n, Arithmetic.negativeCountMessages[name]!) }
    }

    /// Calls a closure literal with positional arguments (`$0` or named parameters).
    func apply(_ closure: ClosureExprSyntax, _ values: [Value]) async throws -> Value {
        try await withScope {
            var names: [String] = []
            if let parameters = closure.signature?.parameterClause {
                switch parameters {
                case .simpleInput(let list): names = list.map(\.name.text)
                case .parameterClause(let clause): names = clause.parameters.map { ($0.secondName ?? $0.firstName).text }
                }
            }
            for (index, value) in values.enumerated() {
                define("$\(index)", value)
                if index < names.count { define(names[index], value) }
            }
            return try await runBody(closure.statements)
        }
    }

    /// Runs a function-like body: a single expression is its value (implicit
    /// return), otherwise the value of `return`, else nil.
    func runBody(_ statements: CodeBlockItemListSyntax) async throws -> Value {
        if statements.count == 1, case .expr(let expr) = statements.first!.item,
           !expr.is(IfExprSyntax.self), !expr.is(SwitchExprSyntax.self) {
            return try await evaluate(expr)
        }
        if case .returned(let value) = try await execute(statements) { return value }
        return .null
    }
}
