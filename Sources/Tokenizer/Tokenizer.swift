import GGUF

public typealias TokenID = Int32

/// What kind of token an id is (from `tokenizer.ggml.token_type`).
public struct TokenAttributes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let normal = TokenAttributes(rawValue: 1)
    public static let unknown = TokenAttributes(rawValue: 2)
    public static let control = TokenAttributes(rawValue: 4)
    public static let userDefined = TokenAttributes(rawValue: 8)
    public static let unused = TokenAttributes(rawValue: 16)
    public static let byte = TokenAttributes(rawValue: 32)

    /// Tokens the special-token pass can match in text.
    public static let special: TokenAttributes = [.control, .userDefined, .unknown]

    init(ggmlType: Int) {
        switch ggmlType {
        case 1: self = .normal
        case 2: self = .unknown
        case 3: self = .control
        case 4: self = .userDefined
        case 5: self = .unused
        case 6: self = .byte
        default: self = []
        }
    }
}

public struct TokenizerError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A model's tokenizer, built from its GGUF metadata: byte-level BPE
/// (`tokenizer.ggml.model = gpt2`) or SentencePiece (`llama`). It reproduces
/// llama.cpp's tokenization token for token. Immutable and thread-safe.
public final class Tokenizer: Sendable {
    public enum Kind: String, Sendable {
        case bytePairEncoding = "gpt2"
        case sentencePiece = "llama"
    }

    public let kind: Kind
    /// The BPE pre-tokenizer (nil for SentencePiece).
    public let preTokenizer: PreTokenizer?
    public let vocabularySize: Int
    public let bosID: TokenID?
    public let eosID: TokenID?
    /// End of turn (`<|im_end|>`, `<end_of_turn>`, `<|eot_id|>`, ...), when the vocabulary has one.
    public let eotID: TokenID?
    public let unknownID: TokenID?
    public let paddingID: TokenID?
    /// Every token that ends generation (EOS, EOT and the end markers llama.cpp recognises by text).
    public let endOfGenerationIDs: Set<TokenID>
    public let addsBOS: Bool
    public let addsEOS: Bool
    public let addsSpacePrefix: Bool

    let texts: TokenTextTable
    let attributeTable: [TokenAttributes]
    let scores: [Float]
    /// (left id << 32 | right id) -> (rank << 32 | merged id)
    let merges: MergeTable
    let ignoreMerges: Bool
    /// The token for each single byte: the byte-level character (BPE) or `<0xXX>` (SentencePiece); -1 if none.
    let byteTokens: [TokenID]
    /// The byte-level text of each byte (BPE), for whole-word lookups.
    let byteLevelText: [[UInt8]]
    /// The decoded bytes of each token, special tokens rendered.
    let pieces: TokenTextTable
    let specialMatcher: SpecialTokenMatcher

    /// Reads the tokenizer of an opened model file.
    public convenience init(gguf: GGUFFile) throws {
        try self.init(metadata: gguf.metadata, modelName: gguf.path ?? "model")
    }

