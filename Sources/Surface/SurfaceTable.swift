/// The table and its lookups; the checker and the interpreter resolve calls
/// with the same `resolve` functions, so what lint accepts is what runs.
public struct SurfaceTable: Sendable {
    public let types: [SurfaceType]
    public let functions: [SurfaceMember]
    public let modules: [SurfaceModule]
    /// Short names user code may write for nested types (`GenerationError`).
    public let aliases: [String: String]
    private let typeIndex: [String: Int]
    /// `Type.name` -> its members of that name (initializers under `Type.init`): resolution is a lookup,
    /// not a walk over the type's members (it runs for every member access and call the interpreter makes).
    private let memberIndex: [String: [SurfaceMember]]

    public init(types: [SurfaceType], functions: [MemberSpec], modules: [SurfaceModule], aliases: [String: String]) {
        self.types = types
        self.functions = functions.map { SurfaceMember(parsing: $0.declaration, owner: "", availability: $0.availability ?? .swift,
                                                       documentation: $0.documentation) }
        self.modules = modules
        self.aliases = aliases
        var index: [String: Int] = [:]
        for (position, type) in types.enumerated() {
            precondition(index[type.name] == nil, "surface table: \(type.name) is declared twice")
            index[type.name] = position
        }
        self.typeIndex = index
        var members: [String: [SurfaceMember]] = [:]
        for type in types {
            for member in type.members { members[type.name + "." + (member.kind == .initializer ? "init" : member.name), default: []].append(member) }
        }
        self.memberIndex = members
    }

    /// Every entry: members of every type, then the global functions.
    public var allMembers: [SurfaceMember] { types.flatMap(\.members) + functions }

    /// The canonical name of a type as written (`GenerationError` -> `LanguageModelSession.GenerationError`).
    public func canonicalName(_ written: String) -> String? {
        if typeIndex[written] != nil { return written }
        if let alias = aliases[written] { return alias }
        if written.hasPrefix("FoundationModels.") { return canonicalName(String(written.dropFirst("FoundationModels.".count))) }
        return nil
    }

    public func type(named written: String) -> SurfaceType? {
        canonicalName(written).flatMap { typeIndex[$0] }.map { types[$0] }
    }

    public func module(named name: String) -> SurfaceModule? { modules.first { $0.name == name } }

    /// Members of a type by name: instance members, or static ones (cases, static members, initializers).
    public func members(of typeName: String, named name: String, isStatic: Bool) -> [SurfaceMember] {
        guard let canonical = canonicalName(typeName), let named = memberIndex[canonical + "." + name] else { return [] }
        return named.filter { $0.isStatic == isStatic && $0.kind != .initializer }
    }

    public func initializers(of typeName: String) -> [SurfaceMember] {
        canonicalName(typeName).flatMap { memberIndex[$0 + ".init"] } ?? []
    }

    public func entry(id: String) -> SurfaceMember? { allMembers.first { $0.id == id } }

    // MARK: Resolution

    public enum Resolution: Sendable {
        case found(SurfaceMember)
        /// No member of that name; the closest name, if one is close.
        case unknownMember(suggestion: String?)
        /// Members of that name exist but none takes these labels.
        case noMatchingOverload([SurfaceMember], unknownLabel: UnknownLabel?)
    }

    public struct UnknownLabel: Sendable {
        /// Position among the call's arguments.
        public var index: Int
        public var label: String?
        public var suggestion: String?
    }

    /// `base.name` (no call) on an instance or a type: a property, a case without payload, or a static property.
    public func resolveValue(type typeName: String, name: String, isStatic: Bool) -> Resolution {
        let candidates = members(of: typeName, named: name, isStatic: isStatic)
        if let plain = candidates.first(where: { !$0.isCallable || $0.kind == .enumCase }) { return .found(plain) }
        if let method = candidates.first { return .found(method) }  // a method named without calling it
        return .unknownMember(suggestion: suggestion(for: name, in: typeName, isStatic: isStatic))
    }

