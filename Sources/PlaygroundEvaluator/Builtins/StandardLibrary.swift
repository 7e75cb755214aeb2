import SwiftSyntax

/// Standard-library members added for ordinary Swift (issue 19): each table entry
/// (Surface/Table/Swift.swift) runs the interpreter's implementation of that member
/// (`Collections.swift` for closures, `StandardMembers.swift`, `Foundation.swift`).
extension Builtins {
    static let standardLibraryBuiltins: [String: Builtin] = [
        "Dictionary.init()": forwardInit,
        "Dictionary.init(grouping:by:)": forwardInit,
        "Dictionary.init(uniqueKeysWithValues:)": forwardInit,
        "Data.init(_:)": forwardInit,
        "Int.truncatingRemainder(dividingBy:)": forwardMethod,
        "Int.squareRoot()": forwardMethod,
        "Int.rounded()": forwardMethod,
        "String.init(format:_:)": forwardInit,
        "String.init(decoding:as:)": forwardInit,
        "String.init(reflecting:)": forwardInit,
        "String.first": forwardProperty,
        "String.last": forwardProperty,
        "String.capitalized": forwardProperty,
        "String.utf8": forwardProperty,
        "String.isLetter": forwardProperty,
        "String.isNumber": forwardProperty,
        "String.isWholeNumber": forwardProperty,
        "String.isUppercase": forwardProperty,
        "String.isLowercase": forwardProperty,
        "String.isWhitespace": forwardProperty,
        "String.isPunctuation": forwardProperty,
        "String.wholeNumberValue": forwardProperty,
        "String.indices": forwardProperty,
        "String.components(separatedBy:)": forwardMethod,
        "String.split(separator:maxSplits:omittingEmptySubsequences:)": forwardMethod,
        "String.prefix(_:)": forwardMethod,
        "String.suffix(_:)": forwardMethod,
        "String.dropFirst(_:)": forwardMethod,
        "String.dropLast(_:)": forwardMethod,
        "String.reversed()": forwardMethod,
        "String.starts(with:)": forwardMethod,
        "String.localizedCaseInsensitiveContains(_:)": forwardMethod,
        "String.localizedStandardContains(_:)": forwardMethod,
        "String.padding(toLength:withPad:startingAt:)": forwardMethod,
        "String.data(using:)": forwardMethod,
        "String.enumerated()": forwardMethod,
        "String.map(_:)": forwardMethod,
        "String.filter(_:)": forwardMethod,
        "String.compactMap(_:)": forwardMethod,
        "String.forEach(_:)": forwardMethod,
        "String.contains(where:)": forwardMethod,
        "String.allSatisfy(_:)": forwardMethod,
        "String.first(where:)": forwardMethod,
        "String.sorted()": forwardMethod,
        "String.shuffled()": forwardMethod,
        "String.randomElement()": forwardMethod,
        "Array.indices": forwardProperty,
        "Array.lazy": forwardProperty,
        "Array.sorted(by:)": forwardMethod,
        "Array.sort()": forwardMethod,
        "Array.sort(by:)": forwardMethod,
        "Array.reduce(_:_:)": forwardMethod,
        "Array.reduce(into:_:)": forwardMethod,
        "Array.first(where:)": forwardMethod,
        "Array.last(where:)": forwardMethod,
        "Array.firstIndex(where:)": forwardMethod,
        "Array.lastIndex(where:)": forwardMethod,
        "Array.lastIndex(of:)": forwardMethod,
        "Array.contains(where:)": forwardMethod,
        "Array.allSatisfy(_:)": forwardMethod,
        "Array.min(by:)": forwardMethod,
        "Array.max(by:)": forwardMethod,
        "Array.removeAll(where:)": forwardMethod,
        "Array.count(where:)": forwardMethod,
        "Array.prefix(while:)": forwardMethod,
        "Array.drop(while:)": forwardMethod,
        "Array.flatMap(_:)": forwardMethod,
        "Array.shuffled()": forwardMethod,
        "Array.shuffle()": forwardMethod,
        "Array.popLast()": forwardMethod,
        "Array.swapAt(_:_:)": forwardMethod,
        "Array.split(separator:)": forwardMethod,
        "Dictionary.mapValues(_:)": forwardMethod,
        "Dictionary.compactMapValues(_:)": forwardMethod,
        "Dictionary.filter(_:)": forwardMethod,
        "Dictionary.map(_:)": forwardMethod,
        "Dictionary.sorted(by:)": forwardMethod,
        "Dictionary.forEach(_:)": forwardMethod,
        "Dictionary.reduce(_:_:)": forwardMethod,
        "Dictionary.reduce(into:_:)": forwardMethod,
        "Dictionary.contains(where:)": forwardMethod,
        "Dictionary.first(where:)": forwardMethod,
        "Dictionary.updateValue(_:forKey:)": forwardMethod,
        "Dictionary.merge(_:uniquingKeysWith:)": forwardMethod,
        "Int.random(in:)": forwardStatic,
        "Int.magnitude": forwardProperty,
        "Int.isMultiple(of:)": forwardMethod,
        "Int.formatted()": forwardMethod,
        "Double.random(in:)": forwardStatic,
        "Double.isNaN": forwardProperty,
        "Double.isFinite": forwardProperty,
        "Double.rounded()": forwardMethod,
        "Double.squareRoot()": forwardMethod,
        "Double.truncatingRemainder(dividingBy:)": forwardMethod,
        "Double.formatted()": forwardMethod,
        "Bool.random()": forwardStatic,
        "Range.lowerBound": forwardProperty,
        "Range.upperBound": forwardProperty,
        "Range.count": forwardProperty,
        "Range.isEmpty": forwardProperty,
        "Range.contains(_:)": forwardMethod,
        "Range.reversed()": forwardMethod,
        "Range.map(_:)": forwardMethod,
        "Range.filter(_:)": forwardMethod,
        "Range.compactMap(_:)": forwardMethod,
        "Range.forEach(_:)": forwardMethod,
        "Range.reduce(_:_:)": forwardMethod,
        "Range.contains(where:)": forwardMethod,
        "Range.allSatisfy(_:)": forwardMethod,
        "Range.first(where:)": forwardMethod,
        "Range.shuffled()": forwardMethod,
        "Range.randomElement()": forwardMethod,
        "Range.enumerated()": forwardMethod,
    ]

