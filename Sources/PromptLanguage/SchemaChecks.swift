import Schema

/// FM1xx: Generable types, their properties and guides.
struct SchemaChecks {
    let file: PromptFile
    private var builder: SchemaBuilder { SchemaBuilder(file: file) }
    private var fixes: FixItFactory { FixItFactory(source: file.source) }

    func run() -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for type in file.types where type.isGenerable {
            guard type.kind == .struct || type.kind == .enum else {
                let range = type.generableAttribute?.range ?? type.nameRange
                diagnostics.append(Diagnostic(
                    .generableOnUnsupportedDeclaration, at: range,
                    "@Generable applies to structs and enums, but '\(type.name)' is \(type.kind == .actor ? "an" : "a") \(type.kind.rawValue); declare it as a struct (or an enum), or remove @Generable",
                    fixIts: [FixIt(title: "remove @Generable", edits: [fixes.deleteLine(containing: range)])]))
                continue
            }
            if type.kind == .enum {
                diagnostics += checkEnum(type)
            } else {
                diagnostics += checkStruct(type)
            }
        }
        diagnostics += checkRecursion()
        return diagnostics
    }

    // MARK: Structs and enums

    private func checkStruct(_ type: TypeDeclaration) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var seen: [String: PropertyDeclaration] = [:]
        for property in type.properties {
            if let first = seen[property.name] {
                diagnostics.append(Diagnostic(
                    .duplicateMember, at: property.nameRange,
                    "property '\(property.name)' is declared twice in '\(type.name)'; rename or remove one",
                    notes: [DiagnosticNote(range: first.nameRange, message: "first declared here")]))
            } else {
                seen[property.name] = property
            }
            guard let declared = property.type else {
                var fixIts: [FixIt] = []
                if let inferred = Self.inferredTypeName(property.literalValue) {
                    fixIts.append(FixIt(title: "add ': \(inferred)'", edits: [TextEdit(range: file.source.range(property.nameRange.offsets.upperBound..<property.nameRange.offsets.upperBound), newText: ": \(inferred)")]))
                }
                diagnostics.append(Diagnostic(
                    .missingTypeAnnotation, at: property.nameRange,
                    "property '\(property.name)' of @Generable '\(type.name)' needs an explicit type, such as ': String'; the schema is built from declared types",
                    fixIts: fixIts))
                continue
            }
            if declared.text.isEmpty { continue }  // a syntax error, reported by the parser
            diagnostics += checkType(declared, scope: type.qualifiedName, owner: "property '\(property.name)'")
            if let base = baseSchemaType(declared, scope: type.qualifiedName) {
                diagnostics += checkGuides(property.guides, on: base)
            } else {
                for guide in property.guides { if case .unrecognized(let reason) = guide.kind { diagnostics.append(unrecognized(guide, reason)) } }
            }
        }
        diagnostics += checkSummaryOrder(type)
        return diagnostics
    }

    private func checkEnum(_ type: TypeDeclaration) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        if type.cases.isEmpty {
            diagnostics.append(Diagnostic(
                .enumWithoutCases, at: type.nameRange,
                "@Generable enum '\(type.name)' has no cases, so no value can be generated; add at least one case"))
        }
        var seen: [String: EnumCaseDeclaration] = [:]
        for enumCase in type.cases {
            if let first = seen[enumCase.name] {
                diagnostics.append(Diagnostic(
                    .duplicateMember, at: enumCase.nameRange,
                    "case '\(enumCase.name)' is declared twice in '\(type.name)'; rename or remove one",
                    notes: [DiagnosticNote(range: first.nameRange, message: "first declared here")]))
            } else {
                seen[enumCase.name] = enumCase
            }
            for value in enumCase.associatedValues {
                diagnostics += checkType(value.type, scope: type.qualifiedName, owner: "associated value of case '\(enumCase.name)'")
            }
        }
        return diagnostics
    }

    /// FM101/FM102 for a type as written, recursing into arrays and optionals.
    private func checkType(_ reference: TypeReference, scope: String, owner: String) -> [Diagnostic] {
        switch builder.classify(reference, in: scope) {
        case .array(let element):
            return checkType(element, scope: scope, owner: owner)
        case .notGenerable(let declaration):
            if case .optional(let wrapped) = reference.shape { return checkType(wrapped, scope: scope, owner: owner) }
            var fixIts: [FixIt] = []
            if declaration.kind == .struct || declaration.kind == .enum {
                fixIts.append(FixIt(title: "add @Generable to '\(declaration.name)'", edits: [fixes.insertAttribute("@Generable", before: declaration)]))
            }
            return [Diagnostic(
                .referencedTypeNotGenerable, at: reference.unwrappedOptional.range,
                "\(owner) has type '\(declaration.name)', which is not @Generable; add @Generable to the declaration of '\(declaration.name)'",
                fixIts: fixIts, notes: [DiagnosticNote(range: declaration.nameRange, message: "'\(declaration.name)' declared here")])]
        case .unsupported(let reason, let suggestion):
            if case .optional(let wrapped) = reference.shape { return checkType(wrapped, scope: scope, owner: owner) }
            var fixIts: [FixIt] = []
            if let replacement = Self.mechanicalReplacement(reference) {
                fixIts.append(FixIt(title: "use '\(replacement)'", edits: [TextEdit(range: reference.range, newText: replacement)]))
            }
            return [Diagnostic(
                .unsupportedPropertyType, at: reference.range,
                "\(owner) cannot be generated: \(reason); \(suggestion)", fixIts: fixIts)]
        default:
            return []
        }
    }

    private static func mechanicalReplacement(_ reference: TypeReference) -> String? {
        switch reference.shape {
        case .named(let name, let arguments):
            switch name {
            case "Date", "URL", "Character", "Substring", "Foundation.Date", "Foundation.URL": return "String"
            case "CGFloat": return "Double"
            case "Float16": return "Float"
            case "UUID", "Foundation.UUID": return "GenerationID"
            case "Set" where arguments.count == 1: return "[\(arguments[0].text)]"
            default: return nil
            }
        default:
            return nil
        }
    }

    private static func inferredTypeName(_ literal: LiteralValue?) -> String? {
        switch literal {
        case .string: "String"
        case .integer: "Int"
        case .double: "Double"
        case .boolean: "Bool"
        default: nil
        }
    }

    /// The unguided schema type of a declared type, or nil when it cannot be
    /// generated (that is reported separately).
    private func baseSchemaType(_ reference: TypeReference, scope: String) -> SchemaType? {
        switch builder.classify(reference.unwrappedOptional, in: scope) {
        case .string: return .string(.none)
        case .integer: return .integer(.none)
        case .number: return .number(.none)
        case .boolean: return .boolean
        case .generatedContent: return .any
        case .array(let element):
            return .array(element: baseSchemaType(element, scope: scope) ?? .any, guides: .none)
        case .generable(let type): return .reference(type.name)
        case .generationID, .notGenerable, .unsupported: return nil
        }
    }

    // MARK: Guides

    private func unrecognized(_ guide: Guide, _ reason: String) -> Diagnostic {
        Diagnostic(.unrecognizedGuide, at: guide.range, "cannot read this guide: \(reason)")
    }

    /// FM105-FM112 for the guides of one property (or of an array's elements).
    private func checkGuides(_ guides: [Guide], on type: SchemaType) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var applicable: [Guide] = []
        var elementGuides: [Guide] = []
        for guide in guides {
            if case .unrecognized(let reason) = guide.kind {
                diagnostics.append(unrecognized(guide, reason))
                continue
            }
            if case .element(let inner) = guide.kind, case .array(let element, _) = type {
                if case .unrecognized(let reason) = inner.kind {
                    diagnostics.append(unrecognized(inner, reason))
                } else if case .failure(let mismatch) = SchemaBuilder.apply(inner, to: element) {
                    diagnostics.append(Diagnostic(.guideOnWrongType, at: inner.range, "the array's elements are \(element.kindDescription): \(mismatch.message)\(Self.advice(inner, element))"))
                } else {
                    elementGuides.append(inner)
                }
                continue
            }
            switch SchemaBuilder.apply(guide, to: type) {
            case .success: applicable.append(guide)
            case .failure(let mismatch):
                diagnostics.append(Diagnostic(.guideOnWrongType, at: guide.range, "\(mismatch.message)\(Self.advice(guide, type))"))
            }
        }
        diagnostics += checkBounds(applicable)
        diagnostics += checkCounts(applicable)
        diagnostics += checkStrings(applicable)
        if !elementGuides.isEmpty, case .array(let element, _) = type {
            diagnostics += checkGuides(elementGuides, on: element)
        }
        return diagnostics
    }

    private static func advice(_ guide: Guide, _ type: SchemaType) -> String {
        switch (guide.kind, type) {
        case (.count, .string), (.countRange, .string), (.minimumCount, .string), (.maximumCount, .string):
            return "; to limit a string's length use .pattern, such as /.{1,40}/, or describe the length in @Guide(description:)"
        case (.range, .string), (.minimum, .string), (.maximum, .string):
            return "; make the property a number (Int or Double) or use .anyOf for fixed choices"
        case (.pattern, .integer), (.pattern, .number):
            return "; bound numbers with .range, .minimum or .maximum, or make the property a String"
        case (.anyOf, .integer), (.anyOf, .number), (.constant, .integer), (.constant, .number):
            return "; bound numbers with .range, or use a @Generable enum for fixed choices"
        case (_, .array):
            return "; to constrain the elements use .element(...)"
        default:
            return "; remove it"
        }
    }

    private func checkBounds(_ guides: [Guide]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var minimum: (value: Double, guide: Guide)?
        var maximum: (value: Double, guide: Guide)?
        for guide in guides {
            switch guide.kind {
            case .range(let low, let high):
                if low > high {
                    diagnostics.append(Diagnostic(.contradictoryBounds, at: guide.range, "this range's lower bound \(Self.number(low)) is above its upper bound \(Self.number(high)); write .range(\(Self.number(high))...\(Self.number(low)))"))
                    continue
                }
                minimum = (low, guide)
                maximum = (high, guide)
            case .minimum(let value): minimum = (value, guide)
            case .maximum(let value): maximum = (value, guide)
            default: continue
            }
            if let minimum, let maximum, minimum.value > maximum.value {
                diagnostics.append(Diagnostic(
                    .contradictoryBounds, at: guide.range,
                    "minimum \(Self.number(minimum.value)) is above maximum \(Self.number(maximum.value)), so no value satisfies both; lower the minimum or raise the maximum",
                    notes: [DiagnosticNote(range: (guide == minimum.guide ? maximum.guide : minimum.guide).range, message: "the other bound")]))
            }
        }
        return diagnostics
    }

    private func checkCounts(_ guides: [Guide]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var minimum: (value: Int, guide: Guide)?
        var maximum: (value: Int, guide: Guide)?
        for guide in guides {
            switch guide.kind {
            case .count(let n):
                guard n >= 0 else {
                    diagnostics.append(Diagnostic(.negativeCount, at: guide.range, "count \(n) is negative; an array has 0 or more elements"))
                    continue
                }
                if let maximum, n > maximum.value { diagnostics.append(conflict("count(\(n))", "maximumCount(\(maximum.value))", guide, maximum.guide)) }
                if let minimum, n < minimum.value { diagnostics.append(conflict("count(\(n))", "minimumCount(\(minimum.value))", guide, minimum.guide)) }
                minimum = (n, guide)
                maximum = (n, guide)
                continue
            case .countRange(let low, let high):
                if low < 0 || high < 0 {
                    diagnostics.append(Diagnostic(.negativeCount, at: guide.range, "count range \(low)...\(high) has a negative bound; an array has 0 or more elements"))
                    continue
                }
                if low > high {
                    diagnostics.append(Diagnostic(.contradictoryCounts, at: guide.range, "count range \(low)...\(high) is empty; write .count(\(high)...\(low))"))
                    continue
                }
                minimum = (low, guide)
                maximum = (high, guide)
                continue
            case .minimumCount(let n):
                guard n >= 0 else {
                    diagnostics.append(Diagnostic(.negativeCount, at: guide.range, "minimumCount \(n) is negative; use 0 or more"))
                    continue
                }
                if let maximum, n > maximum.value {
                    diagnostics.append(conflict("minimumCount(\(n))", "\(maximum.guide.name)(\(maximum.value))", guide, maximum.guide))
                }
                minimum = (n, guide)
            case .maximumCount(let n):
                guard n >= 0 else {
                    diagnostics.append(Diagnostic(.negativeCount, at: guide.range, "maximumCount \(n) is negative; use 0 or more"))
                    continue
                }
                if let minimum, n < minimum.value {
                    diagnostics.append(conflict("maximumCount(\(n))", "\(minimum.guide.name)(\(minimum.value))", guide, minimum.guide))
                }
                maximum = (n, guide)
            default:
                continue
            }
        }
        return diagnostics
    }

    private func conflict(_ this: String, _ other: String, _ guide: Guide, _ otherGuide: Guide) -> Diagnostic {
        Diagnostic(
            .contradictoryCounts, at: guide.range,
            "\(this) contradicts \(other): no array length satisfies both; remove one or make them agree",
            notes: [DiagnosticNote(range: otherGuide.range, message: "conflicting guide")])
    }

    private func checkStrings(_ guides: [Guide]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var pattern: (source: String, guide: Guide)?
        for guide in guides {
            guard case .pattern(let source) = guide.kind else { continue }
            if let problem = CompiledPatterns.problem(source) {
                diagnostics.append(Diagnostic(.invalidPattern, at: guide.range, "invalid regular expression /\(source)/: \(problem); fix the pattern"))
            } else {
                pattern = (source, guide)
            }
        }
        var anyOf: [String]?
        for guide in guides {
            switch guide.kind {
            case .anyOf(let values):
                anyOf = values
                if values.isEmpty {
                    diagnostics.append(Diagnostic(.emptyAnyOf, at: guide.range, ".anyOf([]) allows no value at all; list at least one choice, or remove the guide"))
                }
                var seen: Set<String> = []
                var unique: [String] = []
                var duplicates: [String] = []
                for value in values {
                    if seen.insert(value).inserted { unique.append(value) } else if !duplicates.contains(value) { duplicates.append(value) }
                }
                if !duplicates.isEmpty {
                    let literal = ".anyOf([" + unique.map(Self.swiftStringLiteral).joined(separator: ", ") + "])"
                    diagnostics.append(Diagnostic(
                        .duplicateAnyOfValue, at: guide.range,
                        ".anyOf lists \(duplicates.map { "\"\($0)\"" }.joined(separator: ", ")) more than once; remove the duplicates",
                        fixIts: [FixIt(title: "remove duplicate values", edits: [TextEdit(range: guide.range, newText: literal)])]))
                }
                if let pattern {
                    for value in unique where !CompiledPatterns.wholeMatches(pattern.source, value) {
                        diagnostics.append(Diagnostic(
                            .constantBreaksPattern, at: guide.range,
                            ".anyOf value \"\(value)\" does not match the pattern /\(pattern.source)/, so it can never be generated; change the value or the pattern",
                            notes: [DiagnosticNote(range: pattern.guide.range, message: "pattern here")]))
                    }
                }
            case .constant(let value):
                if let pattern, !CompiledPatterns.wholeMatches(pattern.source, value) {
                    diagnostics.append(Diagnostic(
                        .constantBreaksPattern, at: guide.range,
                        ".constant(\"\(value)\") does not match the pattern /\(pattern.source)/, so no value satisfies both; change the constant or the pattern",
                        notes: [DiagnosticNote(range: pattern.guide.range, message: "pattern here")]))
                }
                if let anyOf, !anyOf.contains(value) {
                    diagnostics.append(Diagnostic(
                        .constantBreaksPattern, at: guide.range,
                        ".constant(\"\(value)\") is not one of the .anyOf choices, so no value satisfies both; remove one of the guides"))
                }
            default:
                continue
            }
        }
        return diagnostics
    }

    static func swiftStringLiteral(_ value: String) -> String {
        var out = "\""
        for character in value {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.append(character)
            }
        }
        return out + "\""
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    // MARK: Property order

    static let summaryWords = ["summary", "overview", "conclusion", "tldr", "recap", "verdict"]

    static func isSummaryName(_ name: String) -> Bool {
        let lowered = Array(name.lowercased().utf8)
        return summaryWords.contains { TextSearch.contains(lowered, $0.utf8) }
    }

    private func checkSummaryOrder(_ type: TypeDeclaration) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let properties = type.properties
        for (index, property) in properties.enumerated() where Self.isSummaryName(property.name) {
            let later = properties[(index + 1)...].filter { !Self.isSummaryName($0.name) }
            guard let last = properties.last, !later.isEmpty else { continue }
            var fixIts: [FixIt] = []
            let sharesDeclaration = properties.contains { $0.name != property.name && $0.range == property.range }
            if !sharesDeclaration, !properties.contains(where: { $0.name != last.name && $0.range == last.range }) {
                fixIts.append(fixes.moveLines(of: property.range, after: last.range, title: "move '\(property.name)' to the end"))
            }
            diagnostics.append(Diagnostic(
                .summaryPropertyNotLast, at: property.nameRange,
                "'\(property.name)' summarises, but it is declared before \(Self.list(later.map(\.name))); properties generate in declaration order, so a summary comes out best last. Move it after them",
                fixIts: fixIts))
        }
        return diagnostics
    }

    private static func list(_ names: [String]) -> String {
        let quoted = names.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
        return names.count > 3 ? quoted + " and \(names.count - 3) more" : quoted
    }

    // MARK: Recursion

    /// FM113: a type that can only be generated forever. A struct is finite
    /// when every required (non-optional, non-array) property is finite; an
    /// enum when some case is.
    private func checkRecursion() -> [Diagnostic] {
        let generable = file.types.filter { $0.isGenerable && ($0.kind == .struct || $0.kind == .enum) }
        var finite: Set<String> = []
        func required(_ references: [TypeReference], scope: String) -> [TypeDeclaration] {
            references.compactMap { reference in
                guard case .named = reference.shape, case .generable(let type) = builder.classify(reference, in: scope) else { return nil }
                return type
            }
        }
        func requiredReferences(_ type: TypeDeclaration) -> [[TypeDeclaration]] {
            if type.kind == .enum {
                return type.cases.map { required($0.associatedValues.map(\.type), scope: type.qualifiedName) }
            }
            return [required(type.properties.compactMap(\.type), scope: type.qualifiedName)]
        }
        var changed = true
        while changed {
            changed = false
            for type in generable where !finite.contains(type.qualifiedName) {
                let groups = requiredReferences(type)
                let isFinite = type.kind == .enum
                    ? groups.isEmpty || groups.contains { $0.allSatisfy { finite.contains($0.qualifiedName) } }
                    : groups.allSatisfy { $0.allSatisfy { finite.contains($0.qualifiedName) } }
                if isFinite {
                    finite.insert(type.qualifiedName)
                    changed = true
                }
            }
        }
        var diagnostics: [Diagnostic] = []
        for type in generable where !finite.contains(type.qualifiedName) {
            if type.kind == .enum && type.cases.isEmpty { continue }
            if type.kind == .struct {
                guard let property = type.properties.first(where: { property in
                    guard let reference = property.type, case .named = reference.shape,
                        case .generable(let target) = builder.classify(reference, in: type.qualifiedName)
                    else { return false }
                    return !finite.contains(target.qualifiedName)
                }), let reference = property.type else { continue }
                diagnostics.append(Diagnostic(
                    .infiniteRecursiveType, at: reference.range,
                    "'\(type.name)' has no base case: property '\(property.name)' always requires another '\(reference.text)', so generation could never finish; make it optional ('\(reference.text)?') or an array ('[\(reference.text)]')",
                    fixIts: [FixIt(title: "make '\(property.name)' optional", edits: [TextEdit(range: file.source.range(reference.range.offsets.upperBound..<reference.range.offsets.upperBound), newText: "?")])]))
            } else {
                diagnostics.append(Diagnostic(
                    .infiniteRecursiveType, at: type.nameRange,
                    "enum '\(type.name)' has no base case: every case requires a value that recursively requires another; add a case without associated values, or make a recursive value optional or an array"))
            }
        }
        return diagnostics
    }
}

