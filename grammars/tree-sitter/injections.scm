; inherits: swift
;
; fmplay injections on top of tree-sitter-swift's. Node names: tree-sitter-swift 0.7.
; (Directives come before text predicates: py-tree-sitter 0.26 corrupts memory the other way round.)

; Regex literals (as in @Guide(.pattern(/[A-Z]+/))) are regular expressions.
((regex_literal) @injection.content
  (#set! injection.language "regex"))

; Multi-line prompt and instruction strings are usually Markdown; highlight them as such.
(value_argument
  name: (value_argument_label) @_label
  value: (multi_line_string_literal
    text: (multi_line_str_text) @injection.content)
  (#set! injection.language "markdown")
  (#set! injection.combined)
  (#any-of? @_label "to" "instructions" "prompt"))

(call_expression
  (simple_identifier) @_builder
  (call_suffix
    (lambda_literal
      (statements
        (multi_line_string_literal
          text: (multi_line_str_text) @injection.content))))
  (#set! injection.language "markdown")
  (#set! injection.combined)
  (#any-of? @_builder "Instructions" "Prompt"))

; Comments
([(comment) (multiline_comment)] @injection.content
  (#set! injection.language "comment"))
