/** Well-formed stand-ins for the secrets the deployment files leave as placeholders (none is a real key). */
export const SAMPLE_SECRETS: Readonly<Record<string, string>> = {
  DATABASE_URL: "postgres://tollgate:sample@postgres.example:5432/tollgate",
  REDIS_URL: "redis://redis.example:6379",
  WEBHOOK_SECRET_KEY: "ab".repeat(32),
  RECEIPT_KEYS_KEK: "cd".repeat(32),
  QUOTE_SIGNER_PRIVATE_KEY: `0x${"11".repeat(32)}`,
};
