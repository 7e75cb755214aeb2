import Foundation
import JSON

/// Where the server's outgoing messages go.
public protocol MessageSink: Sendable {
    func send(_ message: JSONRPCMessage)
}

/// Writes framed messages to a file descriptor (stdout), one whole message
/// per write under a lock, so messages from several threads never interleave.
public final class FileDescriptorSink: MessageSink, @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private var broken = false

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public func send(_ message: JSONRPCMessage) {
        let framed = MessageFramer.frame(message.json.serializedBytes())
        lock.lock()
        defer { lock.unlock() }
        guard !broken else { return }
        framed.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let result = write(descriptor, raw.baseAddress! + written, raw.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    broken = true  // the client went away; later messages are dropped
                    return
                }
                written += result
            }
        }
    }
}

/// A blocking, thread-safe FIFO of events with an optional deadline, used by
/// the server's single message loop.
public final class EventQueue<Event: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [Event] = []

    public init() {}

    public func post(_ event: Event) {
        condition.lock()
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// Waits for events until `deadline` (forever when nil) and returns all
    /// that are queued, in order; empty on timeout.
    public func takeAll(until deadline: Date?) -> [Event] {
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                condition.wait()
            }
        }
        let taken = events
        events.removeAll(keepingCapacity: true)
        return taken
    }

    public var isEmpty: Bool {
        condition.lock()
        defer { condition.unlock() }
        return events.isEmpty
    }
}

/// Reads a file descriptor (stdin) on its own thread, frames messages and
/// posts them; posts `.endOfInput` at EOF or on a read error.
public enum StdinReader {
    public static func start(descriptor: Int32, maximumMessageSize: Int, post: @escaping @Sendable (ServerEvent) -> Void) {
        let thread = Thread {
            var framer = MessageFramer(maximumMessageSize: maximumMessageSize)
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 {
                    if let item = framer.finish() { post(.framed(item)) }
                    post(.endOfInput)
                    return
                }
                for item in framer.append(chunk[0..<count]) { post(.framed(item)) }
            }
        }
        thread.name = "fmplay-lsp-stdin"
        thread.stackSize = 1 << 20
        thread.start()
    }
}
