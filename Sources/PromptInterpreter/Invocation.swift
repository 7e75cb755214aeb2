import SwiftSyntax

/// The one call mechanism: free, local and nested functions, methods,
/// initializers and closures all go through `invoke`.
extension Interpreter {
    /// Calls nested deeper than this are a runtime error (unbounded recursion must not crash the process).
    static let maximumCallDepth = 400

    /// The arguments written at a call site: labelled values, `&x`, trailing closures.
    func callArguments(_ arguments: LabeledExprListSyntax, trailing: ClosureExprSyntax? = nil,
                       additional: MultipleTrailingClosureElementListSyntax? = nil) async throws -> [CallArgument] {
        var result: [CallArgument] = []
        for argument in arguments {
            if let inOut = argument.expression.as(InOutExprSyntax.self) {
                result.append(CallArgument(label: argument.label?.text, value: try await evaluate(inOut.expression),
                                           syntax: argument.expression, inoutTarget: inOut.expression))
            } else {
                result.append(CallArgument(label: argument.label?.text, value: try await evaluate(argument.expression), syntax: argument.expression))
            }
        }
        if let trailing {
            result.append(CallArgument(label: nil, value: .function(makeClosure(trailing)), syntax: ExprSyntax(trailing), isTrailing: true))
        }
        for extra in additional ?? [] {
            result.append(CallArgument(label: extra.label.text, value: .function(makeClosure(extra.closure)),
                                       syntax: ExprSyntax(extra.closure), isTrailing: true))
        }
        return result
    }

    package func callArguments(_ call: FunctionCallExprSyntax) async throws -> [CallArgument] {
        try await callArguments(call.arguments, trailing: call.trailingClosure, additional: call.additionalTrailingClosures)
    }

    /// A closure literal as a value; it captures the current scopes (by reference) and `self`.
    package func makeClosure(_ closure: ClosureExprSyntax) -> FunctionValue {
        var parameters: [Parameter] = []
        if let clause = closure.signature?.parameterClause {
            switch clause {
            case .simpleInput(let list): parameters = list.map { Parameter(label: nil, name: $0.name.text == "_" ? nil : $0.name.text) }
            case .parameterClause(let clause):
                parameters = clause.parameters.map {
                    let name = ($0.secondName ?? $0.firstName).text
                    return Parameter(label: nil, name: name == "_" ? nil : name, type: $0.type)
                }
            }
        }
        let function = FunctionValue(name: "closure", parameters: parameters, body: .statements(closure.statements), captured: currentScopes,
                                     selfCell: lookupCell("self"), typeName: currentTypeName, isClosure: true,
                                     resultType: closure.signature?.returnClause?.type)
        if parameters.isEmpty {
            // `$1` in a closure given one tuple spreads the tuple (`zip(a, b).map { $0 + $1 }`).
            for token in closure.statements.tokens(viewMode: .sourceAccurate) {
                if case .dollarIdentifier(let text) = token.tokenKind, let index = Int(text.dropFirst()) {
                    function.highestDollar = max(function.highestDollar, index)
                }
            }
        }
        return function
    }

    /// A declared function or method as a value.
    func makeFunction(_ decl: FunctionDeclSyntax, captured: [Scope], selfCell: Cell?, typeName: String?) -> FunctionValue {
        FunctionValue(name: decl.name.text, parameters: TypeTable.parameters(of: decl),
                      body: .statements(decl.body?.statements ?? CodeBlockItemListSyntax([])), captured: captured,
                      selfCell: selfCell, typeName: typeName, resultType: decl.signature.returnClause?.type)
    }

    /// Picks the overload whose parameters accept these argument labels.
    func choose<D>(_ candidates: [D], parameters: (D) -> [Parameter], _ args: [CallArgument]) -> D? {
        if candidates.count == 1 { return candidates[0] }
        let bound = candidates.compactMap { candidate in bind(parameters(candidate), args).map { (candidate, $0) } }
        // Overloads that differ by parameter type (`init(_ cents: Int)`, `init(_ dollars: Double)`): the first whose
        // written parameter types all hold the argument values, else the first the labels fit.
        if bound.count > 1, let typed = bound.first(where: { candidate, slots in
            zip(parameters(candidate), slots).allSatisfy { parameter, indexes in
                guard let type = parameter.type, !parameter.isVariadic else { return true }
                return indexes.allSatisfy { valueMatches(args[$0].value, type) }
            }
        }) {
            return typed.0
        }
        return bound.first?.0
    }

