// What the chat box's text means: `say` by default, `/s text`, `/z text` (zone),
// `/w name text` or `/w "a name" text` (whisper; names may hold single spaces).
import { ChatChannel } from "./sdk.ts";

export type ChatCommand =
  | { kind: "send"; channel: ChatChannel; text: string; to?: string }
  | { kind: "help" }
  | { kind: "error"; message: string };

export function parseChat(line: string): ChatCommand | null {
  const s = line.trim();
  if (s === "") return null;
  if (!s.startsWith("/")) return { kind: "send", channel: ChatChannel.SAY, text: s };
  const m = /^\/(\S+)\s*(.*)$/s.exec(s)!;
  const cmd = m[1].toLowerCase();
  const rest = m[2].trim();
  switch (cmd) {
    case "s":
    case "say":
      return rest ? { kind: "send", channel: ChatChannel.SAY, text: rest } : { kind: "error", message: "usage: /s text" };
    case "z":
    case "zone":
      return rest ? { kind: "send", channel: ChatChannel.ZONE, text: rest } : { kind: "error", message: "usage: /z text" };
    case "w":
    case "whisper":
    case "tell": {
      let to = "";
      let text = "";
      const quoted = /^"([^"]+)"\s+(.+)$/s.exec(rest);
      if (quoted) {
        to = quoted[1];
        text = quoted[2];
      } else {
        const plain = /^(\S+)\s+(.+)$/s.exec(rest);
        if (plain) {
          to = plain[1];
          text = plain[2];
        }
      }
      if (!to || !text.trim()) return { kind: "error", message: 'usage: /w name text (or /w "a name" text)' };
      return { kind: "send", channel: ChatChannel.WHISPER, text: text.trim(), to };
    }
    case "help":
    case "?":
      return { kind: "help" };
    default:
      return { kind: "error", message: `unknown command /${cmd} (try /help)` };
  }
}
