// The page: a login form, then the game (game.ts) on one SDK client. Query: ?server=ws://host:port/
// (default ws://<this page's host>:7778/), ?name=Aria (prefills the name).
import { connect, ErrorCode, ZoneClientError } from "./sdk.ts";
import { Game } from "./game.ts";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);

const form = $<HTMLFormElement>("login");
const nameInput = $<HTMLInputElement>("name");
const tokenInput = $<HTMLInputElement>("token");
const serverInput = $<HTMLInputElement>("server");
const formError = $<HTMLElement>("login-error");
const gameEl = $<HTMLElement>("game");

let game: Game | null = null;
(window as unknown as { __play: unknown }).__play = null;
// Uncaught errors, for the test (and the curious).
const pageErrors: string[] = [];
(window as unknown as { __playErrors: string[] }).__playErrors = pageErrors;
window.addEventListener("error", (e) => pageErrors.push(String(e.error?.stack ?? e.message)));
window.addEventListener("unhandledrejection", (e) => pageErrors.push(`unhandled rejection: ${String((e.reason as Error)?.stack ?? e.reason)}`));

function defaultServer(): string {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.hostname || "127.0.0.1"}:7778/`;
}

serverInput.value = params.get("server") ?? defaultServer();
nameInput.value = params.get("name") ?? localStorage.getItem("play.name") ?? "";

function showForm(message?: string): void {
  game = null;
  (window as unknown as { __play: unknown }).__play = null;
  gameEl.hidden = true;
  form.hidden = false;
  formError.textContent = message ?? "";
  formError.hidden = !message;
  (nameInput.value ? tokenInput.value ? tokenInput : nameInput : nameInput).focus();
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const name = nameInput.value.trim().normalize("NFC");
  const token = tokenInput.value.trim();
  const url = serverInput.value.trim();
  if (!/^wss?:\/\//i.test(url)) return showForm("The server URL starts with ws:// or wss://");
  if (!token && !name) return showForm("Choose a name (or paste a login token if the server runs in token mode)");
  let client;
  try {
    // A token logs in once: a reconnect would need a fresh one, which this page cannot mint; it
    // then stops with the server's AUTH_FAILED and comes back here.
    client = connect(token ? { url, token } : { url, name });
  } catch (e) {
    return showForm(e instanceof ZoneClientError ? `${e.code}: ${e.message}` : String(e));
  }
  if (name) localStorage.setItem("play.name", name);
  form.hidden = true;
  gameEl.hidden = false;
  tokenInput.value = "";
  game = new Game(client, $<HTMLCanvasElement>("view"), {
    banner: $("banner"),
    bannerText: $("banner-text"),
    bannerButton: $<HTMLButtonElement>("banner-button"),
    chatLog: $("chat-log"),
    chatInput: $<HTMLInputElement>("chat-input"),
    logout: $<HTMLButtonElement>("logout"),
  }, { exit: (message) => showForm(message) });
  (window as unknown as { __play: unknown }).__play = game.api();
  // A final refusal before ever being in the world (a bad name, a refused token): say it on the form.
  const off = client.on("closed", (_reason, error) => {
    off();
    if (error && !client.stats.reconnects && !game?.states.some((s) => s.to === "in_world")) {
      game?.stop();
      showForm(refusal(error));
    }
  });
});

/** Why the server would not let you in, for the form. */
function refusal(error: ZoneClientError): string {
  switch (error.serverCode) {
    case ErrorCode.AUTH_FAILED:
      return `The server refused the token (AUTH_FAILED): a token logs in once and expires; get a fresh one. (${error.message})`;
    case ErrorCode.BAD_NAME:
      return `That name is not allowed: ${error.message}`;
    case ErrorCode.PROTOCOL_VERSION:
      return `The server speaks another protocol version: ${error.message}`;
    default:
      return error.message;
  }
}

showForm();
