/**
 * `npm run set-password`: set (or change) the owner password that Memo requires before it listens on a
 * network address (MEMO_HOST=0.0.0.0). Reads it from a terminal prompt (typed twice, not echoed) or, when
 * stdin is not a terminal, from stdin (`printf '%s' "$PW" | npm run --silent set-password`; one trailing
 * newline is dropped). Hashes it with scrypt (server/auth/password.ts) into the store of MEMO_DATA_DIR and
 * signs out every browser session. Works while Memo runs.
 *
 *   npm run set-password -- --remove    forget the password (Memo then refuses to listen on a network address)
 */
import { parseArgs } from "node:util";
import { dbPath } from "../server/core/config";
import { openDb } from "../server/db";
import { DEFAULT_SCRYPT, hashPassword, passwordProblem } from "../server/auth/password";
import { hasOwnerPassword, removeOwnerPassword, setOwnerPasswordHash } from "../server/auth/store";

function fail(msg: string): never {
  console.error(`set-password: ${msg}`);
  process.exit(1);
}

/** One line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    let value = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new Error("cancelled"));
        if (ch === "\u0004" && value === "") return done(new Error("cancelled"));
        if (ch === "\u007f" || ch === "\b") value = [...value].slice(0, -1).join("");
        else if (ch >= " ") value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  const text = Buffer.concat(parts).toString("utf8");
  return text.replace(/\r?\n$/, "");
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { remove: { type: "boolean", default: false } } });
  const file = dbPath();
  const { sqlite } = openDb(file);
  try {
    if (values.remove) {
      const r = removeOwnerPassword(sqlite);
      console.log(
        `Owner password removed from ${file}; ${r.sessionsRevoked} session(s) signed out. Memo will only listen on loopback now.`,
      );
      return;
    }
    let password: string;
    if (process.stdin.isTTY) {
      console.error(
        hasOwnerPassword(sqlite) ? `Changing the owner password of ${file}.` : `Setting the owner password of ${file}.`,
      );
      password = await promptHidden("New owner password: ");
      const problem = passwordProblem(password);
      if (problem) fail(problem);
      if ((await promptHidden("Repeat it: ")) !== password) fail("the two passwords differ; nothing changed");
    } else {
      password = await readStdin();
      const problem = passwordProblem(password);
      if (problem) fail(`${problem} (read from stdin)`);
    }
    const hash = await hashPassword(password);
    const { sessionsRevoked, tokensRevoked } = setOwnerPasswordHash(sqlite, hash);
    console.log(
      `Owner password set in ${file} (scrypt, N=2^${DEFAULT_SCRYPT.log2N}, r=${DEFAULT_SCRYPT.r}, p=${DEFAULT_SCRYPT.p}); ` +
        `${sessionsRevoked} session(s) signed out, ${tokensRevoked} API token(s) revoked. Memo may now listen on a network address, e.g. MEMO_HOST=0.0.0.0 npm start.`,
    );
  } finally {
    sqlite.close();
  }
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
