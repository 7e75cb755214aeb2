import SwiftSyntax

/// Assignment to places: variables, properties (stored, computed with a
/// setter, observed, static; through `self` implicitly), subscripts, and
/// chains of those (`a.b[2].c += 1`). Value types are copied out, changed and
/// written back; class instances are changed in place.
extension Interpreter {
    package func assign(to target: ExprSyntax, _ value: Value) async throws {
        // A place holding a Double keeps its type: `var v = 0.0; v = 3` stores 3.0, as Swift's literal typing does.
        try await modify(target) { place in
            if case .double = place, case .int(let i) = value { place = .double(Double(i)) } else { place = value }
        }
    }

    func modify(_ target: ExprSyntax, _ change: (inout Value) async throws -> Void) async throws {
        if let ref = target.as(DeclReferenceExprSyntax.self) { return try await modifyVariable(ref, change) }
        if target.is(DiscardAssignmentExprSyntax.self) {
            var ignored = Value.null
            try await change(&ignored)
            return
        }
        if let tuple = target.as(TupleExprSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first { return try await modify(only.expression, change) }
            // `(a, b) = (b, a)`
            var value = Value.tuple(try await tuple.elements.asyncMap { (label: $0.label?.text, value: try await evaluate($0.expression)) })
            try await change(&value)
            guard case .tuple(let items) = value, items.count == tuple.elements.count else { throw error("cannot destructure \(value.description)", tuple) }
            for (element, item) in zip(tuple.elements, items) { try await assign(to: element.expression, item.value) }
            return
        }
        if let member = target.as(MemberAccessExprSyntax.self), let baseExpr = member.base {
            return try await modifyMember(member, of: baseExpr, change)
        }
        if let sub = target.as(SubscriptCallExprSyntax.self) {
            var indexes: [Value] = []
            for argument in sub.arguments { indexes.append(try await evaluate(argument.expression)) }
            return try await modify(sub.calledExpression) { base in
                try await modifyElement(&base, indexes, change, at: sub)
            }
        }
        if let unwrap = target.as(ForceUnwrapExprSyntax.self) {
            return try await modify(unwrap.expression) { value in
                if value.isNull { throw error("unexpectedly found nil while unwrapping an Optional value", unwrap) }
                try await change(&value)
            }
        }
        if let optional = target.as(OptionalChainingExprSyntax.self) {
            return try await modify(optional.expression) { value in
                if !value.isNull { try await change(&value) }
            }
        }
        throw error("cannot assign to '\(target.trimmedDescription)'", target)
    }

    /// `name = ...`: a local, a property of `self` (implicitly), a global, a static of the current type.
    private func modifyVariable(_ ref: DeclReferenceExprSyntax, _ change: (inout Value) async throws -> Void) async throws {
        let name = ref.baseName.text
        if let cell = lookupLocalCell(name) {
            if case .sessionProperty(let key) = cell.value { return try await modifySessionProperty(key, change, at: ref) }
            try await change(&cell.value)
            return
        }
        if name != "self", let selfCell = lookupCell("self"), hasMember(selfCell.value, name) || isStoredInInit(selfCell.value, name) {
            return try await modifyProperty(of: selfCell, name, change, at: ref)
        }
        if let cell = lookupCell(name) {
            try await change(&cell.value)
            return
        }
        if let type = currentTypeName, try await userStaticMember(name, of: type, ref) != nil {
            var value = try await userStaticMember(name, of: type, ref) ?? .null
            try await change(&value)
            _ = try await setStatic(name, of: type, value, ref)
            return
        }
        throw error("cannot find '\(name)' in scope", ref)
    }

    /// `base.name = ...`: an instance in place, a session's transcript or policy, a static, or a value copied out and written back.
    private func modifyMember(_ member: MemberAccessExprSyntax, of baseExpr: ExprSyntax, _ change: (inout Value) async throws -> Void) async throws {
        let name = member.declName.baseName.text
        let base = try await evaluate(baseExpr)
        if case .object = base { return try await modifyProperty(of: Cell(base), name, change, at: member) }
        if case .sessionProperties(let session) = base {
            // A reference (Apple's final class): `session.properties.mode = ...` and `values.mode = ...` write to the session.
            var value = try sessionProperty(name, of: session, member)
            try await change(&value)
            return try setSessionProperty(name, of: session, to: value, member)
        }
        if case .session(let session) = base, ["transcript", "transcriptErrorHandlingPolicy"].contains(name) {
            var value = try await self.member(name, of: base, member)
            try await change(&value)
            if name == "transcript" {
                guard case .transcript(let transcript) = value else { throw error("session.transcript must be set to a Transcript", member) }
                session.transcript = transcript
            } else {
                session.transcriptErrorHandlingPolicy = value.isNull ? nil : try errorPolicy(value, member)
            }
            return
        }
        if case .type(let typeName) = base {
            var value = try await self.member(name, of: base, member)
            try await change(&value)
            if try await setStatic(name, of: typeName, value, member) { return }
            throw error("cannot assign to '\(member.trimmedDescription)'", member)
        }
        if base.isNull, Self.inOptionalChain(baseExpr) { return }
        return try await modify(baseExpr) { baseValue in
            let cell = Cell(baseValue)
            try await modifyProperty(of: cell, name, change, at: member)
            baseValue = cell.value
        }
    }

    /// Inside an initializer, stored properties not set yet are still assignable.
    private func isStoredInInit(_ value: Value, _ name: String) -> Bool {
        guard callDepth == initializerDepth, let type = typeName(of: value) else { return false }
        return lookupChain(type).contains { $0.stored.contains { $0.name == name } }
    }

