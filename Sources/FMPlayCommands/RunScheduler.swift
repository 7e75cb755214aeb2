import Foundation
import PlaygroundEvaluator
import PlaygroundResults
import PromptLanguage

/// `fmplay run --jobs N`: runs up to N blocks at once (blocks are
/// independent: each evaluates the file's declarations afresh) and prints
/// them in file and block order, so the output does not depend on N.
/// Against a server this sends N requests at once; on the embedded model
/// the blocks share one engine, which takes one request at a time.
struct RunScheduler {
    let evaluator: PlaygroundEvaluator
    let selection: PlaygroundEvaluator.Selection
    let jobs: Int

    private struct Item: Sendable {
        var file: Int
        var index: Int
    }

    private struct Finished: Sendable {
        var item: Int
        var events: [EvaluationEvent]
        var blocks: [BlockResult]
    }

    /// Events of one block, buffered until every block before it is printed.
    private final class EventBuffer: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [EvaluationEvent] = []
        func append(_ event: EvaluationEvent) {
            // Snapshots are live progress; a buffered block has none to show.
            if case .snapshot = event { return }
            lock.lock(); events.append(event); lock.unlock()
        }
        var all: [EvaluationEvent] { lock.lock(); defer { lock.unlock() }; return events }
    }

    /// Runs the selected blocks of the files read and analysed by the caller (each file's one analysis
    /// is shared by all of its blocks).
    func run(_ inputs: [Result<AnalysedPromptFile, RunInputError>], printer: RunPrinter) async -> [FileResult] {
        var items: [Item] = []
        for (fileIndex, input) in inputs.enumerated() {
            guard case .success(let file) = input else { continue }
            for index in PlaygroundEvaluator.blockIndices(analysis: file.analysis, selection: selection) {
                items.append(Item(file: fileIndex, index: index))
            }
        }

        var results = inputs.map { input in
            switch input {
            case .success(let file): FileResult(path: file.path, blocks: [])
            case .failure(let error): error.result
            }
        }
        var finished: [Int: Finished] = [:]
        var nextToPrint = 0
        var nextFileToStart = 0
        let evaluator = self.evaluator

        /// Announces files up to `file` (and reports unreadable or empty ones) in order.
        func startFiles(through file: Int) {
            while nextFileToStart <= file, nextFileToStart < inputs.count {
                switch inputs[nextFileToStart] {
                case .success(let input): printer.fileStarted(input.path, source: input.analysis.file.source)
                case .failure: printer.fileFailed(results[nextFileToStart])
                }
                nextFileToStart += 1
            }
        }

        func printReady() {
            while let done = finished.removeValue(forKey: nextToPrint) {
                startFiles(through: items[done.item].file)
                for event in done.events { printer.handle(event) }
                results[items[done.item].file].blocks += done.blocks
                nextToPrint += 1
            }
        }

        await withTaskGroup(of: Finished.self) { group in
            var started = 0
            func startNext() {
                guard started < items.count else { return }
                let item = items[started]
                guard case .success(let file) = inputs[item.file] else { return }
                let position = started
                started += 1
                group.addTask {
                    let buffer = EventBuffer()
                    let result = await evaluator.evaluate(analysis: file.analysis, path: file.path, selection: .index(item.index)) { buffer.append($0) }
                    return Finished(item: position, events: buffer.all, blocks: result.blocks)
                }
            }
            for _ in 0..<min(jobs, items.count) { startNext() }
            for await done in group {
                finished[done.item] = done
                printReady()
                if !Task.isCancelled { startNext() }
            }
        }
        startFiles(through: inputs.count - 1)
        return results
    }
}
