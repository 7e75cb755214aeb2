import Foundation
import JSON
import Subprocess
import SystemPackage

/// Runs blocks in a supervised worker process (`fmplay worker`, started with
/// swift-subprocess), so that nothing prompt code does to its process (a trap,
/// a signal, the kernel's out-of-memory killer) can take the language server down.
///
/// One warm worker serves every run: it keeps the model loaded and the engine's
/// prompt cache between runs, like the in-process runner did. When it dies, the
/// run it was serving ends with "evaluation crashed" and its exit status or
/// signal, and the next run starts a new worker.
///
/// Cancellation returns at once (the worker is told to cancel and serializes
/// runs itself, so the next run starts only after the cancelled one stopped);
/// a worker that has not finished a cancelled run after `stopDeadline` is killed.
/// Token counts and the result cache stay in the server (`local`).
public final class WorkerRunner: PlaygroundRunner, @unchecked Sendable {
    /// How to start a worker.
    public struct Launch: Sendable {
        public var executable: String
        public var arguments: [String]
        public var environment: [String: String]

        public init(executable: String, arguments: [String], environment: [String: String] = [:]) {
            self.executable = executable
            self.arguments = arguments
            self.environment = environment
        }
    }

    private let launch: Launch
    private let local: any PlaygroundRunner
    private let stopDeadline: Duration
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var worker: Worker?
    private var generation = 0
    private var nextRunID = 1
    private var pending: [Int: PendingRun] = [:]

    /// - Parameters:
    ///   - local: answers `clearCache` and `tokenCount` in the server process.
    ///   - stopDeadline: how long a cancelled run may take to stop before its worker is killed.
    ///   - log: where lifecycle messages go (the server's stderr).
    public init(launch: Launch, local: any PlaygroundRunner, stopDeadline: Duration = .seconds(1),
                log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) {
        self.launch = launch
        self.local = local
        self.stopDeadline = stopDeadline
        self.log = log
    }