    /// Changes a property of the value in `cell`: stored (with `willSet`/`didSet`), computed with a setter, tuple members.
    func modifyProperty(of cell: Cell, _ name: String, _ change: (inout Value) async throws -> Void,
                        at node: some SyntaxProtocol) async throws {
        let base = cell.value
        if case .tuple(var items) = base {
            guard let index = items.firstIndex(where: { $0.label == name }) ?? Int(name).flatMap({ items.indices.contains($0) ? $0 : nil }) else {
                throw error("the tuple has no member '\(name)'", node)
            }
            try await change(&items[index].value)
            cell.value = .tuple(items)
            return
        }
        // 27: `transcript.history = ...` replaces every entry after a leading instructions entry.
        if case .transcript(var transcript) = base, name == "history" {
            var value = Value.array(transcript.history.map(Value.transcriptEntry))
            try await change(&value)
            guard case .array(let items) = value else { throw error("history must be set to transcript entries", node) }
            transcript.history = try items.map { item in
                guard let entry = TranscriptPart.entry(from: item) else { throw error("history must be set to transcript entries", node) }
                return entry
            }
            cell.value = .transcript(transcript)
            return
        }
        if case .structure = base {} else if case .object = base {} else if let typeName = base.surfaceTypeName {
            // A value type of the surface table (`options.temperature = 0.2`): its entry's setter.
            var value = try await member(name, of: base, node)
            try await change(&value)
            guard let changed = try await setSurfaceProperty(name, of: base, to: value, node) else {
                throw error("cannot assign to '\(name)': \(typeName).\(name) is read-only in prompt files", node)
            }
            cell.value = changed
            return
        }
        guard let type = typeName(of: base) else { throw error("cannot assign to the property '\(name)' of \(base.description.prefix(30))", node) }
        if let computed = findComputed(name, in: type) {
            guard let setter = computed.setter else { throw error("cannot assign to '\(name)': it is a get-only property", node) }
            var value = try await runAccessor(computed.getter, selfCell: cell, typeName: type, at: node)
            try await change(&value)
            _ = try await runAccessor(setter.body, selfCell: cell, typeName: type, bindings: [setter.parameter: value], at: node)
            return
        }
        let stored = lookupChain(type).lazy.compactMap { $0.stored.first { $0.name == name } }.first
        var value: Value
        switch base {
        case .structure(_, let fields):
            guard let field = fields.first(where: { $0.name == name }) else {
                if stored?.isLazy == true { value = try await userMember(name, of: base, node) ?? .null; break }
                throw error("\(type) has no property '\(name)'", node)
            }
            value = field.value
        case .object(let box):
            if box.field(name) == nil, stored?.isLazy == true { _ = try await userMember(name, of: base, node) }
            guard let field = box.field(name) else { throw error("\(type) has no property '\(name)'", node) }
            value = field
        default:
            throw error("cannot assign to the property '\(name)' of \(base.description.prefix(30))", node)
        }
        if case .sessionProperty(let key) = value { return try await modifySessionProperty(key, change, at: node) }
        let oldValue = value
        try await change(&value)
        value = value.converted(to: stored?.type)
        // Observers do not run in initializers, nor for assignments inside the property's own observers.
        let key = type + "." + name
        let observed = callDepth != initializerDepth && !observing.contains(key)
        if observed { observing.insert(key) }
        defer { if observed { observing.remove(key) } }
        if observed, let willSet = stored?.willSet {
            _ = try await runAccessor(willSet.body, selfCell: cell, typeName: type, bindings: [willSet.parameter: value], at: node)
        }
        setField(name, value, in: cell)
        if observed, let didSet = stored?.didSet {
            _ = try await runAccessor(didSet.body, selfCell: cell, typeName: type, bindings: [didSet.parameter: oldValue], at: node)
        }
    }

    /// A `@SessionProperty` changes the value of the session being served.
    private func modifySessionProperty(_ key: String, _ change: (inout Value) async throws -> Void, at node: some SyntaxProtocol) async throws {
        var value = try readSessionProperty(key, node)
        try await change(&value)
        try writeSessionProperty(key, value, node)
    }

    private func setField(_ name: String, _ value: Value, in cell: Cell) {
        switch cell.value {
        case .structure(let type, var fields):
            if let index = fields.firstIndex(where: { $0.name == name }) { fields[index].value = value } else { fields.append((name, value)) }
            cell.value = .structure(type: type, fields: fields)
        case .object(let box): box.setField(name, value)
        default: break
        }
    }

    /// `base[index]` as a place: arrays, dictionaries (nil removes), user subscripts with a setter.
    func modifyElement(_ base: inout Value, _ indexes: [Value], _ change: (inout Value) async throws -> Void,
                       at node: SubscriptCallExprSyntax) async throws {
        guard let index = indexes.first else { throw error("a subscript needs an index", node) }
        switch (base, index) {
        case (.array(var a), .int(let i)):
            let index = try checked(node) { () throws(Arithmetic.Failure) in try Arithmetic.index(i, count: a.count) }
            base = .null  // keep the array uniquely referenced while it changes
            try await change(&a[index])
            if a[index].isContainer { try budget.value(a[index], node) }
            base = .array(a)
        case (.dictionary(var pairs), _):
            let existing = pairs.firstIndex { Value.equal($0.key, index) }
            var value = existing.map { pairs[$0].value } ?? .null
            if existing == nil, let defaultArgument = node.arguments.dropFirst().first(where: { $0.label?.text == "default" }) {
                value = try await evaluate(defaultArgument.expression)
            }
            try await change(&value)
            // `dict[key] = nil` removes the key, as in Swift.
            if value.isNull {
                if let existing { pairs.remove(at: existing) }
            } else if let existing { pairs[existing].value = value } else { pairs.append((index, value)) }
            base = .dictionary(pairs)
        default:
            throw error("cannot assign through a subscript of \(base.description.prefix(30))", node)
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