    /// Matches arguments to parameters by label, in order (defaults fill gaps,
    /// variadics take a run of values, a trailing closure fills the next
    /// parameter). Returns per parameter the argument indexes it takes (empty: default).
    func bind(_ parameters: [Parameter], _ args: [CallArgument]) -> [[Int]]? {
        var next = 0
        var result: [[Int]] = []
        for parameter in parameters {
            var taken: [Int] = []
            if next < args.count, args[next].isTrailing, args[next].label == nil {
                // A trailing closure skips defaulted parameters that are not functions.
                if parameter.defaultValue != nil, !parameter.isFunction, parameters.last.map({ $0.isFunction }) == true {
                    result.append([])
                    continue
                }
                taken = [next]
                next += 1
            } else if next < args.count, args[next].label == parameter.label {
                taken = [next]
                next += 1
                if parameter.isVariadic {
                    while next < args.count, args[next].label == nil, !args[next].isTrailing {
                        taken.append(next)
                        next += 1
                    }
                }
            } else if parameter.defaultValue == nil, !parameter.isVariadic {
                return nil
            }
            result.append(taken)
        }
        return next == args.count ? result : nil
    }

    /// Calls a function value. `inout` arguments are written back to their places afterwards.
    func invoke(_ function: FunctionValue, _ args: [CallArgument], at node: some SyntaxProtocol) async throws -> Value {
        if case .native(let body) = function.body { return try await body(args.map(\.value)) }
        guard case .statements(let statements) = function.body else { return .null }
        var scope: Scope = [:]
        if function.isClosure {
            var values = args.map(\.value)
            if function.parameters.count > 1, values.count == 1, case .tuple(let items) = values[0], items.count == function.parameters.count {
                values = items.map(\.value)
            }
            if function.parameters.isEmpty {
                if values.count == 1, function.highestDollar > 0, case .tuple(let items) = values[0] { values = items.map(\.value) }
                for (index, value) in values.enumerated() { scope["$\(index)"] = Cell(value) }
            } else {
                guard values.count == function.parameters.count else {
                    throw error("the closure takes \(function.parameters.count) argument(s) but was given \(values.count)", node)
                }
                for (parameter, value) in zip(function.parameters, values) {
                    if let name = parameter.name { scope[name] = Cell(value.converted(to: parameter.type)) }
                }
            }
        }
        var finalCells: [(Cell, ExprSyntax)] = []
        let result = try await inFrame(captured: function.captured, scope: scope, selfCell: function.selfCell, typeName: function.typeName,
                                       name: function.name, at: node) { () -> Value in
            if !function.isClosure { finalCells = try await defineParameters(function.parameters, args, of: function.name, at: node) }
            return try await runBody(statements).converted(to: function.resultType)
        }
        // Back in the caller's scopes: inout values go to their places.
        for (cell, target) in finalCells { try await assign(to: target, cell.value) }
        return result
    }

    /// Runs `body` in a function's frame: the scopes it captured plus its own
    /// `scope`, `self` and its type, one call level deeper (bounded); the
    /// caller's scopes, type and statement come back afterwards.
    func inFrame<T>(captured: [Scope], scope: Scope, selfCell: Cell?, typeName: String?, name: String,
                    at node: some SyntaxProtocol, _ body: () async throws -> T) async throws -> T {
        callDepth += 1
        defer { callDepth -= 1 }
        if callDepth > Self.maximumCallDepth {
            throw error("calls nested more than \(Self.maximumCallDepth) deep (unbounded recursion?) in '\(name)'", node)
        }
        let saved = swapScopes(captured + [scope])
        let savedType = currentTypeName
        let savedStatement = currentStatementRange
        currentTypeName = typeName
        defer {
            restoreScopes(saved)
            currentTypeName = savedType
            currentStatementRange = savedStatement
        }
        if let selfCell { defineCell("self", selfCell) }
        return try await body()
    }

