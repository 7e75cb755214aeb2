;;; e2e.el --- Headless test of fmplay-mode over eglot -*- lexical-binding: t; -*-

;; emacs --batch -l <repo>/editors/emacs/fmplay-mode.el -l <repo>/editors/emacs/tests/e2e.el
;; Environment (as for the Neovim test):
;;   FMPLAY_TEST_CMD      server command, words separated by spaces (default: "fmplay lsp")
;;   FMPLAY_TEST_FILE     the .fmplay file to open (required)
;;   FMPLAY_TEST_SETTINGS JSON object sent as the server settings (default: {})
;;   FMPLAY_TEST_EXPECT   text the overlay must contain (optional)
;;   FMPLAY_TEST_REJECT   text it must not contain (default "✗", the server's failure mark)
;;   FMPLAY_TEST_TIMEOUT  seconds to wait for each step (default: 60)
;;   FMPLAY_TEST_STEPS    comma-separated steps (default: run), in this order:
;;     diagnostics  flymake shows the file's error
;;     quickfix     `eglot-code-actions' (quickfix) on the error applies the fix; the error goes
;;     completion   completion at point after `GenerationOptions(' offers `temperature:'
;;                  (eglot shows the insert text, `temperature: 0.7')
;;     run          `fmplay-run' in the first #Playground block: the final result as an overlay
;;                  on the call's line and the block status after `#Playground'
;;     stream       (with run) a partial result (`⋯') was shown before the final one
;;     hover        hover on the call answers in the format eglot asked for
;;     report       (after run) `fmplay-report' opens the HTML page the server wrote (the test's
;;                  `fmplay-open-report-function' receives the path): a page with the first result's text
;;     keep         typing inside the block keeps the result shown until it is replaced
;;     cancel       `fmplay-run', then `fmplay-cancel' while it runs: the block ends cancelled
;; Exit code 0 when every step passed.

;;; Code:

(require 'eglot)
(require 'json)

(defun fmplay-e2e--env (name &optional default)
  (let ((value (getenv name)))
    (if (or (null value) (string-empty-p value)) default value)))

(defvar fmplay-e2e--passed nil "Descriptions of the steps that passed, newest first.")

(defun fmplay-e2e--finish (ok message)
  (princ (format "emacs e2e: %s %s\n" (if ok "PASS" "FAIL")
                 (if ok (string-join (reverse (cons message fmplay-e2e--passed)) "; ") message)))
  (kill-emacs (if ok 0 1)))

(defun fmplay-e2e--wait (seconds predicate)
  "Process events until PREDICATE is non-nil or SECONDS pass; return its value."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    value))

(defvar fmplay-e2e--diagnostics-seen nil)
(defvar fmplay-e2e--last-params nil "The last `fmplay/results' params.")
(defvar fmplay-e2e--streamed nil "A partial result (with `⋯') seen as an overlay.")

(defun fmplay-e2e--note-results (_params)
  (setq fmplay-e2e--last-params _params))

(defun fmplay-e2e--after-results (&rest _)
  (dolist (entry (fmplay-result-texts))
    (when (string-search "⋯" (cdr entry))
      (setq fmplay-e2e--streamed (or fmplay-e2e--streamed (cdr entry))))))

(defun fmplay-e2e--block-status (line)
  "The block status overlay text after 1-based LINE, or nil."
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- line))
    (cl-some (lambda (overlay)
               (and (overlay-get overlay 'fmplay-block)
                    (string-trim (substring-no-properties (overlay-get overlay 'after-string)))))
             (overlays-in (line-beginning-position) (1+ (line-end-position))))))

(defun fmplay-e2e--status (line)
  "The status of the block on 0-based LINE in the last payload, and its summary."
  (let (found)
    (mapc (lambda (block)
            (when (equal (fmplay--get block "line") line)
              (setq found (cons (fmplay--get block "status") (fmplay--get block "summary")))))
          (fmplay--get fmplay-e2e--last-params "blocks"))
    found))

(defun fmplay-e2e--note-diagnostics (_server method &rest _)
  (when (eq method 'textDocument/publishDiagnostics)
    (setq fmplay-e2e--diagnostics-seen t)))

(defun fmplay-e2e--flush ()
  "Send pending changes and refresh flymake, as eglot does when Emacs is idle.
Batch Emacs is never idle, so its idle timers do not fire."
  (when (fboundp 'eglot--signal-textDocument/didChange) (eglot--signal-textDocument/didChange))
  (flymake-start))

(defun fmplay-e2e--errors ()
  (cl-remove-if-not (lambda (diag) (eq (flymake-diagnostic-type diag) 'eglot-error))
                    (flymake-diagnostics)))

(defun fmplay-e2e--line-text (line)
  "The text of 1-based LINE."
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- line))
    (string-trim (buffer-substring-no-properties (line-beginning-position) (line-end-position)))))

(defun fmplay-e2e--main ()
  (let* ((file (or (fmplay-e2e--env "FMPLAY_TEST_FILE")
                   (fmplay-e2e--finish nil "FMPLAY_TEST_FILE is not set")))
         (timeout (string-to-number (fmplay-e2e--env "FMPLAY_TEST_TIMEOUT" "60")))
         (expect (fmplay-e2e--env "FMPLAY_TEST_EXPECT"))
         (reject (fmplay-e2e--env "FMPLAY_TEST_REJECT" "✗"))
         (steps (split-string (fmplay-e2e--env "FMPLAY_TEST_STEPS" "run") "," t))
         (json-object-type 'plist)
         (settings (json-read-from-string (fmplay-e2e--env "FMPLAY_TEST_SETTINGS" "{}"))))
    (setq fmplay-server-command (split-string (fmplay-e2e--env "FMPLAY_TEST_CMD" "fmplay lsp") " " t))
    (setq fmplay-settings settings)
    (setq eglot-server-programs
          (cons `(fmplay-mode . (fmplay-eglot-server . ,fmplay-server-command))
                (assq-delete-all 'fmplay-mode eglot-server-programs)))
    (advice-add 'eglot-handle-notification :before #'fmplay-e2e--note-diagnostics)
    (advice-add 'fmplay--handle-results :before #'fmplay-e2e--note-results)
    (add-hook 'fmplay-results-hook #'fmplay-e2e--after-results)
    (find-file file)
    (unless (eq major-mode 'fmplay-mode)
      (fmplay-e2e--finish nil (format "major mode is %s, not fmplay-mode" major-mode)))
    (fmplay-eglot-connect)
    (unless (fmplay-e2e--wait timeout (lambda () fmplay-e2e--diagnostics-seen))
      (fmplay-e2e--finish nil (format "no publishDiagnostics within %ss (server: %s)"
                                      timeout (string-join fmplay-server-command " "))))

    (when (member "diagnostics" steps)
      (let ((diag (car (fmplay-e2e--wait timeout #'fmplay-e2e--errors))))
        (unless diag (fmplay-e2e--finish nil "diagnostics: flymake shows no error"))
        (push (format "diagnostics (line %d: %s)" (line-number-at-pos (flymake-diagnostic-beg diag))
                      (flymake-diagnostic-text diag))
              fmplay-e2e--passed)))

    (when (member "quickfix" steps)
      (let* ((diag (car (fmplay-e2e--errors)))
             (line (line-number-at-pos (flymake-diagnostic-beg diag)))
             (before (fmplay-e2e--line-text line)))
        ;; What M-x eglot-code-actions does, asking for quick fixes (one: applied at once).
        (eglot-code-actions (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag) "quickfix" t)
        (fmplay-e2e--flush)
        (unless (fmplay-e2e--wait timeout (lambda () (flymake-start) (null (fmplay-e2e--errors))))
          (fmplay-e2e--finish nil (format "quickfix: the error is still shown: %S"
                                          (mapcar #'flymake-diagnostic-text (fmplay-e2e--errors)))))
        (push (format "quickfix (`%s' -> `%s')" before (fmplay-e2e--line-text line)) fmplay-e2e--passed)))

    (when (member "completion" steps)
      (goto-char (point-min))
      (unless (search-forward "GenerationOptions(" nil t)
        (fmplay-e2e--finish nil "completion: no `GenerationOptions(' in the file"))
      (let* ((capf (eglot-completion-at-point))
             (candidates (mapcar #'substring-no-properties (and capf (all-completions "" (nth 2 capf))))))
        (unless (cl-some (lambda (candidate) (string-prefix-p "temperature" candidate)) candidates)
          (fmplay-e2e--finish nil (format "completion: `temperature:' not offered; offered: %S" candidates)))
        (push (format "completion (%s)" (string-join candidates " ")) fmplay-e2e--passed)))

    (goto-char (point-min))
    (unless (re-search-forward "^[ \t]*#Playground" nil t)
      (fmplay-e2e--finish nil (format "%s has no #Playground block" file)))
    (let ((playground-line (line-number-at-pos)) shown)
      (when (member "run" steps)
        (forward-line 1)
        (setq fmplay-e2e--last-params nil fmplay-e2e--streamed nil)
        (fmplay-run)
        (let* ((failed nil))
          (setq shown (fmplay-e2e--wait
                       timeout
                       (lambda ()
                         (let ((status (fmplay-e2e--status (1- playground-line))))
                           (when (equal (car status) "failed") (setq failed (or (cdr status) "failed")))
                           (or failed
                               (and (equal (car status) "done")
                                    (cl-find-if (lambda (entry)
                                                  (and (>= (car entry) playground-line)
                                                       (not (string-empty-p (cdr entry)))
                                                       (or (null expect) (string-search expect (cdr entry))
                                                           (string-search reject (cdr entry)))))
                                                (fmplay-result-texts))))))))
          (when failed
            (fmplay-e2e--finish nil (format "run: the block failed: %s" failed)))
          (unless shown
            (fmplay-e2e--finish nil (format "run: no result shown as an overlay; results: %S" fmplay--results)))
          (when (string-search reject (cdr shown))
            (fmplay-e2e--finish nil (format "run: line %d shows a failure: %s" (car shown) (cdr shown))))
          (unless (string-match-p "[[:alnum:]]" (cdr shown))
            (fmplay-e2e--finish nil (format "run: line %d shows no output text: %s" (car shown) (cdr shown))))
          (when (and (member "stream" steps) (null fmplay-e2e--streamed))
            (fmplay-e2e--finish nil "run: no streamed (partial, `⋯') result was shown before the final one"))
          ;; The block's status (a code lens elsewhere) is drawn after its #Playground line.
          (let ((status (fmplay-e2e--block-status playground-line)))
            (unless status
              (fmplay-e2e--finish nil (format "run: no block status after line %d" playground-line)))
            (push (format "run (line %d `%s' shows %s%s; block: %s)" (car shown)
                          (fmplay-e2e--line-text (car shown)) (cdr shown)
                          (if fmplay-e2e--streamed (format "; streamed %s" fmplay-e2e--streamed) "")
                          status)
                  fmplay-e2e--passed))))

      (when (member "hover" steps)
        (let* ((result (car fmplay--results))
               (start (fmplay--get (fmplay--get result "range") "start"))
               (asked (aref (plist-get (plist-get (plist-get (eglot-client-capabilities (eglot-current-server))
                                                              :textDocument)
                                                   :hover)
                                        :contentFormat)
                            0)))
          (unless start (fmplay-e2e--finish nil "hover: no result to hover (run first)"))
          (goto-char (point-min))
          (forward-line (fmplay--get start "line"))
          (forward-char (fmplay--get start "character"))
          (let* ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover
                                         (eglot--TextDocumentPositionParams)))
                 (contents (plist-get hover :contents)))
            (unless (equal (plist-get contents :kind) asked)
              (fmplay-e2e--finish nil (format "hover: eglot asked for %s, the server answered %S" asked hover)))
            (push (format "hover (%s: %s)" asked
                          (truncate-string-to-width (replace-regexp-in-string "\n" " " (eglot--hover-info contents)) 60))
                  fmplay-e2e--passed))))

      (when (member "report" steps)
        (let* ((value (fmplay--get (car fmplay--results) "value"))
               (word (and (stringp value) (string-match "[[:alnum:]]+" value) (match-string 0 value)))
               opened)
          (unless word (fmplay-e2e--finish nil (format "report: no result text to look for (run first): %S" value)))
          (let ((fmplay-open-report-function (lambda (path) (setq opened path))))
            (fmplay-report))
          (unless (and opened (file-readable-p opened))
            (fmplay-e2e--finish nil (format "report: fmplay-report opened %S" opened)))
          (let ((page (with-temp-buffer (insert-file-contents opened) (buffer-string))))
            (unless (and (string-prefix-p "<!DOCTYPE html>" page) (string-search word page))
              (fmplay-e2e--finish nil (format "report: %s is not the report of the result %S" opened value)))
            (push (format "report (%s, %d bytes, has %S)" opened (length page) word) fmplay-e2e--passed))))

      (when (member "keep" steps)
        ;; Type inside the block, as a user does: a comment line after the #Playground line.
        (let ((payloads 0))
          (add-hook 'fmplay-results-hook (lambda () (setq payloads (1+ payloads))) nil t)
          (goto-char (point-min))
          (forward-line playground-line)
          (dolist (char (string-to-list "// a note\n"))
            (insert char)
            (run-hooks 'post-command-hook)
            (fmplay-e2e--wait 0.1 #'ignore))
          (fmplay-e2e--flush)
          ;; The server answers the edit with a payload in which the edited block has no result.
          (fmplay-e2e--wait 5 (lambda () (> payloads 0)))
          (let ((texts (fmplay-result-texts)))
            (unless (and (> payloads 0) texts)
              (fmplay-e2e--finish nil (format "keep: after typing in the block %s; shown: %S"
                                              (if (> payloads 0) "the result disappeared"
                                                "the server sent no fmplay/results")
                                              texts)))
            (push (format "keep (after the edit line %d still shows %s)" (caar texts) (cdar texts))
                  fmplay-e2e--passed))))

      (when (member "cancel" steps)
        ;; The long block: the first one can finish before its running status reaches the client.
        (goto-char (point-min))
        (unless (re-search-forward "^[ \t]*#Playground(\"Long\")" nil t)
          (fmplay-e2e--finish nil (format "cancel: no #Playground(\"Long\") block in %s" file)))
        (let ((long-line (line-number-at-pos)))
          (forward-line 1)
          (fmplay-run)
          (unless (fmplay-e2e--wait timeout (lambda () (equal (car (fmplay-e2e--status (1- long-line))) "running")))
            (fmplay-e2e--finish nil (format "cancel: the block never ran; status %S" (fmplay-e2e--status (1- long-line)))))
          (fmplay-cancel)
          (unless (fmplay-e2e--wait timeout (lambda () (equal (car (fmplay-e2e--status (1- long-line))) "cancelled")))
            (fmplay-e2e--finish nil (format "cancel: the block did not end cancelled; status %S"
                                            (fmplay-e2e--status (1- long-line)))))
          (push (format "cancel (%s)" (cdr (fmplay-e2e--status (1- long-line)))) fmplay-e2e--passed)))

      (fmplay-e2e--finish t (format "status: %s" fmplay-status)))))

(condition-case err
    (fmplay-e2e--main)
  (error (fmplay-e2e--finish nil (error-message-string err))))

;;; e2e.el ends here
