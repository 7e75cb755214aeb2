import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A tiny in-process HTTP server for the error paths a real server will not
/// produce on demand (429, 500, malformed SSE, slow answers). Each POST takes
/// the next scripted reply; `GET .../models` lists one model. End-to-end
/// behaviour is tested against llama-cpp-python (`LlamaCppServerTests`).
final class FakeServer: @unchecked Sendable {
    enum Reply {
        case status(Int, body: String, headers: [(String, String)] = [])
        /// `data:` events, sent `delay` seconds apart; `done` adds `data: [DONE]`.
        case events([String], delay: Double = 0, done: Bool = true)
        /// Accepts the request and never answers.
        case silence
    }

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var channel: Channel?
    private let lock = NSLock()
    private var replies: [Reply]
    private(set) var bodies: [String] = []
    /// How many connections the client closed while the server was still silent.
    private(set) var abandoned = 0

    init(_ replies: [Reply]) { self.replies = replies }

    var baseURL: String { "http://127.0.0.1:\(channel!.localAddress!.port!)/v1" }

    func start() throws {
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(Handler(server: self)) }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
    }

    func stop() {
        try? channel?.close().wait()
        try? group.syncShutdownGracefully()
    }

    var requestCount: Int { lock.withLock { bodies.count } }

    fileprivate func next(body: String) -> Reply {
        lock.withLock {
            bodies.append(body)
            return replies.isEmpty ? .status(500, body: #"{"error":{"message":"no reply scripted"}}"#) : replies.removeFirst()
        }
    }

    fileprivate func noteAbandoned() { lock.withLock { abandoned += 1 } }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: FakeServer
        var head: HTTPRequestHead?
        var body = ""
        var silent = false

        init(server: FakeServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head; body = ""
            case .body(let buffer): body += String(buffer: buffer)
            case .end:
                guard let head else { return }
                if head.method == .GET {
                    respond(context, status: 200, body: #"{"object":"list","data":[{"id":"fake-model","object":"model"}]}"#, headers: [])
                    return
                }
                switch server.next(body: body) {
                case .status(let code, let text, let headers):
                    respond(context, status: code, body: text, headers: headers)
                case .events(let events, let delay, let done):
                    var headers = HTTPHeaders([("Content-Type", "text/event-stream")])
                    headers.add(name: "Connection", value: "close")
                    context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
                    context.flush()
                    let lines = events.map { "data: \($0)\n\n" } + (done ? ["data: [DONE]\n\n"] : [])
                    let loop = context.eventLoop
                    let boxed = NIOLoopBound(context, eventLoop: loop)
                    for (index, line) in lines.enumerated() {
                        loop.scheduleTask(in: .milliseconds(Int64(delay * 1000 * Double(index)))) {
                            let context = boxed.value
                            context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: line)))), promise: nil)
                        }
                    }
                    loop.scheduleTask(in: .milliseconds(Int64(delay * 1000 * Double(lines.count)))) {
                        let context = boxed.value
                        context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
                    }
                case .silence:
                    silent = true
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            if silent { server.noteAbandoned() }
            context.fireChannelInactive()
        }

        private func respond(_ context: ChannelHandlerContext, status: Int, body: String, headers: [(String, String)]) {
            var all = HTTPHeaders(headers)
            all.add(name: "Content-Type", value: "application/json")
            all.add(name: "Content-Length", value: String(body.utf8.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: all))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
