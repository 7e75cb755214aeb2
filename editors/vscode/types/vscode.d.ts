// The part of the VS Code extension API (module "vscode", @types/vscode 1.82) that
// src/extension.ts uses, declared with the same names and signatures, so that `tsc` can
// type-check the extension where npm is unavailable (`make test` runs Debian's
// node-typescript with tsconfig.check.json). Debian packages no @types/vscode; a build with
// npm (README) uses the real package and ignores this directory. Add a declaration here
// when the extension starts using more of the API: the check fails until you do.

interface Thenable<T> extends PromiseLike<T> {}

declare module "vscode" {
  export class Disposable {
    constructor(callOnDispose: () => unknown);
    static from(...disposableLikes: { dispose: () => unknown }[]): Disposable;
    dispose(): unknown;
  }

  export interface Event<T> {
    (listener: (e: T) => unknown, thisArgs?: unknown, disposables?: Disposable[]): Disposable;
  }

  export interface CancellationToken {
    isCancellationRequested: boolean;
    onCancellationRequested: Event<unknown>;
  }

  export class Position {
    readonly line: number;
    readonly character: number;
    constructor(line: number, character: number);
  }

  export class Range {
    readonly start: Position;
    readonly end: Position;
    constructor(start: Position, end: Position);
  }

  export class Selection extends Range {
    readonly anchor: Position;
    readonly active: Position;
    constructor(anchor: Position, active: Position);
  }

  export class Uri {
    static parse(value: string, strict?: boolean): Uri;
    static file(path: string): Uri;
    readonly scheme: string;
    readonly fsPath: string;
    toString(skipEncoding?: boolean): string;
  }

  export interface TextDocument {
    readonly uri: Uri;
    readonly fileName: string;
    readonly languageId: string;
    readonly version: number;
    getText(range?: Range): string;
  }

  export interface TextEditor {
    readonly document: TextDocument;
    selection: Selection;
  }

  export interface Command {
    title: string;
    command: string;
    tooltip?: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    arguments?: any[];
  }

  export class CodeLens {
    range: Range;
    command?: Command;
    readonly isResolved: boolean;
    constructor(range: Range, command?: Command);
  }

  export class MarkdownString {
    value: string;
    constructor(value?: string, supportThemeIcons?: boolean);
  }

  export enum StatusBarAlignment {
    Left = 1,
    Right = 2,
  }

  export interface StatusBarItem {
    readonly alignment: StatusBarAlignment;
    readonly priority: number | undefined;
    text: string;
    tooltip: string | MarkdownString | undefined;
    command: string | Command | undefined;
    show(): void;
    hide(): void;
    dispose(): void;
  }

  export interface ExtensionContext {
    readonly subscriptions: { dispose(): unknown }[];
    readonly extensionPath: string;
  }

  export interface WorkspaceConfiguration {
    get<T>(section: string): T | undefined;
    get<T>(section: string, defaultValue: T): T;
    has(section: string): boolean;
  }

  export interface ConfigurationChangeEvent {
    affectsConfiguration(section: string, scope?: Uri | TextDocument): boolean;
  }

  export namespace window {
    export const activeTextEditor: TextEditor | undefined;
    export const onDidChangeActiveTextEditor: Event<TextEditor | undefined>;
    export function createStatusBarItem(alignment?: StatusBarAlignment, priority?: number): StatusBarItem;
    export function showInformationMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
    export function showWarningMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
    export function showErrorMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
  }

  export namespace env {
    export function openExternal(target: Uri): Thenable<boolean>;
  }

  export namespace commands {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    export function registerCommand(command: string, callback: (...args: any[]) => any, thisArg?: any): Disposable;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    export function executeCommand<T = unknown>(command: string, ...rest: any[]): Thenable<T>;
  }

  export namespace workspace {
    export function getConfiguration(section?: string, scope?: Uri | TextDocument | null): WorkspaceConfiguration;
    export const onDidChangeConfiguration: Event<ConfigurationChangeEvent>;
  }
}
