/// How table files declare entries: one Swift-like declaration string and one
/// line of documentation per member, parsed once when the table is built.
///
/// Forms: `init(label: Type, other: Type = default)`, `func name(_: Type) -> Result`,
/// `static func name(...) -> Result`, `var name: Type`, `static var name: Type`,
/// `case name`, `case name(label: Type)`. `_` marks an unlabelled parameter,
/// `= ...` one that may be left out, a `->` in a parameter type one a trailing
/// closure may supply. `async`/`throws` are kept in the text for hover only.
public struct MemberSpec: Sendable {
    public var declaration: String
    public var documentation: String
    public var availability: SurfaceAvailability?

    public init(_ declaration: String, _ documentation: String, _ availability: SurfaceAvailability? = nil) {
        self.declaration = declaration
        self.documentation = documentation
        self.availability = availability
    }
}

extension SurfaceType {
    /// A type with its members; members default to the type's availability.
    public init(_ kind: Kind, _ name: String, _ availability: SurfaceAvailability, module: String = "FoundationModels",
                _ documentation: String, _ members: [MemberSpec]) {
        self.init(name: name, kind: kind, availability: availability, documentation: documentation, members: [], module: module)
        self.members = members.map { SurfaceMember(parsing: $0.declaration, owner: name, availability: $0.availability ?? availability,
                                                   documentation: $0.documentation) }
    }
}

extension SurfaceMember {
    /// Parses one declaration string (see `MemberSpec`). A malformed string
    /// traps when the table is built, which the parity tests do first.
    public init(parsing declaration: String, owner: String, availability: SurfaceAvailability, documentation: String) {
        var text = Substring(declaration)
        var kind: Kind
        func drop(_ prefix: String) -> Bool {
            guard text.hasPrefix(prefix) else { return false }
            text = text.dropFirst(prefix.count)
            return true
        }
        if drop("static func ") { kind = .staticMethod }
        else if drop("static var ") { kind = .staticProperty }
        else if drop("func ") { kind = owner.isEmpty ? .function : .method }
        else if drop("var ") { kind = .property }
        else if drop("case ") { kind = .enumCase }
        else if text.hasPrefix("init(") { kind = .initializer }
        else { preconditionFailure("surface table: cannot read '\(declaration)' of \(owner)") }
        let nameEnd = text.firstIndex { $0 == "(" || $0 == ":" || $0 == " " } ?? text.endIndex
        let name = String(text[..<nameEnd]).replacingBackticks
        var parameters: [SurfaceParameter]?
        var written: WrittenParameters?
        var result: String?
        var rest = text[nameEnd...]
        if rest.first == "(" {
            let close = Self.matchingParenthesis(rest)
            let texts = Self.splitTopLevel(rest[rest.index(after: rest.startIndex)..<close])
            parameters = texts.map(Self.parameter)
            rest = rest[rest.index(after: close)...]
            written = WrittenParameters(parameters: texts.map(\.trimmingSpaces), tail: String(rest))
            if let arrow = rest.firstRange(of: "->") { result = rest[arrow.upperBound...].trimmingSpaces }
            if kind == .initializer { result = owner }
            if kind == .property { kind = .method }
            if kind == .staticProperty { kind = .staticMethod }
        } else if rest.first == ":" {
            result = rest.dropFirst().trimmingSpaces
        }
        if kind == .enumCase { result = owner }
        self.init(kind: kind, owner: owner, name: name, parameters: parameters, result: result, availability: availability,
                  documentation: documentation, declaration: declaration, writtenParameters: written)
    }

    static func matchingParenthesis(_ text: Substring) -> Substring.Index {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            switch text[index] {
            case "(", "[", "<": depth += 1
            case ")", "]", ">":
                if text[index] == ">", index > text.startIndex, text[text.index(before: index)] == "-" { break }
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index = text.index(after: index)
        }
        preconditionFailure("surface table: unbalanced parentheses in '\(text)'")
    }

    /// Splits `a: T, b: [K: V] = [:]` at commas outside brackets.
    static func splitTopLevel(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            switch text[index] {
            case "(", "[", "<": depth += 1
            case ")", "]": depth -= 1
            case ">": if index == text.startIndex || text[text.index(before: index)] != "-" { depth -= 1 }
            case "," where depth == 0:
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
            index = text.index(after: index)
        }
        let last = text[start...]
        if !last.trimmingSpaces.isEmpty { parts.append(last) }
        return parts
    }

    static func parameter(_ text: Substring) -> SurfaceParameter {
        guard let colon = text.firstIndex(of: ":") else { preconditionFailure("surface table: parameter '\(text)' needs 'label: Type'") }
        let labelText = text[..<colon].trimmingSpaces
        let label = labelText.split(separator: " ").first.map(String.init) ?? labelText
        var type = Substring(text[text.index(after: colon)...].trimmingSpaces)
        var hasDefault = false
        if let equals = type.firstRange(of: " = ") {
            hasDefault = true
            type = type[..<equals.lowerBound]
        }
        return SurfaceParameter(label: label == "_" ? nil : label, type: String(type), hasDefault: hasDefault)
    }
}

extension StringProtocol {
    var replacingBackticks: String { String(filter { $0 != "`" }) }

    var trimmingSpaces: String {
        var slice = Substring(self)
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return String(slice)
    }
}
