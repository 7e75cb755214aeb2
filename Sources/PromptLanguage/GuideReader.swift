import SwiftSyntax

/// Reads one guide expression of `@Guide(...)`: `.range(1...5)`,
/// `.count(3)`, a regex literal, a `Regex { ... }` builder, and so on.
/// What it cannot read becomes `Guide.Kind.unrecognized` with a reason.
struct GuideReader {
    let source: SourceText

    func read(_ expression: ExprSyntax) -> Guide {
        Guide(kind: kind(of: expression), range: source.range(of: expression))
    }

    private func kind(of expression: ExprSyntax) -> Guide.Kind {
        if let regex = regexPattern(expression) { return regex }
        guard let call = expression.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            member.base == nil || member.base!.trimmedText.hasSuffix("GenerationGuide")
                || member.base!.trimmedText.hasPrefix("GenerationGuide<")
        else {
            return .unrecognized("'\(expression.trimmedText)' is not a guide; use .anyOf, .constant, .pattern, .minimum, .maximum, .range, .count, .minimumCount, .maximumCount or .element")
        }
        let name = member.declName.baseName.text
        guard call.arguments.count == 1, let argument = call.arguments.first, argument.label == nil else {
            return .unrecognized(".\(name) takes exactly one unlabelled argument")
        }
        let value = argument.expression
        switch name {
        case "anyOf":
            guard case .array(let items)? = SyntaxReading.literal(value) else {
                return .unrecognized(".anyOf needs an array literal of strings")
            }
            let strings = items.compactMap(\.stringValue)
            guard strings.count == items.count else { return .unrecognized(".anyOf needs string literals") }
            return .anyOf(strings)
        case "constant":
            guard let text = SyntaxReading.literal(value)?.stringValue else {
                return .unrecognized(".constant needs a string literal")
            }
            return .constant(text)
        case "pattern":
            if case .pattern(let source)? = regexPattern(value) { return .pattern(source) }
            if let text = SyntaxReading.literal(value)?.stringValue { return .pattern(text) }
            if case .unrecognized(let reason)? = regexPattern(value) { return .unrecognized(reason) }
            return .unrecognized(".pattern needs a regex literal, a Regex { } builder or a string pattern")
        case "minimum", "maximum":
            guard let number = SyntaxReading.literal(value)?.doubleValue else {
                return .unrecognized(".\(name) needs a number literal")
            }
            return name == "minimum" ? .minimum(number) : .maximum(number)
        case "range":
            guard let (lower, op, upper) = SyntaxReading.rangeOperands(value), op == "...",
                let low = SyntaxReading.literal(lower)?.doubleValue, let high = SyntaxReading.literal(upper)?.doubleValue
            else {
                return .unrecognized(".range needs a closed range of number literals, such as 1...10")
            }
            return .range(low, high)
        case "count":
            if case .integer(let count)? = SyntaxReading.literal(value) { return .count(count) }
            guard let (lower, op, upper) = SyntaxReading.rangeOperands(value), op == "...",
                case .integer(let low)? = SyntaxReading.literal(lower), case .integer(let high)? = SyntaxReading.literal(upper)
            else {
                return .unrecognized(".count needs an integer literal or a closed range of integer literals, such as 3...8")
            }
            return .countRange(low, high)
        case "minimumCount", "maximumCount":
            guard case .integer(let count)? = SyntaxReading.literal(value) else {
                return .unrecognized(".\(name) needs an integer literal")
            }
            return name == "minimumCount" ? .minimumCount(count) : .maximumCount(count)
        case "element":
            return .element(read(value))
        default:
            return .unrecognized("'.\(name)' is not a guide; use .anyOf, .constant, .pattern, .minimum, .maximum, .range, .count, .minimumCount, .maximumCount or .element")
        }
    }

    /// A regex written as a literal, `Regex { ... }`, `Regex("...")` or
    /// `try Regex("...")` (also with `try!`).
    /// Whether a callee's text is exactly `Regex`, without building the text
    /// for the common `.anyOf(...)`-style member accesses.
    private static func isRegexName(_ callee: ExprSyntax) -> Bool {
        if let reference = callee.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil {
            return reference.baseName.text == "Regex"
        }
        if let member = callee.as(MemberAccessExprSyntax.self), member.period.presence == .present { return false }
        return callee.trimmedText == "Regex"
    }

    private func regexPattern(_ expression: ExprSyntax) -> Guide.Kind? {
        var expression = expression
        if let tryExpression = expression.as(TryExprSyntax.self) { expression = tryExpression.expression }
        if let literal = expression.as(RegexLiteralExprSyntax.self) { return .pattern(literal.regex.text) }
        guard let call = expression.as(FunctionCallExprSyntax.self), Self.isRegexName(call.calledExpression) else {
            return nil
        }
        if let closure = call.trailingClosure, call.arguments.isEmpty {
            do {
                return .pattern(try RegexBuilderTranslator.translate(closure.statements))
            } catch {
                return .unrecognized(error.reason)
            }
        }
        if call.arguments.count == 1, let text = SyntaxReading.literal(call.arguments.first!.expression)?.stringValue {
            return .pattern(text)
        }
        return .unrecognized("Regex(...) needs a string literal or a builder closure")
    }
}

