/**
 * Security headers for every HTML page the API serves: the reference pages under /docs and the console
 * under /console. A strict CSP with no inline script or style (the pages load their CSS and JS from files), no
 * framing (clickjacking), no referrer leaking ids in URLs, and HSTS outside development. JSON answers keep their
 * own `nosniff`; proxied merchant content keeps the hosted gateway's `sandbox` CSP.
 */
import type { RequestHandler } from "express";
import helmet from "helmet";

export const HTML_CONTENT_SECURITY_POLICY = {
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "img-src": ["'self'", "data:"],
  "font-src": ["'self'"],
  "connect-src": ["'self'"],
  "object-src": ["'none'"],
  "base-uri": ["'none'"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
} as const;

/** `strictTransport`: send HSTS (only where the service is reached over https, i.e. outside development). */
export function htmlSecurityHeaders(options: { strictTransport: boolean }): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        ...Object.fromEntries(
          Object.entries(HTML_CONTENT_SECURITY_POLICY).map(([name, values]) => [name, [...values]]),
        ),
        // Local development is plain http on loopback; upgrading would break every sub-resource there.
        ...(options.strictTransport ? { "upgrade-insecure-requests": [] } : {}),
      },
    },
    referrerPolicy: { policy: "no-referrer" },
    frameguard: { action: "deny" },
    strictTransportSecurity: options.strictTransport
      ? { maxAge: 31_536_000, includeSubDomains: true }
      : false,
    crossOriginOpenerPolicy: { policy: "same-origin" },
    crossOriginResourcePolicy: { policy: "same-origin" },
    crossOriginEmbedderPolicy: false,
  });
}
