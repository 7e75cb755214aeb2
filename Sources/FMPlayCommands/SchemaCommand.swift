import ArgumentParser
import Foundation
import JSON
import PromptLanguage
import Schema

/// `fmplay schema FILE [--type NAME]`: the JSON Schema of Generable types.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of the @Generable types in a prompt file.",
        discussion: """
            Without --type, prints one JSON object mapping each @Generable type (in declaration order) to its \
            schema. With --type, prints that type's schema alone. Exits 1 when the types have errors, 2 for \
            input problems or an unknown type.
            """)

    @Argument(help: "A prompt file.")
    var file: String

    @Option(name: .customLong("type"), help: "Only this type (its name or Outer.Inner).")
    var typeName: String?

    func run() async throws {
        let loaded: LoadedPromptFile
        switch PromptFileLoading.load(file) {
        case .failure(let problem):
            FileHandle.standardError.write(Data((problem.description + "\n").utf8))
            throw ExitCode(2)
        case .success(let file):
            loaded = file
        }
        let analysis = PromptAnalyzer.analyze(loaded.text)
        var types = analysis.file.generableTypes.filter { analysis.file.schemas[$0.qualifiedName] != nil }
        if let typeName {
            guard let match = types.first(where: { $0.qualifiedName == typeName }) ?? types.first(where: { $0.name == typeName }) else {
                let available = types.map(\.qualifiedName).joined(separator: ", ")
                FileHandle.standardError.write(Data("\(file): error: no @Generable type named '\(typeName)'\(available.isEmpty ? "" : "; available: \(available)")\n".utf8))
                throw ExitCode(2)
            }
            types = [match]
        } else if types.isEmpty {
            FileHandle.standardError.write(Data("\(file): error: no @Generable struct or enum in this file\n".utf8))
            throw ExitCode(2)
        }
        // Errors inside the printed types (or the types they use) make the schema untrustworthy.
        var involved: [TypeDeclaration] = []
        for type in types {
            for definition in analysis.file.schemas[type.qualifiedName]?.definitions ?? [] {
                if let declaration = analysis.file.types.first(where: { $0.qualifiedName == definition.name || $0.generableAttribute?.schemaName == definition.name }) {
                    involved.append(declaration)
                }
            }
        }
        let blocking = analysis.diagnostics.filter { diagnostic in
            diagnostic.severity == .error
                && involved.contains { $0.range.offsets.contains(diagnostic.range.start.offset) || $0.generableAttribute?.range == diagnostic.range }
        }
        if !blocking.isEmpty {
            let report = LintReport(files: [LintReport.FileResult(path: file, source: analysis.file.source, diagnostics: blocking)], problems: [])
            FileHandle.standardError.write(Data(report.text().utf8))
            throw ExitCode(1)
        }
        let output: JSONValue
        if typeName != nil, let only = types.first, let schema = analysis.file.schemas[only.qualifiedName] {
            output = schema.jsonSchema(includeDialect: true)
        } else {
            var object = JSONObject()
            for type in types {
                if let schema = analysis.file.schemas[type.qualifiedName] {
                    object[type.qualifiedName] = schema.jsonSchema(includeDialect: true)
                }
            }
            output = .object(object)
        }
        print(output.serialized(pretty: true))
    }
}
