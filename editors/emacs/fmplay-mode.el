;;; fmplay-mode.el --- Major mode and language-server glue for fmplay prompt files -*- lexical-binding: t; -*-

;; Keywords: languages, tools
;; Package-Requires: ((emacs "27.1"))

;;; Commentary:

;; `fmplay-mode' edits `.fmplay' prompt files (Swift-like FoundationModels files).  It derives
;; from `swift-mode' when that package is installed, else from `prog-mode' with its own
;; font-lock.  It registers `fmplay lsp' with eglot and with lsp-mode, shows each model
;; result at the end of its call's line as an overlay (from the server's `fmplay/results'
;; notification), and provides commands to run and cancel `#Playground' blocks:
;;
;;   M-x fmplay-run          run the block at point        (C-c C-c)
;;   M-x fmplay-run-all      run every block in the file   (C-c C-a)
;;   M-x fmplay-cancel       cancel the running evaluation (C-c C-k)
;;   M-x fmplay-clear-cache  forget cached results
;;   M-x fmplay-report       open the HTML report of the file's last results (C-c C-o)
;;
;; Set-up (eglot):
;;   (add-to-list 'load-path "/path/to/fmplay/editors/emacs")
;;   (require 'fmplay-mode)
;;   (add-hook 'fmplay-mode-hook #'eglot-ensure)

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'url-util)
(require 'swift-mode nil t)

;; eglot and lsp-mode are optional: the glue below loads with whichever is present.
(defvar eglot-server-programs)
(defvar eglot-workspace-configuration)
(defvar lsp-language-id-configuration)
(declare-function eglot "eglot")
(declare-function eglot-current-server "eglot")
(declare-function jsonrpc-request "jsonrpc")
(declare-function jsonrpc-async-request "jsonrpc")
(declare-function lsp-request "lsp-mode")
(declare-function lsp-request-async "lsp-mode")
(declare-function lsp-register-client "lsp-mode")
(declare-function make-lsp-client "lsp-mode")
(declare-function lsp-stdio-connection "lsp-mode")
(declare-function lsp-activate-on "lsp-mode")
(declare-function fmplay-eglot-server--eieio-childp "fmplay-mode") ; defined by defclass below

(defgroup fmplay nil
  "fmplay prompt files."
  :group 'languages
  :prefix "fmplay-")

(defcustom fmplay-server-command '("fmplay" "lsp")
  "The language server command and its arguments."
  :type '(repeat string))

(defcustom fmplay-settings nil
  "Server settings as a plist, e.g. (:evaluate \"manual\" :maxTokens 64).
Sent as initializationOptions and as the `fmplay' section of the
workspace configuration.  The keys are those of `fmplay lsp --help'."
  :type 'plist)

(defcustom fmplay-open-report-function #'browse-url-of-file
  "Function that `fmplay-report' calls with the path of the report page."
  :type 'function)

(defface fmplay-block-face
  '((t :inherit font-lock-comment-face))
  "Face of the block status (e.g. \"✓ 3 results · 1.2 s\") after each #Playground.")

(defface fmplay-result-face
  '((t :inherit shadow :slant italic))
  "Face of the model results shown after their calls.")

;;;; Major mode

(defconst fmplay--guide-functions
  '("anyOf" "constant" "pattern" "minimum" "maximum" "range" "count"
    "minimumCount" "maximumCount" "element"))

