import Schema

/// Limits of what the compiled grammar generates.
public struct GrammarOptions: Sendable, Hashable {
    /// How deep recursive types nest: a value of a recursive type contains at
    /// most this many nested values of recursive types. Where the bound is
    /// reached, optional properties are omitted and arrays are empty.
    public var maximumRecursionDepth: Int
    /// How deep `GeneratedContent` (`.any`) values nest; at the bound only
    /// strings, numbers, booleans and null remain.
    public var maximumAnyDepth: Int

    public init(maximumRecursionDepth: Int = 5, maximumAnyDepth: Int = 4) {
        self.maximumRecursionDepth = maximumRecursionDepth
        self.maximumAnyDepth = maximumAnyDepth
    }
}

/// Compiles `GenerationSchema`s into one `ByteGrammar` for compact JSON.
///
/// Rules (the contract with the runtime and the prompt):
/// - No whitespace anywhere outside strings.
/// - Object properties appear in declaration order. Required properties are
///   always present; an optional property is either omitted or present with
///   a (non-null) value — the model chooses. `null` is never generated.
/// - A string enum case is `"name"`; a case with associated values is
///   `{"name":{...values in order...}}` (see `Definition.Kind.enumeration`).
/// - Guides: string `constant`, `anyOf` and `pattern` (see `Pattern`; when
///   several are given the value satisfies all of them); integer and number
///   `minimum`/`maximum` (see `NumberRanges`); array
///   `minimumCount`/`maximumCount`; element types carry their own guides.
/// - `.any` is any JSON value up to `GrammarOptions.maximumAnyDepth`.
struct SchemaCompiler {
    private var builder = GrammarBuilder()
    private let options: GrammarOptions
    /// Schemas compiled into this grammar (tool argument schemas each have their own definitions).
    private var schemas: [GenerationSchema] = []
    private var recursive: [Set<String>] = []
    private var machines: [MachineKey: Int?] = [:]
    private var failure: GuidanceError?
    let stringMachine: Int

    private enum MachineKey: Hashable {
        case value(schema: Int, type: SchemaType, level: Int)
        case definition(schema: Int, name: String, level: Int)
        case any(level: Int)
    }

    init(options: GrammarOptions) {
        self.options = options
        stringMachine = builder.reserve("String")
        builder.defineSharedString(stringMachine)
    }

    /// A grammar of the shared string machine alone (for the vocabulary's precomputed masks).
    static func sharedStringGrammar() -> ByteGrammar {
        let compiler = SchemaCompiler(options: GrammarOptions())
        return try! compiler.build(root: compiler.stringMachine)
    }

    /// Adds a schema; returns its index for `rootMachine(schema:)`.
    mutating func add(_ schema: GenerationSchema) -> Int {
        schemas.append(schema)
        recursive.append(Self.recursiveDefinitions(schema))
        return schemas.count - 1
    }

    /// The machine for a schema's root value.
    mutating func rootMachine(schema: Int) throws(GuidanceError) -> Int {
        let machine = machine(for: schemas[schema].root, schema: schema, level: 0, path: "(root)")
        if let failure { throw failure }
        guard let machine else {
            throw GuidanceError(.invalidSchema, path: "(root)",
                                "no value of this type fits within the recursion depth \(options.maximumRecursionDepth)")
        }
        return machine
    }

    mutating func reserve(_ name: String) -> Int { builder.reserve(name) }
    mutating func define(_ machine: Int, _ body: ByteNFA) { builder.define(machine, body) }

    func build(root: Int) throws(GuidanceError) -> ByteGrammar {
        if let failure { throw failure }
        return try builder.build(root: root)
    }

    // MARK: Values

    /// Adds one value of `type` after `from`; nil when no value fits (recursion bound).
    /// Booleans are inline; everything else is a call.
    mutating func value(_ type: SchemaType, schema: Int, level: Int, path: String,
                        into nfa: inout ByteNFA, from: Int) -> Int? {
        guard let step = elementStep(type, schema: schema, level: level, path: path) else { return nil }
        return step(&nfa, from)
    }

    /// How to add one value of `type`: booleans inline, other values as calls.
    private mutating func elementStep(_ type: SchemaType, schema: Int, level: Int,
                                      path: String) -> ((inout ByteNFA, Int) -> Int)? {
        if case .boolean = type {
            return { nfa, start in
                nfa.choice(from: start, [
                    { nfa, start in nfa.literal(Array("true".utf8), from: start) },
                    { nfa, start in nfa.literal(Array("false".utf8), from: start) },
                ])
            }
        }
        guard let machine = machine(for: type, schema: schema, level: level, path: path) else { return nil }
        return { nfa, start in nfa.call(machine, from: start) }
    }

