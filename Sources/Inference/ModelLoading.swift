import GGUF
import Kernels

/// Reads an architecture's hyperparameters from GGUF metadata, checking each.
struct ConfigurationReader {
    let metadata: GGUFMetadata
    let path: String
    let prefix: String

    /// A positive integer hyperparameter, at most `maximum` (checked before anything is sized by it).
    func int(_ key: String, default fallback: Int? = nil, maximum: Int = 1 << 20) throws(InferenceError) -> Int {
        let fullKey = prefix + key
        let value: Int?
        do {
            if let array = try? metadata.ints(fullKey) {
                // Per-block values (some files store arrays): accept when uniform.
                guard let first = array.first, array.allSatisfy({ $0 == first }) else {
                    throw InferenceError.invalidMetadata(key: fullKey, reason: "per-block values differ, which is not supported", path: path)
                }
                value = first
            } else {
                value = try metadata.int(fullKey)
            }
        } catch let error as InferenceError {
            throw error
        } catch {
            throw .invalidMetadata(key: fullKey, reason: "\(error)", path: path)
        }
        guard let result = value ?? fallback else { throw .missingMetadata(key: fullKey, path: path) }
        guard result > 0 else { throw .invalidMetadata(key: fullKey, reason: "must be positive, found \(result)", path: path) }
        guard result <= maximum else {
            throw .invalidMetadata(key: fullKey, reason: "\(result) is over the largest supported value \(maximum); the file is corrupt or crafted", path: path)
        }
        return result
    }

    func float(_ key: String, default fallback: Float? = nil) throws(InferenceError) -> Float {
        let fullKey = prefix + key
        let value: Double?
        do { value = try metadata.double(fullKey) } catch {
            throw .invalidMetadata(key: fullKey, reason: "\(error)", path: path)
        }
        guard let result = value.map(Float.init) ?? fallback else { throw .missingMetadata(key: fullKey, path: path) }
        guard result.isFinite, result > 0 else { throw .invalidMetadata(key: fullKey, reason: "must be a positive number, found \(result)", path: path) }
        return result
    }

    func string(_ key: String) throws(InferenceError) -> String? {
        do { return try metadata.string(prefix + key) } catch {
            throw .invalidMetadata(key: prefix + key, reason: "\(error)", path: path)
        }
    }
}

extension ModelConfiguration {
    /// The configuration of the model in `file`, from its architecture's keys.
    init(file: GGUFFile, path: String) throws(InferenceError) {
        let architecture = try Self.architecture(of: file, path: path)
        let keys = ConfigurationReader(metadata: file.metadata, path: path, prefix: architecture.rawValue + ".")
        // Every size is bounded before anything is allocated by it: each block has tensors of its own,
        // so there are never more blocks than tensors in the file.
        let blockCount = try keys.int("block_count", maximum: min(4096, max(1, file.tensors.count)))
        let embeddingLength = try keys.int("embedding_length", maximum: 1 << 18)
        let heads = try AttentionGeometry(keys, embeddingLength: embeddingLength)
        let vocabularySize = try Self.vocabularySize(of: file, embeddingLength: embeddingLength, keys: keys)
        let rope = try Self.ropeFrequency(keys)
        try Self.checkNormsFit(file, blockCount: blockCount, embeddingLength: embeddingLength, keys: keys)
        let specifics = try ArchitectureSpecifics(architecture, keys: keys, blockCount: blockCount, embeddingLength: embeddingLength,
                                                  heads: heads, ropeBase: rope.base, positionScale: rope.positionScale)
        self.init(
            architecture: architecture,
            blockCount: blockCount,
            embeddingLength: embeddingLength,
            feedForwardLength: try keys.int("feed_forward_length", maximum: 1 << 20),
            headCount: heads.headCount,
            headCountKV: heads.headCountKV,
            headDimension: heads.headDimension,
            ropeDimensions: heads.ropeDimensions,
            ropeOrdering: specifics.ropeOrdering,
            normEpsilon: try keys.float("attention.layer_norm_rms_epsilon"),
            contextLength: try keys.int("context_length", default: 2048, maximum: 1 << 24),
            vocabularySize: vocabularySize,
            activation: specifics.activation,
            embeddingScale: specifics.embeddingScale,
            attentionScale: specifics.attentionScale,
            blocks: specifics.blocks
        )
    }

