/// FM306/FM307: the Swift subset prompt files support.
public enum SupportedSwiftChecker {
    static func check(file: PromptFile) -> [Diagnostic] { [] }
}