    static let forwardMethod: Builtin = { i, c in
        let name = c.entry.name
        guard let baseExpr = c.baseExpr, let call = c.call else { throw i.error("'\(name)' needs a call", c.node) }
        if let value = try await i.collectionMethod(name, of: c.base, baseExpr: baseExpr, call) { return value }
        if let value = try await i.builtinMethod(name, of: c.base, baseExpr: baseExpr, call) { return value }
        throw i.error("'\(c.entry.selector)' is not available on \(c.base.description.prefix(40))", c.node)
    }

    static let forwardProperty: Builtin = { i, c in
        if let value = i.builtinMember(c.entry.name, of: c.base) { return value }
        throw i.error("'\(c.entry.name)' is not available on \(c.base.description.prefix(40))", c.node)
    }

    static let forwardStatic: Builtin = { i, c in
        let owner = String(c.entry.id.prefix(while: { $0 != "." }))
        if let value = try await i.builtinStatic(c.entry.name, of: owner, c.call) { return value }
        if case .enumCase = c.base {} else if c.call == nil {
            return .enumCase(type: owner, name: c.entry.name, payload: [])  // CharacterSet.whitespaces and the like
        }
        throw i.error("'\(owner).\(c.entry.name)' needs a call", c.node)
    }

    static let forwardInit: Builtin = { i, c in
        guard let call = c.call else { throw i.error("an initializer needs a call", c.node) }
        let owner = String(c.entry.id.prefix(while: { $0 != "." }))
        return try await i.callFunction(owner, call)
    }
}
