import Surface
import SwiftSyntax

/// The names a prompt file may call or construct.
extension SupportedSwiftChecker {
    /// Types of frameworks prompt files do not have: UI (SwiftUI, UIKit, AppKit) and
    /// file, network and process I/O outside tools. A file that declares the name itself may use it.
    public static let unavailableTypes: Set<String> = [
        "View", "Text", "Button", "VStack", "HStack", "ZStack", "List", "ForEach", "NavigationStack", "NavigationView",
        "Image", "Color", "Label", "TextField", "TextEditor", "Form", "Section", "ScrollView", "ProgressView", "Toggle",
        "Picker", "Spacer", "Divider", "Group", "Sheet", "Alert", "UIImage", "UIColor", "UIView", "UIViewController",
        "UIApplication", "NSImage", "NSColor", "NSView", "NSApplication", "URLSession", "URLRequest", "FileManager",
        "FileHandle", "Bundle", "ProcessInfo", "Process", "UserDefaults", "NotificationCenter", "DispatchQueue",
        "Timer", "CLLocationManager", "HKHealthStore", "EKEventStore", "CNContactStore", "MKMapView", "Task",
    ]

    /// The type an extension of a standard-library protocol extends in prompt files
    /// (`extension Collection` adds to arrays, `extension StringProtocol` to strings).
    public static func extendedTypeName(_ written: String) -> String {
        let name = written.split(separator: "<").first.map(String.init) ?? written
        switch name {
        case "Collection", "Sequence", "RandomAccessCollection", "BidirectionalCollection", "MutableCollection", "RangeReplaceableCollection":
            return "Array"
        case "StringProtocol", "Substring": return "String"
        case "BinaryInteger", "FixedWidthInteger", "SignedInteger", "Numeric", "SignedNumeric": return "Int"
        case "BinaryFloatingPoint", "FloatingPoint", "Float", "CGFloat": return "Double"
        default: return name
        }
    }

    /// Whether `Name(...)` can run: a type (or type alias, generic parameter) the file declares,
    /// a surface table type, a standard type, or a UI/I-O type (reported as unavailable elsewhere).
    static func canConstruct(_ name: String) -> Bool {
        standardTypes.contains(name) || unavailableTypes.contains(name) || name == "Self"
            || Surface.table.type(named: name) != nil || Surface.table.functions.contains { $0.name == name }
    }

    /// `tools: [X()]`: an element of the array given as `tools:`.
    static func isToolListElement(_ call: FunctionCallExprSyntax) -> Bool {
        guard let array = call.parent?.parent?.parent?.as(ArrayExprSyntax.self) else { return false }
        return array.parent?.as(LabeledExprSyntax.self)?.label?.text == "tools"
    }

    /// Whether a bare call `name(...)` can run: a function or method the file declares, a
    /// global function of the surface table (print, max, stride...), or (inside an extension of a
    /// built-in type) one of that type's members.
    static func canCall(_ name: String, declared: Set<String>, extending builtin: String?) -> Bool {
        if declared.contains(name) { return true }
        if Surface.table.functions.contains(where: { $0.name == name }) { return true }
        if let builtin, let type = Surface.table.type(named: builtin) { return type.members.contains { $0.name == name } }
        return false
    }

    /// Types the evaluator knows besides the surface table's (standard library and Foundation
    /// types it constructs and converts to); a call to another capitalized name the file does
    /// not declare cannot run.
    public static let standardTypes: Set<String> = [
        "SystemLanguageModel", "LanguageModelSession", "GenerationOptions", "Instructions", "Prompt", "GeneratedContent",
        "String", "Int", "Double", "Float", "Bool", "Array", "Dictionary", "PrivateCloudComputeLanguageModel", "ToolOutput",
        "Set", "Character", "Date", "UUID", "JSONEncoder", "JSONDecoder", "Calendar", "Substring", "Optional", "CGFloat",
        "DateFormatter", "ISO8601DateFormatter", "TimeInterval", "Data", "Locale", "NumberFormatter", "UTF8", "TimeZone",
        "Transcript", "GenerationError", "LanguageModelError", "DynamicGenerationSchema", "GenerationSchema",
        "LanguageModelFeedback", "Profile", "DynamicInstructions",
    ]
}


/// Whether a subtree awaits, tries or calls a model: such code belongs in a
/// `#Playground` block.
final class EffectFinder: SyntaxVisitor {
    var found = false

    override func visit(_ node: AwaitExprSyntax) -> SyntaxVisitorContinueKind {
        found = true
        return .skipChildren
    }

    override func visit(_ node: TryExprSyntax) -> SyntaxVisitorContinueKind {
        found = true
        return .skipChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        let callee = node.calledExpression.trimmedText
        if callee == "LanguageModelSession" || callee == "print" || callee.hasSuffix(".respond") || callee.hasSuffix(".streamResponse") {
            found = true
            return .skipChildren
        }
        return .visitChildren
    }
}

/// The names a file declares anywhere (functions, variables, parameters,
/// closure parameters, pattern bindings).
final class DeclaredNames: SyntaxVisitor {
    var names: Set<String> = []

    static func collect(in node: Syntax) -> Set<String> {
        let visitor = DeclaredNames(viewMode: .sourceAccurate)
        visitor.walk(node)
        return visitor.names
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        names.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: IdentifierPatternSyntax) -> SyntaxVisitorContinueKind {
        names.insert(node.identifier.text)
        return .visitChildren
    }

    override func visit(_ node: FunctionParameterSyntax) -> SyntaxVisitorContinueKind {
        names.insert((node.secondName ?? node.firstName).text)
        return .visitChildren
    }

    override func visit(_ node: ClosureShorthandParameterSyntax) -> SyntaxVisitorContinueKind {
        names.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: ClosureParameterSyntax) -> SyntaxVisitorContinueKind {
        names.insert((node.secondName ?? node.firstName).text)
        return .visitChildren
    }

    override func visit(_ node: EnumCaseElementSyntax) -> SyntaxVisitorContinueKind {
        names.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: AssociatedTypeDeclSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
    override func visit(_ node: GenericParameterSyntax) -> SyntaxVisitorContinueKind { names.insert(node.name.text); return .visitChildren }
}
