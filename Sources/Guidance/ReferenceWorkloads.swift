import Schema

/// The reference workloads of the constrained-decoding anchors: three schemas (search suggestions, an itinerary,
/// a tool call) and a valid instance of each. `fmplay bench-guidance` measures them; the guidance tests walk the
/// same instances.
public enum ReferenceWorkloads {
    public struct Workload: Sendable {
        public var name: String
        public var instance: String
        public var compile: @Sendable () throws -> ByteGrammar
    }

    public static let searchSuggestions = GenerationSchema(
        root: .reference("SearchSuggestions"),
        definitions: [Definition(name: "SearchSuggestions", kind: .object([
            Property(name: "searchTerms", type: .array(element: .string(.none), guides: ArrayGuides(minimumCount: 4, maximumCount: 4))),
        ]))])

    public static let itinerary = GenerationSchema(
        root: .reference("Itinerary"),
        definitions: [
            Definition(name: "Itinerary", kind: .object([
                Property(name: "destination", type: .string(.none)),
                Property(name: "days", type: .integer(.none)),
                Property(name: "budget", type: .number(.none)),
                Property(name: "rating", type: .number(.none)),
                Property(name: "requiresVisa", type: .boolean),
                Property(name: "activities", type: .array(element: .string(.none), guides: .none)),
                Property(name: "emergencyContact", type: .reference("Contact")),
                Property(name: "kind", type: .reference("Kind")),
            ])),
            Definition(name: "Contact", kind: .object([
                Property(name: "name", type: .string(.none)),
                Property(name: "phone", type: .string(.none)),
            ])),
            Definition(name: "Kind", kind: .enumeration([
                EnumCase(name: "relaxing"), EnumCase(name: "adventure"), EnumCase(name: "cultural"),
            ])),
        ])

    public static let tools: [ToolSignature] = [
        ToolSignature(name: "getWeather", arguments: GenerationSchema(
            root: .reference("GetWeatherArguments"),
            definitions: [Definition(name: "GetWeatherArguments", kind: .object([Property(name: "city", type: .string(.none))]))])),
        ToolSignature(name: "findRestaurants", arguments: GenerationSchema(
            root: .reference("FindRestaurantsArguments"),
            definitions: [Definition(name: "FindRestaurantsArguments", kind: .object([
                Property(name: "city", type: .string(.none)), Property(name: "cuisine", type: .string(.none)),
            ]))])),
    ]

    public static let workloads: [Workload] = [
        Workload(name: "search_suggestions",
                 instance: #"{"searchTerms":["best hiking trails near Zürich","Swiss Alps weather in October","affordable hotels in Interlaken","Swiss Travel Pass price 2025"]}"#,
                 compile: { try ByteGrammar.compile(searchSuggestions) }),
        Workload(name: "itinerary",
                 instance: #"{"destination":"Kyoto, Japan","days":5,"budget":2500.5,"rating":4.7,"requiresVisa":false,"activities":["Visit Fushimi Inari shrine at sunrise","Tea ceremony in Gion","Day trip to the deer park in Nara"],"emergencyContact":{"name":"Aiko Tanaka","phone":"+81 75-123-4567"},"kind":"cultural"}"#,
                 compile: { try ByteGrammar.compile(itinerary) }),
        Workload(name: "tool_call",
                 instance: #"{"name":"findRestaurants","arguments":{"city":"San Francisco","cuisine":"Vietnamese"}}"#,
                 compile: { try ByteGrammar.toolCallObject(tools) }),
    ]
}
