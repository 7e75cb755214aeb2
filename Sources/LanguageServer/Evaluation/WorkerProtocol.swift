import JSON

/// The protocol between `fmplay lsp` and its evaluation worker (`fmplay worker`):
/// JSON-RPC 2.0 messages with `Content-Length` framing (the `MessageFramer` of the
/// language server) over the worker's stdin and stdout.
///
/// Server to worker:
/// - request `run` `{text, blockIndex, settings, ignoreCache}`: evaluate block
///   `blockIndex` of the document `text`; the response is the `BlockOutcome`;
/// - notification `cancel` `{id}`: cancel the run with that request id;
/// - notification `warmUp` `{settings}`: get ready for runs with these settings.
///
/// Worker to server: notification `event` `{id, event}` for each `BlockEvent` of a
/// run, as it happens (snapshots stream, so inlay hints do too).
///
/// The worker runs one block at a time, in the order the requests came; a run that
/// arrives while a cancelled one is still stopping waits for it.
enum WorkerProtocol {
    static let run = "run"
    static let cancel = "cancel"
    static let warmUp = "warmUp"
    static let event = "event"

    /// The largest message either side accepts (a snapshot of a long transcript can be large).
    static let maximumMessageSize = 256 << 20

    struct RunParams: Codable {
        var text: String
        var blockIndex: Int
        var settings: ServerConfiguration
        var ignoreCache: Bool
    }

    struct EventParams: Codable {
        var id: Int
        var event: BlockEvent
    }

    struct CancelParams: Codable {
        var id: Int
    }

    struct WarmUpParams: Codable {
        var settings: ServerConfiguration
    }

    static func encode(_ value: some Encodable) -> JSONValue {
        (try? JSONValueEncoder().encode(value)) ?? .null
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue) -> T? {
        try? JSONValueDecoder().decode(type, from: value)
    }
}

extension CallResult {
    /// The result with every number JSON can carry (non-finite rates and times dropped).
    var finiteForJSON: CallResult {
        var copy = self
        if let t = copy.timeToFirstToken, !t.isFinite { copy.timeToFirstToken = nil }
        if let r = copy.tokensPerSecond, !r.isFinite { copy.tokensPerSecond = nil }
        if let p = copy.passRate, !p.isFinite { copy.passRate = nil }
        if let t = copy.record?.timeToFirstToken, !t.isFinite { copy.record?.timeToFirstToken = nil }
        if let r = copy.record?.tokensPerSecond, !r.isFinite { copy.record?.tokensPerSecond = nil }
        return copy
    }
}

extension BlockEvent {
    var finiteForJSON: BlockEvent {
        if case .result(let result) = self { return .result(result.finiteForJSON) }
        return self
    }
}
