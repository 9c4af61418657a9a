/**
 * Test support (not product code): finds the SQL writes in TypeScript source, for the write-path check
 * (server/memory/store/write-path.test.ts). It reads the code as TypeScript does (the compiler's parser), so
 * comments are not code, and it looks at every string a program could hand to SQLite:
 *   - string literals and template literals (an interpolation reads as `${…}`), multi-line, any case;
 *   - `+` chains of those (`"UPDATE " + table + " SET …"`);
 *   - Drizzle's `.insert(t)`, `.update(t)`, `.delete(t)` on a table imported from server/db/schema*.
 * A write is INSERT [OR …] INTO, REPLACE INTO, UPDATE [OR …], DELETE FROM, and the table statements CREATE
 * [VIRTUAL] TABLE, DROP TABLE, ALTER TABLE. Its table is the identifier after the verb (quotes and a schema
 * prefix dropped), or `${…}` when the name is made at run time.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface SqlWrite {
  /** 1-based line of the string (or call) holding the write. */
  line: number;
  verb: string;
  /** Lower-cased table name, or "${…}" when it is computed at run time. */
  table: string;
}

export const DYNAMIC = "$\u{7b}…}";

const VERB =
  /\b(insert\s+(?:or\s+[a-z]+\s+)?into|replace\s+into|update(?:\s+or\s+[a-z]+)?|delete\s+from|create\s+(?:virtual\s+)?table(?:\s+if\s+not\s+exists)?|drop\s+table(?:\s+if\s+exists)?|alter\s+table)\s+(?:[`"'[]?[a-z_]\w*[`"'\]]?\s*\.\s*)?([`"'[]?)(\$\{…\}|[a-z_]\w*)/gi;

/** The writes named in one text that SQLite would be given (a string, or a template with `${…}` holes). */
export function writesInSql(text: string): { verb: string; table: string }[] {
  const out: { verb: string; table: string }[] = [];
  for (const m of text.matchAll(VERB)) {
    const verb = m[1]!.replace(/\s+/g, " ").toUpperCase();
    const name = m[3]!;
    // "UPDATE memories SET" is SQL; "update the memories" in a sentence is not: UPDATE must be followed by SET.
    if (verb.startsWith("UPDATE")) {
      const rest = text.slice(m.index! + m[0].length);
      if (!/^[`"'\]]?\s+(?:(?:as\s+)?[a-z_]\w*\s+)?set\b/i.test(rest)) continue;
    }
    out.push({ verb, table: name === DYNAMIC ? DYNAMIC : name.toLowerCase() });
  }
  return out;
}

/** Drizzle table objects: exported name → SQL table name, read from server/db/schema*.ts. */
export function drizzleTables(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const dir = path.join(root, "server/db");
  for (const f of fs.readdirSync(dir)) {
    if (!/^schema.*\.ts$/.test(f) || f.endsWith(".test.ts")) continue;
    const src = fs.readFileSync(path.join(dir, f), "utf8");
    for (const m of src.matchAll(/export const (\w+)\s*=\s*sqliteTable\(\s*"(\w+)"/g)) out.set(m[1]!, m[2]!);
  }
  return out;
}

const isStringish = (n: ts.Node): boolean =>
  ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n);

function textOf(n: ts.Node): string {
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isTemplateExpression(n))
    return n.head.text + n.templateSpans.map((s) => `${DYNAMIC}${s.literal.text}`).join("");
  if (ts.isParenthesizedExpression(n)) return textOf(n.expression);
  if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken)
    return textOf(n.left) + textOf(n.right);
  return DYNAMIC;
}

const isPlus = (n: ts.Node): n is ts.BinaryExpression =>
  ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken;

/** Does a `+` chain hold a string literal anywhere (then it is read as one text)? */
function chainHasString(n: ts.Node): boolean {
  if (isStringish(n)) return true;
  if (ts.isParenthesizedExpression(n)) return chainHasString(n.expression);
  return isPlus(n) && (chainHasString(n.left) || chainHasString(n.right));
}

/** Names this file imports from the Drizzle schema (`import { memories } from "../db/schema"`), local → exported. */
function schemaImports(sf: ts.SourceFile, tables: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    if (!/(^|\/)db\/schema(-\w+)?$|^\.\/schema(-\w+)?$/.test(st.moduleSpecifier.text)) continue;
    const b = st.importClause?.namedBindings;
    if (b && ts.isNamedImports(b))
      for (const el of b.elements) {
        const exported = (el.propertyName ?? el.name).text;
        const table = tables.get(exported);
        if (table) out.set(el.name.text, table);
      }
    if (b && ts.isNamespaceImport(b)) for (const [k, v] of tables) out.set(`${b.name.text}.${k}`, v);
  }
  return out;
}

/** Every SQL write in one TypeScript source. */
export function sqlWritesIn(source: string, fileName: string, tables = new Map<string, string>()): SqlWrite[] {
  const sf = ts.createSourceFile(
    fileName,
    source,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const drizzle = schemaImports(sf, tables);
  const out: SqlWrite[] = [];
  const lineOf = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const visit = (n: ts.Node): void => {
    if (isStringish(n) || (isPlus(n) && chainHasString(n))) {
      for (const w of writesInSql(textOf(n))) out.push({ line: lineOf(n), ...w });
      if (isPlus(n)) return; // its parts were read as one text
    }
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      /^(insert|update|delete)$/.test(n.expression.name.text) &&
      n.arguments.length === 1
    ) {
      const table = drizzle.get(n.arguments[0]!.getText(sf));
      if (table) out.push({ line: lineOf(n), verb: `drizzle .${n.expression.name.text}()`, table });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The product's TypeScript files under `dirs` (relative to root), tests and test support left out. */
export function productSources(root: string, dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name === "node_modules" || r === "server/test") continue;
        walk(r);
      } else if (/\.tsx?$/.test(e.name) && !/\.(test|eval)\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"))
        out.push(r);
    }
  };
  for (const d of dirs) walk(d);
  return out.sort();
}
