/** Audit log: filters, cursor pages and the hash-chain verification (verify=1). */
import { type FormEvent, useState } from "react";
import { useCursor } from "../../hooks/useCursor";
import { useLoad } from "../../hooks/useLoad";
import { useAdmin } from "../context";
import { Loaded, Mono, Pager, Table, Time } from "../ui";

const FIELDS = ["actor_type", "actor_id", "action", "target_type", "target_id"] as const;
type Filters = Partial<Record<(typeof FIELDS)[number], string>>;

export function AuditPage() {
  const { client } = useAdmin();
  const [filters, setFilters] = useState<Filters>({});
  const key = JSON.stringify(filters);
  const pager = useCursor(key);
  const list = useLoad(
    () =>
      client.adminRead.audit.query({
        ...(filters as Record<string, string>),
        verify: "1",
        ...(pager.cursor ? { cursor: pager.cursor } : {}),
      } as Parameters<typeof client.adminRead.audit.query>[0]),
    `${key}:${pager.cursor ?? ""}`,
  );
  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setFilters(
      Object.fromEntries(
        FIELDS.flatMap((f) => (String(form.get(f) ?? "").trim() ? [[f, String(form.get(f)).trim()]] : [])),
      ),
    );
  }
  return (
    <>
      <h1>Audit log</h1>
      <form className="filters" onSubmit={apply}>
        <label>
          Actor type
          <select name="actor_type" defaultValue="">
            {["", "admin", "merchant", "user", "system", "anonymous"].map((t) => (
              <option key={t} value={t}>
                {t || "any"}
              </option>
            ))}
          </select>
        </label>
        <label>
          Actor id
          <input name="actor_id" />
        </label>
        <label>
          Action (exact, or prefix ending with “.”)
          <input name="action" placeholder="admin.login." data-testid="audit-action" />
        </label>
        <label>
          Target type
          <input name="target_type" />
        </label>
        <label>
          Target id
          <input name="target_id" />
        </label>
        <button type="submit" className="button">
          Filter
        </button>
      </form>
      <Loaded load={list} what="the audit log">
        {(d) => (
          <>
            {d.verification ? (
              d.verification.ok ? (
                <p className="banner banner--success" data-testid="audit-verify">
                  Chain verified: {d.verification.checked} events, head <Mono value={d.verification.head} />.
                </p>
              ) : (
                <p className="banner banner--error" role="alert" data-testid="audit-verify">
                  Chain broken at event {d.verification.broken.seq} ({d.verification.broken.id}):{" "}
                  {d.verification.broken.reason}, after {d.verification.checked} good events.
                </p>
              )
            ) : null}
            <Table
              caption="Events, newest first"
              testId="audit-table"
              rows={d.events}
              rowKey={(e) => e.id}
              empty="No event matches."
              columns={[
                { header: "At", cell: (e) => <Time at={e.at} /> },
                { header: "Actor", cell: (e) => `${e.actor.type}${e.actor.id ? ` ${e.actor.id}` : ""}` },
                { header: "Action", cell: (e) => <code>{e.action}</code> },
                { header: "Target", cell: (e) => (e.target ? `${e.target.type} ${e.target.id ?? ""}` : "—") },
                { header: "Address", cell: (e) => e.ip ?? "—" },
                {
                  header: "Details",
                  cell: (e) => (e.details ? <code>{JSON.stringify(e.details)}</code> : "—"),
                },
              ]}
            />
            <Pager
              label="Audit"
              page={pager.page}
              nextCursor={d.next_cursor}
              onNext={pager.next}
              onPrevious={pager.previous}
            />
          </>
        )}
      </Loaded>
    </>
  );
}