    public init(metadata m: GGUFMetadata, modelName: String) throws {
        func wrap<T>(_ body: () throws -> T) throws -> T {
            do { return try body() } catch let error as GGUFError {
                throw TokenizerError("\(modelName): tokenizer metadata: \(error)")
            }
        }
        let model = try wrap { try m.string("tokenizer.ggml.model") } ?? ""
        guard let kind = Kind(rawValue: model) else {
            throw TokenizerError("\(modelName): unsupported tokenizer '\(model)' (tokenizer.ggml.model); supported: gpt2 (byte-level BPE), llama (SentencePiece)")
        }
        self.kind = kind
        guard let tokenArray = try wrap({ try m.array("tokenizer.ggml.tokens") }), tokenArray.elementType == .string, tokenArray.count > 0 else {
            throw TokenizerError("\(modelName): the model has no vocabulary (tokenizer.ggml.tokens)")
        }
        let n = tokenArray.count
        vocabularySize = n

        let texts = TokenTextTable(capacity: n, byteCapacity: n * 8)
        tokenArray.forEachStringBytes { _, bytes in texts.append(bytes) }
        texts.buildIndex()

        var attributes = [TokenAttributes](repeating: .normal, count: n)
        if let types = try wrap({ try m.ints("tokenizer.ggml.token_type") }) {
            guard types.count == n else {
                throw TokenizerError("\(modelName): tokenizer.ggml.token_type has \(types.count) entries for \(n) tokens")
            }
            for i in 0..<n { attributes[i] = TokenAttributes(ggmlType: types[i]) }
        }
        var scores: [Float] = []
        if let s = try wrap({ try m.floats("tokenizer.ggml.scores") }) {
            guard s.count == n else {
                throw TokenizerError("\(modelName): tokenizer.ggml.scores has \(s.count) entries for \(n) tokens")
            }
            scores = s
        }
        func id(_ key: String) throws -> TokenID? {
            guard let value = try wrap({ try m.int(key) }) else { return nil }
            guard value >= 0, value < n else { return nil }
            return TokenID(value)
        }

        // Pre-tokenizer and defaults, as llama.cpp derives them.
        let pre = try Self.preTokenization(kind: kind, ggmlName: try wrap { try m.string("tokenizer.ggml.pre") }, modelName: modelName)
        preTokenizer = pre.preTokenizer
        ignoreMerges = pre.ignoresMerges
        let addBOS = pre.addsBOS
        addsBOS = try wrap { try m.bool("tokenizer.ggml.add_bos_token") } ?? addBOS
        addsEOS = try wrap { try m.bool("tokenizer.ggml.add_eos_token") } ?? false
        addsSpacePrefix = try wrap { try m.bool("tokenizer.ggml.add_space_prefix") } ?? (kind == .sentencePiece)

        bosID = try id("tokenizer.ggml.bos_token_id") ?? (kind == .sentencePiece ? 1 : nil)
        eosID = try id("tokenizer.ggml.eos_token_id") ?? (kind == .sentencePiece ? 2 : nil)
        unknownID = try id("tokenizer.ggml.unknown_token_id") ?? (kind == .sentencePiece ? 0 : nil)
        paddingID = try id("tokenizer.ggml.padding_token_id")

        // End-of-turn and end-of-generation tokens recognised by text, which
        // llama.cpp also forces to be control tokens.
        let ends = Self.endTokens(eot: try id("tokenizer.ggml.eot_token_id"), eos: eosID, texts: texts, attributes: &attributes,
                                  fillInMiddle: try ["tokenizer.ggml.fim_pad_token_id", "tokenizer.ggml.fim_rep_token_id",
                                                     "tokenizer.ggml.fim_sep_token_id", "tokenizer.ggml.eom_token_id"].compactMap(id))
        eotID = ends.endOfTurn
        endOfGenerationIDs = ends.endOfGeneration
        attributeTable = attributes
        self.scores = scores

        // Byte tokens and merges.
        let byteLevelText = kind == .bytePairEncoding ? ByteLevel.encodedBytes : []
        let byteTokens = Self.byteTokens(kind: kind, texts: texts)
        let mergeEntries = kind == .bytePairEncoding
            ? try wrap({ try m.array("tokenizer.ggml.merges") }).map { Self.mergeEntries($0, texts: texts) } ?? [] : []
        self.byteTokens = byteTokens
        self.byteLevelText = byteLevelText
        self.merges = MergeTable(mergeEntries)
        self.texts = texts
        pieces = Self.buildPieces(kind: kind, texts: texts, attributes: attributes)
        specialMatcher = SpecialTokenMatcher(texts: texts, attributes: attributes)
    }

    /// The pre-tokenizer `tokenizer.ggml.pre` names (BPE only) and the defaults llama.cpp derives from it:
    /// the llama-3 family ignores merges and adds BOS; SentencePiece adds BOS.
    private static func preTokenization(kind: Kind, ggmlName: String?, modelName: String) throws
        -> (preTokenizer: PreTokenizer?, ignoresMerges: Bool, addsBOS: Bool) {
        guard kind == .bytePairEncoding else { return (nil, false, kind == .sentencePiece) }
        let preName = ggmlName ?? "default"
        guard let pre = PreTokenizer(ggmlName: preName) else {
            throw TokenizerError("\(modelName): unknown pre-tokenizer '\(preName)' (tokenizer.ggml.pre); supported: smollm, llama-bpe/llama3, qwen2, gpt-2, default and their aliases")
        }
        let llama3 = pre == .llama3 && ["llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"].contains(preName)
        return (pre, llama3, llama3)
    }

