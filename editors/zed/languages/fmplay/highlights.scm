; Base Swift highlighting for Zed (Zed has no `; inherits:`); generated into
; languages/fmplay/highlights.scm together with grammars/tree-sitter/highlights.scm by
; `make zed-queries`. Node names: tree-sitter-swift.
[(comment) (multiline_comment)] @comment
[(line_string_literal) (multi_line_string_literal) (raw_string_literal)] @string
(regex_literal) @string.regex
[(integer_literal) (real_literal) (hex_literal) (oct_literal) (bin_literal)] @number
(boolean_literal) @boolean
(nil_literal) @constant.builtin
[
  "import" "struct" "enum" "class" "protocol" "extension" "func" "init" "let" "var" "case"
  "if" (else) "for" "in" "while" "repeat" "switch" "return" (throw_keyword) "do" (catch_keyword) "guard"
  "break" "continue" "try" "await" "async" (where_keyword) "typealias"
] @keyword
(throws) @keyword
(type_identifier) @type
(function_declaration name: (simple_identifier) @function)
(call_expression (simple_identifier) @function)
(call_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @function)))
(value_argument_label) @property
(parameter name: (simple_identifier) @variable.parameter)
["(" ")" "[" "]" "{" "}"] @punctuation.bracket
["," ":" "."] @punctuation.delimiter
;
; fmplay highlights on top of tree-sitter-swift's own (a .fmplay file is Swift syntax).
; Neovim (nvim-treesitter) and Helix both let a later pattern win over an earlier one, so
; these captures override the inherited Swift ones. Node names: tree-sitter-swift 0.7.

; #Playground { ... } and #Playground("name") { ... }
(macro_invocation
  "#" @function.macro
  (simple_identifier) @function.macro @_macro
  (#eq? @_macro "Playground"))

; @Generable and @Guide
(attribute
  "@" @attribute
  (user_type (type_identifier) @attribute @_attribute)
  (#any-of? @_attribute "Generable" "Guide"))

; Guide functions: .range(1...5), .anyOf([...]), .pattern(/.../), ...
(call_expression
  (prefix_expression
    "." @punctuation.delimiter
    target: (simple_identifier) @function.builtin)
  (#any-of? @function.builtin
    "anyOf" "constant" "pattern" "minimum" "maximum" "range"
    "count" "minimumCount" "maximumCount" "element"))

; Qualified guide functions: GenerationGuide.range(...)
(call_expression
  (navigation_expression
    target: (simple_identifier) @_guide
    suffix: (navigation_suffix suffix: (simple_identifier) @function.builtin))
  (#eq? @_guide "GenerationGuide")
  (#any-of? @function.builtin
    "anyOf" "constant" "pattern" "minimum" "maximum" "range"
    "count" "minimumCount" "maximumCount" "element"))

; Tool members: name, description, Arguments and call(arguments:)
(class_declaration
  (inheritance_specifier inherits_from: (user_type (type_identifier) @_tool))
  body: (class_body
    (property_declaration
      name: (pattern bound_identifier: (simple_identifier) @variable.builtin)))
  (#eq? @_tool "Tool")
  (#any-of? @variable.builtin "name" "description"))

(class_declaration
  (inheritance_specifier inherits_from: (user_type (type_identifier) @_tool))
  body: (class_body
    (class_declaration name: (type_identifier) @type.builtin))
  (#eq? @_tool "Tool")
  (#eq? @type.builtin "Arguments"))

(class_declaration
  (inheritance_specifier inherits_from: (user_type (type_identifier) @_tool))
  body: (class_body
    (function_declaration
      name: (simple_identifier) @function.builtin
      (parameter name: (simple_identifier) @variable.parameter.builtin)))
  (#eq? @_tool "Tool")
  (#eq? @function.builtin "call")
  (#eq? @variable.parameter.builtin "arguments"))

; FoundationModels session calls
(navigation_suffix
  suffix: (simple_identifier) @function.builtin
  (#any-of? @function.builtin "respond" "streamResponse"))

; Prompt strings: the argument of to:, instructions: and prompt:
(value_argument
  name: (value_argument_label) @_label
  value: [
    (line_string_literal)
    (multi_line_string_literal)
    (raw_string_literal)
  ] @string.special
  (#any-of? @_label "to" "instructions" "prompt"))

; Strings inside Instructions { ... } and Prompt { ... } builders
(call_expression
  (simple_identifier) @_builder
  (call_suffix
    (lambda_literal
      (statements
        [
          (line_string_literal)
          (multi_line_string_literal)
          (raw_string_literal)
        ] @string.special)))
  (#any-of? @_builder "Instructions" "Prompt"))
