import PromptLanguage
import Surface
import SwiftSyntax

/// The signatures of the call around a position, the overload its arguments
/// fit and the parameter the cursor's argument goes to.
public struct SignatureHelp: Sendable, Equatable {
    public var signatures: [Signature]
    /// The first overload whose labels fit every argument written, else the first
    /// that fits those before the cursor, else 0.
    public var activeSignature: Int

    /// The active signature's parameter at the cursor; nil when the arguments fit none of its parameters.
    public var activeParameter: Int? { signatures[activeSignature].activeParameter }
}

/// One overload: `respond(to: Prompt, options: GenerationOptions = GenerationOptions()) async throws -> ...`.
public struct Signature: Sendable, Equatable {
    public var label: String
    public var documentation: String?
    /// Each parameter's UTF-8 offsets within `label`.
    public var parameters: [Range<Int>]
    /// The parameter the cursor's argument goes to in this overload, if the labels fit it.
    public var activeParameter: Int?

    /// A parameter's text (`generating: Generable.Type`).
    public func parameterText(_ index: Int) -> String {
        String(decoding: Array(label.utf8)[parameters[index]], as: UTF8.self)
    }
}

/// A callable form before it is laid out: the table's initializers, methods and
/// functions, and the file's own functions, methods and initializers.
struct SignatureForm {
    /// `LanguageModelSession(`, `respond(`.
    var head: String
    /// Each parameter as written (`temperature: Double? = nil`).
    var texts: [String]
    /// The same parameters for label matching.
    var parameters: [SurfaceParameter]
    /// What follows the parameters (` async throws -> String`).
    var tail: String
    var documentation: String?

    init(head: String, texts: [String], parameters: [SurfaceParameter], tail: String, documentation: String?) {
        self.head = head
        self.texts = texts
        self.parameters = parameters
        self.tail = tail
        self.documentation = documentation
    }

    /// A table entry; nil for one without parameters.
    init?(entry: SurfaceMember) {
        guard let parameters = entry.parameters, let written = entry.writtenParameters else { return nil }
        let origin = (entry.owner.isEmpty ? "" : "\(entry.owner) · ") + entry.availability.rawValue
        self.init(head: (entry.kind == .initializer ? entry.owner : entry.name) + "(", texts: written.parameters, parameters: parameters,
                  tail: written.tail, documentation: entry.documentation + "\n" + origin)
    }

    func signature(activeParameter: Int?) -> Signature {
        var label = head
        var ranges: [Range<Int>] = []
        for (index, text) in texts.enumerated() {
            if index > 0 { label += ", " }
            let start = label.utf8.count
            label += text
            ranges.append(start..<label.utf8.count)
        }
        label += ")" + tail
        return Signature(label: label, documentation: documentation, parameters: ranges, activeParameter: activeParameter)
    }
}

/// Where the cursor is among a call's arguments.
struct ArgumentPosition {
    enum Current {
        /// `label: value` (or `label:` with the value still to come).
        case labelled(String)
        /// An expression without a label.
        case unlabelled
        /// A lone name without a label: a value, or a label being typed.
        case name(String)
        /// Nothing written yet (after `(` or `,`).
        case empty
    }

    /// Which argument the cursor is in.
    var index: Int
    var labelsBefore: [String?]
    var current: Current
    /// The labels of every argument written (the empty one at the cursor left out).
    var allLabels: [String?]

    init(_ call: FunctionCallExprSyntax, offset: Int) {
        let arguments = Array(call.arguments)
        var index = 0
        for argument in arguments {
            guard let comma = argument.trailingComma, comma.presence == .present,
                  comma.endPositionBeforeTrailingTrivia.utf8Offset <= offset else { break }
            index += 1
        }
        func label(_ argument: LabeledExprSyntax) -> String? {
            argument.label.flatMap { $0.presence == .present ? $0.text : nil }
        }
        self.index = index
        labelsBefore = arguments.prefix(index).map(label)
        allLabels = arguments.filter { label($0) != nil || !$0.expression.is(MissingExprSyntax.self) }.map(label)
        if index < arguments.count {
            let argument = arguments[index]
            if let text = label(argument) {
                current = .labelled(text)
            } else if argument.expression.is(MissingExprSyntax.self) {
                current = .empty
            } else if let reference = argument.expression.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil {
                current = .name(reference.baseName.text)
            } else {
                current = .unlabelled
            }
        } else {
            current = .empty
        }
    }

