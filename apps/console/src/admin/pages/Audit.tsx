/** Audit log: filters, cursor pages and the hash-chain verification (verify=1). */
import { useState } from "react";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { anyOption, FilterForm, pick, SelectFilter, TextFilter } from "../../ui/Filters";
import { PagedTable } from "../../ui/Pager";
import { useAdmin } from "../context";
import { Loaded, Mono, Time } from "../ui";

const FIELDS = ["actor_type", "actor_id", "action", "target_type", "target_id"] as const;
type Filters = Partial<Record<(typeof FIELDS)[number], string>>;
const ACTOR_TYPES = ["", "admin", "merchant", "user", "system", "anonymous"] as const;

export function AuditPage() {
  const { client } = useAdmin();
  const [filters, setFilters] = useState<Filters>({});
  const { cursor, list } = usePagedLoad(JSON.stringify(filters), (page) =>
    client.adminRead.audit.query({
      ...(filters as Record<string, string>),
      verify: "1",
      ...page,
    } as Parameters<typeof client.adminRead.audit.query>[0]),
  );
  return (
    <>
      <h1>Audit log</h1>
      <FilterForm onApply={(values) => setFilters(pick(values, FIELDS))}>
        <SelectFilter
          label="Actor type"
          name="actor_type"
          defaultValue=""
          options={ACTOR_TYPES}
          optionLabel={anyOption}
        />
        <TextFilter label="Actor id" name="actor_id" />
        <TextFilter
          label="Action (exact, or prefix ending with “.”)"
          name="action"
          placeholder="admin.login."
          testId="audit-action"
        />
        <TextFilter label="Target type" name="target_type" />
        <TextFilter label="Target id" name="target_id" />
      </FilterForm>
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
            <PagedTable
              label="Audit"
              cursor={cursor}
              nextCursor={d.next_cursor}
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
          </>
        )}
      </Loaded>
    </>
  );
}
