import SwiftSyntax

/// What a `#Playground` block's results depend on in its file, and the one
/// content fingerprint of a block.
///
/// The fingerprint (`material`) is the block's own text followed by the text
/// of every declaration it uses (types, tools, functions, extensions, constants
/// found by name, transitively; imports and operator declarations always), each
/// once, in source order, separated by `"\n\u{1}"`. A block's run reads nothing
/// else of the file (it evaluates only the top-level constants its content
/// holds), so editing a declaration the block does not use, blank lines or
/// another block leaves the fingerprint, and the results, unchanged.
///
/// Both result stores build on it: the disk cache key is SHA-256 of
/// (`PlaygroundEvaluator.cacheVersion`, the configuration's identity,
/// `material`), and the language server identifies a block's results by
/// (`material`, its evaluation settings). Because the block and its
/// declarations may move without changing the fingerprint, stored results keep
/// their ranges in content coordinates (`contentOffsets`: UTF-8 offsets into
/// `material`) and are placed back with `offsets(ofContent:)`.
public struct BlockContent: Sendable {
    /// The block's range, then the ranges of the declarations it uses, in source order.
    /// A declaration found under several names is listed once.
    public let ranges: [PromptLanguage.SourceRange]
    /// The fingerprint text.
    public let material: String
    /// Where each range's text starts in `material` (UTF-8 offsets).
    private let starts: [Int]

    /// The content of every block of `file`, in `file.playgrounds` order (the
    /// declaration index is built once for the file).
    public static func all(in file: PromptFile) -> [BlockContent] {
        let index = DeclarationIndex(file)
        return file.playgrounds.map { BlockContent(block: $0, file: file, index: index) }
    }

    /// The content of one block of `file`.
    public init(block: PlaygroundBlock, in file: PromptFile) {
        self.init(block: block, file: file, index: DeclarationIndex(file))
    }

    private init(block: PlaygroundBlock, file: PromptFile, index: DeclarationIndex) {
        var used: [PromptLanguage.SourceRange] = []
        var seen = Set<String>()
        var pending = Self.identifiers(in: file.source.bytes, block.range.offsets)
        // A suite's @Test method runs on an instance of its (outermost) type and reads its members as `self.x`/`Self.x`.
        if let suite = block.testSuite?.split(separator: ".").first { pending.append(String(suite)) }
        while let name = pending.popLast() {
            guard !seen.contains(name), let found = index.declarations[name] else { continue }
            seen.insert(name)
            for range in found {
                used.append(range)
                pending += Self.identifiers(in: file.source.bytes, range.offsets)
            }
        }
        used += index.always
        used.sort { $0.start.offset < $1.start.offset }
        var ranges = [block.range]
        var included: Set<Int> = [block.range.start.offset]
        for range in used where included.insert(range.start.offset).inserted { ranges.append(range) }
        var material = ""
        var starts: [Int] = []
        var length = 0
        for (position, range) in ranges.enumerated() {
            if position > 0 {
                material += "\n\u{1}"
                length += 2
            }
            starts.append(length)
            let text = file.source.slice(range.offsets)
            material += text
            length += text.utf8.count
        }
        self.ranges = ranges
        self.material = material
        self.starts = starts
    }

    /// The declarations the block uses (`ranges` without the block's own).
    public var dependencies: ArraySlice<PromptLanguage.SourceRange> { ranges.dropFirst() }

    /// Whether `offset` lies in the block or in a declaration it uses.
    public func covers(_ offset: Int) -> Bool { ranges.contains { $0.contains(offset) } }

    /// A file range in content coordinates, or nil when it lies outside the block
    /// and the declarations it uses (it then depends on text the fingerprint does not hold).
    public func contentOffsets(of offsets: Range<Int>) -> Range<Int>? {
        for (position, range) in ranges.enumerated()
        where range.start.offset <= offsets.lowerBound && offsets.upperBound <= range.end.offset {
            let base = starts[position] - range.start.offset
            return (offsets.lowerBound + base)..<(offsets.upperBound + base)
        }
        return nil
    }

    /// The file range of content coordinates (the inverse of `contentOffsets(of:)`),
    /// nil when they fall outside every range.
    public func offsets(ofContent content: Range<Int>) -> Range<Int>? {
        for (position, range) in ranges.enumerated()
        where starts[position] <= content.lowerBound && content.upperBound <= starts[position] + range.offsets.count {
            let base = range.start.offset - starts[position]
            return (content.lowerBound + base)..<(content.upperBound + base)
        }
        return nil
    }

