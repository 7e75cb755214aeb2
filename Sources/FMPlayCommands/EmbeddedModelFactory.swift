import EmbeddedModel
import FoundationModelsRuntime

extension ModelFactory {
    /// The embedded engine for a GGUF file. This is the one place that
    /// constructs it, so the engine adaptor (EmbeddedModel) plugs in here.
    static func makeEmbeddedModel(path: String) throws -> any LanguageModel {
        try EmbeddedLanguageModel(path: path)
    }
}
