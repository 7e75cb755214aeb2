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

/// A long table or list written as boxes of `every` rows. Each box is a `div.rows` with
/// `content-visibility: auto` holding its own table (the same `<colgroup>` and `table-layout: fixed`,
/// so the columns line up; only the first box has the header) or list. Chromium then lays out only
/// the boxes on screen: one 1,000-row table is laid out whole, and again at every frame while the
/// page is parsed, which took seconds. Everything stays in the document, readable without JavaScript
/// and found by find-in-page.
struct RowGroups {
    /// Markup that opens the first box's table or list (with `<thead>` and `<tbody>`), and the later boxes'.
    var first: String
    var rest: String
    /// Closes a box's table or list.
    var close: String
    var every = 40
    /// Estimated height of one row in CSS pixels, for the size of a box not laid out yet.
    var rowHeight: Int
    /// Rows in all (for the size of the last box); the size of a full box when unknown.
    var total: Int?
    var rows = 0

    /// `<table class="CLASS">` boxes with a `<colgroup>` of `columns` (CSS sets their widths) and a header row.
    static func table(_ cls: String, columns: [String], rowHeight: Int, total: Int?) -> RowGroups {
        let colgroup = "<colgroup>" + String(repeating: "<col>", count: columns.count) + "</colgroup>"
        let head = "<thead><tr>" + columns.map { "<th>\(HTML.escape($0))</th>" }.joined() + "</tr></thead>"
        return RowGroups(first: "<table class=\"\(cls)\">" + colgroup + head + "<tbody>",
                         rest: "<table class=\"\(cls)\">" + colgroup + "<tbody>", close: "</tbody></table>",
                         rowHeight: rowHeight, total: total)
    }

    func boxOpening() -> String {
        let rowsInBox = total.map { max(1, min(every, $0 - rows)) } ?? every
        return "<div class=\"rows\" style=\"contain-intrinsic-size:auto \(rowsInBox * rowHeight + (rows == 0 ? 32 : 0))px\">"
    }
}

/// Appends HTML to one buffer (a report of 1,000 samples is a few megabytes).
struct HTMLBuffer {
    var text = ""
    private var groups: RowGroups?

    init() { text.reserveCapacity(1 << 16) }

    /// Starts a table or list written in boxes (see `RowGroups`); call `row()` before each row, then `endRows()`.
    mutating func beginRows(_ start: RowGroups) {
        precondition(groups == nil, "row groups do not nest")
        var g = start
        g.rows = 0
        text += g.boxOpening() + g.first
        groups = g
    }

    /// Before each row: closes the box and opens the next one every `every` rows.
    mutating func row() {
        guard var g = groups else { preconditionFailure("row() outside beginRows/endRows") }
        if g.rows > 0 && g.rows % g.every == 0 { text += g.close + "</div>" + g.boxOpening() + g.rest }
        g.rows += 1
        groups = g
    }

    mutating func endRows() {
        guard let g = groups else { preconditionFailure("endRows() without beginRows") }
        text += g.close + "</div>"
        groups = nil
    }

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