    /// A range of the text this content was taken from, placed in the text `current` was taken
    /// from (the same fingerprint, possibly moved): through content coordinates, or, for a range
    /// outside the content, shifted as far as the block moved.
    public func moved(_ offsets: Range<Int>, to current: BlockContent) -> Range<Int> {
        if let content = contentOffsets(of: offsets), let placed = current.offsets(ofContent: content) { return placed }
        let shift = current.ranges[0].start.offset - ranges[0].start.offset
        return max(0, offsets.lowerBound + shift)..<max(0, offsets.upperBound + shift)
    }

    /// The words of a byte range that could name a declaration (letters, digits
    /// and `_`, not starting with a digit). ASCII text is scanned bytewise; text
    /// with other characters goes through `Character`'s letter and number classes.
    static func identifiers(in bytes: [UInt8], _ offsets: Range<Int>) -> [String] {
        let lower = min(max(0, offsets.lowerBound), bytes.count)
        let upper = min(max(lower, offsets.upperBound), bytes.count)
        return bytes.withUnsafeBufferPointer { buffer -> [String] in
            let slice = UnsafeBufferPointer(rebasing: buffer[lower..<upper])
            if slice.contains(where: { $0 >= 0x80 }) {
                return String(decoding: slice, as: UTF8.self).split { !($0.isLetter || $0.isNumber || $0 == "_") }
                    .filter { $0.first?.isNumber == false }.map(String.init)
            }
            var words: [String] = []
            var index = 0
            while index < slice.count {
                let byte = slice[index]
                guard isWordByte(byte) else { index += 1; continue }
                let start = index
                while index < slice.count, isWordByte(slice[index]) { index += 1 }
                if !(0x30...0x39).contains(byte) {
                    words.append(String(decoding: UnsafeBufferPointer(rebasing: slice[start..<index]), as: UTF8.self))
                }
            }
            return words
        }
    }

    @inline(__always)
    private static func isWordByte(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5F
    }
}

/// The file's declarations by the names that reach them: types (nested ones too), functions,
/// type aliases, top-level constants and variables (every name a pattern binds), extensions (by the
/// extended type and by each member's name). Imports and operator declarations are inputs of every
/// block (`always`).
private struct DeclarationIndex {
    var declarations: [String: [PromptLanguage.SourceRange]] = [:]
    var always: [PromptLanguage.SourceRange] = []

    init(_ file: PromptFile) {
        let source = file.source
        for item in file.syntax.statements {
            guard case .decl(let decl) = item.item else { continue }
            let start = decl.positionAfterSkippingLeadingTrivia.utf8Offset
            let range = source.range(start..<max(start, decl.endPositionBeforeTrailingTrivia.utf8Offset))
            if decl.is(ImportDeclSyntax.self) || decl.is(OperatorDeclSyntax.self) || decl.is(PrecedenceGroupDeclSyntax.self) {
                always.append(range)
            } else if let variable = decl.as(VariableDeclSyntax.self) {
                for name in Self.boundNames(variable) { add(name, range) }
            } else if let extensionDecl = decl.as(ExtensionDeclSyntax.self) {
                if let last = extensionDecl.extendedType.trimmedDescription.split(separator: ".").last { add(String(last), range) }
                for member in extensionDecl.memberBlock.members {
                    if let named = member.decl.asProtocol(NamedDeclSyntax.self) {
                        add(named.name.text, range)
                    } else if let variable = member.decl.as(VariableDeclSyntax.self) {
                        for name in Self.boundNames(variable) { add(name, range) }
                    }
                }
            } else if let named = decl.asProtocol(NamedDeclSyntax.self) {
                add(named.name.text, range)  // types, functions, type aliases, macros
            }
        }
        // Nested types are reached by their own name too (`Leg` inside `Trip`).
        for type in file.types where type.parent != nil { add(type.name, type.range) }
    }

    private mutating func add(_ name: String, _ range: PromptLanguage.SourceRange) {
        guard !name.isEmpty else { return }
        declarations[name, default: []].append(range)
    }

    /// The names a `let`/`var` binds (tuple patterns bind several).
    private static func boundNames(_ variable: VariableDeclSyntax) -> [String] {
        variable.bindings.flatMap { binding in
            binding.pattern.tokens(viewMode: .sourceAccurate).compactMap { token -> String? in
                if case .identifier(let name) = token.tokenKind { return name }
                return nil
            }
        }
    }
}
