import Foundation
import FoundationModelsRuntime
import ServerModel

/// Builds `PrivateCloudComputeLanguageModel()` from the server settings:
/// `--server URL` (or the language server's `serverURL`), else
/// `FMPLAY_SERVER_URL`; model and API key likewise. No URL anywhere: the
/// model reads `.unavailable(.deviceNotEligible)` with the configuration help.
enum ServerModelFactory {
    /// One backend per settings value, so the process keeps one connection
    /// pool and one probe result per server.
    nonisolated(unsafe) private static var backends: [ServerSettings: OpenAICompatibleModel] = [:]
    private static let lock = NSLock()

    static func make(url: String? = nil, model: String? = nil, apiKeyFile: String? = nil,
                     environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PrivateCloudComputeLanguageModel {
        guard let settings = try ServerSettings.resolve(url: url, model: model, apiKeyFile: apiKeyFile, environment: environment) else {
            return PrivateCloudComputeLanguageModel(backend: nil)
        }
        lock.lock()
        defer { lock.unlock() }
        if let backend = backends[settings] { return PrivateCloudComputeLanguageModel(backend: backend) }
        let backend = OpenAICompatibleModel(settings: settings)
        backends[settings] = backend
        return PrivateCloudComputeLanguageModel(backend: backend)
    }
}
