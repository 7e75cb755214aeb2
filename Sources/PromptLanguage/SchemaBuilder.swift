import Schema

/// What kind of Swift type a property has, as far as generation goes.
enum PropertyTypeClass: Equatable {
    case string, integer, number, boolean, generatedContent, generationID
    case array(TypeReference)
    case generable(TypeDeclaration)
    /// Declared in the file but not `@Generable`.
    case notGenerable(TypeDeclaration)
    /// Something generation cannot produce; `suggestion` says what to use.
    case unsupported(reason: String, suggestion: String)
}

/// Builds `GenerationSchema` values from the semantic model and classifies
/// property types; the schema checks use the same classification.
struct SchemaBuilder {
    let file: PromptFile

    static let integerTypes: Set<String> = ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"]
    static let numberTypes: Set<String> = ["Double", "Float", "Decimal", "Float32", "Float64"]

    func classify(_ type: TypeReference, in scope: String?) -> PropertyTypeClass {
        switch type.shape {
        case .optional(let wrapped):
            return classify(wrapped, in: scope)
        case .array(let element):
            return .array(element)
        case .dictionary:
            return .unsupported(
                reason: "dictionaries cannot be generated",
                suggestion: "use an array of a @Generable struct with key and value properties")
        case .tuple:
            return .unsupported(reason: "tuples cannot be generated", suggestion: "use a @Generable struct with named properties")
        case .function:
            return .unsupported(reason: "closures cannot be generated", suggestion: "remove the property or make it a String the model fills in")
        case .other:
            return .unsupported(reason: "'\(type.text)' cannot be generated", suggestion: "use a concrete @Generable type")
        case .named(let name, let arguments):
            let bare = name.hasPrefix("Swift.") ? String(name.dropFirst(6)) : name
            if arguments.isEmpty {
                if bare == "String" { return .string }
                if Self.integerTypes.contains(bare) { return .integer }
                if Self.numberTypes.contains(bare) || bare == "Foundation.Decimal" { return .number }
                if bare == "Bool" { return .boolean }
                if bare == "GeneratedContent" || bare == "FoundationModels.GeneratedContent" { return .generatedContent }
                if bare == "GenerationID" || bare == "FoundationModels.GenerationID" { return .generationID }
            }
            if let declared = file.resolveType(name, in: scope) {
                return declared.isGenerable ? .generable(declared) : .notGenerable(declared)
            }
            switch bare {
            case "Date", "Foundation.Date":
                return .unsupported(reason: "Date cannot be generated", suggestion: "use a String with a @Guide(description:) or .pattern giving the format, such as ISO 8601")
            case "URL", "Foundation.URL":
                return .unsupported(reason: "URL cannot be generated", suggestion: "use a String, optionally with a .pattern guide")
            case "UUID", "Foundation.UUID":
                return .unsupported(reason: "UUID cannot be generated", suggestion: "use GenerationID for a stable identity, or a String")
            case "Set":
                return .unsupported(reason: "Set cannot be generated", suggestion: "use an array, [T]")
            case "Character", "Substring":
                return .unsupported(reason: "\(bare) cannot be generated", suggestion: "use String")
            case "Data":
                return .unsupported(reason: "Data cannot be generated", suggestion: "use a String")
            case "CGFloat", "Float16":
                return .unsupported(reason: "\(bare) cannot be generated", suggestion: "use Double or Float")
            default:
                return .unsupported(
                    reason: "unknown type '\(type.text)'",
                    suggestion: "declare it in this file as a @Generable struct or enum, or use String, Int, Double, Float, Decimal, Bool, an array, an optional or GeneratedContent")
            }
        }
    }

    /// The schema name of a Generable type.
    func definitionName(_ type: TypeDeclaration) -> String {
        type.generableAttribute?.schemaName ?? type.qualifiedName
    }

    /// The schema of one Generable type; nil for types that are not Generable.
    func schema(for root: TypeDeclaration) -> GenerationSchema? {
        guard root.isGenerable, root.kind == .struct || root.kind == .enum else { return nil }
        var definitions: [Definition] = []
        var visited: Set<String> = []
        var queue: [TypeDeclaration] = [root]
        visited.insert(root.qualifiedName)
        while !queue.isEmpty {
            let type = queue.removeFirst()
            var referenced: [TypeDeclaration] = []
            definitions.append(definition(for: type, referenced: &referenced))
            for next in referenced where !visited.contains(next.qualifiedName) {
                visited.insert(next.qualifiedName)
                queue.append(next)
            }
        }
        return GenerationSchema(root: .reference(definitionName(root)), definitions: definitions)
    }

