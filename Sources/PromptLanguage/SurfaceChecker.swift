import Foundation
import Surface
import SwiftSyntax

/// FM310 and FM311: members, argument labels, cases and imports checked
/// against `Surface.table`, the same table the evaluator dispatches on, so an
/// API form that would fail at run time is a lint error with a did-you-mean
/// fix-it instead.
///
/// Types are inferred only where they are certain: literals, table
/// initializers, members whose table entry names a result type, and names
/// bound exactly once (or always to the same type) in the file. Anything else
/// (closure and loop parameters, file types, generic content) is not checked
/// here; the evaluator reports it when it runs.
struct SurfaceChecker {
    let file: PromptFile
    var table: SurfaceTable { Surface.table }

    func run() -> (diagnostics: [Diagnostic], inference: SurfaceInference) {
        // One walk collects the bindings and the nodes to check; the checks run after it, when every binding is known.
        let inference = SurfaceInference(file: file)
        let checker = SurfaceVisitor(file: file, inference: inference)
        for node in inference.imports { checker.check(node) }
        for node in inference.memberAccesses { checker.check(node) }
        for node in inference.calls { checker.check(node) }
        return (checker.diagnostics, inference)
    }
}

/// What an expression denotes, when certain.
public enum InferredType: Equatable, Sendable {
    /// A value of a table type (canonical name).
    case instance(String)
    /// A table type used as a value (`SystemLanguageModel`, `GenerationOptions.SamplingMode`).
    case metatype(String)
}

/// Every name bound in the file, with the expression or annotation it was bound to.
final class BindingCollector: SyntaxVisitor {
    /// `unwrapped` is `if let x = optional`: x has the optional's wrapped type.
    /// `element(sequence)`: a `for` loop's variable, an element of that sequence.
    enum Source { case expression(ExprSyntax), unwrapped(ExprSyntax), element(ExprSyntax), annotation(TypeSyntax), unknown }
    let file: PromptFile
    var bindings: [String: [Source]] = [:]
    var imports: [ImportDeclSyntax] = []
    var memberAccesses: [MemberAccessExprSyntax] = []
    var calls: [FunctionCallExprSyntax] = []

    init(file: PromptFile) {
        self.file = file
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: AttributeListSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
        imports.append(node)
        return .skipChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        memberAccesses.append(node)
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        calls.append(node)
        return .visitChildren
    }

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
            if let type = node.typeAnnotation?.type {
                bindings[name, default: []].append(.annotation(type))
            } else if let value = node.initializer?.value {
                bindings[name, default: []].append(.expression(value))
            } else {
                bindings[name, default: []].append(.unknown)
            }
            return .visitChildren
        }
        return .visitChildren
    }

    /// Every other binding (`for x in`, `if let x`, `case let x`, catch, closure and function parameters) has an unknown type.
    override func visit(_ node: IdentifierPatternSyntax) -> SyntaxVisitorContinueKind {
        if let loop = node.parent?.as(ForStmtSyntax.self), loop.pattern.id == node.id {
            bindings[node.identifier.text, default: []].append(.element(loop.sequence))
        } else if node.parent?.is(PatternBindingSyntax.self) != true {
            bindings[node.identifier.text, default: []].append(.unknown)
        }
        return .visitChildren
    }

    override func visit(_ node: ClosureShorthandParameterSyntax) -> SyntaxVisitorContinueKind {
        bindings[node.name.text, default: []].append(.unknown)
        return .visitChildren
    }

    override func visit(_ node: ClosureParameterSyntax) -> SyntaxVisitorContinueKind {
        bindings[(node.secondName ?? node.firstName).text, default: []].append(.unknown)
        return .visitChildren
    }

    /// Function and initializer parameters are not file-wide bindings: `SurfaceInference.parameterLookup`
    /// resolves a name inside the function to its parameter (so a parameter named `session` does not
    /// hide the type of a `session` variable elsewhere).
    override func visit(_ node: FunctionParameterSyntax) -> SyntaxVisitorContinueKind {
        let isDeclarationParameter = node.parent?.parent?.parent.map { $0.is(FunctionSignatureSyntax.self) } ?? false
        if !isDeclarationParameter { bindings[(node.secondName ?? node.firstName).text, default: []].append(.unknown) }
        return .visitChildren
    }

    override func visit(_ node: OptionalBindingConditionSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
            // `if let x = optional` binds the unwrapped value: the same type as the optional's table type.
            bindings[name, default: []].append(node.initializer.map { .unwrapped($0.value) } ?? .unknown)
        }
        return .visitChildren
    }
}

