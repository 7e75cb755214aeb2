// Writes a few small valid GGUF files as the fuzzer's starting corpus.
#if canImport(Glibc)
import Glibc
#endif

@main
struct SeedCorpus {
    static func main() throws {
        let directory = CommandLine.arguments[1]
        var writer = GGUFWriter()
        writer.set("general.architecture", "llama")
        writer.set("general.alignment", .uint32(32))
        writer.set("tokenizer.ggml.tokens", strings: ["<s>", "a", "b", "ab"])
        writer.set("test.ints", .array(GGUFArray(int32s: [1, 2, 3])))
        let inner = try GGUFArray(elementType: .uint8, values: [.uint8(1)])
        writer.set("test.nested", .array(try GGUFArray(elementType: .array, values: [.array(inner)])))
        try writer.write(to: "\(directory)/metadata-only.gguf")
        try writer.addTensor(name: "norm", dimensions: [4], float32s: [1, 2, 3, 4])
        try writer.addTensor(name: "q8", type: .q8_0, dimensions: [32, 2], data: [UInt8](repeating: 1, count: 68))
        try writer.write(to: "\(directory)/tensors.gguf")
        writer.version = 2
        try writer.write(to: "\(directory)/v2.gguf")
    }
}
