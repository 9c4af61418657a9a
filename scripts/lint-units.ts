// `npm run lint` step: no server/ or scripts/ function spans more than 120 lines, no app/ React component more
// than 250 (issue 56's "long units"). A unit's span runs from its first line to its closing brace, as the
// TypeScript parser sees it. Biome's complexity/noExcessiveLinesPerFunction counts lines differently (it skips
// blank and comment lines) and does not flag function components, so it cannot express this rule.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export const SERVER_FUNCTION_LIMIT = 120;
export const COMPONENT_LIMIT = 250;

export type UnitKind = "function" | "component";
export type LongUnit = { file: string; line: number; name: string; lines: number; kind: UnitKind; limit: number };

const isPascal = (name: string) => /^[A-Z][A-Za-z0-9]*$/.test(name) && /[a-z]/.test(name);

/** The name a function-like node is known by: its own, its variable's or property's, or Class.method. */
function unitName(node: ts.Node): string | undefined {
  const nameText = (n: ts.Node | undefined) =>
    n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) ? n.text : undefined;
  if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node)) {
    const own = nameText(node.name);
    if (own) return own;
  }
  if (
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node) ||
    ts.isConstructorDeclaration(node)
  ) {
    const method = ts.isConstructorDeclaration(node) ? "constructor" : nameText(node.name);
    const owner = node.parent && ts.isClassLike(node.parent) ? nameText(node.parent.name) : undefined;
    return owner && method ? `${owner}.${method}` : method;
  }
  // const x = () => {}, const X = memo(function () {}), { key: () => {} }
  let up: ts.Node = node.parent;
  while (up && ts.isCallExpression(up)) up = up.parent;
  if (up && ts.isVariableDeclaration(up)) return nameText(up.name);
  if (up && ts.isPropertyAssignment(up)) return nameText(up.name);
  return undefined;
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  );
}

/**
 * The units of one source file over their limit. `kind` "function": every function (declarations, methods,
 * arrows, callbacks) counts against SERVER_FUNCTION_LIMIT; "component": the PascalCase functions of a .tsx file
 * (React components) count against COMPONENT_LIMIT.
 */
export function longUnits(file: string, source: string, kind: UnitKind): LongUnit[] {
  const sf = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const limit = kind === "component" ? COMPONENT_LIMIT : SERVER_FUNCTION_LIMIT;
  const found: LongUnit[] = [];
  const visit = (node: ts.Node) => {
    if (isFunctionLike(node) && node.body) {
      const name = unitName(node);
      if (kind === "function" || (name && isPascal(name))) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = last - first + 1;
        if (lines > limit) found.push({ file, line: first + 1, name: name ?? "(anonymous)", lines, kind, limit });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const isTestFile = (file: string) => /\.(test|eval)\.tsx?$/.test(file) || file.startsWith("server/test/");

/** Every long unit of the repository at `root` (product code: tests and server/test/ excluded). */
export function scanRepository(root: string): LongUnit[] {
  const pick = (patterns: string[]) =>
    fs
      .globSync(patterns, { cwd: root })
      .map((f) => f.split(path.sep).join("/"))
      .filter((f) => !isTestFile(f) && !f.endsWith(".d.ts"))
      .sort();
  const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");
  return [
    ...pick(["server/**/*.ts", "server/**/*.tsx", "scripts/**/*.ts", "scripts/**/*.mts"]).flatMap((f) =>
      longUnits(f, read(f), "function"),
    ),
    ...pick(["app/**/*.tsx"]).flatMap((f) => longUnits(f, read(f), "component")),
  ];
}

/** The report's lines and whether the check passes, given the long units found. */
export function judge(units: LongUnit[]) {
  const lines = units.map((u) => {
    const what = u.kind === "component" ? "component" : "function";
    return `${u.file}:${u.line} ${what} ${u.name} spans ${u.lines} lines (limit ${u.limit})`;
  });
  return { lines, ok: units.length === 0, failing: units };
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("lint-units.ts")) {
  // The folder to scan: the repository (the working directory) unless one is named.
  const { lines, ok, failing } = judge(scanRepository(process.argv[2] ?? process.cwd()));
  for (const line of lines) console.log(line);
  if (!ok) {
    console.error(
      `lint-units: ${failing.length} unit(s) over the limit (server/scripts functions ${SERVER_FUNCTION_LIMIT} lines, app components ${COMPONENT_LIMIT}); split them into named parts.`,
    );
    process.exit(1);
  }
  console.log("lint-units: no unit over its limit.");
}
