import Foundation

/// Where the server model lives and how to talk to it. Built from the
/// environment (`FMPLAY_SERVER_URL`, `FMPLAY_SERVER_MODEL`,
/// `FMPLAY_SERVER_API_KEY` or `FMPLAY_SERVER_API_KEY_FILE`,
/// `FMPLAY_SERVER_TIMEOUT`, `FMPLAY_SERVER_RETRIES`,
/// `FMPLAY_SERVER_SIMULATE_QUOTA`), overridden by `fmplay run --server` or
/// the language server's settings.
///
/// The API key never leaves this value except in the `Authorization`
/// header: `description` and `identity` leave it out, and nothing logs it.
public struct ServerSettings: Sendable, Hashable, CustomStringConvertible {
    /// The base URL, e.g. `http://127.0.0.1:8080/v1` (no trailing slash).
    public var baseURL: String
    /// The model name sent with requests; nil: the first one the server lists.
    public var model: String?
    /// Sent as `Authorization: Bearer ...` when set.
    public var apiKey: String?
    /// Seconds a whole request may take (default 300).
    public var requestTimeout: Double
    /// Seconds the availability probe may take (default 3).
    public var probeTimeout: Double
    /// Attempts per request on 429 and 5xx answers (default 3).
    public var maximumAttempts: Int
    /// First back-off pause in seconds, doubled per retry (default 0.5).
    public var initialBackoff: Double
    /// Simulated quota state, like Xcode's "Simulate Foundation Models Availability".
    public var simulatedQuota: SimulatedQuota?

    public enum SimulatedQuota: String, Sendable, Hashable, CaseIterable {
        case limitReached, nearingLimit
    }

    public init(baseURL: String, model: String? = nil, apiKey: String? = nil, requestTimeout: Double = 300, probeTimeout: Double = 3,
                maximumAttempts: Int = 3, initialBackoff: Double = 0.5, simulatedQuota: SimulatedQuota? = nil) {
        var base = baseURL.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.model = model.flatMap { $0.isEmpty ? nil : $0 }
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.requestTimeout = requestTimeout
        self.probeTimeout = probeTimeout
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.simulatedQuota = simulatedQuota
    }

    /// URL and model, never the key.
    public var description: String { baseURL + (model.map { " (model \($0))" } ?? "") }

    public struct SettingsError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The settings from the environment, with `url`/`model`/`apiKeyFile`
    /// overriding it; nil when no URL is configured anywhere. Throws for a
    /// URL that is not http(s), an unreadable key file or a bad number.
    public static func resolve(url: String? = nil, model: String? = nil, apiKeyFile: String? = nil,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerSettings? {
        guard let base = nonEmpty(url) ?? nonEmpty(environment["FMPLAY_SERVER_URL"]) else { return nil }
        guard let parsed = URL(string: base), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
              parsed.host != nil else {
            throw SettingsError(description: "server URL '\(base)' is not an http:// or https:// URL (for example http://127.0.0.1:8080/v1)")
        }
        var key = nonEmpty(environment["FMPLAY_SERVER_API_KEY"])
        if let file = nonEmpty(apiKeyFile) ?? nonEmpty(environment["FMPLAY_SERVER_API_KEY_FILE"]) {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw SettingsError(description: "cannot read the API key file \(file)")
            }
            key = nonEmpty(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        var settings = ServerSettings(baseURL: base, model: nonEmpty(model) ?? nonEmpty(environment["FMPLAY_SERVER_MODEL"]), apiKey: key)
        if let text = nonEmpty(environment["FMPLAY_SERVER_TIMEOUT"]) {
            guard let seconds = Double(text), seconds > 0 else {
                throw SettingsError(description: "FMPLAY_SERVER_TIMEOUT must be a positive number of seconds, not '\(text)'")
            }
            settings.requestTimeout = seconds
        }
        if let text = nonEmpty(environment["FMPLAY_SERVER_RETRIES"]) {
            guard let retries = Int(text), retries >= 0, retries <= 10 else {
                throw SettingsError(description: "FMPLAY_SERVER_RETRIES must be a whole number from 0 to 10, not '\(text)'")
            }
            settings.maximumAttempts = retries + 1
        }
        if let text = nonEmpty(environment["FMPLAY_SERVER_SIMULATE_QUOTA"]) {
            guard let simulated = SimulatedQuota(rawValue: text) else {
                throw SettingsError(description: "FMPLAY_SERVER_SIMULATE_QUOTA must be one of "
                    + SimulatedQuota.allCases.map(\.rawValue).joined(separator: ", ") + ", not '\(text)'")
            }
            settings.simulatedQuota = simulated
        }
        return settings
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}
