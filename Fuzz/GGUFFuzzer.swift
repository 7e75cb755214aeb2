// libFuzzer entry point for the GGUF reader (see Fuzz/README.md).
// Compiled together with Sources/GGUF/*.swift by Fuzz/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGGUF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let file = try? GGUFFile(bytes: bytes) else { return 0 }
    // A file that opens must be safe to read in full.
    var checksum: UInt8 = 0
    for tensor in file.tensors {
        for byte in file.data(for: tensor) { checksum &+= byte }
    }
    for entry in file.metadata.entries {
        if case .array(let array) = entry.value {
            _ = array.values
            _ = array.strings
            _ = array.ints
            _ = array.floats
        }
    }
    return checksum == 0xFF ? 0 : 0
}