(defconst fmplay-font-lock-keywords
  `(("#Playground\\_>" . font-lock-preprocessor-face)
    ("@\\(?:Generable\\|Guide\\)\\_>" . font-lock-preprocessor-face)
    (,(concat "\\.\\(" (regexp-opt fmplay--guide-functions) "\\)\\s-*(") 1 font-lock-builtin-face)
    ("\\.\\(respond\\|streamResponse\\)\\_>" 1 font-lock-builtin-face)
    (,(regexp-opt '("LanguageModelSession" "SystemLanguageModel" "GenerationOptions" "Instructions"
                    "Prompt" "Tool" "GeneratedContent" "GenerationSchema" "DynamicGenerationSchema")
                  'symbols)
     . font-lock-type-face))
  "fmplay-specific highlighting, added on top of the parent mode's.")

(defconst fmplay--fallback-keywords
  `((,(regexp-opt '("import" "struct" "enum" "class" "func" "let" "var" "case" "if" "else" "for" "in"
                    "while" "switch" "default" "return" "throw" "throws" "try" "await" "async" "do"
                    "catch" "guard" "break" "continue" "static" "some" "any" "init")
                  'symbols)
     . font-lock-keyword-face)
    (,(regexp-opt '("true" "false" "nil" "self") 'symbols) . font-lock-constant-face)
    ("\\_<[0-9][0-9_]*\\(?:\\.[0-9_]+\\)?\\(?:[eE][-+]?[0-9]+\\)?\\_>" . font-lock-constant-face)
    ("\\_<[A-Z][A-Za-z0-9_]*\\_>" . font-lock-type-face)
    ("\\_<func\\s-+\\([A-Za-z_][A-Za-z0-9_]*\\)" 1 font-lock-function-name-face))
  "Swift basics for when `swift-mode' is not installed.")

(defvar fmplay-mode-syntax-table
  (let ((table (make-syntax-table)))
    (modify-syntax-entry ?/ ". 124b" table)
    (modify-syntax-entry ?* ". 23n" table)
    (modify-syntax-entry ?\n "> b" table)
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?\\ "\\" table)
    (modify-syntax-entry ?_ "_" table)
    (modify-syntax-entry ?@ "_" table)
    (modify-syntax-entry ?# "_" table)
    table)
  "Syntax table used when `swift-mode' is not installed.")