private final class SurfaceVisitor {
    let file: PromptFile
    let inference: SurfaceInference
    var diagnostics: [Diagnostic] = []
    private var table: SurfaceTable { Surface.table }
    private var source: SourceText { file.source }

    /// Members the file's extensions add to table types (`extension String { var isBlank: Bool }`).
    let extensionMembers: [String: Set<String>]

    init(file: PromptFile, inference: SurfaceInference) {
        self.file = file
        self.inference = inference
        var members: [String: Set<String>] = [:]
        for item in file.syntax.statements {
            guard let node = item.item.as(ExtensionDeclSyntax.self) else { continue }
            let type = SupportedSwiftChecker.extendedTypeName(node.extendedType.trimmedText)
            for member in node.memberBlock.members {
                if let function = member.decl.as(FunctionDeclSyntax.self) { members[type, default: []].insert(function.name.text) }
                if let variable = member.decl.as(VariableDeclSyntax.self) {
                    for binding in variable.bindings {
                        if let name = binding.pattern.as(IdentifierPatternSyntax.self) { members[type, default: []].insert(name.identifier.text) }
                    }
                }
                if member.decl.is(InitializerDeclSyntax.self) { members[type, default: []].insert("init") }
            }
        }
        extensionMembers = members
    }

    // MARK: Imports

    func check(_ node: ImportDeclSyntax) {
        let name = node.path.map(\.name.text).joined(separator: ".")
        guard let first = node.path.first?.name.text, table.module(named: first) == nil, !node.hasError else { return }
        let known = table.modules.map(\.name)
        let suggestion = SurfaceTable.closest(to: first, among: known)
        var fixIts: [FixIt] = []
        if let suggestion, let token = node.path.first?.name {
            fixIts.append(FixIt(title: "import \(suggestion)", edits: [TextEdit(range: source.range(of: token), newText: suggestion)]))
        }
        fixIts.append(FixIt(title: "remove the import", edits: [FixItFactory(source: source).deleteLine(containing: source.range(of: node))]))
        diagnostics.append(Diagnostic(
            .unknownImport, at: source.range(of: node),
            "prompt files cannot import '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ".")
                + " Known modules: " + known.joined(separator: ", "),
            fixIts: fixIts))
    }

    // MARK: Members and calls

    func check(_ node: MemberAccessExprSyntax) {
        // Callees are checked with their labels in check(FunctionCallExprSyntax).
        if let call = node.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == node.id { return }
        let name = node.declName.baseName.text
        if node.base == nil, let type = expectedType(ofImplicit: ExprSyntax(node)) { return checkImplicit(node, nil, against: type) }
        guard name != "self", let base = node.base, var baseType = inference.type(of: base) else { return }
        // `optional.map`, `optional.flatMap`: members of Optional itself, not of the wrapped type.
        if inference.isOptional(base) { baseType = .instance("Optional") }
        switch baseType {
        case .instance(let type):
            switch table.resolveValue(type: type, name: name, isStatic: false) {
            case .unknownMember(let suggestion) where !hasDynamicMembers(type):
                unknownMember(node.declName.baseName, name, on: type, suggestion: suggestion, isStatic: false)
            case .found(let entry): notInAppleAPI(entry, node.declName.baseName)
            default: break
            }
        case .metatype(let type):
            if name == "self" || table.type(named: type + "." + name) != nil { break }
            if case .unknownMember(let suggestion) = table.resolveValue(type: type, name: name, isStatic: true) {
                unknownMember(node.declName.baseName, name, on: type, suggestion: suggestion, isStatic: true)
            }
        }
    }

