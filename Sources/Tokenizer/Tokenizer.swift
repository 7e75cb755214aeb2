// The Tokenizer module. Its sources are being written; see ARCHITECTURE.md.