    private mutating func machine(for type: SchemaType, schema: Int, level: Int, path: String) -> Int? {
        switch type {
        case .string(let guides) where guides == .none:
            return stringMachine
        case .reference(let name):
            guard let definition = schemas[schema].definition(named: name) else {
                fail(GuidanceError(.invalidSchema, path: path, "unknown type '\(name)'"))
                return nil
            }
            let isRecursive = recursive[schema].contains(name)
            let definitionLevel = isRecursive ? level + 1 : 0
            if isRecursive, definitionLevel > options.maximumRecursionDepth { return nil }
            return memoized(.definition(schema: schema, name: name, level: definitionLevel), name: name) { compiler in
                compiler.definitionBody(definition, schema: schema, level: definitionLevel)
            }
        case .any:
            return anyMachine(level: 0)
        default:
            let typeLevel: Int
            if case .array = type { typeLevel = level } else { typeLevel = 0 }
            return memoized(.value(schema: schema, type: type, level: typeLevel), name: path) { compiler in
                compiler.valueBody(type, schema: schema, level: typeLevel, path: path)
            }
        }
    }

    private mutating func memoized(_ key: MachineKey, name: String,
                                   _ makeBody: (inout SchemaCompiler) -> ByteNFA?) -> Int? {
        if let known = machines[key] { return known }
        let machine = builder.reserve(name)
        machines[key] = machine
        guard let body = makeBody(&self) else {
            machines[key] = .some(nil)
            return nil
        }
        builder.define(machine, body)
        return machine
    }

    private mutating func fail(_ error: GuidanceError) {
        if failure == nil { failure = error }
    }

    private mutating func valueBody(_ type: SchemaType, schema: Int, level: Int, path: String) -> ByteNFA? {
        var nfa = ByteNFA()
        switch type {
        case .string(let guides):
            guard let end = guidedString(guides, path: path, into: &nfa) else { return nil }
            nfa.accept(from: end)
        case .integer(let guides) where guides == .none, .number(let guides) where guides == .none:
            nfa.accept(from: nfa.plainNumber(integer: type == .integer(guides), from: nfa.start))
        case .integer(let guides):
            guard let (lo, hi) = bounds(guides, path: path, integer: true) else { return nil }
            let end = nfa.integerRange(Int64(lo), Int64(hi), from: nfa.start)
            nfa.accept(from: end)
        case .number(let guides):
            guard let (lo, hi) = bounds(guides, path: path, integer: false) else { return nil }
            nfa.accept(from: nfa.numberRange(lo, hi, from: nfa.start))
        case .boolean:
            nfa.accept(from: value(.boolean, schema: schema, level: level, path: path, into: &nfa, from: nfa.start)!)
        case .array(let element, let guides):
            let minimum = guides.minimumCount ?? 0
            let maximum = guides.maximumCount
            guard minimum >= 0, (maximum ?? 0) >= 0 else {
                fail(GuidanceError(.unsupportedGuide, path: path, "array counts cannot be negative"))
                return nil
            }
            if let maximum, maximum < minimum {
                fail(GuidanceError(.unsupportedGuide, path: path,
                                   "minimumCount \(minimum) is above maximumCount \(maximum)"))
                return nil
            }
            if max(minimum, maximum ?? 0) > Pattern.maximumRepetition {
                fail(GuidanceError(.unsupportedGuide, path: path,
                                   "array counts above \(Pattern.maximumRepetition) are not supported"))
                return nil
            }
            let open = nfa.literal([0x5B], from: nfa.start)
            var afterElements: Int? = nil
            if maximum != 0, let elementMachine = elementStep(element, schema: schema, level: level, path: path + "[]") {
                let first = elementMachine(&nfa, open)
                afterElements = nfa.repeated(from: first, minimum: max(minimum - 1, 0), maximum: maximum.map { $0 - 1 }) { nfa, start in
                    elementMachine(&nfa, nfa.literal([0x2C], from: start))
                }
            }
            if afterElements == nil && minimum > 0 { return nil }
            if let afterElements { nfa.accept(from: nfa.literal([0x5D], from: afterElements)) }
            if minimum == 0 { nfa.accept(from: nfa.literal([0x5D], from: open)) }
        case .reference, .any:
            preconditionFailure("references and .any have their own machines")
        }
        return nfa
    }