    /// The file's `general.architecture`, which must be one this engine runs.
    private static func architecture(of file: GGUFFile, path: String) throws(InferenceError) -> Architecture {
        let architectureName: String
        do { architectureName = try file.metadata.requiredString("general.architecture") } catch {
            throw .missingMetadata(key: "general.architecture", path: path)
        }
        guard let architecture = Architecture(rawValue: architectureName) else {
            throw .unsupportedArchitecture(architectureName, path: path)
        }
        return architecture
    }

    /// Head counts and dimensions, each checked against the others.
    private struct AttentionGeometry {
        let headCount: Int, headCountKV: Int, headDimension: Int, ropeDimensions: Int

        init(_ keys: ConfigurationReader, embeddingLength: Int) throws(InferenceError) {
            headCount = try keys.int("attention.head_count", maximum: embeddingLength)
            headCountKV = try keys.int("attention.head_count_kv", default: headCount, maximum: headCount)
            guard headCount % headCountKV == 0 else {
                throw .invalidMetadata(key: keys.prefix + "attention.head_count_kv",
                                       reason: "\(headCountKV) does not divide the \(headCount) query heads", path: keys.path)
            }
            headDimension = try keys.int("attention.key_length", default: max(1, embeddingLength / headCount), maximum: 1 << 16)
            let valueLength = try keys.int("attention.value_length", default: headDimension, maximum: 1 << 16)
            guard valueLength == headDimension else {
                throw .invalidMetadata(key: keys.prefix + "attention.value_length",
                                       reason: "value length \(valueLength) differs from key length \(headDimension), which is not supported", path: keys.path)
            }
            ropeDimensions = try keys.int("rope.dimension_count", default: headDimension, maximum: 1 << 16)
            guard ropeDimensions <= headDimension, ropeDimensions % 2 == 0 else {
                throw .invalidMetadata(key: keys.prefix + "rope.dimension_count",
                                       reason: "\(ropeDimensions) must be even and at most the head dimension \(headDimension)", path: keys.path)
            }
        }
    }

    /// The vocabulary size: `token_embd.weight`'s row count; its rows must be `embeddingLength` long.
    private static func vocabularySize(of file: GGUFFile, embeddingLength: Int, keys: ConfigurationReader) throws(InferenceError) -> Int {
        guard let embeddingTensor = file.tensor(named: "token_embd.weight") else {
            throw .missingTensor(name: "token_embd.weight", path: keys.path)
        }
        guard embeddingTensor.dimensions.count >= 2 else {
            throw .tensorShapeMismatch(name: "token_embd.weight", expected: [embeddingLength, -1], actual: embeddingTensor.dimensions, path: keys.path)
        }
        guard embeddingTensor.dimensions[0] == embeddingLength else {
            throw .invalidMetadata(key: keys.prefix + "embedding_length",
                                   reason: "\(embeddingLength) differs from token_embd.weight's row length \(embeddingTensor.dimensions[0])", path: keys.path)
        }
        return embeddingTensor.dimensions[1]
    }

    /// RoPE's base frequency and position scale (linear scaling only).
    private static func ropeFrequency(_ keys: ConfigurationReader) throws(InferenceError) -> (base: Float, positionScale: Float) {
        let ropeBase = try keys.float("rope.freq_base", default: 10_000)
        switch try keys.string("rope.scaling.type") {
        case nil, "none":
            return (ropeBase, 1)
        case "linear":
            return (ropeBase, 1 / (try keys.float("rope.scaling.factor", default: 1)))
        case let other?:
            throw .invalidMetadata(key: keys.prefix + "rope.scaling.type", reason: "RoPE scaling '\(other)' is not supported (supported: none, linear)", path: keys.path)
        }
    }