    /// The worker process's id while one runs (for tests and diagnostics).
    public var workerProcessID: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return worker?.processID
    }

    // MARK: PlaygroundRunner

    public func run(_ request: BlockRunRequest, report: @escaping @Sendable (BlockEvent) -> Void) async -> BlockOutcome {
        let head = request.block.range.start.offset..<request.block.bodyRange.start.offset
        let params = WorkerProtocol.RunParams(
            text: request.analysis.file.source.text, blockIndex: request.blockIndex,
            settings: request.configuration, ignoreCache: request.ignoreCache)
        let runID = lock.withLock { () -> Int in
            defer { nextRunID += 1 }
            return nextRunID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<BlockOutcome, Never>) in
                lock.lock()
                guard !Task.isCancelled else {
                    lock.unlock()
                    continuation.resume(returning: BlockOutcome(error: "cancelled"))
                    return
                }
                let worker = currentWorker()
                pending[runID] = PendingRun(generation: worker.generation, head: head, report: report, continuation: continuation)
                lock.unlock()
                worker.send(.request(id: .number(runID), method: WorkerProtocol.run, params: WorkerProtocol.encode(params)))
            }
        } onCancel: {
            cancel(runID)
        }
    }

    public func clearCache() throws -> String { try local.clearCache() }

    public func tokenCount(of text: String, configuration: ServerConfiguration) -> TokenCount {
        local.tokenCount(of: text, configuration: configuration)
    }

    /// Starts the worker (when none runs) and lets it prepare for these settings.
    public func warmUp(_ configuration: ServerConfiguration) {
        lock.lock()
        let worker = currentWorker()
        lock.unlock()
        worker.send(.notification(method: WorkerProtocol.warmUp, params: WorkerProtocol.encode(WorkerProtocol.WarmUpParams(settings: configuration))))
    }

    // MARK: Runs

    private struct PendingRun {
        var generation: Int
        var head: Swift.Range<Int>
        var report: @Sendable (BlockEvent) -> Void
        var continuation: CheckedContinuation<BlockOutcome, Never>
    }

    /// Ends the run at once; the worker is told to cancel it and is killed if it has not stopped by the deadline.
    private func cancel(_ runID: Int) {
        lock.lock()
        guard let run = pending.removeValue(forKey: runID) else {
            lock.unlock()
            return
        }
        let worker = self.worker?.generation == run.generation ? self.worker : nil
        worker?.stopping.insert(runID)
        lock.unlock()
        run.continuation.resume(returning: BlockOutcome(error: "cancelled"))
        guard let worker else { return }
        worker.send(.notification(method: WorkerProtocol.cancel, params: WorkerProtocol.encode(WorkerProtocol.CancelParams(id: runID))))
        let deadline = stopDeadline
        Task.detached { [self] in
            try? await Task.sleep(for: deadline)
            if stillStopping(runID, in: worker, after: deadline) {
                log("fmplay lsp: a cancelled evaluation did not stop within \(deadline); killing its worker (pid \(worker.processID.map(String.init) ?? "?"))")
                worker.kill()
            }
        }
    }

    /// Whether the worker has still not finished the cancelled run; if so, it is marked for killing.
    private func stillStopping(_ runID: Int, in worker: Worker, after deadline: Duration) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard worker.stopping.contains(runID) else { return false }
        worker.killReason = "a cancelled evaluation did not stop within \(deadline)"
        return true
    }

    /// The running worker, or a new one. Called with the lock held.
    private func currentWorker() -> Worker {
        if let worker { return worker }
        generation += 1
        let worker = Worker(generation: generation)
        self.worker = worker
        start(worker)
        return worker
    }

    private func start(_ worker: Worker) {
        let launch = launch
        let (commands, continuation) = AsyncStream<Worker.Command>.makeStream()
        worker.commands = continuation
        Task.detached(priority: .userInitiated) { [self] in
            var status: String
            do {
                var overrides: [Environment.Key: String?] = [:]
                for (key, value) in launch.environment { overrides[Environment.Key(stringLiteral: key)] = value }
                let result = try await Subprocess.run(
                    .path(FilePath(launch.executable)), arguments: Arguments(launch.arguments),
                    environment: .inherit.updating(overrides),
                    input: .inputWriter, output: .sequence, error: .currentStandardError
                ) { execution in
                    started(worker, processID: execution.processIdentifier.value)
                    let writer = Task {
                        for await command in commands {
                            switch command {
                            case .send(let bytes):
                                _ = try? await execution.standardInputWriter.write(bytes)
                            case .kill:
                                try? execution.send(signal: .kill)
                            }
                        }
                        _ = try? await execution.standardInputWriter.finish()
                    }
                    var framer = MessageFramer(maximumMessageSize: WorkerProtocol.maximumMessageSize)
                    do {
                        for try await buffer in execution.standardOutput {
                            let bytes = buffer.withUnsafeBytes { Array($0) }
                            for item in framer.append(bytes) { received(item, from: worker) }
                        }
                    } catch {
                        log("fmplay lsp: reading from the evaluation worker failed: \(error)")
                    }
                    // Its output closed: the worker is gone (or going). Make sure, then stop writing.
                    try? execution.send(signal: .kill)
                    continuation.finish()
                    await writer.value
                }
                status = Self.describe(result.terminationStatus)
            } catch {
                status = "could not be started (\(launch.executable)): \(error)"
            }
            exited(worker, status: status)
        }
    }

    private func started(_ worker: Worker, processID: Int32) {
        lock.lock()
        worker.processID = processID
        lock.unlock()
    }

    private func received(_ item: MessageFramer.Item, from worker: Worker) {
        guard case .message(let body) = item, case .success(let message) = JSONRPCMessage.decode(body) else {
            log("fmplay lsp: unreadable message from the evaluation worker: \(item)")
            return
        }
        switch message {
        case .notification(WorkerProtocol.event, let params):
            guard let event = WorkerProtocol.decode(WorkerProtocol.EventParams.self, params) else { return }
            lock.lock()
            let report = pending[event.id]?.report
            lock.unlock()
            report?(event.event)
        case .response(.number(let runID)?, let result):
            lock.lock()
            worker.stopping.remove(runID)
            let run = pending.removeValue(forKey: runID)
            lock.unlock()
            guard let run else { return }
            switch result {
            case .success(let value):
                run.continuation.resume(returning: WorkerProtocol.decode(BlockOutcome.self, value)
                    ?? BlockOutcome(error: "the evaluation worker sent an unreadable result", errorRange: run.head))
            case .failure(let error):
                run.continuation.resume(returning: BlockOutcome(error: "the evaluation worker refused the run: \(error.message)", errorRange: run.head))
            }
        default:
            log("fmplay lsp: unexpected message from the evaluation worker: \(body.count) bytes")
        }
    }

    /// The worker ended: every run it was serving ends with "evaluation crashed".
    private func exited(_ worker: Worker, status: String) {
        lock.lock()
        if self.worker === worker { self.worker = nil }
        let reason = worker.killReason
        let lost = pending.filter { $0.value.generation == worker.generation }
        for id in lost.keys { pending[id] = nil }
        lock.unlock()
        worker.commands?.finish()
        let why = reason.map { "\(status), because \($0)" } ?? status
        log("fmplay lsp: the evaluation worker (pid \(worker.processID.map(String.init) ?? "?")) \(why)")
        for run in lost.values.sorted(by: { $0.head.lowerBound < $1.head.lowerBound }) {
            run.continuation.resume(returning: BlockOutcome(
                error: "evaluation crashed: the worker process \(why). fmplay lsp keeps running; run the block again to start a new worker",
                errorRange: run.head))
        }
    }

    /// "was killed by signal 9 (SIGKILL)", "exited with status 3".
    static func describe(_ status: TerminationStatus) -> String {
        switch status {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let signal): return "was killed by signal \(signal)\(signalName(signal).map { " (\($0))" } ?? "")"
        }
    }

    static func signalName(_ signal: Int32) -> String? {
        let names: [Int32: String] = [
            SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGILL: "SIGILL", SIGBUS: "SIGBUS",
            SIGTRAP: "SIGTRAP", SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGFPE: "SIGFPE", SIGXCPU: "SIGXCPU",
        ]
        return names[signal]
    }
}

/// One worker process: its command stream and what the supervisor knows about it.
/// Mutable fields are guarded by the `WorkerRunner`'s lock.
private final class Worker: @unchecked Sendable {
    enum Command: Sendable {
        case send([UInt8])
        case kill
    }

    let generation: Int
    var commands: AsyncStream<Command>.Continuation?
    var processID: Int32?
    /// Cancelled runs the worker has not finished yet.
    var stopping: Set<Int> = []
    var killReason: String?

    init(generation: Int) {
        self.generation = generation
    }

    func send(_ message: JSONRPCMessage) {
        commands?.yield(.send(MessageFramer.frame(message.json.serializedBytes())))
    }

    func kill() {
        commands?.yield(.kill)
    }
}
