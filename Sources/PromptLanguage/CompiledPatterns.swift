import Synchronization

/// What the checks learn from `@Guide(.pattern(...))` regexes (valid or why
/// not, whether a value matches), shared by every analysis in the process.
/// Parsing a regex is a large part of checking a schema, and a language
/// server re-analyses the same patterns on every keystroke.
enum CompiledPatterns {
    private struct Entry: Sendable {
        /// Why the pattern does not compile; nil when it does.
        var problem: String?
        /// Whole-match results of values checked against it.
        var matches: [String: Bool] = [:]
    }

    /// Enough for any real file; the cache starts over when it is full, so
    /// memory stays bounded however many distinct patterns are typed.
    static let capacity = 4096

    private static let cache = Mutex<[String: Entry]>([:])

    /// Nil when `source` compiles as a regex, else the compiler's message.
    static func problem(_ source: String) -> String? {
        if let entry = cache.withLock({ $0[source] }) { return entry.problem }
        var problem: String?
        do { _ = try Regex(source) } catch { problem = "\(error)" }
        store(source) { $0.problem = problem }
        return problem
    }

    /// Whether `value` matches the whole of the (valid) pattern `source`.
    static func wholeMatches(_ source: String, _ value: String) -> Bool {
        if let known = cache.withLock({ $0[source]?.matches[value] }) { return known }
        var matches = false
        if let regex = try? Regex(source), (try? regex.wholeMatch(in: value)) != nil { matches = true }
        store(source) { entry in
            if entry.matches.count < capacity { entry.matches[value] = matches }
        }
        return matches
    }

    private static func store(_ source: String, _ update: (inout Entry) -> Void) {
        cache.withLock { entries in
            if entries.count >= capacity, entries[source] == nil { entries.removeAll(keepingCapacity: true) }
            var entry = entries[source] ?? Entry()
            update(&entry)
            entries[source] = entry
        }
    }
}

/// Byte-wise substring search: the standard library's `String.contains(_:)`
/// goes through the regex engine's searcher, which costs microseconds per call.
enum TextSearch {
    static func contains(_ haystack: [UInt8], _ needle: some Collection<UInt8>) -> Bool {
        let needle = Array(needle)
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        for start in 0...(haystack.count - needle.count) where haystack[start] == first {
            var index = 1
            while index < needle.count, haystack[start + index] == needle[index] { index += 1 }
            if index == needle.count { return true }
        }
        return false
    }
}
