// fmplay for VS Code: launches `fmplay lsp` with vscode-languageclient, maps the palette
// commands to the server's workspace/executeCommand commands and keeps a status-bar item.
// Diagnostics, inlay hints (the streamed results), hovers, completion and the code lenses
// come straight from the language server.
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";

// Palette command -> server command. The client ids differ from the server's because
// vscode-languageclient registers the server's own commands (used by the code lenses).
export const SERVER_COMMANDS: Record<string, string> = {
  "fmplay.runBlock": "fmplay.run",
  "fmplay.runFile": "fmplay.runAll",
  "fmplay.cancelEvaluation": "fmplay.cancel",
  "fmplay.clearResultCache": "fmplay.clearCache",
  "fmplay.showReport": "fmplay.openReport",
};

// VS Code setting (under "fmplay.") -> server configuration key.
export const SERVER_SETTINGS: Record<string, string> = {
  modelPath: "modelPath",
  evaluate: "evaluate",
  debounceMilliseconds: "debounceMilliseconds",
  seed: "seed",
  maxTokens: "maxTokens",
  hintLength: "hintLength",
};

interface Position { line: number; character: number }
interface Range { start: Position; end: Position }
interface FmplayResult { range?: Range; hint?: string }
// Per #Playground block: status is queued | running | done | failed | cancelled | blocked | idle.
interface FmplayBlock { name: string; line: number; status: string; summary?: string }
interface FmplayResults { uri: string; version?: number; results?: FmplayResult[]; blocks?: FmplayBlock[] }

let client: LanguageClient | undefined;
let statusItem: vscode.StatusBarItem;
const lastResults = new Map<string, FmplayResults>();

// JSON values for the server (typed `any` so they satisfy the protocol's LSPAny).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Settings = { [key: string]: any };

function serverSettings(): Settings {
  const configuration = vscode.workspace.getConfiguration("fmplay");
  const settings: Settings = {};
  for (const [setting, key] of Object.entries(SERVER_SETTINGS)) {
    const value = configuration.get(setting);
    if (value !== undefined && value !== null && value !== "") {
      settings[key] = value;
    }
  }
  return settings;
}

function updateStatus(): void {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "fmplay") {
    statusItem.hide();
    return;
  }
  if (!client || client.state !== State.Running) {
    statusItem.text = "$(circle-slash) fmplay";
    statusItem.tooltip = "The fmplay language server is not running";
  } else {
    const payload = lastResults.get(editor.document.uri.toString());
    const blocks = payload?.blocks ?? [];
    const count = (status: string) => blocks.filter((block) => block.status === status).length;
    const active = count("running") + count("queued");
    if (active > 0) {
      statusItem.text = `$(sync~spin) fmplay: running ${active} of ${blocks.length}`;
    } else if (count("failed") > 0) {
      statusItem.text = `$(error) fmplay: ${count("failed")} failed`;
    } else if ((payload?.results ?? []).length > 0) {
      statusItem.text = `$(check) fmplay: ${payload?.results?.length} results`;
    } else {
      statusItem.text = "$(beaker) fmplay";
    }
    statusItem.tooltip = "fmplay: click to run every #Playground block of this file";
  }
  statusItem.show();
}

async function executeOnServer(command: string, args: unknown[]): Promise<void> {
  if (!client) {
    void vscode.window.showWarningMessage("fmplay: the language server is not running");
    return;
  }
  await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

// Runs the server's code lens for `serverCommand` on the #Playground block around the cursor:
// the lens carries the exact arguments the server expects.
async function runLensCommand(serverCommand: string): Promise<boolean> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return false;
  }
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
    "vscode.executeCodeLensProvider", editor.document.uri);
  const line = editor.selection.active.line;
  let best: vscode.CodeLens | undefined;
  for (const lens of lenses ?? []) {
    if (lens.command?.command === serverCommand && lens.range.start.line <= line &&
        (!best || lens.range.start.line > best.range.start.line)) {
      best = lens;
    }
  }
  if (!best?.command) {
    return false;
  }
  await executeOnServer(serverCommand, best.command.arguments ?? []);
  return true;
}

// The server writes the HTML report of the document's last results and answers its path;
// VS Code opens it with the system's handler for .html files (a web browser).
async function openReport(): Promise<void> {
  if (!client) {
    void vscode.window.showWarningMessage("fmplay: the language server is not running");
    return;
  }
  try {
    const path = await client.sendRequest(ExecuteCommandRequest.type,
      { command: SERVER_COMMANDS["fmplay.showReport"], arguments: documentArgument() });
    if (typeof path !== "string") {
      throw new Error(`the server answered ${JSON.stringify(path)}, not a path`);
    }
    await vscode.env.openExternal(vscode.Uri.file(path));
  } catch (error) {
    void vscode.window.showErrorMessage(`fmplay: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function documentArgument(): unknown[] {
  const editor = vscode.window.activeTextEditor;
  return editor ? [{ uri: editor.document.uri.toString() }] : [];
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  statusItem.command = "fmplay.runFile";
  context.subscriptions.push(statusItem);

  const executable = vscode.workspace.getConfiguration("fmplay").get<string>("server.path") || "fmplay";
  const serverOptions: ServerOptions = { command: executable, args: ["lsp"] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "fmplay" }],
    initializationOptions: serverSettings(),
    outputChannelName: "fmplay",
    middleware: {
      workspace: {
        // Answer workspace/configuration for the "fmplay" section in the server's key names.
        configuration: (params, token, next) =>
          params.items.some((item) => item.section === "fmplay")
            ? params.items.map((item) => (item.section === "fmplay" ? serverSettings() : null))
            : next(params, token),
      },
    },
  };
  client = new LanguageClient("fmplay", "fmplay", serverOptions, clientOptions);
  context.subscriptions.push(client.onDidChangeState(() => updateStatus()));

  context.subscriptions.push(
    vscode.commands.registerCommand("fmplay.runBlock", async () => {
      if (!(await runLensCommand(SERVER_COMMANDS["fmplay.runBlock"]))) {
        void vscode.window.showInformationMessage("fmplay: no #Playground block at or above the cursor");
      }
    }),
    vscode.commands.registerCommand("fmplay.runFile", () =>
      executeOnServer(SERVER_COMMANDS["fmplay.runFile"], documentArgument())),
    vscode.commands.registerCommand("fmplay.cancelEvaluation", async () => {
      if (!(await runLensCommand(SERVER_COMMANDS["fmplay.cancelEvaluation"]))) {
        await executeOnServer(SERVER_COMMANDS["fmplay.cancelEvaluation"], documentArgument());
      }
    }),
    vscode.commands.registerCommand("fmplay.clearResultCache", () =>
      executeOnServer(SERVER_COMMANDS["fmplay.clearResultCache"], [])),
    vscode.commands.registerCommand("fmplay.showReport", openReport),
    vscode.window.onDidChangeActiveTextEditor(() => updateStatus()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("fmplay") && client) {
        void client.sendNotification("workspace/didChangeConfiguration", { settings: { fmplay: serverSettings() } });
      }
    }),
  );

  await client.start();
  context.subscriptions.push(
    client.onNotification("fmplay/results", (payload: FmplayResults) => {
      lastResults.set(payload.uri, payload);
      updateStatus();
    }),
  );
  updateStatus();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
