import SwiftSyntax

/// FM309: `DynamicGenerationSchema` forms fmplay cannot generate. The messages
/// are shared with the evaluator, which refuses the same forms at run time
/// when lint could not see them (an `anyOf:` member held in a variable).
public enum DynamicSchemaSupport {
    /// `DynamicGenerationSchema.null` (26.4).
    public static let nullMessage =
        "DynamicGenerationSchema.null cannot be generated: fmplay's schemas have no null type; "
        + "give the property a real schema and mark it optional instead (DynamicGenerationSchema.Property(..., isOptional: true))"
    /// An `anyOf:` member that is not `DynamicGenerationSchema(name:properties:)`.
    public static func anyOfMemberMessage(_ member: String) -> String {
        "anyOf: members must be object schemas, DynamicGenerationSchema(name:properties:), but this one is \(member); "
            + "wrap it in an object schema with one property, or use anyOf: with strings for a choice of strings"
    }
    /// `anyOf: []`.
    public static let emptyAnyOfMessage = "anyOf: needs at least one choice (GenerationSchema.SchemaError.emptyTypeChoices)"

    /// What a member built by this call is, when it is not an object schema;
    /// nil when it is `DynamicGenerationSchema(name:properties:)` or unknown.
    static func nonObjectMember(labels: [String]) -> String? {
        if labels.contains("properties") { return nil }
        if labels.contains("arrayOf") { return "an array schema (arrayOf:)" }
        if labels.contains("type") { return "a type schema (type:)" }
        if labels.contains("referenceTo") { return "a reference (referenceTo:)" }
        if labels.contains("anyOf") { return "a choice (anyOf:)" }
        return nil
    }
}

/// Checks of `DynamicGenerationSchema` constructions, called by the session
/// checks' walk (one walk of the file for both).
struct DynamicSchemaChecks {
    let source: SourceText
    var diagnostics: [Diagnostic] = []

    /// `DynamicGenerationSchema.null` anywhere, or `.null` where a dynamic schema is expected.
    private static func isNull(_ expression: ExprSyntax, implicitAllowed: Bool) -> Bool {
        guard let member = SyntaxReading.memberAccess(expression), member.name == "null" else { return false }
        return member.base == "DynamicGenerationSchema" || (implicitAllowed && member.base == nil)
    }

    /// `DynamicGenerationSchema(...)`, `DynamicGenerationSchema.init(...)` or `.init(...)`.
    private static func isSchemaConstructor(_ call: FunctionCallExprSyntax, implicitAllowed: Bool) -> Bool {
        let callee = call.calledExpression
        if let reference = callee.as(DeclReferenceExprSyntax.self) { return reference.baseName.text == "DynamicGenerationSchema" }
        guard let member = SyntaxReading.memberAccess(callee), member.name == "init" else { return false }
        return member.base == "DynamicGenerationSchema" || (implicitAllowed && member.base == nil)
    }

    mutating func check(_ node: MemberAccessExprSyntax) {
        if Self.isNull(ExprSyntax(node), implicitAllowed: false) {
            diagnostics.append(Diagnostic(.unsupportedDynamicSchema, at: source.range(of: node), DynamicSchemaSupport.nullMessage))
        }
    }

    mutating func check(_ node: FunctionCallExprSyntax, callee: String) {
        if callee == "DynamicGenerationSchema.Property", let schema = SyntaxReading.argument("schema", in: node.arguments),
            Self.isNull(schema.expression, implicitAllowed: true), SyntaxReading.memberAccess(schema.expression)?.base == nil
        {
            diagnostics.append(Diagnostic(.unsupportedDynamicSchema, at: source.range(of: schema.expression), DynamicSchemaSupport.nullMessage))
        }
        guard Self.isSchemaConstructor(node, implicitAllowed: false),
            let anyOf = SyntaxReading.argument("anyOf", in: node.arguments)?.expression.as(ArrayExprSyntax.self)
        else { return }
        if anyOf.elements.isEmpty {
            diagnostics.append(Diagnostic(.unsupportedDynamicSchema, at: source.range(of: anyOf), DynamicSchemaSupport.emptyAnyOfMessage))
        }
        for element in anyOf.elements.fastElements {
            let expression = element.expression
            if Self.isNull(expression, implicitAllowed: true) {
                // `DynamicGenerationSchema.null` is reported by the member-access visit.
                if SyntaxReading.memberAccess(expression)?.base == nil {
                    diagnostics.append(Diagnostic(.unsupportedDynamicSchema, at: source.range(of: expression), DynamicSchemaSupport.nullMessage))
                }
            } else if let call = expression.as(FunctionCallExprSyntax.self), Self.isSchemaConstructor(call, implicitAllowed: true),
                let kind = DynamicSchemaSupport.nonObjectMember(labels: call.arguments.fastElements.compactMap { $0.label?.text })
            {
                diagnostics.append(Diagnostic(.unsupportedDynamicSchema, at: source.range(of: expression),
                                              DynamicSchemaSupport.anyOfMemberMessage(kind)))
            }
        }
    }
}
