#if canImport(Glibc)
import Glibc
#endif

/// The instruction-set extensions the kernels can use beyond their x86-64-v3 baseline,
/// read once from the operating system.
public enum CPUFeatures {
    /// AVX-512 F/BW/VL with VNNI (`vpdpbusd`), enabled by the kernel for user code: the
    /// prompt-processing kernel `KernelsAVX512.StripProducts` runs only then.
    /// `FMPLAY_NO_AVX512=1` turns it off (to measure or test the AVX2 kernels).
    public static let avx512VNNI: Bool = {
        #if arch(x86_64) && os(Linux)
        if let value = getenv("FMPLAY_NO_AVX512"), String(cString: value) == "1" { return false }
        let flags = cpuFlags()
        return ["avx512f", "avx512bw", "avx512vl", "avx512_vnni"].allSatisfy(flags.contains)
        #else
        return false
        #endif
    }()

    /// The `flags` of the first processor in /proc/cpuinfo (Linux lists only what the kernel
    /// enabled: AVX-512 without its register state saved by the kernel is not listed).
    static func cpuFlags() -> Set<Substring> {
        guard let file = fopen("/proc/cpuinfo", "r") else { return [] }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            guard text.hasPrefix("flags") || text.hasPrefix("Features"), let colon = text.firstIndex(of: ":") else { continue }
            return Set(text[text.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }))
        }
        return []
    }
}