    private mutating func bounds(_ guides: NumberGuides, path: String, integer: Bool) -> (Double, Double)? {
        let limit = NumberRanges.limit
        for bound in [guides.minimum, guides.maximum].compactMap({ $0 }) where !bound.isFinite || abs(bound) > limit {
            fail(GuidanceError(.unsupportedGuide, path: path,
                               "bound \(bound) is beyond the supported magnitude \(Int(limit))"))
            return nil
        }
        var lo = guides.minimum ?? -limit
        var hi = guides.maximum ?? limit
        if integer {
            lo = lo.rounded(.up)
            hi = hi.rounded(.down)
        }
        guard lo <= hi else {
            fail(GuidanceError(.unsupportedGuide, path: path,
                               "no \(integer ? "integer" : "number") lies between minimum \(guides.minimum!) and maximum \(guides.maximum!)"))
            return nil
        }
        return (lo, hi)
    }

    /// A string with guides: `"` content `"`, ending in the returned state.
    private mutating func guidedString(_ guides: StringGuides, path: String, into nfa: inout ByteNFA) -> Int? {
        var pattern: Pattern? = nil
        var patternGrammar: ByteGrammar? = nil
        if let source = guides.pattern {
            do {
                pattern = try Pattern.parse(source)
            } catch {
                fail(GuidanceError(.unsupportedGuide, path: path,
                                   "pattern /\(source)/: \(error.message) (at character \(error.offset + 1))"))
                return nil
            }
            var standalone = ByteNFA()
            let open = standalone.literal([0x22], from: standalone.start)
            let content = pattern!.build(into: &standalone, from: open)
            standalone.accept(from: standalone.literal([0x22], from: content))
            var check = GrammarBuilder()
            let machine = check.reserve("pattern")
            check.define(machine, standalone)
            patternGrammar = try? check.build(root: machine)
        }
        var candidates: [String]? = guides.anyOf
        if let constant = guides.constant {
            if let anyOf = candidates, !anyOf.contains(constant) {
                fail(GuidanceError(.unsupportedGuide, path: path, "constant \(JSONText.quoted(constant)) is not one of anyOf"))
                return nil
            }
            candidates = [constant]
        }
        if var values = candidates {
            if let patternGrammar {
                values = values.filter { patternGrammar.matches(Array(JSONText.quoted($0).utf8)) }
            }
            guard !values.isEmpty else {
                let reason = guides.pattern == nil ? "anyOf lists no values" : "no listed value matches the pattern"
                fail(GuidanceError(.unsupportedGuide, path: path, reason))
                return nil
            }
            return nfa.choice(from: nfa.start, values.map { text in { nfa, start in nfa.jsonStringLiteral(text, from: start) } })
        }
        guard let pattern else { preconditionFailure("guided string without guides") }
        let open = nfa.literal([0x22], from: nfa.start)
        let content = pattern.build(into: &nfa, from: open)
        return nfa.literal([0x22], from: content)
    }

    // MARK: Definitions

    private mutating func definitionBody(_ definition: Definition, schema: Int, level: Int) -> ByteNFA? {
        var nfa = ByteNFA()
        switch definition.kind {
        case .object(let properties):
            guard let end = objectBody(properties, schema: schema, level: level, path: definition.name,
                                       into: &nfa, from: nfa.start) else { return nil }
            nfa.accept(from: end)
        case .enumeration(let cases):
            guard !cases.isEmpty else {
                fail(GuidanceError(.invalidSchema, path: definition.name, "enum has no cases"))
                return nil
            }
            var anyCase = false
            for enumCase in cases {
                if enumCase.associatedValues.isEmpty {
                    nfa.accept(from: nfa.jsonStringLiteral(enumCase.name, from: nfa.start))
                    anyCase = true
                    continue
                }
                let key = nfa.literal(Array(("{" + JSONText.quoted(enumCase.name) + ":").utf8), from: nfa.start)
                guard let values = objectBody(enumCase.associatedValues, schema: schema, level: level,
                                              path: definition.name + "." + enumCase.name, into: &nfa, from: key)
                else { continue }
                nfa.accept(from: nfa.literal([0x7D], from: values))
                anyCase = true
            }
            if !anyCase { return nil }
        }
        return nfa
    }

