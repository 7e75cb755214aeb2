import Foundation
import PromptLanguage

/// A prompt file read from disk, or why it could not be.
struct LoadedPromptFile {
    var path: String
    var text: String
}

/// A prompt file read and analysed: the one load-and-analyse step `fmplay lint` and `fmplay run`
/// share. Everything that runs over the file (every block, model and seed of a run) uses this one
/// analysis; nothing parses the text again.
struct AnalysedPromptFile: Sendable {
    var path: String
    var analysis: PromptAnalysis

    init(_ loaded: LoadedPromptFile) {
        path = loaded.path
        analysis = PromptAnalyzer.analyze(loaded.text)
    }
}

/// A problem with an input path (missing, unreadable, binary, too large,
/// not UTF-8, no prompt files): reported, counted, and the other inputs
/// are still linted. Exit code 2.
struct InputProblem: Error, CustomStringConvertible {
    var path: String
    var message: String
    /// Where in the file, for encoding errors.
    var position: SourcePosition?

    var description: String {
        if let position { return "\(path):\(position.line):\(position.column): error: \(message)" }
        return "\(path): error: \(message)"
    }
}

/// Finds and reads prompt files. Directories are searched recursively for
/// `*.fmplay` (hidden directories and `.build` are skipped); files named
/// explicitly are read whatever their extension, except that a `.swift`
/// file must contain `#Playground`.
enum PromptFileLoading {
    /// Files larger than this are refused: prompt files are hand-written.
    static let maximumFileSize = PromptAnalyzer.maximumTextSize
    static let promptExtension = "fmplay"

    static func expand(_ paths: [String]) -> (files: [String], problems: [InputProblem]) {
        var files: [String] = []
        var problems: [InputProblem] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append(InputProblem(path: path, message: "no such file or directory"))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let found = promptFiles(in: path)
            if found.isEmpty {
                problems.append(InputProblem(path: path, message: "directory contains no prompt files (*.\(promptExtension)); name .swift files with #Playground explicitly"))
            }
            files += found
        }
        var seen: Set<String> = []
        return (files.filter { seen.insert($0).inserted }, problems)
    }

    private static func promptFiles(in directory: String) -> [String] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: directory) else { return [] }
        var result: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") || name == ".build" {
                enumerator.skipDescendants()
                continue
            }
            if (name as NSString).pathExtension == promptExtension {
                let full = directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
                var isDirectory: ObjCBool = false
                if manager.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue { result.append(full) }
            }
        }
        return result.sorted()
    }

    /// `load`, then the analysis.
    static func loadAndAnalyse(_ path: String) -> Result<AnalysedPromptFile, InputProblem> {
        load(path).map(AnalysedPromptFile.init)
    }

    static func load(_ path: String) -> Result<LoadedPromptFile, InputProblem> {
        let manager = FileManager.default
        guard manager.isReadableFile(atPath: path) else {
            return .failure(InputProblem(path: path, message: "cannot read the file: permission denied"))
        }
        if let attributes = try? manager.attributesOfItem(atPath: path), let size = attributes[.size] as? Int, size > maximumFileSize {
            return .failure(InputProblem(path: path, message: "file is \(megabytes(size)) MB, larger than the \(maximumFileSize / 1024 / 1024) MB limit for prompt files; split it into smaller files"))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(InputProblem(path: path, message: "cannot open the file"))
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            return .failure(InputProblem(path: path, message: "cannot read the file: \(error.localizedDescription)"))
        }
        if data.count > maximumFileSize {
            return .failure(InputProblem(path: path, message: "file is larger than the \(maximumFileSize / 1024 / 1024) MB limit for prompt files; split it into smaller files"))
        }
        let bytes = [UInt8](data)
        if bytes.contains(0) {
            return .failure(InputProblem(path: path, message: "binary file (it contains NUL bytes); prompt files are UTF-8 text"))
        }
        if let invalid = firstInvalidUTF8(bytes) {
            let position = SourceText(String(decoding: bytes[..<invalid], as: UTF8.self)).position(at: invalid)
            return .failure(InputProblem(
                path: path, message: "invalid UTF-8 (byte 0x\(String(bytes[invalid], radix: 16, uppercase: true)) at offset \(invalid)); save the file as UTF-8",
                position: position))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if (path as NSString).pathExtension == "swift", !text.contains("#Playground") {
            return .failure(InputProblem(path: path, message: "not a prompt file: .swift files are linted only when they contain a #Playground block"))
        }
        return .success(LoadedPromptFile(path: path, text: text))
    }

    private static func megabytes(_ size: Int) -> String {
        let tenths = (size * 10 + 512 * 1024) / (1024 * 1024)
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// The offset of the first byte that does not start or continue a
    /// well-formed UTF-8 sequence, or nil when all bytes are valid.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte < 0x80 { index += 1; continue }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch byte {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return index
            }
            guard index + length <= count else { return index }
            if bytes[index + 1] < lower || bytes[index + 1] > upper { return index }
            for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 { return index }
            index += length
        }
        return nil
    }
}
