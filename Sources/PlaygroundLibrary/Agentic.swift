import FoundationModelsRuntime
import PromptInterpreter
import Surface
import SwiftSyntax

/// The 27.0 agentic entries of `Surface.table` (Table/Agentic.swift and the
/// profile members of Table/LanguageModelSession.swift); the work is done in
/// `DynamicProfiles.swift`.
extension Builtins {
    static let agenticBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [
            "LanguageModelSession.init(profile:history:)": { i, c in
                try await i.makeProfileSession(try await c.arguments(i), c.callNode)
            },
            "LanguageModelSession.init(model:dynamicInstructions:history:)": { i, c in
                try await i.makeProfileSession(try await c.arguments(i), c.callNode)
            },
            "LanguageModelSession.transcriptErrorHandlingPolicy": on(session) { _, s, _ in
                s.transcriptErrorHandlingPolicy.map(Value.errorPolicy) ?? .null
            },
            "LanguageModelSession.properties": on(session) { i, s, _ in i.sessionProperties(s) },
            "Transcript.history": on({ (v: Value) -> Transcript? in if case .transcript(let t) = v { t } else { nil } }) { _, t, _ in
                .array(t.history.map(Value.transcriptEntry))
            },
            "SessionPropertyValues.history": on({ (v: Value) -> LanguageModelSession? in
                if case .sessionProperties(let session) = v { session } else { nil }
            }) { _, session, _ in
                .array(session.history.map(Value.transcriptEntry))
            },
            "LanguageModelSession.Profile.init(_:)": { i, c in try await i.makeProfile(c.callNode) },
            "LanguageModelSession.AnyDynamicProfile.init(_:)": eraseProfile,
            "LanguageModelSession.AnyDynamicProfile.init(erasing:)": eraseProfile,
            "AnyDynamicInstructions.init(_:)": eraseInstructions,
            "AnyDynamicInstructions.init(erasing:)": eraseInstructions,
            "EmptyDynamicInstructions.init()": constant(.dynamicInstructions(DynamicInstructionsValue())),
        ]
        for owner in ["TranscriptErrorHandlingPolicy", "LanguageModelSession.TranscriptErrorHandlingPolicy"] {
            all[owner + ".revertTranscript"] = constant(.errorPolicy(.revertTranscript))
            all[owner + ".preserveTranscript"] = constant(.errorPolicy(.preserveTranscript))
        }
        // Every profile modifier runs through the evaluator's one implementation.
        for entry in Surface.table.type(named: "LanguageModelSession.Profile")?.members ?? [] where entry.name != "init" {
            let name = entry.name
            all[entry.id] = { i, c in
                guard let result = try await i.profileMethod(name, of: c.base, c.callNode) else {
                    throw i.error("'\(name)' is not available on \(c.base.description.prefix(40))", c.node)
                }
                return result
            }
        }
        return all
    }()

    /// `AnyDynamicProfile(p)`: the wrapped profile itself, so a dynamic profile's body
    /// is still evaluated before every inference.
    static let eraseProfile: Builtin = { i, c in
        guard let wrapped = try await c.arguments(i).items.first?.value, i.isProfileValue(wrapped) else {
            throw i.error("AnyDynamicProfile wraps a dynamic profile: a Profile { } or a value of a type conforming to LanguageModelSession.DynamicProfile", c.node)
        }
        return wrapped
    }

    /// `AnyDynamicInstructions(d)`: the text and tools of the wrapped dynamic instructions.
    static let eraseInstructions: Builtin = { i, c in
        guard let wrapped = try await c.arguments(i).items.first?.value else {
            throw i.error("AnyDynamicInstructions wraps dynamic instructions: AnyDynamicInstructions(MyInstructions())", c.node)
        }
        return .dynamicInstructions(try await i.renderInstructions([wrapped], Syntax(c.callNode)))
    }
}
