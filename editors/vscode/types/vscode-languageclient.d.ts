// The part of vscode-languageclient 9 ("vscode-languageclient/node") that src/extension.ts
// uses, with the package's names and signatures, for the type check of `make test` (see
// vscode.d.ts in this directory for why). A build with npm uses the real package.

declare module "vscode-languageclient/node" {
  import { CancellationToken, Disposable, Event } from "vscode";

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  export type LSPAny = any;

  export enum State {
    Stopped = 1,
    Starting = 3,
    Running = 2,
  }

  export interface StateChangeEvent {
    oldState: State;
    newState: State;
  }

  export interface ExecutableOptions {
    cwd?: string;
    env?: Record<string, string | undefined>;
    detached?: boolean;
    shell?: boolean;
  }

  export interface Executable {
    command: string;
    args?: string[];
    options?: ExecutableOptions;
  }

  export type ServerOptions = Executable | { run: Executable; debug: Executable };

  export interface DocumentFilter {
    language?: string;
    scheme?: string;
    pattern?: string;
  }

  export type DocumentSelector = (string | DocumentFilter)[];

  export interface ConfigurationItem {
    scopeUri?: string;
    section?: string;
  }

  export interface ConfigurationParams {
    items: ConfigurationItem[];
  }

  export class ResponseError<D = void> extends Error {
    readonly code: number;
    readonly data: D | undefined;
    constructor(code: number, message: string, data?: D);
  }

  export type HandlerResult<R, E> = R | ResponseError<E> | Thenable<R> | Thenable<ResponseError<E>> | Thenable<R | ResponseError<E>>;

  export namespace ConfigurationRequest {
    type HandlerSignature = (params: ConfigurationParams, token: CancellationToken) => HandlerResult<LSPAny[], void>;
  }

  export interface WorkspaceMiddleware {
    configuration?: (
      params: ConfigurationParams,
      token: CancellationToken,
      next: ConfigurationRequest.HandlerSignature,
    ) => HandlerResult<LSPAny[], void>;
  }

  export interface Middleware {
    workspace?: WorkspaceMiddleware;
  }

  export interface LanguageClientOptions {
    documentSelector?: DocumentSelector | string[];
    initializationOptions?: LSPAny | (() => LSPAny);
    outputChannelName?: string;
    middleware?: Middleware;
  }

  export class RequestType<P, R, E> {
    readonly method: string;
    constructor(method: string);
  }

  export interface ExecuteCommandParams {
    command: string;
    arguments?: LSPAny[];
  }

  export namespace ExecuteCommandRequest {
    const method: "workspace/executeCommand";
    const type: RequestType<ExecuteCommandParams, LSPAny | null, void>;
  }

  export class LanguageClient {
    constructor(id: string, name: string, serverOptions: ServerOptions, clientOptions: LanguageClientOptions, forceDebug?: boolean);
    readonly state: State;
    readonly onDidChangeState: Event<StateChangeEvent>;
    start(): Promise<void>;
    stop(timeout?: number): Promise<void>;
    sendRequest<P, R, E>(type: RequestType<P, R, E>, params: P, token?: CancellationToken): Promise<R>;
    sendNotification(method: string, params?: LSPAny): Promise<void>;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    onNotification(method: string, handler: (...params: any[]) => void): Disposable;
  }
}
