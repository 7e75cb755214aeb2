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