    /// `base.name(labels...)` on an instance or a type, `Type(labels...)` when `name` is `init`.
    public func resolveCall(type typeName: String, name: String, labels: [String?], trailingClosure: Bool, isStatic: Bool) -> Resolution {
        let candidates = name == "init" ? initializers(of: typeName) : members(of: typeName, named: name, isStatic: isStatic)
        guard !candidates.isEmpty else {
            return .unknownMember(suggestion: suggestion(for: name, in: typeName, isStatic: isStatic))
        }
        return choose(candidates, labels: labels, trailingClosure: trailingClosure)
    }

    /// A global function call (`print(...)`).
    public func resolveFunction(name: String, labels: [String?], trailingClosure: Bool) -> Resolution {
        let candidates = functions.filter { $0.name == name }
        guard !candidates.isEmpty else { return .unknownMember(suggestion: Self.closest(to: name, among: functions.map(\.name))) }
        return choose(candidates, labels: labels, trailingClosure: trailingClosure)
    }

    private func choose(_ candidates: [SurfaceMember], labels: [String?], trailingClosure: Bool) -> Resolution {
        if let match = candidates.first(where: { Self.accepts($0.parameters ?? [], labels: labels, trailingClosure: trailingClosure) }) {
            return .found(match)
        }
        let known = Set(candidates.flatMap { ($0.parameters ?? []).map(\.label) })
        var unknown: UnknownLabel?
        for (index, label) in labels.enumerated() where !known.contains(label) {
            let names = known.compactMap { $0 }
            unknown = UnknownLabel(index: index, label: label, suggestion: label.flatMap { Self.closest(to: $0, among: names) })
            break
        }
        return .noMatchingOverload(candidates, unknownLabel: unknown)
    }

    /// Whether arguments with these labels (in order) fit the parameters:
    /// parameters with defaults may be skipped, a variadic one (`Any...`)
    /// takes several unlabelled arguments, a trailing closure supplies a
    /// closure parameter after the written arguments.
    public static func accepts(_ parameters: [SurfaceParameter], labels: [String?], trailingClosure: Bool) -> Bool {
        guard let positions = positions(parameters, labels: labels) else { return false }
        var position = (positions.last ?? -1) + 1
        let variadicUsed = positions.last.map { parameters[$0].isVariadic } ?? false
        if variadicUsed { position -= 1 }
        var remaining = parameters[position...]
        if variadicUsed { remaining = remaining.dropFirst() }
        if trailingClosure {
            guard let closure = remaining.lastIndex(where: \.isClosure) else { return false }
            return remaining[..<closure].allSatisfy(\.hasDefault) && remaining[(closure + 1)...].allSatisfy(\.hasDefault)
        }
        return remaining.allSatisfy { $0.hasDefault || $0.isVariadic }
    }

    /// The parameter each argument goes to, in order; nil when the labels do not fit.
    public static func positions(_ parameters: [SurfaceParameter], labels: [String?]) -> [Int]? {
        var result: [Int] = []
        var position = 0
        var variadicUsed = false
        for label in labels {
            while position < parameters.count, parameters[position].label != label {
                guard parameters[position].hasDefault || variadicUsed else { return nil }
                variadicUsed = false
                position += 1
            }
            guard position < parameters.count else { return nil }
            result.append(position)
            if parameters[position].isVariadic {
                variadicUsed = true
            } else {
                position += 1
            }
        }
        return result
    }

    // MARK: Did you mean

    func suggestion(for name: String, in typeName: String, isStatic: Bool) -> String? {
        guard let type = type(named: typeName) else { return nil }
        let names = type.members.filter { $0.isStatic == isStatic && $0.kind != .initializer }.map(\.name)
        return Self.closest(to: name, among: names)
    }

    /// The closest name within an edit distance of a third of its length (at least 1, at most 3).
    public static func closest(to name: String, among names: [String]) -> String? {
        let limit = min(3, max(1, name.count / 3))
        var best: (name: String, distance: Int)?
        for candidate in Set(names) where candidate != name {
            let distance = editDistance(name, candidate)
            if distance <= limit, distance < best?.distance ?? Int.max || (distance == best?.distance && candidate < best!.name) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Edit distance over Unicode scalars (insertions, deletions, substitutions and
    /// swaps of neighbours each cost 1: optimal string alignment); a case change costs 1.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var beforePrevious = [Int](repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[y.count]
    }
}
