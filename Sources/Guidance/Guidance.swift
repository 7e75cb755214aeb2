// The Guidance module. Its sources are being written; see ARCHITECTURE.md.