    /// The end-of-turn token (from metadata, else the first known end-of-turn text) and every token that
    /// ends generation, as llama.cpp derives them; the tokens recognised by text become control tokens.
    private static func endTokens(eot given: TokenID?, eos: TokenID?, texts: TokenTextTable, attributes: inout [TokenAttributes],
                                  fillInMiddle: [TokenID]) -> (endOfTurn: TokenID?, endOfGeneration: Set<TokenID>) {
        var eot = given
        let eotTexts = ["<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
                        "<EOT>", "_<EOT>", "<｜end▁of▁sentence｜>", "<end_of_utterance>"]
        if eot == nil {
            eot = eotTexts.lazy.compactMap { texts.lookup(Array($0.utf8)) }.first
            if let e = eot { attributes[Int(e)] = .control }
        }
        var eog = Set(fillInMiddle)
        let eogTexts = ["<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
                        "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
                        "<|end_of_text|>", "<end_of_utterance>"]
        for text in eogTexts {
            if let v = texts.lookup(Array(text.utf8)) {
                eog.insert(v)
                attributes[Int(v)] = .control
            }
        }
        if let e = eos { eog.insert(e) }
        if let e = eot { eog.insert(e) }
        return (eot, eog)
    }

    /// The token of each byte: its byte-level text (BPE) or `<0xXX>` (SentencePiece); -1 when the vocabulary has none.
    private static func byteTokens(kind: Kind, texts: TokenTextTable) -> [TokenID] {
        var byteTokens = [TokenID](repeating: -1, count: 256)
        switch kind {
        case .bytePairEncoding:
            for b in 0..<256 { byteTokens[b] = texts.lookup(ByteLevel.encodedBytes[b]) ?? -1 }
        case .sentencePiece:
            let hex = Array("0123456789ABCDEF".utf8)
            for b in 0..<256 {
                let text: [UInt8] = Array("<0x".utf8) + [hex[b >> 4], hex[b & 15], UInt8(ascii: ">")]
                byteTokens[b] = texts.lookup(text) ?? texts.lookup([UInt8(b)]) ?? -1
            }
        }
        return byteTokens
    }

    /// BPE merges as (left id << 32 | right id) -> (rank << 32 | result id); merges whose parts or result
    /// are not in the vocabulary are skipped (their rank still counts).
    private static func mergeEntries(_ mergeArray: GGUFArray, texts: TokenTextTable) -> [(key: UInt64, value: UInt64)] {
        var mergeEntries: [(key: UInt64, value: UInt64)] = []
        mergeEntries.reserveCapacity(mergeArray.count)
        var rank: UInt64 = 0
        var joined: [UInt8] = []
        mergeArray.forEachStringBytes { _, merge in
            defer { rank += 1 }
            // "left right": split at the first space after the first byte.
            guard merge.count >= 3, let space = merge[1...].firstIndex(of: 0x20) else { return }
            let left = UnsafeRawBufferPointer(rebasing: merge[0..<space])
            let right = UnsafeRawBufferPointer(rebasing: merge[(space + 1)...])
            guard let l = texts.lookup(left), let r = texts.lookup(right) else { return }
            joined.removeAll(keepingCapacity: true)
            joined.append(contentsOf: left)
            joined.append(contentsOf: right)
            guard let result = texts.lookup(joined) else { return }
            let key = UInt64(UInt32(l)) << 32 | UInt64(UInt32(r))
            mergeEntries.append((key, rank << 32 | UInt64(UInt32(result))))
        }
        return mergeEntries
    }

    // MARK: Vocabulary

    public func attributes(of id: TokenID) -> TokenAttributes {
        id >= 0 && Int(id) < vocabularySize ? attributeTable[Int(id)] : []
    }

    public func isEndOfGeneration(_ id: TokenID) -> Bool { endOfGenerationIDs.contains(id) }

    /// Control or unknown tokens: never produced from user text, and not
    /// rendered as text unless asked.
    public func isControl(_ id: TokenID) -> Bool { !attributes(of: id).isDisjoint(with: [.control, .unknown]) }

    /// The id of the token whose vocabulary text is exactly `text` (e.g. "<|im_start|>").
    public func tokenID(forText text: String) -> TokenID? { texts.lookup(Array(text.utf8)) }

    /// The token's text as stored in the vocabulary (byte-level or ▁-escaped form).
    public func vocabularyText(_ id: TokenID) -> String {
        guard id >= 0, Int(id) < vocabularySize else { return "" }
        return String(decoding: texts.text(Int(id)), as: UTF8.self)
    }

