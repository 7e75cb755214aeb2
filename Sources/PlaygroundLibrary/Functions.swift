import PromptInterpreter

/// The standard library's global functions in `Surface.functions` beside `print` and the math
/// functions (`Swift.swift`): debugPrint, dump, max, min, abs, zip, stride, type(of:) and the checks
/// that stop a block (precondition, assert, fatalError, preconditionFailure).
extension Builtins {
    static let functionBuiltins: [String: Builtin] = [
        "debugPrint(_:separator:)": { i, c in
            let args = try await c.arguments(i)
            let separator = args.value("separator")?.stringValue ?? " "
            var parts: [String] = []
            for value in args.unlabelled { parts.append(try await i.text(value, debug: true)) }
            let text = parts.joined(separator: separator)
            i.recorder.recordPrint(i.site(c.callNode), text: text, value: .string(text))
            return .null
        },
        "dump(_:)": { i, c in
            guard let value = try await c.arguments(i).unlabelled.first else { throw i.error("dump needs a value", c.node) }
            var lines: [String] = []
            try await i.dumpLines(value, label: nil, indent: 0, into: &lines)
            let text = lines.joined(separator: "\n")
            i.recorder.recordPrint(i.site(c.callNode), text: text, value: .string(text))
            return value
        },
        "max(_:)": extremum(greatest: true),
        "min(_:)": extremum(greatest: false),
        "abs(_:)": { i, c in
            switch try await c.arguments(i).unlabelled.first {
            case .int(let n)?: return .int(try i.checked(c.node) { () throws(Arithmetic.Failure) in try Arithmetic.negate(n < 0 ? n : -n) })
            case .double(let d)?: return .double(Swift.abs(d))
            default: throw i.error("abs needs a number", c.node)
            }
        },
        "zip(_:_:)": { i, c in
            let args = try await c.arguments(i).unlabelled
            guard args.count == 2 else { throw i.error("zip needs two sequences", c.node) }
            let first = try i.sequenceElements(args[0], c.node), second = try i.sequenceElements(args[1], c.node)
            return .array(Swift.zip(first, second).map { .tuple([(label: nil, value: $0), (label: nil, value: $1)]) })
        },
        "stride(from:to:by:)": stride,
        "stride(from:through:by:)": stride,
        "type(of:)": { i, c in
            guard let value = try await c.arguments(i).value("of") else { throw i.error("type(of:) needs a value", c.node) }
            return .type(i.typeName(of: value) ?? Value.runtimeTypeName(of: value) ?? value.typeDescription)
        },
        "precondition(_:_:)": check,
        "assert(_:_:)": check,
        "fatalError(_:)": stop,
        "preconditionFailure(_:)": stop,
    ]

    /// `max`/`min` of the arguments, or of one array's elements; `max` keeps the last of equal values, `min` the first.
    static func extremum(greatest: Bool) -> Builtin {
        { i, c in
            var values = try await c.arguments(i).unlabelled
            if values.count == 1, case .array(let items) = values[0] { values = items }
            guard var best = values.first else { throw i.error("\(c.entry.name) needs values", c.node) }
            for value in values.dropFirst() {
                guard let order = try await i.compare(value, best) else { throw i.error("cannot compare \(value.description.prefix(30))", c.node) }
                if greatest ? order >= 0 : order < 0 { best = value }
            }
            return best
        }
    }

    static let stride: Builtin = { i, c in try i.strideValues(try await i.callArguments(c.callNode), c.callNode) }

    /// `precondition`/`assert`: a false condition stops the block with the message.
    static let check: Builtin = { i, c in
        let args = try await c.arguments(i).unlabelled
        if case .bool(false)? = args.first {
            let message = args.dropFirst().first?.description ?? ""
            throw i.error("\(c.entry.name) failed" + (message.isEmpty ? "" : ": \(message)"), c.node)
        }
        return .null
    }

    /// `fatalError`/`preconditionFailure`: stops the block.
    static let stop: Builtin = { i, c in
        let message = try await c.arguments(i).unlabelled.first
        throw i.error("Fatal error" + (message.map { ": \($0.description)" } ?? ""), c.node)
    }
}