    func check(_ node: FunctionCallExprSyntax) {
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self), member.base == nil {
            // `options.sampling = .random(top: 3)`, `let mode: T = .random(...)`: checked against the type the context gives.
            if let type = expectedType(ofImplicit: ExprSyntax(node)) { checkImplicit(member, node, against: type) }
            return
        }
        let labels = node.arguments.map { $0.label?.text }
        let trailing = node.trailingClosure != nil
        var resolution: SurfaceTable.Resolution?
        var calleeName: TokenSyntax?
        var typeName = ""
        var isStatic = true
        if let reference = node.calledExpression.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            calleeName = reference.baseName
            if case .metatype(let type)? = inference.type(of: node.calledExpression) {
                typeName = type
                resolution = table.resolveCall(type: type, name: "init", labels: labels, trailingClosure: trailing, isStatic: true)
            } else if !inference.isBound(name), table.functions.contains(where: { $0.name == name }) {
                resolution = table.resolveFunction(name: name, labels: labels, trailingClosure: trailing)
            }
        } else if let member = node.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base {
            let name = member.declName.baseName.text
            calleeName = member.declName.baseName
            switch inference.isOptional(base) ? .instance("Optional") : inference.type(of: base) {
            case .instance(let type)?:
                typeName = type
                isStatic = false
                if !(hasDynamicMembers(type) && table.members(of: type, named: name, isStatic: false).isEmpty) {
                    resolution = table.resolveCall(type: type, name: name, labels: labels, trailingClosure: trailing, isStatic: false)
                }
            case .metatype(let type)?:
                if name == "init" || table.type(named: type + "." + name) != nil {
                    typeName = name == "init" ? type : type + "." + name
                    resolution = table.resolveCall(type: typeName, name: "init", labels: labels, trailingClosure: trailing, isStatic: true)
                } else {
                    typeName = type
                    resolution = table.resolveCall(type: type, name: name, labels: labels, trailingClosure: trailing, isStatic: true)
                }
            case nil:
                break
            }
        }
        guard let resolution, let calleeName else { return }
        report(resolution, node, callee: calleeName, typeName: typeName, isStatic: isStatic)
    }

    private func report(_ resolution: SurfaceTable.Resolution, _ node: FunctionCallExprSyntax, callee: TokenSyntax, typeName: String, isStatic: Bool) {
        switch resolution {
        case .found(let entry):
            notInAppleAPI(entry, callee)
            checkImplicitArguments(node, entry)
        case .unknownMember where callee.text == typeName || callee.text == "init" || typeName.hasSuffix("." + callee.text):
            // `StructuredTranscript(prompts:)`, `Transcript.Reasoning(...)`: the type is known but has no initializer prompt
            // files can call (a type with initializers gives noMatchingOverload, which lists them).
            let written = "(" + node.arguments.map { ($0.label?.text ?? "_") + ":" }.joined() + ")"
            diagnostics.append(Diagnostic(
                .unknownMember, at: source.range(of: callee),
                "'\(typeName)' cannot be created with \(typeName)\(written) in prompt files: it has no initializer here; "
                    + "use the values the framework gives you (see its members with completion or `fmplay explain FM310`)"))
        case .unknownMember(let suggestion):
            unknownMember(callee, callee.text, on: typeName, suggestion: suggestion, isStatic: isStatic)
        case .noMatchingOverload(let candidates, _) where Self.isPattern(node)
            && candidates.contains(where: { $0.kind == .enumCase && ($0.parameters?.count ?? 0) == node.arguments.count }):
            // `catch EvaluationError.missingTranscript(let type)`: a pattern may leave out a payload's labels.
            return
        case .noMatchingOverload(let candidates, let unknownLabel):
            let shown = candidates.first?.kind == .initializer ? typeName : (candidates.first?.name ?? callee.text)
            let forms = candidates.map { shown + "(" + ($0.parameters ?? []).map { ($0.label ?? "_") + ":" }.joined() + ")" }
            let written = "(" + node.arguments.map { ($0.label?.text ?? "_") + ":" }.joined() + ")"
            if let unknownLabel, let argument = node.arguments.dropFirst(unknownLabel.index).first {
                var fixIts: [FixIt] = []
                if let suggestion = unknownLabel.suggestion, let label = argument.label {
                    fixIts.append(FixIt(title: "use '\(suggestion):'", edits: [TextEdit(range: source.range(of: label), newText: suggestion)]))
                }
                let what = unknownLabel.label.map { "argument label '\($0):'" } ?? "unlabelled argument"
                diagnostics.append(Diagnostic(
                    .unknownMember, at: source.range(of: argument.label.map(Syntax.init) ?? Syntax(argument)),
                    "\(shown) has no \(what) in prompt files" + (unknownLabel.suggestion.map { "; did you mean '\($0):'?" } ?? "")
                        + " Supported forms: " + forms.joined(separator: ", "),
                    fixIts: fixIts))
            } else {
                diagnostics.append(Diagnostic(
                    .unknownMember, at: source.range(of: node),
                    "no form of \(shown) takes \(written)\(node.trailingClosure != nil ? " with a trailing closure" : ""); supported forms: "
                        + forms.joined(separator: ", ")))
            }
        }
    }

    /// Whether a call is written as a pattern (`catch X.y(let a)`, `case .y(let a)`), where payload labels may be left out.
    static func isPattern(_ node: FunctionCallExprSyntax) -> Bool {
        var current = node.parent
        while let syntax = current {
            if syntax.is(CatchItemSyntax.self) || syntax.is(ExpressionPatternSyntax.self) { return true }
            if syntax.is(CodeBlockSyntax.self) || syntax.is(ClosureExprSyntax.self) { return false }
            current = syntax.parent
        }
        return false
    }

    /// `.greedy`, `.random(top:)` as arguments (and `[.year, .month]` elements): checked against the parameter's type.
    private func checkImplicitArguments(_ node: FunctionCallExprSyntax, _ entry: SurfaceMember) {
        guard let parameters = entry.parameters,
              let positions = SurfaceTable.positions(parameters, labels: node.arguments.map { $0.label?.text }) else { return }
        for (argument, position) in zip(node.arguments, positions) {
            for element in Self.implicitMembers(argument.expression) {
                checkImplicit(element.member, element.call, against: parameters[position].type)
            }
        }
    }

    /// The implicit member itself, or those an array literal lists (an option set, a set of components).
    static func implicitMembers(_ expression: ExprSyntax) -> [(member: MemberAccessExprSyntax, call: FunctionCallExprSyntax?)] {
        if let array = expression.as(ArrayExprSyntax.self) { return array.elements.flatMap { implicitMembers($0.expression) } }
        if let call = expression.as(FunctionCallExprSyntax.self), let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.base == nil {
            return [(member, call)]
        }
        if let member = expression.as(MemberAccessExprSyntax.self), member.base == nil { return [(member, nil)] }
        return []
    }

    /// The type an implicit member (`.member`, `.member(...)`, or one element of `[.member, ...]`) must belong to, when the
    /// context states it: the right of `value.property =` (the property's table type) or a binding's type annotation
    /// (`let mode: GenerationOptions.SamplingMode = .greedy`). Arguments are checked with their call (`checkImplicitArguments`).
    private func expectedType(ofImplicit node: ExprSyntax) -> String? {
        var value = node
        if let list = node.parent?.as(ArrayElementSyntax.self)?.parent?.as(ArrayElementListSyntax.self)?.parent?.as(ArrayExprSyntax.self) {
            value = ExprSyntax(list)
        }
        if let binding = value.parent?.as(InitializerClauseSyntax.self)?.parent?.as(PatternBindingSyntax.self),
           let annotation = binding.typeAnnotation?.type.trimmedDescription {
            return annotation
        }
        guard let elements = value.parent?.as(ExprListSyntax.self), value.parent?.parent?.is(SequenceExprSyntax.self) == true else { return nil }
        let items = Array(elements)
        guard let index = items.firstIndex(where: { $0.id == value.id }), index >= 2, items[index - 1].is(AssignmentExprSyntax.self),
              let target = items[index - 2].as(MemberAccessExprSyntax.self), let base = target.base,
              case .instance(let type)? = inference.type(of: base), !inference.isOptional(base),
              case .found(let entry) = table.resolveValue(type: type, name: target.declName.baseName.text, isStatic: false) else { return nil }
        return entry.result
    }

    /// One implicit member (or implicit call) against the type the context expects.
    private func checkImplicit(_ member: MemberAccessExprSyntax, _ call: FunctionCallExprSyntax?, against expected: String) {
        var type = expected
        let isOptional = type.hasSuffix("?")
        if isOptional { type.removeLast() }
        // `[T]` and `Set<T>` take array literals of T.
        if type.hasPrefix("["), type.hasSuffix("]"), !type.contains(":") { type = String(type.dropFirst().dropLast()) }
        if type.hasPrefix("Set<"), type.hasSuffix(">") { type = String(type.dropFirst(4).dropLast()) }
        guard let canonical = table.canonicalName(type) else { return }
        let name = member.declName.baseName.text
        if name == "init" || (isOptional && (name == "none" || name == "some")) { return }
        let resolution = call.map {
            table.resolveCall(type: canonical, name: name, labels: $0.arguments.map { $0.label?.text }, trailingClosure: $0.trailingClosure != nil, isStatic: true)
        } ?? table.resolveValue(type: canonical, name: name, isStatic: true)
        if case .unknownMember(let suggestion) = resolution {
            unknownMember(member.declName.baseName, name, on: canonical, suggestion: suggestion, isStatic: true)
        } else if let call, case .noMatchingOverload = resolution {
            report(resolution, call, callee: member.declName.baseName, typeName: canonical, isStatic: true)
        }
    }

    /// FM316: a table entry that is fmplay's own name; its documentation says what Apple's API writes instead.
    private func notInAppleAPI(_ entry: SurfaceMember, _ token: TokenSyntax) {
        guard entry.availability == .fmplay else { return }
        diagnostics.append(Diagnostic(
            .notInAppleAPI, at: source.range(of: token),
            "'\(entry.name)' on \(entry.owner) is fmplay's own name, not in Apple's FoundationModels (code using it does not compile "
                + "with Apple's SDK). \(entry.documentation)"))
    }

    private func unknownMember(_ token: TokenSyntax, _ name: String, on type: String, suggestion: String?, isStatic: Bool) {
        if extensionMembers[type]?.contains(name) == true || name == "init" { return }
        let range = source.range(of: token)
        let what = isStatic ? "type '\(type)'" : "'\(type)'"
        diagnostics.append(Diagnostic(
            .unknownMember, at: range,
            "\(what) has no member '\(name)' in prompt files" + (suggestion.map { "; did you mean '\($0)'?" } ?? "; see the supported members with completion or `fmplay explain FM310`"),
            fixIts: suggestion.map { [FixIt(title: "use '\($0)'", edits: [TextEdit(range: range, newText: $0)])] } ?? []))
    }

    private func hasDynamicMembers(_ type: String) -> Bool {
        // SessionPropertyValues answers the file's @SessionPropertyEntry names.
        type == "GeneratedContent" || type == "LanguageModelSession.ResponseStream.Snapshot" || type == "SessionPropertyValues"
    }
}

