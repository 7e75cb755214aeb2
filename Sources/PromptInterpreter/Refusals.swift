import FoundationModelsRuntime
import SwiftSyntax

/// A refusal's explanation (`refusal.explanation`, `refusal.explanationStream`): the default model, given the
/// transcript entries that led to the refusal, explains why it declined. Recorded at the member access like any
/// model call, so the editor shows the explanation beside it.
extension Interpreter {
    static let refusalExplanationPrompt = "You declined to respond to the last request. Explain briefly why."

    /// `explanation` (`stream: false`, a Response<String>) or `explanationStream` (a ResponseStream<String>).
    /// An `explanation` given when the refusal was created is what the answer says (a scripted model replies with it).
    package func explainRefusal(entries: [Transcript.Entry], explanation: String?, stream: Bool, _ node: some SyntaxProtocol) async throws -> Value {
        let model: any LanguageModel = explanation.map { ScriptedLanguageModel(name: "refusal", script: [.text($0)]) }
            ?? context.systemModel(useCase: .general)
        let session = LanguageModelSession(model: model, transcript: Transcript(entries: entries), defaultSeed: context.configuration.seed)
        let prompt = Prompt(Self.refusalExplanationPrompt)
        let options = context.configuration.effectiveOptions(GenerationOptions())
        let callSite = site(node)
        if stream {
            let responses = session.streamResponse(to: prompt, schema: nil, includeSchemaInPrompt: false, options: options)
            return .stream(StreamValue(stream: responses, typeName: nil, schema: nil, site: callSite, session: session))
        }
        return try await respond(session, to: prompt, schema: nil, typeName: nil, includeSchema: false, options: options,
                                 contextOptions: ContextOptions(), metadata: [:], at: callSite)
    }

    /// A refusal value: the entries its explanation reads, its description, and any further fields.
    package static func refusalValue(type: String, entries: [Transcript.Entry], description: String,
                                     adding more: [(name: String, value: Value)] = []) -> Value {
        .structure(type: type, fields: [
            (name: "transcriptEntries", value: .array(entries.map(Value.transcriptEntry))),
            (name: "description", value: .string(description)),
        ] + more)
    }

    /// The transcript entries a refusal value holds.
    package static func refusalEntries(_ value: Value) -> [Transcript.Entry] {
        guard case .structure(_, let fields) = value, case .array(let items)? = fields.first(where: { $0.name == "transcriptEntries" })?.value else { return [] }
        return items.compactMap { if case .transcriptEntry(let entry) = $0 { entry } else { nil } }
    }
}