    /// Runs `body` as a member of `value` would run: `self` and its properties
    /// in scope (a computed property's getter, a builder method), with `bindings`.
    func asMember<T>(_ value: Value, bindings: [String: Value] = [:], name: String, at node: some SyntaxProtocol,
                     _ body: () async throws -> T) async throws -> T {
        try await inFrame(captured: [globalScope], scope: bindings.mapValues { Cell($0) }, selfCell: Cell(value),
                          typeName: typeName(of: value), name: name, at: node, body)
    }

    /// Binds call arguments to parameters in the current scope (defaults
    /// evaluated there); returns the `inout` cells with the places they go back to.
    func defineParameters(_ parameters: [Parameter], _ args: [CallArgument], of name: String,
                          at node: some SyntaxProtocol) async throws -> [(Cell, ExprSyntax)] {
        guard let binding = bind(parameters, args) else {
            throw error("no '\(name)' takes the arguments (\(args.map { ($0.label ?? "_") + ":" }.joined()))", node)
        }
        var inoutCells: [(Cell, ExprSyntax)] = []
        for (parameter, indexes) in zip(parameters, binding) {
            let value: Value
            if parameter.isVariadic {
                value = .array(indexes.map { args[$0].value.converted(to: parameter.type) })
            } else if let index = indexes.first {
                value = args[index].value.converted(to: parameter.type)
            } else if let defaultValue = parameter.defaultValue {
                value = try await evaluate(defaultValue, typedAs: parameter.type).converted(to: parameter.type)
            } else {
                value = .null
            }
            let cell = Cell(value)
            if let name = parameter.name { defineCell(name, cell) }
            if parameter.isInout, let index = indexes.first, let target = args[index].inoutTarget { inoutCells.append((cell, target)) }
        }
        return inoutCells
    }

    /// Calls a function value with positional arguments (callbacks, evaluators,
    /// collection algorithms); the caller's statement stays the current one.
    package func call(_ function: FunctionValue, _ arguments: [Value], at node: Syntax? = nil) async throws -> Value {
        var place = node ?? Syntax(fromProtocol: context.file.syntax)
        if node == nil, case .statements(let statements) = function.body { place = Syntax(statements) }
        return try await invoke(function, arguments.map { CallArgument(label: nil, value: $0) }, at: place)
    }

    /// Calls one of a set of overloaded declarations.
    func invokeDeclared(_ decls: [FunctionDeclSyntax], selfCell: Cell?, typeName: String?, _ args: [CallArgument],
                        at node: some SyntaxProtocol) async throws -> Value {
        let chosen = choose(decls, parameters: { TypeTable.parameters(of: $0) }, args) ?? decls[0]
        let function = makeFunction(chosen, captured: [globalScope], selfCell: selfCell, typeName: typeName)
        return try await invoke(function, args, at: node)
    }
}

extension Value {
    /// An integer literal passed where a declaration says `Double` becomes a Double.
    func converted(to type: TypeSyntax?) -> Value {
        guard let type else { return self }
        if let optional = type.as(OptionalTypeSyntax.self) { return isNull ? self : converted(to: optional.wrappedType) }
        if let array = type.as(ArrayTypeSyntax.self), case .array(let items) = self { return .array(items.map { $0.converted(to: array.element) }) }
        if let dictionary = type.as(DictionaryTypeSyntax.self), case .dictionary(let pairs) = self {
            return .dictionary(pairs.map { ($0.key, $0.value.converted(to: dictionary.value)) })
        }
        if case .int(let i) = self, let name = type.as(IdentifierTypeSyntax.self)?.name.text, ["Double", "Float", "CGFloat"].contains(name) {
            return .double(Double(i))
        }
        if let tupleType = type.as(TupleTypeSyntax.self), case .tuple(var items) = self, items.count == tupleType.elements.count {
            for (index, element) in tupleType.elements.enumerated() {
                if let label = element.firstName?.text, label != "_" { items[index].label = label }
                items[index].value = items[index].value.converted(to: element.type)
            }
            return .tuple(items)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Set", case .array(let items) = self {
            var unique: [Value] = []
            for item in items where !unique.contains(where: { Value.equal($0, item) }) { unique.append(item) }
            return .set(unique)
        }
        return self
    }
}
