/// HTML text building. Every string that comes from a run (model output, prompts, paths,
/// names, errors) goes through `escape` before it reaches the page.
public enum HTML {
    /// Escapes text for element content and quoted attribute values: `& < > " '`.
    public static func escape(_ text: String) -> String {
        var needs = false
        for byte in text.utf8 where byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27 {
            needs = true
            break
        }
        guard needs else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// At most `limit` characters, with an ellipsis when cut (escape the result).
    static func shortened(_ text: String, _ limit: Int) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }

    /// A percentage for people: `75%`, `66.7%`.
    static func percent(_ rate: Double) -> String {
        let value = (rate * 1000).rounded() / 10
        return value == value.rounded() ? "\(Int(value))%" : "\(value)%"
    }

    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format3(value)) + " s" : "\(Int(value.rounded())) s"
    }

    static func format3(_ value: Double) -> String {
        let scaled = (value * 1000).rounded() / 1000
        let text = "\(scaled)"
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}

/// Appends HTML to one buffer (a report of 1,000 samples is a few megabytes).
struct HTMLBuffer {
    var text = ""

    init() { text.reserveCapacity(1 << 16) }

    mutating func raw(_ html: String) { text += html }
    /// Escaped text.
    mutating func text(_ content: String) { text += HTML.escape(content) }
    /// `<tag attrs>escaped text</tag>`; attribute values are escaped.
    mutating func element(_ tag: String, _ content: String, _ attributes: [(String, String)] = []) {
        open(tag, attributes)
        text += HTML.escape(content)
        text += "</\(tag)>"
    }
    mutating func open(_ tag: String, _ attributes: [(String, String)] = []) {
        text += "<" + tag
        for (name, value) in attributes { text += " \(name)=\"\(HTML.escape(value))\"" }
        text += ">"
    }
    mutating func close(_ tag: String) { text += "</\(tag)>" }
}