    /// The parameter the cursor's argument goes to, or nil when the labels do not fit.
    func parameter(in parameters: [SurfaceParameter]) -> Int? {
        guard let before = SurfaceTable.positions(parameters, labels: labelsBefore) else { return nil }
        let previous = before.last
        switch current {
        case .labelled(let label):
            return SurfaceTable.positions(parameters, labels: labelsBefore + [label])?.last
        case .unlabelled:
            return SurfaceTable.positions(parameters, labels: labelsBefore + [nil])?.last
        case .name(let word):
            if let position = SurfaceTable.positions(parameters, labels: labelsBefore + [nil])?.last { return position }
            // A label being typed: the next parameter whose label starts with it.
            let from = previous.map { $0 + 1 } ?? 0
            guard from < parameters.count else { return nil }
            return parameters[from...].firstIndex { $0.label?.hasPrefix(word) == true }
        case .empty:
            if let previous, parameters[previous].isVariadic { return previous }
            let next = (previous ?? -1) + 1
            return next < parameters.count ? next : nil
        }
    }
}

extension IDEDocument {
    /// Signature help at a UTF-8 offset: the forms of the innermost call whose
    /// parentheses hold the offset, from the surface table and from the file's
    /// own declarations. nil outside any call's parentheses and for a callee
    /// neither knows.
    public func signatureHelp(at offset: Int) -> SignatureHelp? {
        guard let call = call(around: offset) else { return nil }
        let forms = signatureForms(of: call)
        guard !forms.isEmpty else { return nil }
        let position = ArgumentPosition(call, offset: offset)
        let signatures = forms.map { $0.signature(activeParameter: position.parameter(in: $0.parameters)) }
        let active = forms.indices.first { signatures[$0].activeParameter != nil && SurfaceTable.positions(forms[$0].parameters, labels: position.allLabels) != nil }
            ?? forms.indices.first { signatures[$0].activeParameter != nil }
            ?? forms.indices.first { SurfaceTable.positions(forms[$0].parameters, labels: position.labelsBefore) != nil }
            ?? 0
        return SignatureHelp(signatures: signatures, activeSignature: active)
    }

    /// The innermost call whose argument parentheses hold `offset` (not a call whose
    /// trailing closure or argument closure's statements hold it).
    func call(around offset: Int) -> FunctionCallExprSyntax? {
        guard offset >= 0, offset <= bytes.count else { return nil }
        var best: FunctionCallExprSyntax?
        // The token at the cursor, the one before it, and the last written token before the cursor
        // (at the end of the text the cursor is in the end-of-file token's trivia).
        let near = [offset, offset - 1].filter { $0 >= 0 }.compactMap { file.syntax.token(at: AbsolutePosition(utf8Offset: $0)) }
        for token in near + near.compactMap({ $0.previousToken(viewMode: .sourceAccurate) }) {
            var node: Syntax? = Syntax(token)
            while let current = node {
                if let call = current.as(FunctionCallExprSyntax.self), let start = Self.argumentsStart(call), Self.arguments(of: call, hold: offset) {
                    if best.flatMap(Self.argumentsStart).map({ start > $0 }) ?? true { best = call }
                    break
                }
                if current.is(CodeBlockItemSyntax.self) || current.is(MemberBlockItemSyntax.self) { break }
                node = current.parent
            }
        }
        return best
    }

    private static func argumentsStart(_ call: FunctionCallExprSyntax) -> Int? {
        guard let left = call.leftParen, left.presence == .present else { return nil }
        return left.endPositionBeforeTrailingTrivia.utf8Offset
    }

    private static func arguments(of call: FunctionCallExprSyntax, hold offset: Int) -> Bool {
        guard let start = argumentsStart(call), offset >= start else { return false }
        if let right = call.rightParen, right.presence == .present {
            return offset <= right.positionAfterSkippingLeadingTrivia.utf8Offset
        }
        // Still being typed: up to the next token written after the call.
        let next = call.lastToken(viewMode: .sourceAccurate)?.nextToken(viewMode: .sourceAccurate)
        return offset <= (next?.positionAfterSkippingLeadingTrivia.utf8Offset ?? Int.max)
    }

    /// The table's forms of the callee (all overloads), then the file's own.
    func signatureForms(of call: FunctionCallExprSyntax) -> [SignatureForm] {
        let lookup = SurfaceLookup(file: file, inference: analysis.surface)
        let declared = FileSignatures.of(file).forms(of: call)
        let table = lookup.forms(of: call).compactMap(SignatureForm.init(entry:))
        // A type the file declares shadows the table's; its own forms come first.
        return declared + table
    }
}
