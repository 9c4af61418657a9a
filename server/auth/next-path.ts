/**
 * Where to go after signing in: only a path on this site (no open redirect). The raw value is resolved
 * the way a browser would resolve it against Memo's origin — which strips tabs and newlines and reads
 * "\" as "/", so "/\t/evil.example" becomes "//evil.example", another host — and accepted only if the
 * result stays on that origin with a path starting with a single "/". The resolved path is what is used.
 */
const BASE = "http://memo.invalid";

export function safeNextPath(raw: string | string[] | undefined | null): string {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (!v?.startsWith("/")) return "/";
  let u: URL;
  try {
    u = new URL(v, BASE);
  } catch {
    return "/";
  }
  if (u.origin !== BASE) return "/";
  const path = `${u.pathname}${u.search}${u.hash}`;
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return "/";
  if (u.pathname === "/login" || u.pathname.startsWith("/login/")) return "/";
  return path;
}