    /// The bytes a token decodes to. Control and unknown tokens give their
    /// text only when `renderSpecial` is set; unused tokens give nothing.
    public func pieceBytes(_ id: TokenID, renderSpecial: Bool = false) -> ArraySlice<UInt8> {
        guard id >= 0, Int(id) < vocabularySize else { return [] }
        if !renderSpecial, isControl(id) { return [] }
        return pieces.text(Int(id))
    }

    /// The decoded bytes of every token, indexed by id (special tokens
    /// rendered). For guided generation, which sees the vocabulary as bytes.
    public func allTokenBytes() -> [[UInt8]] {
        (0..<vocabularySize).map { Array(pieces.bytes($0)) }
    }

    /// Decodes tokens to text (invalid UTF-8 becomes U+FFFD).
    public func decode(_ ids: [TokenID], renderSpecial: Bool = false) -> String {
        var bytes: [UInt8] = []
        for id in ids { bytes.append(contentsOf: pieceBytes(id, renderSpecial: renderSpecial)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func buildPieces(kind: Kind, texts: TokenTextTable, attributes: [TokenAttributes]) -> TokenTextTable {
        let pieces = TokenTextTable(capacity: texts.count, byteCapacity: texts.byteCount)
        var piece: [UInt8] = []
        let escapedSpace: [UInt8] = [0xE2, 0x96, 0x81]
        for id in 0..<texts.count {
            let text = texts.bytes(id)
            let attr = attributes[id]
            piece.removeAll(keepingCapacity: true)
            if attr.contains(.unused) || attr.isEmpty {
                // nothing
            } else if !attr.isDisjoint(with: [.control, .unknown, .userDefined]) {
                piece.append(contentsOf: text)
            } else if kind == .bytePairEncoding {
                ByteLevel.decode(text, into: &piece)
            } else if attr.contains(.byte) {
                piece.append(Self.byteValue(of: text) ?? 0)
            } else {
                var i = text.startIndex
                while i < text.endIndex {
                    if text.endIndex - i >= 3, text[i] == escapedSpace[0], text[i + 1] == escapedSpace[1], text[i + 2] == escapedSpace[2] {
                        piece.append(0x20)
                        i += 3
                    } else {
                        piece.append(text[i])
                        i += 1
                    }
                }
            }
            pieces.append(piece)
        }
        return pieces
    }

    /// The byte of a `<0xXX>` token.
    private static func byteValue(of text: UnsafeBufferPointer<UInt8>) -> UInt8? {
        guard text.count == 6 else { return nil }
        return UInt8(String(decoding: text[3..<5], as: UTF8.self), radix: 16)
    }

    // MARK: Tokenizing

    /// Tokenizes `text`. `addSpecial` adds BOS/EOS as the model asks;
    /// `parseSpecial` lets control tokens written in the text (like
    /// `<|im_start|>`) become those tokens — leave it off for user text.
    public func tokenize(_ text: String, addSpecial: Bool = true, parseSpecial: Bool = true) -> [TokenID] {
        var text = text
        return text.withUTF8 { tokenize(bytes: UnsafeRawBufferPointer($0), addSpecial: addSpecial, parseSpecial: parseSpecial) }
    }

    public func tokenize(bytes: [UInt8], addSpecial: Bool = true, parseSpecial: Bool = true) -> [TokenID] {
        bytes.withUnsafeBytes { tokenize(bytes: $0, addSpecial: addSpecial, parseSpecial: parseSpecial) }
    }

    public func tokenize(bytes: UnsafeRawBufferPointer, addSpecial: Bool = true, parseSpecial: Bool = true) -> [TokenID] {
        var output: [TokenID] = []
        output.reserveCapacity(bytes.count / 3 + 4)
        if addSpecial, addsBOS, let bos = bosID { output.append(bos) }
        let fragments = specialMatcher.partition(bytes, parseSpecial: parseSpecial)
        var previousWasSpecial = true
        for fragment in fragments {
            switch fragment {
            case .token(let id):
                output.append(id)
                previousWasSpecial = true
            case .text(let range):
                let raw = UnsafeRawBufferPointer(rebasing: bytes[range])
                switch kind {
                case .bytePairEncoding:
                    tokenizeBPE(raw, into: &output)
                case .sentencePiece:
                    tokenizeSPM(raw, spacePrefix: addsSpacePrefix && previousWasSpecial, into: &output)
                }
                previousWasSpecial = false
            }
        }
        if addSpecial, addsEOS, let eos = eosID { output.append(eos) }
        return output
    }
}
