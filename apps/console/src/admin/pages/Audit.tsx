/** Audit log: filters, cursor pages and the hash-chain verification (verify=1). */
import { useState } from "react";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { anyOption, FilterForm, pick, SelectFilter, TextFilter } from "../../ui/Filters";
import { PagedTable } from "../../ui/Pager";
import type { AdminClient } from "../api";
import { useAdmin } from "../context";
import { Loaded, Mono, Time } from "../ui";

const FIELDS = ["actor_type", "actor_id", "action", "target_type", "target_id"] as const;
type Filters = Partial<Record<(typeof FIELDS)[number], string>>;
const ACTOR_TYPES = ["", "admin", "merchant", "user", "system", "anonymous"] as const;

type Verification = NonNullable<
  Awaited<ReturnType<AdminClient["adminRead"]["audit"]["query"]>>["verification"]
>;

/** The chain check; after a prune it starts from the retention checkpoint's anchor, and says so. */
export function VerificationBanner({ verification: v }: { verification: Verification }) {
  if (!v.ok) {
    return (
      <p className="banner banner--error" role="alert" data-testid="audit-verify">
        Chain broken at {v.broken.seq} ({v.broken.id}): {v.broken.reason}, after {v.checked} good events.
      </p>
    );
  }
  return (
    <p className="banner banner--success" data-testid="audit-verify">
      Chain verified: {v.checked} events, head <Mono value={v.head} />.
      {v.checkpoint ? (
        <>
          {" "}
          Verified from checkpoint <Mono value={v.checkpoint.anchor_hash} /> ({v.checkpoint.pruned_total} rows
          pruned
          {v.checkpoint.pruned_total === v.checkpoint.pruned_count ? " on " : ", the last prune on "}
          <Time at={v.checkpoint.at} />
          ).
        </>
      ) : null}
    </p>
  );
}

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
            {d.verification ? <VerificationBanner verification={d.verification} /> : null}
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