    /// `{...}` with the properties in order; optional ones may be omitted.
    private mutating func objectBody(_ properties: [Property], schema: Int, level: Int, path: String,
                                     into nfa: inout ByteNFA, from: Int) -> Int? {
        let open = nfa.literal([0x7B], from: from)
        // State per (property index, whether a property was written yet).
        var states: [[Int?]] = Array(repeating: [nil, nil], count: properties.count + 1)
        states[0][0] = open
        let end = nfa.addState()
        var reachable = false
        for index in 0...properties.count {
            for written in 0..<2 {
                guard let state = states[index][written] else { continue }
                if index == properties.count {
                    nfa.addEpsilon(from: nfa.literal([0x7D], from: state), to: end)
                    reachable = true
                    continue
                }
                let property = properties[index]
                let key = (written == 1 ? "," : "") + JSONText.quoted(property.name) + ":"
                let afterKey = nfa.literal(Array(key.utf8), from: state)
                if let afterValue = value(property.type, schema: schema, level: level, path: path + "." + property.name,
                                          into: &nfa, from: afterKey) {
                    link(&states[index + 1][1], afterValue, &nfa)
                } else if !property.isOptional {
                    continue
                }
                if property.isOptional { link(&states[index + 1][written], state, &nfa) }
            }
        }
        return reachable ? end : nil
    }

    private func link(_ slot: inout Int?, _ state: Int, _ nfa: inout ByteNFA) {
        if let existing = slot {
            nfa.addEpsilon(from: state, to: existing)
        } else {
            let joined = nfa.addState()
            nfa.addEpsilon(from: state, to: joined)
            slot = joined
        }
    }

    // MARK: .any

    private mutating func anyMachine(level: Int) -> Int {
        if let known = machines[.any(level: level)], let known { return known }
        let machine = builder.reserve("GeneratedContent")
        machines[.any(level: level)] = machine
        var nfa = ByteNFA()
        nfa.accept(from: nfa.call(stringMachine, from: nfa.start))
        nfa.accept(from: nfa.plainNumber(integer: false, from: nfa.start))
        for word in ["true", "false", "null"] { nfa.accept(from: nfa.literal(Array(word.utf8), from: nfa.start)) }
        if level < options.maximumAnyDepth {
            let inner = anyMachine(level: level + 1)
            let openArray = nfa.literal([0x5B], from: nfa.start)
            nfa.accept(from: nfa.literal([0x5D], from: openArray))
            let element = nfa.star(from: nfa.call(inner, from: openArray)) { nfa, start in
                nfa.call(inner, from: nfa.literal([0x2C], from: start))
            }
            nfa.accept(from: nfa.literal([0x5D], from: element))
            let openObject = nfa.literal([0x7B], from: nfa.start)
            nfa.accept(from: nfa.literal([0x7D], from: openObject))
            let stringMachine = self.stringMachine
            let member = { (nfa: inout ByteNFA, start: Int) -> Int in
                let key = nfa.call(stringMachine, from: start)
                return nfa.call(inner, from: nfa.literal([0x3A], from: key))
            }
            let members = nfa.star(from: member(&nfa, openObject)) { nfa, start in
                member(&nfa, nfa.literal([0x2C], from: start))
            }
            nfa.accept(from: nfa.literal([0x7D], from: members))
        }
        builder.define(machine, nfa)
        return machine
    }

    // MARK: Recursion

    /// Definitions that can reach themselves through references.
    static func recursiveDefinitions(_ schema: GenerationSchema) -> Set<String> {
        func references(_ type: SchemaType, into names: inout Set<String>) {
            switch type {
            case .reference(let name): names.insert(name)
            case .array(let element, _): references(element, into: &names)
            default: break
            }
        }
        var edges: [String: Set<String>] = [:]
        for definition in schema.definitions {
            var names = Set<String>()
            switch definition.kind {
            case .object(let properties):
                for property in properties { references(property.type, into: &names) }
            case .enumeration(let cases):
                for enumCase in cases { for value in enumCase.associatedValues { references(value.type, into: &names) } }
            }
            edges[definition.name] = names
        }
        var result = Set<String>()
        for start in edges.keys {
            var seen = Set<String>()
            var stack = Array(edges[start] ?? [])
            while let name = stack.popLast() {
                if name == start { result.insert(start); break }
                if seen.insert(name).inserted { stack.append(contentsOf: edges[name] ?? []) }
            }
        }
        return result
    }
}

extension ByteGrammar {
    /// Compiles a schema to a grammar for compact JSON (see `SchemaCompiler` for the rules).
    public static func compile(_ schema: GenerationSchema, options: GrammarOptions = GrammarOptions()) throws(GuidanceError) -> ByteGrammar {
        var compiler = SchemaCompiler(options: options)
        let index = compiler.add(schema)
        let root = try compiler.rootMachine(schema: index)
        return try compiler.build(root: root).checkedLive()
    }
}
