import Foundation
import IDE
import XCTest

/// A fixture file with named cursor markers (`<|name|>`), removed before analysis,
/// and its golden rendering beside it (`name.expected`; `UPDATE_GOLDEN=1` rewrites it).
struct Fixture {
    let name: String
    let text: String
    /// Marker names and their UTF-8 offsets in `text`, in order.
    let markers: [(name: String, offset: Int)]
    let expectedURL: URL

    init(url: URL) throws {
        name = url.lastPathComponent
        expectedURL = url.deletingPathExtension().appendingPathExtension("expected")
        var source = Array(try String(contentsOf: url, encoding: .utf8).utf8)
        var markers: [(String, Int)] = []
        while let open = Self.find(Array("<|".utf8), in: source),
              let close = Self.find(Array("|>".utf8), in: Array(source[(open + 2)...])).map({ $0 + open + 2 }) {
            markers.append((String(decoding: source[(open + 2)..<close], as: UTF8.self), open))
            source.removeSubrange(open..<(close + 2))
        }
        text = String(decoding: source, as: UTF8.self)
        self.markers = markers
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The fixtures of one folder of `Fixtures`.
    static func all(in folder: String) throws -> [Fixture] {
        let directory = try XCTUnwrap(Bundle.module.url(forResource: "Fixtures", withExtension: nil)).appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "fmplay" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map(Fixture.init(url:))
    }

    /// Compares a rendering with the golden file (or writes the source tree's copy when `UPDATE_GOLDEN` is set).
    func check(_ rendered: String, file: StaticString = #filePath, line: UInt = #line) throws {
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] != nil {
            let source = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Fixtures")
                .appendingPathComponent(expectedURL.deletingLastPathComponent().lastPathComponent).appendingPathComponent(expectedURL.lastPathComponent)
            try rendered.write(to: source, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        XCTAssertEqual(rendered, expected, "\(name) differs from \(expectedURL.lastPathComponent) (UPDATE_GOLDEN=1 rewrites it; review the diff)",
                       file: file, line: line)
    }
}
