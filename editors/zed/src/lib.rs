//! Zed extension for fmplay: starts `fmplay lsp` (found on the worktree's PATH) for .fmplay
//! files and passes the user's `lsp.fmplay.initialization_options` to it.
use zed_extension_api::{self as zed, settings::LspSettings, LanguageServerId, Result};

struct FmplayExtension;

impl zed::Extension for FmplayExtension {
    fn new() -> Self {
        FmplayExtension
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let command = worktree
            .which("fmplay")
            .ok_or_else(|| "fmplay is not on PATH: run `make build` in the fmplay repository and add .build/debug to PATH".to_string())?;
        Ok(zed::Command {
            command,
            args: vec!["lsp".into()],
            env: worktree.shell_env(),
        })
    }

    fn language_server_initialization_options(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<zed::serde_json::Value>> {
        Ok(LspSettings::for_worktree(language_server_id.as_ref(), worktree)
            .ok()
            .and_then(|settings| settings.initialization_options))
    }
}

zed::register_extension!(FmplayExtension);
