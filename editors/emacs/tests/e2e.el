;;; e2e.el --- Headless end-to-end test of fmplay-mode over eglot -*- lexical-binding: t; -*-

;; emacs --batch -l editors/emacs/fmplay-mode.el -l editors/emacs/tests/e2e.el
;; Environment (as for the Neovim test):
;;   FMPLAY_TEST_CMD      server command, words separated by spaces (default: "fmplay lsp")
;;   FMPLAY_TEST_FILE     the .fmplay file to open (required)
;;   FMPLAY_TEST_SETTINGS JSON object sent as the server settings (default: {})
;;   FMPLAY_TEST_EXPECT   text the overlay must contain (optional)
;;   FMPLAY_TEST_REJECT   text it must not contain (default "✗", the server's failure mark)
;;   FMPLAY_TEST_TIMEOUT  seconds to wait for each step (default: 60)
;; Opens the file, connects eglot, waits for diagnostics, runs the first #Playground block
;; with `fmplay-run' and asserts the server's result appears as an overlay.  Exit code 0 on
;; success.

;;; Code:

(require 'eglot)
(require 'json)

(defun fmplay-e2e--env (name &optional default)
  (let ((value (getenv name)))
    (if (or (null value) (string-empty-p value)) default value)))

(defun fmplay-e2e--finish (ok message)
  (princ (format "emacs e2e: %s %s\n" (if ok "PASS" "FAIL") message))
  (kill-emacs (if ok 0 1)))

(defun fmplay-e2e--wait (seconds predicate)
  "Process events until PREDICATE is non-nil or SECONDS pass; return its value."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    value))

(defvar fmplay-e2e--diagnostics-seen nil)

(defvar fmplay-e2e--last-params nil "The last `fmplay/results' params.")

(defun fmplay-e2e--note-results (params)
  (setq fmplay-e2e--last-params params))

(defun fmplay-e2e--block-status (line)
  "The block status overlay text after 1-based LINE, or nil."
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- line))
    (cl-some (lambda (overlay)
               (and (overlay-get overlay 'fmplay-block)
                    (string-trim (substring-no-properties (overlay-get overlay 'after-string)))))
             (overlays-in (line-beginning-position) (1+ (line-end-position))))))

(defun fmplay-e2e--block-done (line)
  "Whether the block on 0-based LINE finished (not a streaming snapshot)."
  (cl-some (lambda (block)
             (and (equal (fmplay--get block "line") line)
                  (equal (fmplay--get block "status") "done")))
           (fmplay--get fmplay-e2e--last-params "blocks")))

(defun fmplay-e2e--failed-block (line)
  "The summary of the block on 0-based LINE if it failed, else nil."
  (let (summary)
    (mapc (lambda (block)
            (when (and (equal (fmplay--get block "line") line)
                       (equal (fmplay--get block "status") "failed"))
              (setq summary (or (fmplay--get block "summary") "failed"))))
          (fmplay--get fmplay-e2e--last-params "blocks"))
    summary))

(defun fmplay-e2e--note-diagnostics (_server method &rest _)
  (when (eq method 'textDocument/publishDiagnostics)
    (setq fmplay-e2e--diagnostics-seen t)))

(defun fmplay-e2e--main ()
  (let* ((file (or (fmplay-e2e--env "FMPLAY_TEST_FILE")
                   (fmplay-e2e--finish nil "FMPLAY_TEST_FILE is not set")))
         (timeout (string-to-number (fmplay-e2e--env "FMPLAY_TEST_TIMEOUT" "60")))
         (expect (fmplay-e2e--env "FMPLAY_TEST_EXPECT"))
         (reject (fmplay-e2e--env "FMPLAY_TEST_REJECT" "✗"))
         (json-object-type 'plist)
         (settings (json-read-from-string (fmplay-e2e--env "FMPLAY_TEST_SETTINGS" "{}"))))
    (setq fmplay-server-command (split-string (fmplay-e2e--env "FMPLAY_TEST_CMD" "fmplay lsp") " " t))
    (setq fmplay-settings settings)
    (setq eglot-server-programs
          (cons `(fmplay-mode . (fmplay-eglot-server . ,fmplay-server-command))
                (assq-delete-all 'fmplay-mode eglot-server-programs)))
    (advice-add 'eglot-handle-notification :before #'fmplay-e2e--note-diagnostics)
    (advice-add 'fmplay--handle-results :before #'fmplay-e2e--note-results)
    (find-file file)
    (unless (eq major-mode 'fmplay-mode)
      (fmplay-e2e--finish nil (format "major mode is %s, not fmplay-mode" major-mode)))
    (fmplay-eglot-connect)
    (unless (fmplay-e2e--wait timeout (lambda () fmplay-e2e--diagnostics-seen))
      (fmplay-e2e--finish nil (format "no publishDiagnostics within %ss (server: %s)"
                                      timeout (string-join fmplay-server-command " "))))
    (goto-char (point-min))
    (unless (re-search-forward "^[ \t]*#Playground" nil t)
      (fmplay-e2e--finish nil (format "%s has no #Playground block" file)))
    (let ((playground-line (line-number-at-pos)))
      (forward-line 1)
      (fmplay-run)
      (let* ((failed nil)
             (shown (fmplay-e2e--wait
                    timeout
                    (lambda ()
                      (setq failed (fmplay-e2e--failed-block (1- playground-line)))
                      (or failed
                       (and (fmplay-e2e--block-done (1- playground-line))
                       (cl-find-if (lambda (entry)
                                    (and (>= (car entry) playground-line)
                                         (not (string-empty-p (cdr entry)))
                                         (or (null expect) (string-search expect (cdr entry))
                                             (string-search reject (cdr entry)))))
                                  (fmplay-result-texts))))))))
        (when failed
          (fmplay-e2e--finish nil (format "the block failed: %s" failed)))
        (unless shown
          (fmplay-e2e--finish nil (format "no result shown as an overlay; results: %S" fmplay--results)))
        (when (string-search reject (cdr shown))
          (fmplay-e2e--finish nil (format "line %d shows a failure: %s" (car shown) (cdr shown))))
        (unless (string-match-p "[[:alnum:]]" (cdr shown))
          (fmplay-e2e--finish nil (format "line %d shows no output text: %s" (car shown) (cdr shown))))
        ;; The block's status (a code lens elsewhere) is drawn after its #Playground line.
        (let ((status (fmplay-e2e--block-status playground-line)))
          (unless status
            (fmplay-e2e--finish nil (format "no block status after line %d" playground-line)))
          (setq fmplay-status (format "%s; block: %s" fmplay-status status)))
        (save-excursion
          (goto-char (point-min))
          (forward-line (1- (car shown)))
          (fmplay-e2e--finish
           t (format "line %d `%s` shows %s; status: %s" (car shown)
                     (string-trim (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
                     (cdr shown) fmplay-status)))))))

(condition-case err
    (fmplay-e2e--main)
  (error (fmplay-e2e--finish nil (error-message-string err))))

;;; e2e.el ends here
