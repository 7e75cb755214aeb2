import Foundation
import JSON
import PromptLanguage

/// The worker side of `WorkerProtocol` (`fmplay worker`): reads requests from
/// stdin, evaluates blocks with a `PlaygroundRunner` (the evaluator on the
/// model, loaded once and kept with its prompt cache for the life of the
/// process) and streams events back on stdout.
///
/// The process ends when its input closes (the server went away), even in the
/// middle of a run. Anything else writing to stdout would corrupt the protocol,
/// so the protocol gets its own copy of the descriptor and stdout becomes stderr.
public enum EvaluationWorker {
    ///
    /// Input is read on a thread of its own (awaited here), so that no cooperative thread, which
    /// the runs need, waits in `read`.
    public static func serve(runner: any PlaygroundRunner) async -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // a vanished server is an EPIPE, then end of input
        let protocolOutput = dup(1)
        guard protocolOutput >= 0 else { return 1 }
        dup2(2, 1)
        let state = WorkerState(runner: runner, sink: FileDescriptorSink(descriptor: protocolOutput))
        return await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: readRequests(into: state)) }
            thread.name = "fmplay-worker-input"
            thread.start()
        }
    }

    private static func readRequests(into state: WorkerState) -> Int32 {
        var framer = MessageFramer(maximumMessageSize: WorkerProtocol.maximumMessageSize)
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return 0 }
            for item in framer.append(chunk[0..<count]) {
                guard case .message(let body) = item else {
                    FileHandle.standardError.write(Data("fmplay worker: unreadable frame from the server: \(item)\n".utf8))
                    continue
                }
                state.handle(body)
            }
        }
    }
}

/// Runs, by request id; one at a time, in arrival order.
private final class WorkerState: @unchecked Sendable {
    private let runner: any PlaygroundRunner
    private let sink: any MessageSink
    private let lock = NSLock()
    private var tasks: [Int: Task<Void, Never>] = [:]
    /// The last run started: the next one waits for it.
    private var last: Task<Void, Never>?
    /// The last text analysed, so the blocks of one document share one analysis.
    private var lastAnalysis: (text: String, analysis: PromptAnalysis)?

    init(runner: any PlaygroundRunner, sink: any MessageSink) {
        self.runner = runner
        self.sink = sink
    }

    func handle(_ body: [UInt8]) {
        switch JSONRPCMessage.decode(body) {
        case .success(.request(let id, WorkerProtocol.run, let params)):
            guard case .number(let runID) = id, let run = WorkerProtocol.decode(WorkerProtocol.RunParams.self, params) else {
                sink.send(.response(id: id, result: .failure(.invalidParams("run needs {text, blockIndex, settings, ignoreCache}"))))
                return
            }
            start(runID, run)
        case .success(.notification(WorkerProtocol.cancel, let params)):
            guard let cancel = WorkerProtocol.decode(WorkerProtocol.CancelParams.self, params) else { return }
            lock.lock()
            let task = tasks[cancel.id]
            lock.unlock()
            task?.cancel()
        case .success(.notification(WorkerProtocol.warmUp, let params)):
            if let warmUp = WorkerProtocol.decode(WorkerProtocol.WarmUpParams.self, params) { runner.warmUp(warmUp.settings) }
        case .success(let other):
            if case .request(let id, let method, _) = other { sink.send(.response(id: id, result: .failure(.methodNotFound(method)))) }
        case .failure(let unreadable):
            sink.send(.response(id: unreadable.id, result: .failure(unreadable.error)))
        }
    }

    private func analysis(of text: String) -> PromptAnalysis {
        lock.lock()
        if let last = lastAnalysis, last.text == text { lock.unlock(); return last.analysis }
        lock.unlock()
        let analysis = PromptAnalyzer.analyze(text)
        lock.lock()
        lastAnalysis = (text, analysis)
        lock.unlock()
        return analysis
    }

    private func start(_ runID: Int, _ run: WorkerProtocol.RunParams) {
        let sink = sink
        let runner = runner
        lock.lock()
        let previous = last
        let task = Task.detached(priority: .userInitiated) { [self] in
            await previous?.value  // one block at a time, also while a cancelled one stops
            let outcome: BlockOutcome
            if Task.isCancelled {
                outcome = BlockOutcome(error: "cancelled")
            } else {
                let analysis = analysis(of: run.text)
                if run.blockIndex >= 0, run.blockIndex < analysis.file.playgrounds.count {
                    let request = BlockRunRequest(analysis: analysis, blockIndex: run.blockIndex, configuration: run.settings, ignoreCache: run.ignoreCache)
                    outcome = await runner.run(request) { event in
                        let params = WorkerProtocol.EventParams(id: runID, event: event.finiteForJSON)
                        sink.send(.notification(method: WorkerProtocol.event, params: WorkerProtocol.encode(params)))
                    }
                } else {
                    outcome = BlockOutcome(error: "the document has no block \(run.blockIndex) (it has \(analysis.file.playgrounds.count))")
                }
            }
            sink.send(.response(id: .number(runID), result: .success(WorkerProtocol.encode(outcome))))
            finished(runID)
        }
        tasks[runID] = task
        last = task
        lock.unlock()
    }

    private func finished(_ runID: Int) {
        lock.lock()
        tasks[runID] = nil
        lock.unlock()
    }
}