/// Translates the common subset of RegexBuilder into regex source:
/// string literals, `Capture`, `TryCapture`, `ChoiceOf`, `OneOrMore`,
/// `ZeroOrMore`, `Optionally`, `Repeat(count:)`/`Repeat(n...m)`, the
/// character classes `.word`, `.digit`, `.whitespace`, `.any`,
/// `.anyOf("...")` and regex literals.
enum RegexBuilderTranslator {
    struct Unsupported: Error {
        var reason: String
    }

    static func translate(_ statements: CodeBlockItemListSyntax) throws(Unsupported) -> String {
        var parts: [String] = []
        for item in statements {
            guard case .expr(let expression) = item.item else {
                throw Unsupported(reason: "Regex builder: only expressions are supported, not '\(item.trimmedText)'")
            }
            parts.append(try component(expression))
        }
        return parts.joined()
    }

    private static func group(_ content: String) -> String {
        content.count <= 1 || (content.hasPrefix("(") && content.hasSuffix(")") && balancedGroup(content)) ? content : "(?:\(content))"
    }

    /// True when the first `(` closes at the last character.
    private static func balancedGroup(_ content: String) -> Bool {
        var depth = 0
        var escaped = false
        for (index, character) in content.enumerated() {
            if escaped { escaped = false; continue }
            if character == "\\" { escaped = true; continue }
            if character == "(" { depth += 1 }
            if character == ")" {
                depth -= 1
                if depth == 0 && index != content.count - 1 { return false }
            }
        }
        return true
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\^$.|?*+()[]{}/".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    private static func component(_ expression: ExprSyntax) throws(Unsupported) -> String {
        if let string = expression.as(StringLiteralExprSyntax.self) {
            guard let text = string.representedLiteralValue else {
                throw Unsupported(reason: "Regex builder: string interpolation is not supported")
            }
            return escape(text)
        }
        if let literal = expression.as(RegexLiteralExprSyntax.self) { return "(?:\(literal.regex.text))" }
        if let member = expression.as(MemberAccessExprSyntax.self) { return try characterClass(member, arguments: nil) }
        guard let call = expression.as(FunctionCallExprSyntax.self) else {
            throw Unsupported(reason: "Regex builder: '\(expression.trimmedText)' is not supported")
        }
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
            return try characterClass(member, arguments: call.arguments)
        }
        let name = call.calledExpression.trimmedText
        var inner: String
        if let closure = call.trailingClosure {
            if name == "ChoiceOf" {
                var choices: [String] = []
                for item in closure.statements {
                    guard case .expr(let choice) = item.item else {
                        throw Unsupported(reason: "Regex builder: ChoiceOf takes expressions")
                    }
                    choices.append(try component(choice))
                }
                return "(?:" + choices.joined(separator: "|") + ")"
            }
            inner = try translate(closure.statements)
        } else if let first = call.arguments.first, first.label == nil {
            inner = try component(first.expression)
        } else {
            throw Unsupported(reason: "Regex builder: '\(name)' needs a component")
        }
        switch name {
        case "Capture", "TryCapture": return "(\(inner))"
        case "OneOrMore": return group(inner) + "+"
        case "ZeroOrMore": return group(inner) + "*"
        case "Optionally": return group(inner) + "?"
        case "Local", "Anchor": return group(inner)
        case "Repeat":
            if let count = SyntaxReading.argument("count", in: call.arguments),
                case .integer(let n)? = SyntaxReading.literal(count.expression)
            {
                return group(inner) + "{\(n)}"
            }
            let rangeArgument = call.arguments.first { $0.label == nil && SyntaxReading.rangeOperands($0.expression) != nil }
            if let rangeArgument, let (lower, op, upper) = SyntaxReading.rangeOperands(rangeArgument.expression),
                case .integer(let low)? = SyntaxReading.literal(lower), case .integer(var high)? = SyntaxReading.literal(upper)
            {
                if op == "..<" { high -= 1 }
                return group(inner) + "{\(low),\(high)}"
            }
            throw Unsupported(reason: "Regex builder: Repeat needs count: or a literal range")
        default:
            throw Unsupported(reason: "Regex builder: '\(name)' is not supported; use a regex literal instead")
        }
    }

    private static func characterClass(_ member: MemberAccessExprSyntax, arguments: LabeledExprListSyntax?) throws(Unsupported) -> String {
        let name = member.declName.baseName.text
        if let arguments {
            if name == "anyOf" || name == "noneOf", let first = arguments.first,
                let text = SyntaxReading.literal(first.expression)?.stringValue
            {
                let escaped = text.map { "\\^-]".contains($0) ? "\\\($0)" : String($0) }.joined()
                return name == "anyOf" ? "[\(escaped)]" : "[^\(escaped)]"
            }
            throw Unsupported(reason: "Regex builder: '.\(name)(...)' is not supported")
        }
        switch name {
        case "word": return "\\w"
        case "digit": return "\\d"
        case "whitespace": return "\\s"
        case "any": return "."
        case "newlineSequence": return "\\n"
        case "hexDigit": return "[0-9A-Fa-f]"
        default: throw Unsupported(reason: "Regex builder: '.\(name)' is not supported")
        }
    }
}