    private func definition(for type: TypeDeclaration, referenced: inout [TypeDeclaration]) -> Definition {
        if type.kind == .enum {
            let cases = type.cases.map { enumCase in
                EnumCase(
                    name: enumCase.name,
                    description: enumCase.guideAttributes.lazy.compactMap(\.description).first,
                    associatedValues: enumCase.associatedValues.enumerated().map { index, value in
                        let (schemaType, optional) = schemaType(for: value.type, guides: [], scope: type.qualifiedName, referenced: &referenced)
                        return Property(name: value.label ?? "_\(index)", type: schemaType, isOptional: optional)
                    })
            }
            return Definition(name: definitionName(type), description: type.generableAttribute?.description, kind: .enumeration(cases))
        }
        var properties: [Property] = []
        for property in type.properties {
            guard let declared = property.type else { continue }
            if classify(declared, in: type.qualifiedName) == .generationID { continue }
            let (schemaType, optional) = schemaType(for: declared, guides: property.guides, scope: type.qualifiedName, referenced: &referenced)
            properties.append(Property(name: property.name, description: property.guideDescription, type: schemaType, isOptional: optional))
        }
        return Definition(name: definitionName(type), description: type.generableAttribute?.description, kind: .object(properties))
    }

    private func schemaType(
        for reference: TypeReference, guides: [Guide], scope: String, referenced: inout [TypeDeclaration]
    ) -> (SchemaType, isOptional: Bool) {
        var result = baseSchemaType(for: reference.unwrappedOptional, scope: scope, referenced: &referenced)
        for guide in guides {
            if case .success(let guided) = Self.apply(guide, to: result) { result = guided }
        }
        return (result, reference.isOptional)
    }

    private func baseSchemaType(for reference: TypeReference, scope: String, referenced: inout [TypeDeclaration]) -> SchemaType {
        switch classify(reference, in: scope) {
        case .string: return .string(.none)
        case .integer: return .integer(.none)
        case .number: return .number(.none)
        case .boolean: return .boolean
        case .generatedContent, .generationID, .unsupported, .notGenerable: return .any
        case .array(let element):
            return .array(element: baseSchemaType(for: element.unwrappedOptional, scope: scope, referenced: &referenced), guides: .none)
        case .generable(let type):
            if !referenced.contains(where: { $0.qualifiedName == type.qualifiedName }) { referenced.append(type) }
            return .reference(definitionName(type))
        }
    }

    /// Why a guide does not apply to a type.
    struct GuideMismatch: Error, Equatable {
        var message: String
    }

    /// Applies one guide to a schema type. Contradictions are not checked
    /// here (the checks report them); the last bound written wins.
    static func apply(_ guide: Guide, to type: SchemaType) -> Result<SchemaType, GuideMismatch> {
        switch (guide.kind, type) {
        case (.unrecognized, _):
            return .success(type)
        case (.anyOf(let values), .string(var guides)):
            guides.anyOf = values
            return .success(.string(guides))
        case (.constant(let value), .string(var guides)):
            guides.constant = value
            return .success(.string(guides))
        case (.pattern(let pattern), .string(var guides)):
            guides.pattern = pattern
            return .success(.string(guides))
        case (.minimum(let value), .integer(var guides)), (.minimum(let value), .number(var guides)):
            guides.minimum = value
            return .success(type.isInteger ? .integer(guides) : .number(guides))
        case (.maximum(let value), .integer(var guides)), (.maximum(let value), .number(var guides)):
            guides.maximum = value
            return .success(type.isInteger ? .integer(guides) : .number(guides))
        case (.range(let low, let high), .integer(var guides)), (.range(let low, let high), .number(var guides)):
            guides.minimum = low
            guides.maximum = high
            return .success(type.isInteger ? .integer(guides) : .number(guides))
        case (.count(let count), .array(let element, var guides)):
            guides.minimumCount = count
            guides.maximumCount = count
            return .success(.array(element: element, guides: guides))
        case (.countRange(let low, let high), .array(let element, var guides)):
            guides.minimumCount = low
            guides.maximumCount = high
            return .success(.array(element: element, guides: guides))
        case (.minimumCount(let count), .array(let element, var guides)):
            guides.minimumCount = count
            return .success(.array(element: element, guides: guides))
        case (.maximumCount(let count), .array(let element, var guides)):
            guides.maximumCount = count
            return .success(.array(element: element, guides: guides))
        case (.element(let inner), .array(let element, let guides)):
            switch apply(inner, to: element) {
            case .success(let guided): return .success(.array(element: guided, guides: guides))
            case .failure(let mismatch): return .failure(GuideMismatch(message: "in .element: " + mismatch.message))
            }
        default:
            return .failure(GuideMismatch(message: ".\(guide.name) \(guide.kind.appliesTo), not to \(type.kindDescription)"))
        }
    }
}

extension Guide.Kind {
    /// "applies to String properties", for messages.
    var appliesTo: String {
        switch self {
        case .anyOf, .constant, .pattern: "applies to String properties"
        case .minimum, .maximum, .range: "applies to number properties (Int, Double, Float, Decimal)"
        case .count, .countRange, .minimumCount, .maximumCount, .element: "applies to array properties"
        case .unrecognized: "is not a guide"
        }
    }
}

extension SchemaType {
    var isInteger: Bool { if case .integer = self { true } else { false } }

    /// "a String", "an Int", ... for messages.
    var kindDescription: String {
        switch self {
        case .string: "a String"
        case .integer: "an integer"
        case .number: "a floating-point number"
        case .boolean: "a Bool"
        case .array: "an array"
        case .reference(let name): "the type \(name)"
        case .any: "GeneratedContent"
        }
    }
}
