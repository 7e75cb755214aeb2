import Foundation
import SwiftSyntax

/// Per-block limits on what prompt code may use. Exceeding one is a runtime
/// error at the expression that crossed it (never cached, like a time-out),
/// so `fmplay run` and `fmplay lsp` stay responsive whatever the code does.
///
/// Defaults are documented in README.md (`fmplay run --help` lists the options
/// that change them; the language server takes the same keys as settings).
public struct EvaluationLimits: Sendable, Hashable {
    /// UTF-8 bytes of one string (`+`, interpolation, `String(repeating:count:)`, `joined`, `print`).
    public var maximumStringBytes: Int
    /// Elements of one array or dictionary.
    public var maximumElements: Int
    /// Growth of the process's resident memory while a block runs.
    public var maximumMemoryBytes: Int
    /// Results a block records (prints and model calls) ...
    public var maximumResults: Int
    /// ... and the UTF-8 bytes of their text together.
    public var maximumOutputBytes: Int
    /// Nesting of evaluation (expressions, computed properties, tool bodies) and of values (`[[[...]]]`).
    public var maximumDepth: Int

    public init(maximumStringBytes: Int = 16 << 20, maximumElements: Int = 1_000_000, maximumMemoryBytes: Int = 1 << 30,
                maximumResults: Int = 10_000, maximumOutputBytes: Int = 16 << 20, maximumDepth: Int = 256) {
        self.maximumStringBytes = maximumStringBytes
        self.maximumElements = maximumElements
        self.maximumMemoryBytes = maximumMemoryBytes
        self.maximumResults = maximumResults
        self.maximumOutputBytes = maximumOutputBytes
        self.maximumDepth = maximumDepth
    }

    public static let `default` = EvaluationLimits()

    /// The defaults with overrides as `fmplay run` options and `fmplay lsp` settings give them
    /// (megabytes; elements). More output also allows proportionally more results.
    public static func overriding(memoryMB: Int?, stringMB: Int?, elements: Int?, outputMB: Int?) -> EvaluationLimits {
        var limits = EvaluationLimits.default
        if let memoryMB { limits.maximumMemoryBytes = memoryMB << 20 }
        if let stringMB { limits.maximumStringBytes = stringMB << 20 }
        if let elements { limits.maximumElements = elements }
        if let outputMB {
            limits.maximumOutputBytes = outputMB << 20
            limits.maximumResults = max(limits.maximumResults, EvaluationLimits.default.maximumResults * outputMB / 16)
        }
        return limits
    }
}

