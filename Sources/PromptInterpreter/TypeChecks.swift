import FoundationModelsRuntime
import PromptLanguage
import SwiftSyntax

/// `is`, `as?` and `as!`: whether a runtime value has a written type.
extension Interpreter {
    /// `value is type`, checked against the value's runtime type as Swift would
    /// (collections element by element, `nil` only for optional types).
    func valueMatches(_ value: Value, _ type: TypeSyntax) -> Bool {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return value.isNull || valueMatches(value, optional.wrappedType)
        }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return value.isNull || valueMatches(value, optional.wrappedType)
        }
        if let existential = type.as(SomeOrAnyTypeSyntax.self) { return valueMatches(value, existential.constraint) }
        if let array = type.as(ArrayTypeSyntax.self) { return arrayValue(value, elementsOf: array.element) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return dictionaryValue(value, key: dictionary.key, value: dictionary.value)
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            let elements = Array(tuple.elements)
            if elements.count == 1, elements[0].firstName == nil { return valueMatches(value, elements[0].type) }
            guard case .tuple(let items) = value, items.count == elements.count else { return false }
            return zip(items, elements).allSatisfy { item, element in
                (element.firstName == nil || element.firstName?.text == item.label || item.label == nil)
                    && valueMatches(item.value, element.type)
            }
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), let generic = identifier.genericArgumentClause {
            let arguments = generic.arguments.compactMap { argument -> TypeSyntax? in
                if case .type(let type) = argument.argument { return type }
                return nil
            }
            switch (identifier.name.text, arguments.count) {
            case ("Array", 1): return arrayValue(value, elementsOf: arguments[0])
            case ("Optional", 1): return value.isNull || valueMatches(value, arguments[0])
            case ("Dictionary", 2): return dictionaryValue(value, key: arguments[0], value: arguments[1])
            default: return false
            }
        }
        return valueMatches(value, named: type.trimmedDescription)
    }

    private func arrayValue(_ value: Value, elementsOf element: TypeSyntax) -> Bool {
        guard case .array(let items) = value else { return false }
        return items.allSatisfy { valueMatches($0, element) }
    }

    private func dictionaryValue(_ value: Value, key: TypeSyntax, value valueType: TypeSyntax) -> Bool {
        guard case .dictionary(let pairs) = value else { return false }
        return pairs.allSatisfy { valueMatches($0.key, key) && valueMatches($0.value, valueType) }
    }

    /// A nominal type written by name (`String`, `Itinerary`, `Itinerary.Kind`, `GeneratedContent`...).
    private func valueMatches(_ value: Value, named written: String) -> Bool {
        let name = written.hasPrefix("Swift.") ? String(written.dropFirst(6)) : written
        if name == "Any" { return true }
        if case .error(let e) = value { return errorIs(e.error, typeName: name) }
        if let declared = context.file.resolveType(name, in: nil) {
            switch value {
            case .structure(let type, _), .enumCase(let type, _, _):
                return type == declared.qualifiedName || type == declared.name
            case .object(let box): return isSubclass(box.type, of: declared.qualifiedName)
            default: return false
            }
        }
        return Value.runtimeTypeName(of: value).map { $0 == name || $0.hasSuffix("." + name) } ?? false
    }
}

extension Value {
    /// An integer literal given where the declaration says `Double` (also inside optionals, arrays and
    /// dictionary values) becomes a Double, as Swift's literal typing makes it.
    func converted(to type: TypeReference?) -> Value {
        guard let type else { return self }
        switch (type.shape, self) {
        case (.named(let name, _), .int(let i)) where ["Double", "Float", "CGFloat"].contains(name): return .double(Double(i))
        case (.optional(let wrapped), _): return converted(to: wrapped)
        case (.array(let element), .array(let items)): return .array(items.map { $0.converted(to: element) })
        case (.dictionary(_, let valueType), .dictionary(let pairs)):
            return .dictionary(pairs.map { ($0.key, $0.value.converted(to: valueType)) })
        default: return self
        }
    }

    /// The Swift type name of a value whose type does not depend on its contents, nil for those
    /// (arrays, dictionaries, tuples and `nil` are matched structurally).
    package static func runtimeTypeName(of value: Value) -> String? {
        switch value {
        case .bool: return "Bool"
        case .int: return "Int"
        case .double: return "Double"
        case .string: return "String"
        case .structure(let type, _), .enumCase(let type, _, _): return type.isEmpty ? nil : type
        case .content: return "GeneratedContent"
        case .type: return nil
        case .model: return "SystemLanguageModel"
        case .serverModel: return "PrivateCloudComputeLanguageModel"
        case .session: return "LanguageModelSession"
        case .response: return "LanguageModelSession.Response"
        case .stream: return "LanguageModelSession.ResponseStream"
        case .snapshot: return "LanguageModelSession.ResponseStream.Snapshot"
        case .options: return "GenerationOptions"
        case .samplingMode: return "GenerationOptions.SamplingMode"
        case .toolCallingMode: return "GenerationOptions.ToolCallingMode"
        case .useCase: return "SystemLanguageModel.UseCase"
        case .instructions: return "Instructions"
        case .prompt: return "Prompt"
        case .transcript: return "Transcript"
        case .transcriptEntry: return "Transcript.Entry"
        case .transcriptPart(let part): return part.typeName
        case .usage: return "LanguageModelSession.Usage"
        case .range(_, _, let closed): return closed ? "ClosedRange<Int>" : "Range<Int>"
        case .schema: return "GenerationSchema"
        case .dynamicSchema: return "DynamicGenerationSchema"
        case .dynamicProperty: return "DynamicGenerationSchema.Property"
        case .data: return "Data"
        case .profile: return "LanguageModelSession.Profile"
        case .dynamicInstructions: return "DynamicInstructions"
        case .object(let box): return box.type
        case .reasoningLevel: return "ContextOptions.ReasoningLevel"
        case .errorPolicy: return "TranscriptErrorHandlingPolicy"
        case .sessionProperty: return "LanguageModelSession.SessionProperty"
        case .sessionProperties: return "SessionPropertyValues"
        case .evaluations(let object): return object.typeName
        case .skills(let object): return object.typeName
        case .set: return nil
        case .doubleRange(_, _, let closed): return closed ? "ClosedRange<Double>" : "Range<Double>"
        case .date: return "Date"
        case .uuid: return "UUID"
        case .null, .array, .dictionary, .tuple, .error, .function: return nil
        }
    }

    /// How a runtime error names the value's type (`as!` failures).
    package var typeDescription: String {
        switch self {
        case .null: return "Optional<Any>.none"
        case .array: return "Array"
        case .dictionary: return "Dictionary"
        case .tuple(let items): return "(" + items.map { ($0.label.map { "\($0): " } ?? "") + $0.value.typeDescription }.joined(separator: ", ") + ")"
        case .error(let e): return "\(Swift.type(of: e.error))"
        default: return Value.runtimeTypeName(of: self) ?? "enum case"
        }
    }
}
