import Schema

extension GenerationSchema {
    /// The ways `content` fails to be a value of this schema, each with the
    /// JSON path where it fails (empty when it conforms). Checks types,
    /// required properties, unknown keys, enum cases and every guide except
    /// `pattern` (guided generation enforces that one; see Guidance), unless
    /// `checkPatterns` is set: output that no grammar constrained (a server's)
    /// is matched against each pattern as a whole-string regex.
    public func violations(of content: GeneratedContent, checkPatterns: Bool = false) -> [String] {
        var problems: [String] = []
        check(content, against: root, path: "$", depth: 0, patterns: checkPatterns, into: &problems)
        return problems
    }

    private func check(_ content: GeneratedContent, against type: SchemaType, path: String, depth: Int, patterns: Bool,
                       into problems: inout [String]) {
        guard depth < 64 else { problems.append("\(path): nested too deeply"); return }
        switch type {
        case .any:
            return
        case .string(let guides):
            guard let string = content.stringValue else { problems.append("\(path): expected a string"); return }
            if let constant = guides.constant, string != constant {
                problems.append("\(path): expected the constant \"\(constant)\"")
            }
            if let choices = guides.anyOf, !choices.contains(string) {
                problems.append("\(path): \"\(string)\" is not one of \(choices)")
            }
            if patterns, let pattern = guides.pattern {
                if let regex = try? Regex(pattern) {
                    if (try? regex.wholeMatch(in: string)) == nil { problems.append("\(path): \"\(string)\" does not match /\(pattern)/") }
                } else {
                    problems.append("\(path): the pattern /\(pattern)/ cannot be checked here")
                }
            }
        case .integer(let guides), .number(let guides):
            guard let number = content.numberValue else { problems.append("\(path): expected a number"); return }
            if case .integer = type, number != number.rounded() {
                problems.append("\(path): expected an integer, got \(number)")
            }
            if let minimum = guides.minimum, number < minimum { problems.append("\(path): \(number) is below the minimum \(minimum)") }
            if let maximum = guides.maximum, number > maximum { problems.append("\(path): \(number) is above the maximum \(maximum)") }
        case .boolean:
            if content.boolValue == nil { problems.append("\(path): expected a boolean") }
        case .array(let element, let guides):
            guard let elements = content.arrayValue else { problems.append("\(path): expected an array"); return }
            if let minimum = guides.minimumCount, elements.count < minimum {
                problems.append("\(path): \(elements.count) elements, at least \(minimum) required")
            }
            if let maximum = guides.maximumCount, elements.count > maximum {
                problems.append("\(path): \(elements.count) elements, at most \(maximum) allowed")
            }
            for (i, value) in elements.enumerated() {
                check(value, against: element, path: "\(path)[\(i)]", depth: depth + 1, patterns: patterns, into: &problems)
            }
        case .reference(let name):
            guard let definition = definition(named: name) else {
                problems.append("\(path): the schema has no definition '\(name)'")
                return
            }
            switch definition.kind {
            case .object(let properties):
                checkObject(content, properties: properties, typeName: name, path: path, depth: depth, patterns: patterns, into: &problems)
            case .enumeration(let cases):
                if let caseName = content.stringValue {
                    guard let match = cases.first(where: { $0.name == caseName }) else {
                        problems.append("\(path): '\(caseName)' is not a case of \(name)")
                        return
                    }
                    if !match.associatedValues.isEmpty {
                        problems.append("\(path): case '\(caseName)' of \(name) needs its associated values")
                    }
                    return
                }
                let pairs = content.orderedProperties
                guard pairs.count == 1, let match = cases.first(where: { $0.name == pairs[0].key }) else {
                    problems.append("\(path): expected a case of \(name)")
                    return
                }
                checkObject(pairs[0].value, properties: match.associatedValues, typeName: "\(name).\(match.name)",
                            path: "\(path).\(match.name)", depth: depth + 1, patterns: patterns, into: &problems)
            }
        }
    }

    private func checkObject(_ content: GeneratedContent, properties: [Property], typeName: String, path: String,
                             depth: Int, patterns: Bool, into problems: inout [String]) {
        guard case .structure = content.kind else { problems.append("\(path): expected an object of type \(typeName)"); return }
        for property in properties {
            let value = content[property.name]
            if let value, !(property.isOptional && value.kind == .null) {
                check(value, against: property.type, path: "\(path).\(property.name)", depth: depth + 1, patterns: patterns, into: &problems)
            } else if value == nil, !property.isOptional {
                problems.append("\(path): missing property '\(property.name)' of \(typeName)")
            }
        }
        let known = Set(properties.map(\.name))
        for (key, _) in content.orderedProperties where !known.contains(key) {
            problems.append("\(path): unknown property '\(key)' for \(typeName)")
        }
    }
}
