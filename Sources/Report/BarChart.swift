/// Horizontal bar charts as inline SVG, drawn by fmplay (no chart library, no scripts).
enum BarChart {
    struct Bar {
        var label: String
        /// 0...1
        var value: Double
        var caption: String
    }

    static let labelWidth = 380
    static let barWidth = 360
    static let rowHeight = 22

    /// One bar per entry with its label on the left and its caption on the right; `title` is the accessible name.
    static func svg(_ bars: [Bar], title: String) -> String {
        let width = labelWidth + barWidth + 120
        let height = bars.count * rowHeight + 24
        var out = "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">"
        out += "<title>\(HTML.escape(title))</title>"
        for (index, bar) in bars.enumerated() {
            let y = index * rowHeight
            let value = max(0, min(1, bar.value.isFinite ? bar.value : 0))
            let length = Int((value * Double(barWidth)).rounded())
            let tone = value >= 0.8 ? "good" : (value >= 0.5 ? "fair" : "poor")
            out += "<text x=\"\(labelWidth - 8)\" y=\(q(y + 15)) text-anchor=\"end\">\(HTML.escape(HTML.shortened(bar.label, 44)))</text>"
            out += "<rect class=\"track\" x=\"\(labelWidth)\" y=\(q(y + 4)) width=\"\(barWidth)\" height=\"14\"/>"
            out += "<rect class=\"bar \(tone)\" x=\"\(labelWidth)\" y=\(q(y + 4)) width=\"\(length)\" height=\"14\"/>"
            out += "<text x=\"\(labelWidth + barWidth + 8)\" y=\(q(y + 15))>\(HTML.escape(bar.caption))</text>"
        }
        // The axis: 0, 50% and 100%.
        let axisY = bars.count * rowHeight + 4
        for (fraction, label) in [(0.0, "0"), (0.5, "50%"), (1.0, "100%")] {
            let x = labelWidth + Int(fraction * Double(barWidth))
            out += "<line class=\"axis\" x1=\"\(x)\" x2=\"\(x)\" y1=\"0\" y2=\(q(axisY))/>"
            out += "<text class=\"tick\" x=\"\(x)\" y=\(q(axisY + 14)) text-anchor=\"middle\">\(label)</text>"
        }
        return out + "</svg>"
    }

    private static func q(_ value: Int) -> String { "\"\(value)\"" }
}