/// What one block run has used so far, checked against its `EvaluationLimits`.
/// Only the interpreter's task touches it.
package final class Budget: @unchecked Sendable {
    package let limits: EvaluationLimits
    private var steps = 0
    private var results = 0
    private var outputBytes = 0
    private let baselineResidentBytes: Int
    /// Current evaluation nesting (see `enter`).
    private(set) var depth = 0

    init(limits: EvaluationLimits) {
        self.limits = limits
        baselineResidentBytes = Budget.residentBytes() ?? 0
    }

    /// An error for a limit: reported where it was crossed, never cached.
    static func exceeded(_ message: String, _ node: some SyntaxProtocol) -> InterpreterError {
        var error = InterpreterError(message: message, offsets: node.positionAfterSkippingLeadingTrivia.utf8Offset..<node.endPositionBeforeTrailingTrivia.utf8Offset)
        error.isLimit = true
        return error
    }

    /// One evaluation step: cancellation (time-outs cancel the task) and, every 1024 steps, memory.
    func step(_ node: some SyntaxProtocol) throws {
        try Task.checkCancellation()
        steps &+= 1
        if steps & 1023 == 0 { try checkMemory(node) }
    }

    /// Enters one level of evaluation nesting; call `leave()` after.
    func enter(_ node: some SyntaxProtocol) throws {
        if depth >= limits.maximumDepth * 4 {
            throw Budget.exceeded("evaluation nested more than \(limits.maximumDepth * 4) levels deep (expressions, calls and "
                + "computed properties inside each other); simplify the expression or split it with let constants", node)
        }
        depth += 1
    }

    func leave() { depth -= 1 }

    func checkMemory(_ node: some SyntaxProtocol) throws {
        guard let resident = Budget.residentBytes(), resident - baselineResidentBytes > limits.maximumMemoryBytes else { return }
        throw Budget.exceeded("the block used more than \(Budget.megabytes(limits.maximumMemoryBytes)) of memory "
            + "(--memory-limit raises it)", node)
    }

    /// A string about to be built with `bytes` UTF-8 bytes.
    package func string(bytes: Int, _ node: some SyntaxProtocol) throws {
        guard bytes > limits.maximumStringBytes else { return }
        throw Budget.exceeded("a string of \(bytes) bytes exceeds the limit of \(Budget.megabytes(limits.maximumStringBytes)) "
            + "per string (--string-limit raises it)", node)
    }

    /// `String(repeating:count:)`, checked before anything is allocated.
    package func repeating(_ text: String, count: Int, _ node: some SyntaxProtocol) throws -> String {
        let (bytes, overflow) = text.utf8.count.multipliedReportingOverflow(by: count)
        try string(bytes: overflow ? Int.max : bytes, node)
        return String(repeating: text, count: count)
    }

    /// A collection about to hold `elements` elements.
    package func allocate(elements: Int, _ node: some SyntaxProtocol) throws {
        if elements > limits.maximumElements {
            throw Budget.exceeded("a collection of \(elements) elements exceeds the limit of \(limits.maximumElements) "
                + "(--element-limit raises it)", node)
        }
        if elements > 65_536 { try checkMemory(node) }
    }

    /// A result about to be recorded with `bytes` of text.
    package func output(bytes: Int, _ node: some SyntaxProtocol) throws {
        results += 1
        outputBytes += bytes
        if results > limits.maximumResults {
            throw Budget.exceeded("the block recorded more than \(limits.maximumResults) results (prints and model calls); "
                + "print less inside loops (--output-limit raises it)", node)
        }
        if outputBytes > limits.maximumOutputBytes {
            throw Budget.exceeded("the block printed more than \(Budget.megabytes(limits.maximumOutputBytes)) "
                + "(--output-limit raises it)", node)
        }
    }

    /// A value about to be stored in a collection (`rendered: false`) or printed, interpolated or
    /// compared (`rendered: true`). Its nesting must stay within `maximumDepth` (rendering and
    /// releasing values recurse). A rendered value must also have at most `maximumElements` parts,
    /// counting shared parts each time (`a = [a, a]` sixty times is tiny in memory but 2^60 parts
    /// when printed); that walk checks cancellation as it goes. Stored values are walked with each
    /// shared buffer visited once, so building such values stays linear.
    package func value(_ value: Value, _ node: some SyntaxProtocol, rendered: Bool = false) throws {
        var pending: [(Value, Int)] = [(value, 1)]
        var visited = 0
        var seen = Set<UInt>()
        while let (current, level) = pending.popLast() {
            visited += 1
            if rendered {
                if visited & 4095 == 0 { try Task.checkCancellation() }
                if visited > limits.maximumElements {
                    throw Budget.exceeded("a value with more than \(limits.maximumElements) parts (counting shared parts each time) "
                        + "is too large to print or compare (--element-limit raises it)", node)
                }
            } else if let identity = current.storageIdentity, !seen.insert(identity).inserted {
                continue
            }
            if level > limits.maximumDepth {
                throw Budget.exceeded("values nested more than \(limits.maximumDepth) levels deep are not supported", node)
            }
            switch current {
            case .array(let items): for item in items where item.isContainer { pending.append((item, level + 1)) }
            case .dictionary(let pairs):
                for pair in pairs {
                    if pair.key.isContainer { pending.append((pair.key, level + 1)) }
                    if pair.value.isContainer { pending.append((pair.value, level + 1)) }
                }
            case .structure(_, let fields): for field in fields where field.value.isContainer { pending.append((field.value, level + 1)) }
            case .enumCase(_, _, let payload): for item in payload where item.value.isContainer { pending.append((item.value, level + 1)) }
            case .tuple(let items): for item in items where item.value.isContainer { pending.append((item.value, level + 1)) }
            default: break
            }
        }
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(bytes) bytes"
    }

    /// The process's resident set size (Linux `/proc/self/statm`), nil elsewhere.
    static func residentBytes() -> Int? {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 127) }
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

extension Value {
    /// The address of a container's element buffer (shared by copies until one is changed), nil for empty ones.
    var storageIdentity: UInt? {
        func address<T>(_ items: [T]) -> UInt? { items.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } } }
        switch self {
        case .array(let items): return address(items)
        case .dictionary(let pairs): return address(pairs)
        case .structure(_, let fields): return address(fields)
        case .enumCase(_, _, let payload): return address(payload)
        case .tuple(let items): return address(items)
        default: return nil
        }
    }

    /// Values that hold other values (what `Budget.value` walks).
    package var isContainer: Bool {
        switch self {
        case .array, .dictionary, .structure, .enumCase, .tuple: true
        default: false
        }
    }
}