(defvar fmplay-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'fmplay-run)
    (define-key map (kbd "C-c C-a") #'fmplay-run-all)
    (define-key map (kbd "C-c C-k") #'fmplay-cancel)
    (define-key map (kbd "C-c C-o") #'fmplay-report)
    map)
  "Keys of `fmplay-mode'.")

(defalias 'fmplay--parent-mode (if (fboundp 'swift-mode) #'swift-mode #'prog-mode)
  "The parent of `fmplay-mode': `swift-mode' when installed, else `prog-mode'.")

;;;###autoload
(define-derived-mode fmplay-mode fmplay--parent-mode "fmplay"
  "Major mode for fmplay prompt files (`.fmplay').
\\{fmplay-mode-map}"
  (unless (fboundp 'swift-mode)
    (set-syntax-table fmplay-mode-syntax-table)
    (setq-local comment-start "// ")
    (setq-local comment-start-skip "//+\\s-*")
    (setq-local font-lock-defaults '(fmplay--fallback-keywords)))
  (setq-local comment-start "// ")
  (setq mode-name '("fmplay" (fmplay-status (" [" fmplay-status "]"))))
  (font-lock-add-keywords nil fmplay-font-lock-keywords 'append)
  (when fmplay-settings
    (setq-local eglot-workspace-configuration (list (cons :fmplay fmplay-settings)))))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.fmplay\\'" . fmplay-mode))

;;;; Results as overlays

(defvar-local fmplay--overlays nil "Overlays showing this buffer's results.")
(defvar-local fmplay--results nil "The last `fmplay/results' results of this buffer (a list).")
(defvar-local fmplay--blocks nil "The last `fmplay/results' blocks of this buffer (a list).")
(defvar-local fmplay-status nil
  "Short evaluation status of this buffer, shown in the mode line.")

(defun fmplay--get (object key)
  "KEY (a string) of a JSON OBJECT decoded as a plist, an alist or a hash table."
  (cond ((hash-table-p object) (gethash key object))
        ((and (consp object) (keywordp (car object))) (plist-get object (intern (concat ":" key))))
        ((consp object) (cdr (assoc key object)))))

(defun fmplay--uri-to-path (uri)
  "The local file name of a file:// URI."
  (let ((path (url-unhex-string (string-remove-prefix "file://" uri))))
    (decode-coding-string path 'utf-8)))

(defun fmplay--path-to-uri (path)
  "The file:// URI of PATH."
  (concat "file://" (url-hexify-string (encode-coding-string (expand-file-name path) 'utf-8)
                                       (append "/:-_.~" url-unreserved-chars nil))))

(defun fmplay--result-line (result)
  "0-based line at whose end RESULT is shown."
  (let* ((range (or (fmplay--get result "range") (fmplay--get result "callRange")))
         (position (or (and range (fmplay--get range "end")) (fmplay--get result "position")
                       (and range (fmplay--get range "start")))))
    (and position (fmplay--get position "line"))))

(defun fmplay--result-text (result)
  "The short text shown for RESULT, or nil."
  (let ((text (or (fmplay--get result "hint") (fmplay--get result "label")
                  (fmplay--get result "rendering") (fmplay--get result "summary")
                  (let ((value (fmplay--get result "value"))) (and (stringp value) value)))))
    (when (stringp text)
      (setq text (replace-regexp-in-string "[\r\n]+" " " text))
      (if (string-prefix-p "→" text) text (concat "→ " text)))))

;; Results stay until they are replaced: a payload in which a block has no result yet (it was
;; edited, or is queued or starting again) keeps that block's overlays, which move with the
;; text as the user types; the block's next results, or its end (done, failed, cancelled),
;; replace them.
(defconst fmplay--final-statuses '("done" "failed" "cancelled" "blocked")
  "Block statuses after which a block's overlays show exactly its results.")

(defun fmplay-clear-overlays ()
  "Remove the result overlays of the current buffer."
  (interactive)
  (mapc #'delete-overlay fmplay--overlays)
  (setq fmplay--overlays nil))

(defun fmplay--overlay-at-end-of-line (line text face property &optional block)
  "Show TEXT in FACE after 0-based LINE; tag the overlay with PROPERTY and BLOCK."
  (goto-char (point-min))
  (when (zerop (forward-line line))
    (let* ((end (line-end-position))
           (overlay (make-overlay end end nil t nil)))
      (overlay-put overlay property t)
      (overlay-put overlay 'fmplay-block-name block)
      (overlay-put overlay 'after-string (propertize (concat "  " text) 'face face 'cursor t))
      (push overlay fmplay--overlays))))

(defun fmplay--kept-blocks ()
  "Names of the blocks whose result overlays stay.
Those are the blocks with no result in the payload yet that have not ended."
  (let (kept)
    (dolist (block fmplay--blocks)
      (let ((name (fmplay--get block "name")))
        (unless (or (member (fmplay--get block "status") fmplay--final-statuses)
                    (cl-some (lambda (result) (equal (fmplay--get result "block") name)) fmplay--results))
          (push name kept))))
    kept))

(defun fmplay--render ()
  "Draw `fmplay--results' at the end of each call's line, and each block's
status (what other clients show as a code lens) after its #Playground line.
Result overlays of blocks without new results stay (see `fmplay--kept-blocks')."
  (let ((kept (fmplay--kept-blocks)) (remaining nil))
    (dolist (overlay fmplay--overlays)
      (if (and (overlay-buffer overlay) (overlay-get overlay 'fmplay-result)
               (member (overlay-get overlay 'fmplay-block-name) kept))
          (push overlay remaining)
        (delete-overlay overlay)))
    (setq fmplay--overlays remaining))
  (let ((per-line (make-hash-table)) (blocks (make-hash-table)) (order nil))
    (dolist (result fmplay--results)
      (let ((line (fmplay--result-line result)) (text (fmplay--result-text result)))
        (when (and (integerp line) text)
          (unless (gethash line per-line) (push line order))
          (puthash line (fmplay--get result "block") blocks)
          (puthash line (append (gethash line per-line) (list text)) per-line))))
    (save-excursion
      (save-restriction
        (widen)
        (dolist (line (nreverse order))
          (fmplay--overlay-at-end-of-line line (string-join (gethash line per-line) "  ")
                                          'fmplay-result-face 'fmplay-result (gethash line blocks)))
        (dolist (block fmplay--blocks)
          (let ((line (fmplay--get block "line")) (summary (fmplay--get block "summary")))
            (when (and (integerp line) (stringp summary))
              (fmplay--overlay-at-end-of-line line summary 'fmplay-block-face 'fmplay-block))))))))

(defun fmplay-result-texts ()
  "The results shown in the current buffer, as a list of (LINE . TEXT).
LINE is 1-based."
  (let (out)
    (dolist (overlay fmplay--overlays)
      (when (and (overlay-buffer overlay) (overlay-get overlay 'fmplay-result))
        (push (cons (line-number-at-pos (overlay-start overlay))
                    (string-trim (substring-no-properties (overlay-get overlay 'after-string))))
              out)))
    (sort out (lambda (a b) (< (car a) (car b))))))

(defvar fmplay-results-hook nil
  "Run in a buffer after its results were updated from `fmplay/results'.")

(defun fmplay--summarize (params)
  "A short status from the per-block statuses of an `fmplay/results' PARAMS."
  (let ((counts (make-hash-table :test #'equal)) (total 0))
    (mapc (lambda (block)
            (let ((status (fmplay--get block "status")))
              (puthash status (1+ (gethash status counts 0)) counts)
              (setq total (1+ total))))
          (fmplay--get params "blocks"))
    (let ((active (+ (gethash "running" counts 0) (gethash "queued" counts 0))))
      (cond ((> active 0) (format "running %d of %d" active total))
            ((> (gethash "failed" counts 0) 0) (format "%d failed" (gethash "failed" counts 0)))
            (t (format "%d results" (length (fmplay--get params "results"))))))))

(defun fmplay--handle-results (params)
  "Show the results of an `fmplay/results' notification PARAMS."
  (let* ((uri (fmplay--get params "uri"))
         (buffer (and (stringp uri) (find-buffer-visiting (fmplay--uri-to-path uri)))))
    (when buffer
      (with-current-buffer buffer
        (setq fmplay--results (append (fmplay--get params "results") nil))
        (setq fmplay--blocks (append (fmplay--get params "blocks") nil))
        (setq fmplay-status (fmplay--summarize params))
        (fmplay--render)
        ;; lsp-mode asks for lenses only after edits and saves: fetch the new status now.
        (when (and (bound-and-true-p lsp-lens-mode) (fboundp 'lsp-lens-refresh))
          (lsp-lens-refresh t))
        (force-mode-line-update)
        (run-hooks 'fmplay-results-hook)))))

;;;; Talking to the server (eglot or lsp-mode)

(defun fmplay--eglot-server ()
  (and (fboundp 'eglot-current-server) (eglot-current-server)))

(defun fmplay--lsp-mode-p ()
  (and (boundp 'lsp-mode) lsp-mode))

(defun fmplay--request (method params)
  "Send request METHOD with PARAMS through whichever client manages this buffer."
  (cond ((fmplay--eglot-server)
         (jsonrpc-request (fmplay--eglot-server) (intern (concat ":" method)) params))
        ((fmplay--lsp-mode-p) (lsp-request method params))
        (t (user-error "fmplay: no language server in this buffer; M-x eglot or M-x lsp first"))))

(defun fmplay--execute (command arguments)
  "Run the server COMMAND with ARGUMENTS (a list or vector).
The request is workspace/executeCommand, sent asynchronously: the
results arrive as `fmplay/results' notifications.  (A synchronous
`jsonrpc-request' would leave a notification that arrives in the
same read as the reply unprocessed until the server writes again.)"
  (let ((params (list :command command :arguments (vconcat arguments)))
        (on-error (lambda (error) (message "fmplay: %s failed: %S" command error))))
    (cond ((fmplay--eglot-server)
           (jsonrpc-async-request (fmplay--eglot-server) :workspace/executeCommand params
                                  :success-fn #'ignore
                                  :error-fn on-error))
          ((fmplay--lsp-mode-p)
           (lsp-request-async "workspace/executeCommand" params #'ignore :error-handler on-error))
          (t (user-error "fmplay: no language server in this buffer; M-x eglot or M-x lsp first")))))

(defun fmplay--document ()
  (list :uri (fmplay--path-to-uri buffer-file-name)))

(defun fmplay--lens-command (command)
  "The server's COMMAND lens for the #Playground block at or above point, or nil.
Using the lens's own command keeps the arguments exactly as the
server defined them."
  (let ((line (1- (line-number-at-pos))) best best-line)
    (mapc (lambda (lens)
            (let* ((lens-command (fmplay--get lens "command"))
                   (start (fmplay--get (fmplay--get lens "range") "start"))
                   (lens-line (fmplay--get start "line")))
              (when (and lens-command (equal (fmplay--get lens-command "command") command)
                         (<= lens-line line) (or (null best-line) (> lens-line best-line)))
                (setq best lens-command best-line lens-line))))
          (fmplay--request "textDocument/codeLens" (list :textDocument (fmplay--document))))
    best))

(defun fmplay-run ()
  "Run the #Playground block at point."
  (interactive)
  (let ((lens (fmplay--lens-command "fmplay.run")))
    (unless lens (user-error "fmplay: no #Playground block at or above point"))
    (fmplay--execute "fmplay.run" (fmplay--get lens "arguments"))))

(defun fmplay-run-all ()
  "Run every #Playground block of the file."
  (interactive)
  (fmplay--execute "fmplay.runAll" (list (fmplay--document))))

(defun fmplay-cancel ()
  "Cancel the running evaluation."
  (interactive)
  (let ((lens (ignore-errors (fmplay--lens-command "fmplay.cancel"))))
    (if lens
        (fmplay--execute "fmplay.cancel" (fmplay--get lens "arguments"))
      (fmplay--execute "fmplay.cancel" (list (fmplay--document))))))

(defun fmplay-clear-cache ()
  "Forget the server's cached results."
  (interactive)
  (fmplay--execute "fmplay.clearCache" nil))

(defun fmplay-report ()
  "Open the HTML report of this file's last results.
The server's fmplay.openReport command writes the page (the one of
`fmplay report') and answers its path, which
`fmplay-open-report-function' opens (a web browser by default).
Return the path."
  (interactive)
  (let ((path (fmplay--request "workspace/executeCommand"
                               (list :command "fmplay.openReport" :arguments (vector (fmplay--document))))))
    (unless (stringp path)
      (user-error "fmplay: fmplay.openReport answered %S, not a path" path))
    (funcall fmplay-open-report-function path)
    path))

;;;; eglot

(with-eval-after-load 'eglot
  (defclass fmplay-eglot-server (eglot-lsp-server) ()
    :documentation "The fmplay language server.")

  (cl-defmethod eglot-initialization-options ((_server fmplay-eglot-server))
    (or fmplay-settings (make-hash-table)))

  (cl-defmethod eglot-handle-notification
    ((_server fmplay-eglot-server) (_method (eql fmplay/results)) &rest params)
    (fmplay--handle-results params))

  (add-to-list 'eglot-server-programs
               `(fmplay-mode . (fmplay-eglot-server . ,fmplay-server-command))))

(defun fmplay-eglot-connect ()
  "Start eglot on the current buffer now.
Unlike `eglot-ensure', this does not wait for the next command, so
it also works in batch mode."
  (interactive)
  (require 'eglot)
  (require 'project)
  (eglot (list 'fmplay-mode)
         (or (project-current) (cons 'transient default-directory))
         'fmplay-eglot-server fmplay-server-command "fmplay"))

;;;; lsp-mode

(defcustom fmplay-lsp-lens t
  "Whether lsp-mode shows the server's code lenses (▶ Run, ■ Cancel, the status)
in fmplay buffers.  lsp-mode's own `lsp-lens-enable' is off by default; this
turns `lsp-lens-mode' on for fmplay buffers only."
  :type 'boolean)

(defvar lsp-lens-enable)
(defvar lsp-lens-mode)
(declare-function lsp-lens-mode "lsp-lens")
(declare-function lsp-lens-refresh "lsp-lens")

(defun fmplay--lsp-configure ()
  "Turn on code lenses in an fmplay buffer that lsp-mode has just configured."
  (when (and fmplay-lsp-lens (derived-mode-p 'fmplay-mode))
    (setq-local lsp-lens-enable t)
    (lsp-lens-mode 1)))

(with-eval-after-load 'lsp-mode
  (add-hook 'lsp-configure-hook #'fmplay--lsp-configure)
  (add-to-list 'lsp-language-id-configuration '(fmplay-mode . "fmplay"))
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (lambda () fmplay-server-command))
    :activation-fn (lsp-activate-on "fmplay")
    :server-id 'fmplay
    :initialization-options (lambda () fmplay-settings)
    :notification-handlers
    (let ((handlers (make-hash-table :test #'equal)))
      (puthash "fmplay/results" (lambda (_workspace params) (fmplay--handle-results params)) handlers)
      handlers))))

(provide 'fmplay-mode)
;;; fmplay-mode.el ends here
