/// The surface of prompt files: every type, initializer, member, argument
/// label, enum case and global function fmplay supports, declared once.
///
/// The supported-Swift checker, the interpreter's dispatch, completion, hover
/// and signature help all read `Surface.table`. An entry's `id`
/// (`LanguageModelSession.respond(to:generating:)`) names its implementation:
/// the evaluator registers one function per id (`Sources/PlaygroundLibrary`)
/// and a parity test fails when either side has an id the other lacks.

/// When an API appeared (or `swift` for the standard library and Foundation).
public enum SurfaceAvailability: String, Sendable, CaseIterable {
    /// The 26.0 betas (June 2025): forms later releases replaced, still accepted.
    case beta = "26.0 beta"
    case v26_0 = "26.0"
    case v26_4 = "26.4"
    case v27_0 = "27.0"
    /// The Swift standard library or Foundation.
    case swift = "Swift"
    /// fmplay's own name, not in Apple's API: it runs, and lint warns (FM316) with the documented form.
    case fmplay = "fmplay"
}

/// One parameter of an initializer, method, case or function.
public struct SurfaceParameter: Sendable, Hashable {
    /// The argument label; nil for an unlabelled (`_`) parameter.
    public var label: String?
    public var type: String
    public var hasDefault: Bool

    public init(label: String?, type: String, hasDefault: Bool) {
        self.label = label
        self.type = type
        self.hasDefault = hasDefault
    }

    /// A variadic parameter (`_: Any...`) takes several arguments.
    public var isVariadic: Bool { type.hasSuffix("...") }

    /// Whether a trailing closure can supply it (a closure or result-builder parameter).
    public var isClosure: Bool { type.contains("->") }
}

/// A member's parameters as its declaration writes them (`options: GenerationOptions = GenerationOptions()`)
/// and what follows them (` async throws -> LanguageModelSession.Response`).
public struct WrittenParameters: Sendable, Hashable {
    public var parameters: [String]
    public var tail: String
}

/// One member of a type, or a global function.
public struct SurfaceMember: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case initializer, property, method, staticProperty, staticMethod, enumCase, function
    }

    public var kind: Kind
    /// The owning type (`LanguageModelSession`), empty for a global function.
    public var owner: String
    public var name: String
    /// nil for properties and cases without payload.
    public var parameters: [SurfaceParameter]?
    /// The type of the value (property) or result (method, initializer); nil when it depends on the arguments.
    public var result: String?
    public var availability: SurfaceAvailability
    /// One line of documentation.
    public var documentation: String
    /// The declaration as written in the table (`func respond(to: Prompt) async throws -> Response`).
    public var declaration: String
    /// The parameters as the table writes them and what follows them, for signature help; nil
    /// for members without parameters. Read from `declaration` once, when the table is built:
    /// signature help lists every overload at every `(` and `,` typed.
    public var writtenParameters: WrittenParameters?

    public var isStatic: Bool { kind == .staticProperty || kind == .staticMethod || kind == .enumCase || kind == .initializer }
    public var isCallable: Bool { parameters != nil }

    /// `respond(to:generating:)`, `count`, `init(model:tools:instructions:)`.
    public var selector: String {
        guard let parameters else { return name }
        return name + "(" + parameters.map { ($0.label ?? "_") + ":" }.joined() + ")"
    }

    /// `LanguageModelSession.respond(to:generating:)`; `print(_:separator:)` for a global function.
    public var id: String { owner.isEmpty ? selector : owner + "." + selector }
}

/// A supported type and its members.
public struct SurfaceType: Sendable {
    public enum Kind: String, Sendable { case `struct`, `enum`, `class`, `protocol` }

    public var name: String
    public var kind: Kind
    public var availability: SurfaceAvailability
    public var documentation: String
    public var members: [SurfaceMember]
    /// The module that declares it (`FoundationModels`, `Swift`, `Foundation`).
    public var module: String
}

/// A module prompt files may import.
public struct SurfaceModule: Sendable {
    public var name: String
    public var documentation: String
}