/// Mechanical edits shared by the checks.
struct FixItFactory {
    let source: SourceText

    /// Deletes the whole line holding `range` when nothing else is on it,
    /// otherwise just the range.
    func deleteLine(containing range: SourceRange) -> TextEdit {
        let line = range.start.line
        let lineStart = source.lineStarts[line - 1]
        let lineEnd = source.lineEnd(line)
        let before = source.slice(lineStart..<range.start.offset)
        let after = source.slice(range.end.offset..<lineEnd)
        if before.allSatisfy(\.isWhitespace) && after.allSatisfy(\.isWhitespace) {
            let next = line < source.lineCount ? source.lineStarts[line] : source.bytes.count
            return TextEdit(range: source.range(lineStart..<next), newText: "")
        }
        return TextEdit(range: range, newText: "")
    }

    /// Inserts `attribute` on its own line before a declaration, with the declaration's indentation.
    func insertAttribute(_ attribute: String, before declaration: TypeDeclaration) -> TextEdit {
        let start = declaration.range.start
        let lineStart = source.lineStarts[start.line - 1]
        let indent = String(source.slice(lineStart..<start.offset).prefix { $0 == " " || $0 == "\t" })
        return TextEdit(range: source.range(start.offset..<start.offset), newText: attribute + "\n" + indent)
    }

    /// Moves the full lines of `range` to just after the lines of `anchor`.
    func moveLines(of range: SourceRange, after anchor: SourceRange, title: String) -> FixIt {
        let startLine = range.start.line
        let endLine = range.end.line
        let from = source.lineStarts[startLine - 1]
        let to = endLine < source.lineCount ? source.lineStarts[endLine] : source.bytes.count
        var text = source.slice(from..<to)
        if !text.hasSuffix("\n") { text += "\n" }
        let anchorEnd = anchor.end.line < source.lineCount ? source.lineStarts[anchor.end.line] : source.bytes.count
        var insertion = text
        if anchorEnd == source.bytes.count, !source.text.hasSuffix("\n") { insertion = "\n" + String(text.dropLast()) }
        return FixIt(title: title, edits: [
            TextEdit(range: source.range(from..<to), newText: ""),
            TextEdit(range: source.range(anchorEnd..<anchorEnd), newText: insertion),
        ])
    }
}
