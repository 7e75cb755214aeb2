import Schema

/// The text around a tool call in the model's chat format. The default is
/// the ChatML/Qwen/SmolLM2 form:
///
///     <tool_call>
///     {"name":"getWeather","arguments":{"city":"Paris"}}
///     </tool_call>
///
/// The JSON object itself is compact (no spaces), like every guided output.
public struct ToolCallFormat: Sendable, Hashable {
    public var opener: String
    public var closer: String
    /// Between two consecutive calls.
    public var separator: String

    public init(opener: String = "<tool_call>\n", closer: String = "\n</tool_call>", separator: String = "\n") {
        self.opener = opener
        self.closer = closer
        self.separator = separator
    }

    public static let chatML = ToolCallFormat()
}

/// A tool as guided generation sees it: its name and the schema of its arguments.
public struct ToolSignature: Sendable, Hashable {
    public var name: String
    public var arguments: GenerationSchema

    public init(name: String, arguments: GenerationSchema) {
        self.name = name
        self.arguments = arguments
    }
}

/// What the model may produce instead of tool calls.
public enum ToolCallAlternative: Sendable, Hashable {
    /// A free-text answer (any text that does not start with the opener).
    case freeText
    /// A guided answer of this schema.
    case value(GenerationSchema)
    /// Nothing: the model must call a tool (`toolCallingMode: .required`).
    case none
}

extension ByteGrammar {
    /// One or more wrapped tool calls, `{"name":...,"arguments":...}` with the
    /// name one of `tools` and the arguments that tool's schema; or the
    /// alternative. A free-text answer must not start with the opener (a
    /// proper prefix of it is still text).
    public static func toolCalls(_ tools: [ToolSignature], alternative: ToolCallAlternative,
                                 format: ToolCallFormat = .chatML,
                                 options: GrammarOptions = GrammarOptions()) throws(GuidanceError) -> ByteGrammar {
        var compiler = SchemaCompiler(options: options)
        let callMachine = try toolCallObjectMachine(tools, compiler: &compiler)
        let opener = Array(format.opener.utf8)
        let closer = Array(format.closer.utf8)
        guard !opener.isEmpty, opener.allSatisfy({ $0 < 0x80 }) else {
            throw GuidanceError(.invalidSchema, path: "(tool call format)", "the opener must be non-empty ASCII text")
        }
        var nfa = ByteNFA()
        if !tools.isEmpty {
            let firstCall = nfa.literal(closer, from: nfa.call(callMachine, from: nfa.literal(opener, from: nfa.start)))
            let calls = nfa.star(from: firstCall) { nfa, start in
                let open = nfa.literal(Array(format.separator.utf8) + opener, from: start)
                return nfa.literal(closer, from: nfa.call(callMachine, from: open))
            }
            nfa.accept(from: calls)
        }
        switch alternative {
        case .none:
            guard !tools.isEmpty else {
                throw GuidanceError(.invalidSchema, path: "(tools)", "tool calls are required but no tool is declared")
            }
        case .freeText:
            let text = nfa.addState()
            nfa.accept(from: text)
            nfa.addEpsilon(from: nfa.rawCharacter(.all, from: text), to: text)
            var prefix = nfa.start
            for (index, byte) in opener.enumerated() {
                let other = nfa.rawCharacter(ScalarSet.all.subtracting(ScalarSet(scalar: UInt32(byte))), from: prefix)
                nfa.addEpsilon(from: other, to: text)
                prefix = nfa.literal([byte], from: prefix)
                if index < opener.count - 1 { nfa.accept(from: prefix) }
            }
        case .value(let schema):
            let index = compiler.add(schema)
            nfa.accept(from: nfa.call(try compiler.rootMachine(schema: index), from: nfa.start))
        }
        let top = compiler.reserve("(tool calls or answer)")
        compiler.define(top, nfa)
        return try compiler.build(root: top).checkedLive()
    }

    /// Just the object `{"name":...,"arguments":...}` of one call (no wrapper).
    public static func toolCallObject(_ tools: [ToolSignature],
                                      options: GrammarOptions = GrammarOptions()) throws(GuidanceError) -> ByteGrammar {
        guard !tools.isEmpty else {
            throw GuidanceError(.invalidSchema, path: "(tools)", "no tool is declared")
        }
        var compiler = SchemaCompiler(options: options)
        let machine = try toolCallObjectMachine(tools, compiler: &compiler)
        return try compiler.build(root: machine).checkedLive()
    }

    private static func toolCallObjectMachine(_ tools: [ToolSignature],
                                              compiler: inout SchemaCompiler) throws(GuidanceError) -> Int {
        var nfa = ByteNFA()
        var names = Set<String>()
        for tool in tools {
            guard names.insert(tool.name).inserted else {
                throw GuidanceError(.invalidSchema, path: tool.name, "two tools are named '\(tool.name)'")
            }
            let index = compiler.add(tool.arguments)
            let arguments: Int
            do {
                arguments = try compiler.rootMachine(schema: index)
            } catch {
                throw GuidanceError(error.kind, path: tool.name + ".arguments" + (error.path == "(root)" ? "" : ":" + error.path),
                                    error.message)
            }
            let head = "{\"name\":" + JSONText.quoted(tool.name) + ",\"arguments\":"
            let afterArguments = nfa.call(arguments, from: nfa.literal(Array(head.utf8), from: nfa.start))
            nfa.accept(from: nfa.literal([0x7D], from: afterArguments))
        }
        let machine = compiler.reserve("(tool call)")
        compiler.define(machine, nfa)
        return machine
    }
}