/// The types `SurfaceChecker`, hover and completion infer: literals, table
/// initializers, members whose entry names a result type, and names every
/// binding of which agrees. Built once per analysed file.
public final class SurfaceInference: @unchecked Sendable {
    let file: PromptFile
    /// Guards the cache (recursive: inference recurses through bindings).
    private let lock = NSRecursiveLock()
    let bindings: [String: [BindingCollector.Source]]
    /// The nodes `SurfaceChecker` checks, collected in the same walk as the bindings.
    let imports: [ImportDeclSyntax]
    let memberAccesses: [MemberAccessExprSyntax]
    let calls: [FunctionCallExprSyntax]
    private var inferred: [String: InferredType?] = [:]
    private var resolving: Set<String> = []
    var table: SurfaceTable { Surface.table }

    public init(file: PromptFile) {
        self.file = file
        let collector = BindingCollector(file: file)
        collector.walk(file.syntax)
        bindings = collector.bindings
        imports = collector.imports
        memberAccesses = collector.memberAccesses
        calls = collector.calls
    }

    /// Whether the file binds the name anywhere (a variable, parameter or pattern).
    public func isBound(_ name: String) -> Bool { bindings[name] != nil }

    public func type(of expression: ExprSyntax) -> InferredType? {
        lock.lock()
        defer { lock.unlock() }
        if let inner = expression.as(TryExprSyntax.self) { return type(of: inner.expression) }
        if let inner = expression.as(AwaitExprSyntax.self) { return type(of: inner.expression) }
        if let inner = expression.as(ForceUnwrapExprSyntax.self) { return type(of: inner.expression) }
        if let inner = expression.as(OptionalChainingExprSyntax.self) { return type(of: inner.expression) }
        if let tuple = expression.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first, only.label == nil {
            return type(of: only.expression)
        }
        if expression.is(StringLiteralExprSyntax.self) { return .instance("String") }
        if expression.is(IntegerLiteralExprSyntax.self) { return .instance("Int") }
        if expression.is(FloatLiteralExprSyntax.self) { return .instance("Double") }
        if expression.is(BooleanLiteralExprSyntax.self) { return .instance("Bool") }
        if expression.is(ArrayExprSyntax.self) { return .instance("Array") }
        if expression.is(DictionaryExprSyntax.self) { return .instance("Dictionary") }
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            switch parameterLookup(reference) {
            case .typed(let written, let scope): return file.resolveType(written.trimmedText, in: scope) == nil ? annotatedType(written) : nil
            case .unknown: return nil
            case .notAParameter: return inferName(reference.baseName.text)
            }
        }
        if let member = expression.as(MemberAccessExprSyntax.self) {
            if let (type, _) = fileMemberType(member) { return type }
            guard let base = member.base, let baseType = type(of: base) else { return nil }
            let name = member.declName.baseName.text
            if name == "self" { return baseType }
            switch baseType {
            case .instance(let type):
                guard case .found(let entry) = table.resolveValue(type: type, name: name, isStatic: false), !entry.isCallable else { return nil }
                return instanceType(entry.result)
            case .metatype(let type):
                if table.type(named: type + "." + name) != nil { return .metatype(table.canonicalName(type + "." + name)!) }
                guard case .found(let entry) = table.resolveValue(type: type, name: name, isStatic: true) else { return nil }
                return instanceType(entry.result)
            }
        }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            let labels = call.arguments.map { $0.label?.text }
            if call.calledExpression.is(DeclReferenceExprSyntax.self), case .metatype(let type)? = type(of: call.calledExpression) {
                return .instance(type)
            }
            guard let member = call.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base, let baseType = type(of: base) else { return nil }
            let name = member.declName.baseName.text
            switch baseType {
            case .instance(let type):
                guard case .found(let entry) = table.resolveCall(type: type, name: name, labels: labels, trailingClosure: call.trailingClosure != nil,
                                                                   isStatic: false) else { return nil }
                return instanceType(entry.result)
            case .metatype(let type):
                if name == "init" { return .instance(type) }
                if let nested = table.canonicalName(type + "." + name) { return .instance(nested) }
                guard case .found(let entry) = table.resolveCall(type: type, name: name, labels: labels, trailingClosure: call.trailingClosure != nil,
                                                                   isStatic: true) else { return nil }
                return instanceType(entry.result)
            }
        }
        return nil
    }

    /// A table result type as an inferred instance: `T?` as `T`, `[T]` as Array; nil when not a table type.
    /// Whether an expression's value is an Optional, so that `value.name` names a member of Optional
    /// (`map`, `flatMap`...) rather than of the wrapped type: a name annotated `T?` (and not rebound
    /// by `if let`), a table member or method whose result is `T?`, `dictionary[key]`. `x?.name` and `x!.name` unwrap.
    /// `result.detailed[evaluation.expectedColumn]` (or a name bound to it): a column of Evaluations' detailed
    /// DataFrame, whose cells are optional (`expected[row].map(String.init) ?? "?"`).
    func isDataFrameColumn(_ expression: ExprSyntax, depth: Int = 0) -> Bool {
        guard depth < 16 else { return false }
        if let subscriptCall = expression.as(SubscriptCallExprSyntax.self) {
            if type(of: subscriptCall.calledExpression) == .instance("DataFrame") { return true }
            // `x.detailed[e.expectedColumn]`, `x.detailed[metric: m]` where x's type is not inferred (`try await E().run()`).
            guard subscriptCall.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "detailed",
                  let argument = subscriptCall.arguments.first, subscriptCall.arguments.count == 1 else { return false }
            if argument.label?.text == "metric" { return true }
            let column = argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
            return ["inputColumn", "responseColumn", "expectedColumn"].contains(column ?? "")
        }
        // A name: the nearest `let`/`var` before it in its enclosing statements (names repeat across a file's closures).
        guard let reference = expression.as(DeclReferenceExprSyntax.self), case .notAParameter = parameterLookup(reference),
              let value = Self.nearestInitializer(of: reference.baseName.text, before: Syntax(reference)) else { return false }
        return isDataFrameColumn(value, depth: depth + 1)
    }

    /// The initializer of the nearest `let`/`var` declaring `name` before `node` in the statement lists around it.
    static func nearestInitializer(of name: String, before node: Syntax) -> ExprSyntax? {
        var current = node
        while let parent = current.parent {
            if let list = parent.as(CodeBlockItemListSyntax.self) {
                for item in list.reversed() where item.position < current.position {
                    guard case .decl(let decl) = item.item, let variable = decl.as(VariableDeclSyntax.self) else { continue }
                    for binding in variable.bindings where binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name {
                        return binding.initializer?.value
                    }
                }
            }
            current = parent
        }
        return nil
    }

    public func isOptional(_ expression: ExprSyntax) -> Bool {
        if let inner = expression.as(TryExprSyntax.self) { return isOptional(inner.expression) }
        if let inner = expression.as(AwaitExprSyntax.self) { return isOptional(inner.expression) }
        if let tuple = expression.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first, only.label == nil {
            return isOptional(only.expression)
        }
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            switch parameterLookup(reference) {
            case .typed(let written, _): return written.is(OptionalTypeSyntax.self)
            case .unknown: return false
            case .notAParameter: break
            }
            guard let sources = bindings[reference.baseName.text], !sources.isEmpty else { return false }
            return sources.allSatisfy { source in
                switch source {
                case .annotation(let type): type.is(OptionalTypeSyntax.self)
                case .expression(let value): value.id != expression.id && isOptional(value)
                case .unwrapped, .element, .unknown: false
                }
            }
        }
        if let subscriptCall = expression.as(SubscriptCallExprSyntax.self) {  // `dictionary[key]` is `Value?`
            if isDataFrameColumn(subscriptCall.calledExpression) { return true }  // a detailed DataFrame column's cells are `T?`
            return !subscriptCall.arguments.contains { $0.label != nil } && type(of: subscriptCall.calledExpression) == .instance("Dictionary")
        }
        // Every property of a partially generated value is optional (`partial.content.title` is `String?`).
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base, isPartiallyGenerated(base) { return true }
        if let member = expression.as(MemberAccessExprSyntax.self), let (_, isOptional) = fileMemberType(member) { return isOptional }
        let member: MemberAccessExprSyntax?
        let call = expression.as(FunctionCallExprSyntax.self)
        if let call { member = call.calledExpression.as(MemberAccessExprSyntax.self) } else { member = expression.as(MemberAccessExprSyntax.self) }
        guard let member, let base = member.base, !isOptional(base), case .instance(let type)? = self.type(of: base) else { return false }
        let name = member.declName.baseName.text
        let resolution = call.map {
            table.resolveCall(type: type, name: name, labels: $0.arguments.map { $0.label?.text }, trailingClosure: $0.trailingClosure != nil, isStatic: false)
        } ?? table.resolveValue(type: type, name: name, isStatic: false)
        guard case .found(let entry) = resolution else { return false }
        return entry.result?.hasSuffix("?") == true
    }

    func instanceType(_ result: String?) -> InferredType? {
        guard var type = result else { return nil }
        if type.hasSuffix("?") { type.removeLast() }
        if type.hasPrefix("[") { return type.contains(":") && !type.hasPrefix("[(") ? .instance("Dictionary") : .instance("Array") }
        if let open = type.firstIndex(of: "<"), type.hasSuffix(">") { type = String(type[..<open]) }  // Set<Element> is Set
        return table.canonicalName(type).map(InferredType.instance)
    }

    /// A name: a variable bound in the file (only when every binding agrees), else a table type not shadowed by the file.
    func inferName(_ name: String) -> InferredType? {
        if let sources = bindings[name] {
            if let known = inferred[name] { return known }
            guard !resolving.contains(name) else { return nil }
            resolving.insert(name)
            defer { resolving.remove(name) }
            var result: InferredType?
            for (index, binding) in sources.enumerated() {
                let bound: InferredType?
                switch binding {
                case .expression(let value), .unwrapped(let value): bound = type(of: value)
                case .element(let sequence): bound = elementType(of: sequence)
                case .annotation(let annotation): bound = annotatedType(annotation)
                case .unknown: bound = nil
                }
                guard let bound, case .instance = bound, index == 0 || bound == result else {
                    result = nil
                    break
                }
                result = bound
            }
            inferred[name] = .some(result)
            return result
        }
        if file.resolveType(name, in: nil) != nil { return nil }
        return table.canonicalName(name).map(InferredType.metatype)
    }

    func annotatedType(_ type: TypeSyntax) -> InferredType? {
        if let optional = type.as(OptionalTypeSyntax.self) { return annotatedType(optional.wrappedType) }
        if type.is(ArrayTypeSyntax.self) { return .instance("Array") }
        if type.is(DictionaryTypeSyntax.self) { return .instance("Dictionary") }
        // `Set<String>`, `Array<Int>`: the table describes the generic type once, whatever its arguments.
        if let generic = type.as(IdentifierTypeSyntax.self), generic.genericArgumentClause != nil {
            if file.resolveType(generic.name.text, in: nil) != nil { return nil }
            return table.canonicalName(generic.name.text).map(InferredType.instance)
        }
        let text = type.trimmedText
        if file.resolveType(text, in: nil) != nil { return nil }
        return table.canonicalName(text).map(InferredType.instance)
    }
}