    /// The norm vectors copied at load time (per block: 2-4 of embedding_length) come from tensors in the
    /// file, so a header whose sizes need more elements than the file's tensors hold is refused here,
    /// before the copy arena is sized by it.
    private static func checkNormsFit(_ file: GGUFFile, blockCount: Int, embeddingLength: Int, keys: ConfigurationReader) throws(InferenceError) {
        let fileElements = file.tensors.reduce(0) { $0 &+ $1.elementCount }
        let (normElements, overflow) = blockCount.multipliedReportingOverflow(by: embeddingLength)
        guard !overflow, normElements <= fileElements else {
            throw .invalidMetadata(key: keys.prefix + "block_count",
                                   reason: "\(blockCount) blocks of \(embeddingLength) need more weights than the file's \(file.tensors.count) tensors hold", path: keys.path)
        }
    }

    /// What differs per architecture: RoPE ordering, activation, embedding and attention scales, per-block RoPE and window.
    private struct ArchitectureSpecifics {
        var blocks: [BlockConfiguration]
        var activation = FeedForwardActivation.silu
        var embeddingScale: Float = 1
        var attentionScale: Float
        let ropeOrdering: RoPEOrdering

        init(_ architecture: Architecture, keys: ConfigurationReader, blockCount: Int, embeddingLength: Int,
             heads: AttentionGeometry, ropeBase: Float, positionScale: Float) throws(InferenceError) {
            blocks = Array(repeating: BlockConfiguration(ropeBase: ropeBase, ropePositionScale: positionScale, slidingWindow: nil), count: blockCount)
            attentionScale = 1 / Float(heads.headDimension).squareRoot()
            switch architecture {
            case .llama:
                ropeOrdering = .adjacentPairs
            case .qwen2, .qwen3:
                ropeOrdering = .halves
            case .gemma3:
                // Facts from llama.cpp's gemma3 loader: every sixth block is global,
                // the others use the sliding window with RoPE base 10000 and no scaling.
                ropeOrdering = .halves
                activation = .geluTanh
                embeddingScale = Float(embeddingLength).squareRoot()
                if blockCount == 62 { attentionScale = 1 / Float(embeddingLength / heads.headCount).squareRoot() }
                let globalRopeBase = try keys.float("rope.freq_base", default: 1_000_000)
                let window = try keys.int("attention.sliding_window", maximum: 1 << 24)
                for index in 0..<blockCount {
                    if index % 6 < 5 {
                        blocks[index] = BlockConfiguration(ropeBase: 10_000, ropePositionScale: 1, slidingWindow: window)
                    } else {
                        blocks[index] = BlockConfiguration(ropeBase: globalRopeBase, ropePositionScale: positionScale, slidingWindow: nil)
                    }
                }
            }
        }
    }
}

extension Transformer {
    /// Builds the transformer over the tensors of a loaded GGUF file. The weight matrices
    /// are copied out of the file mapping into huge pages, the output matrix and Q4_0/Q4_1
    /// layers with their rows interleaved (`TransformerWeights.copyMatrices`).
    init(file: GGUFFile, path: String) throws(InferenceError) {
        let configuration = try ModelConfiguration(file: file, path: path)
        var weights = try TransformerWeights(configuration: configuration, path: path) { name in
            guard let info = file.tensor(named: name) else { return nil }
            let data = file.data(for: info)
            return TensorView(name: name, format: QuantFormat(rawValue: info.type.name), typeName: info.type.name,
                              dimensions: info.dimensions, data: data.baseAddress ?? UnsafeRawPointer(file.storage.base))
        }
        weights.copyMatrices(releasing: file.storage)
        self.init(configuration: configuration, weights: weights)
    }
}
