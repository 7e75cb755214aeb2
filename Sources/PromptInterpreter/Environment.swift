import Foundation
import SwiftSyntax

/// A variable's storage. Scopes map names to cells, and closures capture the
/// scopes they were created in, so a captured variable is shared by reference
/// (assigning it inside the closure is seen outside, and the other way round).
final class Cell: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// One lexical scope: names to cells.
typealias Scope = [String: Cell]

/// An instance of a class or actor declared in the file: a reference, so
/// copies share it and `===` compares identity.
package final class ObjectBox: @unchecked Sendable {
    /// The dynamic (most derived) type's qualified name.
    let type: String
    /// Stored properties in declaration order (superclass properties first).
    var fields: [(name: String, value: Value)]

    package init(type: String, fields: [(name: String, value: Value)]) {
        self.type = type
        self.fields = fields
    }

    /// Releasing a long chain of instances (a linked list of 100 000 nodes) must not recurse
    /// once per node: a box's fields go to this thread's graveyard, and only the outermost
    /// release empties it, one entry after another (the boxes released meanwhile add theirs).
    deinit {
        guard !fields.isEmpty else { return }
        let graveyard = Graveyard.current
        graveyard.pending.append(fields)
        fields = []
        guard !graveyard.draining else { return }
        graveyard.draining = true
        while !graveyard.pending.isEmpty { _ = graveyard.pending.removeLast() }
        graveyard.draining = false
    }

    package func field(_ name: String) -> Value? { fields.first { $0.name == name }?.value }

    func setField(_ name: String, _ value: Value) {
        if let index = fields.firstIndex(where: { $0.name == name }) { fields[index].value = value } else { fields.append((name, value)) }
    }
}

/// Per thread: fields of released boxes waiting to be released in turn (see `ObjectBox.deinit`).
private final class Graveyard {
    var pending: [[(name: String, value: Value)]] = []
    var draining = false

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Graveyard>.fromOpaque(pointer).release() }
        }
        return key
    }()

    static var current: Graveyard {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Graveyard>.fromOpaque(pointer).takeUnretainedValue() }
        let graveyard = Graveyard()
        pthread_setspecific(key, Unmanaged.passRetained(graveyard).toOpaque())
        return graveyard
    }
}

/// A parameter of a function, method, initializer or closure.
struct Parameter {
    /// The argument label callers write (nil for `_` and for closure parameters).
    var label: String?
    /// The name inside the body (nil for `_`).
    var name: String?
    var defaultValue: ExprSyntax?
    var isVariadic = false
    var isInout = false
    /// Whether the declared type is a function type (a trailing closure may fill it).
    var isFunction = false
    /// The declared type, for literal conversions (`Double` parameters given `2`).
    var type: TypeSyntax?
}

/// A function as a value: a declared function or method, a closure literal,
/// or a built-in (operators such as `<` passed to `sorted(by:)`, key paths,
/// bound built-in methods). Calling one is `Interpreter.invoke`.
package final class FunctionValue: @unchecked Sendable {
    enum Body {
        case statements(CodeBlockItemListSyntax)
        case native(([Value]) async throws -> Value)
    }

    let name: String
    let parameters: [Parameter]
    let body: Body
    /// The scopes the function was created in (closures and local functions see their variables).
    let captured: [Scope]
    /// `self` of a bound method or of a closure created inside one.
    let selfCell: Cell?
    /// The type a method or initializer belongs to (for static members and `Self`).
    let typeName: String?
    /// A closure literal: positional parameters, `$0`, tuple arguments spread.
    let isClosure: Bool
    /// The declared result type, for literal conversions.
    let resultType: TypeSyntax?
    /// The highest `$N` a closure without parameters uses.
    var highestDollar = 0

    init(name: String, parameters: [Parameter], body: Body, captured: [Scope], selfCell: Cell? = nil, typeName: String? = nil,
         isClosure: Bool = false, resultType: TypeSyntax? = nil) {
        self.name = name
        self.parameters = parameters
        self.body = body
        self.captured = captured
        self.selfCell = selfCell
        self.typeName = typeName
        self.isClosure = isClosure
        self.resultType = resultType
    }

    /// A built-in function of fixed arity.
    static func native(_ name: String, arity: Int, _ body: @escaping ([Value]) async throws -> Value) -> FunctionValue {
        FunctionValue(name: name, parameters: (0..<arity).map { _ in Parameter(label: nil, name: nil) }, body: .native(body),
                      captured: [], isClosure: true)
    }
}

/// An argument at a call site.
package struct CallArgument {
    var label: String?
    package var value: Value
    /// The expression written (nil for values made by the interpreter).
    var syntax: ExprSyntax?
    /// A trailing closure (fills the next parameter whatever its label).
    var isTrailing = false
    /// `&x`: the place the final value of the inout parameter goes back to.
    var inoutTarget: ExprSyntax?
}

/// `return nil` inside a failable initializer.
struct InitializerFailed: Error {}
