/**
 * The headers every response carries against framing, MIME sniffing and referrer leaks, and the page's
 * Content-Security-Policy (issue 33 item 2). The CSP's script nonce is made per request in proxy.ts; Next
 * reads it back from the request's CSP header and puts it on its own inline and framework scripts.
 */

/** Sent on every response (next.config.mjs for what the proxy passes on, proxy.ts for its own answers). */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
};

/** A fresh nonce for one response's scripts (128 random bits). */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

/**
 * The policy: only Memo's own origin, scripts only with this response's nonce (and what they load:
 * 'strict-dynamic'), no plugins, no <base> or form posts elsewhere, and no framing by anyone.
 * Development adds 'unsafe-eval' (React's dev tools rebuild stacks with eval); production never does.
 * Inline style attributes stay allowed: React sets them, and they cannot run code.
 */
export function contentSecurityPolicy(nonce: string, dev = process.env.NODE_ENV === "development"): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
